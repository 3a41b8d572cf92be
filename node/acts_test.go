package node_test

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// recGate approves every request except the acts it denies, and keeps
// every request it was asked.
type recGate struct {
	mu   sync.Mutex
	deny map[node.Act]bool
	reqs []node.ApprovalRequest
}

func (g *recGate) Decide(_ context.Context, r node.ApprovalRequest) (node.Decision, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reqs = append(g.reqs, r)
	if g.deny[r.Act] {
		return node.Decision{Approved: false, Method: "operator", By: "test", Reason: "no"}, nil
	}
	return node.Decision{Approved: true, Method: "auto", By: "test"}, nil
}

// asked returns the requests of act the gate was asked.
func (g *recGate) asked(act node.Act) []node.ApprovalRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []node.ApprovalRequest
	for _, r := range g.reqs {
		if r.Act == act {
			out = append(out, r)
		}
	}
	return out
}

// chainTask reads the task of thread view v from the world's chain.
func chainTask(t *testing.T, w *world, v node.ThreadView) chain.Task {
	t.Helper()
	b, err := chain.DialRPC(t.Context(), w.dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := chain.New(b, w.dev.Deployer.Signer(), w.dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := chain.ParseTaskID(v.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.TaskState(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestCancelFundedTask: the poster signs the cancel of a funded task, the
// worker co-signs it, the poster's node submits the pair on receipt, the
// chain refunds the escrow to the poster and both threads are cancelled.
func TestCancelFundedTask(t *testing.T) {
	w := newWorld(t, true)
	gate := &recGate{}
	poster := w.add("poster", withGate(gate))
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	nid := agree(t, poster, worker, eth(300), eth(200))

	res, err := poster.Cancel(t.Context(), nid, "the scope changed")
	if err != nil {
		t.Fatal(err)
	}
	if res.Envelope == nil || res.Envelope.Type != negotiation.TypeMutualCancel || res.Detail["coSigned"] != "false" || res.Tx != nil {
		t.Fatalf("the poster's Cancel = %+v", res)
	}
	if asked := gate.asked(node.ActSignCancel); len(asked) != 1 || argsOf(t, asked[0])["refund"] != eth(500).String() ||
		argsOf(t, asked[0])["digest"] == nil || argsOf(t, asked[0])["nonce"] != "0" {
		t.Fatalf("the gate was asked %+v", asked)
	}
	if _, err := poster.Cancel(t.Context(), nid, "again"); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("cancelling twice: %v", err)
	}
	worker.waitLog(nid, 4)
	wres, err := worker.Cancel(t.Context(), nid, "agreed")
	if err != nil {
		t.Fatal(err)
	}
	if wres.Detail["coSigned"] != "true" || wres.Detail["submitBy"] != "poster" || wres.Detail["digest"] != res.Detail["digest"] {
		t.Fatalf("the worker's Cancel = %+v", wres)
	}
	pv := poster.waitState(nid, negotiation.StateCancelled)
	worker.waitState(nid, negotiation.StateCancelled)
	if pv.A2A != negotiation.A2ACanceled {
		t.Fatalf("the poster's thread: %s %s", pv.State, pv.A2A)
	}
	task := chainTask(t, w, pv)
	if task.Status != chain.TaskClosed || task.Milestones[0].State != chain.MilestoneRefunded || task.Milestones[1].State != chain.MilestoneRefunded {
		t.Fatalf("the task on chain: %+v", task)
	}
	withdraw(t, poster, eth(500))
	if owed, _ := worker.Owed(t.Context(), negotiation.Address{}); owed.Sign() != 0 {
		t.Fatalf("the worker is owed %s", owed)
	}
	if _, err := worker.Cancel(t.Context(), nid, "late"); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("cancelling a cancelled task: %v", err)
	}
}

// TestCancelBeforeFunding: before funding a cancel is the two parties'
// signed intents; there is nothing on chain.
func TestCancelBeforeFunding(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Proofread", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	wres, err := worker.Cancel(t.Context(), nid, "not this week")
	if err != nil {
		t.Fatal(err)
	}
	if wres.Thread.State != negotiation.StateProposed || wres.Detail["coSigned"] != "false" || wres.Envelope.Type != negotiation.TypeMutualCancel {
		t.Fatalf("the worker's Cancel = %+v", wres)
	}
	poster.waitLog(nid, 2)
	pres, err := poster.Cancel(t.Context(), nid, "fine")
	if err != nil {
		t.Fatal(err)
	}
	if pres.Thread.State != negotiation.StateCancelled || pres.Detail["coSigned"] != "true" {
		t.Fatalf("the poster's Cancel = %+v", pres)
	}
	v := worker.waitState(nid, negotiation.StateCancelled)
	if v.A2A != negotiation.A2ACanceled {
		t.Fatalf("the worker's thread: %s", v.A2A)
	}
	if _, err := worker.Cancel(t.Context(), nid, "again"); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("cancelling a cancelled negotiation: %v", err)
	}
	if _, err := poster.Amend(t.Context(), nid, node.AmendSpec{}); node.CodeOf(err) != node.CodeNoChain {
		t.Fatalf("amending without a chain: %v", err)
	}
}

// TestAmendFundedTask: a released milestone cannot be amended; the worker
// proposes a new deadline and a larger second milestone, the poster
// co-signs it as it stands, its node calls amend paying the rise, and both
// threads (also after a restart) hold the new milestones; the new amount
// is what the worker is paid.
func TestAmendFundedTask(t *testing.T) {
	w := newWorld(t, true)
	gate := &recGate{}
	poster := w.add("poster", withGate(gate))
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	nid := agree(t, poster, worker, eth(300), eth(200))
	deliver(t, poster, worker, nid, 0, []byte("part one"))
	if _, err := poster.AcceptDelivery(t.Context(), nid, 0); err != nil {
		t.Fatal(err)
	}
	worker.waitLog(nid, 5)

	deadline := time.Now().Add(96 * time.Hour).Truncate(time.Second)
	before, _ := poster.Thread(nid)
	sentBefore := kinds(t, poster, nid)["envelope.sent"]
	_, err := poster.Amend(t.Context(), nid, node.AmendSpec{
		Milestones: []node.MilestoneSpec{{Amount: eth(250), Description: "part 1"}, {Amount: eth(250), Description: "part 2"}},
		Deadline:   deadline,
	})
	if node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("amending a released milestone: %v", err)
	}
	if after, _ := poster.Thread(nid); len(after.Log) != len(before.Log) || kinds(t, poster, nid)["envelope.sent"] != sentBefore || len(gate.asked(node.ActSignAmendment)) != 0 {
		t.Fatal("a refused amendment changed something")
	}
	if _, err := poster.Amend(t.Context(), nid, node.AmendSpec{}); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("co-signing an amendment nobody proposed: %v", err)
	}

	amended := []node.MilestoneSpec{{Amount: eth(300), Description: "part 1"}, {Amount: eth(250), Description: "part 2, with an index"}}
	wres, err := worker.Amend(t.Context(), nid, node.AmendSpec{Milestones: amended, Deadline: deadline, Reason: "the index was added"})
	if err != nil {
		t.Fatal(err)
	}
	if wres.Envelope.Type != negotiation.TypeMilestoneDefinition || wres.Detail["coSigned"] != "false" {
		t.Fatalf("the worker's Amend = %+v", wres)
	}
	poster.waitLog(nid, len(before.Log)+1)
	pres, err := poster.Amend(t.Context(), nid, node.AmendSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if pres.Tx == nil || pres.Detail["coSigned"] != "true" || pres.Detail["digest"] != wres.Detail["digest"] {
		t.Fatalf("the poster's Amend = %+v", pres)
	}
	asked := gate.asked(node.ActSignAmendment)
	if len(asked) != 1 || argsOf(t, asked[0])["topUp"] != eth(50).String() || argsOf(t, asked[0])["deadline"] != deadline.UTC().Format(time.RFC3339) {
		t.Fatalf("the gate was asked %+v", asked)
	}
	want := []negotiation.Milestone{
		{Amount: negotiation.NewUint256(eth(300)), Description: "part 1"},
		{Amount: negotiation.NewUint256(eth(250)), Description: "part 2, with an index"},
	}
	same := func(got []negotiation.Milestone) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if got[i].Amount.Cmp(&want[i].Amount.Int) != 0 || got[i].Description != want[i].Description {
				return false
			}
		}
		return true
	}
	if !same(pres.Thread.Milestones) {
		t.Fatalf("the poster's milestones: %+v", pres.Thread.Milestones)
	}
	eventually(t, "the worker's thread to hold the amended milestones", func() bool {
		v, err := worker.Thread(nid)
		return err == nil && same(v.Milestones)
	})
	task := chainTask(t, w, pres.Thread)
	if task.Deadline != uint64(deadline.Unix()) || task.Nonce != 1 || task.Milestones[1].Amount.Cmp(eth(250)) != 0 || chain.Escrow(task).Cmp(eth(250)) != 0 {
		t.Fatalf("the task on chain: %+v", task)
	}
	worker.restart()
	if v, _ := worker.Thread(nid); !same(v.Milestones) || v.State != negotiation.StateFunded {
		t.Fatalf("the worker's thread after a restart: %s %+v", v.State, v.Milestones)
	}
	connect(t, poster, worker)
	deliver(t, poster, worker, nid, 1, []byte("part two, with an index"))
	if _, err := poster.AcceptDelivery(t.Context(), nid, 1); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateCompleted)
	withdraw(t, worker, eth(550))
}

