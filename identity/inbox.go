package identity

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	lcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// InboxKey is the node's ed25519 inbox key. It is the libp2p peer identity
// and signs envelopes; its public key is the envelope's
// sender.xmtpPublicKey.
type InboxKey struct {
	priv ed25519.PrivateKey
	id   peer.ID
}

// GenerateInboxKey returns a new random inbox key.
func GenerateInboxKey() (*InboxKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("identity: generate inbox key: %w", err)
	}
	return newInboxKey(priv)
}

// NewInboxKeyFromSeed returns the inbox key with the 32-byte ed25519 seed
// (RFC 8032 private key). It is for restoring keys and for test vectors.
func NewInboxKeyFromSeed(seed []byte) (*InboxKey, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fail(CodeMalformed, "inbox seed is %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	return newInboxKey(ed25519.NewKeyFromSeed(seed))
}

func newInboxKey(priv ed25519.PrivateKey) (*InboxKey, error) {
	id, err := PeerIDFromInboxKey(priv.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, err
	}
	return &InboxKey{priv: priv, id: id}, nil
}

// PublicKey returns the 32-byte ed25519 public key.
func (k *InboxKey) PublicKey() ed25519.PublicKey { return k.priv.Public().(ed25519.PublicKey) }

// PublicHex returns the public key as 0x + 64 lowercase hex digits, the
// form of sender.xmtpPublicKey and of the link's inboxKey.
func (k *InboxKey) PublicHex() string { return "0x" + hex.EncodeToString(k.PublicKey()) }

// PeerID returns the libp2p peer id of the key.
func (k *InboxKey) PeerID() peer.ID { return k.id }

// Sign returns the 64-byte ed25519 signature of msg.
func (k *InboxKey) Sign(msg []byte) []byte { return ed25519.Sign(k.priv, msg) }

// PrivateKey returns the ed25519 private key, for code that signs envelopes
// with it. It is secret.
func (k *InboxKey) PrivateKey() ed25519.PrivateKey { return k.priv }

// Seed returns the 32-byte ed25519 seed. It is secret.
func (k *InboxKey) Seed() []byte { return k.priv.Seed() }

// LibP2PKey returns the key as a libp2p private key, for the libp2p host's
// identity.
func (k *InboxKey) LibP2PKey() (lcrypto.PrivKey, error) {
	pk, err := lcrypto.UnmarshalEd25519PrivateKey(k.priv)
	if err != nil {
		return nil, fmt.Errorf("identity: inbox key as libp2p key: %w", err)
	}
	return pk, nil
}

// PeerIDFromInboxKey returns the libp2p peer id of an ed25519 public key:
// the identity multihash of the protobuf-encoded public key.
func PeerIDFromInboxKey(pub ed25519.PublicKey) (peer.ID, error) {
	if len(pub) != ed25519.PublicKeySize {
		return "", fail(CodeMalformed, "inbox key is %d bytes, want %d", len(pub), ed25519.PublicKeySize)
	}
	lpub, err := lcrypto.UnmarshalEd25519PublicKey(pub)
	if err != nil {
		return "", failWrap(CodeMalformed, err, "inbox key")
	}
	id, err := peer.IDFromPublicKey(lpub)
	if err != nil {
		return "", failWrap(CodeMalformed, err, "peer id")
	}
	return id, nil
}

// ParseInboxKey parses 0x + 64 lowercase hex digits into an ed25519 public key.
func ParseInboxKey(s string) (ed25519.PublicKey, error) {
	b, err := parseHex(s, ed25519.PublicKeySize)
	if err != nil {
		return nil, err
	}
	return ed25519.PublicKey(b), nil
}

// parseHex parses exactly 0x + 2n lowercase hex digits.
func parseHex(s string, n int) ([]byte, error) {
	if len(s) != 2+2*n || s[0] != '0' || s[1] != 'x' {
		return nil, fail(CodeMalformed, "want 0x and %d lowercase hex digits", 2*n)
	}
	return parseHexBody(s[2:])
}

// parseHexAny parses 0x + an even number of lowercase hex digits.
func parseHexAny(s string) ([]byte, error) {
	if len(s) < 2 || s[0] != '0' || s[1] != 'x' || len(s)%2 != 0 {
		return nil, fail(CodeMalformed, "want 0x and an even number of lowercase hex digits")
	}
	return parseHexBody(s[2:])
}

func parseHexBody(s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return nil, fail(CodeMalformed, "not lowercase hex at offset %d", i+2)
		}
	}
	return hex.DecodeString(s)
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }
