package chain

import (
	"math/big"

	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/negotiation"
)

// FactRef names what a contract event's chain fact is about: the task, and
// what the event says beyond the fact.
type FactRef struct {
	// TaskID is the task the event concerns (a dispute's id is its
	// task's id).
	TaskID [32]byte
	// NegotiationID is the negotiation a TaskCreated event names (the
	// one event that names it); "" for the others, which name the task.
	NegotiationID string
	// TermsHash and Nonce are a TaskAmended event's: the termsHash of the
	// co-signed amendment and the task's nonce after it (the amendment
	// was signed over Nonce-1).
	TermsHash negotiation.Hash
	Nonce     uint64
	// OldWorker and Handoff are a WorkerReplaced event's: the worker
	// replaced and the hand-over package's hash.
	OldWorker negotiation.Address
	Handoff   negotiation.Hash
}

// FactOf returns the chain fact that a contract event reports to its task's
// negotiation thread, and what it is about; ok is false for an event that
// moves no thread (TaskUpdated, MetaEvidence, DisputeSettled, Credited,
// Withdrawn, an EscrowRefunded that is not a cancel, the arbitration
// module's DisputeOpened, ArbitratorProposed, ArbitrationRefused,
// DisputeResolved, Dispute and Evidence, a Ruling outside uint64, and the
// IdentityLink, TaskScopeRegistry and LedgerAnchor events).
//
// The mapping: TaskCreated is TaskFunded, ProofSubmitted and
// MilestoneReleased name their milestone, the registry's DisputeOpened is
// DisputeOpened by the opener with the task id as dispute id,
// ArbitratorAssigned and Ruling are ArbitratorAssigned and Ruled of the
// dispute, a cancelling EscrowRefunded is TaskCancelled, WorkerReplaced is
// WorkerReplaced (ref names the old worker and the hand-over),
// RevisionRequested and PartReleased name their milestone (PartReleased
// with the part and the milestone's running total). A TaskAmended event
// carries only the amendment's termsHash and nonce (ref): its fact is a
// MilestonesAmended without milestones, which the caller fills from the
// co-signed MilestoneDefinition that ref names (the state machine refuses
// one left empty).
func FactOf(ev Event) (f negotiation.Fact, ref FactRef, ok bool) {
	u := func(b [32]byte) negotiation.Uint256 { return negotiation.NewUint256(new(big.Int).SetBytes(b[:])) }
	switch v := ev.Value.(type) {
	case *bindings.TaskRegistryTaskCreated:
		return negotiation.TaskFunded{TaskID: u(v.TaskId)},
			FactRef{TaskID: v.TaskId, NegotiationID: negotiation.NewNegotiationID(v.NegotiationId)}, true
	case *bindings.TaskRegistryProofSubmitted:
		return negotiation.ProofSubmitted{Milestone: milestone(v.Milestone), ProofCID: negotiation.CID(v.ProofCid)},
			FactRef{TaskID: v.TaskId}, true
	case *bindings.TaskRegistryMilestoneReleased:
		return negotiation.MilestoneReleased{Milestone: milestone(v.Milestone)}, FactRef{TaskID: v.TaskId}, true
	case *bindings.TaskRegistryDisputeOpened:
		return negotiation.DisputeOpened{DisputeID: u(v.TaskId), By: negotiation.Address(v.Opener)}, FactRef{TaskID: v.TaskId}, true
	case *bindings.ArbitrationModuleArbitratorAssigned:
		id := taskOfDispute(v.DisputeId)
		return negotiation.ArbitratorAssigned{DisputeID: u(id), Arbitrator: negotiation.Address(v.Arbitrator)}, FactRef{TaskID: id}, true
	case *bindings.ArbitrationModuleRuling:
		if v.Ruling == nil || !v.Ruling.IsUint64() {
			return nil, FactRef{}, false
		}
		id := taskOfDispute(v.DisputeID)
		return negotiation.Ruled{DisputeID: u(id), Ruling: v.Ruling.Uint64()}, FactRef{TaskID: id}, true
	case *bindings.TaskRegistryEscrowRefunded:
		if v.Cancelled {
			return negotiation.TaskCancelled{}, FactRef{TaskID: v.TaskId}, true
		}
	case *bindings.TaskRegistryWorkerReplaced:
		return negotiation.WorkerReplaced{NewWorker: negotiation.Address(v.NewWorker)},
			FactRef{TaskID: v.TaskId, OldWorker: negotiation.Address(v.OldWorker), Handoff: v.HandoffHash}, true
	case *bindings.TaskRegistryTaskAmended:
		return negotiation.MilestonesAmended{}, FactRef{TaskID: v.TaskId, TermsHash: v.TermsHash, Nonce: v.Nonce}, true
	case *bindings.TaskRegistryRevisionRequested:
		return negotiation.RevisionRequested{Milestone: milestone(v.Milestone)}, FactRef{TaskID: v.TaskId}, true
	case *bindings.TaskRegistryPartReleased:
		return negotiation.PartReleased{Milestone: milestone(v.Milestone), Amount: uint256Of(v.Amount), Released: uint256Of(v.Released)},
			FactRef{TaskID: v.TaskId}, true
	}
	return nil, FactRef{}, false
}

// milestone returns a milestone index as the state machine takes it (the
// contract bounds it to 64 milestones).
func milestone(i *big.Int) int {
	if i == nil || !i.IsInt64() {
		return -1
	}
	return int(i.Int64())
}

// uint256Of returns an event's uint256 as the state machine takes it.
func uint256Of(x *big.Int) negotiation.Uint256 { return negotiation.NewUint256(bigOrZero(x)) }

// taskOfDispute returns the task id of a dispute id (its uint256 form; 0
// for one out of range).
func taskOfDispute(id *big.Int) [32]byte {
	var b [32]byte
	if id != nil && id.Sign() >= 0 && id.BitLen() <= 256 {
		id.FillBytes(b[:])
	}
	return b
}
