package vxp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

type dpopVectors struct {
	Now   int64 `json:"now"`
	Cases []struct {
		Name        string `json:"name"`
		Proof       string `json:"proof"`
		Method      string `json:"method"`
		URL         string `json:"url"`
		AccessToken string `json:"access_token"`
		Nonce       string `json:"nonce"`
		JKT         string `json:"jkt"`
		Code        string `json:"code"`
		Reason      string `json:"reason"`
	} `json:"cases"`
}

// wantAuthError fails unless err is an *AuthError of code and reason
// (code "" means no error).
func wantAuthError(t *testing.T, err error, code Code, reason string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	var ae *AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want %s/%s", err, code, reason)
	}
	if ae.Code != code || ae.Reason != reason || ae.ErrorCode() != string(code) || ae.Class() != "unauthorized" {
		t.Fatalf("err = %v, want %s/%s", err, code, reason)
	}
}

// TestDPoPVectors verifies every proof jose and oauth4webapi made: the
// valid ones give jose's thumbprint and are refused the second time
// (replay), the tampered ones fail with their code and rule.
func TestDPoPVectors(t *testing.T) {
	var v dpopVectors
	readVectors(t, "dpop.json", &v)
	if len(v.Cases) < 30 {
		t.Fatalf("only %d cases", len(v.Cases))
	}
	now := time.Unix(v.Now, 0)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			cache := NewMemoryReplayCache(16)
			req := DPoPRequest{Method: c.Method, URL: c.URL, Now: now, AccessToken: c.AccessToken, Nonce: c.Nonce}
			p, err := VerifyDPoP(c.Proof, req, cache)
			wantAuthError(t, err, Code(c.Code), c.Reason)
			if c.Code != "" {
				if cache.Len() != 0 {
					t.Fatal("a refused proof used its jti")
				}
				return
			}
			if p.JKT != c.JKT || p.Key.Thumbprint != c.JKT || p.JTI == "" || !p.IssuedAt.After(now.Add(-DefaultDPoPMaxAge-time.Second)) {
				t.Fatalf("proof %+v, want jkt %s", p, c.JKT)
			}
			_, err = VerifyDPoP(c.Proof, req, cache)
			wantAuthError(t, err, CodeInvalidDPoPProof, "replay")
			if !errors.Is(err, ErrReplayed) {
				t.Fatalf("err = %v, want ErrReplayed", err)
			}
			// Once its window has passed the proof is refused for its
			// iat, not let through by a forgotten jti.
			late := req
			late.Now = now.Add(DefaultDPoPMaxAge + DefaultDPoPSkew + time.Second)
			_, err = VerifyDPoP(c.Proof, late, cache)
			wantAuthError(t, err, CodeInvalidDPoPProof, "iat")
		})
	}
}