// TestReplaceWorker: the poster hands the funded task to a third node, the
// worker co-signs the same hand-over package, the poster's node calls
// replaceWorker, and the new worker joins the thread from the package,
// takes over, delivers and is paid; the old worker can no longer act.
func TestReplaceWorker(t *testing.T) {
	w := newWorld(t, true)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	newcomer := w.add("newcomer", withBootstrap(poster, worker))
	connect(t, poster, worker)
	connect(t, poster, newcomer)
	connect(t, worker, newcomer)
	nid := agree(t, poster, worker, eth(400))
	// Another negotiation of the same parties, after this one's first
	// entries: the hand-over package carries none of it.
	op, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Index the glossary", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	other := op.Thread.NegotiationID
	worker.waitState(other, negotiation.StateProposed)

	before, _ := poster.Thread(nid)
	for _, to := range []negotiation.Address{poster.Address(), worker.Address(), {}} {
		if _, err := poster.Replace(t.Context(), nid, node.ReplaceSpec{NewWorker: to}); node.CodeOf(err) != node.CodeBadArgument {
			t.Fatalf("replacing with %s: %v", to, err)
		}
	}
	if after, _ := poster.Thread(nid); len(after.Log) != len(before.Log) || kinds(t, poster, nid)["blob.stored"] != 0 {
		t.Fatal("a refused replacement changed something")
	}

	res, err := poster.Replace(t.Context(), nid, node.ReplaceSpec{NewWorker: newcomer.Address(), Summary: "the worker is away; glossary at letter C"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Envelope.Type != negotiation.TypeReplacementContext || res.Detail["coSigned"] != "false" || res.Detail["handoffCid"] == "" {
		t.Fatalf("the poster's Replace = %+v", res)
	}
	worker.waitLog(nid, len(before.Log)+1)
	wres, err := worker.Replace(t.Context(), nid, node.ReplaceSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if wres.Detail["coSigned"] != "true" || wres.Detail["handoffCid"] != res.Detail["handoffCid"] || wres.Detail["submitBy"] != "poster" {
		t.Fatalf("the worker's Replace = %+v", wres)
	}
	eventually(t, "the poster's thread to name the new worker", func() bool {
		v, err := poster.Thread(nid)
		return err == nil && v.Worker != nil && *v.Worker == newcomer.Address()
	})
	nv := newcomer.waitState(nid, negotiation.StateFunded)
	eventually(t, "the newcomer to take over", func() bool {
		v, err := newcomer.Thread(nid)
		nv = v
		return err == nil && v.Worker != nil && *v.Worker == newcomer.Address()
	})
	if nv.Role != negotiation.RoleWorker || *nv.Poster != poster.Address() || nv.TaskID != before.TaskID {
		t.Fatalf("the newcomer's thread: %+v", nv)
	}
	eventually(t, "the newcomer to hold both ReplacementContexts", func() bool {
		v, _ := newcomer.Thread(nid)
		rcs := 0
		for _, r := range v.Log {
			if r.Type == negotiation.TypeReplacementContext {
				rcs++
			}
		}
		return rcs == 2
	})
	if k := kinds(t, newcomer, nid); k["thread.joined"] != 1 {
		t.Fatalf("the newcomer's ledger: %v", k)
	}
	// The package is a version-2 bundle of this negotiation alone, the one
	// the chain's handoffHash names, and the newcomer joined from it.
	pkg := joinedBundle(t, newcomer, nid)
	checkMinimalV2(t, "the hand-over package", pkg, nid, other)
	if c, err := handoffCIDOf(pkg); err != nil || c != res.Detail["handoffCid"] {
		t.Fatalf("the newcomer joined from %s, the package is %s (%v)", c, res.Detail["handoffCid"], err)
	}
	if task := chainTask(t, w, nv); task.Worker != [20]byte(newcomer.Address()) || task.Nonce != 1 {
		t.Fatalf("the task on chain: %+v", task)
	}
	eventually(t, "the old worker to see the replacement", func() bool {
		v, err := worker.Thread(nid)
		return err == nil && v.Worker != nil && *v.Worker == newcomer.Address()
	})
	if _, err := worker.Deliver(t.Context(), nid, node.DeliverySpec{Milestone: 0, Name: "late.md", Data: []byte("late")}); node.CodeOf(err) != node.CodeNotParty {
		t.Fatalf("the old worker delivers: %v", err)
	}

	deliver(t, poster, newcomer, nid, 0, []byte("the whole glossary"))
	if _, err := poster.AcceptDelivery(t.Context(), nid, 0); err != nil {
		t.Fatal(err)
	}
	newcomer.waitState(nid, negotiation.StateCompleted)
	withdraw(t, newcomer, eth(400))
	if owed, _ := worker.Owed(t.Context(), negotiation.Address{}); owed.Sign() != 0 {
		t.Fatalf("the old worker is owed %s", owed)
	}
}

// TestCoSignedActsRefuseBadInput: unknown negotiations, bad arguments and
// a denied approval each give their code and change nothing: no approval
// is asked for bad input, and a denied cancel signs, stores and sends
// nothing.
func TestCoSignedActsRefuseBadInput(t *testing.T) {
	w := newWorld(t, true)
	poster := w.add("poster")
	gate := &recGate{deny: map[node.Act]bool{node.ActSignCancel: true, node.ActSignAmendment: true, node.ActSignReplacement: true}}
	worker := w.add("worker", withBootstrap(poster), withGate(gate))
	connect(t, poster, worker)
	const unknown = "00000000-0000-4000-8000-000000000000"
	ctx := t.Context()
	for name, call := range map[string]func() error{
		"cancel": func() error { _, err := worker.Cancel(ctx, unknown, ""); return err },
		"amend":  func() error { _, err := worker.Amend(ctx, unknown, node.AmendSpec{}); return err },
		"replace": func() error {
			_, err := worker.Replace(ctx, unknown, node.ReplaceSpec{NewWorker: poster.Address()})
			return err
		},
	} {
		if err := call(); !errors.Is(err, node.ErrUnknownNegotiation) {
			t.Errorf("%s of an unknown negotiation: %v", name, err)
		}
	}
	nid := agree(t, poster, worker, eth(300), eth(200))
	pv := poster.waitLog(nid, 2)
	before, _ := worker.Thread(nid)
	k0 := kinds(t, worker, nid)
	ok := []node.MilestoneSpec{{Amount: eth(300), Description: "a"}, {Amount: eth(200), Description: "b"}}
	later := time.Now().Add(100 * time.Hour)
	for _, tc := range []struct {
		name string
		call func() error
		code node.Code
	}{
		{"a deadline in the past", func() error {
			_, err := worker.Amend(ctx, nid, node.AmendSpec{Milestones: ok, Deadline: time.Now().Add(-time.Hour)})
			return err
		}, node.CodeBadArgument},
		{"a zero milestone", func() error {
			_, err := worker.Amend(ctx, nid, node.AmendSpec{Milestones: []node.MilestoneSpec{{Amount: big.NewInt(0)}}, Deadline: later})
			return err
		}, node.CodeBadArgument},
		{"a deadline without milestones", func() error {
			_, err := worker.Amend(ctx, nid, node.AmendSpec{Deadline: later})
			return err
		}, node.CodeBadArgument},
		{"nothing to co-sign", func() error { _, err := worker.Amend(ctx, nid, node.AmendSpec{}); return err }, node.CodeBadArgument},
		{"the poster as new worker", func() error {
			_, err := worker.Replace(ctx, nid, node.ReplaceSpec{NewWorker: poster.Address()})
			return err
		}, node.CodeBadArgument},
		{"itself as new worker", func() error {
			_, err := worker.Replace(ctx, nid, node.ReplaceSpec{NewWorker: worker.Address()})
			return err
		}, node.CodeBadArgument},
		{"a reason too long", func() error { _, err := worker.Cancel(ctx, nid, string(make([]byte, 5000))); return err }, node.CodeBadArgument},
	} {
		if err := tc.call(); node.CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
	if n := len(gate.asked(node.ActSignAmendment)) + len(gate.asked(node.ActSignReplacement)) + len(gate.asked(node.ActSignCancel)); n != 0 {
		t.Fatalf("bad input asked the gate %d times", n)
	}
	if k := kinds(t, worker, nid); k["envelope.sent"] != k0["envelope.sent"] || k["approval"] != k0["approval"] || k["blob.stored"] != 0 {
		t.Fatalf("bad input changed the ledger: %v, was %v", k, k0)
	}

	// A denied approval: nothing is signed, stored as sent or queued; the
	// ledger records the request and the denial.
	_, err := worker.Cancel(ctx, nid, "no time")
	if !errors.Is(err, node.ErrApprovalDenied) {
		t.Fatalf("Cancel with a denying gate = %v", err)
	}
	if asked := gate.asked(node.ActSignCancel); len(asked) != 1 || asked[0].Request.Action.Target != nid || asked[0].Request.Validate() != nil {
		t.Fatalf("the gate was asked %+v", asked)
	}
	ev := approvalEvents(t, worker, nid)
	if len(ev) < 2 || ev[len(ev)-2] != "request-created" || ev[len(ev)-1] != "denied" {
		t.Fatalf("approval records: %v", ev)
	}
	k := kinds(t, worker, nid)
	if k["envelope.sent"] != k0["envelope.sent"] || k["outbox.queued"] != k0["outbox.queued"] {
		t.Fatalf("something was sent: %v, was %v", k, k0)
	}
	if after, _ := worker.Thread(nid); len(after.Log) != len(before.Log) || after.State != negotiation.StateFunded {
		t.Fatalf("the worker's thread changed: %+v", after)
	}
	if v, _ := poster.Thread(nid); len(v.Log) != len(pv.Log) {
		t.Fatalf("the poster received something: %+v", v.Log)
	}
}
