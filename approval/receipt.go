package approval

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/parleynet/parley/strictjson"
)

// Decision is a receipt's decision.
type Decision string

// The two decisions of seed section 6.
const (
	DecisionApproved Decision = "approved"
	DecisionDenied   Decision = "denied"
)

// ReceiptKind is the discriminator of every receipt.
const ReceiptKind = "IntentReceipt"

// AuthenticatorTypeWebAuthn is the only authenticator.type of an approval.
const AuthenticatorTypeWebAuthn = "webauthn"

// ReceiptAuthenticator names the credential that approved.
type ReceiptAuthenticator struct {
	// Type is "webauthn".
	Type string `json:"type"`
	// CredentialID is the credential id, base64url without padding.
	CredentialID string `json:"credentialId"`
	// Software is true when the credential is a software key registered
	// for automation.
	Software bool `json:"software,omitempty"`
}

// ReceiptVerification says how the approval was verified.
type ReceiptVerification struct {
	// Method is "webauthn".
	Method string `json:"method"`
	// UserVerified is true: the person performed user verification.
	UserVerified bool `json:"userVerified"`
}

// Assertion is the raw WebAuthn assertion of an approval, every binary
// member base64url without padding, as the browser's
// PublicKeyCredential.toJSON() gives it.
type Assertion struct {
	ID                      string            `json:"id"`
	RawID                   string            `json:"rawId"`
	Type                    string            `json:"type"`
	Response                AssertionResponse `json:"response"`
	AuthenticatorAttachment string            `json:"authenticatorAttachment,omitempty"`
}

// AssertionResponse is the response member of an Assertion.
type AssertionResponse struct {
	ClientDataJSON    string `json:"clientDataJSON"`
	AuthenticatorData string `json:"authenticatorData"`
	Signature         string `json:"signature"`
	UserHandle        string `json:"userHandle,omitempty"`
}

// assertionFrom copies the raw assertion go-webauthn parsed.
func assertionFrom(raw protocol.CredentialAssertionResponse) *Assertion {
	enc := base64.RawURLEncoding.EncodeToString
	return &Assertion{
		ID: raw.ID, RawID: enc(raw.RawID), Type: raw.Type,
		AuthenticatorAttachment: raw.AuthenticatorAttachment,
		Response: AssertionResponse{
			ClientDataJSON:    enc(raw.AssertionResponse.ClientDataJSON),
			AuthenticatorData: enc(raw.AssertionResponse.AuthenticatorData),
			Signature:         enc(raw.AssertionResponse.Signature),
			UserHandle:        enc(raw.AssertionResponse.UserHandle),
		},
	}
}

// parse returns go-webauthn's parse of the assertion.
func (a *Assertion) parse() (*protocol.ParsedCredentialAssertionData, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	return protocol.ParseCredentialRequestResponseBytes(b)
}

// IntentReceipt is issued after the person decides (seed section 6). An
// approved receipt embeds the WebAuthn assertion over the intentHash; a
// denied receipt carries no signature and never authorises anything.
type IntentReceipt struct {
	// Kind is "IntentReceipt".
	Kind string
	// Version is "0.1".
	Version string
	// RequestID, IntentHash and Nonce are echoed from the request.
	RequestID, IntentHash, Nonce string
	// Decision is approved or denied.
	Decision Decision
	// Intent is the embedded request.
	Intent IntentRequest
	// Authenticator names the approving credential (approvals only).
	Authenticator *ReceiptAuthenticator
	// Verification says how the approval was verified (approvals only).
	Verification *ReceiptVerification
	// SignedAt is the decision time.
	SignedAt time.Time
	// ExpiresAt is the request's expiresAt.
	ExpiresAt time.Time
	// Assertion is the raw WebAuthn assertion (approvals only).
	Assertion *Assertion
	// DeniedReason is a denial's optional reason (denials only).
	DeniedReason string
}

// Approved reports whether r is an approval.
func (r *IntentReceipt) Approved() bool { return r.Decision == DecisionApproved }

type receiptWire struct {
	Kind          string                `json:"kind"`
	Version       string                `json:"version"`
	RequestID     string                `json:"requestId"`
	IntentHash    string                `json:"intentHash"`
	Nonce         string                `json:"nonce"`
	Decision      Decision              `json:"decision"`
	Intent        IntentRequest         `json:"intent"`
	Authenticator *ReceiptAuthenticator `json:"authenticator,omitempty"`
	Verification  *ReceiptVerification  `json:"verification,omitempty"`
	SignedAt      string                `json:"signedAt"`
	ExpiresAt     string                `json:"expiresAt"`
	Assertion     *Assertion            `json:"assertion,omitempty"`
	DeniedReason  string                `json:"deniedReason,omitempty"`
}

