package node

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// chainErr wraps a chain failure with its revert code when there is one.
func chainErr(op string, err error) error {
	if c := chain.RevertCode(err); c != "" {
		return failWrap(CodeChainFailed, err, "%s reverted: %s", op, c)
	}
	return failWrap(CodeChainFailed, err, "%s", op)
}

// taskOf returns t's task id bytes (t.mu held), zero before funding: an
// act that needs one starts, by the act table, only once the task is
// funded.
func taskOf(t *thread) [32]byte {
	var b [32]byte
	if id := t.Th.TaskID(); id != nil {
		id.Big().FillBytes(b[:])
	}
	return b
}

// Fund moves the agreed escrow into the TaskRegistry (createTask with both
// signatures), as the poster, once the gate approves. The thread moves to
// funded on the transaction's TaskCreated event. A task in an ERC-20 token
// is funded in the same approved act: the approval shows the token (its
// symbol and decimals where it has them) and the amount in its terms, and
// the node then lets the TaskRegistry take exactly the amount (approve)
// before createTask pulls it. An allowance that covers the amount already
// (an approve whose createTask failed, retried) is not approved again.
func (n *Node) Fund(ctx context.Context, nid string) (ActResult, error) {
	var ag *negotiation.Agreement
	read := func(t *thread) error { ag = t.Th.Agreement(); return nil }
	return n.do(actCall{act: negotiation.ActFund, nid: nid, chain: chainAlways, locked: read}, func() (ActResult, error) {
		if err := n.onchain.sameDomain(ctx, ag.Domain); err != nil {
			return ActResult{}, err
		}
		s := ag.Settlement
		token := negotiation.Address(s.Token)
		args := settlementArgs(s, ag.Domain, ag.Digest)
		args["taskId"] = ag.TaskID().String()
		reason := fmt.Sprintf("fund escrow: createTask sends %s wei from this node to the TaskRegistry", fmtAmount(s.Amount))
		if token != (negotiation.Address{}) {
			tv, err := n.tokens.lookup(ctx, n.client, token)
			if err != nil {
				return ActResult{}, chainErr("token", err)
			}
			tokenArgs(tv, args)
			reason = fmt.Sprintf("fund escrow: this node lets the TaskRegistry take exactly %s (approve), and createTask moves them from this node into escrow", tv.Format(s.Amount))
		}
		if _, err := n.authorize(ctx, ActFundEscrow, nid, args, reason, "critical"); err != nil {
			return ActResult{}, err
		}
		// A veto (or a cancel) while the approval was pending halts the
		// commitment: nothing goes on chain.
		if err := n.eng.With(nid, func(t *thread) error { return n.may(t, negotiation.ActFund, negotiation.ActArgs{}) }); err != nil {
			return ActResult{}, err
		}
		if token != (negotiation.Address{}) {
			if err := allowExactly(ctx, n.client, n.self, s.Token, s.Amount); err != nil {
				return ActResult{}, err
			}
		}
		res, err := n.client.CreateTask(ctx, s, ag.PosterSignature, ag.WorkerSignature)
		if err != nil {
			return ActResult{}, chainErr("createTask", err)
		}
		if res.TaskID != [32]byte(ag.Digest) {
			return ActResult{}, fail(CodeChainFailed, "the registry's task id %x is not the agreed digest %s", res.TaskID, ag.Digest)
		}
		if err := n.onchain.applyReceipt(ctx, res.Receipt); err != nil {
			return ActResult{}, err
		}
		r := n.onchain.result(nid, nil)
		r.Tx = txRef(res.Receipt)
		r.Detail = map[string]string{"taskId": chain.TaskIDString(res.TaskID)}
		return r, nil
	})
}

// allowExactly lets the TaskRegistry take amount of token from self
// (ERC-20 approve of exactly amount), unless the allowance covers it
// already: a createTask (or an amendment's top-up) that failed after its
// approve is retried without a second approve. A failed approve changes
// nothing.
func allowExactly(ctx context.Context, client *chain.Client, self negotiation.Address, token common.Address, amount *big.Int) error {
	allowed, err := client.TokenAllowance(ctx, token, common.Address(self))
	if err != nil {
		return chainErr("allowance", err)
	}
	if allowed.Cmp(amount) >= 0 {
		return nil
	}
	if _, err := client.ApproveToken(ctx, token, amount); err != nil {
		return chainErr("approve", err)
	}
	return nil
}

// DeliverySpec is one delivered file of a milestone.
type DeliverySpec struct {
	Milestone int    `json:"milestone"`
	Name      string `json:"name"`
	MediaType string `json:"mediaType,omitempty"`
	Data      []byte `json:"data"`
	Note      string `json:"note,omitempty"`
}

