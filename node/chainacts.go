package node

import (
	"context"
	"log/slog"
	"math/big"
	"strconv"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// chainActs is the chain side of the node's acts: the co-signed pairs it
// signs, sends and submits (and submits again), the task's state on chain
// an act reads, and the chain facts of contract events and of this node's
// own receipts, applied to the threads through the engine (facts.go). The
// public acts stay the Node's (the runner, n.do, checks running, the chain
// and the act table first) and call it for their chain steps.
//
// It owns no lock: the threads are the engine's (reached only through
// Engine.With), the rest is what the node's wiring gives it, in New (the
// engine, the functions it calls back, the metric, the event stream) and
// at Start (open: this node's address, its signing key, the chain client
// and the watcher's cursor).
type chainActs struct {
	eng    *engine.Engine // the threads and their one write path
	log    *slog.Logger
	facts  *prometheus.CounterVec // the chain facts applied, by fact and code
	events *broadcaster           // the event stream a fact is published on
	check  *ledgerCheck           // the ledger's integrity: a submission never rests on damage

	// Set at Start (open).
	self   negotiation.Address
	key    *identity.EVMKey // signs the EIP-712 digest of a co-signed act
	client *chain.Client    // nil on a node without a chain
	cursor *ledgerCursor    // the watcher's cursor, told when events are delivered

	// pending counts the co-signed submissions running in the background
	// (submitLater), for the tests that wait until nothing is in flight.
	pending atomic.Int32

	// What it calls back in the node.
	authorize    func(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string) (approval.IntentRequest, error)
	send         func(ctx context.Context, t *thread, p negotiation.Payload, to []negotiation.Address, fresh bool) (*negotiation.Envelope, negotiation.Outcome, error)
	may          func(t *thread, act negotiation.Act, args negotiation.ActArgs) error // the act table, again after an approval
	view         func(t *thread) ThreadView
	spawn        func(func(ctx context.Context)) // a goroutine the node owns
	joinEvidence func(t *thread)
	handOff      func(ctx context.Context, nid string)
	takeOver     func(t *thread, wait bool)
	// disputeOpened asks for an anchor of the ledger's tree head (it never
	// blocks: the anchor runs on its own goroutine).
	disputeOpened func()
}

// open gives c what the node has only once it started: its address, its
// signing key, the chain client and the watcher's cursor (both nil
// without a chain), and the logger that names the address.
func (c *chainActs) open(self negotiation.Address, key *identity.EVMKey, client *chain.Client, cursor *ledgerCursor, log *slog.Logger) {
	c.self, c.key, c.client, c.cursor, c.log = self, key, client, cursor, log
}

// result returns the thread view after an act and the envelope it sent.
func (c *chainActs) result(nid string, env *negotiation.Envelope) ActResult {
	r := ActResult{Envelope: envRef(env)}
	_ = c.eng.With(nid, func(t *thread) error { r.Thread = c.view(t); return nil })
	return r
}

// Co-signed acts. A mutual cancel after funding, an amendment and a
// replacement each need the EIP-712 signatures of the poster and the
// worker over one digest, which names the task's on-chain nonce (so a pair
// is usable once). Each party's act signs the digest and sends it in its
// envelope; the state machine reports the pair complete (a CoSigned
// outcome) when the second envelope arrives. The poster's node submits a
// complete pair on chain: in its own act when its envelope completes the
// pair, on receipt when the worker's does (the poster pays the gas, and
// the top-up of an amendment that raises the escrow). Calling the act
// again once the pair is complete submits it again (nothing new is
// signed). The thread moves only on the chain's event.

// fundedTask is what an act on a funded task reads from its thread before
// the gate.
type fundedTask struct {
	taskID [32]byte
	domain negotiation.Domain
	poster negotiation.Address
	worker negotiation.Address
	other  negotiation.Address
	terms  negotiation.Terms // the agreed offer's terms
}

// funded reads t's funded task for an act by a party (t.mu held; the act
// table allowed the act, so the task is funded).
func (c *chainActs) funded(t *thread) fundedTask {
	f := fundedTask{taskID: taskOf(t), poster: t.Th.Poster(), worker: t.Th.Worker(), other: c.eng.OtherParty(t)}
	ag := t.Th.Agreement()
	f.domain = ag.Domain
	if off := t.Th.Envelope(ag.Offer); off != nil {
		switch p := off.Payload.(type) {
		case *negotiation.TaskProposal:
			f.terms = p.Terms
		case *negotiation.TaskCounterOffer:
			f.terms = p.Terms
		}
	}
	return f
}

// activeTask reads the task's state on chain and refuses a task that is
// no longer active (settled, cancelled or disputed).
func (c *chainActs) activeTask(ctx context.Context, taskID [32]byte) (chain.Task, error) {
	task, err := c.client.TaskState(ctx, taskID)
	if err != nil {
		return task, chainErr("task state", err)
	}
	if task.Status != chain.TaskActive {
		return task, fail(CodeStateForbidden, "the task is not active on chain (status %d)", task.Status)
	}
	return task, nil
}

// sameTask re-reads the task after an approval and refuses when its nonce
// moved while the approval was pending: the digest approved can no longer
// be used, and nothing is signed.
func (c *chainActs) sameTask(ctx context.Context, taskID [32]byte, nonce uint64) (chain.Task, error) {
	task, err := c.activeTask(ctx, taskID)
	if err != nil {
		return task, err
	}
	if task.Nonce != nonce {
		return task, fail(CodeStateForbidden, "the task changed on chain while the approval was pending (nonce %d, now %d); nothing was signed", nonce, task.Nonce)
	}
	return task, nil
}

// coArgs are the approval arguments every co-signed act shares: the
// EIP-712 domain, the task, its nonce and the digest signed.
func coArgs(taskID [32]byte, nonce uint64, d negotiation.Domain, digest [32]byte) map[string]any {
	return map[string]any{
		"taskId": chain.TaskIDString(taskID), "nonce": strconv.FormatUint(nonce, 10),
		"digest": negotiation.Hash(digest).String(), "chainId": fmtAmount(d.ChainID),
		"verifyingContract": negotiation.Address(d.VerifyingContract).String(),
	}
}

// sendCoSigned signs digest, sets the signature on p (the envelope of a
// co-signed act), sends it to the other party and to the extra recipients,
// and, when it completes the pair and this node is the poster, submits the
// pair on chain. check, when set, runs under the thread's lock before
// anything is signed.
func (c *chainActs) sendCoSigned(ctx context.Context, nid string, act negotiation.Act, p negotiation.Payload, digest [32]byte, extra []negotiation.Address, check func(*thread) error) (ActResult, error) {
	var (
		env  *negotiation.Envelope
		out  negotiation.Outcome
		role negotiation.Role
	)
	err := c.eng.With(nid, func(t *thread) error {
		if err := c.may(t, act, negotiation.ActArgs{}); err != nil {
			return err // the thread moved while the approval was pending: nothing is signed
		}
		role = t.Th.RoleOf(c.self)
		if check != nil {
			if err := check(t); err != nil {
				return err
			}
		}
		sig, err := c.key.SignDigest(digest)
		if err != nil {
			return err
		}
		switch v := p.(type) {
		case *negotiation.MutualCancel:
			v.Signature = sig
		case *negotiation.MilestoneDefinition:
			v.Signature = sig
		case *negotiation.ReplacementContext:
			v.Signature = sig
		}
		env, out, err = c.send(ctx, t, p, append(c.eng.Recipients(t, false), extra...), false)
		return err
	})
	if err != nil {
		return ActResult{}, err
	}
	r := c.result(nid, env)
	r.Detail = map[string]string{"digest": negotiation.Hash(digest).String(), "coSigned": strconv.FormatBool(out.CoSigned != nil)}
	if out.CoSigned == nil {
		return r, nil
	}
	if role != negotiation.RolePoster {
		r.Detail["submitBy"] = "poster"
		return r, nil
	}
	rc, err := c.submitCoSigned(ctx, nid, out.CoSigned.Kind)
	if err != nil {
		return r, err
	}
	r.Thread = c.result(nid, nil).Thread
	r.Tx = txRef(rc)
	return r, nil
}

// resubmit submits a pair that is complete already: nothing new is signed.
func (c *chainActs) resubmit(ctx context.Context, nid string, kind negotiation.MessageType) (ActResult, error) {
	rc, err := c.submitCoSigned(ctx, nid, kind)
	if err != nil {
		return ActResult{}, err
	}
	r := c.result(nid, nil)
	r.Tx = txRef(rc)
	r.Detail = map[string]string{"coSigned": "true", "resubmitted": "true"}
	return r, nil
}

// submitCoSigned submits the thread's complete pair of kind on chain
// (mutualCancel, amend or replaceWorker) and applies the receipt's facts.
// It refuses a pair the chain can no longer take: a task that is not
// active, or whose nonce moved on (the pair was submitted already, or
// another act came first).
func (c *chainActs) submitCoSigned(ctx context.Context, nid string, kind negotiation.MessageType) (*types.Receipt, error) {
	if err := c.check.restsOn(ctx, c.eng.Ledger(), nid, true); err != nil {
		return nil, err // it moves money: never on a damaged record
	}
	var (
		cs     *negotiation.CoSigned
		pe     *negotiation.Envelope
		taskID [32]byte
	)
	err := c.eng.With(nid, func(t *thread) (err error) {
		if err = c.may(t, negotiation.ActSubmitCoSigned, negotiation.ActArgs{Kind: kind}); err != nil {
			return err
		}
		cs = t.Th.Ready(kind)
		pe, taskID = t.Th.Envelope(cs.Envelopes[0]), taskOf(t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	task, err := c.activeTask(ctx, taskID)
	if err != nil {
		return nil, err
	}
	// The pair must sign for the task's nonce, and an amendment that
	// raises the escrow is the poster's to submit.
	args := negotiation.ActArgs{Kind: kind, Nonce: &task.Nonce}
	var up *big.Int
	if p, ok := pe.Payload.(*negotiation.MilestoneDefinition); ok {
		if up, _, err = escrowChange(task, amendmentOf(taskID, p).MilestoneAmounts); err != nil {
			return nil, err
		}
		args.TopUp = up.Sign() > 0
	}
	if err := c.eng.With(nid, func(t *thread) error { return c.may(t, negotiation.ActSubmitCoSigned, args) }); err != nil {
		return nil, err
	}
	var res *chain.TaskResult
	op := ""
	switch p := pe.Payload.(type) {
	case *negotiation.MutualCancel:
		op = "mutualCancel"
		res, err = c.client.MutualCancel(ctx, taskID, task, cs.PosterSignature, cs.WorkerSignature)
	case *negotiation.MilestoneDefinition:
		op = "amend"
		am := amendmentOf(taskID, p)
		var value *big.Int
		if up.Sign() > 0 {
			if task.Token == (common.Address{}) {
				value = up
			} else if err := allowExactly(ctx, c.client, c.self, task.Token, up); err != nil {
				return nil, err
			}
		}
		res, err = c.client.Amend(ctx, taskID, am, task, cs.PosterSignature, cs.WorkerSignature, value)
	case *negotiation.ReplacementContext:
		op = "replaceWorker"
		r := negotiation.Replacement{TaskID: taskID, NewWorker: common.Address(p.NewWorker), HandoffHash: p.HandoffHash, Nonce: p.Nonce.Big()}
		res, err = c.client.ReplaceWorker(ctx, taskID, r, task, cs.PosterSignature, cs.WorkerSignature)
	}
	if err != nil {
		return nil, chainErr(op, err)
	}
	c.log.Info("co-signed act submitted", "negotiation", nid, "op", op, "tx", res.Receipt.TxHash)
	if err := c.applyReceipt(ctx, res.Receipt); err != nil {
		return res.Receipt, err
	}
	return res.Receipt, nil
}

// onCoSigned is called when a received envelope completes a co-signed
// pair (t.mu held): the poster's node submits it on chain; a replacement
// worker joining the thread takes the worker's role once the pair that
// names it is complete and the chain has made the replacement.
func (c *chainActs) onCoSigned(t *thread, cs *negotiation.CoSigned) {
	if cs == nil {
		return
	}
	if t.Th.RoleOf(c.self) == negotiation.RolePoster && c.client != nil && t.Th.State().PostFunding() {
		c.submitLater(t.ID, cs.Kind)
		return
	}
	if cs.Kind == negotiation.TypeReplacementContext {
		c.takeOver(t, false)
	}
}

// submitLater submits the pair of kind in the background.
func (c *chainActs) submitLater(nid string, kind negotiation.MessageType) {
	c.pending.Add(1)
	c.spawn(func(ctx context.Context) {
		defer c.pending.Add(-1)
		_, err := c.submitCoSigned(ctx, nid, kind)
		switch {
		case err == nil || ctx.Err() != nil:
		case CodeOf(err) == CodeStateForbidden:
			c.log.Debug("co-signed act not submitted", "negotiation", nid, "kind", kind, "err", err)
		default:
			c.log.Warn("co-signed act not submitted; calling the act again submits it", "negotiation", nid, "kind", kind, "err", err)
		}
	})
}

// resumeCoSigned finishes, after a restart, what a stop interrupted
// (t.mu held): the poster's node submits complete pairs the chain has not
// taken (a pair the chain took or can no longer take is skipped), and a
// replacement worker takes over a thread whose replacement is complete.
func (c *chainActs) resumeCoSigned(t *thread) {
	if c.client == nil {
		return
	}
	if t.Th.RoleOf(c.self) == negotiation.RolePoster && t.Th.State().PostFunding() {
		for _, k := range negotiation.CoSignedTypes {
			if t.Th.Ready(k) != nil {
				c.submitLater(t.ID, k)
			}
		}
		return
	}
	c.takeOver(t, true)
}
