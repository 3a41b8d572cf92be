package node_test

import (
	"context"

	"encoding/json"
	"errors"
	"github.com/ipfs/go-cid"
	"testing"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// kinds counts a node's ledger entries of negotiation nid by kind.
func kinds(t *testing.T, n *tnode, nid string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for e, err := range n.Ledger().ByNegotiation(t.Context(), nid) {
		if err != nil {
			t.Fatal(err)
		}
		out[e.Kind]++
	}
	return out
}

// approvalEvents lists the approval events a node recorded for nid.
func approvalEvents(t *testing.T, n *tnode, nid string) []string {
	t.Helper()
	var out []string
	for e, err := range n.Ledger().ByNegotiation(t.Context(), nid) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != ledger.KindApproval {
			continue
		}
		var b struct {
			Event      string `json:"event"`
			IntentHash string `json:"intentHash"`
		}
		if err := json.Unmarshal(e.Body, &b); err != nil {
			t.Fatal(err)
		}
		if len(b.IntentHash) != 64 {
			t.Fatalf("approval entry without an intent hash: %s", e.Body)
		}
		out = append(out, b.Event)
	}
	return out
}

// TestNegotiationFromTheBoard: the poster announces, the worker finds the
// announcement on its board and counters, both accept the counter, and
// both threads agree on one digest; each node's thread is what its ledger
// replays to, and the ledger holds the signers' identity links.
func TestNegotiationFromTheBoard(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	eventually(t, "the worker on the task board", func() bool { return len(worker.Host().TopicPeers("/parley/taskboard/1")) > 0 })
	eventually(t, "the poster on the task board", func() bool { return len(poster.Host().TopicPeers("/parley/taskboard/1")) > 0 })

	ann, err := poster.PostTask(t.Context(), spec("Translate the user guide", eth(300), eth(200)))
	if err != nil {
		t.Fatal(err)
	}
	last := time.Now()
	eventually(t, "the announcement on the worker's board", func() bool {
		if time.Since(last) > 2*time.Second {
			// Gossip keeps no history: publish again in case the mesh
			// was not formed yet (an operator would, too).
			_ = poster.Announce(t.Context(), ann.Hash)
			last = time.Now()
		}
		for _, a := range worker.Board() {
			if a.Hash == ann.Hash && !a.Own && a.Poster == poster.Address() {
				return true
			}
		}
		return false
	})
	res, err := worker.CounterAnnouncement(t.Context(), ann.Hash, node.CounterSpec{
		Milestones: []node.MilestoneSpec{{Amount: eth(350), Description: "chapter 1"}, {Amount: eth(250), Description: "chapter 2"}},
		Reason:     "technical glossary",
	})
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	if res.Thread.State != negotiation.StateCountered || res.Thread.Role != negotiation.RoleWorker || *res.Thread.Announcement != ann.Hash {
		t.Fatalf("worker's thread after the counter: %+v", res.Thread)
	}
	pv := poster.waitState(nid, negotiation.StateCountered)
	if pv.Role != negotiation.RolePoster || pv.Current.Revision != 2 || pv.A2A != negotiation.A2AInputRequired {
		t.Fatalf("poster's thread: %+v", pv)
	}
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	head := poster.Ledger().Head()
	if _, err := poster.Accept(t.Context(), nid); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("accepting the same offer twice: %v", err)
	}
	if poster.Ledger().Head() != head {
		t.Fatal("a refused second acceptance wrote to the ledger")
	}
	worker.waitState(nid, negotiation.StateCountered)
	eventually(t, "the poster's acceptance at the worker", func() bool {
		v, _ := worker.Thread(nid)
		return len(v.Log) == 2
	})
	res, err = worker.Accept(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	if res.Thread.State != negotiation.StateAgreed || res.Detail["digest"] == "" {
		t.Fatalf("worker after accepting: %+v", res)
	}
	pv = poster.waitState(nid, negotiation.StateAgreed)
	if pv.Agreement.Digest != res.Thread.Agreement.Digest || pv.Agreement.Amount != eth(600).String() {
		t.Fatalf("agreements differ: %+v vs %+v", pv.Agreement, res.Thread.Agreement)
	}
	for _, n := range []*tnode{poster, worker} {
		k := kinds(t, n, nid)
		if k["thread.opened"] != 1 || k["identity.link"] != 2 || k["envelope.sent"]+k["envelope.received"] != 3 || k["approval"] != 3 {
			t.Fatalf("%s's ledger for the negotiation: %v", n.name, k)
		}
		if ev := approvalEvents(t, n, nid); len(ev) != 3 || ev[0] != "request-created" || ev[2] != "consumed" {
			t.Fatalf("%s's approval records: %v", n.name, ev)
		}
		th, err := n.Ledger().ReplayThread(t.Context(), negotiation.Params{NegotiationID: nid, Self: n.Address(), Announcement: mustAnn(t, n, ann.Hash)}, nil)
		if err != nil || th.State() != negotiation.StateAgreed {
			t.Fatalf("%s's ledger replays to %v, %v", n.name, th, err)
		}
	}
}

