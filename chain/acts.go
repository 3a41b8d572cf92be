package chain

import (
	"context"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
)

// TaskEvents returns every event the TaskRegistry emitted about a task
// (those whose first indexed argument is the task id: TaskCreated,
// TaskUpdated, ProofSubmitted, MilestoneReleased, RevisionRequested,
// PartReleased, EscrowRefunded, TaskAmended, WorkerReplaced, DisputeOpened,
// DisputeSettled, Credited, and the MetaEvidence whose id is the task id),
// decoded, in chain order, from the deployment block to the latest block.
// A party that learns of a task late (a replacement worker) reads from it
// what the chain decided: who replaced whom with which hand-over, and in
// which transaction. A task id never used has no events: the result is
// empty, not an error.
func (c *Client) TaskEvents(ctx context.Context, taskID [32]byte) ([]Event, error) {
	logs, err := c.filterLogs(ctx, ethereum.FilterQuery{
		Addresses: []common.Address{c.cfg.Contracts.TaskRegistry},
		Topics:    [][]common.Hash{nil, {taskID}},
	}, c.cfg.Contracts.DeployBlock, 0)
	if err != nil {
		return nil, err
	}
	t := newEventTable(c.cfg.Contracts)
	out := make([]Event, 0, len(logs))
	for _, l := range logs {
		if ev, ok := t.decode(l); ok {
			out = append(out, ev)
		}
	}
	return out, nil
}
