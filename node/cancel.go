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

// coSigned lists the kinds of co-signed acts.
var coSigned = []negotiation.MessageType{
	negotiation.TypeMutualCancel, negotiation.TypeMilestoneDefinition, negotiation.TypeReplacementContext,
}

// unfunded reports whether st is a state before funding in which a cancel
// is possible.
func unfunded(st negotiation.State) bool {
	return st == negotiation.StateProposed || st == negotiation.StateCountered || st == negotiation.StateAgreed
}

// postFunding reports whether st is a funded, unsettled state: the states
// co-signed acts on a task are taken in.
func postFunding(st negotiation.State) bool {
	return st == negotiation.StateFunded || st == negotiation.StateDelivered
}

// payloadNonce returns the task nonce a co-signed envelope names, or nil.
func payloadNonce(e *negotiation.Envelope) *big.Int {
	if e == nil {
		return nil
	}
	switch p := e.Payload.(type) {
	case *negotiation.MutualCancel:
		if len(p.Signature) == 0 {
			return nil // a cancel before funding names no task
		}
		return p.Nonce.Big()
	case *negotiation.MilestoneDefinition:
		return p.Nonce.Big()
	case *negotiation.ReplacementContext:
		return p.Nonce.Big()
	}
	return nil
}

// latestOf returns the latest envelope of type typ that sender sent in t
// and the state machine took (t.mu held), or nil.
func latestOf(t *thread, sender negotiation.Address, typ negotiation.MessageType) *negotiation.Envelope {
	log := t.Th.Log()
	for i := len(log) - 1; i >= 0; i-- {
		if r := log[i]; r.Sender == sender && r.Type == typ && r.Code == "" {
			return t.Th.Envelope(r.Hash)
		}
	}
	return nil
}

// pendingOf returns sender's latest co-signed envelope of type typ when it
// names the task's current nonce (t.mu held), or nil: an envelope naming
// an older nonce can no longer be submitted.
func pendingOf(t *thread, sender negotiation.Address, typ negotiation.MessageType, nonce uint64) *negotiation.Envelope {
	e := latestOf(t, sender, typ)
	if n := payloadNonce(e); n == nil || !n.IsUint64() || n.Uint64() != nonce {
		return nil
	}
	return e
}

// readyPair returns the complete pair of kind typ when it names the task's
// current nonce (t.mu held), or nil.
func readyPair(t *thread, typ negotiation.MessageType, nonce uint64) *negotiation.CoSigned {
	c := t.Th.Ready(typ)
	if c == nil {
		return nil
	}
	if n := payloadNonce(t.Th.Envelope(c.Envelopes[0])); n == nil || !n.IsUint64() || n.Uint64() != nonce {
		return nil
	}
	return c
}

// fundedTask is what an act on a funded task reads from its thread before
// the gate.
type fundedTask struct {
	role   negotiation.Role
	taskID [32]byte
	domain negotiation.Domain
	poster negotiation.Address
	worker negotiation.Address
	other  negotiation.Address
	terms  negotiation.Terms // the agreed offer's terms
}

