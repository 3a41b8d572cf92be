package negotiation

import (
	"math/big"
	"slices"
)

// Fact is a chain event the node observed after its confirmations. After
// funding, the chain decides races: facts move the thread, envelopes only
// propose and record.
type Fact interface {
	Input
	fact() string
}

// TaskFunded: createTask succeeded; TaskID is the agreed settlement digest.
type TaskFunded struct{ TaskID Uint256 }

// ProofSubmitted: the worker called submitProof for a milestone.
type ProofSubmitted struct {
	Milestone int
	ProofCID  CID
}

// MilestoneReleased: the poster accepted a delivery on chain.
type MilestoneReleased struct{ Milestone int }

// DisputeOpened: openDispute succeeded.
type DisputeOpened struct {
	DisputeID Uint256
	By        Address
}

// ArbitratorAssigned: both parties proposed the same arbitrator on chain.
type ArbitratorAssigned struct {
	DisputeID  Uint256
	Arbitrator Address
}

// Ruled: the arbitrator ruled (0 refused; r gives the worker r-1 basis points).
type Ruled struct {
	DisputeID Uint256
	Ruling    uint64
}

// TaskCancelled: the task was cancelled on chain.
type TaskCancelled struct{}

// WorkerReplaced: the task was handed to a new worker on chain.
type WorkerReplaced struct{ NewWorker Address }

// MilestonesAmended: the milestones were amended on chain.
type MilestonesAmended struct {
	Milestones []Milestone
	Deadline   uint64
}

// EscrowReclaimed: after the deadline the poster took back every
// milestone the worker never submitted a proof for (reclaimExpired, an
// EscrowRefunded that is not a cancel); Amount is what was refunded.
// Milestones pending review stay, to be released or claimed.
type EscrowReclaimed struct{ Amount Uint256 }

// DisputeTimedOut: a stalled dispute was resolved by its timeout
// (resolveTimedOut, a DisputeResolved with timedOut): the worker gets
// WorkerBps basis points of the escrow, as a ruling of WorkerBps+1 would.
type DisputeTimedOut struct {
	DisputeID Uint256
	WorkerBps uint64
}

// PaidOut: funds owed to an address were withdrawn.
type PaidOut struct {
	To     Address
	Amount Uint256
}

// RevisionRequested: the poster sent a submitted milestone back to work on
// chain (requestRevision): its review clock stopped, and the worker
// delivers it again.
type RevisionRequested struct{ Milestone int }

// PartReleased: the poster released part of a milestone on chain
// (releasePart): Amount now, Released the milestone's running total after
// it (the chain's, which never exceeds the milestone). The part that
// releases the rest releases the milestone.
type PartReleased struct {
	Milestone int
	Amount    Uint256
	Released  Uint256
}

func (TaskFunded) input()         {}
func (ProofSubmitted) input()     {}
func (MilestoneReleased) input()  {}
func (DisputeOpened) input()      {}
func (ArbitratorAssigned) input() {}
func (Ruled) input()              {}
func (TaskCancelled) input()      {}
func (WorkerReplaced) input()     {}
func (MilestonesAmended) input()  {}
func (PaidOut) input()            {}
func (RevisionRequested) input()  {}
func (PartReleased) input()       {}
func (EscrowReclaimed) input()    {}
func (DisputeTimedOut) input()    {}

func (TaskFunded) fact() string         { return "task_funded" }
func (ProofSubmitted) fact() string     { return "proof_submitted" }
func (MilestoneReleased) fact() string  { return "milestone_released" }
func (DisputeOpened) fact() string      { return "dispute_opened" }
func (ArbitratorAssigned) fact() string { return "arbitrator_assigned" }
func (Ruled) fact() string              { return "ruled" }
func (TaskCancelled) fact() string      { return "task_cancelled" }
func (WorkerReplaced) fact() string     { return "worker_replaced" }
func (MilestonesAmended) fact() string  { return "milestones_amended" }
func (PaidOut) fact() string            { return "paid_out" }
func (RevisionRequested) fact() string  { return "revision_requested" }
func (PartReleased) fact() string       { return "part_released" }
func (EscrowReclaimed) fact() string    { return "escrow_reclaimed" }
func (DisputeTimedOut) fact() string    { return "dispute_timed_out" }

