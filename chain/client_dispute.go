package chain

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// DisputeID returns the ArbitrationModule's id of the dispute about taskID.
func DisputeID(taskID [32]byte) *big.Int { return new(big.Int).SetBytes(taskID[:]) }

func (c *Client) arbTx(ctx context.Context, value *big.Int, data []byte, err error) (*types.Receipt, error) {
	if err != nil {
		return nil, packErr("arbitrationModule", err)
	}
	to := c.cfg.Contracts.ArbitrationModule
	return c.tx.transact(ctx, &to, value, data)
}

// Bond returns the bond in wei a party posts to open a dispute.
func (c *Client) Bond(ctx context.Context) (*big.Int, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.ArbitrationModule, c.arb.PackBond())
	if err != nil {
		return nil, err
	}
	return c.arb.UnpackBond(out)
}

// ProposeArbitrator names, as poster or worker, the arbitrator the client
// accepts for the dispute about taskID. The arbitrator is assigned once both
// parties named the same address.
func (c *Client) ProposeArbitrator(ctx context.Context, taskID [32]byte, arbitrator common.Address) (*types.Receipt, error) {
	data, err := c.arb.TryPackProposeArbitrator(DisputeID(taskID), arbitrator)
	return c.arbTx(ctx, nil, data, err)
}

// RaiseWithArbitrator raises the dispute with its ERC-792 arbitrator
// contract, paying fee, and returns the contract's own dispute id.
func (c *Client) RaiseWithArbitrator(ctx context.Context, taskID [32]byte, extraData []byte, fee *big.Int) (*big.Int, *types.Receipt, error) {
	data, err := c.arb.TryPackRaiseWithArbitrator(DisputeID(taskID), extraData)
	r, err := c.arbTx(ctx, fee, data, err)
	if err != nil {
		return nil, r, err
	}
	for _, l := range r.Logs {
		if l.Address != c.cfg.Contracts.ArbitrationModule {
			continue
		}
		if ev, err := c.arb.UnpackDisputeEvent(l); err == nil && ev.DisputeID.Cmp(DisputeID(taskID)) != 0 {
			return ev.DisputeID, r, nil
		}
	}
	return nil, r, ErrNoTaskEvent
}

// Rule gives the assigned arbitrator's ruling: 0 refuses, r in 1..10001
// gives the worker r-1 basis points.
func (c *Client) Rule(ctx context.Context, taskID [32]byte, ruling uint64) (*types.Receipt, error) {
	data, err := c.arb.TryPackRule(DisputeID(taskID), new(big.Int).SetUint64(ruling))
	return c.arbTx(ctx, nil, data, err)
}

// ResolveTimedOut resolves a dispute whose stage timed out (even split, bond
// back to the opener).
func (c *Client) ResolveTimedOut(ctx context.Context, taskID [32]byte) (*types.Receipt, error) {
	data, err := c.arb.TryPackResolveTimedOut(DisputeID(taskID))
	return c.arbTx(ctx, nil, data, err)
}

// SubmitEvidence adds evidence (its CID) to the dispute about taskID.
func (c *Client) SubmitEvidence(ctx context.Context, taskID [32]byte, evidenceCID string) (*types.Receipt, error) {
	data, err := c.arb.TryPackSubmitEvidence(DisputeID(taskID), evidenceCID)
	return c.arbTx(ctx, nil, data, err)
}

// Dispute returns the dispute about taskID (Status DisputeNone if none).
func (c *Client) Dispute(ctx context.Context, taskID [32]byte) (DisputeRecord, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.ArbitrationModule, c.arb.PackDispute(DisputeID(taskID)))
	if err != nil {
		return DisputeRecord{}, err
	}
	return c.arb.UnpackDispute(out)
}

// DisputeTimeouts returns the seconds the parties have to agree on an
// arbitrator and the seconds an assigned arbitrator has to rule.
func (c *Client) DisputeTimeouts(ctx context.Context) (assign, rule uint64, err error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.ArbitrationModule, c.arb.PackAssignTimeout())
	if err != nil {
		return 0, 0, err
	}
	if assign, err = c.arb.UnpackAssignTimeout(out); err != nil {
		return 0, 0, err
	}
	out, err = c.tx.call(ctx, c.cfg.Contracts.ArbitrationModule, c.arb.PackRuleTimeout())
	if err != nil {
		return 0, 0, err
	}
	rule, err = c.arb.UnpackRuleTimeout(out)
	return assign, rule, err
}

// ExternalDispute returns the task id an ERC-792 arbitrator contract's own
// dispute id maps to (zero if none).
func (c *Client) ExternalDispute(ctx context.Context, arbitrator common.Address, externalID *big.Int) ([32]byte, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.ArbitrationModule, c.arb.PackExternalDispute(arbitrator, bigOrZero(externalID)))
	if err != nil {
		return [32]byte{}, err
	}
	return c.arb.UnpackExternalDispute(out)
}
