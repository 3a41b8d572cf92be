package gate

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
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/parleynet/parley/approval"
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
func (g *Gate) addPending(e *pendingEntry) {
	g.pk.mu.Lock()
	g.pk.pending[e.p.Request.RequestID] = e
	g.pk.mu.Unlock()
}

// removePending takes requestID out of the pending list and reports
// whether it was there (false: it was decided meanwhile).
func (g *Gate) removePending(requestID string) bool {
	g.pk.mu.Lock()
	defer g.pk.mu.Unlock()
	_, ok := g.pk.pending[requestID]
	delete(g.pk.pending, requestID)
	return ok
}

// claim takes the entry of requestID out of the pending list: the one
// decision about it that counts.
func (g *Gate) claim(requestID string) (*pendingEntry, error) {
	g.pk.mu.Lock()
	defer g.pk.mu.Unlock()
	e, ok := g.pk.pending[requestID]
	if !ok {
		return nil, fail(CodeBadArgument, "no pending approval request %q (decided, expired or unknown)", requestID)
	}
	delete(g.pk.pending, requestID)
	return e, nil
}

// hand gives the decision d to what waits for e.
func (g *Gate) hand(e *pendingEntry, d decision) {
	if e.deliver != nil {
		e.deliver <- d // buffered, and e was claimed once
		return
	}
	g.pk.mu.Lock()
	e.reg.receipt, e.reg.denied = d.receipt, d.denied
	g.pk.mu.Unlock()
}

// entry returns the pending entry of requestID, after dropping
// registration requests whose window ended.
func (g *Gate) entry(requestID string) (*pendingEntry, error) {
	g.pruneRegistrations()
	g.pk.mu.Lock()
	defer g.pk.mu.Unlock()
	e, ok := g.pk.pending[requestID]
	if !ok {
		return nil, fail(CodeBadArgument, "no pending approval request %q", requestID)
	}
	return e, nil
}

// pruneRegistrations drops registration requests and sessions whose
// window ended, recording the requests as expired. (An act's request is
// removed by its waiter.)
func (g *Gate) pruneRegistrations() {
	now := g.now()
	var expired []approval.IntentRequest
	g.pk.mu.Lock()
	for id, e := range g.pk.pending {
		if e.reg != nil && e.p.Request.Expired(now) {
			delete(g.pk.pending, id)
			expired = append(expired, e.p.Request)
		}
	}
	for id, r := range g.pk.regs {
		if !now.Before(r.sess.ExpiresAt) {
			delete(g.pk.regs, id)
		}
	}
	g.pk.mu.Unlock()
	for _, req := range expired {
		_ = g.audit(context.Background(), approval.RequestEvent(approval.EventExpired, req, now))
	}
}

