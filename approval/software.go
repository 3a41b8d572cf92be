package approval

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/descope/virtualwebauthn"
	"github.com/go-webauthn/webauthn/protocol"
)

// SoftwareKey is a software authenticator (descope/virtualwebauthn) that a
// principal registers explicitly, as one of their credentials, so that
// automation can approve acts. It produces real WebAuthn responses that
// the ceremonies verify like any browser's; receipts and audit entries of
// its approvals are marked as a software key. It performs user
// verification by declaration, so whoever holds it holds the principal's
// authority: keep it as secret as a private key. Its counter advances by
// one per assertion. It is safe for concurrent use.
type SoftwareKey struct {
	mu   sync.Mutex
	rp   virtualwebauthn.RelyingParty
	auth virtualwebauthn.Authenticator
	cred virtualwebauthn.Credential
}

// NewSoftwareKey returns a new software key (a fresh P-256 key) for the
// pages at origin under cfg's RP ID. origin must be one of cfg.Origins.
func NewSoftwareKey(cfg Config, origin string) (*SoftwareKey, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !containsString(cfg.Origins, origin) {
		return nil, fail(CodeInvalidConfig, "origin %q is not in the allowlist", origin)
	}
	cred, err := newP256Credential()
	if err != nil {
		return nil, fmt.Errorf("approval: software key: %w", err)
	}
	return &SoftwareKey{
		rp:   virtualwebauthn.RelyingParty{ID: cfg.RPID, Name: cfg.RPName, Origin: origin},
		auth: virtualwebauthn.NewAuthenticatorWithOptions(virtualwebauthn.AuthenticatorOptions{UserHandle: cfg.UserID}),
		cred: cred,
	}, nil
}

// newP256Credential returns a virtualwebauthn credential with a fresh
// P-256 key whose coordinates both have a non-zero first byte.
// virtualwebauthn writes the COSE key's x and y without their leading zero
// bytes, which go-webauthn rightly refuses as "x or y coordinate has
// invalid length" (about one key in 128), so such keys are drawn again.
func newP256Credential() (virtualwebauthn.Credential, error) {
	for {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return virtualwebauthn.Credential{}, err
		}
		pub, err := k.PublicKey.Bytes() // 0x04 || x || y, 32 bytes each
		if err != nil {
			return virtualwebauthn.Credential{}, err
		}
		if pub[1] == 0 || pub[33] == 0 {
			continue
		}
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			return virtualwebauthn.Credential{}, err
		}
		return virtualwebauthn.NewCredentialWithImportedKey(virtualwebauthn.KeyTypeEC2, der), nil
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// CredentialID returns the key's credential id.
func (k *SoftwareKey) CredentialID() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]byte(nil), k.cred.ID...)
}