// Deliver delivers a milestone as the worker: the file is stored under its
// CID (served to the parties over the blob protocol), a DeliveryNotice
// naming it is sent, and the CID goes on chain (submitProof).
func (n *Node) Deliver(ctx context.Context, nid string, spec DeliverySpec) (ActResult, error) {
	check := func() error {
		if err := negotiation.CheckFileName(spec.Name); spec.Name != "" && err != nil {
			return failWrap(Code(negotiation.CodeBadFileName), err, "the file's name")
		}
		if len(spec.Data) == 0 || strings.TrimSpace(spec.Name) == "" {
			return fail(CodeBadArgument, "a delivery needs a named, non-empty file")
		}
		return nil
	}
	var (
		taskID [32]byte
		c      cid.Cid
		env    *negotiation.Envelope
	)
	send := func(t *thread) error {
		taskID = taskOf(t)
		var err error
		if c, err = n.blobs.store(ctx, nid, spec.Name, spec.MediaType, "", spec.Data); err != nil {
			return err
		}
		ref := negotiation.FileRef{Name: spec.Name, CID: negotiation.CID(c.String()), Size: uint64(len(spec.Data)), MediaType: spec.MediaType}
		p := &negotiation.DeliveryNotice{Milestone: spec.Milestone, ProofCID: ref.CID, Files: []negotiation.FileRef{ref}, Note: spec.Note}
		env, _, err = n.snd.send(ctx, t, p, n.eng.Recipients(t, false), false)
		return err
	}
	a := actCall{act: negotiation.ActDeliver, nid: nid, chain: chainAlways, check: check, args: negotiation.ActArgs{Milestone: spec.Milestone}, locked: send}
	return n.do(a, func() (ActResult, error) {
		task, err := n.client.TaskState(ctx, taskID)
		if err != nil {
			return ActResult{}, chainErr("task state", err)
		}
		res, err := n.client.SubmitProof(ctx, taskID, task, uint64(spec.Milestone), c.String())
		if err != nil {
			return ActResult{}, chainErr("submitProof", err)
		}
		if err := n.onchain.applyReceipt(ctx, res.Receipt); err != nil {
			return ActResult{}, err
		}
		r := n.onchain.result(nid, env)
		r.Tx = txRef(res.Receipt)
		r.Detail = map[string]string{"cid": c.String()}
		return r, nil
	})
}

// AcceptDelivery accepts a delivered milestone as the poster and releases
// it: the delivered files must have been fetched and checked against their
// CIDs, and the proof CID the chain recorded must be the delivery's. Once
// the gate approves, the AcceptDelivery envelope is sent and the milestone
// released on chain (releaseMilestone). When the envelope went out before
// and only the release is missing (a failed transaction), it releases.
func (n *Node) AcceptDelivery(ctx context.Context, nid string, milestone int) (ActResult, error) {
	return n.AcceptDeliveryWith(ctx, nid, AcceptDeliverySpec{Milestone: milestone})
}

// AcceptDeliverySpec is an acceptance of a delivery: the milestone, and a
// note to the worker that travels in the AcceptDelivery (the principal
// approves its exact text with the release).
type AcceptDeliverySpec struct {
	Milestone int    `json:"milestone"`
	Note      string `json:"note,omitempty"`
}

