package node

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// The timeout exits. The contracts let the party who gains take an exit
// once a clock on chain ran out (docs/contracts.md, "Deadlines and
// timeouts"): the worker claims a delivery the poster left unanswered for
// the review period (claimUnanswered), the poster takes back after the
// deadline what was never delivered (reclaimExpired), and anyone resolves
// a dispute whose stage timed out (resolveTimedOut). Each is a gated act
// through the act runner; each reads the clock on chain first and refuses
// with CodeTimeoutNotDue, before any approval is asked, when the exit is
// not due yet. The clock is the latest block's timestamp: an exit is due
// when the next block could take it, whatever this machine's clock says.
//
// The node also watches for them (timeoutWatch): every TimeoutsConfig.Scan
// it reads the exits of its threads on chain, publishes an EventTimeout
// when one becomes due, lists the due ones in Status, and takes those the
// principal's policy names (TimeoutsConfig.Auto), each once, through the
// gate like any other act.

// TimeoutExit is one timeout exit a thread offers this node, as the chain
// has it.
type TimeoutExit struct {
	NegotiationID string          `json:"negotiationId"`
	Act           negotiation.Act `json:"act"`
	// Milestone is claim_unanswered's milestone (-1 for the others).
	Milestone int `json:"milestone"`
	// DueAt is the chain time the exit is (or was) due from.
	DueAt time.Time `json:"dueAt"`
	// Due reports whether the chain's latest block is past DueAt.
	Due bool `json:"due"`
	// Amount is what the exit moves, in wei (of the task's token):
	// the milestone claimed, the escrow reclaimed, the escrow split.
	Amount string `json:"amount"`
}

// key names the exit for the watch: one thread's act (and milestone).
func (x TimeoutExit) key() string {
	return fmt.Sprintf("%s/%s/%d", x.NegotiationID, x.Act, x.Milestone)
}

// TimeoutActs are the acts of the timeout exits, in the act table's order
// (the values TimeoutsConfig.Auto takes).
var TimeoutActs = []negotiation.Act{negotiation.ActClaimUnanswered, negotiation.ActReclaimExpired, negotiation.ActResolveTimedOut}

// chainNow returns the chain's time: the latest block's timestamp.
func (n *Node) chainNow(ctx context.Context) (time.Time, error) {
	h, err := n.client.Backend().HeaderByNumber(ctx, nil)
	if err != nil {
		return time.Time{}, chainErr("latest block", err)
	}
	return time.Unix(int64(h.Time), 0).UTC(), nil
}

