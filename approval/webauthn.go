package approval

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// DefaultRegistrationTTL is how long a registration ceremony stays open.
const DefaultRegistrationTTL = 5 * time.Minute

// Config configures the ceremonies and the gate. The principal's pages are
// served at http://localhost:<port> with RP ID "localhost" (browsers refuse
// an IP address as RP ID).
type Config struct {
	// RPID is the WebAuthn relying party id, a domain, never an IP address.
	RPID string
	// RPName is the relying party's display name.
	RPName string
	// Origins is the allowlist of page origins, such as
	// "http://localhost:7420"; each is http on localhost or https on the
	// RP ID or a subdomain of it, with no path.
	Origins []string
	// UserID is the principal's WebAuthn user handle, 1-64 bytes, stable
	// for the node and different from every other node's on the machine
	// (passkeys for one RP ID are keyed by user handle).
	UserID []byte
	// UserName and UserDisplayName name the principal to the authenticator.
	UserName, UserDisplayName string
	// RegistrationTTL is how long a registration stays open; zero means
	// DefaultRegistrationTTL.
	RegistrationTTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// DefaultConfig returns RP ID "localhost", RP name "Parley" and user name
// "principal"; Origins and UserID must still be set.
func DefaultConfig() Config {
	return Config{RPID: "localhost", RPName: "Parley", UserName: "principal", UserDisplayName: "Parley principal"}
}

// Validate checks every field and names the first bad one in an *Error
// with CodeInvalidConfig.
func (c Config) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fail(CodeInvalidConfig, "%s: %s", field, fmt.Sprintf(format, args...))
	}
	if c.RPID == "" {
		return bad("RPID", "required")
	}
	if net.ParseIP(strings.Trim(c.RPID, "[]")) != nil {
		return bad("RPID", "%q is an IP address; browsers need a domain such as localhost", c.RPID)
	}
	if err := protocol.ValidateRPID(c.RPID); err != nil || strings.ContainsAny(c.RPID, ":/") {
		return bad("RPID", "%q is not a domain", c.RPID)
	}
	if c.RPName == "" {
		return bad("RPName", "required")
	}
	if len(c.Origins) == 0 {
		return bad("Origins", "at least one origin is required")
	}
	for _, o := range c.Origins {
		if err := checkOrigin(o, c.RPID); err != nil {
			return bad("Origins", "%v", err)
		}
	}
	if len(c.UserID) == 0 || len(c.UserID) > 64 {
		return bad("UserID", "must be 1-64 bytes")
	}
	if c.UserName == "" {
		return bad("UserName", "required")
	}
	if c.RegistrationTTL < 0 {
		return bad("RegistrationTTL", "negative")
	}
	return nil
}

// checkOrigin accepts http on localhost and https on rpID or a subdomain of
// it, with no path, query or fragment.
func checkOrigin(o, rpID string) error {
	u, err := url.Parse(o)
	if err != nil {
		return fmt.Errorf("origin %q: %w", o, err)
	}
	if u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("origin %q must be scheme://host[:port] only", o)
	}
	if strings.HasSuffix(o, "/") {
		return fmt.Errorf("origin %q must not end in /", o)
	}
	host := u.Hostname()
	if host != rpID && !strings.HasSuffix(host, "."+rpID) {
		return fmt.Errorf("origin %q is not on RP ID %q", o, rpID)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if host != "localhost" {
			return fmt.Errorf("origin %q: plain http is allowed only on localhost", o)
		}
	default:
		return fmt.Errorf("origin %q: scheme must be http or https", o)
	}
	return nil
}

func (c Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c Config) registrationTTL() time.Duration {
	if c.RegistrationTTL == 0 {
		return DefaultRegistrationTTL
	}
	return c.RegistrationTTL
}

// newWebAuthn returns go-webauthn configured from c: user verification
// required, resident keys preferred, no attestation conveyance.
func newWebAuthn(c Config) (*webauthn.WebAuthn, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	wa, err := webauthn.New(&webauthn.Config{
		RPID: c.RPID, RPDisplayName: c.RPName, RPOrigins: append([]string(nil), c.Origins...),
		AttestationPreference: protocol.PreferNoAttestation,
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementPreferred,
			UserVerification: protocol.VerificationRequired,
		},
	})
	if err != nil {
		return nil, failWrap(CodeInvalidConfig, err, "webauthn")
	}
	return wa, nil
}