// PendingApprovals returns the requests waiting for the principal's
// decision, oldest first, each with its act in plain words and the time
// left in its window.
func (g *Gate) PendingApprovals() []PendingApproval {
	if g == nil {
		return nil
	}
	g.pruneRegistrations()
	now := g.now()
	g.pk.mu.Lock()
	out := make([]PendingApproval, 0, len(g.pk.pending))
	for _, e := range g.pk.pending {
		out = append(out, withExpiry(e.p, now))
	}
	g.pk.mu.Unlock()
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
func (g *Gate) PendingApproval(requestID string) (PendingApproval, error) {
	if g == nil {
		return PendingApproval{}, ErrNotStarted
	}
	e, err := g.entry(requestID)
	if err != nil {
		return PendingApproval{}, err
	}
	return withExpiry(e.p, g.now()), nil
}

// ApprovalOptions returns the WebAuthn request options (the argument of
// navigator.credentials.get) for the pending request requestID: the
// challenge is the 32 bytes of its intentHash, user verification is
// required and every usable passkey of the principal is allowed. It fails
// with CodeBadArgument for a request that does not wait, with
// credential_unknown when no passkey is registered.
func (g *Gate) ApprovalOptions(ctx context.Context, requestID string) (*protocol.CredentialAssertion, error) {
	if err := g.running(); err != nil {
		return nil, err
	}
	e, err := g.entry(requestID)
	if err != nil {
		return nil, err
	}
	opts, err := g.cer.BeginApproval(ctx, e.p.Request)
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
func (g *Gate) FinishApproval(ctx context.Context, requestID string, response []byte) (*approval.IntentReceipt, error) {
	r, b, err := g.approve(ctx, requestID, response)
	if err != nil {
		return nil, err
	}
	e, err := g.claim(requestID)
	if err != nil {
		return nil, fail(CodeStateForbidden, "request %s was decided or expired while the assertion was verified; the receipt was not used", requestID)
	}
	g.hand(e, decision{receipt: b})
	return r, nil
}

// approve verifies response for the pending request requestID and
// returns the approved receipt and its JSON text, without handing it
// over.
func (g *Gate) approve(ctx context.Context, requestID string, response []byte) (*approval.IntentReceipt, []byte, error) {
	if err := g.running(); err != nil {
		return nil, nil, err
	}
	e, err := g.entry(requestID)
	if err != nil {
		return nil, nil, err
	}
	if e.exclude != nil {
		if parsed, perr := protocol.ParseCredentialRequestResponseBytes(response); perr == nil && bytes.Equal(parsed.RawID, e.exclude) {
			return nil, nil, fail(Code(approval.CodeNotAuthorized), "request %s revokes this passkey: another passkey must approve it", requestID)
		}
	}
	r, err := g.cer.FinishApproval(ctx, e.p.Request, response)
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
func (g *Gate) DenyApproval(ctx context.Context, requestID, reason string) (*approval.IntentReceipt, error) {
	if err := g.running(); err != nil {
		return nil, err
	}
	if err := checkReason(reason); err != nil {
		return nil, err
	}
	e, err := g.claim(requestID)
	if err != nil {
		return nil, err
	}
	g.hand(e, decision{denied: true}) // the denial stands, even if its record fails
	r, err := g.cer.Deny(ctx, e.p.Request, reason)
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
func (g *Gate) WebAuthnConfig() approval.Config {
	if g == nil {
		return approval.Config{}
	}
	c := g.cfg.WebAuthn
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
func (g *Gate) BeginPasskey(ctx context.Context, token, label string) (*protocol.CredentialCreation, string, error) {
	return g.BeginPasskeyWith(ctx, PasskeyOptions{Token: token, Label: label})
}

// BeginPasskeyWith is BeginPasskey with every option, a software key
// among them.
func (g *Gate) BeginPasskeyWith(ctx context.Context, o PasskeyOptions) (*protocol.CredentialCreation, string, error) {
	if err := g.running(); err != nil {
		return nil, "", err
	}
	g.pruneRegistrations()
	token := strings.TrimSpace(o.Token)
	if strings.HasPrefix(token, RegSessionPrefix) {
		return g.resumeRegistration(token)
	}
	creds, err := g.store.Credentials(ctx)
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
		if err := g.checkToken(ctx, token); err != nil {
			return nil, "", err
		}
	}
	creation, sess, err := g.cer.BeginRegistration(ctx, approval.RegistrationOptions{Label: o.Label, Software: o.Software})
	if err != nil {
		return nil, "", approvalFailure(err, "begin registration")
	}
	r := &regSession{id: newID(RegSessionPrefix), sess: sess, creation: creation, token: token}
	if token != "" {
		g.pk.mu.Lock()
		g.pk.regs[r.id] = r
		g.pk.mu.Unlock()
		return creation, r.id, nil
	}
	act, err := g.cer.RegisterAction(sess)
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
		AgentID: g.cfg.Agent,
		TTL:     max(min(g.ttl(), sess.ExpiresAt.Sub(g.now()).Truncate(time.Millisecond)), approval.MinTTL),
	}, g.now(), nil)
	if err != nil {
		return nil, "", approvalFailure(err, "registration request")
	}
	if err := g.audit(ctx, approval.RequestEvent(approval.EventRequestCreated, req, g.now())); err != nil {
		return nil, "", err
	}
	r.request = req.RequestID
	g.pk.mu.Lock()
	g.pk.regs[r.id] = r
	g.pk.mu.Unlock()
	g.addPending(&pendingEntry{p: g.pendingFor(ActRegisterPasskey, req, act), action: act, reg: r})
	g.publish("", ActRegisterPasskey, string(approval.EventRequestCreated), req.IntentHash)
	return nil, r.id, pendingRegistration(r)
}

func pendingRegistration(r *regSession) error {
	return failWrap(CodeApprovalPending, &PendingRegistration{Session: r.id, RequestID: r.request},
		"approve request %s with an existing passkey, then begin again with session %s", r.request, r.id)
}

// resumeRegistration goes on with session id once its approval is given.
func (g *Gate) resumeRegistration(id string) (*protocol.CredentialCreation, string, error) {
	g.pk.mu.Lock()
	r, ok := g.pk.regs[id]
	var waiting, denied bool
	if ok {
		_, waiting = g.pk.pending[r.request]
		denied = r.denied
		if denied {
			delete(g.pk.regs, id)
		}
	}
	g.pk.mu.Unlock()
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
func (g *Gate) checkToken(ctx context.Context, token string) error {
	rec, err := g.tokens.EnrolToken(ctx)
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
	if !g.now().Before(rec.ExpiresAt) {
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
func (g *Gate) FinishPasskey(ctx context.Context, session string, response []byte) (approval.Credential, error) {
	if err := g.running(); err != nil {
		return approval.Credential{}, err
	}
	g.pruneRegistrations()
	g.pk.mu.Lock()
	r, ok := g.pk.regs[session]
	var auth approval.Authority
	if ok {
		auth = approval.Authority{EnrolToken: r.token, Receipt: r.receipt}
	}
	g.pk.mu.Unlock()
	switch {
	case !ok:
		return approval.Credential{}, fail(CodeBadArgument, "no registration session %q (finished, expired or unknown)", session)
	case auth.EnrolToken == "" && auth.Receipt == nil:
		return approval.Credential{}, pendingRegistration(r)
	}
	cred, err := g.cer.FinishRegistration(ctx, r.sess, auth, response)
	if err != nil {
		return approval.Credential{}, approvalFailure(err, "registration "+session)
	}
	g.pk.mu.Lock()
	delete(g.pk.regs, session)
	g.pk.mu.Unlock()
	g.log.Info("passkey registered", "label", cred.Label, "software", cred.Software, "ref", cred.Ref())
	return cred, nil
}

// Passkeys returns the principal's credentials in registration order,
// the revoked ones included (RevokedAt set: they approve nothing).
func (g *Gate) Passkeys(ctx context.Context) ([]approval.Credential, error) {
	if err := g.running(); err != nil {
		return nil, err
	}
	creds, err := g.store.Credentials(ctx)
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