// notDue refuses an exit whose clock has not run out at chain time now.
func notDue(what string, dueAt, now time.Time) error {
	return fail(CodeTimeoutNotDue, "%s: due at %s, the chain's time is %s", what, dueAt.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
}

func unix(s uint64) time.Time { return time.Unix(int64(s), 0).UTC() }

// claimExit reads claim_unanswered's exit of milestone m on chain.
func (n *Node) claimExit(ctx context.Context, nid string, taskID [32]byte, m int) (TimeoutExit, chain.Task, error) {
	task, err := n.client.TaskState(ctx, taskID)
	if err != nil {
		return TimeoutExit{}, task, chainErr("task state", err)
	}
	if task.Status != chain.TaskActive {
		return TimeoutExit{}, task, fail(CodeStateForbidden, "the task is not active on chain (status %d)", task.Status)
	}
	if m < 0 || m >= len(task.Milestones) || task.Milestones[m].State != chain.MilestoneSubmitted {
		return TimeoutExit{}, task, fail(Code(negotiation.CodeMilestoneInvalid), "milestone %d has no proof pending review on chain", m)
	}
	review, _, _, err := n.tw.periods(ctx, n.client)
	if err != nil {
		return TimeoutExit{}, task, err
	}
	ms := task.Milestones[m]
	x := TimeoutExit{NegotiationID: nid, Act: negotiation.ActClaimUnanswered, Milestone: m, DueAt: unix(ms.SubmittedAt + review), Amount: fmtAmount(ms.Amount)}
	return x, task, nil
}

// reclaimExit reads reclaim_expired's exit on chain: due after the
// deadline (the contract wants block.timestamp > deadline).
func (n *Node) reclaimExit(ctx context.Context, nid string, taskID [32]byte) (TimeoutExit, chain.Task, error) {
	task, err := n.client.TaskState(ctx, taskID)
	if err != nil {
		return TimeoutExit{}, task, chainErr("task state", err)
	}
	if task.Status != chain.TaskActive {
		return TimeoutExit{}, task, fail(CodeStateForbidden, "the task is not active on chain (status %d)", task.Status)
	}
	review, _, _, err := n.tw.periods(ctx, n.client)
	if err != nil {
		return TimeoutExit{}, task, err
	}
	// The contract refunds the open milestones after the deadline, and a
	// revising one after its resubmission window: the exit is due at the
	// first of those, for what it would refund then.
	sum, due := new(big.Int), uint64(0)
	for _, m := range task.Milestones {
		var at uint64
		switch m.State {
		case chain.MilestoneOpen:
			at = task.Deadline + 1
		case chain.MilestoneRevising:
			at = chain.ResubmitUntil(task.Deadline, m.SubmittedAt, review) + 1
		default:
			continue
		}
		switch {
		case due == 0 || at < due:
			due = at
			sum.Set(chain.Remaining(m))
		case at == due:
			sum.Add(sum, chain.Remaining(m))
		}
	}
	if sum.Sign() == 0 {
		return TimeoutExit{}, task, fail(Code(negotiation.CodeMilestoneInvalid), "no milestone without a proof is left in escrow on chain")
	}
	x := TimeoutExit{NegotiationID: nid, Act: negotiation.ActReclaimExpired, Milestone: -1, DueAt: unix(due), Amount: fmtAmount(sum)}
	return x, task, nil
}

// resolveExit reads resolve_timed_out's exit on chain: the current stage
// of the dispute (awaiting an arbitrator, or assigned) and its timeout.
func (n *Node) resolveExit(ctx context.Context, nid string, taskID [32]byte) (TimeoutExit, error) {
	d, err := n.client.Dispute(ctx, taskID)
	if err != nil {
		return TimeoutExit{}, chainErr("dispute", err)
	}
	_, assign, rule, err := n.tw.periods(ctx, n.client)
	if err != nil {
		return TimeoutExit{}, err
	}
	var limit uint64
	switch d.Status {
	case chain.DisputeAwaitingArbitrator:
		limit = assign
	case chain.DisputeAssigned:
		limit = rule
	default:
		return TimeoutExit{}, fail(CodeStateForbidden, "the dispute is not open on chain (stage %d)", d.Status)
	}
	return TimeoutExit{NegotiationID: nid, Act: negotiation.ActResolveTimedOut, Milestone: -1, DueAt: unix(d.Since + limit), Amount: fmtAmount(d.Terms.Escrow)}, nil
}

// exitArgs are the approval arguments of a timeout exit.
func exitArgs(taskID [32]byte, x TimeoutExit) map[string]any {
	a := map[string]any{"taskId": chain.TaskIDString(taskID), "amount": x.Amount, "dueAt": x.DueAt.Format(time.RFC3339)}
	if x.Milestone >= 0 {
		a["milestone"] = fmt.Sprint(x.Milestone)
	}
	return a
}

// ClaimUnanswered claims, as the worker, milestone m whose proof the
// poster left unanswered for the review period (claimUnanswered), once
// the gate approves. It refuses with CodeTimeoutNotDue, before asking,
// while the review period runs on chain. The thread releases the
// milestone on the transaction's MilestoneReleased event.
func (n *Node) ClaimUnanswered(ctx context.Context, nid string, m int) (ActResult, error) {
	var taskID [32]byte
	read := func(t *thread) error { taskID = taskOf(t); return nil }
	a := actCall{act: negotiation.ActClaimUnanswered, nid: nid, chain: chainAlways, args: negotiation.ActArgs{Milestone: m}, locked: read}
	return n.do(a, func() (ActResult, error) {
		x, _, err := n.claimExit(ctx, nid, taskID, m)
		if err != nil {
			return ActResult{}, err
		}
		if err := n.due(ctx, "the review period of milestone "+fmt.Sprint(m), x.DueAt); err != nil {
			return ActResult{}, err
		}
		reason := fmt.Sprintf("claim milestone %d: the poster left its delivery unanswered for the review period; %s wei become owed to this node", m, x.Amount)
		if _, err := n.authorize(ctx, ActClaimUnanswered, nid, exitArgs(taskID, x), reason, "high"); err != nil {
			return ActResult{}, err
		}
		_, task, err := n.claimExit(ctx, nid, taskID, m) // the task as it stands after the approval
		if err != nil {
			return ActResult{}, err
		}
		res, err := n.client.ClaimUnanswered(ctx, taskID, task, uint64(m))
		if err != nil {
			return ActResult{}, chainErr("claimUnanswered", err)
		}
		return n.exitResult(ctx, nid, res.Receipt, x)
	})
}

// ReclaimExpired takes back, as the poster after the task's deadline,
// every milestone the worker never submitted a proof for
// (reclaimExpired), once the gate approves; milestones pending review
// stay, to be accepted or claimed. It refuses with CodeTimeoutNotDue,
// before asking, until the deadline passed on chain.
func (n *Node) ReclaimExpired(ctx context.Context, nid string) (ActResult, error) {
	var taskID [32]byte
	read := func(t *thread) error { taskID = taskOf(t); return nil }
	a := actCall{act: negotiation.ActReclaimExpired, nid: nid, chain: chainAlways, locked: read}
	return n.do(a, func() (ActResult, error) {
		x, _, err := n.reclaimExit(ctx, nid, taskID)
		if err != nil {
			return ActResult{}, err
		}
		if err := n.due(ctx, "the task's deadline", x.DueAt); err != nil {
			return ActResult{}, err
		}
		reason := fmt.Sprintf("take back, after the deadline, the milestones never delivered: %s wei become owed to this node", x.Amount)
		if _, err := n.authorize(ctx, ActReclaimExpired, nid, exitArgs(taskID, x), reason, "high"); err != nil {
			return ActResult{}, err
		}
		_, task, err := n.reclaimExit(ctx, nid, taskID)
		if err != nil {
			return ActResult{}, err
		}
		res, err := n.client.ReclaimExpired(ctx, taskID, task)
		if err != nil {
			return ActResult{}, chainErr("reclaimExpired", err)
		}
		return n.exitResult(ctx, nid, res.Receipt, x)
	})
}

// ResolveTimedOut resolves the thread's dispute whose stage timed out (no
// arbitrator agreed, or no ruling, in time: resolveTimedOut), once the
// gate approves: the escrow is split evenly and the bond returns to the
// opener. Any node holding the thread may. It refuses with
// CodeTimeoutNotDue, before asking, while the stage's clock runs.
func (n *Node) ResolveTimedOut(ctx context.Context, nid string) (ActResult, error) {
	var taskID [32]byte
	read := func(t *thread) error { taskID = taskOf(t); return nil }
	a := actCall{act: negotiation.ActResolveTimedOut, nid: nid, chain: chainAlways, locked: read}
	return n.do(a, func() (ActResult, error) {
		x, err := n.resolveExit(ctx, nid, taskID)
		if err != nil {
			return ActResult{}, err
		}
		if err := n.due(ctx, "the dispute's stage", x.DueAt); err != nil {
			return ActResult{}, err
		}
		args := exitArgs(taskID, x)
		args["disputeId"] = chain.DisputeID(taskID).String()
		reason := fmt.Sprintf("resolve the stalled dispute by its timeout: the escrow of %s wei is split evenly, the bond returns to the opener", x.Amount)
		if _, err := n.authorize(ctx, ActResolveTimedOut, nid, args, reason, "high"); err != nil {
			return ActResult{}, err
		}
		rc, err := n.client.ResolveTimedOut(ctx, taskID)
		if err != nil {
			return ActResult{}, chainErr("resolveTimedOut", err)
		}
		return n.exitResult(ctx, nid, rc, x)
	})
}

// due refuses with CodeTimeoutNotDue while the chain's time is before
// dueAt.
func (n *Node) due(ctx context.Context, what string, dueAt time.Time) error {
	now, err := n.chainNow(ctx)
	if err != nil {
		return err
	}
	if now.Before(dueAt) {
		return notDue(what, dueAt, now)
	}
	return nil
}

// exitResult applies the receipt of a timeout exit and returns the act's
// result; the exit is no longer listed as due.
func (n *Node) exitResult(ctx context.Context, nid string, rc *types.Receipt, x TimeoutExit) (ActResult, error) {
	if err := n.onchain.applyReceipt(ctx, rc); err != nil {
		return ActResult{}, err
	}
	n.tw.forget(x.key())
	r := n.onchain.result(nid, nil)
	r.Tx = txRef(rc)
	r.Detail = map[string]string{"amount": x.Amount, "dueAt": x.DueAt.Format(time.RFC3339)}
	return r, nil
}

// Timeouts returns the timeout exits this node's threads offer it, read
// on chain now, due or not, in the order of their negotiation ids.
func (n *Node) Timeouts(ctx context.Context) ([]TimeoutExit, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	if err := n.needChain(); err != nil {
		return nil, err
	}
	now, err := n.chainNow(ctx)
	if err != nil {
		return nil, err
	}
	return n.scanExits(ctx, now), nil
}

// exitCandidate is a thread's exit the act table allows this node, to be
// read on chain.
type exitCandidate struct {
	nid       string
	act       negotiation.Act
	milestone int
	taskID    [32]byte
}

// scanExits reads on chain every exit the act table allows this node in
// its threads, with Due judged at chain time now. An exit the chain no
// longer offers (a milestone released meanwhile) is left out.
func (n *Node) scanExits(ctx context.Context, now time.Time) []TimeoutExit {
	var cands []exitCandidate
	n.eng.Each(ctx, func(t *thread) {
		if t.Th.TaskID() == nil {
			return
		}
		id := taskOf(t)
		for _, act := range TimeoutActs {
			if act == negotiation.ActClaimUnanswered {
				for m := range t.Th.Milestones() {
					if n.may(t, act, negotiation.ActArgs{Milestone: m}) == nil {
						cands = append(cands, exitCandidate{t.ID, act, m, id})
					}
				}
				continue
			}
			if n.may(t, act, negotiation.ActArgs{}) == nil {
				cands = append(cands, exitCandidate{t.ID, act, -1, id})
			}
		}
	})
	var out []TimeoutExit
	for _, c := range cands {
		var (
			x   TimeoutExit
			err error
		)
		switch c.act {
		case negotiation.ActClaimUnanswered:
			x, _, err = n.claimExit(ctx, c.nid, c.taskID, c.milestone)
		case negotiation.ActReclaimExpired:
			x, _, err = n.reclaimExit(ctx, c.nid, c.taskID)
		case negotiation.ActResolveTimedOut:
			x, err = n.resolveExit(ctx, c.nid, c.taskID)
		}
		if err != nil {
			n.log.Debug("timeout exit not offered on chain", "negotiation", c.nid, "act", c.act, "err", err)
			continue
		}
		x.Due = !now.Before(x.DueAt)
		out = append(out, x)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].NegotiationID < out[j].NegotiationID })
	return out
}

