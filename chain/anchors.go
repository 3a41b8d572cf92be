package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
)

// AnchorEvent is one Anchored event of LedgerAnchor: a node anchored a
// ledger tree head (the Merkle root Root of its first Size entries) in
// transaction TxHash of block Block, at the block's Timestamp (Unix
// seconds, as the contract emits it). The event's node topic is the
// address that sent the transaction (msg.sender).
type AnchorEvent struct {
	Node      common.Address
	Root      [32]byte
	Size      uint64
	Block     uint64
	TxHash    common.Hash
	Timestamp uint64
}

// EstimateAnchor returns the gas an Anchor of (root, size) from the
// client's address would use now (eth_estimateGas, no margin), without
// sending anything. A refusal (bad_head, count_not_increasing) is a
// *RevertError, as Anchor's would be.
func (c *Client) EstimateAnchor(ctx context.Context, root [32]byte, size uint64) (uint64, error) {
	data, err := c.anchor.TryPackAnchor(root, size)
	if err != nil {
		return 0, packErr("anchor", err)
	}
	to := c.cfg.Contracts.LedgerAnchor
	gas, err := c.b.EstimateGas(ctx, ethereum.CallMsg{From: c.s.Address(), To: &to, Data: data})
	if err != nil {
		return 0, c.dec.callError("estimate gas", err)
	}
	return gas, nil
}

// AnchorsOf returns every anchor node posted to LedgerAnchor, oldest
// first, read from the contract's Anchored events (indexed by node) from
// the configured deploy block to the latest block. Sizes grow strictly:
// the contract refuses a count that is not above the node's last one.
func (c *Client) AnchorsOf(ctx context.Context, node common.Address) ([]AnchorEvent, error) {
	ev := c.anchor.GetABI().Events["Anchored"]
	logs, err := c.filterLogs(ctx, ethereum.FilterQuery{
		Addresses: []common.Address{c.cfg.Contracts.LedgerAnchor},
		Topics:    [][]common.Hash{{ev.ID}, {common.BytesToHash(node.Bytes())}},
	}, c.cfg.Contracts.DeployBlock, 0)
	if err != nil {
		return nil, err
	}
	out := make([]AnchorEvent, 0, len(logs))
	for i := range logs {
		if logs[i].Removed {
			continue
		}
		a, err := c.anchor.UnpackAnchoredEvent(&logs[i])
		if err != nil {
			return nil, fmt.Errorf("chain: Anchored event in tx %s: %w", logs[i].TxHash, err)
		}
		if a.Node != node {
			continue // a node topic that is not the address (never from a log filtered by it)
		}
		out = append(out, AnchorEvent{
			Node: a.Node, Root: a.Head, Size: a.Count,
			Block: logs[i].BlockNumber, TxHash: logs[i].TxHash, Timestamp: a.Timestamp,
		})
	}
	return out, nil
}