// FactName returns the stable name of a chain fact.
func FactName(f Fact) string { return f.fact() }

func (t *Thread) applyFact(f Fact) Outcome {
	from := t.state
	factErr := func(code Code, format string, args ...any) Outcome {
		return refuse(from, reject(code, f.fact(), format, args...))
	}
	out := Outcome{Authentic: true, From: from}
	if t.alreadyApplied(f) {
		// A node learns of an effect twice, from the envelope and from the
		// chain: the second report is a success that changes nothing.
		out.Code, out.To = CodeDuplicate, t.state
		return out
	}
	// The states each fact is taken in are those of the act it completes
	// (the act table); a withdrawal completes no act of the thread.
	if r := factRow(f.fact()); r != nil && !slices.Contains(r.factStates(), t.state) {
		return factErr(CodeStateForbidden, "%s in state %s (the act %s)", f.fact(), t.state, r.Act)
	}
	switch v := f.(type) {
	case TaskFunded:
		if id := t.agreement.TaskID(); id.Cmp(&v.TaskID.Int) != 0 {
			return factErr(CodeTaskMismatch, "funded task %s is not the agreed %s", v.TaskID.String(), id.String())
		}
		id := NewUint256(&v.TaskID.Int)
		t.taskID = &id
		t.state = t.fundedState()
	case ProofSubmitted:
		if err := t.milestoneIndex(v.Milestone); err != nil {
			return refuse(from, err)
		}
		if _, ok := t.delivered[v.Milestone]; !ok {
			t.delivered[v.Milestone] = Hash{}
		}
		t.settleDeliveredState()
	case MilestoneReleased:
		if err := t.milestoneIndex(v.Milestone); err != nil {
			return refuse(from, err)
		}
		delete(t.delivered, v.Milestone)
		t.released[v.Milestone] = true
		t.doneRevising(v.Milestone)
		t.settleDeliveredState()
	case DisputeOpened:
		id := NewUint256(&v.DisputeID.Int)
		t.disputeID = &id
		t.state = StateDisputed
	case ArbitratorAssigned:
		if t.disputeID.Cmp(&v.DisputeID.Int) != 0 {
			return factErr(CodeTaskMismatch, "not this task's dispute")
		}
		t.arbitrator = v.Arbitrator
		t.state = StateArbitrated
	case Ruled:
		if t.disputeID.Cmp(&v.DisputeID.Int) != 0 {
			return factErr(CodeTaskMismatch, "not this task's dispute")
		}
		if !ValidRuling(v.Ruling) {
			return factErr(CodeStateForbidden, "ruling %d out of range", v.Ruling)
		}
		if v.Ruling == 0 {
			// The arbitrator refused to rule: the contract unassigns it
			// and the dispute awaits an arbitrator again, so the
			// parties' proposals start over (ArbitrationModule.rule).
			if !slices.Contains(t.refused, t.arbitrator) {
				t.refused = append(t.refused, t.arbitrator)
			}
			t.arbitrator = Address{}
			clear(t.nominees)
			t.state = StateDisputed
			break
		}
		r := v.Ruling
		t.ruling = &r
		t.state = StateResolved
	case TaskCancelled:
		t.state = StateCancelled
	case WorkerReplaced:
		t.worker = v.NewWorker
		t.delivered = map[int]Hash{}
		t.revising = nil // every live milestone is open for the new worker
		t.settleDeliveredState()
		delete(t.ready, TypeReplacementContext)
		delete(t.cosigns, TypeReplacementContext)
	case MilestonesAmended:
		if len(v.Milestones) == 0 {
			return factErr(CodeMilestoneInvalid, "no milestones")
		}
		t.milestones = v.Milestones
		delete(t.ready, TypeMilestoneDefinition)
		delete(t.cosigns, TypeMilestoneDefinition)
		t.settleDeliveredState()
	case EscrowReclaimed:
		open, err := t.reclaimed(v.Amount.Big())
		if err != nil {
			return refuse(from, err)
		}
		for _, m := range open {
			t.refunded[m] = true
			t.doneRevising(m)
		}
		t.settleDeliveredState()
	case DisputeTimedOut:
		if t.disputeID.Cmp(&v.DisputeID.Int) != 0 {
			return factErr(CodeTaskMismatch, "not this task's dispute")
		}
		r := v.WorkerBps + 1
		if v.WorkerBps >= MaxRuling || !ValidRuling(r) {
			return factErr(CodeStateForbidden, "worker share %d basis points out of range", v.WorkerBps)
		}
		t.ruling = &r
		t.timedOut = true
		t.state = StateResolved
	case PaidOut:
		// A withdrawal changes no thread state; it is recorded by the caller.
	case RevisionRequested:
		if !from.PostFunding() {
			return factErr(CodeStateForbidden, "%s in state %s", f.fact(), from)
		}
		if err := t.milestoneIndex(v.Milestone); err != nil {
			return refuse(from, err)
		}
		if d, ok := t.delivered[v.Milestone]; ok {
			// The poster's RevisionRequest may follow: it then only says why.
			t.revised[v.Milestone] = d
		}
		delete(t.delivered, v.Milestone)
		t.doneRevising(v.Milestone)
		t.revising = append(t.revising, v.Milestone)
		t.settleDeliveredState()
	case PartReleased:
		if !from.PostFunding() {
			return factErr(CodeStateForbidden, "%s in state %s", f.fact(), from)
		}
		if err := t.milestoneIndex(v.Milestone); err != nil {
			return refuse(from, err)
		}
		amount := &t.milestones[v.Milestone].Amount.Int
		switch {
		case v.Amount.Sign() <= 0 || v.Amount.Cmp(&v.Released.Int) > 0:
			return factErr(CodeMilestoneInvalid, "a part of %s in a total of %s", v.Amount.String(), v.Released.String())
		case v.Released.Cmp(amount) > 0:
			return factErr(CodeMilestoneInvalid, "%s released of milestone %d, which holds %s", v.Released.String(), v.Milestone, amount.String())
		}
		// The chain's running total is the thread's (a node that missed
		// an earlier part takes the total as the chain reports it).
		t.parts[v.Milestone] = new(big.Int).Set(&v.Released.Int)
		if v.Released.Cmp(amount) == 0 {
			delete(t.delivered, v.Milestone)
			t.released[v.Milestone] = true
			t.settleDeliveredState()
		}
	default:
		return factErr(CodeSchemaInvalid, "unknown fact")
	}
	out.To = t.state
	return out
}

