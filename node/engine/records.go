package engine

import (
	"encoding/json"
	"fmt"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// Ledger kinds the engine writes besides the ledger's own (docs/node.md
// describes each body).
const (
	// KindThreadOpened starts a negotiation thread: body OpenedBody; the
	// thread is rebuilt from it at start.
	KindThreadOpened = "thread.opened"
	// KindIdentityLink records a party's identity link in a negotiation,
	// so that the negotiation's proof bundle verifies with nothing else:
	// body LinkBody.
	KindIdentityLink = "identity.link"
)

// OpenedBody is the body of thread.opened: the node's role, whether it
// joined late as an observer, and the CID of the announcement the thread
// answers.
type OpenedBody struct {
	Role         negotiation.Role `json:"role"`
	Observer     bool             `json:"observer,omitempty"`
	Announcement string           `json:"announcement,omitempty"`
}

// StateBody is the body of thread.state.
type StateBody struct {
	State negotiation.State `json:"state"`
	A2A   string            `json:"a2a"`
}

// LinkBody is the body of identity.link.
type LinkBody struct {
	Address negotiation.Address `json:"address"`
	Link    json.RawMessage     `json:"link"`
}

// FactBody is the body of a chain.event entry: the chain fact it reports and where
// the chain said it. Code is "ok" when the fact took effect on the thread,
// else the code with which the thread refused it (duplicate for an effect
// the thread already held); only "ok" facts are replayed.
type FactBody struct {
	Fact       string                  `json:"fact"`
	TaskID     string                  `json:"taskId,omitempty"`
	DisputeID  string                  `json:"disputeId,omitempty"`
	Milestone  *int                    `json:"milestone,omitempty"`
	ProofCID   string                  `json:"proofCid,omitempty"`
	By         *negotiation.Address    `json:"by,omitempty"`
	Arbitrator *negotiation.Address    `json:"arbitrator,omitempty"`
	Ruling     *uint64                 `json:"ruling,omitempty"`
	NewWorker  *negotiation.Address    `json:"newWorker,omitempty"`
	Milestones []negotiation.Milestone `json:"milestones,omitempty"`
	Deadline   *uint64                 `json:"deadline,omitempty"`
	Amount     string                  `json:"amount,omitempty"`
	Released   string                  `json:"released,omitempty"`
	To         *negotiation.Address    `json:"to,omitempty"`
	WorkerBps  *uint64                 `json:"workerBps,omitempty"`
	Tx         string                  `json:"tx,omitempty"`
	LogIndex   uint                    `json:"logIndex"`
	Block      uint64                  `json:"block,omitempty"`
	Code       string                  `json:"code"`
}

// EncodeFact returns the body fields of f (without where the chain
// reported it and the code).
func EncodeFact(f negotiation.Fact) FactBody {
	b := FactBody{Fact: negotiation.FactName(f)}
	switch v := f.(type) {
	case negotiation.TaskFunded:
		b.TaskID = v.TaskID.String()
	case negotiation.ProofSubmitted:
		b.Milestone, b.ProofCID = &v.Milestone, string(v.ProofCID)
	case negotiation.MilestoneReleased:
		b.Milestone = &v.Milestone
	case negotiation.DisputeOpened:
		b.DisputeID, b.By = v.DisputeID.String(), &v.By
	case negotiation.ArbitratorAssigned:
		b.DisputeID, b.Arbitrator = v.DisputeID.String(), &v.Arbitrator
	case negotiation.Ruled:
		b.DisputeID, b.Ruling = v.DisputeID.String(), &v.Ruling
	case negotiation.WorkerReplaced:
		b.NewWorker = &v.NewWorker
	case negotiation.MilestonesAmended:
		b.Milestones, b.Deadline = v.Milestones, &v.Deadline
	case negotiation.PaidOut:
		b.To, b.Amount = &v.To, v.Amount.String()
	case negotiation.RevisionRequested:
		b.Milestone = &v.Milestone
	case negotiation.PartReleased:
		b.Milestone, b.Amount, b.Released = &v.Milestone, v.Amount.String(), v.Released.String()
	case negotiation.EscrowReclaimed:
		b.Amount = v.Amount.String()
	case negotiation.DisputeTimedOut:
		b.DisputeID, b.WorkerBps = v.DisputeID.String(), &v.WorkerBps
	}
	return b
}

// DecodeFact returns the fact a chain.event body reports.
func DecodeFact(b FactBody) (negotiation.Fact, error) {
	u256 := func(s string) (negotiation.Uint256, error) {
		var u negotiation.Uint256
		err := u.UnmarshalText([]byte(s))
		return u, err
	}
	need := func(ok bool) error {
		if !ok {
			return fmt.Errorf("engine: chain event %s lacks a member", b.Fact)
		}
		return nil
	}
	switch b.Fact {
	case "task_funded":
		id, err := u256(b.TaskID)
		return negotiation.TaskFunded{TaskID: id}, err
	case "proof_submitted":
		if err := need(b.Milestone != nil); err != nil {
			return nil, err
		}
		return negotiation.ProofSubmitted{Milestone: *b.Milestone, ProofCID: negotiation.CID(b.ProofCID)}, nil
	case "milestone_released":
		if err := need(b.Milestone != nil); err != nil {
			return nil, err
		}
		return negotiation.MilestoneReleased{Milestone: *b.Milestone}, nil
	case "dispute_opened":
		if err := need(b.By != nil); err != nil {
			return nil, err
		}
		id, err := u256(b.DisputeID)
		return negotiation.DisputeOpened{DisputeID: id, By: *b.By}, err
	case "arbitrator_assigned":
		if err := need(b.Arbitrator != nil); err != nil {
			return nil, err
		}
		id, err := u256(b.DisputeID)
		return negotiation.ArbitratorAssigned{DisputeID: id, Arbitrator: *b.Arbitrator}, err
	case "ruled":
		if err := need(b.Ruling != nil); err != nil {
			return nil, err
		}
		id, err := u256(b.DisputeID)
		return negotiation.Ruled{DisputeID: id, Ruling: *b.Ruling}, err
	case "task_cancelled":
		return negotiation.TaskCancelled{}, nil
	case "worker_replaced":
		if err := need(b.NewWorker != nil); err != nil {
			return nil, err
		}
		return negotiation.WorkerReplaced{NewWorker: *b.NewWorker}, nil
	case "milestones_amended":
		if err := need(len(b.Milestones) > 0 && b.Deadline != nil); err != nil {
			return nil, err
		}
		return negotiation.MilestonesAmended{Milestones: b.Milestones, Deadline: *b.Deadline}, nil
	case "paid_out":
		if err := need(b.To != nil && b.Amount != ""); err != nil {
			return nil, err
		}
		amount, err := u256(b.Amount)
		return negotiation.PaidOut{To: *b.To, Amount: amount}, err
	case "revision_requested":
		if err := need(b.Milestone != nil); err != nil {
			return nil, err
		}
		return negotiation.RevisionRequested{Milestone: *b.Milestone}, nil
	case "part_released":
		if err := need(b.Milestone != nil && b.Amount != "" && b.Released != ""); err != nil {
			return nil, err
		}
		amount, err := u256(b.Amount)
		if err != nil {
			return nil, err
		}
		released, err := u256(b.Released)
		return negotiation.PartReleased{Milestone: *b.Milestone, Amount: amount, Released: released}, err
	case "escrow_reclaimed":
		if err := need(b.Amount != ""); err != nil {
			return nil, err
		}
		amount, err := u256(b.Amount)
		return negotiation.EscrowReclaimed{Amount: amount}, err
	case "dispute_timed_out":
		if err := need(b.WorkerBps != nil); err != nil {
			return nil, err
		}
		id, err := u256(b.DisputeID)
		return negotiation.DisputeTimedOut{DisputeID: id, WorkerBps: *b.WorkerBps}, err
	}
	return nil, fmt.Errorf("engine: unknown chain fact %q", b.Fact)
}

// ReplayFact is the ledger.FactFunc of the engine's chain.event entries:
// the facts that took effect, in the order they did.
func ReplayFact(e ledger.Entry) (negotiation.Fact, error) {
	var b FactBody
	if err := json.Unmarshal(e.Body, &b); err != nil {
		return nil, err
	}
	if b.Code != "ok" {
		return nil, nil
	}
	return DecodeFact(b)
}
