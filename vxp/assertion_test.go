package vxp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

type assertionVectors struct {
	Now           int64           `json:"now"`
	Issuer        string          `json:"issuer"`
	TokenEndpoint string          `json:"token_endpoint"`
	ClientID      string          `json:"client_id"`
	Subject       string          `json:"subject"`
	JWKS          json.RawMessage `json:"jwks"`
	Cases         []struct {
		Name      string `json:"name"`
		Kind      string `json:"kind"`
		Assertion string `json:"assertion"`
		KID       string `json:"kid"`
		Code      string `json:"code"`
		Reason    string `json:"reason"`
	} `json:"cases"`
}

func (v assertionVectors) request(t *testing.T) AssertionRequest {
	t.Helper()
	keys, err := ParseJWKS(v.JWKS)
	if err != nil {
		t.Fatal(err)
	}
	return AssertionRequest{ClientID: v.ClientID, Keys: keys, Issuer: v.Issuer, TokenEndpoint: v.TokenEndpoint, Now: time.Unix(v.Now, 0)}
}

// verify runs the verifier of kind ("client" or "grant").
func (v assertionVectors) verify(kind, assertion string, req AssertionRequest, cache ReplayCache) (Assertion, error) {
	if kind == "grant" {
		return VerifyGrantAssertion(assertion, req, v.Subject, cache)
	}
	return VerifyClientAssertion(assertion, req, cache)
}

// TestAssertionVectors verifies every client assertion (oauth4webapi's
// PrivateKeyJwt and jose) and grant assertion (jose): valid ones pass
// once and are refused as a replay the second time, tampered ones fail
// with invalid_client or invalid_grant and their rule.
func TestAssertionVectors(t *testing.T) {
	var v assertionVectors
	readVectors(t, "assertions.json", &v)
	if len(v.Cases) < 30 {
		t.Fatalf("only %d cases", len(v.Cases))
	}
	req := v.request(t)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			cache := NewMemoryReplayCache(4)
			a, err := v.verify(c.Kind, c.Assertion, req, cache)
			wantAuthError(t, err, Code(c.Code), c.Reason)
			if c.Code != "" {
				if cache.Len() != 0 {
					t.Fatal("a refused assertion used its jti")
				}
				return
			}
			want := v.ClientID
			if c.Kind == "grant" {
				want = v.Subject
			}
			if a.Subject != want || a.Issuer != v.ClientID || a.KeyID != c.KID || a.JTI == "" {
				t.Fatalf("assertion %+v", a)
			}
			code := CodeInvalidClient
			if c.Kind == "grant" {
				code = CodeInvalidGrant
			}
			_, err = v.verify(c.Kind, c.Assertion, req, cache)
			wantAuthError(t, err, code, "replay")
		})
	}
}

// TestAssertionKinds: a client assertion is not a grant and the other
// way round (sub differs), and their jti values are single use apart.
func TestAssertionKinds(t *testing.T) {
	var v assertionVectors
	readVectors(t, "assertions.json", &v)
	req := v.request(t)
	find := func(name string) string {
		for _, c := range v.Cases {
			if c.Name == name {
				return c.Assertion
			}
		}
		t.Fatalf("no vector %s", name)
		return ""
	}
	cache := NewMemoryReplayCache(8)
	_, err := VerifyGrantAssertion(find("grant_valid"), req, v.Subject, cache)
	wantAuthError(t, err, "", "")
	_, err = VerifyClientAssertion(find("grant_valid"), req, cache)
	wantAuthError(t, err, CodeInvalidClient, "sub")
	_, err = VerifyClientAssertion(find("jose_valid"), req, cache)
	wantAuthError(t, err, "", "")
	_, err = VerifyGrantAssertion(find("jose_valid"), req, v.Subject, cache)
	wantAuthError(t, err, CodeInvalidGrant, "sub")

	// Another client with the same key set: iss differs.
	other := req
	other.ClientID = "https://other.example/agent.json"
	_, err = VerifyClientAssertion(find("o4w_private_key_jwt"), other, cache)
	wantAuthError(t, err, CodeInvalidClient, "iss")
	other.ClientID = ""
	_, err = VerifyClientAssertion(find("o4w_private_key_jwt"), other, cache)
	wantAuthError(t, err, CodeInvalidClient, "iss")

	// No keys at all: nothing can verify.
	nokeys := req
	nokeys.Keys = nil
	_, err = VerifyClientAssertion(find("no_kid_second_key"), nokeys, cache)
	wantAuthError(t, err, CodeInvalidClient, "kid")

	for _, bad := range []string{"", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae", "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeZ"} {
		if _, err := VerifyGrantAssertion(find("grant_valid"), req, bad, cache); !errors.Is(err, ErrBadSubject) {
			t.Errorf("subject %q: err = %v", bad, err)
		}
	}
}

