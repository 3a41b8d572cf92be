package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/node"
)

// fakeBook is an AgentBook in memory, standing in for node/vxp's Server
// (which these pages must not import): the agents it holds, and every
// revocation asked of it.
type fakeBook struct {
	mu      sync.Mutex
	agents  []node.AgentView
	revokes []string // "client <id> by <by>" or "grant <id> by <by>"
	now     func() time.Time
}

var _ node.AgentBook = (*fakeBook)(nil)

func (b *fakeBook) Agents() []node.AgentView {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]node.AgentView, len(b.agents))
	for i, a := range b.agents {
		a.Grants = slices.Clone(a.Grants)
		a.Requests = slices.Clone(a.Requests)
		out[i] = a
	}
	return out
}

func (b *fakeBook) revoke(match func(a node.AgentView, g node.AgentGrantView) bool) int {
	n := 0
	for i := range b.agents {
		for j, g := range b.agents[i].Grants {
			if g.Active && match(b.agents[i], g) {
				b.agents[i].Grants[j].Active = false
				b.agents[i].Grants[j].RevokedAt = b.now()
				n++
			}
		}
	}
	return n
}

func (b *fakeBook) RevokeAgent(_ context.Context, clientID, by string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.revokes = append(b.revokes, "client "+clientID+" by "+by)
	return b.revoke(func(a node.AgentView, _ node.AgentGrantView) bool { return a.ClientID == clientID }), nil
}

func (b *fakeBook) RevokeGrant(_ context.Context, grantID, by string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.revokes = append(b.revokes, "grant "+grantID+" by "+by)
	return b.revoke(func(_ node.AgentView, g node.AgentGrantView) bool { return g.ID == grantID }) == 1, nil
}

// revoked returns the revocations asked so far.
func (b *fakeBook) revoked() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.revokes)
}

// grantActive reports whether the grant id is in force in the book.
func (b *fakeBook) grantActive(id string) bool {
	for _, a := range b.Agents() {
		for _, g := range a.Grants {
			if g.ID == id {
				return g.Active
			}
		}
	}
	return false
}

// The agents of the fake book.
const (
	agentA    = "https://agent.example/client.json"
	agentB    = "http://127.0.0.1:9/other-agent.json"
	hostile   = `<img src=x onerror=alert(1)>`
	grantA1   = "grant_a1"
	grantA2   = "grant_a2"
	grantB1   = "grant_b1"
	intentA1  = "5c1f0b6a2d9e8f7c6b5a4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"
	testNID   = "0b6c4b9e-1f0e-4d7a-9c3b-2a1d0e9f8c7b"
	otherNID  = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
	agentJKT  = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
	agentCode = "WDJB-MJHT"
)

func newFakeBook() *fakeBook {
	now := time.Now().UTC().Truncate(time.Second)
	return &fakeBook{now: func() time.Time { return now }, agents: []node.AgentView{
		{ClientID: agentA, ClientName: hostile,
			Grants: []node.AgentGrantView{
				{ID: grantA1, Lines: []string{"read negotiation " + testNID, "answer offers in negotiation " + testNID}, Details: `[]`,
					GrantedAt: now.Add(-time.Hour), ExpiresAt: now.Add(30 * 24 * time.Hour), Active: true, IntentHash: intentA1},
				{ID: grantA2, Lines: []string{"read negotiation " + otherNID}, Details: `[]`,
					GrantedAt: now.Add(-2 * time.Hour), ExpiresAt: now.Add(24 * time.Hour), RevokedAt: now.Add(-time.Minute), IntentHash: strings.Repeat("ab", 32)},
			},
			Requests: []node.AgentRequestView{
				{ID: "req_vxp_1", Operation: "offer.respond", NegotiationID: testNID, State: "waiting_human", CreatedAt: now, UpdatedAt: now},
			}},
		{ClientID: agentB, Grants: []node.AgentGrantView{
			{ID: grantB1, Lines: []string{"read the public task board"}, Details: `[]`, GrantedAt: now, ExpiresAt: now.Add(time.Hour), Active: true, IntentHash: strings.Repeat("cd", 32)},
		}},
	}}
}

