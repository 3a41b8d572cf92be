package chain

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/negotiation"
)

// Client is a typed client for Parley's contracts, acting as one Signer.
// It is safe for concurrent use.
type Client struct {
	cfg Config
	b   Backend
	s   Signer
	tx  *sender
	dec *errorDecoder
	log *slog.Logger

	reg    *bindings.TaskRegistry
	arb    *bindings.ArbitrationModule
	idl    *bindings.IdentityLink
	scope  *bindings.TaskScopeRegistry
	anchor *bindings.LedgerAnchor
}

// TaskResult is the outcome of a TaskRegistry transaction: the task's id and
// new state (from the TaskUpdated event of the receipt) and the receipt.
type TaskResult struct {
	TaskID  [32]byte
	Task    Task
	Receipt *types.Receipt
}

// New returns a Client over b acting as s. It does no I/O; the chain id is
// read (and checked against cfg.ChainID) on first use.
func New(b Backend, s Signer, cfg Config, log *slog.Logger) (*Client, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: backend is nil", ErrInvalidConfig)
	}
	if s == nil {
		return nil, fmt.Errorf("%w: signer is nil", ErrInvalidConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "chain")
	dec, err := newErrorDecoder()
	if err != nil {
		return nil, err
	}
	return &Client{
		cfg: cfg, b: b, s: s, dec: dec, log: log,
		tx:     newSender(b, s, cfg, dec, log),
		reg:    bindings.NewTaskRegistry(),
		arb:    bindings.NewArbitrationModule(),
		idl:    bindings.NewIdentityLink(),
		scope:  bindings.NewTaskScopeRegistry(),
		anchor: bindings.NewLedgerAnchor(),
	}, nil
}

// Address returns the address the client acts as.
func (c *Client) Address() common.Address { return c.s.Address() }

// Backend returns the backend the client talks to.
func (c *Client) Backend() Backend { return c.b }

// Contracts returns the contract addresses the client uses.
func (c *Client) Contracts() Addresses { return c.cfg.Contracts }

// ChainID returns the node's chain id.
func (c *Client) ChainID(ctx context.Context) (*big.Int, error) { return c.tx.chainIDOf(ctx) }

// Domain returns the EIP-712 domain of settlements on this chain.
func (c *Client) Domain(ctx context.Context) (negotiation.Domain, error) {
	id, err := c.ChainID(ctx)
	if err != nil {
		return negotiation.Domain{}, err
	}
	return negotiation.Domain{ChainID: new(big.Int).Set(id), VerifyingContract: c.cfg.Contracts.TaskRegistry}, nil
}

// Transact sends a transaction with data to `to` (nil deploys) and returns
// its receipt; the contract methods below are built on it.
func (c *Client) Transact(ctx context.Context, to *common.Address, value *big.Int, data []byte) (*types.Receipt, error) {
	return c.tx.transact(ctx, to, value, data)
}

// Call runs a read-only call of data against `to` on the latest block.
func (c *Client) Call(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
	return c.tx.call(ctx, to, data)
}

func packErr(method string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrBadArgument, method, err)
}

// taskTx sends a TaskRegistry transaction and reads the task's new state
// from its receipt.
func (c *Client) taskTx(ctx context.Context, taskID [32]byte, value *big.Int, data []byte, err error) (*TaskResult, error) {
	if err != nil {
		return nil, packErr("taskRegistry", err)
	}
	to := c.cfg.Contracts.TaskRegistry
	r, err := c.tx.transact(ctx, &to, value, data)
	if err != nil {
		return nil, err
	}
	res := &TaskResult{TaskID: taskID, Receipt: r}
	found := false
	for _, l := range r.Logs {
		if l.Address != to || len(l.Topics) < 2 {
			continue
		}
		if ev, err := c.reg.UnpackTaskUpdatedEvent(l); err == nil {
			if taskID == ([32]byte{}) {
				res.TaskID = ev.TaskId
			}
			if ev.TaskId == res.TaskID {
				res.Task, found = ev.Task, true
			}
		}
	}
	if !found {
		return res, fmt.Errorf("%w: tx %s", ErrNoTaskEvent, r.TxHash)
	}
	return res, nil
}

// CreateTask funds a task from a settlement both parties signed. The client
// must act as the poster; for ETH it sends the amount, for an ERC-20 the
// registry must hold an allowance (ApproveToken).
func (c *Client) CreateTask(ctx context.Context, s negotiation.Settlement, posterSig, workerSig []byte) (*TaskResult, error) {
	value := new(big.Int)
	if s.Token == (common.Address{}) && s.Amount != nil {
		value.Set(s.Amount)
	}
	data, err := c.reg.TryPackCreateTask(SettlementArgs(s), posterSig, workerSig)
	return c.taskTx(ctx, [32]byte{}, value, data, err)
}

