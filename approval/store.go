package approval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
)

// Credential is one registered credential of the principal: the WebAuthn
// record (public key, signature count, flags, clone warning) and what
// Parley adds.
type Credential struct {
	// WebAuthn is go-webauthn's record of the credential.
	WebAuthn webauthn.Credential `json:"webauthn"`
	// Label names the credential for the principal ("laptop", "bot").
	Label string `json:"label,omitempty"`
	// Software marks a software authenticator registered explicitly for
	// automation; its receipts and audit entries say so.
	Software bool `json:"software,omitempty"`
	// RegisteredAt is when the credential was registered.
	RegisteredAt time.Time `json:"registeredAt"`
	// RevokedAt is set once the credential was revoked (Revoke): it then
	// approves nothing, its approvals not yet consumed are refused, and
	// its id cannot be registered again. The record is kept.
	RevokedAt time.Time `json:"revokedAt,omitzero"`
}

// ID returns the credential id.
func (c Credential) ID() []byte { return c.WebAuthn.ID }

// Ref returns the credential's hashed reference, the only form in which
// audit entries name it.
func (c Credential) Ref() string { return CredentialRef(c.WebAuthn.ID) }

// Cloned reports whether the credential is flagged as cloned: its
// signature counter once failed to advance. A cloned credential approves
// nothing and its receipts are not consumed.
func (c Credential) Cloned() bool { return c.WebAuthn.Authenticator.CloneWarning }

// Revoked reports whether the credential was revoked. A revoked
// credential approves nothing and its receipts are not consumed.
func (c Credential) Revoked() bool { return !c.RevokedAt.IsZero() }

// Active returns the credentials of all that are not revoked, in order:
// the principal's registered credentials (a cloned one among them).
func Active(all []Credential) []Credential {
	var out []Credential
	for _, c := range all {
		if !c.Revoked() {
			out = append(out, c)
		}
	}
	return out
}

