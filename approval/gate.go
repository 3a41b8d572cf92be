package approval

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
)

// Gate is the consumption gate (seed section 8): before an act is
// performed, the consumer presents the receipt and the action it is about
// to run, and the gate authorises it once. It is safe for concurrent use;
// one-shot consumption rests on Store.MarkConsumed.
type Gate struct {
	cfg   Config
	wa    *webauthn.WebAuthn
	store Store
	audit AuditSink
}

// NewGate returns the gate for cfg over store, recording audit events in
// audit. It validates and does no I/O.
func NewGate(cfg Config, store Store, audit AuditSink) (*Gate, error) {
	if store == nil {
		return nil, fail(CodeInvalidConfig, "store: required")
	}
	if audit == nil {
		return nil, fail(CodeInvalidConfig, "audit: required")
	}
	wa, err := newWebAuthn(cfg)
	if err != nil {
		return nil, err
	}
	cfg.Origins = append([]string(nil), cfg.Origins...)
	cfg.UserID = bytes.Clone(cfg.UserID)
	return &Gate{cfg: cfg, wa: wa, store: store, audit: audit}, nil
}

// Consumption is what an authorised consumption returns.
type Consumption struct {
	// RequestID and IntentHash identify the consumed receipt.
	RequestID, IntentHash string
	// Action is the authorised action (the submitted one, which hashes to
	// the intentHash).
	Action Action
	// CredentialRef is the approving credential's hashed reference.
	CredentialRef string
	// Software is true when a software key approved.
	Software bool
	// ConsumedAt is when the consumption was recorded.
	ConsumedAt time.Time
}

// Consume checks that receipt (its JSON text) authorises exactly action
// and consumes it. The checks run in the seed's order, each failure with
// its code:
//
//  1. Structure: the receipt parses (invalid_receipt) and is an approval
//     (decision_denied).
//  2. Window: now < expiresAt, the receipt's and the embedded request's
//     (receipt_expired).
//  3. Integrity: the embedded request validates and its fields hash to its
//     intentHash (tampered_intent); the receipt's intentHash, requestId,
//     nonce and expiresAt equal the request's (hash_mismatch).
//  4. Binding: the embedded request with the submitted action hashes to
//     the intentHash (action_mismatch).
//  5. One-shot: the requestId was not consumed (already_consumed).
//  6. Signature: the credential is registered and not revoked
//     (credential_unknown), not flagged as cloned, approved this request (the approval the Store
//     recorded), and the embedded assertion verifies against its stored
//     public key with the challenge = the intentHash, an allowed origin,
//     the RP ID, user verification, and the signature count recorded at
//     approval (verification_failed).
//
// Then the consumption is recorded with Store.MarkConsumed, atomically and
// durably; a concurrent consumer that loses gets already_consumed, and a
// revocation of the credential that committed meanwhile refuses the
// spent receipt (credential_unknown). Only a
// nil error authorises the act, once; the receipt is spent even if the act
// then fails. Every refusal is audited as consumption-rejected, the
// success as consumed (an audit failure then withholds the authorisation,
// and the receipt stays spent).
func (g *Gate) Consume(ctx context.Context, receipt []byte, action Action) (*Consumption, error) {
	now := g.cfg.now().UTC()
	r, err := ParseReceipt(receipt)
	if err != nil {
		return nil, g.reject(ctx, nil, err, now)
	}
	if !r.Approved() {
		return nil, g.reject(ctx, r, fail(CodeDecisionDenied, "receipt %s is a denial; only approvals authorise", r.RequestID), now)
	}
	if !now.Before(r.ExpiresAt) || !now.Before(r.Intent.ExpiresAt) {
		return nil, g.reject(ctx, r, fail(CodeReceiptExpired, "receipt %s expired at %s", r.RequestID, formatTime(r.ExpiresAt)), now)
	}
	if err := r.Intent.Validate(); err != nil {
		return nil, g.reject(ctx, r, failWrap(CodeTamperedIntent, err, "embedded request"), now)
	}
	if r.IntentHash != r.Intent.IntentHash || r.RequestID != r.Intent.RequestID ||
		r.Nonce != r.Intent.Nonce || !r.ExpiresAt.Equal(r.Intent.ExpiresAt) {
		return nil, g.reject(ctx, r, fail(CodeHashMismatch, "the receipt's intentHash, requestId, nonce or expiresAt differ from the embedded request's"), now)
	}
	if err := action.validate(); err != nil {
		return nil, g.reject(ctx, r, failWrap(CodeActionMismatch, err, "submitted action"), now)
	}
	if h, err := r.Intent.WithAction(action).ComputeHash(); err != nil || h != r.IntentHash {
		return nil, g.reject(ctx, r, fail(CodeActionMismatch, "the submitted action is not the one approved in %s", r.RequestID), now)
	}
	consumed, err := g.store.Consumed(ctx, r.RequestID)
	if err != nil {
		return nil, fmt.Errorf("approval: consumed %s: %w", r.RequestID, err)
	}
	if consumed {
		return nil, g.reject(ctx, r, fail(CodeAlreadyConsumed, "receipt %s was consumed", r.RequestID), now)
	}
	cred, err := g.verify(ctx, r)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, g.reject(ctx, r, e, now)
		}
		return nil, err
	}
	already, err := g.store.MarkConsumed(ctx, ConsumptionRecord{
		RequestID: r.RequestID, IntentHash: r.IntentHash, CredentialID: cred.WebAuthn.ID,
		ConsumedAt: now, ExpiresAt: r.ExpiresAt,
	})
	if err != nil {
		return nil, fmt.Errorf("approval: mark %s consumed: %w", r.RequestID, err)
	}
	if already {
		return nil, g.reject(ctx, r, fail(CodeAlreadyConsumed, "receipt %s was consumed", r.RequestID), now)
	}
	// A revocation that committed while the receipt was checked: the
	// receipt is spent, the act withheld.
	if again, err := g.store.Credential(ctx, cred.WebAuthn.ID); err != nil || again.Revoked() {
		return nil, g.reject(ctx, r, fail(CodeCredentialUnknown, "credential %s was revoked while receipt %s was consumed; the receipt is spent and authorises nothing", cred.Ref(), r.RequestID), now)
	}
	e := RequestEvent(EventConsumed, r.Intent, now)
	e.Decision, e.Method, e.CredentialRef, e.Software = DecisionApproved, MethodWebAuthn, cred.Ref(), cred.Software
	if err := g.audit.Record(ctx, e); err != nil {
		return nil, fmt.Errorf("approval: receipt %s consumed, audit failed, act withheld: %w", r.RequestID, err)
	}
	return &Consumption{
		RequestID: r.RequestID, IntentHash: r.IntentHash, Action: action,
		CredentialRef: cred.Ref(), Software: cred.Software, ConsumedAt: now,
	}, nil
}

// verify is the gate's sixth check: the WebAuthn re-verification of the
// embedded assertion against the stored credential, with the signature
// count recorded at approval.
func (g *Gate) verify(ctx context.Context, r *IntentReceipt) (Credential, error) {
	id, err := base64.RawURLEncoding.DecodeString(r.Authenticator.CredentialID)
	if err != nil {
		return Credential{}, failWrap(CodeVerificationFailed, err, "credential id")
	}
	ref := CredentialRef(id)
	cred, err := g.store.Credential(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Credential{}, fail(CodeCredentialUnknown, "credential %s is not registered", ref)
	}
	if err != nil {
		return Credential{}, fmt.Errorf("approval: credential: %w", err)
	}
	failed := func(format string, args ...any) (Credential, error) {
		return Credential{}, fail(CodeVerificationFailed, "credential %s: %s", ref, fmt.Sprintf(format, args...))
	}
	if cred.Cloned() {
		return failed("flagged as cloned")
	}
	if cred.Revoked() {
		return Credential{}, fail(CodeCredentialUnknown, "credential %s was revoked at %s", ref, formatTime(cred.RevokedAt))
	}
	if r.Authenticator.Software != cred.Software {
		return failed("the receipt's software mark differs from the registered credential's")
	}
	rec, err := g.store.Approval(ctx, r.RequestID)
	if errors.Is(err, ErrNotFound) {
		return failed("no approval of %s was recorded", r.RequestID)
	}
	if err != nil {
		return Credential{}, fmt.Errorf("approval: approval record: %w", err)
	}
	if rec.IntentHash != r.IntentHash || !bytes.Equal(rec.CredentialID, id) {
		return failed("the recorded approval of %s is for another intent or credential", r.RequestID)
	}
	parsed, err := r.Assertion.parse()
	if err != nil {
		return Credential{}, webauthnFail(err, "credential "+ref+": assertion")
	}
	if !bytes.Equal(parsed.RawID, id) {
		return failed("the assertion is by another credential")
	}
	if uh := parsed.Response.UserHandle; len(uh) > 0 && !bytes.Equal(uh, g.cfg.UserID) {
		return failed("the assertion's user handle is not the principal's")
	}
	challenge, err := r.Intent.Challenge()
	if err != nil {
		return Credential{}, err
	}
	wc := g.wa.Config
	if err := parsed.Verify(base64.RawURLEncoding.EncodeToString(challenge), g.cfg.RPID, "",
		wc.RPOrigins, wc.RPOpaqueOrigins, wc.RPTopOrigins, wc.RPTopOriginVerificationMode, wc.RPAllowCrossOrigin,
		true, true, cred.WebAuthn.PublicKey, wc.Signature); err != nil {
		return Credential{}, webauthnFail(err, "credential "+ref+": assertion")
	}
	flags := parsed.Response.AuthenticatorData.Flags
	if !flags.HasUserVerified() {
		return failed("the user was not verified")
	}
	if flags.HasBackupEligible() != cred.WebAuthn.Flags.BackupEligible {
		return failed("backup eligibility differs from the registered credential's")
	}
	if n := parsed.Response.AuthenticatorData.Counter; n != rec.SignCount {
		return failed("signature count %d is not the %d recorded at approval", n, rec.SignCount)
	}
	return cred, nil
}

// reject audits a refused consumption and returns err. r is nil when the
// receipt did not parse.
func (g *Gate) reject(ctx context.Context, r *IntentReceipt, err error, now time.Time) error {
	e := AuditEvent{Event: EventConsumptionRejected, Code: CodeOf(err), At: now}
	if r != nil {
		e.RequestID, e.IntentHash, e.Decision, e.ExpiresAt = r.RequestID, r.IntentHash, r.Decision, r.ExpiresAt
		if a := r.Intent.Action; checkText("action.tool", a.Tool, MaxToolBytes, true) == nil &&
			checkText("action.operation", a.Operation, MaxLabelBytes, false) == nil &&
			checkText("action.target", a.Target, MaxLabelBytes, false) == nil {
			e.Tool, e.Operation, e.Target = a.Tool, a.Operation, a.Target
		}
		if r.Intent.Context.Risk.Valid() {
			e.Risk = r.Intent.Context.Risk
		}
		if r.Authenticator != nil {
			if id, derr := base64.RawURLEncoding.DecodeString(r.Authenticator.CredentialID); derr == nil {
				e.CredentialRef = CredentialRef(id)
			}
		}
	}
	_ = g.audit.Record(ctx, e) // the rejection stands whatever the sink says
	return err
}