// timeoutWatch is the node's watch over its timeout exits: the due ones
// of the last scan (Status lists them), and those the policy took.
type timeoutWatch struct {
	auto  []negotiation.Act
	every time.Duration

	mu    sync.Mutex
	due   map[string]TimeoutExit // by key, from the last scan
	taken map[string]bool        // exits the policy took (once each)
	// The contracts' periods, fixed at deployment: read once.
	review, assign, rule uint64
	read                 bool
}

// periodReader is what periods reads of the chain.
type periodReader interface {
	ReviewPeriod(ctx context.Context) (uint64, error)
	DisputeTimeouts(ctx context.Context) (assign, rule uint64, err error)
}

// periods returns the TaskRegistry's review period and the
// ArbitrationModule's assignment and ruling timeouts, read from c the
// first time (they are immutable in the contracts) and kept.
func (w *timeoutWatch) periods(ctx context.Context, c periodReader) (review, assign, rule uint64, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.read {
		if w.review, err = c.ReviewPeriod(ctx); err != nil {
			return 0, 0, 0, chainErr("review period", err)
		}
		if w.assign, w.rule, err = c.DisputeTimeouts(ctx); err != nil {
			return 0, 0, 0, chainErr("dispute timeouts", err)
		}
		w.read = true
	}
	return w.review, w.assign, w.rule, nil
}

