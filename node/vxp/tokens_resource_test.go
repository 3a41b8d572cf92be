package vxp

import (
	"crypto/ecdsa"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/parleynet/parley/node"
	pure "github.com/parleynet/parley/vxp"
)

// TestAuthenticate: every rule of a resource call's DPoP-bound token,
// one row each, and the 401 answer writeAuthError gives.
func TestAuthenticate(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	a := e.agent
	dev := e.device(a, detailsJSON(capDetail("offer.respond", authNID)))
	tok := e.pollUntil(a, dev.str("device_code"))
	at := tok.str("access_token")
	if at == "" {
		t.Fatalf("token: %s", tok.raw)
	}
	path := "/vxp/v1/requests"
	// sign re-signs edited claims of at with the issuer's key (or another).
	sign := func(key *ecdsa.PrivateKey, typ string, edit func(c map[string]any)) string {
		obj, err := jose.ParseSignedCompact(at, []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatal(err)
		}
		var c map[string]any
		_ = json.Unmarshal(obj.UnsafePayloadWithoutVerification(), &c)
		edit(c)
		return authSignJWT(t, key, e.s.auth.key.kid, typ, false, c)
	}
	issuerKey := e.s.auth.key.priv
	other := newAuthAgent(t, a.id)
	type row struct {
		name   string
		req    func() *http.Request
		code   pure.Code // "" for a caller
		reason string
	}
	rows := []row{
		{name: "good", req: func() *http.Request { return e.resourceRequest("POST", path, "DPoP", at, a.dpop, nil) }},
		{name: "scheme in lower case", req: func() *http.Request { return e.resourceRequest("POST", path, "dpop", at, a.dpop, nil) }},
		{name: "no Authorization", req: func() *http.Request { return e.resourceRequest("POST", path, "", "", a.dpop, nil) },
			code: pure.CodeInvalidToken, reason: reasonNoToken},
		{name: "DPoP token sent as Bearer", req: func() *http.Request { return e.resourceRequest("POST", path, "Bearer", at, a.dpop, nil) },
			code: pure.CodeInvalidToken, reason: "bearer"},
		{name: "DPoP token sent as Bearer without proof", req: func() *http.Request { return e.resourceRequest("POST", path, "Bearer", at, nil, nil) },
			code: pure.CodeInvalidToken, reason: "bearer"},
		{name: "Basic", req: func() *http.Request { return e.resourceRequest("POST", path, "Basic", at, a.dpop, nil) },
			code: pure.CodeInvalidToken, reason: "scheme"},
		{name: "Authorization twice", req: func() *http.Request {
			r := e.resourceRequest("POST", path, "DPoP", at, a.dpop, nil)
			r.Header.Add("Authorization", "DPoP "+at)
			return r
		}, code: pure.CodeInvalidToken, reason: "authorization_repeated"},
		{name: "no DPoP proof", req: func() *http.Request { return e.resourceRequest("POST", path, "DPoP", at, nil, nil) },
			code: pure.CodeInvalidDPoPProof, reason: "missing"},
		{name: "two DPoP proofs", req: func() *http.Request {
			r := e.resourceRequest("POST", path, "DPoP", at, a.dpop, nil)
			r.Header.Add("DPoP", r.Header.Get("DPoP"))
			return r
		}, code: pure.CodeInvalidDPoPProof, reason: "repeated"},
		{name: "proof of another key", req: func() *http.Request { return e.resourceRequest("POST", path, "DPoP", at, other.dpop, nil) },
			code: pure.CodeInvalidDPoPProof, reason: "jkt"},
		{name: "ath of another token", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", at, a.dpop, func(c map[string]any) { c["ath"] = "bm90IHRoZSB0b2tlbiBoYXNo" })
		}, code: pure.CodeInvalidDPoPProof, reason: "ath"},
		{name: "ath missing", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", at, a.dpop, func(c map[string]any) { delete(c, "ath") })
		}, code: pure.CodeInvalidDPoPProof, reason: "ath"},
		{name: "htu another path", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", at, a.dpop, func(c map[string]any) { c["htu"] = e.url + "/vxp/v1/other" })
		}, code: pure.CodeInvalidDPoPProof, reason: "htu"},
		{name: "htm another", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", at, a.dpop, func(c map[string]any) { c["htm"] = "GET" })
		}, code: pure.CodeInvalidDPoPProof, reason: "htm"},
		{name: "nonce missing", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", at, a.dpop, func(c map[string]any) { delete(c, "nonce") })
		}, code: pure.CodeUseDPoPNonce},
		{name: "nonce stale", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", at, a.dpop, func(c map[string]any) {
				c["nonce"] = e.s.auth.nonces.current(e.clock.Now().Add(-2 * NonceWindow))
			})
		}, code: pure.CodeUseDPoPNonce},
		{name: "token tampered", req: func() *http.Request {
			parts := strings.Split(at, ".")
			bad := parts[0] + "." + parts[1] + "x." + parts[2]
			return e.resourceRequest("POST", path, "DPoP", bad, a.dpop, nil)
		}, code: pure.CodeInvalidToken},
		{name: "token signed by another key", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", sign(other.key, TypAccessToken, func(map[string]any) {}), a.dpop, nil)
		}, code: pure.CodeInvalidToken, reason: "signature"},
		{name: "typ other", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", sign(issuerKey, "JWT", func(map[string]any) {}), a.dpop, nil)
		}, code: pure.CodeInvalidToken, reason: "typ"},
		{name: "aud other", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", sign(issuerKey, TypAccessToken, func(c map[string]any) { c["aud"] = e.s.issuer }), a.dpop, nil)
		}, code: pure.CodeInvalidToken, reason: "aud"},
		{name: "iss other", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", sign(issuerKey, TypAccessToken, func(c map[string]any) { c["iss"] = "https://x.example/vxp" }), a.dpop, nil)
		}, code: pure.CodeInvalidToken, reason: "iss"},
		{name: "grant unknown", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", sign(issuerKey, TypAccessToken, func(c map[string]any) { c["grants"] = []string{"grt_nope"} }), a.dpop, nil)
		}, code: pure.CodeInvalidToken, reason: "grant_unknown"},
		{name: "grant of another key", req: func() *http.Request {
			tp, _ := pure.Thumbprint(&other.dpop.PublicKey)
			tk := sign(issuerKey, TypAccessToken, func(c map[string]any) { c["cnf"] = map[string]any{"jkt": tp} })
			return e.resourceRequest("POST", path, "DPoP", tk, other.dpop, nil)
		}, code: pure.CodeInvalidToken, reason: "grant_mismatch"},
		{name: "token expired", req: func() *http.Request {
			return e.resourceRequest("POST", path, "DPoP", sign(issuerKey, TypAccessToken, func(c map[string]any) { c["exp"] = e.clock.Now().Unix() }), a.dpop, nil)
		}, code: pure.CodeInvalidToken, reason: "expired"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			c, err := e.s.authenticate(r.req())
			if r.code == "" {
				if err != nil || len(c.Grants) != 1 || c.ClientID != a.id || c.JKT != e.jkt(a) {
					t.Fatalf("caller %+v, %v", c, err)
				}
				return
			}
			if authCode(err) != r.code {
				t.Fatalf("err %v, want %s", err, r.code)
			}
			var ae *pure.AuthError
			if r.reason != "" && (!asAuthError(err, &ae) || ae.Reason != r.reason) {
				t.Fatalf("err %v, want reason %s", err, r.reason)
			}
			w := &authRecorder{h: http.Header{}}
			e.s.writeAuthError(w, err)
			www := w.h.Get("WWW-Authenticate")
			if w.status != 401 || !strings.HasPrefix(www, "DPoP ") || w.h.Get("DPoP-Nonce") != e.nonce() {
				t.Fatalf("authAnswer %d %v", w.status, w.h)
			}
			if r.reason == reasonNoToken {
				if strings.Contains(www, "error=") {
					t.Fatalf("no credentials answered with an error: %s", www)
				}
			} else if !strings.Contains(www, `error="`+string(r.code)+`"`) {
				t.Fatalf("WWW-Authenticate %s", www)
			}
			var body apiError
			if json.Unmarshal(w.body, &body) != nil || body.Error.Code != string(r.code) {
				t.Fatalf("body %s", w.body)
			}
		})
	}
	// The grant expiring refuses the token at once.
	e.clock.Add(DefaultGrantTTL)
	if _, err := e.s.authenticate(e.resourceRequest("POST", path, "DPoP", at, a.dpop, nil)); authCode(err) != pure.CodeInvalidToken {
		t.Fatalf("after the grant expired: %v", err)
	}
}

