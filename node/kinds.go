package node

import (
	"encoding/json"
	"fmt"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// Ledger kinds the node writes besides the ledger's own (docs/node.md
// describes each body).
const (
	// KindThreadOpened starts a negotiation thread: body {role, observer,
	// announcement?}; the thread is rebuilt from it at start.
	KindThreadOpened = "thread.opened"
	// KindThreadJoined records that the node joined a thread late (an
	// arbitrator) from a proof bundle: body {bundle, head, from, entries}.
	KindThreadJoined = "thread.joined"
	// KindIdentityLink records a party's identity link in a negotiation,
	// so that the negotiation's proof bundle verifies with nothing else:
	// body {address, link}.
	KindIdentityLink = "identity.link"
	// KindEquivocation keeps the second of two envelopes a sender signed
	// at one sequence, as evidence: body {sender, sequence, first}, object
	// the envelope.
	KindEquivocation = "envelope.equivocation"
	// KindInputRejected records one peer's input rejected as not authentic
	// (by the transport or the node) in one window, by hash and code only:
	// body {peer, from, to, total, codes, first, last, negotiations?,
	// moreNegotiations?, topics?, peers?, peersCapped?} (rejections.go).
	KindInputRejected = "input.rejected"
	// KindChainCursor records the next block the chain watcher scans:
	// body {next}.
	KindChainCursor = "chain.cursor"
)

// Media types of files the node stores and exchanges.
const (
	// MediaTypeBundle is a proof bundle (ledger.BundleFormat).
	MediaTypeBundle = "application/vnd.parley.proof-bundle+json"
	// MediaTypeEnvelope is one envelope (an announcement handed to a
	// late joiner).
	MediaTypeEnvelope = "application/vnd.parley.envelope+json"
)

type openedBody struct {
	Role         negotiation.Role `json:"role"`
	Observer     bool             `json:"observer,omitempty"`
	Announcement string           `json:"announcement,omitempty"`
}

type stateBody struct {
	State negotiation.State `json:"state"`
	A2A   string            `json:"a2a"`
}

type linkBody struct {
	Address negotiation.Address `json:"address"`
	Link    json.RawMessage     `json:"link"`
}

type blobBody struct {
	Name      string `json:"name"`
	Size      int    `json:"size"`
	MediaType string `json:"mediaType,omitempty"`
	From      string `json:"from,omitempty"`
}

// factBody is a chain.event entry: the chain fact it reports and where
// the chain said it. Code is "ok" when the fact took effect on the thread,
// else the code with which the thread refused it (duplicate for an effect
// the thread already held); only "ok" facts are replayed.
type factBody struct {
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
	Tx         string                  `json:"tx,omitempty"`
	LogIndex   uint                    `json:"logIndex"`
	Block      uint64                  `json:"block,omitempty"`
	Code       string                  `json:"code"`
}

// encodeFact returns the body fields of f.
func encodeFact(f negotiation.Fact) factBody {
	b := factBody{Fact: negotiation.FactName(f)}
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
	}
	return b
}

// decodeFact returns the fact a chain.event body reports.
func decodeFact(b factBody) (negotiation.Fact, error) {
	u256 := func(s string) (negotiation.Uint256, error) {
		var u negotiation.Uint256
		err := u.UnmarshalText([]byte(s))
		return u, err
	}
	need := func(ok bool) error {
		if !ok {
			return fmt.Errorf("node: chain event %s lacks a member", b.Fact)
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
	}
	return nil, fmt.Errorf("node: unknown chain fact %q", b.Fact)
}

// replayFact is the ledger.FactFunc of the node's chain.event entries:
// the facts that took effect, in the order they did.
func replayFact(e ledger.Entry) (negotiation.Fact, error) {
	var b factBody
	if err := json.Unmarshal(e.Body, &b); err != nil {
		return nil, err
	}
	if b.Code != "ok" {
		return nil, nil
	}
	return decodeFact(b)
}
