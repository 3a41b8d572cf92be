package chain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// TaskState returns a task's current state, rebuilt from its latest
// TaskUpdated event and checked against the hash the registry stores. A task
// whose dispute was paid out is returned as its last emitted state with
// Status TaskClosed. It returns ErrTaskNotFound when the digest was never
// used or no event matches.
func (c *Client) TaskState(ctx context.Context, taskID [32]byte) (Task, error) {
	stored, err := c.TaskStateHash(ctx, taskID)
	if err != nil {
		return Task{}, err
	}
	if stored == ([32]byte{}) {
		return Task{}, fmt.Errorf("%w: %x", ErrTaskNotFound, taskID)
	}
	logs, err := c.filterLogs(ctx, ethereum.FilterQuery{
		Addresses: []common.Address{c.cfg.Contracts.TaskRegistry},
		Topics:    [][]common.Hash{{c.reg.GetABI().Events["TaskUpdated"].ID}, {taskID}},
	}, c.cfg.Contracts.DeployBlock, 0)
	if err != nil {
		return Task{}, err
	}
	for i := len(logs) - 1; i >= 0; i-- {
		ev, err := c.reg.UnpackTaskUpdatedEvent(&logs[i])
		if err != nil {
			continue
		}
		if stored == ClosedByDispute {
			t := CopyTask(ev.Task)
			t.Status = TaskClosed
			return t, nil
		}
		h, err := TaskHash(ev.Task)
		if err == nil && h == stored {
			return ev.Task, nil
		}
		if ev.Task.Status == TaskDisputed {
			// the stored hash of a disputed task covers its DisputeTerms
			return ev.Task, nil
		}
	}
	return Task{}, fmt.Errorf("%w: no event matches the stored state of %x", ErrTaskNotFound, taskID)
}

// filterLogs queries logs from `from` to `to` (0 for the latest block) in
// windows of Config.LogRange blocks.
func (c *Client) filterLogs(ctx context.Context, q ethereum.FilterQuery, from, to uint64) ([]types.Log, error) {
	return filterLogs(ctx, c.b, q, from, to, c.cfg.LogRange)
}

func filterLogs(ctx context.Context, b Backend, q ethereum.FilterQuery, from, to, window uint64) ([]types.Log, error) {
	if to == 0 {
		head, err := b.BlockNumber(ctx)
		if err != nil {
			return nil, fmt.Errorf("chain: block number: %w", err)
		}
		to = head
	}
	var out []types.Log
	for lo := from; lo <= to; lo += window {
		hi := min(lo+window-1, to)
		q.FromBlock, q.ToBlock = new(big.Int).SetUint64(lo), new(big.Int).SetUint64(hi)
		logs, err := b.FilterLogs(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("chain: logs %d-%d: %w", lo, hi, err)
		}
		out = append(out, logs...)
	}
	return out, nil
}
