package negotiation

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
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
func (h *Hash) UnmarshalText(b []byte) error { return parseHexInto(h[:], b) }

// ParseHash parses 0x + 64 lowercase hex digits.
func ParseHash(s string) (Hash, error) {
	var h Hash
	err := h.UnmarshalText([]byte(s))
	return h, err
}

// Canonicalize returns the RFC 8785 (JCS) form of the JSON text b, a new
// slice. It rejects duplicate member names with CodeDuplicateKey and
// anything that is not exactly one JSON value of valid UTF-8 (a lone
// surrogate escape included) with CodeMalformedJSON. It is JSON v2's
// canonicaliser (about 5 µs and one allocation for an envelope where the
// JCS library took 17-31 µs and hundreds); FuzzIsCanonical holds the two
// to the same output.
func Canonicalize(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, reject(CodeMalformedJSON, "", "empty input")
	}
	v := jsontext.Value(bytes.Clone(b))
	if err := v.Canonicalize(); err != nil {
		if errors.Is(err, jsontext.ErrDuplicateName) {
			return nil, &Error{Code: CodeDuplicateKey, Msg: err.Error(), Err: err}
		}
		return nil, &Error{Code: CodeMalformedJSON, Msg: err.Error(), Err: err}
	}
	// JSON v2 rounds a literal beyond the largest double to that double;
	// RFC 8785 refuses it (it is Infinity, which JSON cannot spell). Only
	// an output holding the largest double can have come from one.
	if bytes.Contains(v, []byte(maxDouble)) && overflows(b) {
		return nil, reject(CodeMalformedJSON, "", "a number beyond the largest double")
	}
	return v, nil
}

const maxDouble = "1.7976931348623157e+308"

// overflows reports whether valid JSON text b holds a number literal that
// parses to an infinity.
func overflows(b []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if tok.Kind() == '0' {
			if _, err := strconv.ParseFloat(tok.String(), 64); err != nil {
				return true
			}
		}
	}
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
	out := make([]byte, n)
	if err := parseHexInto(out, s); err != nil {
		return nil, err
	}
	return out, nil
}

// parseHexInto decodes 0x + 2*len(dst) lowercase hex digits into dst.
func parseHexInto[S ~string | ~[]byte](dst []byte, s S) error {
	n := len(dst)
	if len(s) != 2+2*n || s[0] != '0' || s[1] != 'x' {
		return reject(CodeBadHex, "", "want 0x and %d lowercase hex digits", 2*n)
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return reject(CodeBadHex, "", "not lowercase hex at offset %d", i)
		}
	}
	for i := range dst {
		dst[i] = unhex(s[2+2*i])<<4 | unhex(s[3+2*i])
	}
	return nil
}

// unhex is the value of a hex digit (of either case).
func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// HashOf returns SHA-256 of b.
func HashOf(b []byte) Hash { return sha256.Sum256(b) }
