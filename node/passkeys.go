package node

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
)

// PendingApproval is one approval request waiting for the principal, with
// the act in plain words.
type PendingApproval struct {
	// Request is the Human Intent Protocol request; an approval signs its
	// intentHash.
	Request approval.IntentRequest `json:"request"`
	// Act is the act that waits, such as sign_settlement.
	Act Act `json:"act"`
	// Title says the act in a sentence: "Sign the settlement of task
	// «Translate the guide»".
	Title string `json:"title"`
	// Lines are the act's values in plain words: the amount in ETH and
	// wei, the token, the counterparty, the task, what signing means,
	// when the request expires, then every other argument.
	Lines []PlainLine `json:"lines"`
}

// PlainLine is one labelled value of a pending approval.
type PlainLine struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// decision is what the principal decided about a pending request: an
// approved receipt's JSON text, or a denial.
type decision struct {
	receipt []byte
	denied  bool
}

// pendingEntry is one request waiting for the principal. An act's entry
// has a waiter (deliver), the goroutine of the act, which consumes the
// receipt itself; a registration's entry has the session the receipt is
// kept in until FinishPasskey consumes it.
type pendingEntry struct {
	p       PendingApproval
	action  approval.Action
	deliver chan decision // an act's waiter; nil for a registration
	reg     *regSession   // a registration; nil for an act
	exclude []byte        // a credential that must not approve (a revocation's)
}

// regSession is one passkey registration in progress.
type regSession struct {
	id       string
	sess     *approval.RegistrationSession
	creation *protocol.CredentialCreation
	token    string // the enrolment token of a first passkey
	request  string // the register_passkey request of a further one
	receipt  []byte // its approved receipt, once given
	denied   bool
}

// passkeys is the node's state of the principal's approvals: requests
// waiting for a decision and registrations in progress.
type passkeys struct {
	mu      sync.Mutex
	pending map[string]*pendingEntry
	regs    map[string]*regSession
}

func newPasskeys() *passkeys {
	return &passkeys{pending: map[string]*pendingEntry{}, regs: map[string]*regSession{}}
}

// RegSessionPrefix starts every passkey registration session id.
const RegSessionPrefix = "reg_"

// PendingRegistration is the detail of a CodeApprovalPending refusal of
// BeginPasskey: the registration session and the register_passkey request
// an existing passkey must approve before the ceremony goes on.
type PendingRegistration struct {
	// Session is the registration session; pass it to BeginPasskey as the
	// token to go on once RequestID is approved.
	Session string
	// RequestID is the pending register_passkey request.
	RequestID string
}

// Error says what waits for which approval.
func (p *PendingRegistration) Error() string {
	return fmt.Sprintf("registration %s waits for the approval of %s by an existing passkey", p.Session, p.RequestID)
}

// addPending makes e wait in PendingApprovals.
func (n *Node) addPending(e *pendingEntry) {
	n.pk.mu.Lock()
	n.pk.pending[e.p.Request.RequestID] = e
	n.pk.mu.Unlock()
}

// removePending takes requestID out of the pending list and reports
// whether it was there (false: it was decided meanwhile).
func (n *Node) removePending(requestID string) bool {
	n.pk.mu.Lock()
	defer n.pk.mu.Unlock()
	_, ok := n.pk.pending[requestID]
	delete(n.pk.pending, requestID)
	return ok
}

// claim takes the entry of requestID out of the pending list: the one
// decision about it that counts.
func (n *Node) claim(requestID string) (*pendingEntry, error) {
	n.pk.mu.Lock()
	defer n.pk.mu.Unlock()
	e, ok := n.pk.pending[requestID]
	if !ok {
		return nil, fail(CodeBadArgument, "no pending approval request %q (decided, expired or unknown)", requestID)
	}
	delete(n.pk.pending, requestID)
	return e, nil
}

// hand gives the decision d to what waits for e.
func (n *Node) hand(e *pendingEntry, d decision) {
	if e.deliver != nil {
		e.deliver <- d // buffered, and e was claimed once
		return
	}
	n.pk.mu.Lock()
	e.reg.receipt, e.reg.denied = d.receipt, d.denied
	n.pk.mu.Unlock()
}

