package node

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// AmendSpec amends a funded task's remaining milestones and deadline.
// Milestones is the whole new list: released (or refunded) milestones keep
// their place and amount. A spec with no milestones and no deadline
// co-signs the other party's pending amendment as it stands.
type AmendSpec struct {
	Milestones []MilestoneSpec `json:"milestones"`
	Deadline   time.Time       `json:"deadline"`
	// Reason says why; the person approving sees it (a MilestoneDefinition
	// has no member for it).
	Reason string `json:"reason,omitempty"`
}

// ReplaceSpec hands a funded task to a new worker. A zero NewWorker
// co-signs the other party's pending replacement as it stands.
type ReplaceSpec struct {
	NewWorker negotiation.Address `json:"newWorker"`
	Summary   string              `json:"summary"`
}

// maxMilestones is the most milestones an amendment may list (the
// MilestoneDefinition schema's bound).
const maxMilestones = 32

// amendmentOf returns the EIP-712 Amendment a MilestoneDefinition signs.
func amendmentOf(taskID [32]byte, p *negotiation.MilestoneDefinition) negotiation.Amendment {
	amounts := make([]*big.Int, len(p.Milestones))
	for i, m := range p.Milestones {
		amounts[i] = m.Amount.Big()
	}
	return negotiation.Amendment{TaskID: taskID, MilestoneAmounts: amounts, Deadline: p.Deadline, TermsHash: p.TermsHash, Nonce: p.Nonce.Big()}
}

// amendedTermsHash returns the termsHash of an amendment: SHA-256 of the
// canonical JSON of the agreed terms with the amendment's milestones and
// deadline. Each amendment replaces both, so the hash does not depend on
// earlier amendments, and the descriptions, which the EIP-712 Amendment
// does not carry, are bound by it.
func amendedTermsHash(agreed negotiation.Terms, ms []negotiation.Milestone, deadline uint64) (negotiation.Hash, error) {
	agreed.Milestones, agreed.Deadline = ms, deadline
	b, err := json.Marshal(agreed)
	if err != nil {
		return negotiation.Hash{}, err
	}
	return negotiation.HashCanonical(b)
}

// escrowChange returns what an amendment to amounts adds to the task's
// escrow (the poster pays it with the amendment) and what it returns to
// the poster, as the contract computes them. A released or refunded
// milestone must keep its place and amount (bad_argument).
func escrowChange(task chain.Task, amounts []*big.Int) (up, down *big.Int, err error) {
	oldEscrow, newEscrow := new(big.Int), new(big.Int)
	for i := range max(len(task.Milestones), len(amounts)) {
		if i < len(task.Milestones) {
			m := task.Milestones[i]
			if m.State == chain.MilestoneReleased || m.State == chain.MilestoneRefunded {
				if i >= len(amounts) || amounts[i].Cmp(m.Amount) != 0 {
					return nil, nil, fail(CodeBadArgument, "milestone %d is settled on chain: it keeps its place and its amount %s", i, m.Amount)
				}
				continue
			}
			oldEscrow.Add(oldEscrow, m.Amount)
		}
		if i < len(amounts) {
			newEscrow.Add(newEscrow, amounts[i])
		}
	}
	up, down = new(big.Int), new(big.Int)
	if d := new(big.Int).Sub(newEscrow, oldEscrow); d.Sign() > 0 {
		up = d
	} else {
		down = d.Neg(d)
	}
	return up, down, nil
}

