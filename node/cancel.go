package node

import (
	"context"
	"fmt"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

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
func (n *Node) funded(t *thread) fundedTask {
	f := fundedTask{taskID: taskOf(t), poster: t.Th.Poster(), worker: t.Th.Worker(), other: n.eng.OtherParty(t)}
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
func (n *Node) activeTask(ctx context.Context, taskID [32]byte) (chain.Task, error) {
	task, err := n.client.TaskState(ctx, taskID)
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
func (n *Node) sameTask(ctx context.Context, taskID [32]byte, nonce uint64) (chain.Task, error) {
	task, err := n.activeTask(ctx, taskID)
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

// Cancel cancels the negotiation by mutual consent, once the gate approves
// (sign_cancel). Before funding it sends a MutualCancel: there is nothing
// on chain to undo, and the thread is cancelled when both parties sent
// one. After funding the node signs the EIP-712 Cancel of the task at its
// current nonce and sends it in the MutualCancel; when both parties signed
// the same digest the poster's node submits mutualCancel, every unreleased
// milestone is owed back to the poster, and the chain's EscrowRefunded
// event cancels the thread. When the pair is complete already, Cancel
// submits it (nothing new is signed).
func (n *Node) Cancel(ctx context.Context, nid, reason string) (ActResult, error) {
	check := func() error {
		if len(reason) > 4096 {
			return fail(CodeBadArgument, "the reason has %d bytes; at most 4096", len(reason))
		}
		return nil
	}
	var (
		st negotiation.State
		f  fundedTask
	)
	read := func(t *thread) error {
		if st = t.Th.State(); st.PostFunding() {
			f = n.funded(t)
		}
		return nil
	}
	a := actCall{act: negotiation.ActCancel, nid: nid, chain: chainFunded, check: check, locked: read}
	return n.do(a, func() (ActResult, error) {
		if st.PostFunding() {
			return n.cancelFunded(ctx, nid, reason, f)
		}
		return n.cancelUnfunded(ctx, nid, reason, st)
	})
}

// cancelUnfunded sends the cancel intent of a negotiation not yet funded.
func (n *Node) cancelUnfunded(ctx context.Context, nid, reason string, st negotiation.State) (ActResult, error) {
	args := map[string]any{"state": string(st), "reason": reason}
	why := "cancel the negotiation before funding: nothing is on chain; it ends when both parties have sent a cancel"
	if _, err := n.authorize(ctx, ActSignCancel, nid, args, why, "medium"); err != nil {
		return ActResult{}, err
	}
	var r ActResult
	err := n.eng.With(nid, func(t *thread) error {
		if err := n.may(t, negotiation.ActCancel, negotiation.ActArgs{}); err != nil {
			return err
		}
		if now := t.Th.State(); now.PostFunding() {
			// The approval was of a cancel before funding: nothing on chain.
			return fail(CodeStateForbidden, "the thread moved to %s while the approval was pending; nothing was sent", now)
		}
		env, out, err := n.sendLocked(ctx, t, &negotiation.MutualCancel{Reason: reason}, n.eng.Recipients(t, false), false)
		if err != nil {
			return err
		}
		r = ActResult{Thread: n.viewLocked(t), Envelope: envRef(env), Detail: map[string]string{"coSigned": strconv.FormatBool(out.CoSigned != nil)}}
		return nil
	})
	if err != nil {
		return ActResult{}, err
	}
	return r, nil
}

// cancelFunded signs and sends the Cancel of the funded task f.
func (n *Node) cancelFunded(ctx context.Context, nid, reason string, f fundedTask) (ActResult, error) {
	task, err := n.activeTask(ctx, f.taskID)
	if err != nil {
		return ActResult{}, err
	}
	nonce := task.Nonce
	digest, err := negotiation.Cancel{TaskID: f.taskID, Nonce: new(big.Int).SetUint64(nonce)}.Digest(f.domain)
	if err != nil {
		return ActResult{}, err
	}
	var ready *negotiation.CoSigned
	err = n.eng.With(nid, func(t *thread) error {
		ready = t.Th.ReadyCoSign(negotiation.TypeMutualCancel, nonce)
		return n.may(t, negotiation.ActCancel, negotiation.ActArgs{Nonce: &nonce})
	})
	if err != nil {
		return ActResult{}, err
	}
	if ready != nil && ready.Digest == negotiation.Hash(digest) {
		return n.resubmit(ctx, nid, negotiation.TypeMutualCancel)
	}
	escrow := chain.Escrow(task)
	args := coArgs(f.taskID, nonce, f.domain, digest)
	args["refund"], args["reason"] = fmtAmount(escrow), reason
	why := fmt.Sprintf("sign the cancel of the funded task: once both parties signed, the %s wei still in escrow are owed back to the poster", fmtAmount(escrow))
	if _, err := n.authorize(ctx, ActSignCancel, nid, args, why, "high"); err != nil {
		return ActResult{}, err
	}
	if _, err := n.sameTask(ctx, f.taskID, nonce); err != nil {
		return ActResult{}, err
	}
	p := &negotiation.MutualCancel{Reason: reason, Nonce: negotiation.U64(nonce)}
	return n.sendCoSigned(ctx, nid, negotiation.ActCancel, p, digest, nil, nil)
}

// sendCoSigned signs digest, sets the signature on p (the envelope of a
// co-signed act), sends it to the other party and to the extra recipients,
// and, when it completes the pair and this node is the poster, submits the
// pair on chain. check, when set, runs under the thread's lock before
// anything is signed.
func (n *Node) sendCoSigned(ctx context.Context, nid string, act negotiation.Act, p negotiation.Payload, digest [32]byte, extra []negotiation.Address, check func(*thread) error) (ActResult, error) {
	var (
		env  *negotiation.Envelope
		out  negotiation.Outcome
		role negotiation.Role
	)
	err := n.eng.With(nid, func(t *thread) error {
		if err := n.may(t, act, negotiation.ActArgs{}); err != nil {
			return err // the thread moved while the approval was pending: nothing is signed
		}
		role = t.Th.RoleOf(n.self)
		if check != nil {
			if err := check(t); err != nil {
				return err
			}
		}
		sig, err := n.keys.EVM().SignDigest(digest)
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
		env, out, err = n.sendLocked(ctx, t, p, append(n.eng.Recipients(t, false), extra...), false)
		return err
	})
	if err != nil {
		return ActResult{}, err
	}
	r := n.result(nid, env)
	r.Detail = map[string]string{"digest": negotiation.Hash(digest).String(), "coSigned": strconv.FormatBool(out.CoSigned != nil)}
	if out.CoSigned == nil {
		return r, nil
	}
	if role != negotiation.RolePoster {
		r.Detail["submitBy"] = "poster"
		return r, nil
	}
	rc, err := n.submitCoSigned(ctx, nid, out.CoSigned.Kind)
	if err != nil {
		return r, err
	}
	r.Thread = n.result(nid, nil).Thread
	r.Tx = txRef(rc)
	return r, nil
}

// resubmit submits a pair that is complete already: nothing new is signed.
func (n *Node) resubmit(ctx context.Context, nid string, kind negotiation.MessageType) (ActResult, error) {
	rc, err := n.submitCoSigned(ctx, nid, kind)
	if err != nil {
		return ActResult{}, err
	}
	r := n.result(nid, nil)
	r.Tx = txRef(rc)
	r.Detail = map[string]string{"coSigned": "true", "resubmitted": "true"}
	return r, nil
}

// submitCoSigned submits the thread's complete pair of kind on chain
// (mutualCancel, amend or replaceWorker) and applies the receipt's facts.
// It refuses a pair the chain can no longer take: a task that is not
// active, or whose nonce moved on (the pair was submitted already, or
// another act came first).
func (n *Node) submitCoSigned(ctx context.Context, nid string, kind negotiation.MessageType) (*types.Receipt, error) {
	if err := n.check.restsOn(ctx, n.led, nid, true); err != nil {
		return nil, err // it moves money: never on a damaged record
	}
	var (
		c      *negotiation.CoSigned
		pe     *negotiation.Envelope
		taskID [32]byte
	)
	err := n.eng.With(nid, func(t *thread) (err error) {
		if err = n.may(t, negotiation.ActSubmitCoSigned, negotiation.ActArgs{Kind: kind}); err != nil {
			return err
		}
		c = t.Th.Ready(kind)
		pe, taskID = t.Th.Envelope(c.Envelopes[0]), taskOf(t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	task, err := n.activeTask(ctx, taskID)
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
	if err := n.eng.With(nid, func(t *thread) error { return n.may(t, negotiation.ActSubmitCoSigned, args) }); err != nil {
		return nil, err
	}
	var res *chain.TaskResult
	op := ""
	switch p := pe.Payload.(type) {
	case *negotiation.MutualCancel:
		op = "mutualCancel"
		res, err = n.client.MutualCancel(ctx, taskID, task, c.PosterSignature, c.WorkerSignature)
	case *negotiation.MilestoneDefinition:
		op = "amend"
		am := amendmentOf(taskID, p)
		var value *big.Int
		if up.Sign() > 0 {
			if task.Token == (common.Address{}) {
				value = up
			} else if _, err := n.client.ApproveToken(ctx, task.Token, up); err != nil {
				return nil, chainErr("approve", err)
			}
		}
		res, err = n.client.Amend(ctx, taskID, am, task, c.PosterSignature, c.WorkerSignature, value)
	case *negotiation.ReplacementContext:
		op = "replaceWorker"
		r := negotiation.Replacement{TaskID: taskID, NewWorker: common.Address(p.NewWorker), HandoffHash: p.HandoffHash, Nonce: p.Nonce.Big()}
		res, err = n.client.ReplaceWorker(ctx, taskID, r, task, c.PosterSignature, c.WorkerSignature)
	}
	if err != nil {
		return nil, chainErr(op, err)
	}
	n.log.Info("co-signed act submitted", "negotiation", nid, "op", op, "tx", res.Receipt.TxHash)
	if err := n.applyReceipt(ctx, res.Receipt); err != nil {
		return res.Receipt, err
	}
	return res.Receipt, nil
}

// onCoSigned is called when a received envelope completes a co-signed
// pair (t.mu held): the poster's node submits it on chain; a replacement
// worker joining the thread takes the worker's role once the pair that
// names it is complete and the chain has made the replacement.
func (n *Node) onCoSigned(t *thread, c *negotiation.CoSigned) {
	if c == nil {
		return
	}
	if t.Th.RoleOf(n.self) == negotiation.RolePoster && n.client != nil && t.Th.State().PostFunding() {
		n.submitLater(t.ID, c.Kind)
		return
	}
	if c.Kind == negotiation.TypeReplacementContext {
		n.hand.takeOverLocked(t, false)
	}
}

// submitLater submits the pair of kind in the background.
func (n *Node) submitLater(nid string, kind negotiation.MessageType) {
	n.spawn(func(ctx context.Context) {
		_, err := n.submitCoSigned(ctx, nid, kind)
		switch {
		case err == nil || ctx.Err() != nil:
		case CodeOf(err) == CodeStateForbidden:
			n.log.Debug("co-signed act not submitted", "negotiation", nid, "kind", kind, "err", err)
		default:
			n.log.Warn("co-signed act not submitted; calling the act again submits it", "negotiation", nid, "kind", kind, "err", err)
		}
	})
}

// resumeCoSigned finishes, after a restart, what a stop interrupted
// (t.mu held): the poster's node submits complete pairs the chain has not
// taken (a pair the chain took or can no longer take is skipped), and a
// replacement worker takes over a thread whose replacement is complete.
func (n *Node) resumeCoSigned(t *thread) {
	if n.client == nil {
		return
	}
	if t.Th.RoleOf(n.self) == negotiation.RolePoster && t.Th.State().PostFunding() {
		for _, k := range negotiation.CoSignedTypes {
			if t.Th.Ready(k) != nil {
				n.submitLater(t.ID, k)
			}
		}
		return
	}
	n.hand.takeOverLocked(t, true)
}
