package node

import (
	"context"
	"fmt"
	"math/big"
	"strconv"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

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
			f = n.onchain.funded(t)
		}
		return nil
	}
	a := actCall{act: negotiation.ActCancel, nid: nid, chain: chainFunded, check: check, locked: read}
	return n.do(a, func() (ActResult, error) {
		if st.PostFunding() {
			return n.onchain.cancelFunded(ctx, nid, reason, f)
		}
		return n.onchain.cancelUnfunded(ctx, nid, reason, st)
	})
}

// cancelUnfunded sends the cancel intent of a negotiation not yet funded.
func (c *chainActs) cancelUnfunded(ctx context.Context, nid, reason string, st negotiation.State) (ActResult, error) {
	args := map[string]any{"state": string(st), "reason": reason}
	why := "cancel the negotiation before funding: nothing is on chain; it ends when both parties have sent a cancel"
	if _, err := c.authorize(ctx, ActSignCancel, nid, args, why, "medium"); err != nil {
		return ActResult{}, err
	}
	var r ActResult
	err := c.eng.With(nid, func(t *thread) error {
		if err := c.may(t, negotiation.ActCancel, negotiation.ActArgs{}); err != nil {
			return err
		}
		if now := t.Th.State(); now.PostFunding() {
			// The approval was of a cancel before funding: nothing on chain.
			return fail(CodeStateForbidden, "the thread moved to %s while the approval was pending; nothing was sent", now)
		}
		env, out, err := c.send(ctx, t, &negotiation.MutualCancel{Reason: reason}, c.eng.Recipients(t, false), false)
		if err != nil {
			return err
		}
		r = ActResult{Thread: c.view(t), Envelope: envRef(env), Detail: map[string]string{"coSigned": strconv.FormatBool(out.CoSigned != nil)}}
		return nil
	})
	if err != nil {
		return ActResult{}, err
	}
	return r, nil
}

// cancelFunded signs and sends the Cancel of the funded task f.
func (c *chainActs) cancelFunded(ctx context.Context, nid, reason string, f fundedTask) (ActResult, error) {
	if err := c.sameDomain(ctx, f.domain); err != nil {
		return ActResult{}, err
	}
	task, err := c.activeTask(ctx, f.taskID)
	if err != nil {
		return ActResult{}, err
	}
	nonce := task.Nonce
	digest, err := negotiation.Cancel{TaskID: f.taskID, Nonce: new(big.Int).SetUint64(nonce)}.Digest(f.domain)
	if err != nil {
		return ActResult{}, err
	}
	var ready *negotiation.CoSigned
	err = c.eng.With(nid, func(t *thread) error {
		ready = t.Th.ReadyCoSign(negotiation.TypeMutualCancel, nonce)
		return c.may(t, negotiation.ActCancel, negotiation.ActArgs{Nonce: &nonce})
	})
	if err != nil {
		return ActResult{}, err
	}
	if ready != nil && ready.Digest == negotiation.Hash(digest) {
		return c.resubmit(ctx, nid, negotiation.TypeMutualCancel)
	}
	escrow := chain.Escrow(task)
	args := coArgs(f.taskID, nonce, f.domain, digest)
	args["refund"], args["reason"] = fmtAmount(escrow), reason
	tok, tv := taskTokenArgs(ctx, nil, c.client, task.Token, args)
	why := fmt.Sprintf("sign the cancel of the funded task: once both parties signed, the %s still in escrow are owed back to the poster", amountWords(escrow, tok, tv))
	if _, err := c.authorize(ctx, ActSignCancel, nid, args, why, "high"); err != nil {
		return ActResult{}, err
	}
	if _, err := c.sameTask(ctx, f.taskID, nonce); err != nil {
		return ActResult{}, err
	}
	p := &negotiation.MutualCancel{Reason: reason, Nonce: negotiation.U64(nonce)}
	return c.sendCoSigned(ctx, nid, negotiation.ActCancel, p, digest, nil, nil)
}