// funded reads nid's funded task for an act by a party, or refuses: an
// unknown negotiation, a node that is not the poster or the worker, a
// thread that is not funded (or already settled).
func (n *Node) funded(nid string) (fundedTask, error) {
	t, err := n.locked(nid)
	if err != nil {
		return fundedTask{}, err
	}
	defer t.Unlock()
	f := fundedTask{role: t.Th.RoleOf(n.self), poster: t.Th.Poster(), worker: t.Th.Worker(), other: n.otherParty(t)}
	if f.role != negotiation.RolePoster && f.role != negotiation.RoleWorker {
		return f, fail(CodeNotParty, "only the poster or the worker signs this")
	}
	if st := t.Th.State(); !postFunding(st) {
		return f, fail(CodeStateForbidden, "the task is %s: this act needs a funded task", st)
	}
	if f.taskID, err = taskOf(t); err != nil {
		return f, err
	}
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
	return f, nil
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
	const act = "cancel"
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	if len(reason) > 4096 {
		return ActResult{}, n.actDone(act, fail(CodeBadArgument, "the reason has %d bytes; at most 4096", len(reason)))
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	role, st := t.Th.RoleOf(n.self), t.Th.State()
	sent := latestOf(t, n.self, negotiation.TypeMutualCancel) != nil
	t.Unlock()
	switch {
	case role != negotiation.RolePoster && role != negotiation.RoleWorker:
		return ActResult{}, n.actDone(act, fail(CodeNotParty, "only the poster or the worker cancels"))
	case unfunded(st) && sent:
		return ActResult{}, n.actDone(act, fail(CodeStateForbidden, "this node sent its cancel already; the other party's ends the negotiation"))
	case unfunded(st):
		return n.cancelUnfunded(ctx, nid, reason, st)
	case postFunding(st):
		return n.cancelFunded(ctx, nid, reason)
	}
	return ActResult{}, n.actDone(act, fail(CodeStateForbidden, "no cancel in state %s", st))
}

// cancelUnfunded sends the cancel intent of a negotiation not yet funded.
func (n *Node) cancelUnfunded(ctx context.Context, nid, reason string, st negotiation.State) (ActResult, error) {
	const act = "cancel"
	args := map[string]any{"state": string(st), "reason": reason}
	why := "cancel the negotiation before funding: nothing is on chain; it ends when both parties have sent a cancel"
	if _, err := n.authorize(ctx, ActSignCancel, nid, args, why, "medium"); err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	defer t.Unlock()
	if now := t.Th.State(); !unfunded(now) {
		return ActResult{}, n.actDone(act, fail(CodeStateForbidden, "the thread moved to %s while the approval was pending; nothing was sent", now))
	}
	env, out, err := n.sendLocked(ctx, t, &negotiation.MutualCancel{Reason: reason}, n.recipients(t, false), false)
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	r := ActResult{Thread: n.viewLocked(t), Envelope: envRef(env), Detail: map[string]string{"coSigned": strconv.FormatBool(out.CoSigned != nil)}}
	return r, n.actDone(act, nil)
}

// cancelFunded signs and sends the Cancel of a funded task.
func (n *Node) cancelFunded(ctx context.Context, nid, reason string) (ActResult, error) {
	const act = "cancel"
	if err := n.needChain(); err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	f, err := n.funded(nid)
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	task, err := n.activeTask(ctx, f.taskID)
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	nonce := task.Nonce
	digest, err := negotiation.Cancel{TaskID: f.taskID, Nonce: new(big.Int).SetUint64(nonce)}.Digest(f.domain)
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	ready := readyPair(t, negotiation.TypeMutualCancel, nonce)
	mine := pendingOf(t, n.self, negotiation.TypeMutualCancel, nonce)
	t.Unlock()
	if ready != nil && ready.Digest == negotiation.Hash(digest) {
		return n.resubmit(ctx, nid, act, negotiation.TypeMutualCancel)
	}
	if mine != nil {
		return ActResult{}, n.actDone(act, fail(CodeStateForbidden, "this node signed the cancel already; waiting for the other party's"))
	}
	escrow := chain.Escrow(task)
	args := coArgs(f.taskID, nonce, f.domain, digest)
	args["refund"], args["reason"] = fmtAmount(escrow), reason
	why := fmt.Sprintf("sign the cancel of the funded task: once both parties signed, the %s wei still in escrow are owed back to the poster", fmtAmount(escrow))
	if _, err := n.authorize(ctx, ActSignCancel, nid, args, why, "high"); err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	if _, err := n.sameTask(ctx, f.taskID, nonce); err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	p := &negotiation.MutualCancel{Reason: reason, Nonce: negotiation.U64(nonce)}
	return n.sendCoSigned(ctx, nid, act, p, digest, nil, nil)
}

// sendCoSigned signs digest, sets the signature on p (the envelope of a
// co-signed act), sends it to the other party and to the extra recipients,
// and, when it completes the pair and this node is the poster, submits the
// pair on chain. check, when set, runs under the thread's lock before
// anything is signed.
func (n *Node) sendCoSigned(ctx context.Context, nid, act string, p negotiation.Payload, digest [32]byte, extra []negotiation.Address, check func(*thread) error) (ActResult, error) {
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	role := t.Th.RoleOf(n.self)
	if st := t.Th.State(); !postFunding(st) || (role != negotiation.RolePoster && role != negotiation.RoleWorker) {
		t.Unlock()
		return ActResult{}, n.actDone(act, fail(CodeStateForbidden, "the thread moved to %s while the approval was pending; nothing was signed", st))
	}
	if check != nil {
		if err := check(t); err != nil {
			t.Unlock()
			return ActResult{}, n.actDone(act, err)
		}
	}
	sig, err := n.keys.EVM().SignDigest(digest)
	if err != nil {
		t.Unlock()
		return ActResult{}, n.actDone(act, err)
	}
	switch v := p.(type) {
	case *negotiation.MutualCancel:
		v.Signature = sig
	case *negotiation.MilestoneDefinition:
		v.Signature = sig
	case *negotiation.ReplacementContext:
		v.Signature = sig
	}
	env, out, err := n.sendLocked(ctx, t, p, append(n.recipients(t, false), extra...), false)
	t.Unlock()
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	r := n.result(nid, env)
	r.Detail = map[string]string{"digest": negotiation.Hash(digest).String(), "coSigned": strconv.FormatBool(out.CoSigned != nil)}
	if out.CoSigned == nil {
		return r, n.actDone(act, nil)
	}
	if role != negotiation.RolePoster {
		r.Detail["submitBy"] = "poster"
		return r, n.actDone(act, nil)
	}
	rc, err := n.submitCoSigned(ctx, nid, out.CoSigned.Kind)
	if err != nil {
		return r, n.actDone(act, err)
	}
	r.Thread = n.result(nid, nil).Thread
	r.Tx = txRef(rc)
	return r, n.actDone(act, nil)
}

// resubmit submits a pair that is complete already: nothing new is signed.
func (n *Node) resubmit(ctx context.Context, nid, act string, kind negotiation.MessageType) (ActResult, error) {
	rc, err := n.submitCoSigned(ctx, nid, kind)
	if err != nil {
		return ActResult{}, n.actDone(act, err)
	}
	r := n.result(nid, nil)
	r.Tx = txRef(rc)
	r.Detail = map[string]string{"coSigned": "true", "resubmitted": "true"}
	return r, n.actDone(act, nil)
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
	t, err := n.locked(nid)
	if err != nil {
		return nil, err
	}
	c, st := t.Th.Ready(kind), t.Th.State()
	taskID, terr := taskOf(t)
	var pe *negotiation.Envelope
	if c != nil {
		pe = t.Th.Envelope(c.Envelopes[0])
	}
	t.Unlock()
	switch {
	case c == nil || pe == nil:
		return nil, fail(CodeStateForbidden, "no co-signed %s to submit", kind)
	case terr != nil:
		return nil, terr
	case !postFunding(st):
		return nil, fail(CodeStateForbidden, "no %s to submit in state %s", kind, st)
	}
	task, err := n.activeTask(ctx, taskID)
	if err != nil {
		return nil, err
	}
	if nonce := payloadNonce(pe); nonce == nil || !nonce.IsUint64() || nonce.Uint64() != task.Nonce {
		return nil, fail(CodeStateForbidden, "the %s was signed for nonce %v; the task's nonce is %d", kind, nonce, task.Nonce)
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
		up, _, cerr := escrowChange(task, am.MilestoneAmounts)
		if cerr != nil {
			return nil, cerr
		}
		var value *big.Int
		if up.Sign() > 0 {
			if common.Address(n.self) != task.Poster {
				return nil, fail(CodeNotParty, "the amendment raises the escrow by %s: only the poster pays it", up)
			}
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
	default:
		return nil, fail(CodeStateForbidden, "%s is not a co-signed act", kind)
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
	if t.Th.RoleOf(n.self) == negotiation.RolePoster && n.client != nil && postFunding(t.Th.State()) {
		n.submitLater(t.ID, c.Kind)
		return
	}
	if c.Kind == negotiation.TypeReplacementContext {
		n.takeOverLocked(t, false)
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
	if t.Th.RoleOf(n.self) == negotiation.RolePoster && postFunding(t.Th.State()) {
		for _, k := range coSigned {
			if t.Th.Ready(k) != nil {
				n.submitLater(t.ID, k)
			}
		}
		return
	}
	n.takeOverLocked(t, true)
}
