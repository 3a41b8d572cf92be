package vxp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	pure "github.com/parleynet/parley/vxp"
)

// The harness of the issuer's tests: a real node (keys, Badger, libp2p on
// loopback, no chain), its VXP server on a loopback test listener, a
// loopback server of agents' Client ID Metadata Documents, a clock the
// test moves, and agents whose keys and proofs are made here with go-jose.

// authClock is a clock the test moves.
type authClock struct {
	mu sync.Mutex
	t  time.Time
}

func newAuthClock() *authClock { return &authClock{t: time.Now().Truncate(time.Second)} }

func (c *authClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *authClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// authDocServer serves agents' documents by path; a handler may be replaced.
type authDocServer struct {
	*httptest.Server
	mu    sync.Mutex
	paths map[string]http.HandlerFunc
	hits  map[string]int
}

func newAuthDocServer(t *testing.T) *authDocServer {
	d := &authDocServer{paths: map[string]http.HandlerFunc{}, hits: map[string]int{}}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		h := d.paths[r.URL.Path]
		d.hits[r.URL.Path]++
		d.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(d.Close)
	return d
}

func (d *authDocServer) handle(path string, h http.HandlerFunc) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paths[path] = h
}

// serveJSON serves v at path.
func (d *authDocServer) serveJSON(path string, v any) {
	b, _ := json.Marshal(v)
	d.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})
}

func (d *authDocServer) hitsOf(path string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hits[path]
}

// authAgent is an outside agent: its client_id, its client key (kid k1)
// and its DPoP key.
type authAgent struct {
	id   string
	key  *ecdsa.PrivateKey
	dpop *ecdsa.PrivateKey
	mu   sync.Mutex
	n    int
}

func newAuthAgent(t *testing.T, id string) *authAgent {
	return &authAgent{id: id, key: authP256(t), dpop: authP256(t)}
}

func authP256(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (a *authAgent) jti() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	return fmt.Sprintf("jti-%d-%d", a.n, time.Now().UnixNano())
}

// jwks is the agent's public JWK Set.
func (a *authAgent) jwks() jose.JSONWebKeySet {
	return jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &a.key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}}
}

// document is the agent's Client ID Metadata Document.
func (a *authAgent) document() map[string]any {
	return map[string]any{"client_id": a.id, "client_name": "Test agent", "jwks": a.jwks(), "token_endpoint_auth_method": "private_key_jwt"}
}

// authSignJWT signs claims with key (kid when not empty; the public jwk in
// the header when embed) under typ.
func authSignJWT(t testing.TB, key *ecdsa.PrivateKey, kid, typ string, embed bool, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{EmbedJWK: embed}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	sk := jose.SigningKey{Algorithm: jose.ES256, Key: key}
	if kid != "" {
		sk.Key = jose.JSONWebKey{Key: key, KeyID: kid}
	}
	signer, err := jose.NewSigner(sk, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := signer.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// assertion returns a client assertion (sub the agent) or a grant
// assertion (sub given) for aud at now, edited.
func (a *authAgent) assertion(t testing.TB, sub, aud string, now time.Time, edit func(map[string]any)) string {
	c := map[string]any{"iss": a.id, "sub": sub, "aud": aud, "exp": now.Add(time.Minute).Unix(), "iat": now.Unix(), "jti": a.jti()}
	if edit != nil {
		edit(c)
	}
	return authSignJWT(t, a.key, "k1", "", false, c)
}

// authProof returns a DPoP proof of key for method and u at now with nonce
// and the ath of token (when not empty), edited.
func authProof(t testing.TB, key *ecdsa.PrivateKey, method, u, nonce, token string, now time.Time, edit func(map[string]any)) string {
	c := map[string]any{"jti": fmt.Sprintf("p-%d-%s", time.Now().UnixNano(), authRandHex(t)), "htm": method, "htu": u, "iat": now.Unix()}
	if nonce != "" {
		c["nonce"] = nonce
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		c["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if edit != nil {
		edit(c)
	}
	return authSignJWT(t, key, "", "dpop+jwt", true, c)
}

func authRandHex(t testing.TB) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", b)
}

// authEnv is a node with its VXP server and one agent whose document is
// served.
type authEnv struct {
	t     *testing.T
	n     *node.Node
	s     *Server
	url   string
	clock *authClock
	docs  *authDocServer
	agent *authAgent
}

type authEnvOpts struct {
	gate node.Gate // nil: the principal's passkeys decide
	edit func(*Config)
}

// authDecider is an explicit gate the test decides: true approves, false
// denies.
type authDecider struct{ ch chan bool }

func newAuthDecider() *authDecider { return &authDecider{ch: make(chan bool, 4)} }

func (d *authDecider) gate() node.Gate {
	return node.GateFunc(func(ctx context.Context, req node.ApprovalRequest) (node.Decision, error) {
		select {
		case ok := <-d.ch:
			return node.Decision{Approved: ok, Method: "test", By: "vxp test"}, nil
		case <-ctx.Done():
			return node.Decision{}, ctx.Err()
		}
	})
}

func newAuthEnv(t *testing.T, o authEnvOpts) *authEnv {
	t.Helper()
	var opts []node.Option
	if o.gate != nil {
		opts = append(opts, node.WithGate(o.gate))
	}
	n := nodetest.New(t, "vxp", nil, opts...)
	return startAuthEnv(t, n, o)
}

func startAuthEnv(t *testing.T, n *node.Node, o authEnvOpts) *authEnv {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &authEnv{t: t, n: n, url: "http://" + ln.Addr().String(), clock: newAuthClock(), docs: newAuthDocServer(t)}
	cfg := Config{
		PublicURL: e.url, AllowInsecureLoopback: true, Organization: "Test org",
		WebURL: "http://127.0.0.1:9/web", DataDir: n.Config().DataDir,
		Logger: nodetest.Logger(t, "vxp/auth"), Now: e.clock.Now,
	}
	if o.edit != nil {
		o.edit(&cfg)
	}
	s, err := New(n, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.s = s
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s}}
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		_ = s.Close()
	})
	e.agent = newAuthAgent(t, e.docs.URL+"/agent.json")
	e.docs.serveJSON("/agent.json", e.agent.document())
	return e
}

