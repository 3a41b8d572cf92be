package identity

import (
	"crypto/hpke"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// KEM names an HPKE key encapsulation mechanism as it appears in the
// identity link's encryptionKeys[].kem.
type KEM string

// The KEMs Parley accepts. ML-KEM-768+X25519 (X-Wing, draft-ietf-hpke-pq)
// is the default: a post-quantum hybrid. X25519 (RFC 9180
// DHKEM(X25519, HKDF-SHA256)) is accepted for peers without it.
const (
	KEMMLKEM768X25519 KEM = "MLKEM768-X25519"
	KEMX25519         KEM = "X25519"
)

// HPKE identifiers (RFC 9180 and draft-ietf-hpke-pq) used in sealed frames.
const (
	kemIDMLKEM768X25519 uint16 = 0x647a
	kemIDX25519         uint16 = 0x0020
	kdfIDHKDFSHA256     uint16 = 0x0001
)

// Known reports whether k is a KEM this package accepts.
func (k KEM) Known() bool { return k == KEMMLKEM768X25519 || k == KEMX25519 }

// ID returns the HPKE KEM identifier of k, or 0 when k is unknown.
func (k KEM) ID() uint16 {
	switch k {
	case KEMMLKEM768X25519:
		return kemIDMLKEM768X25519
	case KEMX25519:
		return kemIDX25519
	}
	return 0
}

func kemFromID(id uint16) (KEM, bool) {
	switch id {
	case kemIDMLKEM768X25519:
		return KEMMLKEM768X25519, true
	case kemIDX25519:
		return KEMX25519, true
	}
	return "", false
}

func (k KEM) hpke() (hpke.KEM, error) {
	switch k {
	case KEMMLKEM768X25519:
		return hpke.MLKEM768X25519(), nil
	case KEMX25519:
		return hpke.NewKEM(kemIDX25519)
	}
	return nil, fail(CodeUnknownKEM, "kem %q", string(k))
}

// KeyIDSize is the length of an encryption key id in bytes.
const KeyIDSize = 16

// KeyID identifies an encryption key: the first 16 bytes of SHA-256 of its
// serialized public key.
type KeyID [KeyIDSize]byte

// String returns 0x + 32 lowercase hex digits.
func (id KeyID) String() string { return "0x" + hex.EncodeToString(id[:]) }

// MarshalText encodes id as 0x + 32 lowercase hex digits.
func (id KeyID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText accepts exactly 0x + 32 lowercase hex digits.
func (id *KeyID) UnmarshalText(b []byte) error {
	v, err := parseHex(string(b), KeyIDSize)
	if err != nil {
		return err
	}
	copy(id[:], v)
	return nil
}

// KeyIDOf returns the key id of a serialized HPKE public key.
func KeyIDOf(publicKey []byte) KeyID {
	sum := sha256.Sum256(publicKey)
	var id KeyID
	copy(id[:], sum[:KeyIDSize])
	return id
}

// PublicEncryptionKey is an encryption key as a peer's link lists it.
type PublicEncryptionKey struct {
	KEM      KEM
	ID       KeyID
	Public   hpke.PublicKey
	NotAfter time.Time
}

// Bytes returns the serialized public key.
func (k *PublicEncryptionKey) Bytes() []byte { return k.Public.Bytes() }

// NewPublicEncryptionKey parses a serialized public key of kem.
func NewPublicEncryptionKey(kem KEM, public []byte, notAfter time.Time) (*PublicEncryptionKey, error) {
	hk, err := kem.hpke()
	if err != nil {
		return nil, err
	}
	pub, err := hk.NewPublicKey(public)
	if err != nil {
		return nil, failWrap(CodeMalformed, err, "%s public key", kem)
	}
	return &PublicEncryptionKey{KEM: kem, ID: KeyIDOf(public), Public: pub, NotAfter: notAfter.UTC()}, nil
}

// EncryptionKey is one of this node's HPKE key pairs.
type EncryptionKey struct {
	PublicEncryptionKey
	private hpke.PrivateKey
}

// GenerateEncryptionKey returns a new random key pair of kem valid until notAfter.
func GenerateEncryptionKey(kem KEM, notAfter time.Time) (*EncryptionKey, error) {
	hk, err := kem.hpke()
	if err != nil {
		return nil, err
	}
	priv, err := hk.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("identity: generate %s key: %w", kem, err)
	}
	return encryptionKeyFrom(kem, priv, notAfter), nil
}

// DeriveEncryptionKey derives a key pair of kem from input keying material
// (RFC 9180 DeriveKeyPair). It is for test vectors; production keys come
// from GenerateEncryptionKey.
func DeriveEncryptionKey(kem KEM, ikm []byte, notAfter time.Time) (*EncryptionKey, error) {
	hk, err := kem.hpke()
	if err != nil {
		return nil, err
	}
	priv, err := hk.DeriveKeyPair(ikm)
	if err != nil {
		return nil, fmt.Errorf("identity: derive %s key: %w", kem, err)
	}
	return encryptionKeyFrom(kem, priv, notAfter), nil
}

// NewEncryptionKey restores a key pair of kem from its serialized private key.
func NewEncryptionKey(kem KEM, private []byte, notAfter time.Time) (*EncryptionKey, error) {
	hk, err := kem.hpke()
	if err != nil {
		return nil, err
	}
	priv, err := hk.NewPrivateKey(private)
	if err != nil {
		return nil, failWrap(CodeMalformed, err, "%s private key", kem)
	}
	return encryptionKeyFrom(kem, priv, notAfter), nil
}

func encryptionKeyFrom(kem KEM, priv hpke.PrivateKey, notAfter time.Time) *EncryptionKey {
	pub := priv.PublicKey()
	return &EncryptionKey{
		PublicEncryptionKey: PublicEncryptionKey{KEM: kem, ID: KeyIDOf(pub.Bytes()), Public: pub, NotAfter: notAfter.UTC()},
		private:             priv,
	}
}

// PrivateBytes returns the serialized private key. It is secret.
func (k *EncryptionKey) PrivateBytes() ([]byte, error) { return k.private.Bytes() }

// PublicKey returns the public half of k.
func (k *EncryptionKey) PublicKey() *PublicEncryptionKey {
	p := k.PublicEncryptionKey
	return &p
}

// Usable reports whether k may still open frames at now: until its
// notAfter plus the grace period.
func (k *EncryptionKey) Usable(now time.Time, grace time.Duration) bool {
	return now.Before(k.NotAfter.Add(grace))
}
