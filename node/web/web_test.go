package web_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/web"
)

// req describes one request to the pages; the zero value of a field means
// what the pages' own script would send.
type req struct {
	method, path, body string
	host               string // default: the site's host
	origin             string // default: the site's origin; "-" sends none
	contentType        string // default for POST: application/json
	fetchSite          string // Sec-Fetch-Site, if set
}

// call serves r and returns the recorded answer.
func (s *site) call(t *testing.T, r req) *httptest.ResponseRecorder {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	hr := httptest.NewRequestWithContext(t.Context(), r.method, r.path, strings.NewReader(r.body))
	u, _ := url.Parse(s.origin)
	hr.Host = u.Host
	if r.host != "" {
		hr.Host = r.host
	}
	if r.method == http.MethodPost {
		switch r.origin {
		case "":
			hr.Header.Set("Origin", s.origin)
		case "-":
		default:
			hr.Header.Set("Origin", r.origin)
		}
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		hr.Header.Set("Content-Type", ct)
	}
	if r.fetchSite != "" {
		hr.Header.Set("Sec-Fetch-Site", r.fetchSite)
	}
	w := httptest.NewRecorder()
	s.pages.ServeHTTP(w, hr)
	return w
}

// post sends body as JSON to path and decodes the answer into out (if not
// nil); it returns the status.
func (s *site) post(t *testing.T, path string, body any, out any) int {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	w := s.call(t, req{method: http.MethodPost, path: path, body: string(b)})
	if out != nil {
		if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
			t.Fatalf("POST %s: %d %q: %v", path, w.Code, w.Body.String(), err)
		}
	}
	return w.Code
}