func mustAnn(t *testing.T, n *tnode, h negotiation.Hash) *negotiation.Envelope {
	t.Helper()
	for _, a := range n.Board() {
		if a.Hash == h {
			raw, err := n.Ledger().Object(t.Context(), mustCID(t, a.CID))
			if err != nil {
				t.Fatal(err)
			}
			env, err := negotiation.Decode(raw, negotiation.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return env
		}
	}
	t.Fatalf("no announcement %s", h)
	return nil
}

// TestDeniedApprovalSignsAndSendsNothing: the worker's gate denies the
// settlement signature; the act fails with approval_denied, the thread is
// unchanged, nothing was stored as sent or queued, the poster received
// nothing, and the ledger records the request and the denial.
func TestDeniedApprovalSignsAndSendsNothing(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	var asked []node.ApprovalRequest
	deny := node.GateFunc(func(_ context.Context, r node.ApprovalRequest) (node.Decision, error) {
		asked = append(asked, r)
		return node.Decision{Approved: false, Method: "operator", By: "test", Reason: "not at this price"}, nil
	})
	worker := w.add("worker", withBootstrap(poster), withGate(deny))
	connect(t, poster, worker)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Proofread", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	before := worker.waitState(nid, negotiation.StateProposed)
	ledgerBefore := worker.Ledger().Head()

	_, err = worker.Accept(t.Context(), nid)
	if !errors.Is(err, node.ErrApprovalDenied) || node.CodeOf(err) != node.CodeApprovalDenied {
		t.Fatalf("Accept with a denying gate = %v", err)
	}
	if len(asked) != 1 || asked[0].Act != node.ActSignSettlement || asked[0].Request.Action.Target != nid ||
		argsOf(t, asked[0])["digest"] == nil || asked[0].Request.Validate() != nil {
		t.Fatalf("the gate was asked %+v", asked)
	}
	after, _ := worker.Thread(nid)
	if len(after.Log) != len(before.Log) || after.State != negotiation.StateProposed {
		t.Fatalf("the worker's thread changed: %+v", after)
	}
	k := kinds(t, worker, nid)
	if k["envelope.sent"] != 0 || k["outbox.queued"] != 0 {
		t.Fatalf("something was sent: %v", k)
	}
	if ev := approvalEvents(t, worker, nid); len(ev) != 2 || ev[0] != "request-created" || ev[1] != "denied" {
		t.Fatalf("approval records: %v", ev)
	}
	// Only the two approval entries were appended.
	if got := worker.Ledger().Head().Seq - ledgerBefore.Seq; got != 2 {
		t.Fatalf("%d entries appended, want the 2 approval records", got)
	}
	pv, _ := poster.Thread(nid)
	if len(pv.Log) != 1 {
		t.Fatalf("the poster received something: %+v", pv.Log)
	}
}

func mustCID(t *testing.T, s string) cid.Cid {
	t.Helper()
	c, err := cid.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
