package chain

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/negotiation"
)

// Task is a task's state as the TaskRegistry hashes it and emits it in
// TaskUpdated.
type Task = bindings.Task

// Milestone is one milestone of a Task.
type Milestone = bindings.Milestone

// Task statuses (Task.Status), as the contract numbers them.
const (
	TaskNone     uint8 = 0
	TaskActive   uint8 = 1
	TaskDisputed uint8 = 2
	TaskClosed   uint8 = 3
)

// Milestone states (Milestone.State), as the contract numbers them.
const (
	MilestoneOpen      uint8 = 0
	MilestoneSubmitted uint8 = 1
	MilestoneReleased  uint8 = 2
	MilestoneRefunded  uint8 = 3
	// MilestoneRevising: the poster sent the last proof back to work
	// (requestRevision); its review clock is stopped until a new proof.
	MilestoneRevising uint8 = 4
)

// MaxRevisions is the most revision requests a milestone takes from its
// poster per worker (TaskRegistry.MAX_REVISIONS).
const MaxRevisions = 3

// Dispute stages (DisputeRecord.Status), as the ArbitrationModule numbers them.
const (
	DisputeNone               uint8 = 0
	DisputeAwaitingArbitrator uint8 = 1
	DisputeAssigned           uint8 = 2
	DisputeResolved           uint8 = 3
)

// DisputeRecord is a dispute as the ArbitrationModule stores it.
type DisputeRecord = bindings.ArbitrationModuleDisputeRecord

// ClosedByDispute is the state hash the registry stores for a task whose
// dispute was paid out.
var ClosedByDispute = common.BigToHash(big.NewInt(1))

var registryABI = bindings.NewTaskRegistry()

// TaskHash returns the hash the TaskRegistry stores for t:
// keccak256(abi.encode(t)).
func TaskHash(t Task) ([32]byte, error) {
	enc, err := registryABI.GetABI().Methods["hashTask"].Inputs.Pack(t)
	if err != nil {
		return [32]byte{}, fmt.Errorf("chain: encode task: %w", err)
	}
	return crypto.Keccak256Hash(enc), nil
}

// Escrow returns what t still holds: what remains, after partial
// releases, of its open, submitted and revising milestones.
func Escrow(t Task) *big.Int {
	sum := new(big.Int)
	for _, m := range t.Milestones {
		if Live(m) {
			sum.Add(sum, Remaining(m))
		}
	}
	return sum
}

// Live reports whether m still holds escrow: open, submitted or revising.
func Live(m Milestone) bool {
	return m.State == MilestoneOpen || m.State == MilestoneSubmitted || m.State == MilestoneRevising
}

// Remaining returns what m holds beyond its partial releases (zero once
// it is released).
func Remaining(m Milestone) *big.Int {
	r := new(big.Int)
	if m.Amount != nil {
		r.Set(m.Amount)
	}
	if m.Released != nil {
		r.Sub(r, m.Released)
	}
	return r
}

// ResubmitUntil returns the end of a revising milestone's resubmission
// window: the task's deadline, or reviewPeriod after the revision request
// (the milestone's SubmittedAt while it is revising), whichever is later.
// reclaimExpired refunds the milestone only after it.
func ResubmitUntil(deadline, requestedAt, reviewPeriod uint64) uint64 {
	return max(deadline, requestedAt+reviewPeriod)
}

// CopyTask returns a deep copy of t.
func CopyTask(t Task) Task {
	out := t
	out.Milestones = make([]Milestone, len(t.Milestones))
	for i, m := range t.Milestones {
		out.Milestones[i] = Milestone{Amount: bigOrZero(m.Amount), Released: bigOrZero(m.Released), SubmittedAt: m.SubmittedAt, Revisions: m.Revisions, State: m.State}
	}
	return out
}

// SettlementArgs converts a negotiation settlement to the contract's
// argument struct.
func SettlementArgs(s negotiation.Settlement) bindings.Settlement {
	ms := make([]*big.Int, len(s.MilestoneAmounts))
	for i, m := range s.MilestoneAmounts {
		ms[i] = bigOrZero(m)
	}
	return bindings.Settlement{
		NegotiationId:     s.NegotiationID,
		Poster:            s.Poster,
		Worker:            s.Worker,
		Token:             s.Token,
		Amount:            bigOrZero(s.Amount),
		MilestoneAmounts:  ms,
		Deadline:          s.Deadline,
		TermsHash:         s.TermsHash,
		AcceptedOfferHash: s.AcceptedOfferHash,
		Nonce:             bigOrZero(s.Nonce),
	}
}

// AmendmentArgs converts a negotiation amendment to the contract's argument
// struct (the task id is a separate argument).
func AmendmentArgs(a negotiation.Amendment) bindings.Amendment {
	ms := make([]*big.Int, len(a.MilestoneAmounts))
	for i, m := range a.MilestoneAmounts {
		ms[i] = bigOrZero(m)
	}
	return bindings.Amendment{MilestoneAmounts: ms, Deadline: a.Deadline, TermsHash: a.TermsHash, Nonce: bigOrZero(a.Nonce)}
}

// ReplacementArgs converts a negotiation replacement to the contract's
// argument struct.
func ReplacementArgs(r negotiation.Replacement) bindings.Replacement {
	return bindings.Replacement{NewWorker: r.NewWorker, HandoffHash: r.HandoffHash, Nonce: bigOrZero(r.Nonce)}
}

func bigOrZero(x *big.Int) *big.Int {
	if x == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(x)
}

// TaskIDString returns the task id as the wire format writes it: the
// uint256 decimal string of the digest.
func TaskIDString(id [32]byte) string { return new(big.Int).SetBytes(id[:]).String() }

// ParseTaskID parses a uint256 decimal string task id.
func ParseTaskID(s string) ([32]byte, error) {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() < 0 || v.BitLen() > 256 || v.String() != s {
		return [32]byte{}, &negotiation.Error{Code: negotiation.CodeBadInteger, Field: "taskId", Msg: "not a canonical uint256 decimal string"}
	}
	var id [32]byte
	v.FillBytes(id[:])
	return id, nil
}
