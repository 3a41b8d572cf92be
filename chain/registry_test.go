package chain

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

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
