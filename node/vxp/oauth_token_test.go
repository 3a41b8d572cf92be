package vxp

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/parleynet/parley/node"
	pure "github.com/parleynet/parley/vxp"
)

func TestAuthDiscoveryAndJWKS(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	get := func(path, host string) authAnswer {
		req, _ := http.NewRequest(http.MethodGet, e.url+path, nil)
		if host != "" {
			req.Host = host
		}
		return e.do(req)
	}
	doc := get(pure.DocumentPath, "")
	if doc.status != 200 || doc.str("issuer") != e.s.issuer || doc.str("endpoint") != e.s.endpoint {
		t.Fatalf("vxp.json: %d %s", doc.status, doc.raw)
	}
	if strings.Contains(string(doc.raw), "keys") || strings.Contains(string(doc.raw), "jwks") {
		t.Fatalf("vxp.json carries keys: %s", doc.raw)
	}
	md := get("/.well-known/oauth-authorization-server/vxp", "")
	if md.status != 200 || md.str("issuer") != e.s.issuer || md.str("jwks_uri") != e.s.issuer+pure.JWKSPath ||
		md.str("token_endpoint") != e.s.issuer+pure.TokenPath || md.str("device_authorization_endpoint") != e.s.issuer+pure.DevicePath {
		t.Fatalf("metadata: %d %s", md.status, md.raw)
	}
	if wrong := get(pure.DocumentPath, "evil.example"); wrong.status != 400 || !strings.Contains(string(wrong.raw), "wrong_host") {
		t.Fatalf("wrong Host: %d %s", wrong.status, wrong.raw)
	}
	if wrong := get(pure.JWKSPath, "evil.example"); wrong.status != 400 {
		t.Fatalf("wrong Host at jwks: %d", wrong.status)
	}

	ks := get("/vxp"+pure.JWKSPath, "")
	if ks.status != 200 || ks.h.Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("jwks: %d %s", ks.status, ks.raw)
	}
	keys, err := pure.ParseJWKS(ks.raw)
	if err != nil || len(keys) != 1 {
		t.Fatalf("jwks keys: %v %v", keys, err)
	}
	if keys[0].KeyID != keys[0].Thumbprint || keys[0].KeyID != e.s.auth.key.kid {
		t.Fatalf("kid %q is not the thumbprint %q", keys[0].KeyID, keys[0].Thumbprint)
	}
	var set struct {
		Keys         []map[string]any      `json:"keys"`
		Attestations []node.KeyAttestation `json:"parley_attestations"`
	}
	if err := json.Unmarshal(ks.raw, &set); err != nil {
		t.Fatal(err)
	}
	if set.Keys[0]["use"] != "sig" || set.Keys[0]["alg"] != "ES256" || set.Keys[0]["d"] != nil {
		t.Fatalf("jwk: %v", set.Keys[0])
	}
	if len(set.Attestations) != 1 {
		t.Fatalf("attestations: %v", set.Attestations)
	}
	att := set.Attestations[0]
	if att.Purpose != IssuerKeyPurpose || att.Thumbprint != keys[0].Thumbprint || att.Address != e.n.Address() {
		t.Fatalf("attestation: %+v", att)
	}
	msg, err := att.SigningBytes()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := hex.DecodeString(strings.TrimPrefix(att.Signature, "0x"))
	if err != nil || !ed25519.Verify(e.n.Link().InboxKey, msg, sig) {
		t.Fatalf("the attestation does not verify with the link's inbox key")
	}

	// signJWS: {alg ES256, kid, typ}, verified with the served key.
	jws, err := e.s.signJWS(TypProof, []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := jose.ParseSignedCompact(jws, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	h := obj.Signatures[0].Protected
	if h.KeyID != keys[0].KeyID || h.ExtraHeaders[jose.HeaderType] != TypProof {
		t.Fatalf("header: %+v", h)
	}
	if p, err := obj.Verify(keys[0].Key); err != nil || string(p) != `{"a":1}` {
		t.Fatalf("verify: %v %s", err, p)
	}
	if b, err := e.s.IssuerJWKS(); err != nil || string(b) != string(ks.raw) {
		t.Fatalf("IssuerJWKS: %v", err)
	}
}

// TestTokenJWTBearer: every rule of the jwt-bearer token request, one
// row each.
func TestTokenJWTBearer(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	a := e.agent
	tokenURL := e.s.md.TokenEndpoint
	now := e.clock.Now
	other := newAuthAgent(t, a.id) // same client_id, keys not in the document
	replayedClient := a.assertion(t, a.id, e.s.issuer, now(), nil)
	replayedGrant := a.assertion(t, e.sub(), e.s.issuer, now(), nil)
	type row struct {
		name   string
		form   func(f url.Values)
		proof  func() string // nil: a good proof
		status int
		code   pure.Code
		reason string
	}
	rows := []row{
		{name: "good", status: 200},
		{name: "grant aud the issuer", form: func(f url.Values) {
			f.Set("assertion", a.assertion(t, e.sub(), e.s.issuer, now(), nil))
		}, status: 200},
		{name: "client aud the token endpoint", form: func(f url.Values) {
			f.Set("client_assertion", a.assertion(t, a.id, tokenURL, now(), nil))
		}, status: 200},
		{name: "client_id left out: the assertion's iss", form: func(f url.Values) { f.Del("client_id") }, status: 200},
		{name: "grant signed by another key", form: func(f url.Values) {
			f.Set("assertion", other.assertion(t, e.sub(), tokenURL, now(), nil))
		}, status: 400, code: pure.CodeInvalidGrant, reason: "signature"},
		{name: "client assertion signed by another key", form: func(f url.Values) {
			f.Set("client_assertion", other.assertion(t, a.id, tokenURL, now(), nil))
		}, status: 401, code: pure.CodeInvalidClient, reason: "signature"},
		{name: "grant aud another", form: func(f url.Values) {
			f.Set("assertion", a.assertion(t, e.sub(), "https://other.example/vxp", now(), nil))
		}, status: 400, code: pure.CodeInvalidGrant, reason: "aud"},
		{name: "client aud the endpoint", form: func(f url.Values) {
			f.Set("client_assertion", a.assertion(t, a.id, e.s.endpoint, now(), nil))
		}, status: 401, code: pure.CodeInvalidClient, reason: "aud"},
		{name: "grant sub not the node", form: func(f url.Values) {
			f.Set("assertion", a.assertion(t, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", tokenURL, now(), nil))
		}, status: 400, code: pure.CodeInvalidGrant, reason: "sub"},
		{name: "grant sub in lower case", form: func(f url.Values) {
			f.Set("assertion", a.assertion(t, strings.ToLower(e.sub()), tokenURL, now(), nil))
		}, status: 400, code: pure.CodeInvalidGrant, reason: "sub"},
		{name: "grant expired", form: func(f url.Values) {
			f.Set("assertion", a.assertion(t, e.sub(), tokenURL, now(), func(c map[string]any) { c["exp"] = now().Add(-time.Minute).Unix() }))
		}, status: 400, code: pure.CodeInvalidGrant, reason: "expired"},
		{name: "client assertion replayed", form: func(f url.Values) { f.Set("client_assertion", replayedClient) },
			status: 401, code: pure.CodeInvalidClient, reason: "replay"},
		{name: "grant assertion replayed", form: func(f url.Values) { f.Set("assertion", replayedGrant) },
			status: 400, code: pure.CodeInvalidGrant, reason: "replay"},
		{name: "resource another", form: func(f url.Values) { f.Set("resource", e.s.issuer) }, status: 400, code: pure.CodeInvalidTarget},
		{name: "resource missing", form: func(f url.Values) { f.Del("resource") }, status: 400, code: pure.CodeInvalidTarget},
		{name: "assertion missing", form: func(f url.Values) { f.Del("assertion") }, status: 400, code: pure.CodeInvalidRequest},
		{name: "member repeated", form: func(f url.Values) { f.Add("resource", e.s.endpoint) }, status: 400, code: pure.CodeInvalidRequest},
		{name: "grant type unsupported", form: func(f url.Values) { f.Set("grant_type", "client_credentials") }, status: 400, code: pure.CodeUnsupportedGrantType},
		{name: "grant type missing", form: func(f url.Values) { f.Del("grant_type") }, status: 400, code: pure.CodeInvalidRequest},
		{name: "client_assertion_type other", form: func(f url.Values) { f.Set("client_assertion_type", "urn:x") }, status: 401, code: pure.CodeInvalidClient, reason: "client_assertion_type"},
		{name: "client_assertion missing", form: func(f url.Values) { f.Del("client_assertion") }, status: 401, code: pure.CodeInvalidClient},
		{name: "client_id another than iss", form: func(f url.Values) { f.Set("client_id", e.docs.URL+"/nobody.json") }, status: 401, code: pure.CodeInvalidClient},
		{name: "dpop missing", proof: func() string { return "" }, status: 400, code: pure.CodeInvalidDPoPProof, reason: "missing"},
		{name: "dpop htu another path", proof: func() string {
			return authProof(t, a.dpop, "POST", e.s.md.DeviceAuthorizationEndpoint, e.nonce(), "", now(), nil)
		}, status: 400, code: pure.CodeInvalidDPoPProof, reason: "htu"},
		{name: "dpop htm GET", proof: func() string { return authProof(t, a.dpop, "GET", tokenURL, e.nonce(), "", now(), nil) },
			status: 400, code: pure.CodeInvalidDPoPProof, reason: "htm"},
		{name: "dpop iat old", proof: func() string {
			return authProof(t, a.dpop, "POST", tokenURL, e.nonce(), "", now().Add(-10*time.Minute), nil)
		}, status: 400, code: pure.CodeInvalidDPoPProof, reason: "iat"},
		{name: "dpop nonce missing", proof: func() string { return authProof(t, a.dpop, "POST", tokenURL, "", "", now(), nil) },
			status: 400, code: pure.CodeUseDPoPNonce},
		{name: "dpop nonce another", proof: func() string { return authProof(t, a.dpop, "POST", tokenURL, "bm9uY2U", "", now(), nil) },
			status: 400, code: pure.CodeUseDPoPNonce},
		{name: "dpop nonce stale (two windows ago)", proof: func() string {
			return authProof(t, a.dpop, "POST", tokenURL, e.s.auth.nonces.current(now().Add(-2*NonceWindow)), "", now(), nil)
		}, status: 400, code: pure.CodeUseDPoPNonce},
		{name: "dpop nonce of the previous window", proof: func() string {
			return authProof(t, a.dpop, "POST", tokenURL, e.s.auth.nonces.current(now().Add(-NonceWindow)), "", now(), nil)
		}, status: 200},
	}
	// The replayed assertions are used once first.
	if ans := e.post(tokenURL, func() url.Values {
		f := e.bearerForm(a)
		f.Set("client_assertion", replayedClient)
		f.Set("assertion", replayedGrant)
		return f
	}(), e.tokenProof(a)); ans.status != 200 {
		t.Fatalf("first use: %d %s", ans.status, ans.raw)
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			f := e.bearerForm(a)
			if r.form != nil {
				r.form(f)
			}
			p := e.tokenProof(a)
			if r.proof != nil {
				p = r.proof()
			}
			ans := e.post(tokenURL, f, p)
			if ans.h.Get("DPoP-Nonce") != e.nonce() {
				t.Fatalf("DPoP-Nonce %q, want %q", ans.h.Get("DPoP-Nonce"), e.nonce())
			}
			if r.status == 200 {
				if ans.status != 200 || ans.str("token_type") != "DPoP" || ans.str("access_token") == "" || ans.body["expires_in"] != float64(DefaultTokenTTL/time.Second) {
					t.Fatalf("got %d %s", ans.status, ans.raw)
				}
				if ans.h.Get("Cache-Control") != "no-store" {
					t.Fatalf("Cache-Control %q", ans.h.Get("Cache-Control"))
				}
				return
			}
			wantOAuth(t, ans, r.status, r.code)
			if r.reason != "" && !strings.Contains(ans.str("error_description"), ": "+r.reason) {
				t.Fatalf("description %q, want reason %s", ans.str("error_description"), r.reason)
			}
		})
	}
}

// TestTokenNonceFlow: a client that knows no nonce is told one and
// retries with it (RFC 9449 section 8), as oauth4webapi does.
func TestTokenNonceFlow(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	a := e.agent
	tokenURL := e.s.md.TokenEndpoint
	first := e.post(tokenURL, e.bearerForm(a), authProof(t, a.dpop, "POST", tokenURL, "", "", e.clock.Now(), nil))
	wantOAuth(t, first, 400, pure.CodeUseDPoPNonce)
	n := first.h.Get("DPoP-Nonce")
	if n == "" {
		t.Fatal("no DPoP-Nonce on use_dpop_nonce")
	}
	second := e.post(tokenURL, e.bearerForm(a), authProof(t, a.dpop, "POST", tokenURL, n, "", e.clock.Now(), nil))
	if second.status != 200 {
		t.Fatalf("retry with the nonce: %d %s", second.status, second.raw)
	}
	// Two windows later the nonce is stale; the answer names the new one.
	e.clock.Add(2 * NonceWindow)
	third := e.post(tokenURL, e.bearerForm(a), authProof(t, a.dpop, "POST", tokenURL, n, "", e.clock.Now(), nil))
	wantOAuth(t, third, 400, pure.CodeUseDPoPNonce)
	if third.h.Get("DPoP-Nonce") == n || third.h.Get("DPoP-Nonce") == "" {
		t.Fatalf("stale nonce answered with %q", third.h.Get("DPoP-Nonce"))
	}
}

// TestTokenRateLimit: the token and device endpoints answer 429
// rate_limited over vxp's calls per minute from one address.
func TestTokenRateLimit(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test"), edit: func(c *Config) { c.RatePerMinute = 3 }})
	for i := range 3 {
		if ans := e.post(e.s.md.TokenEndpoint, url.Values{"grant_type": {"x"}}, ""); ans.status != 400 {
			t.Fatalf("call %d: %d", i, ans.status)
		}
	}
	wantOAuth(t, e.post(e.s.md.TokenEndpoint, url.Values{"grant_type": {"x"}}, ""), 429, pure.CodeRateLimited)
	wantOAuth(t, e.post(e.s.md.DeviceAuthorizationEndpoint, url.Values{}, ""), 429, pure.CodeRateLimited)
	// A minute later the bucket holds three again.
	e.clock.Add(time.Minute)
	if ans := e.post(e.s.md.TokenEndpoint, url.Values{"grant_type": {"x"}}, ""); ans.status != 400 {
		t.Fatalf("after a minute: %d", ans.status)
	}
}

// TestTokenForm: the body's form and size.
func TestTokenForm(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	req, _ := http.NewRequest(http.MethodPost, e.s.md.TokenEndpoint, strings.NewReader(`{"grant_type":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	wantOAuth(t, e.do(req), 400, pure.CodeInvalidRequest)
	big := url.Values{"grant_type": {pure.GrantJWTBearer}, "pad": {strings.Repeat("a", DefaultMaxBody)}}
	wantOAuth(t, e.post(e.s.md.TokenEndpoint, big, ""), 400, pure.CodeBodyTooLarge)
}