// principal is the one WebAuthn user of a node.
type principal struct {
	cfg   Config
	creds []webauthn.Credential
}

func (p principal) WebAuthnID() []byte                         { return p.cfg.UserID }
func (p principal) WebAuthnName() string                       { return p.cfg.UserName }
func (p principal) WebAuthnDisplayName() string                { return p.cfg.UserDisplayName }
func (p principal) WebAuthnCredentials() []webauthn.Credential { return p.creds }

// Ceremonies runs the WebAuthn ceremonies of the principal: registration
// of credentials (enrolment) and approval of intent requests. It is safe
// for concurrent use; approvals and registrations are serialised, so a
// credential's counter is read, checked and advanced as one step.
type Ceremonies struct {
	cfg   Config
	wa    *webauthn.WebAuthn
	store Store
	audit AuditSink
	gate  *Gate
	mu    sync.Mutex
}

// New returns the ceremonies for cfg over store, recording audit events in
// audit. It validates and does no I/O.
func New(cfg Config, store Store, audit AuditSink) (*Ceremonies, error) {
	g, err := NewGate(cfg, store, audit)
	if err != nil {
		return nil, err
	}
	return &Ceremonies{cfg: cfg, wa: g.wa, store: store, audit: audit, gate: g}, nil
}

// Gate returns the consumption gate over the same configuration and store.
func (c *Ceremonies) Gate() *Gate { return c.gate }

// usable returns the credentials that may approve: registered, not
// revoked and not flagged as cloned.
func (c *Ceremonies) usable(ctx context.Context) ([]Credential, error) {
	all, err := c.store.Credentials(ctx)
	if err != nil {
		return nil, fmt.Errorf("approval: credentials: %w", err)
	}
	out := all[:0]
	for _, cr := range all {
		if !cr.Cloned() && !cr.Revoked() {
			out = append(out, cr)
		}
	}
	return out, nil
}

func (c *Ceremonies) user(creds []Credential) principal {
	p := principal{cfg: c.cfg, creds: make([]webauthn.Credential, len(creds))}
	for i, cr := range creds {
		p.creds[i] = cr.WebAuthn
	}
	return p
}

// RegistrationOptions describe a credential about to be registered.
type RegistrationOptions struct {
	// Label names the credential for the principal.
	Label string
	// Software declares a software authenticator registered for automation
	// (see SoftwareKey); its receipts and audit entries are marked.
	Software bool
}

// RegistrationSession is the server side of one registration ceremony.
// The caller keeps it (it holds no secret) until FinishRegistration.
type RegistrationSession struct {
	// WebAuthn is go-webauthn's session: challenge, user, parameters.
	WebAuthn webauthn.SessionData `json:"webauthn"`
	// Label and Software are the RegistrationOptions.
	Label    string `json:"label,omitempty"`
	Software bool   `json:"software,omitempty"`
	// ExpiresAt ends the ceremony.
	ExpiresAt time.Time `json:"expiresAt"`
}

// BeginRegistration starts registering a credential of the principal and
// returns the creation options for the browser (or a SoftwareKey) and the
// session to keep. Registered credentials are excluded, user verification
// is required. Authority is checked by FinishRegistration.
func (c *Ceremonies) BeginRegistration(ctx context.Context, opts RegistrationOptions) (*protocol.CredentialCreation, *RegistrationSession, error) {
	if err := checkText("label", opts.Label, MaxLabelBytes, false); err != nil {
		return nil, nil, err
	}
	all, err := c.store.Credentials(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("approval: credentials: %w", err)
	}
	all = Active(all) // a revoked credential's authenticator may register a new one
	creation, sess, err := c.wa.BeginRegistration(c.user(all),
		webauthn.WithExclusions(webauthn.Credentials(c.user(all).creds).CredentialDescriptors()))
	if err != nil {
		return nil, nil, fmt.Errorf("approval: begin registration: %w", err)
	}
	return creation, &RegistrationSession{
		WebAuthn: *sess, Label: opts.Label, Software: opts.Software,
		ExpiresAt: c.cfg.now().UTC().Add(c.cfg.registrationTTL()),
	}, nil
}