// nonce is the server's current DPoP nonce.
func (e *authEnv) nonce() string { return e.s.auth.nonces.current(e.clock.Now()) }

// sub is the node's subject.
func (e *authEnv) sub() string { return e.n.Address().String() }

// authAnswer is an HTTP answer.
type authAnswer struct {
	status int
	h      http.Header
	raw    []byte
	body   map[string]any
}

func (a authAnswer) str(k string) string { s, _ := a.body[k].(string); return s }

// do sends req through the loopback listener.
func (e *authEnv) do(req *http.Request) authAnswer {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := authAnswer{status: resp.StatusCode, h: resp.Header, raw: raw}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// post POSTs form to u with the DPoP proof (none when "").
func (e *authEnv) post(u string, form url.Values, dpop string) authAnswer {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if dpop != "" {
		req.Header.Set("DPoP", dpop)
	}
	return e.do(req)
}

// clientAuth adds a's private_key_jwt to form.
func (e *authEnv) clientAuth(a *authAgent, form url.Values) url.Values {
	form.Set("client_id", a.id)
	form.Set("client_assertion_type", ClientAssertionType)
	form.Set("client_assertion", a.assertion(e.t, a.id, e.s.issuer, e.clock.Now(), nil))
	return form
}

// bearerForm is a's jwt-bearer token request.
func (e *authEnv) bearerForm(a *authAgent) url.Values {
	f := url.Values{"grant_type": {pure.GrantJWTBearer}, "resource": {e.s.endpoint}}
	f.Set("assertion", a.assertion(e.t, e.sub(), e.s.md.TokenEndpoint, e.clock.Now(), nil))
	return e.clientAuth(a, f)
}

// tokenProof is a proof of a's DPoP key for the token endpoint.
func (e *authEnv) tokenProof(a *authAgent) string {
	return authProof(e.t, a.dpop, "POST", e.s.md.TokenEndpoint, e.nonce(), "", e.clock.Now(), nil)
}

// jwtBearer gets a's token by jwt-bearer; it fails the test unless 200.
func (e *authEnv) jwtBearer(a *authAgent) authAnswer {
	e.t.Helper()
	ans := e.post(e.s.md.TokenEndpoint, e.bearerForm(a), e.tokenProof(a))
	if ans.status != http.StatusOK {
		e.t.Fatalf("jwt-bearer: %d %s", ans.status, ans.raw)
	}
	return ans
}

// capDetail is one capability detail.
func capDetail(op, nid string) map[string]any {
	d := map[string]any{"type": pure.CapabilityType, "actions": []string{op}}
	if nid != "" {
		d["identifier"] = nid
	}
	return d
}

func detailsJSON(ds ...any) string {
	b, _ := json.Marshal(ds)
	return string(b)
}

// device starts a's device authorization for details.
func (e *authEnv) device(a *authAgent, details string) authAnswer {
	e.t.Helper()
	f := url.Values{"resource": {e.s.endpoint}, "authorization_details": {details}}
	f = e.clientAuth(a, f)
	p := authProof(e.t, a.dpop, "POST", e.s.md.DeviceAuthorizationEndpoint, e.nonce(), "", e.clock.Now(), nil)
	return e.post(e.s.md.DeviceAuthorizationEndpoint, f, p)
}

// pollDevice polls the token endpoint for device code dc.
func (e *authEnv) pollDevice(a *authAgent, dc string) authAnswer {
	e.t.Helper()
	f := url.Values{"grant_type": {pure.GrantDeviceCode}, "device_code": {dc}}
	f = e.clientAuth(a, f)
	return e.post(e.s.md.TokenEndpoint, f, e.tokenProof(a))
}

// resourceRequest is a resource call at path with token and a proof of
// key (edited).
func (e *authEnv) resourceRequest(method, path, scheme, token string, key *ecdsa.PrivateKey, edit func(map[string]any)) *http.Request {
	r := httptest.NewRequest(method, e.url+path, nil)
	if token != "" {
		r.Header.Set("Authorization", scheme+" "+token)
	}
	if key != nil {
		r.Header.Set("DPoP", authProof(e.t, key, method, e.url+path, e.nonce(), token, e.clock.Now(), edit))
	}
	return r
}

// wantOAuth fails unless ans is status with RFC 6749 error code.
func wantOAuth(t *testing.T, ans authAnswer, status int, code pure.Code) {
	t.Helper()
	if ans.status != status || ans.str("error") != string(code) {
		t.Fatalf("got %d %s, want %d %s", ans.status, ans.raw, status, code)
	}
}

// authCode returns the code of an authentication refusal.
func authCode(err error) pure.Code {
	c, _ := refusal(err)
	return c
}
