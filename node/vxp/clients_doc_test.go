package vxp

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/parleynet/parley/node"
	pure "github.com/parleynet/parley/vxp"
)

// TestClientDocuments: every rule of fetching a Client ID Metadata
// Document, one row each, through the token endpoint's client
// authentication and the fetch itself.
func TestClientDocuments(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	type row struct {
		name  string
		path  string                              // the document's path on the document server
		id    func(base string) string            // the client_id (default base+path)
		serve func(a *authAgent) http.HandlerFunc // nil: the agent's document
		meta  bool                                // refused as invalid_client_metadata inside invalid_client
		msg   string                              // in the refusal's message, when set
		ok    bool
	}
	jsonOf := func(v any) http.HandlerFunc {
		b, _ := json.Marshal(v)
		return func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(b) }
	}
	doc := func(a *authAgent, edit func(d map[string]any)) http.HandlerFunc {
		d := a.document()
		edit(d)
		return jsonOf(d)
	}
	rows := []row{
		{name: "good", path: "/good.json", ok: true},
		{name: "without client_name", path: "/noname.json", serve: func(a *authAgent) http.HandlerFunc {
			return doc(a, func(d map[string]any) { delete(d, "client_name") })
		}, ok: true},
		{name: "jwks_uri", path: "/uri.json", serve: func(a *authAgent) http.HandlerFunc {
			e.docs.serveJSON("/uri.jwks", a.jwks())
			return doc(a, func(d map[string]any) { delete(d, "jwks"); d["jwks_uri"] = e.docs.URL + "/uri.jwks" })
		}, ok: true},
		{name: "redirect", path: "/redirect.json", serve: func(a *authAgent) http.HandlerFunc {
			e.docs.handle("/target.json", doc(a, func(map[string]any) {}))
			return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/target.json", http.StatusFound) }
		}, meta: true, msg: "redirects are not followed"},
		{name: "jwks_uri redirect", path: "/uriredirect.json", serve: func(a *authAgent) http.HandlerFunc {
			e.docs.serveJSON("/real.jwks", a.jwks())
			e.docs.handle("/moved.jwks", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/real.jwks", http.StatusMovedPermanently)
			})
			return doc(a, func(d map[string]any) { delete(d, "jwks"); d["jwks_uri"] = e.docs.URL + "/moved.jwks" })
		}, meta: true},
		{name: "too big", path: "/big.json", serve: func(a *authAgent) http.HandlerFunc {
			return doc(a, func(d map[string]any) { d["padding"] = strings.Repeat("x", MaxClientDocument) })
		}, meta: true, msg: "over 65536 bytes"},
		{name: "too big without length", path: "/bigchunked.json", serve: func(a *authAgent) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.(http.Flusher).Flush()
				_, _ = w.Write([]byte(`{"client_id":"` + a.id + `","pad":"`))
				for range MaxClientDocument / 1024 {
					_, _ = w.Write([]byte(strings.Repeat("x", 1024)))
				}
				_, _ = w.Write([]byte(`"}`))
			}
		}, meta: true, msg: "over 65536 bytes"},
		{name: "client_id mismatch", path: "/mismatch.json", serve: func(a *authAgent) http.HandlerFunc {
			return doc(a, func(d map[string]any) { d["client_id"] = a.id + "/" })
		}, meta: true},
		{name: "client_id missing", path: "/noid.json", serve: func(a *authAgent) http.HandlerFunc {
			return doc(a, func(d map[string]any) { delete(d, "client_id") })
		}, meta: true},
		{name: "duplicate member", path: "/dup.json", serve: func(a *authAgent) http.HandlerFunc {
			b, _ := json.Marshal(a.document())
			dup := `{"client_id":"` + e.docs.URL + `/other.json",` + string(b[1:])
			return func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(dup)) }
		}, meta: true},
		{name: "not JSON", path: "/notjson.json", serve: func(a *authAgent) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>")) }
		}, meta: true},
		{name: "404", path: "/missing.json", serve: func(a *authAgent) http.HandlerFunc { return nil }, meta: true},
		{name: "neither jwks nor jwks_uri", path: "/nokeys.json", serve: func(a *authAgent) http.HandlerFunc {
			return doc(a, func(d map[string]any) { delete(d, "jwks") })
		}, meta: true},
		{name: "both jwks and jwks_uri", path: "/both.json", serve: func(a *authAgent) http.HandlerFunc {
			return doc(a, func(d map[string]any) { d["jwks_uri"] = e.docs.URL + "/x.jwks" })
		}, meta: true},
		{name: "jwks with a private key", path: "/private.json", serve: func(a *authAgent) http.HandlerFunc {
			return doc(a, func(d map[string]any) {
				d["jwks"] = jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: a.key, KeyID: "k1"}}}
			})
		}, meta: true},
		{name: "auth method other", path: "/secret.json", serve: func(a *authAgent) http.HandlerFunc {
			return doc(a, func(d map[string]any) { d["token_endpoint_auth_method"] = "client_secret_post" })
		}, meta: true},
		{name: "jwks_uri http on another host", path: "/farjwks.json", serve: func(a *authAgent) http.HandlerFunc {
			return doc(a, func(d map[string]any) { delete(d, "jwks"); d["jwks_uri"] = "http://example.com/k.jwks" })
		}, meta: true},
		{name: "client_id http not on loopback", path: "/x.json", id: func(string) string { return "http://example.com/agent.json" }},
		{name: "client_id without path", path: "/", id: func(base string) string { return base }},
		{name: "client_id with fragment", path: "/frag.json", id: func(base string) string { return base + "/frag.json#a" }},
		{name: "client_id with a dot segment", path: "/dot.json", id: func(base string) string { return base + "/a/../dot.json" }},
		{name: "client_id with user", path: "/user.json", id: func(base string) string { return strings.Replace(base, "://", "://u@", 1) + "/user.json" }},
		{name: "client_id over 255 bytes", path: "/long", id: func(base string) string { return base + "/" + strings.Repeat("a", 256) }},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			id := e.docs.URL + r.path
			if r.id != nil {
				id = r.id(e.docs.URL)
			}
			a := newAuthAgent(t, id)
			h := doc(a, func(map[string]any) {})
			if r.serve != nil {
				h = r.serve(a)
			}
			if h != nil {
				e.docs.handle(r.path, h)
			}
			ans := e.post(e.s.md.TokenEndpoint, e.bearerForm(a), e.tokenProof(a))
			if r.ok {
				if ans.status != 200 {
					t.Fatalf("got %d %s", ans.status, ans.raw)
				}
				return
			}
			wantOAuth(t, ans, 401, pure.CodeInvalidClient)
			_, err := e.s.client(t.Context(), id)
			var pe *pure.Error
			isMeta := errors.As(err, &pe) && pe.Code == pure.CodeBadClientMetadata
			if authCode(err) != pure.CodeInvalidClient || isMeta != r.meta || !strings.Contains(err.Error(), r.msg) {
				t.Fatalf("client(): %v (metadata %v, want %v; want %q)", err, isMeta, r.meta, r.msg)
			}
		})
	}
}

