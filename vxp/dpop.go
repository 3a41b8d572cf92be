package vxp

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/parleynet/parley/strictjson"
)

// The codes an AuthError carries: the OAuth error codes of RFC 9449
// (invalid_dpop_proof, use_dpop_nonce) and RFC 6749 (invalid_client,
// invalid_grant) that the token endpoint and the resource answer with.
const (
	CodeInvalidDPoPProof Code = "invalid_dpop_proof"
	CodeUseDPoPNonce     Code = "use_dpop_nonce"
	CodeInvalidClient    Code = "invalid_client"
	CodeInvalidGrant     Code = "invalid_grant"
)

// AuthError is a refusal of a DPoP proof or of an assertion. Code is the
// OAuth error code the endpoint answers with; Reason is a stable
// lowercase name of the rule that refused, for logs and tests, never a
// secret.
type AuthError struct {
	Code   Code
	Reason string
	Err    error
}

// Error returns "vxp: <code>: <reason>" and the cause when there is one.
func (e *AuthError) Error() string {
	if e.Err != nil {
		return "vxp: " + string(e.Code) + ": " + e.Reason + ": " + e.Err.Error()
	}
	return "vxp: " + string(e.Code) + ": " + e.Reason
}

// ErrorCode returns the OAuth error code.
func (e *AuthError) ErrorCode() string { return string(e.Code) }

// Class returns the class of its code (errors.go): unauthorized.
func (e *AuthError) Class() string { return e.Code.Class() }

// Unwrap returns the cause, nil when the rule itself refused.
func (e *AuthError) Unwrap() error { return e.Err }

func refuse(code Code, reason string, err error) *AuthError {
	return &AuthError{Code: code, Reason: reason, Err: err}
}

// ErrReplayed is returned by a ReplayCache for a key it already holds.
var ErrReplayed = &Error{Code: CodeReplayed, Msg: "jti already used"}

// ErrReplayCacheFull is returned by MemoryReplayCache when it holds its
// maximum of unexpired keys: it refuses rather than forget a key that
// could still be replayed.
var ErrReplayCacheFull = &Error{Code: CodeReplayCacheFull, Msg: "replay cache full"}

// ReplayCache records single-use identifiers (DPoP proof and assertion
// jti values). The caller owns it and may keep it durable; the verifiers
// only call Use.
type ReplayCache interface {
	// Use records key as used until expires and returns nil, or returns
	// an error (ErrReplayed when key was recorded before and has not
	// expired at now) and records nothing. It must be safe for
	// concurrent use: of two concurrent Uses of one key, one fails.
	Use(key string, expires, now time.Time) error
}

// MemoryReplayCache is a bounded in-memory ReplayCache. Time is passed
// in; it starts no goroutine and forgets keys whose expiry has passed
// when it needs room.
type MemoryReplayCache struct {
	mu   sync.Mutex
	max  int
	keys map[string]time.Time
}

var _ ReplayCache = (*MemoryReplayCache)(nil)

// NewMemoryReplayCache returns an empty cache holding at most limit
// unexpired keys (limit < 1 means 1).
func NewMemoryReplayCache(limit int) *MemoryReplayCache {
	return &MemoryReplayCache{max: max(limit, 1), keys: make(map[string]time.Time)}
}

func (c *MemoryReplayCache) with(f func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f()
}

// Use implements ReplayCache.
func (c *MemoryReplayCache) Use(key string, expires, now time.Time) error {
	return c.with(func() error {
		if exp, ok := c.keys[key]; ok {
			if now.Before(exp) {
				return ErrReplayed
			}
			delete(c.keys, key)
		}
		if len(c.keys) >= c.max {
			for k, exp := range c.keys {
				if !now.Before(exp) {
					delete(c.keys, k)
				}
			}
			if len(c.keys) >= c.max {
				return ErrReplayCacheFull
			}
		}
		c.keys[key] = expires
		return nil
	})
}

