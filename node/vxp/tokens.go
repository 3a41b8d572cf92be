package vxp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	pure "github.com/parleynet/parley/vxp"
)

// Bounds of what the issuer keeps and reads.
const (
	// replayLimit bounds the single-use jti values held (DPoP proofs and
	// assertions); over it, proofs are refused rather than a jti forgotten.
	replayLimit = 100_000
	// maxProofBytes and maxTokenBytes bound a DPoP header and an access
	// token before anything is verified.
	maxProofBytes = 8 << 10
	maxTokenBytes = 16 << 10
)

// authState is the issuer's state: its key, the DPoP nonces, the replay
// caches, the client documents and the device codes.
type authState struct {
	key     *issuerKey
	jwks    []byte
	nonces  *nonces
	replay  *pure.MemoryReplayCache
	clients *clientCache
	devices *deviceStore
	limits  *rateLimiter
}

// newAuthState opens the issuer's key in s's data directory.
func newAuthState(s *Server) (*authState, error) {
	key, err := openIssuerKey(s.cfg.DataDir, s.cfg.Rand)
	if err != nil {
		return nil, err
	}
	if s.cfg.DataDir == "" {
		s.log.Warn("vxp issuer key kept in memory only: no data directory")
	}
	jwks, err := buildJWKS(key, s.b)
	if err != nil {
		return nil, err
	}
	n, err := newNonces(s.cfg.Rand)
	if err != nil {
		return nil, err
	}
	return &authState{
		key: key, jwks: jwks, nonces: n,
		replay:  pure.NewMemoryReplayCache(replayLimit),
		clients: newClientCache(clientCacheSize, clientCacheTTL),
		devices: newDeviceStore(maxDevicesPerClient, maxDevices),
		limits:  newRateLimiter(s.cfg.RatePerMinute, rateLimiterSize),
	}, nil
}

// accessClaims are an access token's claims (RFC 9068, with RFC 9449's
// cnf and RFC 9396's authorization_details): the grants it carries by id,
// and their details as they were when it was issued. The grants are
// looked up again at every call, so a revoked grant's tokens fail at once.
type accessClaims struct {
	Iss      string        `json:"iss"`
	Sub      string        `json:"sub"`
	Aud      string        `json:"aud"`
	ClientID string        `json:"client_id"`
	Grants   []string      `json:"grants"`
	Cnf      cnf           `json:"cnf"`
	Details  []pure.Detail `json:"authorization_details"`
	Iat      int64         `json:"iat"`
	Exp      int64         `json:"exp"`
	JTI      string        `json:"jti"`
}

// cnf is RFC 9449's confirmation: the DPoP key's thumbprint.
type cnf struct {
	JKT string `json:"jkt"`
}

// issueToken returns an access token for client bound to jkt carrying
// grants, and its lifetime in seconds.
func (s *Server) issueToken(clientID, jkt string, grants []Grant) (string, int64, error) {
	now := s.cfg.Now()
	jti, err := newAuthID(s.cfg.Rand, "at_")
	if err != nil {
		return "", 0, err
	}
	c := accessClaims{
		Iss: s.issuer, Sub: s.b.Address().String(), Aud: s.endpoint,
		ClientID: clientID, Grants: []string{}, Cnf: cnf{JKT: jkt}, Details: []pure.Detail{},
		Iat: now.Unix(), Exp: now.Add(s.cfg.TokenTTL).Unix(), JTI: jti,
	}
	for _, g := range grants {
		c.Grants = append(c.Grants, g.ID)
		c.Details = append(c.Details, g.Details...)
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", 0, err
	}
	tok, err := s.auth.key.sign(TypAccessToken, payload)
	if err != nil {
		return "", 0, err
	}
	return tok, c.Exp - c.Iat, nil
}

// tokenError is a refusal of an access token at the resource.
func tokenError(code pure.Code, reason string, err error) *pure.AuthError {
	return &pure.AuthError{Code: code, Reason: reason, Err: err}
}

// reasonNoToken is the Reason of a call that carries no credentials: its
// WWW-Authenticate names no error (RFC 6750 section 3.1).
const reasonNoToken = "no_token"

// authenticate checks a resource call's DPoP-bound access token and
// returns its caller: Authorization: DPoP <token> (a Bearer one is
// refused: every token of this issuer is DPoP-bound), one DPoP proof for
// the call's method and public URL with the token's ath and a current
// server nonce, the token's signature, typ, iss, aud (the endpoint) and
// exp, cnf.jkt equal to the proof's key, and every grant it names still
// in force for its client and key. Refusals are *vxp.AuthError with code
// invalid_token, invalid_dpop_proof or use_dpop_nonce; writeAuthError
// answers them.
func (s *Server) authenticate(r *http.Request) (*Caller, error) {
	if s.authHook != nil {
		return s.authHook(r)
	}
	if s.auth == nil || s.store == nil {
		return nil, errNotStarted()
	}
	authz := r.Header.Values("Authorization")
	if len(authz) == 0 {
		return nil, tokenError(pure.CodeInvalidToken, reasonNoToken, nil)
	}
	if len(authz) > 1 {
		return nil, tokenError(pure.CodeInvalidToken, "authorization_repeated", nil)
	}
	scheme, tok, _ := strings.Cut(authz[0], " ")
	tok = strings.TrimSpace(tok)
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		return nil, tokenError(pure.CodeInvalidToken, "bearer", errors.New("the token is DPoP-bound: send it as Authorization: DPoP with a DPoP proof"))
	case !strings.EqualFold(scheme, "DPoP"):
		return nil, tokenError(pure.CodeInvalidToken, "scheme", nil)
	case tok == "" || len(tok) > maxTokenBytes:
		return nil, tokenError(pure.CodeInvalidToken, "malformed", nil)
	}
	now := s.cfg.Now()
	c, err := s.verifyToken(tok, now)
	if err != nil {
		return nil, err
	}
	proof, err := s.checkDPoP(r, tok)
	if err != nil {
		return nil, err
	}
	if proof.JKT != c.Cnf.JKT {
		return nil, tokenError(pure.CodeInvalidDPoPProof, "jkt", errors.New("the proof's key is not the token's"))
	}
	caller := &Caller{ClientID: c.ClientID, JKT: c.Cnf.JKT, Subject: c.Sub, TokenID: c.JTI, Grants: []Grant{}}
	for _, id := range c.Grants {
		g, ok := s.store.Grant(id)
		switch {
		case !ok:
			return nil, tokenError(pure.CodeInvalidToken, "grant_unknown", nil)
		case g.Revoked != nil:
			return nil, tokenError(pure.CodeInvalidToken, "grant_revoked", fmt.Errorf("grant %s was revoked", id))
		case !g.Active(now):
			return nil, tokenError(pure.CodeInvalidToken, "grant_expired", fmt.Errorf("grant %s expired", id))
		case g.ClientID != c.ClientID || g.DPoPJKT != c.Cnf.JKT:
			return nil, tokenError(pure.CodeInvalidToken, "grant_mismatch", nil)
		}
		if caller.ClientName == "" {
			caller.ClientName = g.ClientName
		}
		caller.Grants = append(caller.Grants, g)
	}
	return caller, nil
}