// alreadyApplied reports whether f describes an effect the thread already
// holds.
func (t *Thread) alreadyApplied(f Fact) bool {
	switch v := f.(type) {
	case TaskFunded:
		return t.taskID != nil && t.taskID.Cmp(&v.TaskID.Int) == 0
	case MilestoneReleased:
		return t.released[v.Milestone]
	case ProofSubmitted:
		_, pending := t.delivered[v.Milestone]
		return pending && t.state == StateDelivered
	case DisputeOpened:
		return t.disputeID != nil && t.disputeID.Cmp(&v.DisputeID.Int) == 0
	case ArbitratorAssigned:
		return t.state != StateDisputed && t.arbitrator == v.Arbitrator && t.arbitrator != (Address{})
	case Ruled:
		return t.ruling != nil && *t.ruling == v.Ruling
	case TaskCancelled:
		return t.state == StateCancelled
	case WorkerReplaced:
		return t.worker == v.NewWorker
	case RevisionRequested:
		// The RevisionRequest envelope took the delivery off review
		// already, or the milestone was released since.
		_, pending := t.delivered[v.Milestone]
		return t.hasMilestone(v.Milestone) && t.taskID != nil && (t.released[v.Milestone] || !pending)
	case PartReleased:
		// The thread holds this total, a later one, or the whole release.
		p, ok := t.parts[v.Milestone]
		return t.released[v.Milestone] || (ok && p.Cmp(&v.Released.Int) >= 0)
	case EscrowReclaimed:
		return len(t.refunded) > 0 && len(t.openMilestones()) == 0 && len(t.revising) == 0
	case DisputeTimedOut:
		return t.timedOut
	}
	return false
}