// CredentialRef returns the hashed reference of credential id: the first
// 16 bytes of SHA-256("parley-credential-ref\x00" || id) as lowercase hex.
func CredentialRef(id []byte) string {
	h := sha256.New()
	h.Write([]byte("parley-credential-ref\x00"))
	h.Write(id)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ApprovalRecord is what FinishApproval stores of one approval: which
// credential approved which request and the signature count of the
// assertion, which the gate requires again at consumption.
type ApprovalRecord struct {
	RequestID    string    `json:"requestId"`
	IntentHash   string    `json:"intentHash"`
	CredentialID []byte    `json:"credentialId"`
	SignCount    uint32    `json:"signCount"`
	ApprovedAt   time.Time `json:"approvedAt"`
	// ExpiresAt is the request's expiresAt; see ReceiptStore on pruning.
	ExpiresAt time.Time `json:"expiresAt"`
}

// ConsumptionRecord is what the gate stores when it consumes a receipt.
type ConsumptionRecord struct {
	RequestID    string    `json:"requestId"`
	IntentHash   string    `json:"intentHash"`
	CredentialID []byte    `json:"credentialId"`
	ConsumedAt   time.Time `json:"consumedAt"`
	// ExpiresAt is the receipt's expiresAt; see ReceiptStore on pruning.
	ExpiresAt time.Time `json:"expiresAt"`
}

// EnrolToken is the stored form of a one-time enrolment token: only its
// hash is kept.
type EnrolToken struct {
	// Hash is lowercase hex SHA-256 of the token text.
	Hash      string    `json:"hash"`
	IssuedAt  time.Time `json:"issuedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// RedeemedAt is set once the token enrolled a credential.
	RedeemedAt time.Time `json:"redeemedAt,omitzero"`
}

// CredentialStore keeps the principal's credentials.
//
// Contract: Credential returns ErrNotFound (possibly wrapped) for an
// unknown id; PutCredential inserts or replaces the credential with the
// same id; DeleteCredential removes it (and returns ErrNotFound for an
// unknown id); Credentials returns them all, in registration order. Each
// call is durable when it returns nil. Values are copied in and out.
type CredentialStore interface {
	Credential(ctx context.Context, id []byte) (Credential, error)
	Credentials(ctx context.Context) ([]Credential, error)
	PutCredential(ctx context.Context, c Credential) error
	DeleteCredential(ctx context.Context, id []byte) error
}

// ReceiptStore keeps approvals and consumptions, keyed by requestId.
//
// Contract:
//   - RecordApproval is atomic: if an approval of rec.RequestID exists it
//     returns already = true and changes nothing; otherwise it stores rec
//     and replaces the credential cred (whose counter and flags the
//     approval advanced) in one durable step, and returns false.
//   - Approval returns the approval of requestID, or ErrNotFound.
//   - Consumed reports whether requestID was consumed.
//   - MarkConsumed is atomic and durable: of any number of concurrent
//     calls for one requestId (from any goroutine), exactly one returns
//     already = false, and only after the record is on disk (a restart
//     afterwards still reports it consumed); every other call, then and
//     later, returns already = true. An error means the caller must treat
//     the receipt as not authorising anything.
//   - A store may prune approval and consumption records once their
//     ExpiresAt lies well in the past (the gate refuses expired receipts
//     before it asks), keeping them at least as long as the host's clock
//     could be set back.
type ReceiptStore interface {
	RecordApproval(ctx context.Context, rec ApprovalRecord, cred Credential) (already bool, err error)
	Approval(ctx context.Context, requestID string) (ApprovalRecord, error)
	Consumed(ctx context.Context, requestID string) (bool, error)
	MarkConsumed(ctx context.Context, rec ConsumptionRecord) (already bool, err error)
}

// TokenStore keeps the one current enrolment token.
//
// Contract: PutEnrolToken replaces any previous token; EnrolToken returns
// the current one or ErrNotFound; RedeemEnrolToken is atomic and durable:
// if the current token has hash and is not redeemed, it sets RedeemedAt to
// at and returns false; if it was already redeemed it returns true; if the
// current token has another hash (or there is none) it returns ErrNotFound.
type TokenStore interface {
	PutEnrolToken(ctx context.Context, t EnrolToken) error
	EnrolToken(ctx context.Context) (EnrolToken, error)
	RedeemEnrolToken(ctx context.Context, hash string, at time.Time) (already bool, err error)
}

// Store is everything Ceremonies and the Gate keep. The node provides a
// durable implementation; MemStore is the in-memory one for tests.
type Store interface {
	CredentialStore
	ReceiptStore
	TokenStore
}

// MemStore is an in-memory Store, safe for concurrent use. It is durable
// only for the life of the process: for tests, benchmarks and tools.
type MemStore struct {
	mu        sync.Mutex
	creds     []Credential
	approvals map[string]ApprovalRecord
	consumed  map[string]ConsumptionRecord
	token     *EnrolToken
}

var _ Store = (*MemStore)(nil)

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{approvals: map[string]ApprovalRecord{}, consumed: map[string]ConsumptionRecord{}}
}

func cloneCredential(c Credential) Credential {
	c.WebAuthn.ID = bytes.Clone(c.WebAuthn.ID)
	c.WebAuthn.PublicKey = bytes.Clone(c.WebAuthn.PublicKey)
	c.WebAuthn.Authenticator.AAGUID = bytes.Clone(c.WebAuthn.Authenticator.AAGUID)
	c.WebAuthn.Transport = slices.Clone(c.WebAuthn.Transport)
	return c
}

func (s *MemStore) find(id []byte) int {
	return slices.IndexFunc(s.creds, func(c Credential) bool { return bytes.Equal(c.WebAuthn.ID, id) })
}

// Credential returns the credential id, or ErrNotFound.
func (s *MemStore) Credential(_ context.Context, id []byte) (Credential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.find(id)
	if i < 0 {
		return Credential{}, ErrNotFound
	}
	return cloneCredential(s.creds[i]), nil
}

// Credentials returns every credential in registration order.
func (s *MemStore) Credentials(context.Context) ([]Credential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Credential, len(s.creds))
	for i, c := range s.creds {
		out[i] = cloneCredential(c)
	}
	return out, nil
}

// PutCredential inserts c or replaces the credential with its id.
func (s *MemStore) PutCredential(_ context.Context, c Credential) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(c)
	return nil
}

func (s *MemStore) put(c Credential) {
	if i := s.find(c.WebAuthn.ID); i >= 0 {
		s.creds[i] = cloneCredential(c)
		return
	}
	s.creds = append(s.creds, cloneCredential(c))
}

// DeleteCredential removes the credential id, or returns ErrNotFound.
func (s *MemStore) DeleteCredential(_ context.Context, id []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.find(id)
	if i < 0 {
		return ErrNotFound
	}
	s.creds = slices.Delete(s.creds, i, i+1)
	return nil
}

// RecordApproval stores rec and cred unless rec.RequestID was approved.
func (s *MemStore) RecordApproval(_ context.Context, rec ApprovalRecord, cred Credential) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.approvals[rec.RequestID]; ok {
		return true, nil
	}
	rec.CredentialID = bytes.Clone(rec.CredentialID)
	s.approvals[rec.RequestID] = rec
	s.put(cred)
	return false, nil
}

// Approval returns the approval of requestID, or ErrNotFound.
func (s *MemStore) Approval(_ context.Context, requestID string) (ApprovalRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.approvals[requestID]
	if !ok {
		return ApprovalRecord{}, ErrNotFound
	}
	rec.CredentialID = bytes.Clone(rec.CredentialID)
	return rec, nil
}

// Consumed reports whether requestID was consumed.
func (s *MemStore) Consumed(_ context.Context, requestID string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.consumed[requestID]
	return ok, nil
}

// MarkConsumed records the consumption of rec.RequestID once.
func (s *MemStore) MarkConsumed(_ context.Context, rec ConsumptionRecord) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.consumed[rec.RequestID]; ok {
		return true, nil
	}
	rec.CredentialID = bytes.Clone(rec.CredentialID)
	s.consumed[rec.RequestID] = rec
	return false, nil
}

// PutEnrolToken replaces the current enrolment token.
func (s *MemStore) PutEnrolToken(_ context.Context, t EnrolToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = &t
	return nil
}

// EnrolToken returns the current enrolment token, or ErrNotFound.
func (s *MemStore) EnrolToken(context.Context) (EnrolToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token == nil {
		return EnrolToken{}, ErrNotFound
	}
	return *s.token, nil
}

// RedeemEnrolToken marks the current token with hash redeemed at at, once.
func (s *MemStore) RedeemEnrolToken(_ context.Context, hash string, at time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token == nil || s.token.Hash != hash {
		return false, ErrNotFound
	}
	if !s.token.RedeemedAt.IsZero() {
		return true, nil
	}
	s.token.RedeemedAt = at
	return false, nil
}