// TestAssertionWindow checks the lifetime bounds set by the caller, with
// assertions signed in Go.
func TestAssertionWindow(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := Thumbprint(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1800000000, 0)
	const cid = "https://agent.example/agent.json"
	req := AssertionRequest{ClientID: cid, Issuer: "https://node.example/vxp", TokenEndpoint: "https://node.example/vxp/oauth/token",
		Keys: []PublicKey{{Key: &key.PublicKey, KeyID: "k", Thumbprint: tp}}, Now: now}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k"))
	if err != nil {
		t.Fatal(err)
	}
	sign := func(mod func(map[string]any)) string {
		c := map[string]any{"iss": cid, "sub": cid, "aud": req.Issuer, "exp": now.Add(time.Minute).Unix(), "jti": "j"}
		mod(c)
		b, _ := json.Marshal(c)
		obj, err := s.Sign(b)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := obj.CompactSerialize()
		return out
	}
	for _, c := range []struct {
		name   string
		mod    func(map[string]any)
		req    func(*AssertionRequest)
		reason string
	}{
		{"valid", func(map[string]any) {}, nil, ""},
		{"exp just inside skew", func(c map[string]any) { c["exp"] = now.Add(-DefaultAssertionSkew + time.Second).Unix() }, nil, ""},
		{"exp at skew", func(c map[string]any) { c["exp"] = now.Add(-DefaultAssertionSkew).Unix() }, nil, "expired"},
		{"exp beyond MaxLifetime", func(c map[string]any) { c["exp"] = now.Add(61 * time.Second).Unix() },
			func(r *AssertionRequest) { r.MaxLifetime = 30 * time.Second; r.Skew = 30 * time.Second }, "exp_too_far"},
		{"exp within MaxLifetime", func(c map[string]any) { c["exp"] = now.Add(time.Hour).Unix() },
			func(r *AssertionRequest) { r.MaxLifetime = 2 * time.Hour }, ""},
		{"exp string", func(c map[string]any) { c["exp"] = "soon" }, nil, "malformed"},
		{"exp infinite-ish", func(c map[string]any) { c["exp"] = 1e300 }, nil, "expired"},
		{"nbf garbage", func(c map[string]any) { c["nbf"] = -5 }, nil, "nbf"},
		{"duplicate claim", nil, nil, "malformed"},
		{"jti empty", func(c map[string]any) { c["jti"] = "" }, nil, "jti"},
		{"aud number", func(c map[string]any) { c["aud"] = 1 }, nil, "aud"},
		{"no client id, no iss, no sub", func(c map[string]any) { c["iss"] = ""; c["sub"] = "" }, func(r *AssertionRequest) { r.ClientID = "" }, "iss"},
		{"aud empty equals empty endpoint", func(c map[string]any) { c["aud"] = "" }, func(r *AssertionRequest) { r.TokenEndpoint = "" }, "aud"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := req
			if c.req != nil {
				c.req(&r)
			}
			var a string
			if c.mod == nil {
				// A payload naming exp twice, signed: strictjson refuses it.
				payload := []byte(`{"iss":"` + cid + `","sub":"` + cid + `","aud":"` + req.Issuer + `","exp":1800000060,"exp":1800000060,"jti":"j"}`)
				obj, err := s.Sign(payload)
				if err != nil {
					t.Fatal(err)
				}
				a, _ = obj.CompactSerialize()
			} else {
				a = sign(c.mod)
			}
			_, err := VerifyClientAssertion(a, r, NewMemoryReplayCache(2))
			if c.reason == "" {
				wantAuthError(t, err, "", "")
				return
			}
			wantAuthError(t, err, CodeInvalidClient, c.reason)
		})
	}
}

// TestAssertionReplayApart: the client assertion and the grant of one
// request may carry the same jti; each is single use on its own.
func TestAssertionReplayApart(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1800000000, 0)
	const cid = "https://agent.example/agent.json"
	const subject = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	req := AssertionRequest{ClientID: cid, Issuer: "https://node.example/vxp", Keys: []PublicKey{{Key: &key.PublicKey}}, Now: now}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(sub string) string {
		b, _ := json.Marshal(map[string]any{"iss": cid, "sub": sub, "aud": req.Issuer, "exp": now.Add(time.Minute).Unix(), "jti": "same"})
		obj, err := s.Sign(b)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := obj.CompactSerialize()
		return out
	}
	cache := NewMemoryReplayCache(4)
	if _, err := VerifyClientAssertion(sign(cid), req, cache); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyGrantAssertion(sign(subject), req, subject, cache); err != nil {
		t.Fatal(err)
	}
	_, err = VerifyGrantAssertion(sign(subject), req, subject, cache)
	wantAuthError(t, err, CodeInvalidGrant, "replay")
}

// FuzzVerifyAssertion: every refusal is an *AuthError, and an accepted
// assertion names the client as its issuer.
func FuzzVerifyAssertion(f *testing.F) {
	var v assertionVectors
	raw, err := os.ReadFile(filepath.Join("testdata", "auth", "assertions.json"))
	if err != nil || json.Unmarshal(raw, &v) != nil {
		f.Fatal("no vectors")
	}
	keys, err := ParseJWKS(v.JWKS)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range v.Cases {
		f.Add(c.Assertion, c.Kind == "grant")
	}
	req := AssertionRequest{ClientID: v.ClientID, Keys: keys, Issuer: v.Issuer, TokenEndpoint: v.TokenEndpoint, Now: time.Unix(v.Now, 0)}
	f.Fuzz(func(t *testing.T, assertion string, grant bool) {
		kind := "client"
		if grant {
			kind = "grant"
		}
		a, err := v.verify(kind, assertion, req, NewMemoryReplayCache(1))
		if err != nil {
			var ae *AuthError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, not an AuthError", err)
			}
			return
		}
		if a.Issuer != v.ClientID {
			t.Fatalf("accepted %+v", a)
		}
	})
}