// Released returns what milestone m released to the worker so far: its
// amount once it is released whole, otherwise the running total of its
// partial releases (PartReleased; zero before any). It never exceeds the
// milestone's amount.
func (t *Thread) Released(m int) *big.Int {
	switch {
	case !t.hasMilestone(m):
		return new(big.Int)
	case t.released[m]:
		return new(big.Int).Set(&t.milestones[m].Amount.Int)
	case t.parts[m] != nil:
		return new(big.Int).Set(t.parts[m])
	}
	return new(big.Int)
}

// openMilestones returns the milestones still in escrow that are open:
// without a delivery pending review and not sent back to work by a
// revision request. reclaimExpired refunds each of them.
func (t *Thread) openMilestones() []int {
	var out []int
	for i := range t.milestones {
		if _, pending := t.delivered[i]; !pending && !t.released[i] && !t.refunded[i] && !slices.Contains(t.revising, i) {
			out = append(out, i)
		}
	}
	return out
}

// reclaimed returns the milestones a reclaimExpired that refunded amount
// took back: every open one, and of those sent back to work the ones
// whose resubmission window had closed. The windows close in the order of
// the revision requests (each is the deadline or the review period after
// its request, whichever is later), so those are the first ones in that
// order whose remaining amounts make up the rest of amount. An amount of
// zero (a fact that does not say) takes the open ones only.
func (t *Thread) reclaimed(amount *big.Int) ([]int, *Error) {
	out := t.openMilestones()
	if amount.Sign() > 0 {
		rest := new(big.Int).Set(amount)
		for _, m := range out {
			rest.Sub(rest, t.remaining(m))
		}
		for _, m := range t.revising {
			if rest.Sign() <= 0 {
				break
			}
			out = append(out, m)
			rest.Sub(rest, t.remaining(m))
		}
		if rest.Sign() != 0 {
			return nil, reject(CodeTaskMismatch, "escrow_reclaimed", "the chain refunded %s, which the milestones this thread holds open do not add up to", amount)
		}
	}
	if len(out) == 0 {
		return nil, reject(CodeMilestoneInvalid, "escrow_reclaimed", "no milestone left to reclaim")
	}
	return out, nil
}

// remaining returns what milestone m still holds in escrow: its amount
// less what was released of it in parts.
func (t *Thread) remaining(m int) *big.Int {
	return new(big.Int).Sub(&t.milestones[m].Amount.Int, t.Released(m))
}

// doneRevising forgets that milestone m was sent back to work.
func (t *Thread) doneRevising(m int) {
	t.revising = slices.DeleteFunc(t.revising, func(x int) bool { return x == m })
}

// Revising reports whether milestone m was sent back to work on chain and
// not delivered again since.
func (t *Thread) Revising(m int) bool { return slices.Contains(t.revising, m) }

// Refunded reports whether milestone m went back to the poster on chain
// (reclaimed after the deadline).
func (t *Thread) Refunded(m int) bool { return t.refunded[m] }

// TimedOut reports whether the dispute was resolved by its timeout rather
// than by the arbitrator's ruling (Ruling then reports WorkerBps+1).
func (t *Thread) TimedOut() bool { return t.timedOut }

// Ruling returns the arbitrator's ruling, if any.
func (t *Thread) Ruling() (uint64, bool) {
	if t.ruling == nil {
		return 0, false
	}
	return *t.ruling, true
}

// WorkerShare returns the basis points a ruling gives the worker (r-1), or
// false for a refusal to rule (0).
func WorkerShare(ruling uint64) (*big.Int, bool) {
	if ruling == 0 || !ValidRuling(ruling) {
		return nil, false
	}
	return big.NewInt(int64(ruling - 1)), true
}
