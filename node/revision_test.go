package node_test

import (
	"testing"
	"time"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// clientOf returns a chain client acting with n's own EVM key, for what
// the node does not do itself yet (a worker's claim of an unanswered
// delivery).
func (c *revChain) clientOf(n *tnode) *chain.Client {
	c.t.Helper()
	kr, err := identity.Open(keyConfig(n.dir), testPass)
	if err != nil {
		c.t.Fatal(err)
	}
	cfg := chain.DefaultConfig()
	cfg.PollInterval = 5 * time.Millisecond
	cfg.Contracts = c.addrs
	cl, err := chain.New(c.sim, kr.EVM(), cfg, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return cl
}

// envelopeAt returns n's copy of the envelope ref names, decoded.
func envelopeAt(t *testing.T, n *tnode, ref *node.EnvelopeRef) *negotiation.Envelope {
	t.Helper()
	raw, err := n.File(t.Context(), mustCID(t, ref.CID))
	if err != nil {
		t.Fatalf("%s holds no envelope %s: %v", n.name, ref.CID, err)
	}
	env, err := negotiation.Decode(raw, negotiation.DecodeOptions{MaxBytes: len(raw)})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestRevisionStopsTheReviewClock: the poster sends a delivered milestone
// back to work (gated: request_revision). On chain the milestone is
// revising and its review clock stopped: the worker's claim of the
// unanswered delivery is refused however long it waits, both threads show
// the milestone back at work, and the worker delivers again; only once
// the new delivery's review period ran out does the claim pay it, to the
// wei. A revision the chain refuses (the review period is over) sends
// nothing.
func TestRevisionStopsTheReviewClock(t *testing.T) {
	const review = time.Hour
	gate := &recGate{}
	c, poster, worker := revPair(t, review, withGate(gate))
	nid := agree(t, poster, worker, eth(300), eth(200))
	d1 := deliver(t, poster, worker, nid, 0, []byte("chapter 1, first draft"))
	v := poster.waitState(nid, negotiation.StateDelivered)
	delivery := v.Deliveries[0].Notice

	if _, err := poster.RequestRevision(t.Context(), nid, node.RevisionSpec{Milestone: 0}); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("a revision without a reason: %v", err)
	}
	if _, err := poster.RequestRevision(t.Context(), nid, node.RevisionSpec{Milestone: 1, Reason: "x"}); node.CodeOf(err) != node.Code(negotiation.CodeMilestoneInvalid) {
		t.Fatalf("a revision of an undelivered milestone: %v", err)
	}
	if _, err := worker.RequestRevision(t.Context(), nid, node.RevisionSpec{Milestone: 0, Reason: "x"}); node.CodeOf(err) != node.CodeNotParty {
		t.Fatalf("the worker's revision request: %v", err)
	}
	const reason = "the glossary terms are not used; please revise"
	res, err := poster.RequestRevision(t.Context(), nid, node.RevisionSpec{Milestone: 0, Reason: reason})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tx == nil || res.Envelope == nil || res.Envelope.Type != negotiation.TypeRevisionRequest || res.Thread.State != negotiation.StateFunded {
		t.Fatalf("RequestRevision = %+v", res)
	}
	asked := gate.asked(node.ActRequestRevision)
	if len(asked) != 1 || argsOf(t, asked[0])["milestone"] != "0" || argsOf(t, asked[0])["deliveryHash"] != delivery.String() ||
		argsOf(t, asked[0])["reason"] != reason || argsOf(t, asked[0])["proofCid"] != d1 {
		t.Fatalf("the gate was asked %+v", asked)
	}
	task := c.task(res.Thread)
	if m := task.Milestones[0]; m.State != chain.MilestoneRevising || m.Revisions != 1 {
		t.Fatalf("milestone 0 on chain: %+v", m)
	}

	// Both threads: the milestone is back at work; the worker holds the
	// request with its reason and the delivery it answers.
	wv := worker.waitState(nid, negotiation.StateFunded)
	if _, err := worker.Thread(nid); err != nil {
		t.Fatal(err)
	}
	got := envelopeAt(t, worker, res.Envelope).Payload.(*negotiation.RevisionRequest)
	if got.Milestone != 0 || got.Reason != reason || got.InReplyTo == nil || *got.InReplyTo != delivery {
		t.Fatalf("the worker's RevisionRequest: %+v", got)
	}
	if last := wv.Log[len(wv.Log)-1]; last.Type != negotiation.TypeRevisionRequest || last.Code != "ok" {
		t.Fatalf("the worker's last record: %+v", last)
	}
	if pv, _ := poster.Thread(nid); pv.State != negotiation.StateFunded {
		t.Fatalf("the poster's thread: %s", pv.State)
	}

	// The review clock stopped: no claim, however long the worker waits.
	wc := c.clientOf(worker)
	c.later(2 * review)
	if _, err := wc.ClaimUnanswered(t.Context(), mustTaskID(t, task, res.Thread), c.task(res.Thread), 0); err == nil {
		t.Fatal("the worker claimed a milestone sent back to work")
	}
	if _, err := poster.RequestRevision(t.Context(), nid, node.RevisionSpec{Milestone: 0, Reason: reason}); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("a second revision without a new delivery: %v", err)
	}

	// The worker delivers again; the claim waits for the new review period.
	deliver(t, poster, worker, nid, 0, []byte("chapter 1, second draft"))
	id := mustTaskID(t, task, res.Thread)
	if _, err := wc.ClaimUnanswered(t.Context(), id, c.task(res.Thread), 0); err == nil {
		t.Fatal("the worker claimed a fresh delivery before its review period ran out")
	}
	c.later(review + time.Minute)
	// The review period is over: the chain refuses a revision now, and the
	// node sends nothing.
	pv, _ := poster.Thread(nid)
	if _, err := poster.RequestRevision(t.Context(), nid, node.RevisionSpec{Milestone: 0, Reason: "too late"}); node.CodeOf(err) != node.CodeChainFailed {
		t.Fatalf("a revision after the review period: %v", err)
	}
	if after, _ := poster.Thread(nid); len(after.Log) != len(pv.Log) || after.State != negotiation.StateDelivered {
		t.Fatalf("a refused revision changed the thread: %d records (had %d), %s", len(after.Log), len(pv.Log), after.State)
	}
	if _, err := wc.ClaimUnanswered(t.Context(), id, c.task(res.Thread), 0); err != nil {
		t.Fatalf("the worker's claim after the new review period: %v", err)
	}
	eventually(t, "both threads to take the claimed milestone", func() bool {
		a, _ := poster.Thread(nid)
		b, _ := worker.Thread(nid)
		return a.State == negotiation.StateFunded && b.State == negotiation.StateFunded
	})
	if got := owed(t, worker); got.Cmp(eth(300)) != 0 {
		t.Fatalf("the worker is owed %s, want %s", got, eth(300))
	}
}

// mustTaskID returns the task id of the thread view v.
func mustTaskID(t *testing.T, _ chain.Task, v node.ThreadView) [32]byte {
	t.Helper()
	id, err := chain.ParseTaskID(v.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