// Amend amends the milestones and the deadline of a funded task as the
// poster or the worker, once the gate approves (sign_amendment): the node
// signs the EIP-712 Amendment over the new amounts, deadline, termsHash and
// the task's nonce and sends it in a MilestoneDefinition. Both parties
// sign the same digest (the second by giving the same spec, or an empty
// one to co-sign the other's as it stands); the poster's node then calls
// amend, paying any rise of the escrow, and the chain's TaskAmended event
// gives the thread its new milestones. A settled milestone cannot change
// (bad_argument).
func (n *Node) Amend(ctx context.Context, nid string, spec AmendSpec) (ActResult, error) {
	adopt := len(spec.Milestones) == 0 && spec.Deadline.IsZero()
	var ms []negotiation.Milestone
	check := func() error {
		switch {
		case len(spec.Reason) > 4096:
			return fail(CodeBadArgument, "the reason has %d bytes; at most 4096", len(spec.Reason))
		case adopt:
		case len(spec.Milestones) == 0 || len(spec.Milestones) > maxMilestones:
			return fail(CodeBadArgument, "an amendment lists 1 to %d milestones, not %d", maxMilestones, len(spec.Milestones))
		case !spec.Deadline.After(n.now()):
			return fail(CodeBadArgument, "deadline %s is not in the future", spec.Deadline.UTC().Format(time.RFC3339))
		default:
			var err error
			if ms, err = milestones(spec.Milestones); err != nil {
				return err
			}
			for i, m := range ms {
				if len(m.Description) > 1024 {
					return fail(CodeBadArgument, "milestone %d: the description has %d bytes; at most 1024", i, len(m.Description))
				}
			}
		}
		return nil
	}
	var f fundedTask
	read := func(t *thread) error { f = n.onchain.funded(t); return nil }
	a := actCall{act: negotiation.ActAmend, nid: nid, chain: chainAlways, check: check, locked: read}
	return n.do(a, func() (ActResult, error) {
		if err := n.onchain.sameDomain(ctx, f.domain); err != nil {
			return ActResult{}, err
		}
		task, err := n.onchain.activeTask(ctx, f.taskID)
		if err != nil {
			return ActResult{}, err
		}
		nonce := task.Nonce
		deadline := uint64(spec.Deadline.Unix())
		var (
			p        *negotiation.MilestoneDefinition
			up, down *big.Int
			digest   [32]byte
			ready    *negotiation.CoSigned
		)
		err = n.eng.With(nid, func(t *thread) error {
			other := t.Th.PendingCoSign(negotiation.TypeMilestoneDefinition, f.other, nonce)
			if adopt {
				// Co-signing the other party's as it stands needs one.
				if err := n.may(t, negotiation.ActAmend, negotiation.ActArgs{Nonce: &nonce}); err != nil {
					return err
				}
				op := other.Payload.(*negotiation.MilestoneDefinition)
				ms, deadline = op.Milestones, op.Deadline
			}
			th, err := amendedTermsHash(f.terms, ms, deadline)
			if err != nil {
				return err
			}
			p = &negotiation.MilestoneDefinition{Milestones: ms, Deadline: deadline, TermsHash: th, Nonce: negotiation.U64(nonce)}
			am := amendmentOf(f.taskID, p)
			if up, down, err = escrowChange(task, am.MilestoneAmounts); err != nil {
				return err
			}
			if digest, err = am.Digest(f.domain); err != nil {
				return err
			}
			if adopt && other.Payload.(*negotiation.MilestoneDefinition).TermsHash != th {
				return fail(CodeBadArgument, "the other party's amendment names termsHash %s, not the hash %s of the amended terms", other.Payload.(*negotiation.MilestoneDefinition).TermsHash, th)
			}
			d := negotiation.Hash(digest)
			if err := n.may(t, negotiation.ActAmend, negotiation.ActArgs{Nonce: &nonce, Digest: &d}); err != nil {
				return err // this node signed this amendment already
			}
			ready = t.Th.ReadyCoSign(negotiation.TypeMilestoneDefinition, nonce)
			if other != nil {
				if od, err := amendmentOf(f.taskID, other.Payload.(*negotiation.MilestoneDefinition)).Digest(f.domain); err == nil && od == digest {
					h := other.Hash()
					p.InReplyTo = &h
				}
			}
			return nil
		})
		if err != nil {
			return ActResult{}, err
		}
		if ready != nil && ready.Digest == negotiation.Hash(digest) {
			return n.onchain.resubmit(ctx, nid, negotiation.TypeMilestoneDefinition)
		}
		args := coArgs(f.taskID, nonce, f.domain, digest)
		amounts, descs := make([]string, len(ms)), make([]string, len(ms))
		for i, m := range ms {
			amounts[i], descs[i] = m.Amount.String(), m.Description
		}
		args["milestoneAmounts"], args["milestones"], args["termsHash"] = amounts, descs, p.TermsHash.String()
		args["deadline"] = time.Unix(int64(deadline), 0).UTC().Format(time.RFC3339)
		args["topUp"], args["refund"], args["reason"] = fmtAmount(up), fmtAmount(down), spec.Reason
		tok, tv := taskTokenArgs(ctx, &n.tokens, n.client, task.Token, args)
		why := fmt.Sprintf("sign the amendment of the funded task: %d milestones, deadline %s", len(ms), args["deadline"])
		switch {
		case up.Sign() > 0:
			why += fmt.Sprintf("; the poster pays %s more into escrow", amountWords(up, tok, tv))
		case down.Sign() > 0:
			why += fmt.Sprintf("; %s are owed back to the poster", amountWords(down, tok, tv))
		}
		if _, err := n.authorize(ctx, ActSignAmendment, nid, args, why, "high"); err != nil {
			return ActResult{}, err
		}
		if _, err := n.onchain.sameTask(ctx, f.taskID, nonce); err != nil {
			return ActResult{}, err
		}
		return n.onchain.sendCoSigned(ctx, nid, negotiation.ActAmend, p, digest, nil, nil)
	})
}

