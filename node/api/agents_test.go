package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/node"
)

// fakeAgents is an AgentBook in memory, standing in for node/vxp's
// Server (which node/api must not import): its agents, every revocation
// asked of it, and the grant whose revocation fails.
type fakeAgents struct {
	mu      sync.Mutex
	agents  []node.AgentView
	revokes []string // "client <id> by <by>" or "grant <id> by <by>"
	broken  string   // a grant id whose revocation fails with store_failed
}

var _ node.AgentBook = (*fakeAgents)(nil)

func (b *fakeAgents) Agents() []node.AgentView {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]node.AgentView, len(b.agents))
	for i, a := range b.agents {
		a.Grants = slices.Clone(a.Grants)
		out[i] = a
	}
	return out
}

func (b *fakeAgents) revoke(match func(clientID string, g node.AgentGrantView) bool) int {
	n := 0
	for i := range b.agents {
		for j, g := range b.agents[i].Grants {
			if g.Active && match(b.agents[i].ClientID, g) {
				b.agents[i].Grants[j].Active = false
				b.agents[i].Grants[j].RevokedAt = time.Now().UTC()
				n++
			}
		}
	}
	return n
}

func (b *fakeAgents) RevokeAgent(_ context.Context, clientID, by string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.revokes = append(b.revokes, "client "+clientID+" by "+by)
	return b.revoke(func(c string, _ node.AgentGrantView) bool { return c == clientID }), nil
}

func (b *fakeAgents) RevokeGrant(_ context.Context, grantID, by string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.revokes = append(b.revokes, "grant "+grantID+" by "+by)
	if grantID == b.broken {
		return false, &node.Error{Code: node.CodeStoreFailed, Msg: "the ledger refused the write"}
	}
	return b.revoke(func(_ string, g node.AgentGrantView) bool { return g.ID == grantID }) == 1, nil
}

func (b *fakeAgents) asked() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.revokes)
}

func newFakeAgents() *fakeAgents {
	now := time.Now().UTC().Truncate(time.Second)
	const nid = "0b6c4b9e-1f0e-4d7a-9c3b-2a1d0e9f8c7b"
	return &fakeAgents{broken: "grant_broken", agents: []node.AgentView{
		{ClientID: "https://agent.example/client.json", ClientName: "Helper",
			Grants: []node.AgentGrantView{
				{ID: "grant_1", Lines: []string{"read negotiation " + nid}, Details: `[{"actions":["negotiation.read"],"identifier":"` + nid + `","type":"https://vxpprotocol.org/rar/capability"}]`,
					GrantedAt: now, ExpiresAt: now.Add(time.Hour), Active: true, IntentHash: "5c1f0b6a2d9e8f7c6b5a4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"},
				{ID: "grant_2", Lines: []string{"answer offers in negotiation " + nid}, Details: `[]`,
					GrantedAt: now, ExpiresAt: now.Add(time.Hour), Active: true, IntentHash: "6c1f0b6a2d9e8f7c6b5a4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"},
			},
			Requests: []node.AgentRequestView{{ID: "vxpreq_1", Operation: "negotiation.read", NegotiationID: nid, State: "succeeded", CreatedAt: now, UpdatedAt: now}}},
		{ClientID: "https://other.example/agent.json", Grants: []node.AgentGrantView{
			{ID: "grant_3", Lines: []string{"read the public task board"}, Details: `[]`, GrantedAt: now, ExpiresAt: now.Add(time.Hour), Active: true, IntentHash: "7c"},
		}, Requests: []node.AgentRequestView{}},
	}}
}

