package chain

import (
	"math/big"
	"testing"

	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/negotiation"
)

// TestTaskEvents: the events of one task, in chain order, with what the
// chain decided (the replacement's new worker and hand-over hash, the
// amendment's nonce, the cancel), and none of another task's.
func TestTaskEvents(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.fund(e.settlement(eths(1), eths(2)))
	b := e.fund(e.settlement(eths(3)))

	handoff := rand32()
	rp := negotiation.Replacement{TaskID: a.TaskID, NewWorker: e.newWorker.addr, HandoffHash: handoff, Nonce: big.NewInt(0)}
	d, err := rp.Digest(e.domain)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.poster.c.ReplaceWorker(ctx, a.TaskID, rp, a.Task, e.sign(e.poster, d), e.sign(e.worker, d))
	if err != nil {
		t.Fatal(err)
	}
	am := negotiation.Amendment{TaskID: a.TaskID, MilestoneAmounts: []*big.Int{eths(1), eths(1)}, Deadline: r.Task.Deadline + 60, TermsHash: rand32(), Nonce: big.NewInt(1)}
	ad, err := am.Digest(e.domain)
	if err != nil {
		t.Fatal(err)
	}
	r, err = e.poster.c.Amend(ctx, a.TaskID, am, r.Task, e.sign(e.poster, ad), e.sign(e.newWorker, ad), nil)
	if err != nil {
		t.Fatal(err)
	}
	cd, err := negotiation.Cancel{TaskID: a.TaskID, Nonce: big.NewInt(2)}.Digest(e.domain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.outsider.c.MutualCancel(ctx, a.TaskID, r.Task, e.sign(e.poster, cd), e.sign(e.newWorker, cd)); err != nil {
		t.Fatal(err)
	}

	evs, err := e.outsider.c.TaskEvents(ctx, a.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var replaced *bindings.TaskRegistryWorkerReplaced
	var amended *bindings.TaskRegistryTaskAmended
	var refunded *bindings.TaskRegistryEscrowRefunded
	for i, ev := range evs {
		if i > 0 {
			p := evs[i-1].Log
			if ev.Log.BlockNumber < p.BlockNumber || (ev.Log.BlockNumber == p.BlockNumber && ev.Log.Index <= p.Index) {
				t.Fatalf("event %d is not after event %d", i, i-1)
			}
		}
		names = append(names, ev.Name)
		switch v := ev.Value.(type) {
		case *bindings.TaskRegistryTaskCreated:
			if v.TaskId != a.TaskID {
				t.Fatalf("TaskCreated of another task: %x", v.TaskId)
			}
		case *bindings.TaskRegistryWorkerReplaced:
			replaced = v
		case *bindings.TaskRegistryTaskAmended:
			amended = v
		case *bindings.TaskRegistryEscrowRefunded:
			refunded = v
		}
	}
	if len(names) == 0 || names[0] != "TaskCreated" {
		t.Fatalf("events: %v", names)
	}
	if replaced == nil || replaced.NewWorker != e.newWorker.addr || replaced.OldWorker != e.worker.addr || replaced.HandoffHash != handoff {
		t.Fatalf("WorkerReplaced: %+v (events %v)", replaced, names)
	}
	if amended == nil || amended.Nonce != 2 || amended.TermsHash != am.TermsHash {
		t.Fatalf("TaskAmended: %+v (events %v)", amended, names)
	}
	if refunded == nil || !refunded.Cancelled || refunded.Amount.Cmp(eths(2)) != 0 {
		t.Fatalf("EscrowRefunded: %+v (events %v)", refunded, names)
	}

	other, err := e.outsider.c.TaskEvents(ctx, b.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range other {
		if ev.Name == "WorkerReplaced" || ev.Name == "TaskAmended" || ev.Name == "EscrowRefunded" {
			t.Fatalf("task b has %s", ev.Name)
		}
	}
	if len(other) == 0 {
		t.Fatal("task b has no events")
	}
	none, err := e.outsider.c.TaskEvents(ctx, rand32())
	if err != nil || len(none) != 0 {
		t.Fatalf("an unused task id: %d events, %v", len(none), err)
	}
}