// goProof signs a DPoP proof in Go, for the rules the vectors do not
// reach (window bounds set by the caller, boundaries).
func goProof(t *testing.T, key *ecdsa.PrivateKey, header map[jose.HeaderKey]any, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("dpop+jwt").WithHeader("jwk", jose.JSONWebKey{Key: &key.PublicKey})
	for k, v := range header {
		opts = opts.WithHeader(k, v)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDPoPRules(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1800000000, 0)
	const url = "https://node.example/vxp/v1/requests"
	claims := func(mod func(map[string]any)) map[string]any {
		c := map[string]any{"jti": "j1", "htm": "GET", "htu": url, "iat": now.Unix()}
		if mod != nil {
			mod(c)
		}
		return c
	}
	base := DPoPRequest{Method: "GET", URL: url, Now: now}
	for _, c := range []struct {
		name   string
		claims map[string]any
		req    func(*DPoPRequest)
		code   Code
		reason string
	}{
		{"valid", claims(nil), nil, "", ""},
		{"iat at skew", claims(func(c map[string]any) { c["iat"] = now.Add(DefaultDPoPSkew).Unix() }), nil, "", ""},
		{"iat fractional", claims(func(c map[string]any) { c["iat"] = float64(now.Unix()) + 0.5 }), nil, "", ""},
		{"iat older than MaxAge", claims(func(c map[string]any) { c["iat"] = now.Add(-11 * time.Second).Unix() }),
			func(r *DPoPRequest) { r.MaxAge = 10 * time.Second }, CodeInvalidDPoPProof, "iat"},
		{"iat ahead of Skew", claims(func(c map[string]any) { c["iat"] = now.Add(2 * time.Second).Unix() }),
			func(r *DPoPRequest) { r.Skew = time.Second }, CodeInvalidDPoPProof, "iat"},
		{"iat negative", claims(func(c map[string]any) { c["iat"] = -1 }), func(r *DPoPRequest) { r.Now = time.Unix(0, 0) }, CodeInvalidDPoPProof, "iat"},
		{"nonce matches", claims(func(c map[string]any) { c["nonce"] = "n1" }), func(r *DPoPRequest) { r.Nonce = "n1" }, "", ""},
		{"nonce not demanded", claims(func(c map[string]any) { c["nonce"] = "n1" }), nil, "", ""},
		{"nonce demanded", claims(nil), func(r *DPoPRequest) { r.Nonce = "n1" }, CodeUseDPoPNonce, "nonce"},
		{"ath without token at token endpoint", claims(func(c map[string]any) { c["ath"] = "x" }), nil, "", ""},
		{"ath wrong", claims(func(c map[string]any) { c["ath"] = "x" }), func(r *DPoPRequest) { r.AccessToken = "t" }, CodeInvalidDPoPProof, "ath"},
		{"htu query ignored", claims(func(c map[string]any) { c["htu"] = url + "?a=b" }), func(r *DPoPRequest) { r.URL = url + "?c=d#e" }, "", ""},
		{"htu default port", claims(func(c map[string]any) { c["htu"] = "https://node.example:443/vxp/v1/requests" }), nil, "", ""},
		{"htu http default port", claims(func(c map[string]any) { c["htu"] = "http://127.0.0.1:80/vxp/v1/requests" }),
			func(r *DPoPRequest) { r.URL = "http://127.0.0.1/vxp/v1/requests" }, "", ""},
		{"htu userinfo", claims(func(c map[string]any) { c["htu"] = "https://a@node.example/vxp/v1/requests" }), nil, CodeInvalidDPoPProof, "htu"},
		{"htu path case", claims(func(c map[string]any) { c["htu"] = "https://node.example/VXP/v1/requests" }), nil, CodeInvalidDPoPProof, "htu"},
		{"htu not a string", claims(func(c map[string]any) { c["htu"] = 1 }), nil, CodeInvalidDPoPProof, "malformed"},
		{"request URL unusable", claims(nil), func(r *DPoPRequest) { r.URL = "ftp://node.example/x" }, CodeInvalidDPoPProof, "htu"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := base
			if c.req != nil {
				c.req(&req)
			}
			_, err := VerifyDPoP(goProof(t, key, nil, c.claims), req, NewMemoryReplayCache(4))
			wantAuthError(t, err, c.code, c.reason)
		})
	}
}

// TestDPoPReplayPerKey: a jti is single use per proof key; another key
// may use the same jti, and a refusal leaves the jti unused.
func TestDPoPReplayPerKey(t *testing.T) {
	now := time.Unix(1800000000, 0)
	const url = "https://node.example/vxp/oauth/token"
	cache := NewMemoryReplayCache(8)
	claims := map[string]any{"jti": "same", "htm": "POST", "htu": url, "iat": now.Unix()}
	req := DPoPRequest{Method: "POST", URL: url, Now: now}
	var jkts []string
	for i := range 2 {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		proof := goProof(t, key, nil, claims)
		// Refused for the nonce first: the jti stays unused.
		withNonce := req
		withNonce.Nonce = "n"
		_, err = VerifyDPoP(proof, withNonce, cache)
		wantAuthError(t, err, CodeUseDPoPNonce, "nonce")
		p, err := VerifyDPoP(proof, req, cache)
		if err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
		jkts = append(jkts, p.JKT)
		_, err = VerifyDPoP(proof, req, cache)
		wantAuthError(t, err, CodeInvalidDPoPProof, "replay")
	}
	if jkts[0] == jkts[1] {
		t.Fatal("two keys, one thumbprint")
	}
}