// Len returns the number of keys held, expired ones not yet forgotten
// included.
func (c *MemoryReplayCache) Len() int {
	n := 0
	_ = c.with(func() error { n = len(c.keys); return nil })
	return n
}

// Defaults of DPoPRequest's window.
const (
	// DefaultDPoPMaxAge is how old a proof's iat may be.
	DefaultDPoPMaxAge = 2 * time.Minute
	// DefaultDPoPSkew is how far in the future a proof's iat may be.
	DefaultDPoPSkew = 30 * time.Second
)

// DPoPRequest is what the server knows of the request that carried a
// DPoP proof.
type DPoPRequest struct {
	// Method is the request's HTTP method.
	Method string
	// URL is the request's absolute URL as the server is reached (its
	// public base URL and the path); query and fragment are ignored.
	URL string
	// Now is the server's time.
	Now time.Time
	// AccessToken is the access token presented with the proof at a
	// resource, whose hash the proof's ath must carry; "" at the token
	// endpoint.
	AccessToken string
	// Nonce is the server's current DPoP nonce, "" when the server
	// demands none.
	Nonce string
	// MaxAge bounds the age of iat (DefaultDPoPMaxAge when zero).
	MaxAge time.Duration
	// Skew bounds how far iat may be ahead of Now (DefaultDPoPSkew
	// when zero).
	Skew time.Duration
}

// DPoPProof is a verified proof.
type DPoPProof struct {
	// JKT is the RFC 7638 thumbprint of the proof's key, to compare
	// with a token's cnf.jkt or to bind a new token to.
	JKT string
	// Key is the proof's public key.
	Key PublicKey
	// JTI is the proof's single-use identifier.
	JTI string
	// IssuedAt is the proof's iat.
	IssuedAt time.Time
}

type dpopClaims struct {
	JTI   *string  `json:"jti"`
	HTM   *string  `json:"htm"`
	HTU   *string  `json:"htu"`
	IAT   *float64 `json:"iat"`
	ATH   *string  `json:"ath"`
	Nonce *string  `json:"nonce"`
}