func newTimeoutWatch(c TimeoutsConfig) *timeoutWatch {
	auto := make([]negotiation.Act, 0, len(c.Auto))
	for _, a := range c.Auto {
		auto = append(auto, negotiation.Act(a))
	}
	every := c.Scan
	if every == 0 {
		every = DefaultTimeoutScan
	}
	return &timeoutWatch{auto: auto, every: every, due: map[string]TimeoutExit{}, taken: map[string]bool{}}
}

// note records the due exits of one scan and returns those that became
// due since the last one, and those the policy takes now (each once).
func (w *timeoutWatch) note(exits []TimeoutExit) (fresh, take []TimeoutExit) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := map[string]TimeoutExit{}
	for _, x := range exits {
		if !x.Due {
			continue
		}
		k := x.key()
		now[k] = x
		if _, ok := w.due[k]; !ok {
			fresh = append(fresh, x)
		}
		if slices.Contains(w.auto, x.Act) && !w.taken[k] {
			w.taken[k] = true
			take = append(take, x)
		}
	}
	w.due = now
	return fresh, take
}

// forget drops an exit taken from the due list.
func (w *timeoutWatch) forget(k string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.due, k)
}

// list returns the due exits of the last scan, in a stable order.
func (w *timeoutWatch) list() []TimeoutExit {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]TimeoutExit, 0, len(w.due))
	for _, x := range w.due {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}

