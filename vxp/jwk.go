package vxp

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/parleynet/parley/strictjson"
)

// ErrInvalidJWK is the class of every refusal of ParsePublicJWK and
// ParseJWKS; the wrapping error names the rule. Callers turn it into
// their own code (invalid_dpop_proof for a DPoP proof's jwk header,
// invalid_client for a client's JWKS).
var ErrInvalidJWK = &Error{Code: CodeInvalidJWK, Msg: "not a public ES256 key"}

// p256CoordLen is the fixed length of a P-256 coordinate: RFC 7518
// section 6.2.1.2 requires the full 32 bytes, leading zero bytes
// included, and RFC 7638 hashes that fixed-length encoding.
const p256CoordLen = 32

// privateJWKMembers are the members that make a JWK private or
// symmetric (RFC 7518 sections 6.2.2, 6.3.2 and 6.4). A public key
// names none of them.
var privateJWKMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// PublicKey is a parsed public EC P-256 JWK usable for ES256.
type PublicKey struct {
	// Key is the public key.
	Key *ecdsa.PublicKey
	// KeyID is the JWK's kid, "" when it has none.
	KeyID string
	// Thumbprint is the RFC 7638 thumbprint: base64url (no padding)
	// of the SHA-256 of the key's required members. It is the value
	// of a DPoP-bound token's cnf.jkt.
	Thumbprint string
}

type jwkMembers struct {
	Kty    string   `json:"kty"`
	Crv    string   `json:"crv"`
	X      string   `json:"x"`
	Y      string   `json:"y"`
	Alg    string   `json:"alg"`
	Use    string   `json:"use"`
	Kid    string   `json:"kid"`
	KeyOps []string `json:"key_ops"`
}

// ParsePublicJWK parses one JSON Web Key and returns it when it is a
// public EC key on P-256 whose alg, if named, is ES256 and whose use, if
// named, is sig. It refuses (ErrInvalidJWK) any private or symmetric
// member, another kty, crv or alg, coordinates that are not exactly 32
// bytes of unpadded base64url, and a point not on the curve. Members it
// does not know are ignored, as RFC 7517 section 4 asks.
func ParsePublicJWK(raw []byte) (PublicKey, error) {
	if err := strictjson.Check(raw); err != nil {
		return PublicKey{}, fmt.Errorf("%w: %w", ErrInvalidJWK, err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return PublicKey{}, fmt.Errorf("%w: not an object", ErrInvalidJWK)
	}
	for _, m := range privateJWKMembers {
		if _, ok := all[m]; ok {
			return PublicKey{}, fmt.Errorf("%w: private member %q", ErrInvalidJWK, m)
		}
	}
	var j jwkMembers
	if err := json.Unmarshal(raw, &j); err != nil {
		return PublicKey{}, fmt.Errorf("%w: %w", ErrInvalidJWK, err)
	}
	switch {
	case j.Kty != "EC":
		return PublicKey{}, fmt.Errorf("%w: kty %q, want EC", ErrInvalidJWK, j.Kty)
	case j.Crv != "P-256":
		return PublicKey{}, fmt.Errorf("%w: crv %q, want P-256", ErrInvalidJWK, j.Crv)
	case j.Alg != "" && j.Alg != "ES256":
		return PublicKey{}, fmt.Errorf("%w: alg %q, want ES256", ErrInvalidJWK, j.Alg)
	case j.Use != "" && j.Use != "sig":
		return PublicKey{}, fmt.Errorf("%w: use %q, want sig", ErrInvalidJWK, j.Use)
	}
	x, err := coordinate("x", j.X)
	if err != nil {
		return PublicKey{}, err
	}
	y, err := coordinate("y", j.Y)
	if err != nil {
		return PublicKey{}, err
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		return PublicKey{}, fmt.Errorf("%w: point not on P-256", ErrInvalidJWK)
	}
	tp, err := Thumbprint(pub)
	if err != nil {
		return PublicKey{}, err
	}
	return PublicKey{Key: pub, KeyID: j.Kid, Thumbprint: tp}, nil
}

// coordinate decodes one coordinate, which must be exactly 32 bytes of
// unpadded base64url.
func coordinate(name, s string) ([]byte, error) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not unpadded base64url", ErrInvalidJWK, name)
	}
	if len(b) != p256CoordLen {
		return nil, fmt.Errorf("%w: %s is %d bytes, want %d", ErrInvalidJWK, name, len(b), p256CoordLen)
	}
	return b, nil
}

// ParseJWKS parses a JWK Set ({"keys": [...]}) and returns its keys, in
// order. Every key must pass ParsePublicJWK; an empty set is refused.
func ParseJWKS(raw []byte) ([]PublicKey, error) {
	if err := strictjson.Check(raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidJWK, err)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("%w: not a JWK set", ErrInvalidJWK)
	}
	if len(set.Keys) == 0 {
		return nil, fmt.Errorf("%w: empty JWK set", ErrInvalidJWK)
	}
	keys := make([]PublicKey, 0, len(set.Keys))
	for i, k := range set.Keys {
		pk, err := ParsePublicJWK(k)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i, err)
		}
		keys = append(keys, pk)
	}
	return keys, nil
}

// Thumbprint returns the RFC 7638 SHA-256 thumbprint of a P-256 public
// key, base64url without padding. Coordinates are hashed at their fixed
// 32-byte length, so a coordinate with leading zero bytes gives the same
// thumbprint as every other implementation.
func Thumbprint(pub *ecdsa.PublicKey) (string, error) {
	if pub == nil || pub.Curve != elliptic.P256() {
		return "", fmt.Errorf("%w: not a P-256 key", ErrInvalidJWK)
	}
	jwk := jose.JSONWebKey{Key: pub}
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidJWK, err)
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}