// VerifyDPoP verifies a DPoP proof JWT (RFC 9449 section 4.3) against
// the request that carried it, records its jti in replay, and returns
// the proof's key thumbprint. Every refusal is an *AuthError with code
// invalid_dpop_proof, or use_dpop_nonce when req.Nonce is set and the
// proof carries no nonce or another one. The rules, in order:
//
//   - one compact JWS whose protected header has typ dpop+jwt, alg ES256
//     (none, HS256, RS256 and every other alg refused) and a jwk that is
//     a public EC P-256 key (ParsePublicJWK); the signature verifies with
//     that key;
//   - htm equals req.Method; htu equals req.URL, both without query and
//     fragment, scheme and host compared in lower case, a default port
//     (80 for http, 443 for https) the same as none;
//   - iat is no older than MaxAge and no further ahead than Skew;
//   - jti is present;
//   - with req.AccessToken, ath is base64url(SHA-256(access token));
//   - with req.Nonce, nonce equals it (use_dpop_nonce otherwise);
//   - last, jti is used for the first time (replay keyed by thumbprint
//     and jti, held until iat + MaxAge + Skew).
func VerifyDPoP(proof string, req DPoPRequest, replay ReplayCache) (DPoPProof, error) {
	bad := func(reason string, err error) (DPoPProof, error) {
		return DPoPProof{}, refuse(CodeInvalidDPoPProof, reason, err)
	}
	maxAge, skew := req.MaxAge, req.Skew
	if maxAge <= 0 {
		maxAge = DefaultDPoPMaxAge
	}
	if skew <= 0 {
		skew = DefaultDPoPSkew
	}
	h, err := protectedHeader(proof)
	if err != nil {
		return bad("malformed", err)
	}
	if h.Typ != "dpop+jwt" {
		return bad("typ", nil)
	}
	if h.Alg != string(jose.ES256) {
		return bad("alg", nil)
	}
	if len(h.JWK) == 0 {
		return bad("jwk_missing", nil)
	}
	key, err := ParsePublicJWK(h.JWK)
	if err != nil {
		return bad("jwk", err)
	}
	payload, err := verifyES256(proof, key)
	if err != nil {
		return bad("signature", err)
	}
	var c dpopClaims
	if err := decodeClaims(payload, &c); err != nil {
		return bad("malformed", err)
	}
	if c.HTM == nil || *c.HTM != req.Method {
		return bad("htm", nil)
	}
	if c.HTU == nil {
		return bad("htu", nil)
	}
	got, err := normaliseHTU(*c.HTU)
	if err != nil {
		return bad("htu", err)
	}
	want, err := normaliseHTU(req.URL)
	if err != nil {
		return bad("htu", fmt.Errorf("request url: %w", err))
	}
	if got != want {
		return bad("htu", nil)
	}
	if c.IAT == nil {
		return bad("iat", nil)
	}
	iat, ok := numericDate(*c.IAT)
	if !ok || iat.Before(req.Now.Add(-maxAge)) || iat.After(req.Now.Add(skew)) {
		return bad("iat", nil)
	}
	if c.JTI == nil || *c.JTI == "" {
		return bad("jti", nil)
	}
	if req.AccessToken != "" {
		sum := sha256.Sum256([]byte(req.AccessToken))
		want := base64.RawURLEncoding.EncodeToString(sum[:])
		if c.ATH == nil || subtle.ConstantTimeCompare([]byte(*c.ATH), []byte(want)) != 1 {
			return bad("ath", nil)
		}
	}
	if req.Nonce != "" {
		if c.Nonce == nil || subtle.ConstantTimeCompare([]byte(*c.Nonce), []byte(req.Nonce)) != 1 {
			return DPoPProof{}, refuse(CodeUseDPoPNonce, "nonce", nil)
		}
	}
	if err := replay.Use("dpop\x00"+key.Thumbprint+"\x00"+*c.JTI, iat.Add(maxAge+skew), req.Now); err != nil {
		return bad("replay", err)
	}
	return DPoPProof{JKT: key.Thumbprint, Key: key, JTI: *c.JTI, IssuedAt: iat}, nil
}

// joseHeader is the part of a JWS protected header the verifiers read.
type joseHeader struct {
	Alg string          `json:"alg"`
	Typ string          `json:"typ"`
	Kid string          `json:"kid"`
	JWK json.RawMessage `json:"jwk"`
}

// protectedHeader decodes the protected header of a compact JWS of
// three parts without verifying anything.
func protectedHeader(compact string) (joseHeader, error) {
	parts := strings.Split(compact, ".")
	if len(parts) != 3 {
		return joseHeader{}, errors.New("not a compact JWS")
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(parts[0])
	if err != nil {
		return joseHeader{}, fmt.Errorf("header: %w", err)
	}
	var h joseHeader
	if err := decodeClaims(raw, &h); err != nil {
		return joseHeader{}, fmt.Errorf("header: %w", err)
	}
	return h, nil
}

// verifyES256 verifies a compact JWS with key and returns its payload.
func verifyES256(compact string, key PublicKey) ([]byte, error) {
	obj, err := jose.ParseSignedCompact(compact, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, err
	}
	return obj.Verify(key.Key)
}

// decodeClaims decodes a JSON object strictly as to its syntax (no
// duplicate member, valid UTF-8) and leniently as to its members, which
// RFC 7519 section 4 says to ignore when unknown.
func decodeClaims(raw []byte, v any) error {
	if err := strictjson.Check(raw); err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// numericDate turns a JWT NumericDate into a time, refusing values that
// are not finite or out of range.
func numericDate(f float64) (time.Time, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1<<40 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

// normaliseHTU returns an absolute http(s) URL without query and
// fragment, scheme and host in lower case and the scheme's default port
// removed, for comparing a proof's htu with the request's URL.
func normaliseHTU(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("scheme %q", u.Scheme)
	}
	if u.User != nil || u.Host == "" || u.Opaque != "" {
		return "", errors.New("not an absolute URL with a host")
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path, nil
}