// MarshalJSON writes the seed's JSON form of the receipt.
func (r IntentReceipt) MarshalJSON() ([]byte, error) {
	return json.Marshal(receiptWire{
		Kind: r.Kind, Version: r.Version, RequestID: r.RequestID, IntentHash: r.IntentHash, Nonce: r.Nonce,
		Decision: r.Decision, Intent: r.Intent, Authenticator: r.Authenticator, Verification: r.Verification,
		SignedAt: formatTime(r.SignedAt), ExpiresAt: formatTime(r.ExpiresAt), Assertion: r.Assertion,
		DeniedReason: r.DeniedReason,
	})
}

// UnmarshalJSON reads the seed's JSON form strictly (unknown members,
// trailing data and other timestamp spellings are refused). ParseReceipt
// also checks the structure.
func (r *IntentReceipt) UnmarshalJSON(b []byte) error {
	var w receiptWire
	if err := decodeStrict(b, &w); err != nil {
		return err
	}
	signed, err := parseTime(w.SignedAt)
	if err != nil {
		return fmt.Errorf("signedAt: %w", err)
	}
	expires, err := parseTime(w.ExpiresAt)
	if err != nil {
		return fmt.Errorf("expiresAt: %w", err)
	}
	*r = IntentReceipt{
		Kind: w.Kind, Version: w.Version, RequestID: w.RequestID, IntentHash: w.IntentHash, Nonce: w.Nonce,
		Decision: w.Decision, Intent: w.Intent, Authenticator: w.Authenticator, Verification: w.Verification,
		SignedAt: signed, ExpiresAt: expires, Assertion: w.Assertion, DeniedReason: w.DeniedReason,
	}
	return nil
}

// MaxReceiptBytes bounds the JSON text ParseReceipt reads.
const MaxReceiptBytes = MaxRequestBytes + 16<<10

// ParseReceipt parses the JSON text of a receipt and checks its structure
// (the gate's first check): strict JSON, kind, version, a known decision,
// the members an approval must have (authenticator of type webauthn with a
// base64url credential id, verification by webauthn with userVerified
// true, an assertion) and that a denial has none of them. Anything else is
// refused with CodeInvalidReceipt. It does not check the window, the
// embedded request's integrity or any signature.
func ParseReceipt(b []byte) (*IntentReceipt, error) {
	if len(b) > MaxReceiptBytes {
		return nil, fail(CodeInvalidReceipt, "receipt is %d bytes, more than %d", len(b), MaxReceiptBytes)
	}
	var r IntentReceipt
	if err := strictjson.Unmarshal(b, &r); err != nil {
		return nil, failWrap(CodeInvalidReceipt, err, "receipt JSON")
	}
	if err := r.checkStructure(); err != nil {
		return nil, err
	}
	return &r, nil
}

// checkStructure is the structural half of the gate's first check.
func (r *IntentReceipt) checkStructure() error {
	bad := func(format string, args ...any) error { return fail(CodeInvalidReceipt, format, args...) }
	if r.Kind != ReceiptKind {
		return bad("kind %q, want %q", r.Kind, ReceiptKind)
	}
	if r.Version != Version {
		return bad("version %q, want %q", r.Version, Version)
	}
	if r.RequestID == "" || r.Nonce == "" || !hex64RE.MatchString(r.IntentHash) {
		return bad("requestId, nonce and a 64-digit lowercase hex intentHash are required")
	}
	switch r.Decision {
	case DecisionApproved:
		if r.DeniedReason != "" {
			return bad("an approval carries no deniedReason")
		}
		a := r.Authenticator
		if a == nil || a.Type != AuthenticatorTypeWebAuthn {
			return bad("an approval needs authenticator.type %q", AuthenticatorTypeWebAuthn)
		}
		if id, err := base64.RawURLEncoding.DecodeString(a.CredentialID); err != nil || len(id) == 0 {
			return bad("authenticator.credentialId is not base64url")
		}
		v := r.Verification
		if v == nil || v.Method != MethodWebAuthn || !v.UserVerified {
			return bad("an approval needs verification.method %q and userVerified true", MethodWebAuthn)
		}
		as := r.Assertion
		if as == nil || as.ID == "" || as.RawID == "" || as.Type == "" ||
			as.Response.ClientDataJSON == "" || as.Response.AuthenticatorData == "" || as.Response.Signature == "" {
			return bad("an approval needs the assertion's id, rawId, type, clientDataJSON, authenticatorData and signature")
		}
	case DecisionDenied:
		if r.Assertion != nil || r.Authenticator != nil || r.Verification != nil {
			return bad("a denial carries no assertion, authenticator or verification")
		}
	default:
		return bad("decision %q is neither approved nor denied", r.Decision)
	}
	return nil
}

// newDeniedReceipt returns the denial of req at now.
func newDeniedReceipt(req IntentRequest, reason string, now time.Time) *IntentReceipt {
	return &IntentReceipt{
		Kind: ReceiptKind, Version: Version, RequestID: req.RequestID, IntentHash: req.IntentHash,
		Nonce: req.Nonce, Decision: DecisionDenied, Intent: req,
		SignedAt: now.UTC().Truncate(time.Millisecond), ExpiresAt: req.ExpiresAt, DeniedReason: reason,
	}
}
