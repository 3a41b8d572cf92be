package vxp

import (
	"encoding/json"
	"regexp"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Defaults of AssertionRequest.
const (
	// DefaultAssertionMaxLifetime bounds how far in the future an
	// assertion's exp may be.
	DefaultAssertionMaxLifetime = 5 * time.Minute
	// DefaultAssertionSkew is the clock skew allowed on exp, nbf and
	// iat.
	DefaultAssertionSkew = 30 * time.Second
)

// AssertionRequest is what the token endpoint knows when it checks a
// JWT signed by a client: the client's identity and keys, its own
// identifiers and the time.
type AssertionRequest struct {
	// ClientID is the client_id the request names: the URL of the
	// client's Client ID Metadata Document.
	ClientID string
	// Keys are the client's keys, parsed from its document's JWKS.
	Keys []PublicKey
	// Issuer is the authorization server's issuer identifier.
	Issuer string
	// TokenEndpoint is the token endpoint's URL.
	TokenEndpoint string
	// Now is the server's time.
	Now time.Time
	// MaxLifetime bounds exp - Now (DefaultAssertionMaxLifetime when
	// zero).
	MaxLifetime time.Duration
	// Skew is the clock skew allowed (DefaultAssertionSkew when zero).
	Skew time.Duration
}

// Assertion is a verified assertion.
type Assertion struct {
	// Issuer is the iss claim (the client_id).
	Issuer string
	// Subject is the sub claim.
	Subject string
	// JTI is the single-use identifier.
	JTI string
	// Expires is the exp claim.
	Expires time.Time
	// KeyID is the kid of the client key that verified the signature.
	KeyID string
}

type assertionClaims struct {
	Iss *string          `json:"iss"`
	Sub *string          `json:"sub"`
	Aud *json.RawMessage `json:"aud"`
	Exp *float64         `json:"exp"`
	Nbf *float64         `json:"nbf"`
	Iat *float64         `json:"iat"`
	JTI *string          `json:"jti"`
}

// VerifyClientAssertion verifies a private_key_jwt client assertion
// (RFC 7523 section 3 and 2.2, RFC 7521 section 4.2): sub equals iss
// equals req.ClientID. Refusals are *AuthError with code
// invalid_client. The rules are those of verifyAssertion.
func VerifyClientAssertion(assertion string, req AssertionRequest, replay ReplayCache) (Assertion, error) {
	return verifyAssertion(assertion, req, req.ClientID, "client_assertion", CodeInvalidClient, replay)
}

// evmAddress is the shape of an EVM address; its EIP-55 letter case is
// checked by comparing with the node's own address string.
var evmAddress = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// ErrBadSubject is returned by VerifyGrantAssertion when the expected
// subject the caller passes is not an EVM address: a wiring error, not
// a client's.
var ErrBadSubject = &Error{Code: CodeBadSubject, Msg: "principal subject is not an EVM address"}

// VerifyGrantAssertion verifies the authorization grant of the
// jwt-bearer grant type (RFC 7523 section 2.1 and 3): the client
// asserts the user ID it holds for the person, so iss equals
// req.ClientID, the JWT is signed by a key of the client, and sub
// equals subject, the principal's subject (the node's EIP-55 EVM
// address), character by character, so that an address in another
// letter case is refused. Refusals are *AuthError with code
// invalid_grant; the other rules are those of verifyAssertion. Its
// jti is recorded apart from the client assertion's.
func VerifyGrantAssertion(assertion string, req AssertionRequest, subject string, replay ReplayCache) (Assertion, error) {
	if !evmAddress.MatchString(subject) {
		return Assertion{}, ErrBadSubject
	}
	return verifyAssertion(assertion, req, subject, "grant", CodeInvalidGrant, replay)
}

// verifyAssertion holds the rules both assertions share, in order:
//
//   - one compact JWS with alg ES256; with a kid, a client key of that
//     kid verifies it; without, one of the client's keys does;
//   - iss equals req.ClientID; sub equals subject;
//   - aud is a single string equal to req.Issuer or to
//     req.TokenEndpoint (an array is refused, as the audience
//     confusion fix of draft-ietf-oauth-rfc7523bis asks);
//   - exp is present, after Now - Skew, and no later than Now +
//     MaxLifetime + Skew;
//   - nbf, if present, is not after Now + Skew; iat, if present, is not
//     after Now + Skew and not before exp - MaxLifetime - Skew;
//   - jti is present and used for the first time for this client
//     (held until exp + Skew).
func verifyAssertion(assertion string, req AssertionRequest, subject, kind string, code Code, replay ReplayCache) (Assertion, error) {
	bad := func(reason string, err error) (Assertion, error) {
		return Assertion{}, refuse(code, reason, err)
	}
	life, skew := req.MaxLifetime, req.Skew
	if life <= 0 {
		life = DefaultAssertionMaxLifetime
	}
	if skew <= 0 {
		skew = DefaultAssertionSkew
	}
	h, err := protectedHeader(assertion)
	if err != nil {
		return bad("malformed", err)
	}
	if h.Alg != string(jose.ES256) {
		return bad("alg", nil)
	}
	if len(h.JWK) != 0 {
		// The client's keys come from its document, never from the JWT.
		return bad("jwk_header", nil)
	}
	var payload []byte
	var keyID string
	found := false
	for _, k := range req.Keys {
		if h.Kid != "" && k.KeyID != h.Kid {
			continue
		}
		found = true
		if p, err := verifyES256(assertion, k); err == nil {
			payload, keyID = p, k.KeyID
			break
		}
	}
	if !found {
		return bad("kid", nil)
	}
	if payload == nil {
		return bad("signature", nil)
	}
	var c assertionClaims
	if err := decodeClaims(payload, &c); err != nil {
		return bad("malformed", err)
	}
	if c.Iss == nil || *c.Iss != req.ClientID || req.ClientID == "" {
		return bad("iss", nil)
	}
	if c.Sub == nil || *c.Sub != subject {
		return bad("sub", nil)
	}
	var aud string
	if c.Aud == nil || json.Unmarshal(*c.Aud, &aud) != nil || aud == "" ||
		(aud != req.Issuer && aud != req.TokenEndpoint) {
		return bad("aud", nil)
	}
	if c.Exp == nil {
		return bad("exp", nil)
	}
	exp, ok := numericDate(*c.Exp)
	if !ok || !exp.After(req.Now.Add(-skew)) {
		return bad("expired", nil)
	}
	if exp.After(req.Now.Add(life + skew)) {
		return bad("exp_too_far", nil)
	}
	if c.Nbf != nil {
		nbf, ok := numericDate(*c.Nbf)
		if !ok || nbf.After(req.Now.Add(skew)) {
			return bad("nbf", nil)
		}
	}
	if c.Iat != nil {
		iat, ok := numericDate(*c.Iat)
		if !ok || iat.After(req.Now.Add(skew)) || iat.Before(exp.Add(-life-skew)) {
			return bad("iat", nil)
		}
	}
	if c.JTI == nil || *c.JTI == "" {
		return bad("jti", nil)
	}
	if err := replay.Use(kind+"\x00"+req.ClientID+"\x00"+*c.JTI, exp.Add(skew), req.Now); err != nil {
		return bad("replay", err)
	}
	return Assertion{Issuer: *c.Iss, Subject: *c.Sub, JTI: *c.JTI, Expires: exp, KeyID: keyID}, nil
}