// TestClientDocumentCache: a document is fetched once while cached, again
// after the cache's lifetime; a refused one is not cached.
func TestClientDocumentCache(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	a := e.agent
	for range 3 {
		e.jwtBearer(a)
	}
	if n := e.docs.hitsOf("/agent.json"); n != 1 {
		t.Fatalf("fetched %d times, want 1", n)
	}
	e.clock.Add(clientCacheTTL)
	e.jwtBearer(a)
	if n := e.docs.hitsOf("/agent.json"); n != 2 {
		t.Fatalf("after the cache's lifetime: fetched %d times, want 2", n)
	}
	cc := newClientCache(2, time.Minute)
	now := time.Now()
	for _, id := range []string{"a", "b", "c"} {
		cc.put(&agentClient{ID: id}, now)
		now = now.Add(time.Second)
	}
	if _, ok := cc.get("a", now); ok || cc.len() != 2 {
		t.Fatalf("the oldest was kept: %d entries", cc.len())
	}
}

// TestClientURLRules: https only, http on loopback only with
// AllowInsecureLoopback.
func TestClientURLRules(t *testing.T) {
	strict := &Server{cfg: Config{AllowInsecureLoopback: false}}
	loose := &Server{cfg: Config{AllowInsecureLoopback: true}}
	rows := []struct {
		id            string
		strict, loose bool
	}{
		{"https://agent.example/agent.json", true, true},
		{"http://127.0.0.1:8080/agent.json", false, true},
		{"http://localhost/agent.json", false, true},
		{"http://[::1]/agent.json", false, true},
		{"http://agent.example/agent.json", false, false},
		{"ftp://agent.example/agent.json", false, false},
		{"agent.json", false, false},
		{"https://agent.example", false, false},
		{"https://agent.example/a.json#x", false, false},
		{"https://agent.example/./a.json", false, false},
	}
	for _, r := range rows {
		if got := strict.checkClientURL(r.id) == nil; got != r.strict {
			t.Errorf("%s without loopback: %v, want %v", r.id, got, r.strict)
		}
		if got := loose.checkClientURL(r.id) == nil; got != r.loose {
			t.Errorf("%s with loopback: %v, want %v", r.id, got, r.loose)
		}
	}
}