// TestAgentRoutes: without an agent book both routes answer 404 vxp_off;
// with one, GET /v1/agents lists the book's agents (in the document's
// schema) under the bearer key, and POST /v1/agents/revoke revokes an
// agent's grants or one grant (by api), while a body naming neither or
// both, or one the strict decoder refuses, reaches no book; a failing
// revocation answers its class's status; the Go client does the same.
func TestAgentRoutes(t *testing.T) {
	n := startNode(t, nodeSpec{name: "principal"})
	off := serve(t, n, Options{})
	if r := off.do(call{method: http.MethodGet, path: "/v1/agents"}); r.status != http.StatusNotFound || r.errCode() != CodeVXPOff {
		t.Fatalf("GET /v1/agents without VXP: %d %s", r.status, r.body)
	}
	if r := off.do(call{method: http.MethodPost, path: "/v1/agents/revoke", idem: freshKey(), body: []byte(`{"clientId":"x"}`)}); r.status != http.StatusNotFound || r.errCode() != CodeVXPOff {
		t.Fatalf("POST /v1/agents/revoke without VXP: %d %s", r.status, r.body)
	}

	book := newFakeAgents()
	s := serve(t, n, Options{Agents: book})
	if r := s.do(call{method: http.MethodGet, path: "/v1/agents", noKey: true}); r.status != http.StatusUnauthorized {
		t.Fatalf("GET /v1/agents without the key: %d", r.status)
	}
	if r := s.do(call{method: http.MethodPost, path: "/v1/agents/revoke", noKey: true, idem: freshKey(), body: []byte(`{"clientId":"https://agent.example/client.json"}`)}); r.status != http.StatusUnauthorized || len(book.asked()) != 0 {
		t.Fatalf("POST /v1/agents/revoke without the key: %d, asked %q", r.status, book.asked())
	}
	r := s.do(call{method: http.MethodGet, path: "/v1/agents"})
	if r.status != http.StatusOK {
		t.Fatalf("GET /v1/agents: %d %s", r.status, r.body)
	}
	checkSchema(t, "[]AgentView", r.body)
	var got []node.AgentView
	if err := json.Unmarshal(r.body, &got); err != nil || len(got) != 2 || got[0].ClientID != "https://agent.example/client.json" || len(got[0].Grants) != 2 || got[0].Requests[0].State != "succeeded" {
		t.Fatalf("GET /v1/agents: %+v %v", got, err)
	}

	for _, tc := range []struct {
		name    string
		body    string
		idem    bool
		status  int
		code    string
		revoked int
		asked   string
	}{
		{"neither", `{}`, true, http.StatusBadRequest, string(node.CodeBadArgument), 0, ""},
		{"empty names", `{"clientId":" ","grantId":""}`, true, http.StatusBadRequest, string(node.CodeBadArgument), 0, ""},
		{"both", `{"clientId":"https://other.example/agent.json","grantId":"grant_3"}`, true, http.StatusBadRequest, string(node.CodeBadArgument), 0, ""},
		{"an unknown member", `{"client":"https://other.example/agent.json"}`, true, http.StatusBadRequest, CodeUnknownField, 0, ""},
		{"a name in another case", `{"ClientId":"https://other.example/agent.json"}`, true, http.StatusBadRequest, CodeUnknownField, 0, ""},
		{"no Idempotency-Key", `{"grantId":"grant_1"}`, false, http.StatusBadRequest, CodeIdempotencyMissing, 0, ""},
		{"one grant", `{"grantId":"grant_1"}`, true, http.StatusOK, "", 1, "grant grant_1 by api"},
		{"the same grant again", `{"grantId":"grant_1"}`, true, http.StatusOK, "", 0, "grant grant_1 by api"},
		{"an unknown grant", `{"grantId":"grant_nope"}`, true, http.StatusOK, "", 0, "grant grant_nope by api"},
		{"a failing revocation", `{"grantId":"grant_broken"}`, true, http.StatusInternalServerError, string(node.CodeStoreFailed), 0, "grant grant_broken by api"},
		{"an agent", `{"clientId":"https://agent.example/client.json"}`, true, http.StatusOK, "", 1, "client https://agent.example/client.json by api"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(book.asked())
			c := call{method: http.MethodPost, path: "/v1/agents/revoke", body: []byte(tc.body)}
			if tc.idem {
				c.idem = freshKey()
			}
			r := s.do(c)
			if r.status != tc.status || r.errCode() != tc.code {
				t.Fatalf("%d %q, want %d %q: %s", r.status, r.errCode(), tc.status, tc.code, r.body)
			}
			asked := book.asked()[before:]
			if tc.asked == "" {
				if len(asked) != 0 {
					t.Fatalf("a refused body reached the book: %q", asked)
				}
				return
			}
			if len(asked) != 1 || asked[0] != tc.asked {
				t.Fatalf("the book was asked %q, want %q", asked, tc.asked)
			}
			if tc.code != "" {
				return
			}
			checkSchema(t, "AgentRevocation", r.body)
			var a AgentRevocation
			if err := json.Unmarshal(r.body, &a); err != nil || a.Revoked != tc.revoked {
				t.Fatalf("the answer %s, want %d revoked", r.body, tc.revoked)
			}
		})
	}

	c, err := NewClient(s.url, []byte(apiKey))
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.Agents(t.Context())
	if err != nil || len(list) != 2 {
		t.Fatalf("client Agents: %d %v", len(list), err)
	}
	if a, err := c.RevokeAgent(t.Context(), "https://other.example/agent.json"); err != nil || a.Revoked != 1 || a.ClientID != "https://other.example/agent.json" {
		t.Fatalf("client RevokeAgent: %+v %v", a, err)
	}
	if a, err := c.RevokeGrant(t.Context(), "grant_3"); err != nil || a.Revoked != 0 || a.GrantID != "grant_3" {
		t.Fatalf("client RevokeGrant of a revoked grant: %+v %v", a, err)
	}
	offc, err := NewClient(off.url, []byte(apiKey))
	if err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, err := offc.Agents(t.Context()); !errors.As(err, &e) || e.Code != CodeVXPOff || e.Class() != ClassNotFound {
		t.Fatalf("client Agents without VXP: %v", err)
	}
	for _, a := range book.Agents() {
		for _, g := range a.Grants {
			if g.Active {
				t.Errorf("grant %s of %s still in force", g.ID, a.ClientID)
			}
		}
	}
}