// Replace hands the funded task to a new worker as the poster or the
// current worker, once the gate approves (sign_replacement). The first
// party makes the hand-over package (a proof bundle of its ledger's record
// of the thread so far, stored under its CID), signs the EIP-712
// Replacement over the new worker, the package's SHA-256 and the task's
// nonce, and sends a ReplacementContext to the other party and the new
// worker. The other party's Replace fetches that package, checks it (it
// must verify and hold every envelope of its own; otherwise it proposes a
// package of its own) and signs the same digest; the poster's node then
// calls replaceWorker. The new worker joins the thread from the package
// once the chain has replaced the worker (docs/node.md).
func (n *Node) Replace(ctx context.Context, nid string, spec ReplaceSpec) (ActResult, error) {
	check := func() error {
		if len(spec.Summary) > 8192 {
			return fail(CodeBadArgument, "the summary has %d bytes; at most 8192", len(spec.Summary))
		}
		return nil
	}
	var f fundedTask
	read := func(t *thread) error { f = n.onchain.funded(t); return nil }
	a := actCall{act: negotiation.ActReplace, nid: nid, chain: chainAlways, check: check, args: negotiation.ActArgs{Party: spec.NewWorker}, locked: read}
	return n.do(a, func() (ActResult, error) {
		if err := n.onchain.sameDomain(ctx, f.domain); err != nil {
			return ActResult{}, err
		}
		task, err := n.onchain.activeTask(ctx, f.taskID)
		if err != nil {
			return ActResult{}, err
		}
		nonce := task.Nonce
		nw := spec.NewWorker
		var (
			op          *negotiation.ReplacementContext
			otherLatest bool
			readyFor    negotiation.Address
		)
		err = n.eng.With(nid, func(t *thread) error {
			other := t.Th.PendingCoSign(negotiation.TypeReplacementContext, f.other, nonce)
			if nw == (negotiation.Address{}) {
				// Co-signing the other party's as it stands needs one.
				if err := n.may(t, negotiation.ActReplace, negotiation.ActArgs{Nonce: &nonce}); err != nil {
					return err
				}
				nw = other.Payload.(*negotiation.ReplacementContext).NewWorker
			}
			if err := n.may(t, negotiation.ActReplace, negotiation.ActArgs{Party: nw, Nonce: &nonce}); err != nil {
				return err // this node signed the replacement by nw already
			}
			if other != nil {
				op = other.Payload.(*negotiation.ReplacementContext)
				_, head, _ := t.Th.Head(f.other)
				otherLatest = head == other.Hash()
			}
			if c := t.Th.ReadyCoSign(negotiation.TypeReplacementContext, nonce); c != nil {
				if rp, ok := t.Th.Envelope(c.Envelopes[0]).Payload.(*negotiation.ReplacementContext); ok {
					readyFor = rp.NewWorker
				}
			}
			return nil
		})
		if err != nil {
			return ActResult{}, err
		}
		if readyFor == nw {
			return n.onchain.resubmit(ctx, nid, negotiation.TypeReplacementContext)
		}
		var pkg *handoff
		if op != nil && op.NewWorker == nw && otherLatest {
			if pkg, err = n.hand.adoptHandoff(ctx, nid, f.other, op); err != nil {
				return ActResult{}, err
			}
		}
		var seq uint64
		if err := n.eng.With(nid, func(t *thread) error { seq, _, _ = t.Th.Head(n.self); return nil }); err != nil {
			return ActResult{}, err
		}
		if pkg != nil && pkg.ownHead != seq {
			pkg = nil // the other party's package lacks envelopes of this node
		}
		if pkg == nil {
			if pkg, err = n.hand.exportHandoff(ctx, nid); err != nil {
				return ActResult{}, err
			}
		}
		rp := negotiation.Replacement{TaskID: f.taskID, NewWorker: common.Address(nw), HandoffHash: pkg.hash, Nonce: new(big.Int).SetUint64(nonce)}
		digest, err := rp.Digest(f.domain)
		if err != nil {
			return ActResult{}, err
		}
		escrow := chain.Escrow(task)
		args := coArgs(f.taskID, nonce, f.domain, digest)
		args["newWorker"], args["handoffHash"], args["handoffCid"] = nw.String(), pkg.hash.String(), pkg.cid.String()
		args["summary"], args["escrow"] = spec.Summary, fmtAmount(escrow)
		tok, tv := taskTokenArgs(ctx, &n.tokens, n.client, task.Token, args)
		why := fmt.Sprintf("sign the hand-over of the funded task to %s: the %s still in escrow pay the new worker from now on", nw, amountWords(escrow, tok, tv))
		if _, err := n.authorize(ctx, ActSignReplacement, nid, args, why, "high"); err != nil {
			return ActResult{}, err
		}
		if _, err := n.onchain.sameTask(ctx, f.taskID, nonce); err != nil {
			return ActResult{}, err
		}
		if !n.eng.Stored(ctx, pkg.cid) {
			c, err := n.blobs.store(ctx, nid, "handoff-bundle.json", MediaTypeBundle, pkg.from, pkg.raw)
			if err != nil {
				return ActResult{}, err
			}
			if c != pkg.cid {
				return ActResult{}, fail(CodeStoreFailed, "the hand-over package was stored as %s, not %s", c, pkg.cid)
			}
		}
		p := &negotiation.ReplacementContext{
			NewWorker: nw, HandoffHash: pkg.hash, HandoffCID: negotiation.CID(pkg.cid.String()),
			Nonce: negotiation.U64(nonce), Summary: spec.Summary,
		}
		// The package must hold every envelope this node sent before this one.
		complete := func(t *thread) error {
			if seq, _, _ := t.Th.Head(n.self); seq != pkg.ownHead {
				return fail(CodeStateForbidden, "this node sent an envelope after the hand-over package was made; nothing was signed")
			}
			return nil
		}
		r, err := n.onchain.sendCoSigned(ctx, nid, negotiation.ActReplace, p, digest, []negotiation.Address{nw}, complete)
		if err == nil {
			r.Detail["handoffCid"] = pkg.cid.String()
		}
		return r, err
	})
}