// watchTimeouts scans the threads' exits every w.every until ctx ends:
// each exit that became due is published (EventTimeout, Fact the act,
// Detail the milestone for a claim, Code "due"), and the policy's are
// taken through the gate, one at a time.
func (n *Node) watchTimeouts(ctx context.Context) {
	tk := time.NewTicker(n.tw.every)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		now, err := n.chainNow(ctx)
		if err != nil {
			n.log.Debug("timeout scan: no chain time", "err", err)
			continue
		}
		fresh, take := n.tw.note(n.scanExits(ctx, now))
		for _, x := range fresh {
			ev := Event{Kind: EventTimeout, NegotiationID: x.NegotiationID, Fact: string(x.Act), Code: "due", At: n.now()}
			if x.Milestone >= 0 {
				ev.Detail = fmt.Sprint(x.Milestone)
			}
			n.events.publish(ev)
			n.log.Info("timeout exit due", "negotiation", x.NegotiationID, "act", x.Act, "milestone", x.Milestone, "due_at", x.DueAt)
		}
		for _, x := range take {
			if _, err := n.takeExit(ctx, x); err != nil && ctx.Err() == nil {
				n.log.Warn("timeout exit not taken by the policy", "negotiation", x.NegotiationID, "act", x.Act, "err", err)
			}
		}
	}
}

// takeExit takes exit x through its act.
func (n *Node) takeExit(ctx context.Context, x TimeoutExit) (ActResult, error) {
	switch x.Act {
	case negotiation.ActClaimUnanswered:
		return n.ClaimUnanswered(ctx, x.NegotiationID, x.Milestone)
	case negotiation.ActReclaimExpired:
		return n.ReclaimExpired(ctx, x.NegotiationID)
	}
	return n.ResolveTimedOut(ctx, x.NegotiationID)
}