// grantDetails is the JCS text of authorization details granting ops on
// nid, with a relationship entry when rel is set.
func grantDetails(nid string, rel bool, ops ...string) string {
	var parts []string
	for _, op := range ops {
		parts = append(parts, `{"actions":["`+op+`"],"identifier":"`+nid+`","type":"https://vxpprotocol.org/rar/capability"}`)
	}
	if rel {
		parts = append(parts, `{"company_initiated_actions":["negotiation.notify","question.ask"],"type":"https://vxpprotocol.org/rar/relationship"}`)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// asked is one grant waiting in the gate: its approval, and what the
// node ran once it was decided.
type asked struct {
	p       node.PendingApproval
	decided chan struct{} // closed once it is decided either way
	granted chan struct{} // closed once approved (then ran)
}

// askGrant has the node ask its principal for a grant to clientID under
// code, as node/vxp's device authorization does.
func askGrant(t *testing.T, n *site, clientID, code, details string) asked {
	t.Helper()
	a := asked{decided: make(chan struct{}), granted: make(chan struct{})}
	args := map[string]any{"user_code": code, "authorization_details": details, "resource": "https://node.example/vxp/v1", "dpop_jkt": agentJKT}
	p, err := n.AskGrant(clientID, args, "An outside agent asks for authority over your negotiations", func(context.Context) error {
		close(a.granted)
		return nil
	}, func(bool) { close(a.decided) })
	if err != nil {
		t.Fatal(err)
	}
	if p.Act != node.ActVXPGrant {
		t.Fatalf("AskGrant made a %s request", p.Act)
	}
	a.p = p
	return a
}

// closed waits up to a minute for ch to close and reports whether it did.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-time.After(time.Minute):
		return false
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestDevicePage: the user code finds its grant whatever its case and
// dashes, the grant is said in words (the agent's client_id, its name as
// its own claim, each operation on each negotiation, the relationship's
// actions, how long, the key's thumbprint) with the passkey's buttons; a
// code that matches nothing, or is no code, says so and changes nothing;
// approving takes the passkey (a forged assertion is refused) and then
// the grant is the node's, a denial grants nothing.
func TestDevicePage(t *testing.T) {
	poster := newSite(t, nodeSpec{name: "poster", gate: node.AutoApprove("test driver")})
	book := newFakeBook()
	worker := newSite(t, nodeSpec{name: "worker", bootstrap: []*site{poster}, web: true, agents: book, grantTTL: 30 * 24 * time.Hour})
	connect(t, poster, worker)
	token, err := node.IssueEnrolToken(t.Context(), worker.Config().DataDir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	key := enrolSoftwareKey(t, worker, token, "laptop")
	nid := proposal(t, poster, worker, "Translate the user guide", eth(300))

	g := askGrant(t, worker, agentA, agentCode, grantDetails(nid, true, "negotiation.read", "offer.respond"))
	id := g.p.Request.RequestID
	pending := func() int { return len(worker.PendingApprovals()) }

	for _, tc := range []struct {
		name, code string
		status     int
		found      bool
		says       string
	}{
		{"no code yet", "", http.StatusOK, false, `id="user_code"`},
		{"as shown", agentCode, http.StatusOK, true, ""},
		{"lower case without the dash", "wdjbmjht", http.StatusOK, true, ""},
		{"with spaces", " wdjb mjht ", http.StatusOK, true, ""},
		{"a code that matches nothing", "WDJB-MJHX", http.StatusNotFound, false, "No agent waits for your approval with this code"},
		{"half the code", "WDJB", http.StatusNotFound, false, "No agent waits"},
		{"no code at all", "<script>alert(1)</script>", http.StatusBadRequest, false, "This is not a user code"},
		{"too long", strings.Repeat("A", 65), http.StatusBadRequest, false, "This is not a user code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := worker.call(t, req{path: "/device?user_code=" + url.QueryEscape(tc.code)})
			body := w.Body.String()
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			if got := strings.Contains(body, `data-request="`+id+`"`); got != tc.found {
				t.Fatalf("the grant's approval shown: %v, want %v", got, tc.found)
			}
			if tc.says != "" && !strings.Contains(body, tc.says) {
				t.Fatalf("the page does not say %q:\n%s", tc.says, body)
			}
			if strings.Contains(body, "<script>alert") {
				t.Fatal("the page does not escape the code typed")
			}
			if pending() != 1 {
				t.Fatalf("%d approvals pending after the page, want 1", pending())
			}
		})
	}

	body := worker.call(t, req{path: "/device?user_code=" + agentCode}).Body.String()
	for _, want := range []string{
		agentA,
		"calls itself «&lt;img src=x onerror=alert(1)&gt;»: the agent's own claim",
		"Read negotiation " + nid + ": its state, offers and messages.",
		"Answer offers in negotiation " + nid + ": propose to accept or counter the current offer (accepting signs a settlement only after your own passkey approves it).",
		"Let your node tell the agent when a negotiation it holds a grant on moves.",
		"Let your node ask the agent closed questions",
		"for 30 days once you approve it",
		agentJKT,
		g.p.Request.IntentHash,
		"Grant an outside agent exactly the authority below to act for you (user code " + agentCode + ")",
		`id="approve"`, `id="deny-form"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the device page does not show %q", want)
		}
	}
	if strings.Contains(body, hostile) {
		t.Fatal("the device page does not escape the agent's name")
	}
	if strings.Contains(body, "This node holds no negotiation") {
		t.Fatal("the device page warns about a negotiation the node holds")
	}

	// A negotiation the node does not hold, an operation and a type
	// outside the catalogue are flagged, not put in words.
	odd := askGrant(t, worker, agentB, "BCDF-GHJK", `[{"actions":["negotiation.read","wire.money"],"identifier":"`+otherNID+`","type":"https://vxpprotocol.org/rar/capability"},{"type":"https://example.com/rar/other"}]`)
	body = worker.call(t, req{path: "/device?user_code=bcdfghjk"}).Body.String()
	for _, want := range []string{
		"This node holds no negotiation " + otherNID,
		"The operation &#34;wire.money&#34;, which this node&#39;s catalogue does not name",
		"An authorization of type &#34;https://example.com/rar/other&#34; that the pages cannot put in words",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the device page does not flag %q", want)
		}
	}
	if strings.Contains(body, "calls itself") {
		t.Error("the device page names an agent that gave no name")
	}
	if st := worker.post(t, "/api/approvals/"+odd.p.Request.RequestID+"/deny", map[string]string{"reason": "unknown operation"}, nil); st != http.StatusOK {
		t.Fatalf("denying the odd grant: %d", st)
	}

	// Nothing approves without the passkey: a forged assertion is
	// refused and the grant still waits.
	forged := `{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AAAA","signature":"AAAA"}}`
	if w := worker.call(t, req{method: http.MethodPost, path: "/api/approvals/" + id + "/finish", body: forged}); w.Code < 400 || w.Code >= 500 {
		t.Fatalf("a forged assertion: %d %s", w.Code, w.Body.String())
	}
	if isClosed(g.decided) || pending() != 1 {
		t.Fatal("the grant was decided without the passkey")
	}
	if st := approveWith(t, worker, key, id); st != http.StatusOK {
		t.Fatalf("approving with the passkey: %d", st)
	}
	if !closed(g.granted) {
		t.Fatal("the node did not go on with the approved grant")
	}
	if pending() != 0 {
		t.Fatalf("approvals pending after the decisions: %+v", worker.PendingApprovals())
	}
	if w := worker.call(t, req{path: "/device?user_code=" + agentCode}); w.Code != http.StatusNotFound {
		t.Fatalf("the decided grant's code: %d, want 404", w.Code)
	}

	// A denial grants nothing.
	d := askGrant(t, worker, agentA, "QRST-VWXZ", grantDetails(nid, false, "negotiation.read"))
	var dec struct{ Decision string }
	if st := worker.post(t, "/api/approvals/"+d.p.Request.RequestID+"/deny", map[string]string{"reason": "not now"}, &dec); st != http.StatusOK || dec.Decision != "denied" {
		t.Fatalf("denying: %d %+v", st, dec)
	}
	if !closed(d.decided) {
		t.Fatal("the denied grant was not decided")
	}
	if isClosed(d.granted) {
		t.Fatal("a denied grant was granted")
	}
	if pending() != 0 {
		t.Fatalf("approvals pending after the denial: %d", pending())
	}
}

// TestAgentsPage: without an agent book the page says VXP is off and a
// revocation is refused; with one, every agent is listed with its grants
// (lines, state, expiry, intent hash) and requests, names escaped, and a
// revocation of an agent or a grant from the pages revokes it (by web),
// while a body naming neither or both, or a POST from elsewhere, revokes
// nothing.
func TestAgentsPage(t *testing.T) {
	off := newSite(t, nodeSpec{name: "off", web: true})
	if body := off.call(t, req{path: "/agents"}).Body.String(); !strings.Contains(body, `id="vxp-off"`) || !strings.Contains(body, `href="/agents"`) || !strings.Contains(body, `href="/device"`) {
		t.Fatalf("the agents page without VXP:\n%s", body)
	}
	w := off.call(t, req{method: http.MethodPost, path: "/api/agents/revoke", body: `{"clientId":"x"}`})
	if r := decodeRefusal(t, w); w.Code != http.StatusNotFound || r.Code != "vxp_off" {
		t.Fatalf("a revocation without VXP: %d %+v", w.Code, r)
	}

	book := newFakeBook()
	s := newSite(t, nodeSpec{name: "principal", web: true, agents: book})
	body := s.call(t, req{path: "/agents"}).Body.String()
	for _, want := range []string{
		agentA, agentB, "&lt;img src=x onerror=alert(1)&gt;", "1 grant(s) in force",
		grantA1, "answer offers in negotiation " + testNID, intentA1, "active", "revoked", grantA2,
		"req_vxp_1", "offer.respond", "waiting_human",
		`data-revoke-grant="` + grantA1 + `"`, `data-revoke-client="` + agentA + `"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the agents page does not show %q", want)
		}
	}
	if strings.Contains(body, hostile) || strings.Contains(body, `data-revoke-grant="`+grantA2+`"`) {
		t.Error("the agents page leaks the name unescaped or offers to revoke a revoked grant")
	}

	for _, tc := range []struct {
		name    string
		r       req
		status  int
		code    string
		revoked int
		asked   string
	}{
		{"neither", req{body: `{}`}, http.StatusBadRequest, "bad_argument", 0, ""},
		{"both", req{body: `{"clientId":"` + agentB + `","grantId":"` + grantB1 + `"}`}, http.StatusBadRequest, "bad_argument", 0, ""},
		{"an unknown member", req{body: `{"client":"` + agentB + `"}`}, http.StatusBadRequest, "bad_json", 0, ""},
		{"without Origin", req{body: `{"clientId":"` + agentB + `"}`, origin: "-"}, http.StatusForbidden, "origin_refused", 0, ""},
		{"from another site", req{body: `{"clientId":"` + agentB + `"}`, origin: "http://evil.example"}, http.StatusForbidden, "origin_refused", 0, ""},
		{"as a form", req{body: `clientId=x`, contentType: "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType, "unsupported_media_type", 0, ""},
		{"one grant", req{body: `{"grantId":"` + grantA1 + `"}`}, http.StatusOK, "", 1, "grant " + grantA1 + " by web"},
		{"the same grant again", req{body: `{"grantId":"` + grantA1 + `"}`}, http.StatusOK, "", 0, "grant " + grantA1 + " by web"},
		{"an agent", req{body: `{"clientId":"` + agentB + `"}`}, http.StatusOK, "", 1, "client " + agentB + " by web"},
		{"an agent with nothing in force", req{body: `{"clientId":"` + agentA + `"}`}, http.StatusOK, "", 0, "client " + agentA + " by web"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(book.revoked())
			tc.r.method, tc.r.path = http.MethodPost, "/api/agents/revoke"
			w := s.call(t, tc.r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body.String())
			}
			got := book.revoked()
			if tc.code != "" {
				if r := decodeRefusal(t, w); r.Code != tc.code {
					t.Fatalf("code %q, want %q", r.Code, tc.code)
				}
				if len(got) != before {
					t.Fatalf("a refused revocation reached the book: %q", got[before:])
				}
				return
			}
			if len(got) != before+1 || got[before] != tc.asked {
				t.Fatalf("the book was asked %q, want %q", got[before:], tc.asked)
			}
			var a struct {
				Revoked int
				Message string
			}
			if st := decodeJSON(t, w, &a); st != http.StatusOK || a.Revoked != tc.revoked || a.Message == "" {
				t.Fatalf("the answer: %+v, want %d revoked", a, tc.revoked)
			}
		})
	}
	if book.grantActive(grantA1) || book.grantActive(grantB1) {
		t.Fatal("grants still in force after their revocation")
	}
	if body := s.call(t, req{path: "/agents"}).Body.String(); !strings.Contains(body, "0 grant(s) in force") || strings.Contains(body, "data-revoke-") {
		t.Fatal("the agents page after the revocations still offers to revoke")
	}
}

// decodeJSON decodes the answer w into out and returns its status.
func decodeJSON(t *testing.T, w *httptest.ResponseRecorder, out any) int {
	t.Helper()
	if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
		t.Fatalf("an answer that is not JSON: %d %q", w.Code, w.Body.String())
	}
	return w.Code
}
