package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/node/nodetest"
)

// agentBook is an AgentBook in memory, standing in for node/vxp's
// Server: its agents and every revocation asked of it.
type agentBook struct {
	mu      sync.Mutex
	agents  []node.AgentView
	revokes []string // "client <id> by <by>" or "grant <id> by <by>"
}

var _ node.AgentBook = (*agentBook)(nil)

func (b *agentBook) Agents() []node.AgentView {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]node.AgentView, len(b.agents))
	for i, a := range b.agents {
		a.Grants = slices.Clone(a.Grants)
		out[i] = a
	}
	return out
}

func (b *agentBook) revoke(match func(clientID, grantID string) bool) int {
	n := 0
	for i := range b.agents {
		for j, g := range b.agents[i].Grants {
			if g.Active && match(b.agents[i].ClientID, g.ID) {
				b.agents[i].Grants[j].Active = false
				b.agents[i].Grants[j].RevokedAt = time.Now().UTC()
				n++
			}
		}
	}
	return n
}

func (b *agentBook) RevokeAgent(_ context.Context, clientID, by string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.revokes = append(b.revokes, "client "+clientID+" by "+by)
	return b.revoke(func(c, _ string) bool { return c == clientID }), nil
}

func (b *agentBook) RevokeGrant(_ context.Context, grantID, by string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.revokes = append(b.revokes, "grant "+grantID+" by "+by)
	return b.revoke(func(_, g string) bool { return g == grantID }) == 1, nil
}

func (b *agentBook) asked() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.revokes)
}

// startAgentsNode starts a node whose API serves book's agents (nil: no
// VXP), its key in the data directory as `parley init` writes it.
func startAgentsNode(t *testing.T, name string, book node.AgentBook) *apiNode {
	t.Helper()
	n := nodetest.New(t, name, nil)
	dir := n.Config().DataDir
	key := strings.Repeat("a7", 32)
	keyFile := filepath.Join(dir, APIKeyFileName)
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(n, api.Options{Key: []byte(key), Agents: book})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return &apiNode{Node: n, dir: dir, url: ts.URL, keyFile: keyFile}
}

// TestAgentsCommands: `parley agents list` shows each agent's client_id,
// its name, its grants in force and its requests (and the API's JSON with
// --json); `parley agents revoke CLIENT_ID` and `--grant ID` revoke
// through the API (by api), say when nothing was in force, and a command
// naming neither or both is a usage error that calls nothing; a node
// without VXP says so.
func TestAgentsCommands(t *testing.T) {
	now := time.Now().UTC()
	book := &agentBook{agents: []node.AgentView{
		{ClientID: "https://agent.example/client.json", ClientName: "Helper", Grants: []node.AgentGrantView{
			{ID: "grant_1", Lines: []string{"read negotiation x"}, Details: "[]", GrantedAt: now, ExpiresAt: now.Add(time.Hour), Active: true, IntentHash: "ab"},
			{ID: "grant_2", Lines: []string{"read negotiation y"}, Details: "[]", GrantedAt: now, ExpiresAt: now.Add(time.Hour), Active: true, IntentHash: "cd"},
			{ID: "grant_0", Lines: []string{"read negotiation z"}, Details: "[]", GrantedAt: now, ExpiresAt: now.Add(time.Hour), RevokedAt: now, IntentHash: "ef"},
		}, Requests: []node.AgentRequestView{{ID: "r1", Operation: "negotiation.read", State: "succeeded", CreatedAt: now, UpdatedAt: now}}},
		{ClientID: "https://other.example/agent.json", Grants: []node.AgentGrantView{}, Requests: []node.AgentRequestView{}},
	}}
	a := startAgentsNode(t, "principal", book)
	C := a.conn()

	list := ok(t, with(C, "agents", "list")...)
	for _, re := range []string{
		`(?m)^CLIENT_ID\s+NAME\s+ACTIVE GRANTS\s+REQUESTS$`,
		`(?m)^https://agent\.example/client\.json\s+Helper\s+2 \(grant_1, grant_2\)\s+1$`,
		`(?m)^https://other\.example/agent\.json\s+-\s+-\s+0$`,
	} {
		if !regexp.MustCompile(re).MatchString(list) {
			t.Errorf("agents list does not match %s:\n%s", re, list)
		}
	}
	var vs []node.AgentView
	if err := json.Unmarshal([]byte(ok(t, with(C, "agents", "list", "--json")...)), &vs); err != nil || len(vs) != 2 || len(vs[0].Grants) != 3 {
		t.Fatalf("agents list --json: %+v %v", vs, err)
	}

	for _, args := range [][]string{{"agents", "revoke"}, {"agents", "revoke", "https://agent.example/client.json", "--grant", "grant_1"}, {"agents", "revoke", "a", "b"}} {
		if r := cli(t, with(C, args...)...); exitCode(r.e) != exitUsage {
			t.Errorf("parley %s: %v, want a usage error", strings.Join(args, " "), r.e)
		}
	}
	if got := book.asked(); len(got) != 0 {
		t.Fatalf("usage errors reached the node: %q", got)
	}

	if out := ok(t, with(C, "agents", "revoke", "--grant", "grant_1")...); out != "revoked grant grant_1: its tokens are refused from now on\n" {
		t.Fatalf("agents revoke --grant: %q", out)
	}
	if out := ok(t, with(C, "agents", "revoke", "--grant", "grant_1")...); !strings.Contains(out, "grant grant_1 was not in force") {
		t.Fatalf("agents revoke --grant again: %q", out)
	}
	if out := ok(t, with(C, "agents", "revoke", "https://agent.example/client.json")...); out != "revoked 1 grant(s) of https://agent.example/client.json: its tokens are refused from now on\n" {
		t.Fatalf("agents revoke CLIENT_ID: %q", out)
	}
	if out := ok(t, with(C, "agents", "revoke", "https://other.example/agent.json")...); !strings.Contains(out, "no grant of https://other.example/agent.json was in force") {
		t.Fatalf("agents revoke of an agent without grants: %q", out)
	}
	want := []string{"grant grant_1 by api", "grant grant_1 by api", "client https://agent.example/client.json by api", "client https://other.example/agent.json by api"}
	if got := book.asked(); !slices.Equal(got, want) {
		t.Fatalf("the book was asked %q, want %q", got, want)
	}
	if list := ok(t, with(C, "agents", "list")...); !regexp.MustCompile(`(?m)^https://agent\.example/client\.json\s+Helper\s+-\s+1$`).MatchString(list) {
		t.Fatalf("agents list after the revocations:\n%s", list)
	}

	offNode := startAgentsNode(t, "off", nil)
	r := cli(t, with(offNode.conn(), "agents", "list")...)
	if exitCode(r.e) != exitRefused || !strings.Contains(r.e.Error(), api.CodeVXPOff) {
		t.Fatalf("agents list without VXP: %v", r.e)
	}
}