// verifyToken checks an access token's signature (the issuer's key, kid,
// typ at+jwt), iss, aud, sub and exp at now.
func (s *Server) verifyToken(tok string, now time.Time) (accessClaims, error) {
	bad := func(reason string, err error) (accessClaims, error) {
		return accessClaims{}, tokenError(pure.CodeInvalidToken, reason, err)
	}
	obj, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil || len(obj.Signatures) != 1 {
		return bad("malformed", err)
	}
	h := obj.Signatures[0].Protected
	if h.KeyID != s.auth.key.kid {
		return bad("kid", nil)
	}
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != TypAccessToken {
		return bad("typ", nil)
	}
	payload, err := obj.Verify(&s.auth.key.priv.PublicKey)
	if err != nil {
		return bad("signature", err)
	}
	var c accessClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return bad("malformed", err)
	}
	switch {
	case c.Iss != s.issuer:
		return bad("iss", nil)
	case c.Aud != s.endpoint:
		return bad("aud", nil)
	case c.Sub != s.b.Address().String():
		return bad("sub", nil)
	case c.Cnf.JKT == "":
		return bad("cnf", nil)
	case !now.Before(time.Unix(c.Exp, 0)):
		return bad("expired", nil)
	}
	return c, nil
}

// checkDPoP verifies the request's one DPoP proof for its method and
// public URL (and accessToken's ath at the resource) with a server nonce:
// the current or the previous window's. A proof without a nonce, or with
// a stale one, is refused use_dpop_nonce once every other rule holds, and
// its jti is not spent.
func (s *Server) checkDPoP(r *http.Request, accessToken string) (pure.DPoPProof, error) {
	vals := r.Header.Values("DPoP")
	switch {
	case len(vals) == 0:
		return pure.DPoPProof{}, tokenError(pure.CodeInvalidDPoPProof, "missing", nil)
	case len(vals) > 1:
		return pure.DPoPProof{}, tokenError(pure.CodeInvalidDPoPProof, "repeated", nil)
	case len(vals[0]) > maxProofBytes:
		return pure.DPoPProof{}, tokenError(pure.CodeInvalidDPoPProof, "too_large", nil)
	}
	now := s.cfg.Now()
	nonce := s.auth.nonces.current(now)
	if claimed, ok := peekNonce(vals[0]); ok && s.auth.nonces.valid(claimed, now) {
		nonce = claimed
	}
	return pure.VerifyDPoP(vals[0], pure.DPoPRequest{
		Method: r.Method, URL: s.dpopURL(r), Now: now, AccessToken: accessToken, Nonce: nonce,
	}, s.auth.replay)
}

// peekNonce returns the nonce claim of a proof without verifying it (the
// verifier then checks that the signed claim equals it).
func peekNonce(proof string) (string, bool) {
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", false
	}
	var c struct {
		Nonce *string `json:"nonce"`
	}
	if json.Unmarshal(raw, &c) != nil || c.Nonce == nil {
		return "", false
	}
	return *c.Nonce, true
}

// dpopURL returns the request's URL as the public base URL names it
// (DPoP's htu): the base and the path.
func (s *Server) dpopURL(r *http.Request) string {
	return s.base.String() + r.URL.EscapedPath()
}

// writeAuthError answers a resource call that authenticate refused: 401
// with WWW-Authenticate: DPoP (algs, and error and error_description but
// for a call without credentials), DPoP-Nonce (always; the client needs it
// for use_dpop_nonce) and Parley's {error: {code, message}}. An error that
// is not a refusal of the token is answered as writeError does.
func (s *Server) writeAuthError(w http.ResponseWriter, err error) {
	s.setDPoPNonce(w)
	var ae *pure.AuthError
	if !errors.As(err, &ae) {
		writeError(w, err)
		return
	}
	v := `DPoP algs="ES256"`
	if ae.Reason != reasonNoToken {
		v += fmt.Sprintf(`, error=%q, error_description=%q`, string(ae.Code), ae.Reason)
	}
	w.Header().Set("WWW-Authenticate", v)
	var e apiError
	e.Error.Code, e.Error.Message = string(ae.Code), err.Error()
	writeJSON(w, http.StatusUnauthorized, e)
}
