package chain

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/negotiation"
)

var ethToken = common.Address{}

func TestTaskLifecycleETH(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	s := e.settlement(eths(1), eths(2))
	before := e.balance(e.addrs.TaskRegistry)
	res := e.fund(s)
	if res.TaskID != e.digest(s) {
		t.Fatal("task id is not the settlement digest")
	}
	if got := new(big.Int).Sub(e.balance(e.addrs.TaskRegistry), before); got.Cmp(s.Amount) != 0 {
		t.Fatalf("registry received %v, want %v", got, s.Amount)
	}
	task := res.Task
	if task.Status != TaskActive || len(task.Milestones) != 2 || task.Poster != e.poster.addr || task.Worker != e.worker.addr {
		t.Fatalf("task %+v", task)
	}

	// The task state can be rebuilt from the logs.
	got, err := e.outsider.c.TaskState(ctx, res.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if h1, _ := TaskHash(got); h1 != mustHash(t, task) {
		t.Fatal("TaskState differs from the created state")
	}

	r, err := e.worker.c.SubmitProof(ctx, res.TaskID, task, 0, "bafkreiproof0")
	if err != nil {
		t.Fatal(err)
	}
	task = r.Task
	if task.Milestones[0].State != MilestoneSubmitted || task.Milestones[0].SubmittedAt == 0 {
		t.Fatalf("milestone 0 after proof: %+v", task.Milestones[0])
	}
	r, err = e.poster.c.ReleaseMilestone(ctx, res.TaskID, task, 0)
	if err != nil {
		t.Fatal(err)
	}
	task = r.Task
	if e.owed(ethToken, e.worker.addr).Cmp(eths(1)) != 0 {
		t.Fatalf("worker owed %v after release", e.owed(ethToken, e.worker.addr))
	}
	// The poster may also release a milestone without a proof.
	r, err = e.poster.c.ReleaseMilestone(ctx, res.TaskID, task, 1)
	if err != nil {
		t.Fatal(err)
	}
	task = r.Task
	if task.Status != TaskClosed {
		t.Fatalf("status %d after every milestone was released", task.Status)
	}
	wb := e.balance(e.worker.addr)
	wr, err := e.worker.c.Withdraw(ctx, ethToken, eths(3))
	if err != nil {
		t.Fatal(err)
	}
	fee := new(big.Int).Mul(new(big.Int).SetUint64(wr.GasUsed), wr.EffectiveGasPrice)
	if gain := new(big.Int).Sub(e.balance(e.worker.addr), wb); new(big.Int).Add(gain, fee).Cmp(eths(3)) != 0 {
		t.Fatalf("worker gained %v + fee %v, want 3 ETH", gain, fee)
	}
	if e.balance(e.addrs.TaskRegistry).Cmp(before) != 0 {
		t.Fatal("registry balance did not return to its start")
	}
	// A closed task takes no more calls.
	_, err = e.poster.c.ReleaseMilestone(ctx, res.TaskID, task, 1)
	wantRevert(t, err, "not_active")
}

func mustHash(t *testing.T, task Task) [32]byte {
	t.Helper()
	h, err := TaskHash(task)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestStoredStateIsTheTaskHash(t *testing.T) {
	e := newEnv(t)
	res := e.fund(e.settlement(eths(1)))
	stored, err := e.poster.c.TaskStateHash(t.Context(), res.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if stored != mustHash(t, res.Task) {
		t.Fatal("stored hash is not keccak256(abi.encode(task))")
	}
	if on, err := e.poster.c.TaskHashOnChain(t.Context(), res.Task); err != nil || on != stored {
		t.Fatalf("contract's hashTask %x, stored %x (%v)", on, stored, err)
	}
	sep, err := e.poster.c.DomainSeparator(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	td := e.settlement(eths(1)).TypedData(e.domain)
	if want, err := td.HashStruct("EIP712Domain", td.Domain.Map()); err != nil || [32]byte(want) != sep {
		t.Fatalf("domain separator %x, want %x (%v)", sep, want, err)
	}
	// A caller passing a state other than the stored one is refused.
	forged := CopyTask(res.Task)
	forged.Milestones[0].Amount = eths(100)
	_, err = e.poster.c.ReleaseMilestone(t.Context(), res.TaskID, forged, 0)
	wantRevert(t, err, "stale_task")
	_, err = e.poster.c.ReleaseMilestone(t.Context(), rand32(), res.Task, 0)
	wantRevert(t, err, "unknown_task")
}

func TestUnansweredDeliveryPaysWorker(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	res := e.fund(e.settlement(eths(1)))
	r, err := e.worker.c.SubmitProof(ctx, res.TaskID, res.Task, 0, "bafkreiproof")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.worker.c.ClaimUnanswered(ctx, res.TaskID, r.Task, 0)
	wantRevert(t, err, "review_pending")
	e.advance(7*24*time.Hour + time.Second)
	r, err = e.worker.c.ClaimUnanswered(ctx, res.TaskID, r.Task, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Task.Status != TaskClosed || e.owed(ethToken, e.worker.addr).Cmp(eths(1)) != 0 {
		t.Fatalf("after claim: %+v owed %v", r.Task, e.owed(ethToken, e.worker.addr))
	}
}

func TestExpiredTaskRefundsUndelivered(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	res := e.fund(e.settlement(eths(1), eths(2)))
	r, err := e.worker.c.SubmitProof(ctx, res.TaskID, res.Task, 1, "bafkreiproof")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.poster.c.ReclaimExpired(ctx, res.TaskID, r.Task)
	wantRevert(t, err, "deadline_not_passed")
	e.advance(2 * 24 * time.Hour)
	// Too late to deliver.
	_, err = e.worker.c.SubmitProof(ctx, res.TaskID, r.Task, 0, "bafkreilate")
	wantRevert(t, err, "deadline_passed")
	r, err = e.poster.c.ReclaimExpired(ctx, res.TaskID, r.Task)
	if err != nil {
		t.Fatal(err)
	}
	// Milestone 0 (never delivered) is refunded; milestone 1 (delivered) waits for an answer.
	if r.Task.Milestones[0].State != MilestoneRefunded || r.Task.Milestones[1].State != MilestoneSubmitted || r.Task.Status != TaskActive {
		t.Fatalf("after reclaim: %+v", r.Task)
	}
	if e.owed(ethToken, e.poster.addr).Cmp(eths(1)) != 0 {
		t.Fatalf("poster owed %v", e.owed(ethToken, e.poster.addr))
	}
	_, err = e.poster.c.ReclaimExpired(ctx, res.TaskID, r.Task)
	wantRevert(t, err, "nothing_to_refund")
	r, err = e.poster.c.ReleaseMilestone(ctx, res.TaskID, r.Task, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Task.Status != TaskClosed {
		t.Fatal("task not closed")
	}
}

func TestMutualCancel(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	res := e.fund(e.settlement(eths(1), eths(2)))
	r, err := e.poster.c.ReleaseMilestone(ctx, res.TaskID, res.Task, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := negotiation.Cancel{TaskID: res.TaskID, Nonce: new(big.Int).SetUint64(r.Task.Nonce)}
	d, err := c.Digest(e.domain)
	if err != nil {
		t.Fatal(err)
	}
	// Only the worker's signature twice: refused.
	_, err = e.outsider.c.MutualCancel(ctx, res.TaskID, r.Task, e.sign(e.worker, d), e.sign(e.worker, d))
	wantRevert(t, err, "wrong_signer")
	// Anyone may submit both signatures.
	r, err = e.outsider.c.MutualCancel(ctx, res.TaskID, r.Task, e.sign(e.poster, d), e.sign(e.worker, d))
	if err != nil {
		t.Fatal(err)
	}
	if r.Task.Status != TaskClosed || r.Task.Milestones[0].State != MilestoneReleased || r.Task.Milestones[1].State != MilestoneRefunded {
		t.Fatalf("after cancel: %+v", r.Task)
	}
	if e.owed(ethToken, e.poster.addr).Cmp(eths(2)) != 0 || e.owed(ethToken, e.worker.addr).Cmp(eths(1)) != 0 {
		t.Fatal("cancel did not refund the unreleased milestone to the poster")
	}
}

func TestAmendment(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	res := e.fund(e.settlement(eths(1), eths(2)))
	r, err := e.poster.c.ReleaseMilestone(ctx, res.TaskID, res.Task, 0)
	if err != nil {
		t.Fatal(err)
	}
	task := r.Task
	amend := func(a negotiation.Amendment, value *big.Int, by *party) (*TaskResult, error) {
		d, err := a.Digest(e.domain)
		if err != nil {
			t.Fatal(err)
		}
		return by.c.Amend(ctx, res.TaskID, a, task, e.sign(e.poster, d), e.sign(e.worker, d), value)
	}
	newTerms := rand32()
	a := negotiation.Amendment{TaskID: res.TaskID, MilestoneAmounts: []*big.Int{eths(1), eths(3), eths(1)},
		Deadline: task.Deadline + 86400, TermsHash: newTerms, Nonce: new(big.Int).SetUint64(task.Nonce)}

	// A paid milestone cannot change.
	bad := a
	bad.MilestoneAmounts = []*big.Int{eths(2), eths(3), eths(1)}
	_, err = amend(bad, eths(3), e.poster)
	wantRevert(t, err, "bad_amendment")
	// The top-up (3+1 - 2 = 2 ETH) must come with the call, from the poster.
	_, err = amend(a, eths(1), e.poster)
	wantRevert(t, err, "bad_value")
	_, err = amend(a, eths(2), e.worker)
	wantRevert(t, err, "not_poster")
	// A nonce other than the task's is stale.
	stale := a
	stale.Nonce = big.NewInt(5)
	_, err = amend(stale, eths(2), e.poster)
	wantRevert(t, err, "stale_nonce")

	r, err = amend(a, eths(2), e.poster)
	if err != nil {
		t.Fatal(err)
	}
	task = r.Task
	if task.Nonce != 1 || task.TermsHash != newTerms || len(task.Milestones) != 3 || Escrow(task).Cmp(eths(4)) != 0 {
		t.Fatalf("after amendment: %+v", task)
	}
	// The same amendment signatures cannot be used twice (the nonce moved on).
	_, err = amend(a, eths(0), e.poster)
	wantRevert(t, err, "stale_nonce")

	// Shrinking the escrow credits the difference to the poster.
	a2 := negotiation.Amendment{TaskID: res.TaskID, MilestoneAmounts: []*big.Int{eths(1), eths(1)},
		Deadline: task.Deadline, TermsHash: newTerms, Nonce: new(big.Int).SetUint64(task.Nonce)}
	r, err = amend(a2, nil, e.worker)
	if err != nil {
		t.Fatal(err)
	}
	if e.owed(ethToken, e.poster.addr).Cmp(eths(3)) != 0 || Escrow(r.Task).Cmp(eths(1)) != 0 {
		t.Fatalf("after shrinking: poster owed %v escrow %v", e.owed(ethToken, e.poster.addr), Escrow(r.Task))
	}
}

func TestReplaceWorker(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	res := e.fund(e.settlement(eths(1), eths(1)))
	r, err := e.worker.c.SubmitProof(ctx, res.TaskID, res.Task, 0, "bafkreiold")
	if err != nil {
		t.Fatal(err)
	}
	rp := negotiation.Replacement{TaskID: res.TaskID, NewWorker: e.newWorker.addr, HandoffHash: rand32(), Nonce: big.NewInt(0)}
	d, err := rp.Digest(e.domain)
	if err != nil {
		t.Fatal(err)
	}
	// Without the current worker's consent: refused.
	_, err = e.poster.c.ReplaceWorker(ctx, res.TaskID, rp, r.Task, e.sign(e.poster, d), e.sign(e.newWorker, d))
	wantRevert(t, err, "wrong_signer")
	// A new worker that is one of the parties: refused.
	self := rp
	self.NewWorker = e.poster.addr
	sd, _ := self.Digest(e.domain)
	_, err = e.poster.c.ReplaceWorker(ctx, res.TaskID, self, r.Task, e.sign(e.poster, sd), e.sign(e.worker, sd))
	wantRevert(t, err, "bad_worker")
	r, err = e.poster.c.ReplaceWorker(ctx, res.TaskID, rp, r.Task, e.sign(e.poster, d), e.sign(e.worker, d))
	if err != nil {
		t.Fatal(err)
	}
	if r.Task.Worker != e.newWorker.addr || r.Task.Milestones[0].State != MilestoneOpen || r.Task.Nonce != 1 {
		t.Fatalf("after replacement: %+v", r.Task)
	}
	_, err = e.worker.c.SubmitProof(ctx, res.TaskID, r.Task, 0, "bafkreiold2")
	wantRevert(t, err, "not_worker")
	r, err = e.newWorker.c.SubmitProof(ctx, res.TaskID, r.Task, 0, "bafkreinew")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.poster.c.ReleaseMilestone(ctx, res.TaskID, r.Task, 0); err != nil {
		t.Fatal(err)
	}
	if e.owed(ethToken, e.newWorker.addr).Cmp(eths(1)) != 0 || e.owed(ethToken, e.worker.addr).Sign() != 0 {
		t.Fatal("release after replacement did not pay the new worker")
	}
}

func TestERC20Task(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	token := e.deployToken(t)
	s := e.settlement(big.NewInt(700), big.NewInt(300))
	s.Token = token
	d := e.digest(s)
	// Without an allowance the transfer fails inside SafeERC20.
	_, err := e.poster.c.CreateTask(ctx, s, e.sign(e.poster, d), e.sign(e.worker, d))
	wantRevert(t, err, "erc20_insufficient_allowance")
	if _, err := e.poster.c.ApproveToken(ctx, token, big.NewInt(1000)); err != nil {
		t.Fatal(err)
	}
	res, err := e.poster.c.CreateTask(ctx, s, e.sign(e.poster, d), e.sign(e.worker, d))
	if err != nil {
		t.Fatal(err)
	}
	if bal, _ := e.poster.c.TokenBalance(ctx, token, e.addrs.TaskRegistry); bal.Int64() != 1000 {
		t.Fatalf("registry holds %v tokens", bal)
	}
	r, err := e.poster.c.ReleaseMilestone(ctx, res.TaskID, res.Task, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.worker.c.Withdraw(ctx, token, big.NewInt(700)); err != nil {
		t.Fatal(err)
	}
	if bal, _ := e.worker.c.TokenBalance(ctx, token, e.worker.addr); bal.Int64() != 700 {
		t.Fatalf("worker holds %v tokens", bal)
	}
	_ = r
}

// eventOf returns the first event of type T in r's receipt, or nil.
func eventOf[T any](e *env, r *TaskResult) *T {
	for _, ev := range DecodeEvents(e.addrs, r.Receipt.Logs) {
		if v, ok := ev.Value.(*T); ok {
			return v
		}
	}
	return nil
}

// musts returns a function that fails t on a call's error and returns
// its result.
func musts(t testing.TB) func(*TaskResult, error) *TaskResult {
	return func(r *TaskResult, err error) *TaskResult {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

// holds fails unless the registry's balance is exactly what it owes the
// env's parties plus escrow (wei).
func (e *env) holds(escrow *big.Int) {
	e.t.Helper()
	want := new(big.Int).Set(escrow)
	for _, p := range []*party{e.poster, e.worker, e.arbitrator, e.newWorker, e.outsider} {
		want.Add(want, e.owed(ethToken, p.addr))
	}
	if bal := e.balance(e.addrs.TaskRegistry); bal.Cmp(want) != 0 {
		e.t.Fatalf("registry holds %v, owes %v", bal, want)
	}
}

func wantOwed(t *testing.T, e *env, p *party, want *big.Int) {
	t.Helper()
	if got := e.owed(ethToken, p.addr); got.Cmp(want) != 0 {
		t.Fatalf("%s owed %v, want %v", p.addr, got, want)
	}
}

// TestRevisionStopsTheReviewClock: a revision request stops the clock that
// would let the worker claim the delivery; a new proof, even after the
// deadline (inside the worker's window), starts it again.
func TestRevisionStopsTheReviewClock(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	must := musts(t)
	period, err := e.poster.c.ReviewPeriod(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res := e.fund(e.settlement(eths(1), eths(2)))
	r := must(e.worker.c.SubmitProof(ctx, res.TaskID, res.Task, 0, "bafkreiproof"))
	e.advance(6 * 24 * time.Hour) // past the deadline (a day), inside the review period
	r = must(e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 0))
	m := r.Task.Milestones[0]
	if m.State != MilestoneRevising || m.Revisions != 1 || m.SubmittedAt == 0 || r.Task.Status != TaskActive {
		t.Fatalf("after the revision request: %+v", m)
	}
	ev := eventOf[bindings.TaskRegistryRevisionRequested](e, r)
	if ev == nil || ev.TaskId != res.TaskID || ev.Milestone.Sign() != 0 || ev.Revisions != 1 ||
		ev.ResubmitUntil != m.SubmittedAt+period || ev.ResubmitUntil != ResubmitUntil(r.Task.Deadline, m.SubmittedAt, period) {
		t.Fatalf("RevisionRequested %+v (requested at %d, period %d)", ev, m.SubmittedAt, period)
	}
	e.advance(2 * 24 * time.Hour) // the first proof's review period is over
	_, err = e.worker.c.ClaimUnanswered(ctx, res.TaskID, r.Task, 0)
	wantRevert(t, err, "bad_milestone")
	// After the deadline the poster takes back the undelivered milestone 1,
	// not the one sent back to work: the worker's window still runs.
	r = must(e.poster.c.ReclaimExpired(ctx, res.TaskID, r.Task))
	if r.Task.Milestones[0].State != MilestoneRevising || r.Task.Milestones[1].State != MilestoneRefunded {
		t.Fatalf("after reclaim: %+v", r.Task.Milestones)
	}
	wantOwed(t, e, e.poster, eths(2))
	// The worker resubmits after the deadline; the review clock restarts.
	r = must(e.worker.c.SubmitProof(ctx, res.TaskID, r.Task, 0, "bafkreirevised"))
	if r.Task.Milestones[0].State != MilestoneSubmitted || r.Task.Milestones[0].Revisions != 1 {
		t.Fatalf("after the resubmission: %+v", r.Task.Milestones[0])
	}
	_, err = e.worker.c.ClaimUnanswered(ctx, res.TaskID, r.Task, 0)
	wantRevert(t, err, "review_pending")
	e.advance(time.Duration(period)*time.Second + time.Second)
	r = must(e.worker.c.ClaimUnanswered(ctx, res.TaskID, r.Task, 0))
	if r.Task.Status != TaskClosed {
		t.Fatalf("after the claim: %+v", r.Task)
	}
	wantOwed(t, e, e.worker, eths(1))
	e.holds(new(big.Int))
}

// TestRevisionJustBeforeTheDeadline: a poster who sends a delivery back to
// work just before the deadline cannot reclaim it after the deadline while
// the worker's window (a review period from the request) runs; only a
// window left unused refunds it.
func TestRevisionJustBeforeTheDeadline(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	must := musts(t)
	res := e.fund(e.settlement(eths(1)))
	r := must(e.worker.c.SubmitProof(ctx, res.TaskID, res.Task, 0, "bafkreiproof"))
	e.advance(24*time.Hour - 2*time.Minute)
	r = must(e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 0))
	until := eventOf[bindings.TaskRegistryRevisionRequested](e, r).ResubmitUntil
	if until <= r.Task.Deadline+6*86400 {
		t.Fatalf("the worker's window ends at %d, the deadline is %d", until, r.Task.Deadline)
	}
	e.advance(time.Hour) // past the deadline
	_, err := e.poster.c.ReclaimExpired(ctx, res.TaskID, r.Task)
	wantRevert(t, err, "nothing_to_refund")
	e.advance(7*24*time.Hour - 2*time.Hour) // still inside the window
	_, err = e.poster.c.ReclaimExpired(ctx, res.TaskID, r.Task)
	wantRevert(t, err, "nothing_to_refund")
	e.advance(2 * time.Hour) // the window closed without a new proof
	_, err = e.worker.c.SubmitProof(ctx, res.TaskID, r.Task, 0, "bafkreilate")
	wantRevert(t, err, "deadline_passed")
	r = must(e.poster.c.ReclaimExpired(ctx, res.TaskID, r.Task))
	if r.Task.Milestones[0].State != MilestoneRefunded || r.Task.Status != TaskClosed {
		t.Fatalf("after reclaim: %+v", r.Task)
	}
	wantOwed(t, e, e.poster, eths(1))
	e.holds(new(big.Int))
}

// TestPartialReleases: parts of a milestone add up to it, exactly; one
// beyond what remains is refused; the last part releases the milestone; a
// full release or a claim pays only what remains.
func TestPartialReleases(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	must := musts(t)
	before := e.balance(e.addrs.TaskRegistry)
	res := e.fund(e.settlement(eths(10), eths(1)))
	r := must(e.poster.c.ReleasePart(ctx, res.TaskID, res.Task, 0, eths(3)))
	if m := r.Task.Milestones[0]; m.State != MilestoneOpen || m.Released.Cmp(eths(3)) != 0 || m.Amount.Cmp(eths(10)) != 0 {
		t.Fatalf("after a part: %+v", m)
	}
	if ev := eventOf[bindings.TaskRegistryPartReleased](e, r); ev == nil || ev.Amount.Cmp(eths(3)) != 0 || ev.Released.Cmp(eths(3)) != 0 || ev.Milestone.Sign() != 0 {
		t.Fatalf("PartReleased %+v", ev)
	}
	if eventOf[bindings.TaskRegistryMilestoneReleased](e, r) != nil {
		t.Fatal("a part released the milestone")
	}
	wantOwed(t, e, e.worker, eths(3))
	if Escrow(r.Task).Cmp(eths(8)) != 0 {
		t.Fatalf("escrow %v after a part", Escrow(r.Task))
	}
	e.holds(Escrow(r.Task))

	// Parts on a submitted milestone keep its proof and its review clock.
	r = must(e.worker.c.SubmitProof(ctx, res.TaskID, r.Task, 0, "bafkreiproof"))
	at := r.Task.Milestones[0].SubmittedAt
	r = must(e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 0, eths(4)))
	if m := r.Task.Milestones[0]; m.State != MilestoneSubmitted || m.SubmittedAt != at || m.Released.Cmp(eths(7)) != 0 {
		t.Fatalf("after a part of a submitted milestone: %+v", m)
	}
	// One wei beyond what remains is refused; so is nothing.
	_, err := e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 0, new(big.Int).Add(eths(3), big.NewInt(1)))
	wantRevert(t, err, "bad_part")
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 0, new(big.Int))
	wantRevert(t, err, "bad_part")
	// The last part releases the milestone.
	r = must(e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 0, eths(3)))
	if m := r.Task.Milestones[0]; m.State != MilestoneReleased || m.Released.Cmp(eths(10)) != 0 {
		t.Fatalf("after the last part: %+v", m)
	}
	pr, mr := eventOf[bindings.TaskRegistryPartReleased](e, r), eventOf[bindings.TaskRegistryMilestoneReleased](e, r)
	if pr == nil || pr.Amount.Cmp(eths(3)) != 0 || pr.Released.Cmp(eths(10)) != 0 || mr == nil || mr.Amount.Cmp(eths(3)) != 0 || mr.Unanswered {
		t.Fatalf("the last part's events: %+v %+v", pr, mr)
	}
	wantOwed(t, e, e.worker, eths(10))
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 0, big.NewInt(1))
	wantRevert(t, err, "bad_milestone")

	// A part, then the full release of the rest.
	r = must(e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 1, big.NewInt(250)))
	r = must(e.poster.c.ReleaseMilestone(ctx, res.TaskID, r.Task, 1))
	rest := new(big.Int).Sub(eths(1), big.NewInt(250))
	if mr := eventOf[bindings.TaskRegistryMilestoneReleased](e, r); mr == nil || mr.Amount.Cmp(rest) != 0 {
		t.Fatalf("MilestoneReleased after a part: %+v", mr)
	}
	if r.Task.Status != TaskClosed || r.Task.Milestones[1].Released.Cmp(eths(1)) != 0 {
		t.Fatalf("after the release: %+v", r.Task)
	}
	wantOwed(t, e, e.worker, eths(11))
	if got := new(big.Int).Sub(e.balance(e.addrs.TaskRegistry), before); got.Cmp(eths(11)) != 0 {
		t.Fatalf("registry holds %v more than before, owes 11 ETH", got)
	}
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 1, big.NewInt(1))
	wantRevert(t, err, "not_active")
}

// TestPartlyReleasedMilestone: every other way out of a task pays what
// remains of a partly released milestone, to the wei.
func TestPartlyReleasedMilestone(t *testing.T) {
	m := new(big.Int).Add(ether, big.NewInt(7)) // 1 ETH + 7 wei
	part := big.NewInt(333_333_333)
	rest := new(big.Int).Sub(m, part)
	start := func(t *testing.T, amounts ...*big.Int) (*env, *TaskResult) {
		e := newEnv(t)
		res := e.fund(e.settlement(amounts...))
		return e, musts(t)(e.poster.c.ReleasePart(t.Context(), res.TaskID, res.Task, 0, part))
	}

	t.Run("claim", func(t *testing.T) {
		e, r := start(t, m)
		ctx := t.Context()
		must := musts(t)
		r = must(e.worker.c.SubmitProof(ctx, r.TaskID, r.Task, 0, "bafkreiproof"))
		e.advance(7*24*time.Hour + time.Second)
		r = must(e.worker.c.ClaimUnanswered(ctx, r.TaskID, r.Task, 0))
		if mr := eventOf[bindings.TaskRegistryMilestoneReleased](e, r); mr == nil || mr.Amount.Cmp(rest) != 0 || !mr.Unanswered {
			t.Fatalf("claim after a part: %+v", mr)
		}
		wantOwed(t, e, e.worker, m)
		e.holds(new(big.Int))
	})
	t.Run("cancel", func(t *testing.T) {
		e, r := start(t, m, eths(2))
		must := musts(t)
		d, _ := negotiation.Cancel{TaskID: r.TaskID, Nonce: big.NewInt(0)}.Digest(e.domain)
		r = must(e.outsider.c.MutualCancel(t.Context(), r.TaskID, r.Task, e.sign(e.poster, d), e.sign(e.worker, d)))
		if ev := eventOf[bindings.TaskRegistryEscrowRefunded](e, r); ev == nil || ev.Amount.Cmp(new(big.Int).Add(rest, eths(2))) != 0 {
			t.Fatalf("EscrowRefunded %+v", ev)
		}
		wantOwed(t, e, e.poster, new(big.Int).Add(rest, eths(2)))
		wantOwed(t, e, e.worker, part)
		e.holds(new(big.Int))
	})
	t.Run("dispute", func(t *testing.T) {
		e, r := start(t, m)
		ctx := t.Context()
		must := musts(t)
		r = must(e.worker.c.OpenDispute(ctx, r.TaskID, r.Task))
		if ev := eventOf[bindings.TaskRegistryDisputeOpened](e, r); ev == nil || ev.Escrow.Cmp(rest) != 0 {
			t.Fatalf("DisputeOpened %+v, want escrow %v", ev, rest)
		}
		e.holds(new(big.Int).Add(rest, testBond))
		for _, p := range []*party{e.poster, e.worker} {
			if _, err := p.c.ProposeArbitrator(ctx, r.TaskID, e.arbitrator.addr); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.arbitrator.c.Rule(ctx, r.TaskID, 2501); err != nil { // 25% to the worker
			t.Fatal(err)
		}
		toWorker := new(big.Int).Div(new(big.Int).Mul(rest, big.NewInt(2500)), big.NewInt(10000))
		wantOwed(t, e, e.worker, new(big.Int).Add(part, toWorker))
		wantOwed(t, e, e.poster, new(big.Int).Sub(rest, toWorker))
		wantOwed(t, e, e.arbitrator, testBond)
		e.holds(new(big.Int))
	})
	t.Run("reclaim", func(t *testing.T) {
		e, r := start(t, m)
		must := musts(t)
		e.advance(2 * 24 * time.Hour)
		r = must(e.poster.c.ReclaimExpired(t.Context(), r.TaskID, r.Task))
		if r.Task.Milestones[0].State != MilestoneRefunded || r.Task.Milestones[0].Released.Cmp(part) != 0 {
			t.Fatalf("after reclaim: %+v", r.Task.Milestones[0])
		}
		wantOwed(t, e, e.poster, rest)
		wantOwed(t, e, e.worker, part)
		e.holds(new(big.Int))
	})
	t.Run("replace", func(t *testing.T) {
		e, r := start(t, m)
		ctx := t.Context()
		must := musts(t)
		rp := negotiation.Replacement{TaskID: r.TaskID, NewWorker: e.newWorker.addr, HandoffHash: rand32(), Nonce: big.NewInt(0)}
		d, _ := rp.Digest(e.domain)
		r = must(e.poster.c.ReplaceWorker(ctx, r.TaskID, rp, r.Task, e.sign(e.poster, d), e.sign(e.worker, d)))
		must(e.poster.c.ReleaseMilestone(ctx, r.TaskID, r.Task, 0))
		wantOwed(t, e, e.worker, part)
		wantOwed(t, e, e.newWorker, rest)
		e.holds(new(big.Int))
	})
	t.Run("amend", func(t *testing.T) {
		e, r := start(t, m, eths(2))
		ctx := t.Context()
		must := musts(t)
		r = must(e.poster.c.ReleasePart(ctx, r.TaskID, r.Task, 1, part))
		task := r.Task
		amend := func(value *big.Int, amounts ...*big.Int) (*TaskResult, error) {
			a := negotiation.Amendment{TaskID: r.TaskID, MilestoneAmounts: amounts, Deadline: task.Deadline, TermsHash: rand32(), Nonce: new(big.Int).SetUint64(task.Nonce)}
			d, _ := a.Digest(e.domain)
			return e.poster.c.Amend(ctx, r.TaskID, a, task, e.sign(e.poster, d), e.sign(e.worker, d), value)
		}
		// Not down to what a milestone released, nor below, nor dropping it.
		_, err := amend(nil, part, eths(2))
		wantRevert(t, err, "bad_amendment")
		_, err = amend(nil, big.NewInt(1), eths(2))
		wantRevert(t, err, "bad_amendment")
		_, err = amend(nil, m)
		wantRevert(t, err, "bad_amendment")
		// Up by 1 ETH: the poster pays exactly the rise; the parts stay.
		r = must(amend(eths(1), new(big.Int).Add(m, ether), eths(2)))
		task = r.Task
		if ms := task.Milestones; ms[0].Released.Cmp(part) != 0 || ms[1].Released.Cmp(part) != 0 || ms[0].Amount.Cmp(new(big.Int).Add(m, ether)) != 0 {
			t.Fatalf("after the rise: %+v", ms)
		}
		e.holds(Escrow(task))
		// Down to one wei above the part: the poster gets the difference back.
		r = must(amend(nil, new(big.Int).Add(part, big.NewInt(1)), eths(2)))
		task = r.Task
		wantOwed(t, e, e.poster, new(big.Int).Sub(new(big.Int).Add(m, ether), new(big.Int).Add(part, big.NewInt(1))))
		r = must(e.poster.c.ReleaseMilestone(ctx, r.TaskID, task, 0))
		if mr := eventOf[bindings.TaskRegistryMilestoneReleased](e, r); mr == nil || mr.Amount.Int64() != 1 {
			t.Fatalf("the release of what remains: %+v", mr)
		}
		wantOwed(t, e, e.worker, new(big.Int).Add(new(big.Int).Add(part, part), big.NewInt(1)))
		e.holds(Escrow(r.Task))
	})
	t.Run("revising", func(t *testing.T) {
		e, r := start(t, m)
		ctx := t.Context()
		must := musts(t)
		r = must(e.worker.c.SubmitProof(ctx, r.TaskID, r.Task, 0, "bafkreiproof"))
		r = must(e.poster.c.RequestRevision(ctx, r.TaskID, r.Task, 0))
		r = must(e.poster.c.ReleasePart(ctx, r.TaskID, r.Task, 0, part))
		if ms := r.Task.Milestones[0]; ms.State != MilestoneRevising || ms.Released.Cmp(new(big.Int).Add(part, part)) != 0 {
			t.Fatalf("a part of a revising milestone: %+v", ms)
		}
		must(e.poster.c.ReleaseMilestone(ctx, r.TaskID, r.Task, 0))
		wantOwed(t, e, e.worker, m)
		e.holds(new(big.Int))
	})
}

// TestPartialReleaseERC20: parts of a token milestone are credited in the
// token, and a cancel refunds what remains, to the unit.
func TestPartialReleaseERC20(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	must := musts(t)
	token := e.deployToken(t)
	if _, err := e.poster.c.ApproveToken(ctx, token, big.NewInt(1000)); err != nil {
		t.Fatal(err)
	}
	s := e.settlement(big.NewInt(1000))
	s.Token = token
	d := e.digest(s)
	res := must(e.poster.c.CreateTask(ctx, s, e.sign(e.poster, d), e.sign(e.worker, d)))
	r := must(e.poster.c.ReleasePart(ctx, res.TaskID, res.Task, 0, big.NewInt(300)))
	cd, _ := negotiation.Cancel{TaskID: res.TaskID, Nonce: big.NewInt(0)}.Digest(e.domain)
	must(e.outsider.c.MutualCancel(ctx, res.TaskID, r.Task, e.sign(e.poster, cd), e.sign(e.worker, cd)))
	if w, p := e.owed(token, e.worker.addr), e.owed(token, e.poster.addr); w.Int64() != 300 || p.Int64() != 700 {
		t.Fatalf("owed in tokens: worker %v poster %v", w, p)
	}
	if _, err := e.worker.c.Withdraw(ctx, token, big.NewInt(300)); err != nil {
		t.Fatal(err)
	}
	if bal, _ := e.poster.c.TokenBalance(ctx, token, e.addrs.TaskRegistry); bal.Int64() != 700 {
		t.Fatalf("registry holds %v tokens, owes 700", bal)
	}
}