// AcceptDeliveryWith is AcceptDelivery with a note to the worker.
func (n *Node) AcceptDeliveryWith(ctx context.Context, nid string, spec AcceptDeliverySpec) (ActResult, error) {
	milestone := spec.Milestone
	var (
		taskID    [32]byte
		env       *negotiation.Envelope
		proof     negotiation.CID
		haveProof bool
		worker    negotiation.Address
	)
	read := func(t *thread) error {
		taskID = taskOf(t)
		env = t.Th.DeliveryOf(milestone)
		proof, haveProof = t.Proofs[milestone]
		worker = n.eng.OtherParty(t)
		return nil
	}
	a := actCall{act: negotiation.ActAcceptDelivery, nid: nid, chain: chainAlways, args: negotiation.ActArgs{Milestone: milestone}, locked: read}
	return n.do(a, func() (ActResult, error) {
		notice := env.Payload.(*negotiation.DeliveryNotice)
		for _, f := range deliveryFiles(notice) {
			if n.eng.Stored(ctx, f.c) {
				continue
			}
			// Not fetched yet: fetch it now from the worker.
			l, ok := n.host.Link(worker)
			if !ok {
				return ActResult{}, fail(CodeDeliveryMissing, "file %s: the worker's link is unknown", f.c)
			}
			if _, err := n.blobs.fetch(ctx, nid, l.PeerID, f); err != nil {
				return ActResult{}, failWrap(CodeDeliveryMissing, err, "file %s", f.c)
			}
		}
		if haveProof && proof != notice.ProofCID {
			return ActResult{}, fail(CodeProofMismatch, "the chain recorded proof %s, the delivery names %s", proof, notice.ProofCID)
		}
		task, err := n.client.TaskState(ctx, taskID)
		if err != nil {
			return ActResult{}, chainErr("task state", err)
		}
		if milestone < 0 || milestone >= len(task.Milestones) {
			return ActResult{}, fail(CodeBadArgument, "milestone %d of %d", milestone, len(task.Milestones))
		}
		amount := task.Milestones[milestone].Amount
		args := map[string]any{
			"taskId": chain.TaskIDString(taskID), "milestone": fmt.Sprint(milestone), "amount": fmtAmount(amount),
			"deliveryHash": env.Hash().String(), "proofCid": string(notice.ProofCID),
		}
		if spec.Note != "" {
			args["note"] = spec.Note
		}
		tok, tv := taskTokenArgs(ctx, &n.tokens, n.client, task.Token, args)
		reason := fmt.Sprintf("accept the delivery of milestone %d and release %s to the worker", milestone, amountWords(amount, tok, tv))
		if _, err := n.authorize(ctx, ActReleaseMilestone, nid, args, reason, "high"); err != nil {
			return ActResult{}, err
		}
		// The AcceptDelivery goes out once, while the delivery is the one
		// pending review; after it only the release is retried.
		var sent *negotiation.Envelope
		err = n.eng.With(nid, func(t *thread) error {
			if cur := t.Th.DeliveryOf(milestone); cur == nil || cur.Hash() != env.Hash() || t.Th.DeliveryAccepted(env.Hash()) {
				return nil
			}
			if _, pending := t.Th.PendingDelivery(milestone); !pending {
				return nil
			}
			p := &negotiation.AcceptDelivery{Milestone: milestone, DeliveryHash: env.Hash(), Note: spec.Note}
			var err error
			sent, _, err = n.snd.send(ctx, t, p, n.eng.Recipients(t, false), false)
			return err
		})
		if err != nil {
			return ActResult{}, err
		}
		if task.Milestones[milestone].State == chain.MilestoneReleased {
			return n.onchain.result(nid, sent), nil
		}
		res, err := n.client.ReleaseMilestone(ctx, taskID, task, uint64(milestone))
		if err != nil {
			return ActResult{}, chainErr("releaseMilestone", err)
		}
		if err := n.onchain.applyReceipt(ctx, res.Receipt); err != nil {
			return ActResult{}, err
		}
		r := n.onchain.result(nid, sent)
		r.Tx = txRef(res.Receipt)
		return r, nil
	})
}

// Withdraw pays this node what the registry owes it in token (the zero
// address for ETH). It is not gated: the money is already this node's.
func (n *Node) Withdraw(ctx context.Context, token negotiation.Address) (ActResult, error) {
	return n.do(actCall{act: actWithdraw, chain: chainAlways}, func() (ActResult, error) {
		owed, err := n.client.Owed(ctx, common.Address(token), common.Address(n.self))
		if err != nil {
			return ActResult{}, chainErr("owed", err)
		}
		if owed.Sign() == 0 {
			return ActResult{}, fail(CodeNothingOwed, "the registry owes %s nothing in %s", n.self, token)
		}
		r, err := n.client.Withdraw(ctx, common.Address(token), owed)
		if err != nil {
			return ActResult{}, chainErr("withdraw", err)
		}
		d := map[string]string{"amount": owed.String(), "token": token.String()}
		if token != (negotiation.Address{}) {
			if tv, err := n.tokens.lookup(ctx, n.client, token); err == nil {
				d["amountInToken"] = tv.Format(owed)
			}
		}
		return ActResult{Tx: txRef(r), Detail: d}, nil
	})
}

// Owed returns what the registry owes this node in token.
func (n *Node) Owed(ctx context.Context, token negotiation.Address) (*big.Int, error) {
	if err := n.needChain(); err != nil {
		return nil, err
	}
	return n.client.Owed(ctx, common.Address(token), common.Address(n.self))
}

// Balance returns this node's balance in wei.
func (n *Node) Balance(ctx context.Context) (*big.Int, error) {
	if err := n.needChain(); err != nil {
		return nil, err
	}
	return n.client.Backend().BalanceAt(ctx, common.Address(n.self), nil)
}