// entry returns the pending entry of requestID, after dropping
// registration requests whose window ended.
func (n *Node) entry(requestID string) (*pendingEntry, error) {
	n.pruneRegistrations()
	n.pk.mu.Lock()
	defer n.pk.mu.Unlock()
	e, ok := n.pk.pending[requestID]
	if !ok {
		return nil, fail(CodeBadArgument, "no pending approval request %q", requestID)
	}
	return e, nil
}

// pruneRegistrations drops registration requests and sessions whose
// window ended, recording the requests as expired. (An act's request is
// removed by its waiter.)
func (n *Node) pruneRegistrations() {
	now := n.now()
	var expired []approval.IntentRequest
	n.pk.mu.Lock()
	for id, e := range n.pk.pending {
		if e.reg != nil && e.p.Request.Expired(now) {
			delete(n.pk.pending, id)
			expired = append(expired, e.p.Request)
		}
	}
	for id, r := range n.pk.regs {
		if !now.Before(r.sess.ExpiresAt) {
			delete(n.pk.regs, id)
		}
	}
	n.pk.mu.Unlock()
	for _, req := range expired {
		_ = n.audit(context.Background(), approval.RequestEvent(approval.EventExpired, req, now))
	}
}

// PendingApprovals returns the requests waiting for the principal's
// decision, oldest first, each with its act in plain words and the time
// left in its window.
func (n *Node) PendingApprovals() []PendingApproval {
	n.pruneRegistrations()
	now := n.now()
	n.pk.mu.Lock()
	out := make([]PendingApproval, 0, len(n.pk.pending))
	for _, e := range n.pk.pending {
		out = append(out, withExpiry(e.p, now))
	}
	n.pk.mu.Unlock()
	slices.SortFunc(out, func(a, b PendingApproval) int {
		if c := a.Request.IssuedAt.Compare(b.Request.IssuedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Request.RequestID, b.Request.RequestID)
	})
	return out
}

// PendingApproval returns the pending request requestID, or an error with
// CodeBadArgument when no such request waits.
func (n *Node) PendingApproval(requestID string) (PendingApproval, error) {
	e, err := n.entry(requestID)
	if err != nil {
		return PendingApproval{}, err
	}
	return withExpiry(e.p, n.now()), nil
}

// withExpiry returns p with its lines and a last line saying when it
// expires, seen at now.
func withExpiry(p PendingApproval, now time.Time) PendingApproval {
	left := p.Request.ExpiresAt.Sub(now).Truncate(time.Second)
	p.Lines = append(slices.Clip(p.Lines), PlainLine{Label: "Expires", Value: fmt.Sprintf("in %s (at %s)", max(left, 0), p.Request.ExpiresAt.UTC().Format(time.RFC3339))})
	return p
}

// ApprovalOptions returns the WebAuthn request options (the argument of
// navigator.credentials.get) for the pending request requestID: the
// challenge is the 32 bytes of its intentHash, user verification is
// required and every usable passkey of the principal is allowed. It fails
// with CodeBadArgument for a request that does not wait, with
// credential_unknown when no passkey is registered.
func (n *Node) ApprovalOptions(ctx context.Context, requestID string) (*protocol.CredentialAssertion, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	e, err := n.entry(requestID)
	if err != nil {
		return nil, err
	}
	opts, err := n.cer.BeginApproval(ctx, e.p.Request)
	if err != nil {
		return nil, approvalFailure(err, "approval options of "+requestID)
	}
	if e.exclude != nil {
		// The credential a revocation revokes is not asked to approve it.
		opts.Response.AllowedCredentials = slices.DeleteFunc(opts.Response.AllowedCredentials, func(c protocol.CredentialDescriptor) bool {
			return bytes.Equal(c.CredentialID, e.exclude)
		})
		if len(opts.Response.AllowedCredentials) == 0 {
			return nil, fail(Code(approval.CodeNotAuthorized), "no other passkey can approve request %s", requestID)
		}
	}
	return opts, nil
}