// Create answers creation options (from BeginRegistration) with an
// attestation response, the JSON text FinishRegistration reads.
func (k *SoftwareKey) Create(creation *protocol.CredentialCreation) ([]byte, error) {
	b, err := json.Marshal(creation)
	if err != nil {
		return nil, err
	}
	opts, err := virtualwebauthn.ParseAttestationOptions(string(b))
	if err != nil {
		return nil, fmt.Errorf("approval: software key: creation options: %w", err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if opts.RelyingPartyID != k.rp.ID {
		return nil, fmt.Errorf("approval: software key: RP ID %q, want %q", opts.RelyingPartyID, k.rp.ID)
	}
	if k.cred.IsExcludedForAttestation(*opts) {
		return nil, fail(CodeCredentialExists, "the software key is already registered")
	}
	return []byte(virtualwebauthn.CreateAttestationResponse(k.rp, k.auth, k.cred, *opts)), nil
}

// Get answers request options (from BeginApproval) with an assertion
// response, the JSON text FinishApproval reads, after advancing the key's
// signature counter by one.
func (k *SoftwareKey) Get(assertion *protocol.CredentialAssertion) ([]byte, error) {
	b, err := json.Marshal(assertion)
	if err != nil {
		return nil, err
	}
	opts, err := virtualwebauthn.ParseAssertionOptions(string(b))
	if err != nil {
		return nil, fmt.Errorf("approval: software key: request options: %w", err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if opts.RelyingPartyID != k.rp.ID {
		return nil, fmt.Errorf("approval: software key: RP ID %q, want %q", opts.RelyingPartyID, k.rp.ID)
	}
	if len(opts.AllowCredentials) > 0 && !k.cred.IsAllowedForAssertion(*opts) {
		return nil, fail(CodeCredentialUnknown, "the software key is not among the allowed credentials")
	}
	k.cred.Counter++ // virtualwebauthn never advances it itself
	return []byte(virtualwebauthn.CreateAssertionResponse(k.rp, k.auth, k.cred, *opts)), nil
}

// SoftwareKeyWarning is the first member of every saved software key: the
// file is a credential.
const SoftwareKeyWarning = "This file is a credential of the node's principal, like a passkey: whoever reads it can approve every act the node asks its principal about. Keep it as secret as a private key; if it leaks, revoke it (parley approvals passkeys revoke REF)."

// softwareKeyState is the persisted form of a SoftwareKey.
type softwareKeyState struct {
	Warning    string                       `json:"warning,omitempty"`
	RP         virtualwebauthn.RelyingParty `json:"rp"`
	UserHandle []byte                       `json:"userHandle"`
	AAGUID     [16]byte                     `json:"aaguid"`
	Credential virtualwebauthn.Credential   `json:"credential"`
}

// MarshalJSON returns the key's state, private key included, for the node
// to keep encrypted.
func (k *SoftwareKey) MarshalJSON() ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return json.Marshal(softwareKeyState{Warning: SoftwareKeyWarning, RP: k.rp, UserHandle: k.auth.Options.UserHandle, AAGUID: k.auth.Aaguid, Credential: k.cred})
}

// softwareKeyWire is softwareKeyState as the strict decoder reads it: the
// library's Key embeds an unexported interface, so its two members are
// spelled out here.
type softwareKeyWire struct {
	Warning    string                       `json:"warning,omitempty"` // SoftwareKeyWarning; files written before it have none
	RP         virtualwebauthn.RelyingParty `json:"rp"`
	UserHandle []byte                       `json:"userHandle"`
	AAGUID     [16]byte                     `json:"aaguid"`
	Credential struct {
		ID  []byte `json:"id"`
		Key *struct {
			Type virtualwebauthn.KeyType `json:"type"`
			Data []byte                  `json:"data"`
		} `json:"key"`
		Counter uint32 `json:"counter,omitempty"`
	} `json:"credential"`
}

// UnmarshalJSON restores a key MarshalJSON wrote, strictly (strictjson),
// and checks that the private key parses as its type says: the library
// panics on a key it cannot import, so a damaged file is refused here.
func (k *SoftwareKey) UnmarshalJSON(b []byte) error {
	var w softwareKeyWire
	if err := decodeStrict(b, &w); err != nil {
		return err
	}
	if w.Credential.Key == nil || len(w.Credential.ID) == 0 || w.RP.ID == "" || w.RP.Origin == "" {
		return fmt.Errorf("approval: software key: incomplete state")
	}
	priv, err := x509.ParsePKCS8PrivateKey(w.Credential.Key.Data)
	if err != nil {
		return fmt.Errorf("approval: software key: private key: %w", err)
	}
	switch priv.(type) {
	case *ecdsa.PrivateKey:
		if w.Credential.Key.Type != virtualwebauthn.KeyTypeEC2 {
			return fmt.Errorf("approval: software key: an EC2 key typed %q", w.Credential.Key.Type)
		}
	case *rsa.PrivateKey:
		if w.Credential.Key.Type != virtualwebauthn.KeyTypeRSA {
			return fmt.Errorf("approval: software key: an RSA key typed %q", w.Credential.Key.Type)
		}
	default:
		return fmt.Errorf("approval: software key: a %T private key", priv)
	}
	s := softwareKeyState{RP: w.RP, UserHandle: w.UserHandle, AAGUID: w.AAGUID, Credential: virtualwebauthn.Credential{
		ID: w.Credential.ID, Key: &virtualwebauthn.Key{Type: w.Credential.Key.Type, Data: w.Credential.Key.Data}, Counter: w.Credential.Counter,
	}}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.rp = s.RP
	k.auth = virtualwebauthn.Authenticator{Options: virtualwebauthn.AuthenticatorOptions{UserHandle: s.UserHandle}, Aaguid: s.AAGUID}
	k.cred = s.Credential
	return nil
}

// RegisterSoftwareKey registers key as a credential of the principal,
// marked as a software key, under auth (the enrolment token, or an
// approved receipt that approve obtains for the registration act). approve
// is called with the act to approve when auth holds no token; it returns
// the JSON text of the approved receipt, for example from an existing
// passkey through the principal's pages.
func RegisterSoftwareKey(ctx context.Context, c *Ceremonies, key *SoftwareKey, label, token string,
	approve func(ctx context.Context, act Action) ([]byte, error)) (Credential, error) {
	creation, sess, err := c.BeginRegistration(ctx, RegistrationOptions{Label: label, Software: true})
	if err != nil {
		return Credential{}, err
	}
	resp, err := key.Create(creation)
	if err != nil {
		return Credential{}, err
	}
	auth := Authority{EnrolToken: token}
	if token == "" {
		if approve == nil {
			return Credential{}, fail(CodeNotAuthorized, "a further credential needs an approval")
		}
		act, err := c.RegisterAction(sess)
		if err != nil {
			return Credential{}, err
		}
		if auth.Receipt, err = approve(ctx, act); err != nil {
			return Credential{}, err
		}
	}
	return c.FinishRegistration(ctx, sess, auth, resp)
}

// ApproveWithSoftwareKey approves req with key and returns the receipt,
// which is marked as a software key's.
func ApproveWithSoftwareKey(ctx context.Context, c *Ceremonies, key *SoftwareKey, req IntentRequest) (*IntentReceipt, error) {
	opts, err := c.BeginApproval(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := key.Get(opts)
	if err != nil {
		return nil, err
	}
	return c.FinishApproval(ctx, req, resp)
}
