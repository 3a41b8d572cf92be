package negotiation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/gowebpki/jcs"
	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"
)

// Hash is a SHA-256 value: of an envelope's JCS bytes, of terms, of a card.
type Hash [32]byte

// ZeroHash is the previousHash of a sender's first envelope.
var ZeroHash Hash

// String returns 0x-prefixed lowercase hex.
func (h Hash) String() string { return "0x" + hex.EncodeToString(h[:]) }

// IsZero reports whether h is all zero bytes.
func (h Hash) IsZero() bool { return h == ZeroHash }

// MarshalText encodes h as 0x-prefixed lowercase hex.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText accepts exactly 0x + 64 lowercase hex digits.
func (h *Hash) UnmarshalText(b []byte) error {
	v, err := parseHex(string(b), 32)
	if err != nil {
		return err
	}
	copy(h[:], v)
	return nil
}

// ParseHash parses 0x + 64 lowercase hex digits.
func ParseHash(s string) (Hash, error) {
	var h Hash
	err := h.UnmarshalText([]byte(s))
	return h, err
}

// Canonicalize returns the RFC 8785 (JCS) form of the JSON text b. It
// rejects duplicate member names with CodeDuplicateKey and anything that is
// not JSON with CodeMalformedJSON.
func Canonicalize(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, reject(CodeMalformedJSON, "", "empty input")
	}
	out, err := jcs.Transform(b)
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "duplicate key") {
			return nil, &Error{Code: CodeDuplicateKey, Msg: err.Error(), Err: err}
		}
		return nil, &Error{Code: CodeMalformedJSON, Msg: err.Error(), Err: err}
	}
	return out, nil
}

// HashCanonical returns SHA-256 of JCS(b).
func HashCanonical(b []byte) (Hash, error) {
	c, err := Canonicalize(b)
	if err != nil {
		return Hash{}, err
	}
	return sha256.Sum256(c), nil
}

// CodecJSON is the multicodec of content-addressed envelopes (json, 0x0200).
const CodecJSON = 0x0200

// CIDOf returns the CIDv1 (codec json, sha2-256) of stored bytes b. Its
// digest equals SHA-256(b), so an envelope's hash and its CID are one value.
func CIDOf(b []byte) cid.Cid {
	sum := sha256.Sum256(b)
	return CIDFromHash(sum)
}

// CIDFromHash returns the CIDv1 (codec json, sha2-256) whose digest is h.
func CIDFromHash(h Hash) cid.Cid {
	mh, err := multihash.Encode(h[:], multihash.SHA2_256)
	if err != nil {
		panic(fmt.Sprintf("negotiation: multihash of 32 bytes: %v", err)) // cannot happen: fixed length
	}
	return cid.NewCidV1(CodecJSON, mh)
}

// HashFromCID returns the SHA-256 digest inside c, or an error when c is not
// a sha2-256 CID.
func HashFromCID(c cid.Cid) (Hash, error) {
	dec, err := multihash.Decode(c.Hash())
	if err != nil {
		return Hash{}, reject(CodeBadCID, "", "%v", err)
	}
	if dec.Code != multihash.SHA2_256 || len(dec.Digest) != 32 {
		return Hash{}, reject(CodeBadCID, "", "not a sha2-256 CID")
	}
	return Hash(dec.Digest), nil
}

func parseHex(s string, n int) ([]byte, error) {
	if len(s) != 2+2*n || s[0] != '0' || s[1] != 'x' {
		return nil, reject(CodeBadHex, "", "want 0x and %d lowercase hex digits", 2*n)
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return nil, reject(CodeBadHex, "", "not lowercase hex at offset %d", i)
		}
	}
	return hex.DecodeString(s[2:])
}

// HashOf returns SHA-256 of b.
func HashOf(b []byte) Hash { return sha256.Sum256(b) }