// FinishApproval verifies the principal's WebAuthn assertion (the JSON of
// the browser's PublicKeyCredential, or a software key's answer) for the
// pending request requestID: challenge = its intentHash, an allowed
// origin, the RP ID, the stored public key, an advancing counter, user
// verification. It records the approval, hands the approved receipt to
// the act that waits (which consumes it before it acts) and returns it. A
// refused assertion leaves the request pending and returns its code
// (verification_failed, credential_unknown, credential_cloned, ...).
func (n *Node) FinishApproval(ctx context.Context, requestID string, response []byte) (*approval.IntentReceipt, error) {
	r, b, err := n.approve(ctx, requestID, response)
	if err != nil {
		return nil, err
	}
	e, err := n.claim(requestID)
	if err != nil {
		return nil, fail(CodeStateForbidden, "request %s was decided or expired while the assertion was verified; the receipt was not used", requestID)
	}
	n.hand(e, decision{receipt: b})
	return r, nil
}

// approve verifies response for the pending request requestID and
// returns the approved receipt and its JSON text, without handing it
// over.
func (n *Node) approve(ctx context.Context, requestID string, response []byte) (*approval.IntentReceipt, []byte, error) {
	if err := n.running(); err != nil {
		return nil, nil, err
	}
	e, err := n.entry(requestID)
	if err != nil {
		return nil, nil, err
	}
	if e.exclude != nil {
		if parsed, perr := protocol.ParseCredentialRequestResponseBytes(response); perr == nil && bytes.Equal(parsed.RawID, e.exclude) {
			return nil, nil, fail(Code(approval.CodeNotAuthorized), "request %s revokes this passkey: another passkey must approve it", requestID)
		}
	}
	r, err := n.cer.FinishApproval(ctx, e.p.Request, response)
	if err != nil {
		return nil, nil, approvalFailure(err, "approval of "+requestID)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, nil, err
	}
	return r, b, nil
}

// DenyApproval denies the pending request requestID with an optional
// reason (recorded nowhere: free text may quote the act's values): the act
// that waits fails with approval_denied and performs nothing. It returns
// the denied receipt, which carries no signature and authorises nothing.
// Anyone who reaches the node's API or pages may deny.
func (n *Node) DenyApproval(ctx context.Context, requestID, reason string) (*approval.IntentReceipt, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	if err := checkReason(reason); err != nil {
		return nil, err
	}
	e, err := n.claim(requestID)
	if err != nil {
		return nil, err
	}
	n.hand(e, decision{denied: true}) // the denial stands, even if its record fails
	r, err := n.cer.Deny(ctx, e.p.Request, reason)
	if err != nil {
		return nil, approvalFailure(err, "denial of "+requestID)
	}
	return r, nil
}

// checkReason refuses a denial reason the protocol would refuse: over
// approval.MaxReasonBytes, invalid UTF-8, control characters other than
// newline and tab.
func checkReason(s string) error {
	if len(s) > approval.MaxReasonBytes || !utf8.ValidString(s) {
		return fail(CodeBadArgument, "the reason must be valid UTF-8 of at most %d bytes", approval.MaxReasonBytes)
	}
	for _, c := range s {
		if unicode.IsControl(c) && c != '\n' && c != '\t' {
			return fail(CodeBadArgument, "the reason holds control character %U", c)
		}
	}
	return nil
}

// WebAuthnConfig returns the ceremonies' configuration: the RP ID, the
// allowed page origins, the principal's user handle and names. The pages
// are served at one of the origins.
func (n *Node) WebAuthnConfig() approval.Config {
	c := n.wacfg
	c.Origins = slices.Clone(c.Origins)
	c.UserID = slices.Clone(c.UserID)
	return c
}

// PasskeyOptions describe a passkey registration: the authority and the
// credential's label and kind.
type PasskeyOptions struct {
	// Token is the one-time enrolment token of the first passkey; empty
	// for a further one (which an existing passkey must approve); or the
	// session BeginPasskey returned with CodeApprovalPending, to go on
	// once that approval is given.
	Token string
	// Label names the passkey for the principal ("laptop").
	Label string
	// Software registers a software key for automation
	// (approval.SoftwareKey); its receipts and audit entries say so.
	Software bool
}

// BeginPasskey starts registering a passkey of the principal and returns
// the WebAuthn creation options (the argument of
// navigator.credentials.create) and the session to finish it with. The
// first passkey needs the one-time token only the data directory holds
// (the one `parley init` printed and wrote to <data-dir>/enrol-token, or
// one `parley approvals enrol` made there: IssueEnrolToken), and only
// while none is registered; no API issues one. A further
// one, with token "", needs an approval by an existing passkey: the node
// makes a pending register_passkey request and BeginPasskey fails with
// CodeApprovalPending, whose *PendingRegistration names the session and
// the request; once the request is approved like any other, BeginPasskey
// with the session as the token returns the options.
func (n *Node) BeginPasskey(ctx context.Context, token, label string) (*protocol.CredentialCreation, string, error) {
	return n.BeginPasskeyWith(ctx, PasskeyOptions{Token: token, Label: label})
}

// BeginPasskeyWith is BeginPasskey with every option, a software key
// among them.
func (n *Node) BeginPasskeyWith(ctx context.Context, o PasskeyOptions) (*protocol.CredentialCreation, string, error) {
	if err := n.running(); err != nil {
		return nil, "", err
	}
	n.pruneRegistrations()
	token := strings.TrimSpace(o.Token)
	if strings.HasPrefix(token, RegSessionPrefix) {
		return n.resumeRegistration(token)
	}
	creds, err := n.apStore.Credentials(ctx)
	if err != nil {
		return nil, "", failWrap(CodeStoreFailed, err, "credentials")
	}
	creds = approval.Active(creds) // once every passkey is revoked, the first is enrolled again
	switch {
	case token != "" && len(creds) > 0:
		return nil, "", fail(Code(approval.CodeNotAuthorized), "%d passkeys are registered: a further one needs an approval by an existing passkey (register without a token)", len(creds))
	case token == "" && len(creds) == 0:
		return nil, "", fail(Code(approval.CodeNotAuthorized), "no passkey is registered: the first one needs the enrolment token in the data directory (<data-dir>/%s, which `parley init` printed, or a new one from `parley approvals enrol`)", EnrolTokenFileName)
	case token != "":
		if err := n.checkToken(ctx, token); err != nil {
			return nil, "", err
		}
	}
	creation, sess, err := n.cer.BeginRegistration(ctx, approval.RegistrationOptions{Label: o.Label, Software: o.Software})
	if err != nil {
		return nil, "", approvalFailure(err, "begin registration")
	}
	r := &regSession{id: newID(RegSessionPrefix), sess: sess, creation: creation, token: token}
	if token != "" {
		n.pk.mu.Lock()
		n.pk.regs[r.id] = r
		n.pk.mu.Unlock()
		return creation, r.id, nil
	}
	act, err := n.cer.RegisterAction(sess)
	if err != nil {
		return nil, "", approvalFailure(err, "registration act")
	}
	kind := "a passkey"
	if o.Software {
		kind = "a software key (it approves without a person: whoever holds it holds your authority)"
	}
	req, err := approval.NewRequest(approval.RequestSpec{
		Action:  act,
		Context: approval.IntentContext{Reason: "register " + kind + " as a further credential of yours; it can then approve every act", Risk: approval.RiskCritical},
		AgentID: n.self.String(),
		TTL:     max(min(n.approvalTTL(), sess.ExpiresAt.Sub(n.now()).Truncate(time.Millisecond)), approval.MinTTL),
	}, n.now(), nil)
	if err != nil {
		return nil, "", approvalFailure(err, "registration request")
	}
	if err := n.audit(ctx, approval.RequestEvent(approval.EventRequestCreated, req, n.now())); err != nil {
		return nil, "", err
	}
	r.request = req.RequestID
	n.pk.mu.Lock()
	n.pk.regs[r.id] = r
	n.pk.mu.Unlock()
	n.addPending(&pendingEntry{p: n.pendingFor(ActRegisterPasskey, req, act), action: act, reg: r})
	n.events.publish(Event{Kind: EventApproval, Detail: string(ActRegisterPasskey), Code: string(approval.EventRequestCreated), Hash: req.IntentHash, At: n.now()})
	return nil, r.id, pendingRegistration(r)
}

func pendingRegistration(r *regSession) error {
	return failWrap(CodeApprovalPending, &PendingRegistration{Session: r.id, RequestID: r.request},
		"approve request %s with an existing passkey, then begin again with session %s", r.request, r.id)
}