func TestDPoPReplayCacheFull(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1800000000, 0)
	const url = "https://node.example/vxp/oauth/token"
	cache := NewMemoryReplayCache(1)
	req := DPoPRequest{Method: "POST", URL: url, Now: now}
	for i, want := range []error{nil, ErrReplayCacheFull} {
		_, err := VerifyDPoP(goProof(t, key, nil, map[string]any{"jti": fmt.Sprint(i), "htm": "POST", "htu": url, "iat": now.Unix()}), req, cache)
		if !errors.Is(err, want) {
			t.Fatalf("proof %d: err = %v, want %v", i, err, want)
		}
	}
}

func TestMemoryReplayCache(t *testing.T) {
	now := time.Unix(1800000000, 0)
	c := NewMemoryReplayCache(2)
	steps := []struct {
		key     string
		expires time.Time
		now     time.Time
		want    error
	}{
		{"a", now.Add(time.Minute), now, nil},
		{"a", now.Add(time.Minute), now.Add(59 * time.Second), ErrReplayed},
		{"b", now.Add(2 * time.Minute), now, nil},
		{"c", now.Add(time.Minute), now, ErrReplayCacheFull},                      // full of live keys: refuse, never forget
		{"c", now.Add(2 * time.Minute), now.Add(time.Minute), nil},                // a expired: swept for room
		{"a", now.Add(3 * time.Minute), now.Add(time.Minute), ErrReplayCacheFull}, // b and c live
		{"b", now.Add(3 * time.Minute), now.Add(2 * time.Minute), nil},            // b expired: reusable
	}
	for i, s := range steps {
		if err := c.Use(s.key, s.expires, s.now); !errors.Is(err, s.want) {
			t.Fatalf("step %d (%s): err = %v, want %v", i, s.key, err, s.want)
		}
	}
	if n := NewMemoryReplayCache(0); n.max != 1 {
		t.Fatalf("limit 0 gives max %d", n.max)
	}
}

func TestNormaliseHTU(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://node.example/vxp/oauth/token", "https://node.example/vxp/oauth/token"},
		{"HTTPS://NODE.example:443/vxp/oauth/token?q#f", "https://node.example/vxp/oauth/token"},
		{"http://node.example:80", "http://node.example/"},
		{"http://node.example:443/", "http://node.example:443/"},
		{"https://[::1]:8443/x", "https://[::1]:8443/x"},
		{"https://[::1]:443/x", "https://[::1]/x"},
		{"https://node.example/a%2Fb", "https://node.example/a%2Fb"},
		{"wss://node.example/", ""},
		{"/relative", ""},
		{"https:opaque", ""},
		{"https://u:p@node.example/", ""},
		{"https://node.example/%zz", ""},
	} {
		got, err := normaliseHTU(c.in)
		if (err != nil) != (c.want == "") || got != c.want {
			t.Errorf("normaliseHTU(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// FuzzVerifyDPoP: every refusal is an *AuthError, and an accepted proof
// names the thumbprint of its key.
func FuzzVerifyDPoP(f *testing.F) {
	var v dpopVectors
	raw, err := os.ReadFile(filepath.Join("testdata", "auth", "dpop.json"))
	if err == nil && json.Unmarshal(raw, &v) == nil {
		for _, c := range v.Cases {
			f.Add(c.Proof, c.Method, c.URL, c.AccessToken, c.Nonce)
		}
	}
	f.Fuzz(func(t *testing.T, proof, method, url, token, nonce string) {
		req := DPoPRequest{Method: method, URL: url, AccessToken: token, Nonce: nonce, Now: time.Unix(v.Now, 0)}
		p, err := VerifyDPoP(proof, req, NewMemoryReplayCache(1))
		if err != nil {
			var ae *AuthError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, not an AuthError", err)
			}
			return
		}
		if p.JKT == "" || p.JKT != p.Key.Thumbprint {
			t.Fatalf("accepted proof %+v", p)
		}
	})
}
