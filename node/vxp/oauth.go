package vxp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	pure "github.com/parleynet/parley/vxp"
)

// ClientAssertionType is the client_assertion_type of private_key_jwt
// (RFC 7523 section 2.2), the one client authentication the issuer takes.
const ClientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// maxAssertionBytes bounds a client assertion or a grant assertion before
// anything is verified.
const maxAssertionBytes = 8 << 10

// oauthRoutes serves the token endpoint, the device authorization and
// the issuer's keys.
func (s *Server) oauthRoutes(mux *http.ServeMux) {
	p := ""
	if u, err := url.Parse(s.issuer); err == nil {
		p = u.EscapedPath()
	}
	mux.HandleFunc("POST "+p+pure.TokenPath, s.oauthHandler(s.tokenEndpoint))
	mux.HandleFunc("POST "+p+pure.DevicePath, s.oauthHandler(s.deviceAuthorization))
	mux.HandleFunc("GET "+p+pure.JWKSPath, func(w http.ResponseWriter, r *http.Request) {
		b, err := s.IssuerJWKS()
		if err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", "max-age=300")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
	})
}

// oauthHandler answers one OAuth endpoint: rate limited per remote
// address, its refusals as RFC 6749 errors, and a DPoP-Nonce on every
// answer.
func (s *Server) oauthHandler(f func(r *http.Request, form map[string]string) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.auth == nil {
			writeOAuthError(w, errNotStarted())
			return
		}
		s.setDPoPNonce(w)
		if err := s.rateLimit(r); err != nil {
			writeOAuthError(w, err)
			return
		}
		form, err := parseForm(r)
		if err != nil {
			writeOAuthError(w, err)
			return
		}
		v, err := f(r, form)
		if err != nil {
			if code, ok := refusal(err); !ok || code.Class() == "internal" {
				s.log.Warn("vxp oauth endpoint failed", "path", r.URL.Path, "err", err)
			}
			writeOAuthError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}

func errInvalidRequest(field, format string, args ...any) error {
	return &pure.Error{Code: pure.CodeInvalidRequest, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// parseForm reads an application/x-www-form-urlencoded body in which
// every member appears once (RFC 6749 section 3.2); an empty member is an
// absent one.
func parseForm(r *http.Request) (map[string]string, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, errInvalidRequest("Content-Type", "the body is application/x-www-form-urlencoded")
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &pure.Error{Code: pure.CodeBodyTooLarge, Msg: fmt.Sprintf("a body of at most %d bytes", mbe.Limit)}
		}
		return nil, errInvalidRequest("body", "%v", err)
	}
	vals, err := url.ParseQuery(string(b))
	if err != nil {
		return nil, errInvalidRequest("body", "%v", err)
	}
	form := make(map[string]string, len(vals))
	for k, v := range vals {
		if len(v) > 1 {
			return nil, errInvalidRequest(k, "%s appears more than once", k)
		}
		if v[0] != "" {
			form[k] = v[0]
		}
	}
	return form, nil
}

// checkResource returns invalid_target unless the form's resource is the
// endpoint; required says whether it must be named.
func (s *Server) checkResource(form map[string]string, required bool) error {
	res, ok := form["resource"]
	if !ok && !required {
		return nil
	}
	if res != s.endpoint {
		return &pure.Error{Code: pure.CodeInvalidTarget, Field: "resource", Msg: fmt.Sprintf("%q is not %s", res, s.endpoint)}
	}
	return nil
}

// authClient authenticates the client of an OAuth request by
// private_key_jwt: client_assertion_type jwt-bearer, a client_assertion
// verified (VerifyClientAssertion: aud the issuer or the token endpoint,
// jti single use) with the keys of the client's document. The client is
// client_id, or the assertion's iss when client_id is absent.
func (s *Server) authClient(ctx context.Context, form map[string]string) (*agentClient, error) {
	bad := func(reason string) error {
		return &pure.AuthError{Code: pure.CodeInvalidClient, Reason: reason}
	}
	if form["client_assertion_type"] != ClientAssertionType {
		return nil, bad("client_assertion_type")
	}
	ca := form["client_assertion"]
	if ca == "" || len(ca) > maxAssertionBytes {
		return nil, bad("client_assertion")
	}
	id, ok := form["client_id"]
	if !ok {
		id = peekIssuer(ca)
	}
	c, err := s.client(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, err := pure.VerifyClientAssertion(ca, s.assertionRequest(c), s.auth.replay); err != nil {
		return nil, err
	}
	return c, nil
}

func (s *Server) assertionRequest(c *agentClient) pure.AssertionRequest {
	return pure.AssertionRequest{ClientID: c.ID, Keys: c.Keys, Issuer: s.issuer, TokenEndpoint: s.md.TokenEndpoint, Now: s.cfg.Now()}
}

// peekIssuer returns the iss claim of a JWT without verifying it.
func peekIssuer(jwt string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		Iss string `json:"iss"`
	}
	_ = json.Unmarshal(raw, &c)
	return c.Iss
}

// tokenResponse is the token endpoint's answer (RFC 6749 section 5.1,
// RFC 9449 token_type DPoP, RFC 9396 authorization_details) with the
// relationship the grant holds, if any.
type tokenResponse struct {
	AccessToken          string        `json:"access_token"`
	TokenType            string        `json:"token_type"`
	ExpiresIn            int64         `json:"expires_in"`
	AuthorizationDetails []pure.Detail `json:"authorization_details,omitempty"`
	RelationshipID       string        `json:"relationship_id,omitempty"`
}

// tokenEndpoint is POST <issuer>/oauth/token: the grant types by name.
func (s *Server) tokenEndpoint(r *http.Request, form map[string]string) (any, error) {
	switch gt := form["grant_type"]; gt {
	case pure.GrantJWTBearer:
		return s.tokenJWTBearer(r, form)
	case pure.GrantDeviceCode:
		return s.tokenDeviceCode(r, form)
	case "":
		return nil, errInvalidRequest("grant_type", "no grant_type")
	default:
		return nil, &pure.Error{Code: pure.CodeUnsupportedGrantType, Field: "grant_type", Msg: fmt.Sprintf("%q: %s or %s", gt, pure.GrantJWTBearer, pure.GrantDeviceCode)}
	}
}

// tokenJWTBearer is the jwt-bearer grant (RFC 7523): resource the
// endpoint, a DPoP proof (the token is bound to its key), the client
// authenticated, and the grant assertion's sub the node's EIP-55 address.
// The token carries the client's grants in force bound to the same key,
// possibly none (the resource then answers authorization_required).
func (s *Server) tokenJWTBearer(r *http.Request, form map[string]string) (any, error) {
	if err := s.checkResource(form, true); err != nil {
		return nil, err
	}
	assertion := form["assertion"]
	if assertion == "" || len(assertion) > maxAssertionBytes {
		return nil, errInvalidRequest("assertion", "a jwt-bearer grant names one assertion")
	}
	proof, err := s.checkDPoP(r, "")
	if err != nil {
		return nil, err
	}
	c, err := s.authClient(r.Context(), form)
	if err != nil {
		return nil, err
	}
	if _, err := pure.VerifyGrantAssertion(assertion, s.assertionRequest(c), s.b.Address().String(), s.auth.replay); err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	var grants []Grant
	for _, g := range s.store.Grants(c.ID) {
		if g.Active(now) && g.DPoPJKT == proof.JKT && g.Resource == s.endpoint {
			grants = append(grants, g)
		}
	}
	return s.tokenAnswer(c.ID, proof.JKT, grants, "")
}

// tokenAnswer issues the token of grants and writes the answer.
func (s *Server) tokenAnswer(clientID, jkt string, grants []Grant, relationship string) (*tokenResponse, error) {
	tok, exp, err := s.issueToken(clientID, jkt, grants)
	if err != nil {
		return nil, err
	}
	resp := &tokenResponse{AccessToken: tok, TokenType: "DPoP", ExpiresIn: exp, RelationshipID: relationship}
	for _, g := range grants {
		resp.AuthorizationDetails = append(resp.AuthorizationDetails, g.Details...)
	}
	return resp, nil
}