// RegisterAction returns the act a further credential's registration
// needs an approved receipt of: tool parley.passkey.register, target the
// principal's user handle (base64url), arguments the ceremony's challenge,
// the label and whether it is a software key. Binding the challenge ties
// the approval to this one ceremony.
func (c *Ceremonies) RegisterAction(s *RegistrationSession) (Action, error) {
	if s == nil {
		return Action{}, fail(CodeInvalidRequest, "no registration session")
	}
	return NewAction(ToolPasskeyRegister, "register", base64.RawURLEncoding.EncodeToString(c.cfg.UserID), map[string]any{
		"registrationChallenge": s.WebAuthn.Challenge,
		"label":                 s.Label,
		"software":              s.Software,
	})
}

// Authority is what allows a registration: the one-time enrolment token
// for the first credential, or an approved receipt of RegisterAction for
// every further one. Exactly one is set.
type Authority struct {
	// EnrolToken is the token IssueEnrolToken returned.
	EnrolToken string
	// Receipt is the JSON text of an approved receipt, by an existing
	// credential, of RegisterAction(session).
	Receipt []byte
}

// FinishRegistration verifies the browser's attestation response for s
// (challenge, origin, RP ID, user verification), spends the authority and
// stores the credential. A first credential needs the enrolment token (and
// only while no credential is registered); a further one needs an approved
// receipt of RegisterAction(s) by an existing credential, which the gate
// consumes. The authority is spent only after the response verified, and
// the credential is stored only after the authority was spent.
func (c *Ceremonies) FinishRegistration(ctx context.Context, s *RegistrationSession, auth Authority, response []byte) (Credential, error) {
	if s == nil {
		return Credential{}, fail(CodeInvalidRequest, "no registration session")
	}
	now := c.cfg.now().UTC()
	if !now.Before(s.ExpiresAt) {
		return Credential{}, fail(CodeRequestExpired, "the registration ceremony ended at %s", formatTime(s.ExpiresAt))
	}
	if (auth.EnrolToken == "") == (len(auth.Receipt) == 0) {
		return Credential{}, fail(CodeNotAuthorized, "a registration needs exactly one of an enrolment token or an approved receipt")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	all, err := c.store.Credentials(ctx)
	if err != nil {
		return Credential{}, fmt.Errorf("approval: credentials: %w", err)
	}
	all = Active(all) // once every credential is revoked, the first is enrolled again
	var token EnrolToken
	if auth.EnrolToken != "" {
		if len(all) > 0 {
			return Credential{}, fail(CodeNotAuthorized, "a credential is registered: a further one needs an approval by an existing credential")
		}
		if token, err = checkEnrolToken(ctx, c.store, auth.EnrolToken, now); err != nil {
			return Credential{}, err
		}
	} else if len(all) == 0 {
		return Credential{}, fail(CodeNotAuthorized, "no credential is registered: the first one needs the enrolment token")
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return Credential{}, webauthnFail(err, "attestation response")
	}
	wc, err := c.wa.CreateCredential(c.user(all), s.WebAuthn, parsed)
	if err != nil {
		return Credential{}, webauthnFail(err, "attestation")
	}
	if _, err := c.store.Credential(ctx, wc.ID); err == nil {
		return Credential{}, fail(CodeCredentialExists, "credential %s is already registered", CredentialRef(wc.ID))
	} else if !errors.Is(err, ErrNotFound) {
		return Credential{}, fmt.Errorf("approval: credential: %w", err)
	}
	method := MethodEnrolToken
	if auth.EnrolToken != "" {
		if err := redeemEnrolToken(ctx, c.store, token, now); err != nil {
			return Credential{}, err
		}
	} else {
		act, err := c.RegisterAction(s)
		if err != nil {
			return Credential{}, err
		}
		if _, err := c.gate.Consume(ctx, auth.Receipt, act); err != nil {
			return Credential{}, err
		}
		method = MethodApprovedAct
	}
	cred := Credential{WebAuthn: *wc, Label: s.Label, Software: s.Software, RegisteredAt: now}
	if err := c.store.PutCredential(ctx, cred); err != nil {
		return Credential{}, fmt.Errorf("approval: store credential: %w", err)
	}
	if err := c.audit.Record(ctx, AuditEvent{
		Event: EventCredentialRegistered, Method: method, CredentialRef: cred.Ref(), Software: cred.Software, At: now,
	}); err != nil {
		return cred, fmt.Errorf("approval: credential %s registered, audit failed: %w", cred.Ref(), err)
	}
	return cred, nil
}

// BeginApproval returns the WebAuthn request options for req: challenge
// the 32 bytes of its intentHash, user verification required, every usable
// credential allowed. req must be valid and inside its window.
func (c *Ceremonies) BeginApproval(ctx context.Context, req IntentRequest) (*protocol.CredentialAssertion, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if req.Expired(c.cfg.now()) {
		return nil, fail(CodeRequestExpired, "request %s expired at %s", req.RequestID, formatTime(req.ExpiresAt))
	}
	creds, err := c.usable(ctx)
	if err != nil {
		return nil, err
	}
	if len(creds) == 0 {
		return nil, fail(CodeCredentialUnknown, "no usable credential is registered")
	}
	challenge, err := req.Challenge()
	if err != nil {
		return nil, err
	}
	opts, _, err := c.wa.BeginLogin(c.user(creds),
		webauthn.WithChallenge(challenge), webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, fmt.Errorf("approval: begin approval: %w", err)
	}
	return opts, nil
}

// FinishApproval verifies the browser's assertion response for req
// against the stored credential (seed section 7: challenge = the
// intentHash, origin in the allowlist, RP ID, signature, counter, user
// verified), records the approval and returns the approved receipt. The
// signature count must advance, or be 0 and stay 0; a count that does not
// advance flags the credential as cloned (stored) and fails with
// CodeCredentialCloned, as does any later use of a flagged credential.
// Every refusal after req was found valid is audited as
// assertion-rejected.
func (c *Ceremonies) FinishApproval(ctx context.Context, req IntentRequest, response []byte) (*IntentReceipt, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	now := c.cfg.now().UTC()
	reject := func(err *Error, ref string) error {
		e := RequestEvent(EventAssertionRejected, req, now)
		e.Method, e.Code, e.CredentialRef = MethodWebAuthn, err.Code, ref
		_ = c.audit.Record(ctx, e) // the rejection stands whatever the sink says
		return err
	}
	if req.Expired(now) {
		return nil, reject(fail(CodeRequestExpired, "request %s expired at %s", req.RequestID, formatTime(req.ExpiresAt)), "")
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return nil, reject(webauthnFail(err, "assertion response"), "")
	}
	ref := CredentialRef(parsed.RawID)
	c.mu.Lock()
	defer c.mu.Unlock()
	cred, err := c.store.Credential(ctx, parsed.RawID)
	if errors.Is(err, ErrNotFound) {
		return nil, reject(fail(CodeCredentialUnknown, "credential %s is not registered", ref), ref)
	}
	if err != nil {
		return nil, fmt.Errorf("approval: credential: %w", err)
	}
	if cred.Cloned() {
		return nil, reject(fail(CodeCredentialCloned, "credential %s is flagged as cloned", ref), ref)
	}
	if cred.Revoked() {
		return nil, reject(fail(CodeCredentialUnknown, "credential %s was revoked at %s", ref, formatTime(cred.RevokedAt)), ref)
	}
	creds, err := c.usable(ctx)
	if err != nil {
		return nil, err
	}
	challenge, err := req.Challenge()
	if err != nil {
		return nil, err
	}
	session := webauthn.SessionData{
		Challenge:        base64.RawURLEncoding.EncodeToString(challenge),
		RelyingPartyID:   c.cfg.RPID,
		UserID:           c.cfg.UserID,
		UserVerification: protocol.VerificationRequired,
	}
	for _, cr := range creds {
		session.AllowedCredentialIDs = append(session.AllowedCredentialIDs, cr.WebAuthn.ID)
	}
	updated, err := c.wa.ValidateLogin(c.user(creds), session, parsed)
	if err != nil {
		return nil, reject(webauthnFail(err, "assertion"), ref)
	}
	if !parsed.Response.AuthenticatorData.Flags.HasUserVerified() {
		return nil, reject(fail(CodeVerificationFailed, "the authenticator did not verify the user"), ref)
	}
	if updated.Authenticator.CloneWarning {
		cred.WebAuthn.Authenticator.CloneWarning = true
		if err := c.store.PutCredential(ctx, cred); err != nil {
			return nil, fmt.Errorf("approval: flag cloned credential: %w", err)
		}
		return nil, reject(fail(CodeCredentialCloned,
			"credential %s: signature count %d does not advance past %d; flagged as cloned",
			ref, parsed.Response.AuthenticatorData.Counter, cred.WebAuthn.Authenticator.SignCount), ref)
	}
	if !bytes.Equal(updated.ID, cred.WebAuthn.ID) {
		return nil, reject(fail(CodeVerificationFailed, "the assertion's credential is not %s", ref), ref)
	}
	cred.WebAuthn = *updated
	rec := ApprovalRecord{
		RequestID: req.RequestID, IntentHash: req.IntentHash, CredentialID: cred.WebAuthn.ID,
		SignCount: parsed.Response.AuthenticatorData.Counter, ApprovedAt: now, ExpiresAt: req.ExpiresAt,
	}
	already, err := c.store.RecordApproval(ctx, rec, cred)
	if err != nil {
		return nil, fmt.Errorf("approval: record approval: %w", err)
	}
	if already {
		return nil, reject(fail(CodeAlreadyApproved, "request %s was already approved", req.RequestID), ref)
	}
	receipt := &IntentReceipt{
		Kind: ReceiptKind, Version: Version, RequestID: req.RequestID, IntentHash: req.IntentHash, Nonce: req.Nonce,
		Decision: DecisionApproved, Intent: req,
		Authenticator: &ReceiptAuthenticator{
			Type: AuthenticatorTypeWebAuthn, CredentialID: base64.RawURLEncoding.EncodeToString(cred.WebAuthn.ID),
			Software: cred.Software,
		},
		Verification: &ReceiptVerification{Method: MethodWebAuthn, UserVerified: true},
		SignedAt:     now.Truncate(time.Millisecond), ExpiresAt: req.ExpiresAt,
		Assertion: assertionFrom(parsed.Raw),
	}
	e := RequestEvent(EventApproved, req, now)
	e.Decision, e.Method, e.CredentialRef, e.Software = DecisionApproved, MethodWebAuthn, ref, cred.Software
	if err := c.audit.Record(ctx, e); err != nil {
		return nil, fmt.Errorf("approval: audit approval of %s: %w", req.RequestID, err)
	}
	return receipt, nil
}

// Deny returns the denial of req with an optional reason: a receipt that
// carries no signature and never authorises anything. The reason is not
// audited (only the labels are).
func (c *Ceremonies) Deny(ctx context.Context, req IntentRequest, reason string) (*IntentReceipt, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if err := checkText("context.reason", reason, MaxReasonBytes, false); err != nil {
		return nil, err
	}
	now := c.cfg.now().UTC()
	e := RequestEvent(EventDenied, req, now)
	e.Decision, e.Method = DecisionDenied, MethodDeny
	if err := c.audit.Record(ctx, e); err != nil {
		return nil, fmt.Errorf("approval: audit denial of %s: %w", req.RequestID, err)
	}
	return newDeniedReceipt(req, reason, now), nil
}

// webauthnFail returns a verification failure for go-webauthn's err, with
// the library's developer detail when it gives one.
func webauthnFail(err error, what string) *Error {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.DevInfo != "" {
		return failWrap(CodeVerificationFailed, err, "%s (%s)", what, pe.DevInfo)
	}
	return failWrap(CodeVerificationFailed, err, "%s", what)
}