// refusal is the body of a refused JSON call.
type refusal struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"requestId"`
	Session   string `json:"session"`
}

func decodeRefusal(t *testing.T, w *httptest.ResponseRecorder) refusal {
	t.Helper()
	var r refusal
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
		t.Fatalf("a refusal that is not JSON: %d %q", w.Code, w.Body.String())
	}
	return r
}

// TestHostAndOrigin: every request must name the pages' host (DNS
// rebinding), a loopback address on their port is sent to localhost, and
// a POST must come from the pages themselves, as JSON (CSRF): a form, a
// cross-site page, a request without Origin and a cross-site fetch are
// refused before any handler runs.
func TestHostAndOrigin(t *testing.T) {
	s := newSite(t, nodeSpec{name: "principal", web: true})
	u, _ := url.Parse(s.origin)
	const deny = "/api/approvals/req_0123/deny"
	for _, tc := range []struct {
		name   string
		r      req
		status int
		code   string
	}{
		{"the pages' host", req{path: "/"}, http.StatusOK, ""},
		{"another host", req{path: "/", host: "evil.example:" + u.Port()}, http.StatusMisdirectedRequest, "host_refused"},
		{"localhost on another port", req{path: "/", host: "localhost:1"}, http.StatusMisdirectedRequest, "host_refused"},
		{"no host", req{path: "/", host: " "}, http.StatusMisdirectedRequest, "host_refused"},
		{"a loopback address on the port", req{path: "/audit?x=1", host: "127.0.0.1:" + u.Port()}, http.StatusPermanentRedirect, ""},
		{"the IPv6 loopback on the port", req{path: "/", host: "[::1]:" + u.Port()}, http.StatusPermanentRedirect, ""},
		{"a loopback address on another port", req{path: "/", host: "127.0.0.1:1"}, http.StatusMisdirectedRequest, "host_refused"},
		{"a POST to a loopback address", req{method: http.MethodPost, path: deny, body: `{}`, host: "127.0.0.1:" + u.Port()}, http.StatusMisdirectedRequest, "host_refused"},
		{"a POST from the pages", req{method: http.MethodPost, path: deny, body: `{}`}, http.StatusNotFound, "unknown_request"},
		{"a POST without Origin", req{method: http.MethodPost, path: deny, body: `{}`, origin: "-"}, http.StatusForbidden, "origin_refused"},
		{"a POST from another origin", req{method: http.MethodPost, path: deny, body: `{}`, origin: "http://evil.example"}, http.StatusForbidden, "origin_refused"},
		{"a POST from another port", req{method: http.MethodPost, path: deny, body: `{}`, origin: "http://localhost:1"}, http.StatusForbidden, "origin_refused"},
		{"a POST from a null origin", req{method: http.MethodPost, path: deny, body: `{}`, origin: "null"}, http.StatusForbidden, "origin_refused"},
		{"a cross-site fetch", req{method: http.MethodPost, path: deny, body: `{}`, fetchSite: "cross-site"}, http.StatusForbidden, "origin_refused"},
		{"a form post", req{method: http.MethodPost, path: deny, body: `reason=x`, contentType: "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"a text/plain post", req{method: http.MethodPost, path: deny, body: `{}`, contentType: "text/plain"}, http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"JSON with a charset", req{method: http.MethodPost, path: deny, body: `{}`, contentType: "application/json; charset=utf-8"}, http.StatusNotFound, "unknown_request"},
		{"a GET of an endpoint", req{path: deny}, http.StatusNotFound, "not_found"},
		{"a DELETE from the pages", req{method: http.MethodDelete, path: "/"}, http.StatusForbidden, "origin_refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := s.call(t, tc.r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body.String())
			}
			if tc.code != "" {
				if got := decodeRefusal(t, w).Code; got != tc.code {
					t.Fatalf("code %q, want %q", got, tc.code)
				}
			}
			if w.Code == http.StatusPermanentRedirect {
				if loc := w.Header().Get("Location"); loc != s.origin+tc.r.path {
					t.Fatalf("redirected to %q, want %q", loc, s.origin+tc.r.path)
				}
			}
			if w.Header().Get("Content-Security-Policy") == "" {
				t.Fatal("an answer without Content-Security-Policy")
			}
		})
	}
}

// TestHeaders: the pages allow no source but their own, their inline
// style by its hash and nothing else inline, no framing; the script is
// served by the node.
func TestHeaders(t *testing.T) {
	s := newSite(t, nodeSpec{name: "principal", web: true})
	w := s.call(t, req{path: "/"})
	csp := w.Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	for _, bad := range []string{"http:", "https:", "unsafe-inline", "unsafe-eval", "*"} {
		if strings.Contains(csp, bad) {
			t.Errorf("CSP %q allows %q", csp, bad)
		}
	}
	body := w.Body.String()
	i, j := strings.Index(body, "<style>"), strings.Index(body, "</style>")
	if i < 0 || j < i {
		t.Fatal("the page has no inline style")
	}
	sum := sha256.Sum256([]byte(body[i+len("<style>") : j]))
	if want := "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, want) {
		t.Errorf("CSP %q does not allow the page's style by its hash (%s)", csp, want)
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, " style=") || strings.Contains(body, "http://") && !strings.Contains(body, s.origin) {
		t.Error("the page holds an inline script, a style attribute or a foreign URL")
	}
	for k, v := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	js := s.call(t, req{path: "/assets/app.js"})
	if js.Code != http.StatusOK || !strings.HasPrefix(js.Header().Get("Content-Type"), "text/javascript") ||
		!strings.Contains(js.Body.String(), "navigator.credentials.get") {
		t.Fatalf("the script: %d %s", js.Code, js.Header().Get("Content-Type"))
	}
}

// TestNotFound: unknown requests and paths are 404, as a page for the
// browser and as JSON for the endpoints, and ids of the wrong shape never
// reach the node.
func TestNotFound(t *testing.T) {
	s := newSite(t, nodeSpec{name: "principal", web: true})
	for _, tc := range []struct {
		r    req
		json bool
	}{
		{req{path: "/approvals/req_00000000000000000000000000000000"}, false},
		{req{path: "/approvals/" + url.PathEscape("<script>")}, false},
		{req{path: "/approvals/" + strings.Repeat("a", 129)}, false},
		{req{path: "/nowhere"}, false},
		{req{method: http.MethodPost, path: "/api/approvals/req_00000000000000000000000000000000/options", body: `{}`}, true},
		{req{method: http.MethodPost, path: "/api/approvals/req_00000000000000000000000000000000/finish", body: `{}`}, true},
		{req{method: http.MethodPost, path: "/api/approvals/req_00000000000000000000000000000000/deny", body: `{}`}, true},
		{req{method: http.MethodPost, path: "/api/approvals/a%20b/deny", body: `{}`}, true},
		{req{method: http.MethodPost, path: "/api/nowhere", body: `{}`}, true},
	} {
		w := s.call(t, tc.r)
		if w.Code != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404", tc.r.method, tc.r.path, w.Code)
			continue
		}
		ct := w.Header().Get("Content-Type")
		if tc.json != strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s %s: Content-Type %q", tc.r.method, tc.r.path, ct)
		}
		if !tc.json && !strings.Contains(w.Body.String(), "<h1>") {
			t.Errorf("%s: not a page: %q", tc.r.path, w.Body.String())
		}
	}
}

// TestBadJSON: bodies that are not the JSON an endpoint takes are refused
// with 400 (413 when too large) and change nothing.
func TestBadJSON(t *testing.T) {
	s := newSite(t, nodeSpec{name: "principal", web: true})
	for _, tc := range []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"not JSON", "/api/passkeys/options", `{`, http.StatusBadRequest, "bad_json"},
		{"empty", "/api/passkeys/options", ``, http.StatusBadRequest, "bad_json"},
		{"an unknown member", "/api/passkeys/options", `{"token":"x","admin":true}`, http.StatusBadRequest, "bad_json"},
		{"a wrong type", "/api/passkeys/options", `{"token":1}`, http.StatusBadRequest, "bad_json"},
		{"trailing data", "/api/passkeys/options", `{"token":"x"} {}`, http.StatusBadRequest, "bad_json"},
		{"too large", "/api/passkeys/options", `{"token":"` + strings.Repeat("a", web.DefaultMaxBody) + `"}`, http.StatusRequestEntityTooLarge, "body_too_large"},
		{"a long label", "/api/passkeys/options", `{"token":"x","label":"` + strings.Repeat("a", web.MaxLabel+1) + `"}`, http.StatusBadRequest, "bad_argument"},
		{"no session", "/api/passkeys/finish", `{"credential":{}}`, http.StatusBadRequest, "bad_argument"},
		{"a credential that is no object", "/api/passkeys/finish", `{"session":"reg_x","credential":"x"}`, http.StatusBadRequest, "bad_argument"},
		{"an unknown session", "/api/passkeys/finish", `{"session":"reg_x","credential":{}}`, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := s.call(t, req{method: http.MethodPost, path: tc.path, body: tc.body})
			r := decodeRefusal(t, w)
			if tc.status == 0 {
				if w.Code < 400 || w.Code >= 500 || r.Code == "" {
					t.Fatalf("%d %+v, want a coded refusal", w.Code, r)
				}
				return
			}
			if w.Code != tc.status || r.Code != tc.code {
				t.Fatalf("%d %q, want %d %q (%s)", w.Code, r.Code, tc.status, tc.code, r.Message)
			}
		})
	}
	if creds, err := s.Gate().Passkeys(t.Context()); err != nil || len(creds) != 0 {
		t.Fatalf("passkeys after refused calls: %d, %v", len(creds), err)
	}
}

// registrationOptions is the answer of /api/passkeys/options.
type registrationOptions struct {
	Session string                      `json:"session"`
	Options protocol.CredentialCreation `json:"options"`
}

// enrolSoftwareKey registers a software key as the principal's passkey
// through the pages' endpoints, as their script would, and returns it.
func enrolSoftwareKey(t *testing.T, s *site, token, label string) *approval.SoftwareKey {
	t.Helper()
	key, err := approval.NewSoftwareKey(s.Gate().WebAuthnConfig(), s.origin)
	if err != nil {
		t.Fatal(err)
	}
	var opts registrationOptions
	if st := s.post(t, "/api/passkeys/options", map[string]string{"token": token, "label": label}, &opts); st != http.StatusOK {
		t.Fatalf("registration options: %d", st)
	}
	finishRegistration(t, s, key, opts)
	return key
}

func finishRegistration(t *testing.T, s *site, key *approval.SoftwareKey, opts registrationOptions) {
	t.Helper()
	att, err := key.Create(&opts.Options)
	if err != nil {
		t.Fatal(err)
	}
	var done struct{ Label, Ref string }
	if st := s.post(t, "/api/passkeys/finish", map[string]any{"session": opts.Session, "credential": json.RawMessage(att)}, &done); st != http.StatusOK {
		t.Fatalf("finishing the registration: %d", st)
	}
	if done.Ref != approval.CredentialRef(key.CredentialID()) {
		t.Fatalf("registered %+v, not the key", done)
	}
}

// approveWith approves the pending request id with key through the
// endpoints and returns the status of the finish call.
func approveWith(t *testing.T, s *site, key *approval.SoftwareKey, id string) int {
	t.Helper()
	var opts protocol.CredentialAssertion
	if st := s.post(t, "/api/approvals/"+id+"/options", struct{}{}, &opts); st != http.StatusOK {
		t.Fatalf("approval options: %d", st)
	}
	if got, want := opts.Response.Challenge.String(), challengeOf(t, id, s); got != want {
		t.Fatalf("challenge %s, want the intent hash %s", got, want)
	}
	resp, err := key.Get(&opts)
	if err != nil {
		t.Fatal(err)
	}
	w := s.call(t, req{method: http.MethodPost, path: "/api/approvals/" + id + "/finish", body: string(resp)})
	return w.Code
}

// challengeOf returns the base64url challenge of the pending request id:
// its intent hash's bytes.
func challengeOf(t *testing.T, id string, s *site) string {
	t.Helper()
	p, err := s.Gate().PendingApproval(id)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Request.Challenge()
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(c)
}

// TestEndpoints runs the pages' flows through their JSON endpoints with a
// software key standing in for the browser: enrolment with the token (a
// wrong one refused), a hostile task title and passkey label escaped on
// every page, an approval after a refused forged assertion, a denial after
// a refused long reason, and a further passkey approved by the first.
func TestEndpoints(t *testing.T) {
	poster := newSite(t, nodeSpec{name: "poster", gate: node.AutoApprove("test driver")})
	worker := newSite(t, nodeSpec{name: "worker", bootstrap: []*site{poster}, web: true})
	connect(t, poster, worker)
	token, err := node.IssueEnrolToken(t.Context(), worker.Config().DataDir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}

	var r refusal
	if st := worker.post(t, "/api/passkeys/options", map[string]string{"token": "parley-enrol-" + strings.Repeat("0", 64)}, &r); st != http.StatusForbidden || r.Code != string(approval.CodeTokenInvalid) {
		t.Fatalf("a wrong token: %d %+v", st, r)
	}
	const label = `<img src=x onerror=alert(1)>`
	key := enrolSoftwareKey(t, worker, token, label)
	pk := worker.call(t, req{path: "/passkeys"}).Body.String()
	if strings.Contains(pk, label) || !strings.Contains(pk, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Fatal("the passkeys page does not escape the label")
	}
	if strings.Contains(pk, `id="token"`) {
		t.Fatal("the passkeys page asks for an enrolment token while a passkey is registered")
	}

	const title = `<script>alert("t")</script> & sons`
	nid := proposal(t, poster, worker, title, eth(250))
	before := worker.call(t, req{path: "/fragments/pending"}).Header().Get("X-Parley-Version")
	p, done := accepting(t, worker, nid)
	id := p.Request.RequestID
	frag := worker.call(t, req{path: "/fragments/pending"})
	if v := frag.Header().Get("X-Parley-Version"); v == "" || v == before {
		t.Fatalf("the list's version did not change with a new request: %q, %q", before, v)
	}
	for _, path := range []string{"/", "/fragments/pending", "/approvals/" + id} {
		body := worker.call(t, req{path: path}).Body.String()
		if strings.Contains(body, "<script>alert") || !strings.Contains(body, "&lt;script&gt;alert(&#34;t&#34;)&lt;/script&gt; &amp; sons") {
			t.Errorf("%s does not escape the task title", path)
		}
		if path != "/fragments/pending" && !strings.Contains(body, id) {
			t.Errorf("%s does not name the request", path)
		}
	}

	// A forged assertion is refused and leaves the request pending.
	forged := `{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AAAA","signature":"AAAA"}}`
	w := worker.call(t, req{method: http.MethodPost, path: "/api/approvals/" + id + "/finish", body: forged})
	if w.Code < 400 || w.Code >= 500 || decodeRefusal(t, w).Code == "" {
		t.Fatalf("a forged assertion: %d %s", w.Code, w.Body.String())
	}
	if w := worker.call(t, req{method: http.MethodPost, path: "/api/approvals/" + id + "/finish", body: `[1]`}); w.Code != http.StatusBadRequest {
		t.Fatalf("an assertion that is no object: %d", w.Code)
	}
	if _, err := worker.Gate().PendingApproval(id); err != nil {
		t.Fatalf("the request after refused assertions: %v", err)
	}
	if st := approveWith(t, worker, key, id); st != http.StatusOK {
		t.Fatalf("approving: %d", st)
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("the acceptance: %v", err)
	}
	if !sent(t, worker, nid) {
		t.Fatal("no acceptance after the approval")
	}
	if w := worker.call(t, req{method: http.MethodPost, path: "/api/approvals/" + id + "/deny", body: `{}`}); w.Code != http.StatusNotFound {
		t.Fatalf("denying a decided request: %d", w.Code)
	}
	audit := worker.call(t, req{path: "/audit"}).Body.String()
	if !strings.Contains(audit, "consumed") || !strings.Contains(audit, p.Request.IntentHash) || strings.Contains(audit, "<script>alert") {
		t.Fatal("the audit page lacks the consumption or leaks the title")
	}

	// A denial: a reason over the bound is refused and decides nothing.
	nid2 := proposal(t, poster, worker, "Proofread", eth(100))
	p2, done2 := accepting(t, worker, nid2)
	id2 := p2.Request.RequestID
	if st := worker.post(t, "/api/approvals/"+id2+"/deny", map[string]string{"reason": strings.Repeat("x", web.MaxReason+1)}, &r); st != http.StatusBadRequest {
		t.Fatalf("a long reason: %d %+v", st, r)
	}
	if _, err := worker.Gate().PendingApproval(id2); err != nil {
		t.Fatalf("the request after a refused denial: %v", err)
	}
	var dec struct{ RequestID, Decision string }
	if st := worker.post(t, "/api/approvals/"+id2+"/deny", map[string]string{"reason": "too cheap"}, &dec); st != http.StatusOK || dec.Decision != "denied" || dec.RequestID != id2 {
		t.Fatalf("denying: %d %+v", st, dec)
	}
	if err := wait(t, done2); node.CodeOf(err) != node.CodeApprovalDenied {
		t.Fatalf("the denied acceptance: %v", err)
	}
	if sent(t, worker, nid2) {
		t.Fatal("an acceptance was sent after the denial")
	}
	if w := worker.call(t, req{method: http.MethodPost, path: "/api/approvals/" + id2 + "/options", body: `{}`}); w.Code != http.StatusNotFound {
		t.Fatalf("approval options of a denied request: %d", w.Code)
	}

	// A further passkey waits for the first one's approval.
	var pending refusal
	if st := worker.post(t, "/api/passkeys/options", map[string]string{"label": "phone"}, &pending); st != http.StatusConflict || pending.Code != "approval_pending" || pending.RequestID == "" || pending.Session == "" {
		t.Fatalf("a further passkey: %d %+v", st, pending)
	}
	if st := worker.post(t, "/api/passkeys/options", map[string]string{"token": pending.Session}, &r); st != http.StatusConflict {
		t.Fatalf("going on before the approval: %d %+v", st, r)
	}
	if st := approveWith(t, worker, key, pending.RequestID); st != http.StatusOK {
		t.Fatalf("approving the registration: %d", st)
	}
	var opts registrationOptions
	if st := worker.post(t, "/api/passkeys/options", map[string]string{"token": pending.Session}, &opts); st != http.StatusOK {
		t.Fatalf("going on after the approval: %d", st)
	}
	second, err := approval.NewSoftwareKey(worker.Gate().WebAuthnConfig(), worker.origin)
	if err != nil {
		t.Fatal(err)
	}
	finishRegistration(t, worker, second, opts)
	creds, err := worker.Gate().Passkeys(t.Context())
	if err != nil || len(creds) != 2 || creds[1].Label != "phone" {
		t.Fatalf("passkeys: %+v, %v", creds, err)
	}
}
