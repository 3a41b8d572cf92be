package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestApproveAgentGrant: an outside agent's grant (the gate's vxp_grant,
// tool parley.vxp.grant, target the client_id), as node/vxp's device
// authorization asks it, waits among the principal's approvals, is listed
// in plain words by `parley approvals list`, and is approved with a
// software key registered as the principal's passkey by `parley approvals
// approve ID --software-key FILE`, exactly as every gated act: the grant's
// then runs once the receipt is consumed. A denied one grants nothing.
func TestApproveAgentGrant(t *testing.T) {
	t.Setenv("PARLEY_DATA_DIR", t.TempDir())
	n := startAPINode(t, "principal", nil)
	P := n.conn()
	keyFile := filepath.Join(t.TempDir(), "devnet.software-key")
	ok(t, with(P, "approvals", "software-key", "new", "--out", keyFile, "--label", "devnet", "--data-dir", n.dir)...)

	const client = "http://127.0.0.1:40001/agent.json"
	args := map[string]any{
		"user_code":             "BCDF-GHJK",
		"authorization_details": `[{"actions":["offer.respond"],"identifier":"6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b","type":"https://vxpprotocol.org/rar/capability"}]`,
		"resource":              "http://127.0.0.1:40000/vxp/v1",
		"dpop_jkt":              "yrzDnLPWjo7_1_cETeCwJHUFLim4SVPIBeAh8q2DrWo",
	}
	for _, tc := range []struct {
		name    string
		decide  func(id string)
		granted bool
	}{
		{"approved with the software key", func(id string) {
			if out := ok(t, with(P, "approvals", "approve", id, "--software-key", keyFile)...); !strings.Contains(out, "approved "+id) {
				t.Fatalf("approve: %s", out)
			}
		}, true},
		{"denied", func(id string) { ok(t, with(P, "approvals", "deny", id, "--reason", "not this agent")...) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			granted, decided := make(chan struct{}, 1), make(chan struct{}, 1)
			p, err := n.AskGrant(client, args, "The outside agent asks to act for you", func(context.Context) error {
				granted <- struct{}{}
				return nil
			}, func(bool) { decided <- struct{}{} })
			if err != nil {
				t.Fatal(err)
			}
			if p.Request.Action.Tool != "parley.vxp.grant" || p.Request.Action.Target != client {
				t.Fatalf("the grant's request: %+v", p.Request.Action)
			}
			list := ok(t, with(P, "approvals", "list")...)
			for _, want := range []string{p.Request.RequestID, "Grant an outside agent exactly the authority below to act for you (user code BCDF-GHJK)", client, "offer.respond"} {
				if !strings.Contains(list, want) {
					t.Fatalf("approvals list lacks %q:\n%s", want, list)
				}
			}
			tc.decide(p.Request.RequestID)
			select {
			case <-decided:
			case <-time.After(30 * time.Second):
				t.Fatal("the grant was not decided")
			}
			select {
			case <-granted:
				if !tc.granted {
					t.Fatal("a denied grant ran")
				}
			case <-time.After(2 * time.Second):
				if tc.granted {
					t.Fatal("the approved grant did not run")
				}
			}
		})
	}
}
