package vxp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	pure "github.com/parleynet/parley/vxp"
)

// The checked-in vectors of vxp/testdata/auth (npm jose and oauth4webapi)
// sent through the token endpoint of a server whose public URL is theirs,
// https://node.example, at their time.

type authVectorFile struct {
	Now      int64           `json:"now"`
	ClientID string          `json:"client_id"`
	JWKS     json.RawMessage `json:"jwks"`
	Cases    []struct {
		Name      string `json:"name"`
		Kind      string `json:"kind"`
		Method    string `json:"method"`
		URL       string `json:"url"`
		Proof     string `json:"proof"`
		Assertion string `json:"assertion"`
		Token     string `json:"access_token"`
		Code      string `json:"code"`
		Reason    string `json:"reason"`
	} `json:"cases"`
}

func readAuthVectors(t *testing.T, name string) authVectorFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "vxp", "testdata", "auth", name))
	if err != nil {
		t.Fatal(err)
	}
	var v authVectorFile
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// authDocTransport answers GETs of one URL with a body.
type authDocTransport struct {
	url  string
	body []byte
}

func (d authDocTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.String() != d.url {
		return &http.Response{StatusCode: 404, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(d.body)), ContentLength: int64(len(d.body)), Request: r}, nil
}

// authVectorServer is a started server of n at https://node.example whose
// clock is now and whose agent https://agent.example/agent.json has the
// vectors' keys.
func authVectorServer(t *testing.T, n *node.Node, v authVectorFile, now time.Time) *Server {
	t.Helper()
	doc, _ := json.Marshal(map[string]any{"client_id": "https://agent.example/agent.json", "jwks": v.JWKS})
	s, err := New(n, Config{
		PublicURL: "https://node.example", DataDir: n.Config().DataDir,
		Now:        func() time.Time { return now },
		HTTPClient: &http.Client{Transport: authDocTransport{url: "https://agent.example/agent.json", body: doc}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// authServeForm posts form to the server's path (with DPoP proof) through
// ServeHTTP, as reached at Host node.example.
func authServeForm(s *Server, target string, form url.Values, proof string) authAnswer {
	r := httptest.NewRequest("POST", target, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if proof != "" {
		r.Header.Set("DPoP", proof)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	a := authAnswer{status: w.Code, h: w.Header(), raw: w.Body.Bytes()}
	_ = json.Unmarshal(a.raw, &a.body)
	return a
}

// TestAuthVectorsDPoP: every token-endpoint DPoP vector: the refused ones
// refused with their code and reason, the good ones told to use the
// server's nonce (none of them carries it) with a DPoP-Nonce.
func TestAuthVectorsDPoP(t *testing.T) {
	v := readAuthVectors(t, "dpop.json")
	n := nodetest.New(t, "vectors", nil, node.WithGate(node.AutoApprove("test")))
	s := authVectorServer(t, n, v, time.Unix(v.Now, 0))
	form := url.Values{"grant_type": {pure.GrantJWTBearer}, "resource": {"https://node.example/vxp/v1"}, "assertion": {"x"}}
	ran := 0
	for _, c := range v.Cases {
		u, _ := url.Parse(c.URL)
		if u.Path != "/vxp"+pure.TokenPath || c.Method != "POST" {
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			ans := authServeForm(s, c.URL, form, c.Proof)
			code, reason := c.Code, c.Reason
			if code == "" {
				code, reason = string(pure.CodeUseDPoPNonce), "nonce"
			}
			if ans.status != 400 || ans.str("error") != code || !strings.Contains(ans.str("error_description"), ": "+reason) {
				t.Fatalf("got %d %s, want %s (%s)", ans.status, ans.raw, code, reason)
			}
			if ans.h.Get("DPoP-Nonce") == "" {
				t.Fatal("no DPoP-Nonce")
			}
		})
	}
	if ran < 20 {
		t.Fatalf("only %d vectors ran", ran)
	}
}

// TestAuthVectorsAssertions: every client assertion vector authenticates
// the client or is refused with its code and reason at the token
// endpoint; every grant assertion vector is refused invalid_grant (their
// subject is not this node's address). A fresh server per vector: some
// share a jti.
func TestAuthVectorsAssertions(t *testing.T) {
	v := readAuthVectors(t, "assertions.json")
	n := nodetest.New(t, "vectors", nil, node.WithGate(node.AutoApprove("test")))
	now := time.Unix(v.Now, 0)
	var goodClient, goodGrant string
	for _, c := range v.Cases {
		switch c.Name {
		case "o4w_private_key_jwt":
			goodClient = c.Assertion
		case "grant_valid":
			goodGrant = c.Assertion
		}
	}
	dpop := authP256(t)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			s := authVectorServer(t, n, v, now)
			tokenURL := "https://node.example/vxp/oauth/token"
			form := url.Values{
				"grant_type": {pure.GrantJWTBearer}, "resource": {"https://node.example/vxp/v1"},
				"client_assertion_type": {ClientAssertionType}, "client_id": {v.ClientID},
				"client_assertion": {goodClient}, "assertion": {goodGrant},
			}
			if c.Kind == "client" {
				form.Set("client_assertion", c.Assertion)
			} else {
				form.Set("assertion", c.Assertion)
			}
			proof := authProof(t, dpop, "POST", tokenURL, s.auth.nonces.current(now), "", now, nil)
			ans := authServeForm(s, tokenURL, form, proof)
			switch {
			case c.Kind == "client" && c.Code != "":
				if ans.str("error") != c.Code || !strings.Contains(ans.str("error_description"), ": "+c.Reason) {
					t.Fatalf("got %d %s, want %s (%s)", ans.status, ans.raw, c.Code, c.Reason)
				}
			case c.Kind == "client":
				// The client is authenticated; the grant's sub is not this
				// node's.
				if ans.str("error") != string(pure.CodeInvalidGrant) || !strings.Contains(ans.str("error_description"), ": sub") {
					t.Fatalf("got %d %s, want invalid_grant (sub)", ans.status, ans.raw)
				}
			default:
				if ans.str("error") != string(pure.CodeInvalidGrant) {
					t.Fatalf("got %d %s, want invalid_grant", ans.status, ans.raw)
				}
			}
		})
	}
}
