package chain

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
)

// AnchorOfTx returns the Anchored event of LedgerAnchor that transaction
// tx emitted, with the address that sent it (the event's node topic,
// msg.sender), whatever that address is: a proof bundle's verifier reads
// it to tell an anchor posted by another address from one that is not on
// chain at all. ok is false when the chain has no receipt of tx or the
// receipt holds no Anchored event of the configured LedgerAnchor.
func (c *Client) AnchorOfTx(ctx context.Context, tx common.Hash) (a AnchorEvent, ok bool, err error) {
	r, err := c.b.TransactionReceipt(ctx, tx)
	if errors.Is(err, ethereum.NotFound) {
		return AnchorEvent{}, false, nil
	}
	if err != nil {
		return AnchorEvent{}, false, fmt.Errorf("chain: receipt of %s: %w", tx, err)
	}
	ev := c.anchor.GetABI().Events["Anchored"]
	for _, l := range r.Logs {
		if l.Address != c.cfg.Contracts.LedgerAnchor || len(l.Topics) == 0 || l.Topics[0] != ev.ID || l.Removed {
			continue
		}
		e, err := c.anchor.UnpackAnchoredEvent(l)
		if err != nil {
			return AnchorEvent{}, false, fmt.Errorf("chain: Anchored event in tx %s: %w", tx, err)
		}
		return AnchorEvent{Node: e.Node, Root: e.Head, Size: e.Count, Block: l.BlockNumber, TxHash: l.TxHash, Timestamp: e.Timestamp}, true, nil
	}
	return AnchorEvent{}, false, nil
}
