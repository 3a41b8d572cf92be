package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/demo"
)

// agentSteps are the outside agent's steps in order (scripts/vxp-agent.mjs).
var agentSteps = []string{
	"discovered", "identified", "token", "invalid_target", "bearer_refused", "idempotency_key_required", "authorization_required",
	"device_authorization", "granted", "proposed", "idempotency_key_reused", "countered", "paused",
	"terms_changed", "paused", "accepted", "accepted_once", "succeeded", "events", "proof_verified",
	"proposed", "waiting_human", "succeeded", "proof_verified", "relationship_deleted", "revoked", "done",
}

// approveWithCLI approves p's pending request id as a person's automation
// does: `parley approvals approve ID --software-key FILE` against the
// node's API.
func approveWithCLI(t *testing.T, ctx context.Context, p devnetPorts, id string) {
	t.Helper()
	var out, errb bytes.Buffer
	if err := runCLI(ctx, &out, &errb, "approvals", "approve", id, "--software-key", p.SoftwareKeyFile, "--api", p.APIURL, "--api-key-file", p.APIKeyFile); err != nil {
		t.Fatalf("parley approvals approve %s: %v\n%s%s", id, err, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "approved "+id) {
		t.Fatalf("approve printed:\n%s", out.String())
	}
}

// pendingOf waits for p's pending request that match accepts.
func pendingOf(t *testing.T, ctx context.Context, p demo.Party, what string, match func(node.PendingApproval) bool) node.PendingApproval {
	t.Helper()
	var got node.PendingApproval
	eventually(t, what, func() bool {
		reqs, err := p.API.Approvals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reqs {
			if match(r) {
				got = r
				return true
			}
		}
		return false
	})
	return got
}

// snapshot is what the stale accept must leave as it was: the poster's
// whole ledger head, and both nodes' views of the negotiation.
type snapshot struct {
	posterHead           string
	workerSeq            uint64
	posterView, workerVw []byte
	// The negotiation's ledger entries on each node (seq and kind), from
	// its proof bundle.
	posterEntries, workerEntries []string
}

// negotiationEntries returns the seq and kind of every ledger entry of
// negotiation nid on p's node, from the proof bundle its API exports.
func negotiationEntries(t *testing.T, ctx context.Context, p demo.Party, nid string) []string {
	t.Helper()
	var b bytes.Buffer
	if err := p.API.Bundle(ctx, nid, &b); err != nil {
		t.Fatal(err)
	}
	rep, err := node.VerifyBundle(bytes.NewReader(b.Bytes()), ledger.BundleOptions{})
	if err != nil {
		t.Fatalf("%s's bundle of %s: %v", p.Name, nid, err)
	}
	var out []string
	for _, e := range rep.Negotiation {
		out = append(out, fmt.Sprintf("%d %s", e.Seq, e.Kind))
	}
	return out
}

func takeSnapshot(t *testing.T, ctx context.Context, poster, worker demo.Party, nid string) snapshot {
	t.Helper()
	// The bundles first: exporting one signs the tree head when the
	// ledger grew since the last (a tree.head entry).
	var s snapshot
	s.posterEntries = negotiationEntries(t, ctx, poster, nid)
	s.workerEntries = negotiationEntries(t, ctx, worker, nid)
	st, err := poster.API.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.posterHead = fmt.Sprintf("%s#%d", st.Ledger.Hash, st.Ledger.Seq)
	ws, err := worker.API.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.workerSeq = ws.Ledger.Seq
	for _, p := range []struct {
		party demo.Party
		dst   *[]byte
	}{{poster, &s.posterView}, {worker, &s.workerVw}} {
		v, err := p.party.API.Negotiation(ctx, nid)
		if err != nil {
			t.Fatal(err)
		}
		if *p.dst, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestVXPOutsideAgent is issue 16's end-to-end test: an outside agent
// written in another language from the RFCs, with libraries nobody here
// wrote (scripts/vxp-agent.mjs: npm oauth4webapi and jose), drives VXP's
// whole flow against `parley devnet` (separate processes, this binary run
// as parley) for the worker's principal: discovery, a jwt-bearer token,
// 202 authorization_required, the device authorization approved with the
// devnet's software passkey through `parley approvals approve`, the same
// Idempotency-Key re-evaluated to proposed, a counter, the stale accept
// refused with nothing changed on either node, the current accept, succeeded
// only once the poster holds the counter-offer, the proof verified with
// the issuer's keys, a gated accept through waiting_human approved the
// same way, and the revocation.
func TestVXPOutsideAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a devnet of four processes and a Node.js agent")
	}
	script, nodeBin, err := findAgentScript(".")
	if err != nil {
		t.Skip(err)
	}
	t.Setenv("PARLEY_TEST_AS_MAIN", "1")
	ctx := t.Context()
	var out syncBuffer
	dn, err := startDevnetProcess(ctx, &out, t.TempDir(), true)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Cleanup(func() { _ = dn.stop() })
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"\nthe devnet's log:\n%s", append(args, tail(dn.logPath, 60))...)
	}
	st := readDevnetState(t, dn.dir)
	poster, worker := dn.parties["poster"], dn.parties["worker"]
	ws, err := worker.API.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Nodes["worker"].EVMAddress != ws.Address.String() {
		t.Fatalf("devnet.json names the worker's address %s, its API %s", st.Nodes["worker"].EVMAddress, ws.Address)
	}
	// The negotiation the agent answers for the worker: the poster's offer.
	res, err := poster.API.ProposeTask(ctx, ws.Address, node.TaskSpec{
		Title: "Proofread the release notes", Category: "proofreading",
		Milestones: []node.MilestoneSpec{{Amount: big.NewInt(2e17), Description: "the notes"}, {Amount: big.NewInt(1e17), Description: "the changelog"}},
		Deadline:   time.Now().Add(48 * time.Hour).Truncate(time.Second),
	})
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	eventually(t, "the worker to hold the offer", func() bool {
		v, err := worker.API.Negotiation(ctx, nid)
		return err == nil && v.State == negotiation.StateProposed
	})

	agent, err := startOutsideAgent(ctx, script, nodeBin, filepath.Join(dn.dir, "devnet.json"), "worker", nid, time.Minute, "countered", "terms_changed")
	if err != nil {
		t.Fatal(err)
	}
	var (
		seen                       []string
		discovered, identified     agentStep
		before                     snapshot
		counterAmounts, effectCIDs []string
		relationship               string
		firstSucceeded, waitedOnce bool
	)
	for {
		s, err := agent.next(2 * time.Minute)
		if err != nil {
			fail("after %v: %v", seen, err)
		}
		seen = append(seen, s.Step)
		line, _ := json.Marshal(s.Data)
		t.Logf("agent: %s", line)
		switch s.Step {
		case "discovered":
			discovered = s
			if s.str("vxp_url") != st.Nodes["worker"].VXPURL || s.str("issuer") != st.Nodes["worker"].VXPURL+"/vxp" || s.str("subject") != ws.Address.String() {
				t.Fatalf("discovered: %v", s.Data)
			}
		case "identified":
			identified = s
		case "token":
			if n, _ := s.Data["client_document_fetches"].(float64); n < 1 {
				t.Fatalf("the issuer did not fetch the agent's client document: %v", s.Data)
			}
		case "device_authorization":
			// The grant waits for the worker's principal like every gated
			// act: tool parley.vxp.grant, target the client_id, the exact
			// arguments; the devnet's software passkey approves it.
			p := pendingOf(t, ctx, worker, "the grant's approval request", func(p node.PendingApproval) bool {
				return p.Act == node.ActVXPGrant && p.Request.Action.Tool == node.ToolVXPGrant && p.Request.Action.Target == identified.str("client_id") &&
					strings.Contains(string(p.Request.Action.Arguments), `"user_code":"`+s.str("user_code")+`"`)
			})
			var args map[string]any
			if err := json.Unmarshal(p.Request.Action.Arguments, &args); err != nil {
				t.Fatal(err)
			}
			details, _ := args["authorization_details"].(string)
			if args["resource"] != discovered.str("endpoint") || args["dpop_jkt"] != identified.str("dpop_jkt") ||
				!strings.Contains(details, `"actions":["offer.respond"]`) || !strings.Contains(details, `"identifier":"`+nid+`"`) {
				t.Fatalf("the grant's arguments: %v", args)
			}
			if s.str("verification_uri") != st.Nodes["worker"].WebURL+"/device" {
				t.Fatalf("verification_uri %q", s.str("verification_uri"))
			}
			approveWithCLI(t, ctx, st.Nodes["worker"], p.Request.RequestID)
		case "countered":
			ms, _ := s.Data["milestones"].([]any)
			for _, m := range ms {
				a, _ := m.(map[string]any)["amount"].(string)
				counterAmounts = append(counterAmounts, a)
			}
		case "paused":
			switch s.str("at") {
			case "countered":
				// A counter revision is the agent's proposal, not an
				// envelope: nothing was sent yet.
				before = takeSnapshot(t, ctx, poster, worker, nid)
				if v, _ := worker.API.Negotiation(ctx, nid); v.State != negotiation.StateProposed {
					t.Fatalf("the worker's thread after the counter revision: %s", v.State)
				}
			case "terms_changed":
				// The stale accept ran nothing: neither node changed.
				after := takeSnapshot(t, ctx, poster, worker, nid)
				if after.posterHead != before.posterHead {
					t.Fatalf("the poster's ledger moved at the stale accept: %s -> %s", before.posterHead, after.posterHead)
				}
				if !bytes.Equal(after.posterView, before.posterView) || !bytes.Equal(after.workerVw, before.workerVw) {
					t.Fatalf("a node's view of the negotiation changed at the stale accept:\n%s\n%s\n%s\n%s", before.posterView, after.posterView, before.workerVw, after.workerVw)
				}
				if !slices.Equal(after.posterEntries, before.posterEntries) || !slices.Equal(after.workerEntries, before.workerEntries) {
					t.Fatalf("the negotiation's ledger entries changed at the stale accept:\nposter %v -> %v\nworker %v -> %v", before.posterEntries, after.posterEntries, before.workerEntries, after.workerEntries)
				}
				// The worker's ledger grew only by VXP's own record of the
				// request (the refused attempt counts), which names no
				// negotiation.
				t.Logf("the worker's ledger at the stale accept: %d -> %d entries (the request's record)", before.workerSeq, after.workerSeq)
			}
			if err := agent.resume(); err != nil {
				t.Fatal(err)
			}
		case "granted":
			relationship = s.str("relationship_id")
		case "succeeded":
			effs, _ := s.Data["effects"].([]any)
			for _, e := range effs {
				if c, _ := e.(map[string]any)["cid"].(string); c != "" {
					effectCIDs = append(effectCIDs, c)
				}
			}
			if !firstSucceeded {
				// Succeeded only once the poster holds the counter-offer.
				firstSucceeded = true
				v, err := poster.API.Negotiation(ctx, nid)
				if err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(v.Log, func(r node.RecordView) bool {
					return r.Type == negotiation.TypeTaskCounterOffer && r.Sender == ws.Address && (r.Code == "" || r.Code == "ok")
				})
				if v.State != negotiation.StateCountered || i < 0 || v.Current == nil || v.Current.By != ws.Address {
					t.Fatalf("the request succeeded, but the poster's thread is %s without the worker's counter-offer: %+v", v.State, v.Log)
				}
				var got []string
				for _, m := range v.Current.Terms.Milestones {
					got = append(got, m.Amount.String())
				}
				if !slices.Equal(got, counterAmounts) {
					t.Fatalf("the poster holds milestones %v, the agent countered %v", got, counterAmounts)
				}
				continue
			}
			v, err := worker.API.Negotiation(ctx, nid)
			if err != nil || !slices.ContainsFunc(v.Log, func(r node.RecordView) bool {
				return r.Type == negotiation.TypeTaskAcceptance && r.Sender == ws.Address && (r.Code == "" || r.Code == "ok")
			}) {
				t.Fatalf("the gated request succeeded without the worker's acceptance: %v %+v", err, v.Log)
			}
		case "waiting_human":
			// approved_by "user" approved nothing: the settlement's
			// signature waits for the principal's passkey.
			waitedOnce = true
			p := pendingOf(t, ctx, worker, "the settlement's approval request", func(p node.PendingApproval) bool {
				return p.Act == node.ActSignSettlement && p.Request.Action.Target == nid
			})
			approveWithCLI(t, ctx, st.Nodes["worker"], p.Request.RequestID)
		case "revoked":
			if n, _ := s.Data["status"].(float64); n != 401 {
				t.Fatalf("after the revocation: %v", s.Data)
			}
		}
		if s.Step == "done" {
			break
		}
	}
	if err := agent.wait(); err != nil {
		fail("the agent exited with %v\n%s", err, agent.logs())
	}
	if !slices.Equal(seen, agentSteps) || !waitedOnce {
		t.Fatalf("steps %v, want %v", seen, agentSteps)
	}
	// The effects' CIDs are in the negotiation's proof bundle, and nothing
	// of the agent is: no client id, grant or relationship.
	var bundle bytes.Buffer
	if err := worker.API.Bundle(ctx, nid, &bundle); err != nil {
		t.Fatal(err)
	}
	if len(effectCIDs) != 2 {
		t.Fatalf("effects %v", effectCIDs)
	}
	for _, c := range effectCIDs {
		if !bytes.Contains(bundle.Bytes(), []byte(c)) {
			t.Fatalf("the bundle of %s lacks the effect %s", nid, c)
		}
	}
	for _, s := range []string{identified.str("client_id"), "agent.json", relationship, "grt_", "vxp.grant", "vxp.request"} {
		if s == "" || bytes.Contains(bundle.Bytes(), []byte(s)) {
			t.Fatalf("the negotiation's bundle names the agent (%q)", s)
		}
	}
	// The principal sees the agent on its node's API (GET /v1/agents, as
	// `parley agents list` and the /agents page show it), its grant no
	// longer in force.
	key, err := readAPIKey(st.Nodes["worker"].APIKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, st.Nodes["worker"].APIURL+"/v1/agents", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+string(key))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var agents []struct {
		ClientID string `json:"clientId"`
		Grants   []struct {
			Active bool `json:"active"`
		} `json:"grants"`
		Requests []struct {
			State string `json:"state"`
		} `json:"requests"`
	}
	err = json.NewDecoder(resp.Body).Decode(&agents)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(agents) != 1 || agents[0].ClientID != identified.str("client_id") ||
		len(agents[0].Grants) != 1 || agents[0].Grants[0].Active || len(agents[0].Requests) != 2 {
		t.Fatalf("the worker's agents: %d %+v %v", resp.StatusCode, agents, err)
	}
}