// resumeRegistration goes on with session id once its approval is given.
func (n *Node) resumeRegistration(id string) (*protocol.CredentialCreation, string, error) {
	n.pk.mu.Lock()
	r, ok := n.pk.regs[id]
	var waiting, denied bool
	if ok {
		_, waiting = n.pk.pending[r.request]
		denied = r.denied
		if denied {
			delete(n.pk.regs, id)
		}
	}
	n.pk.mu.Unlock()
	switch {
	case !ok:
		return nil, "", fail(CodeBadArgument, "no registration session %q (finished, expired or unknown)", id)
	case denied:
		return nil, "", fail(CodeApprovalDenied, "the registration %s was denied", id)
	case r.token == "" && r.receipt == nil && waiting:
		return nil, id, pendingRegistration(r)
	case r.token == "" && r.receipt == nil:
		return nil, "", fail(CodeApprovalExpired, "the approval of registration %s expired", id)
	}
	return r.creation, id, nil
}

// checkToken refuses an enrolment token that FinishRegistration would
// refuse, before the person goes through the browser's ceremony: no token
// issued or another one (token_invalid), redeemed (token_used), expired
// (token_expired). It spends nothing.
func (n *Node) checkToken(ctx context.Context, token string) error {
	rec, err := n.tokens.EnrolToken(ctx)
	if errors.Is(err, approval.ErrNotFound) {
		return fail(Code(approval.CodeTokenInvalid), "no enrolment token was issued (`parley approvals enrol` makes one in the data directory)")
	}
	if err != nil {
		return failWrap(CodeStoreFailed, err, "enrolment token")
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare([]byte(hex.EncodeToString(sum[:])), []byte(rec.Hash)) != 1 {
		return fail(Code(approval.CodeTokenInvalid), "not the issued enrolment token")
	}
	if !rec.RedeemedAt.IsZero() {
		return fail(Code(approval.CodeTokenUsed), "the enrolment token was used at %s", rec.RedeemedAt.UTC().Format(time.RFC3339))
	}
	if !n.now().Before(rec.ExpiresAt) {
		return fail(Code(approval.CodeTokenExpired), "the enrolment token expired at %s", rec.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// FinishPasskey verifies the authenticator's attestation (the JSON of the
// browser's PublicKeyCredential, or a software key's answer) for session,
// spends its authority (the enrolment token, or the approved receipt of
// its register_passkey request, which the consumption gate consumes) and
// stores the credential. A refusal keeps the session for another attempt
// within its window; a spent authority is refused then with its code.
func (n *Node) FinishPasskey(ctx context.Context, session string, response []byte) (approval.Credential, error) {
	if err := n.running(); err != nil {
		return approval.Credential{}, err
	}
	n.pruneRegistrations()
	n.pk.mu.Lock()
	r, ok := n.pk.regs[session]
	var auth approval.Authority
	if ok {
		auth = approval.Authority{EnrolToken: r.token, Receipt: r.receipt}
	}
	n.pk.mu.Unlock()
	switch {
	case !ok:
		return approval.Credential{}, fail(CodeBadArgument, "no registration session %q (finished, expired or unknown)", session)
	case auth.EnrolToken == "" && auth.Receipt == nil:
		return approval.Credential{}, pendingRegistration(r)
	}
	cred, err := n.cer.FinishRegistration(ctx, r.sess, auth, response)
	if err != nil {
		return approval.Credential{}, approvalFailure(err, "registration "+session)
	}
	n.pk.mu.Lock()
	delete(n.pk.regs, session)
	n.pk.mu.Unlock()
	n.log.Info("passkey registered", "label", cred.Label, "software", cred.Software, "ref", cred.Ref())
	return cred, nil
}

// Passkeys returns the principal's credentials in registration order,
// the revoked ones included (RevokedAt set: they approve nothing).
func (n *Node) Passkeys(ctx context.Context) ([]approval.Credential, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	creds, err := n.apStore.Credentials(ctx)
	if err != nil {
		return nil, failWrap(CodeStoreFailed, err, "credentials")
	}
	return creds, nil
}

// newID returns prefix and 32 random lowercase hex digits.
func newID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// pendingFor returns the pending approval of req for act, in plain words
// (without its expiry line, which PendingApprovals adds).
func (n *Node) pendingFor(act Act, req approval.IntentRequest, action approval.Action) PendingApproval {
	var args map[string]any
	_ = json.Unmarshal(action.Arguments, &args)
	title := n.taskTitle(action.Target, args)
	p := PendingApproval{Request: req, Act: act, Title: actTitle(act, title, args)}
	if c := n.draftOf(str(args["cardHash"])); act == ActConfirmCard && c != nil {
		// The whole card is shown: every clause, not only its hash and
		// goal. The hash among the arguments binds exactly this card.
		shown := maps.Clone(args)
		delete(shown, "principal")
		delete(shown, "goal")
		delete(shown, "cardHash")
		p.Lines = append(CardLines(c), plainLines(act, title, req, shown)...)
		return p
	}
	p.Lines = plainLines(act, title, req, args)
	return p
}

// taskTitle returns the title of the task negotiation nid is about, from
// its thread or, for an answer to an announcement not yet registered,
// from the board; "" when neither knows it.
func (n *Node) taskTitle(nid string, args map[string]any) string {
	if t := n.lookup(nid); t != nil {
		t.mu.Lock()
		var title string
		if cur := t.th.Current(); cur != nil && cur.Terms != nil {
			title = cur.Terms.Title
		}
		t.mu.Unlock()
		if title != "" {
			return title
		}
	}
	if s, ok := args["acceptedOfferHash"].(string); ok {
		if h, err := negotiation.ParseHash(s); err == nil {
			if b, err := n.board.announcement(h); err == nil {
				if p, ok := b.env.Payload.(*negotiation.TaskProposal); ok {
					return p.Terms.Title
				}
			}
		}
	}
	return ""
}

// actTitle says act in a sentence.
func actTitle(act Act, title string, args map[string]any) string {
	task := "the task"
	if title != "" {
		task = "task «" + title + "»"
	}
	switch act {
	case ActSignSettlement:
		return "Sign the settlement of " + task
	case ActFundEscrow:
		return "Fund the escrow of " + task
	case ActReleaseMilestone:
		return fmt.Sprintf("Accept the delivery of milestone %s of %s and pay the worker", str(args["milestone"]), task)
	case ActSignCancel:
		return "Cancel " + task
	case ActSignAmendment:
		return "Amend the milestones and deadline of " + task
	case ActSignReplacement:
		return "Hand " + task + " over to a replacement worker"
	case ActOpenDispute:
		return "Open a dispute about " + task
	case ActProposeArbitrator:
		return "Name the arbitrator of the dispute about " + task
	case ActRule:
		return "Rule on the dispute about " + task
	case ActConfirmCard:
		switch negotiation.Via(str(args["via"])) {
		case negotiation.ViaWeb:
			return fmt.Sprintf("Seal your intent card for «%s»", str(args["principal"]))
		case negotiation.ViaAPI:
			return fmt.Sprintf("Seal the intent card sent through the node's API for «%s»", str(args["principal"]))
		}
		return fmt.Sprintf("Seal the intent card your agent drafted for «%s»", str(args["principal"]))
	case ActConfirmAnswer:
		switch negotiation.Via(str(args["via"])) {
		case negotiation.ViaWeb:
			return fmt.Sprintf("Seal your answer: «%s»", str(args["answer"]))
		case negotiation.ViaAPI:
			return fmt.Sprintf("Confirm the answer sent through the node's API: «%s»", str(args["answer"]))
		}
		return fmt.Sprintf("Confirm the answer your agent relayed: «%s»", str(args["answer"]))
	case ActRegisterPasskey:
		if b, _ := args["software"].(bool); b {
			return fmt.Sprintf("Register a software key «%s» as a further credential", str(args["label"]))
		}
		return fmt.Sprintf("Register a passkey «%s» as a further credential", str(args["label"]))
	case ActRevokePasskey:
		if b, _ := args["software"].(bool); b {
			return fmt.Sprintf("Revoke the software key «%s»", str(args["label"]))
		}
		return fmt.Sprintf("Revoke the passkey «%s»", str(args["label"]))
	}
	return string(act)
}

// lineLabels are the labels of the arguments shown first, in this order;
// every other argument follows under its own name.
var lineLabels = []struct{ key, label string }{
	{"amount", "Amount"}, {"token", "Token"}, {"counterparty", "Counterparty"},
	{"milestoneAmounts", "Milestones"}, {"milestone", "Milestone"}, {"deadline", "Deadline"},
	{"bond", "Bond"}, {"refund", "Refund to the poster"}, {"topUp", "Top-up"}, {"escrow", "Escrow"},
	{"arbitrator", "Arbitrator"}, {"newWorker", "New worker"}, {"ruling", "Ruling"},
	{"label", "Label"}, {"software", "Software key"}, {"credential", "Credential"},
	{"question", "Question"}, {"answer", "Answer"}, {"via", "How it arrived"}, {"answerIndex", "Amendment"},
	{"principal", "Principal"}, {"goal", "Goal"}, {"cardHash", "Card hash"},
}

// plainLines returns the task, the act's values in plain words, what
// signing means and the risk, then every other argument.
func plainLines(act Act, title string, req approval.IntentRequest, args map[string]any) []PlainLine {
	var out []PlainLine
	native := str(args["token"]) == "" || str(args["token"]) == (negotiation.Address{}).String()
	if title != "" {
		out = append(out, PlainLine{"Task", title})
	}
	if act != ActRegisterPasskey && act != ActRevokePasskey && req.Action.Target != "" {
		out = append(out, PlainLine{"Negotiation", req.Action.Target})
	}
	shown := map[string]bool{}
	for _, l := range lineLabels {
		v, ok := args[l.key]
		if !ok {
			continue
		}
		shown[l.key] = true
		var s string
		switch l.key {
		case "amount", "bond", "refund", "topUp", "escrow":
			s = money(str(v), native)
		case "token":
			if native {
				s = "ETH (native)"
			} else {
				s = str(v) + " (amounts in its smallest unit)"
			}
		case "milestoneAmounts":
			var parts []string
			if l, ok := v.([]any); ok {
				for _, a := range l {
					parts = append(parts, money(str(a), native))
				}
			}
			s = strings.Join(parts, "; ")
		case "ruling":
			s = ruling(str(v))
		case "software":
			s = "no"
			if b, _ := v.(bool); b {
				s = "yes: it approves without a person"
			}
		case "via":
			s = viaWords(str(v))
		case "answerIndex":
			s = "amendments[" + str(v) + "] of the card"
		default:
			s = str(v)
		}
		out = append(out, PlainLine{l.label, s})
	}
	if r := req.Context.Reason; r != "" {
		out = append(out, PlainLine{"What this means", r})
	}
	if r := req.Context.Risk; r != "" {
		out = append(out, PlainLine{"Risk", string(r)})
	}
	var rest []string
	for k := range args {
		if !shown[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		out = append(out, PlainLine{k, str(args[k])})
	}
	out = append(out, PlainLine{"Intent hash", req.IntentHash})
	return out
}

// viaWords says how an answer or a card arrived.
func viaWords(v string) string {
	switch negotiation.Via(v) {
	case negotiation.ViaWeb:
		return "typed on your pages (web): your passkey seals these exact words"
	case negotiation.ViaAPI:
		return "through the node's API (api): an agent or a script holding its key sent it, not you"
	case negotiation.ViaMCP:
		return "relayed by an agent over MCP (mcp), not typed by you"
	}
	return v
}

// str writes an argument value: a string as it is, a list joined by
// commas, anything else in JSON.
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = str(e)
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// money writes a decimal amount: in ETH and wei for native ETH, else in
// the token's smallest unit.
func money(wei string, native bool) string {
	x, ok := new(big.Int).SetString(wei, 10)
	if !ok {
		return wei
	}
	if !native {
		return x.String() + " units"
	}
	return FormatETH(x) + " ETH (" + x.String() + " wei)"
}

// FormatETH writes wei as ETH with up to 18 decimals, trailing zeros
// dropped: 350000000000000000 is "0.35".
func FormatETH(wei *big.Int) string {
	if wei == nil {
		return "0"
	}
	neg := wei.Sign() < 0
	x := new(big.Int).Abs(wei)
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	q, r := new(big.Int).QuoRem(x, unit, new(big.Int))
	s := q.String()
	if r.Sign() != 0 {
		frac := fmt.Sprintf("%018s", r.String())
		s += "." + strings.TrimRight(frac, "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// ruling writes a ruling in plain words: 0 refuses to rule, r gives the
// worker r-1 basis points of the escrow.
func ruling(s string) string {
	r, ok := new(big.Int).SetString(s, 10)
	switch {
	case !ok:
		return s
	case r.Sign() == 0:
		return "refuse to rule (ruling 0)"
	}
	bps := new(big.Int).Sub(r, big.NewInt(1)).Int64()
	return fmt.Sprintf("the worker gets %d.%02d%% of the escrow, the poster the rest (ruling %s)", bps/100, bps%100, s)
}