// SubmitProof submits the worker's proof for a milestone.
func (c *Client) SubmitProof(ctx context.Context, taskID [32]byte, task Task, milestone uint64, proofCID string) (*TaskResult, error) {
	data, err := c.reg.TryPackSubmitProof(taskID, new(big.Int).SetUint64(milestone), proofCID, task)
	return c.taskTx(ctx, taskID, nil, data, err)
}

// ReleaseMilestone accepts a delivery (or pays a milestone early) as the poster.
func (c *Client) ReleaseMilestone(ctx context.Context, taskID [32]byte, task Task, milestone uint64) (*TaskResult, error) {
	data, err := c.reg.TryPackReleaseMilestone(taskID, new(big.Int).SetUint64(milestone), task)
	return c.taskTx(ctx, taskID, nil, data, err)
}

// RequestRevision sends, as the poster, a submitted milestone back to work
// while its proof's review period runs: the review clock stops (the worker
// can no longer claim that proof) and the milestone is Revising until the
// worker submits a new proof (SubmitProof), which it may do until
// ResubmitUntil. Refused after the review period (review_period_over) and
// after MaxRevisions requests for the milestone (too_many_revisions).
func (c *Client) RequestRevision(ctx context.Context, taskID [32]byte, task Task, milestone uint64) (*TaskResult, error) {
	data, err := c.reg.TryPackRequestRevision(taskID, new(big.Int).SetUint64(milestone), task)
	return c.taskTx(ctx, taskID, nil, data, err)
}

// ReleasePart releases, as the poster, amount of an open, submitted or
// revising milestone to the worker; the milestone's running total
// (Milestone.Released) never exceeds its amount (bad_part for zero or more
// than remains), and the part that releases the rest releases the
// milestone (a MilestoneReleased event follows the PartReleased one).
func (c *Client) ReleasePart(ctx context.Context, taskID [32]byte, task Task, milestone uint64, amount *big.Int) (*TaskResult, error) {
	data, err := c.reg.TryPackReleasePart(taskID, new(big.Int).SetUint64(milestone), amount, task)
	return c.taskTx(ctx, taskID, nil, data, err)
}

// ClaimUnanswered claims, as the worker, a milestone whose proof the poster
// left unanswered for the review period.
func (c *Client) ClaimUnanswered(ctx context.Context, taskID [32]byte, task Task, milestone uint64) (*TaskResult, error) {
	data, err := c.reg.TryPackClaimUnanswered(taskID, new(big.Int).SetUint64(milestone), task)
	return c.taskTx(ctx, taskID, nil, data, err)
}

// ReclaimExpired takes back, as the poster after the deadline, every
// milestone without a proof.
func (c *Client) ReclaimExpired(ctx context.Context, taskID [32]byte, task Task) (*TaskResult, error) {
	data, err := c.reg.TryPackReclaimExpired(taskID, task)
	return c.taskTx(ctx, taskID, nil, data, err)
}

// MutualCancel cancels a task with both parties' Cancel signatures (over
// negotiation.Cancel{TaskID, Nonce: task.Nonce}).
func (c *Client) MutualCancel(ctx context.Context, taskID [32]byte, task Task, posterSig, workerSig []byte) (*TaskResult, error) {
	data, err := c.reg.TryPackMutualCancel(taskID, task, posterSig, workerSig)
	return c.taskTx(ctx, taskID, nil, data, err)
}

// Amend amends a task with both parties' Amendment signatures; value is the
// top-up in wei when the new escrow is larger and the token is ETH.
func (c *Client) Amend(ctx context.Context, taskID [32]byte, a negotiation.Amendment, task Task, posterSig, workerSig []byte, value *big.Int) (*TaskResult, error) {
	data, err := c.reg.TryPackAmend(taskID, AmendmentArgs(a), task, posterSig, workerSig)
	return c.taskTx(ctx, taskID, value, data, err)
}

// ReplaceWorker hands a task to a new worker with the Replacement
// signatures of the poster and the current worker.
func (c *Client) ReplaceWorker(ctx context.Context, taskID [32]byte, r negotiation.Replacement, task Task, posterSig, workerSig []byte) (*TaskResult, error) {
	data, err := c.reg.TryPackReplaceWorker(taskID, ReplacementArgs(r), task, posterSig, workerSig)
	return c.taskTx(ctx, taskID, nil, data, err)
}

// OpenDispute opens a dispute about the task as poster or worker, posting
// the ArbitrationModule's bond. The dispute id is the task id as a uint256.
func (c *Client) OpenDispute(ctx context.Context, taskID [32]byte, task Task) (*TaskResult, error) {
	bond, err := c.Bond(ctx)
	if err != nil {
		return nil, err
	}
	data, err := c.reg.TryPackOpenDispute(taskID, task)
	return c.taskTx(ctx, taskID, bond, data, err)
}

// Withdraw pays the client amount of what the registry owes it in token
// (the zero address for ETH).
func (c *Client) Withdraw(ctx context.Context, token common.Address, amount *big.Int) (*types.Receipt, error) {
	data, err := c.reg.TryPackWithdraw(token, amount)
	if err != nil {
		return nil, packErr("withdraw", err)
	}
	to := c.cfg.Contracts.TaskRegistry
	return c.tx.transact(ctx, &to, nil, data)
}

// Owed returns what the registry owes account in token.
func (c *Client) Owed(ctx context.Context, token, account common.Address) (*big.Int, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskRegistry, c.reg.PackOwed(token, account))
	if err != nil {
		return nil, err
	}
	return c.reg.UnpackOwed(out)
}

// TaskStateHash returns the state hash the registry stores for a task (zero
// if the digest was never used).
func (c *Client) TaskStateHash(ctx context.Context, taskID [32]byte) ([32]byte, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskRegistry, c.reg.PackTaskState(taskID))
	if err != nil {
		return [32]byte{}, err
	}
	return c.reg.UnpackTaskState(out)
}

// ReviewPeriod returns the seconds a poster has to answer a proof.
func (c *Client) ReviewPeriod(ctx context.Context) (uint64, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskRegistry, c.reg.PackReviewPeriod())
	if err != nil {
		return 0, err
	}
	return c.reg.UnpackReviewPeriod(out)
}

// SettlementDigestOnChain returns the digest the deployed registry computes
// for s.
func (c *Client) SettlementDigestOnChain(ctx context.Context, s negotiation.Settlement) ([32]byte, error) {
	data, err := c.reg.TryPackSettlementDigest(SettlementArgs(s))
	if err != nil {
		return [32]byte{}, packErr("settlementDigest", err)
	}
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskRegistry, data)
	if err != nil {
		return [32]byte{}, err
	}
	return c.reg.UnpackSettlementDigest(out)
}

// AmendmentDigestOnChain returns the digest the registry computes for a.
func (c *Client) AmendmentDigestOnChain(ctx context.Context, a negotiation.Amendment) ([32]byte, error) {
	data, err := c.reg.TryPackAmendmentDigest(a.TaskID, AmendmentArgs(a))
	if err != nil {
		return [32]byte{}, packErr("amendmentDigest", err)
	}
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskRegistry, data)
	if err != nil {
		return [32]byte{}, err
	}
	return c.reg.UnpackAmendmentDigest(out)
}

// ReplacementDigestOnChain returns the digest the registry computes for r.
func (c *Client) ReplacementDigestOnChain(ctx context.Context, r negotiation.Replacement) ([32]byte, error) {
	data, err := c.reg.TryPackReplacementDigest(r.TaskID, ReplacementArgs(r))
	if err != nil {
		return [32]byte{}, packErr("replacementDigest", err)
	}
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskRegistry, data)
	if err != nil {
		return [32]byte{}, err
	}
	return c.reg.UnpackReplacementDigest(out)
}

// CancelDigestOnChain returns the digest the registry computes for a cancel.
func (c *Client) CancelDigestOnChain(ctx context.Context, x negotiation.Cancel) ([32]byte, error) {
	data, err := c.reg.TryPackCancelDigest(x.TaskID, bigOrZero(x.Nonce))
	if err != nil {
		return [32]byte{}, packErr("cancelDigest", err)
	}
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskRegistry, data)
	if err != nil {
		return [32]byte{}, err
	}
	return c.reg.UnpackCancelDigest(out)
}

// DomainSeparator returns the registry's EIP-712 domain separator.
func (c *Client) DomainSeparator(ctx context.Context) ([32]byte, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskRegistry, c.reg.PackDomainSeparator())
	if err != nil {
		return [32]byte{}, err
	}
	return c.reg.UnpackDomainSeparator(out)
}

// TaskHashOnChain returns the hash the registry computes for a task state
// (TaskHash computes the same in Go).
func (c *Client) TaskHashOnChain(ctx context.Context, task Task) ([32]byte, error) {
	data, err := c.reg.TryPackHashTask(task)
	if err != nil {
		return [32]byte{}, packErr("hashTask", err)
	}
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskRegistry, data)
	if err != nil {
		return [32]byte{}, err
	}
	return c.reg.UnpackHashTask(out)
}