func asAuthError(err error, ae **pure.AuthError) bool {
	c, ok := err.(*pure.AuthError)
	if ok {
		*ae = c
	}
	return ok
}

// TestAuthenticateProofReplay: a proof is used once.
func TestAuthenticateProofReplay(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	at := e.jwtBearer(e.agent).str("access_token")
	r := e.resourceRequest("GET", "/vxp/v1/requests", "DPoP", at, e.agent.dpop, nil)
	if _, err := e.s.authenticate(r); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.authenticate(r); authCode(err) != pure.CodeInvalidDPoPProof {
		t.Fatalf("replayed proof: %v", err)
	}
}

// TestTokenAcrossRestart: a token survives a restart of the server (the
// key is the file's, the grants the ledger's); the nonce does not.
func TestTokenAcrossRestart(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	a := e.agent
	tok := e.pollUntil(a, e.device(a, detailsJSON(capDetail("offer.respond", authNID))).str("device_code"))
	at := tok.str("access_token")
	s2, err := New(e.n, e.s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s2.Close() })
	path := "/vxp/v1/requests"
	old := e.resourceRequest("GET", path, "DPoP", at, a.dpop, nil)
	if _, err := s2.authenticate(old); authCode(err) != pure.CodeUseDPoPNonce {
		t.Fatalf("the old server's nonce after a restart: %v", err)
	}
	r := e.resourceRequest("GET", path, "DPoP", at, nil, nil)
	r.Header.Set("DPoP", authProof(t, a.dpop, "GET", e.url+path, s2.auth.nonces.current(e.clock.Now()), at, e.clock.Now(), nil))
	c, err := s2.authenticate(r)
	if err != nil || len(c.Grants) != 1 {
		t.Fatalf("after a restart: %+v %v", c, err)
	}
}
