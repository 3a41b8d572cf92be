package node

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// OpenDispute opens a dispute about the funded task as the poster or the
// worker, posting the ArbitrationModule's bond, once the gate approves.
// The node then joins the dispute's evidence topic.
func (n *Node) OpenDispute(ctx context.Context, nid string) (ActResult, error) {
	var taskID [32]byte
	read := func(t *thread) error { taskID = taskOf(t); return nil }
	return n.do(actCall{act: negotiation.ActOpenDispute, nid: nid, chain: chainAlways, locked: read}, func() (ActResult, error) {
		bond, err := n.client.Bond(ctx)
		if err != nil {
			return ActResult{}, chainErr("bond", err)
		}
		args := map[string]any{"taskId": chain.TaskIDString(taskID), "bond": fmtAmount(bond)}
		reason := fmt.Sprintf("open a dispute about the task, posting a bond of %s wei", fmtAmount(bond))
		if _, err := n.authorize(ctx, ActOpenDispute, nid, args, reason, "high"); err != nil {
			return ActResult{}, err
		}
		task, err := n.client.TaskState(ctx, taskID)
		if err != nil {
			return ActResult{}, chainErr("task state", err)
		}
		res, err := n.client.OpenDispute(ctx, taskID, task)
		if err != nil {
			return ActResult{}, chainErr("openDispute", err)
		}
		if err := n.onchain.applyReceipt(ctx, res.Receipt); err != nil {
			return ActResult{}, err
		}
		r := n.onchain.result(nid, nil)
		r.Tx = txRef(res.Receipt)
		r.Detail = map[string]string{"disputeId": chain.DisputeID(taskID).String()}
		return r, nil
	})
}

// ProposeArbitrator names the arbitrator this party accepts for the
// dispute, once the gate approves: an ArbitratorProposal to the other
// party (and to the arbitrators that refused to rule, which hold the
// thread) and proposeArbitrator on chain. The chain assigns the arbitrator
// when both parties named the same one; the node then hands the thread
// over to it (a proof bundle of the thread so far).
func (n *Node) ProposeArbitrator(ctx context.Context, nid string, arbitrator negotiation.Address) (ActResult, error) {
	return n.ProposeArbitratorWith(ctx, nid, ArbitratorSpec{Arbitrator: arbitrator})
}

// ArbitratorSpec is a proposal of an arbitrator: the address, and why this
// side names it (it travels in the ArbitratorProposal; the principal
// approves its exact text).
type ArbitratorSpec struct {
	Arbitrator negotiation.Address `json:"arbitrator"`
	Reason     string              `json:"reason,omitempty"`
}

// ProposeArbitratorWith is ProposeArbitrator with the reason this side
// names the arbitrator.
func (n *Node) ProposeArbitratorWith(ctx context.Context, nid string, spec ArbitratorSpec) (ActResult, error) {
	arbitrator := spec.Arbitrator
	var taskID [32]byte
	read := func(t *thread) error { taskID = taskOf(t); return nil }
	args := negotiation.ActArgs{Party: arbitrator}
	a := actCall{act: negotiation.ActProposeArbitrator, nid: nid, chain: chainAlways, args: args, locked: read}
	return n.do(a, func() (ActResult, error) {
		disputeID := negotiation.NewUint256(chain.DisputeID(taskID))
		gargs := map[string]any{"disputeId": disputeID.String(), "arbitrator": arbitrator.String()}
		if spec.Reason != "" {
			gargs["reason"] = spec.Reason
		}
		if _, err := n.authorize(ctx, ActProposeArbitrator, nid, gargs, "accept "+arbitrator.String()+" as the dispute's arbitrator", "medium"); err != nil {
			return ActResult{}, err
		}
		var env *negotiation.Envelope
		err := n.eng.With(nid, func(t *thread) (err error) {
			env, _, err = n.snd.send(ctx, t, &negotiation.ArbitratorProposal{DisputeID: disputeID, Arbitrator: arbitrator, Reason: spec.Reason}, n.eng.Recipients(t, true), false)
			return err
		})
		if err != nil {
			return ActResult{}, err
		}
		rc, err := n.client.ProposeArbitrator(ctx, taskID, common.Address(arbitrator))
		if err != nil {
			return ActResult{}, chainErr("proposeArbitrator", err)
		}
		if err := n.onchain.applyReceipt(ctx, rc); err != nil {
			return ActResult{}, err
		}
		r := n.onchain.result(nid, env)
		r.Tx = txRef(rc)
		return r, nil
	})
}

// EvidenceSpec is one piece of evidence: a file and what it shows.
type EvidenceSpec struct {
	Name        string `json:"name"`
	MediaType   string `json:"mediaType,omitempty"`
	Data        []byte `json:"data"`
	Description string `json:"description"`
	// InReplyTo is the envelope of the thread this evidence answers
	// (another party's evidence, a delivery): one the thread holds
	// (bad_argument otherwise).
	InReplyTo *negotiation.Hash `json:"inReplyTo,omitempty"`
}

// SubmitEvidence submits evidence to the thread's dispute: the file is
// stored under its CID (served to the parties and the arbitrator, sealed
// to each), a DisputeEvidence envelope goes directly to the other party
// and the arbitrator and on the dispute's evidence topic, and the CID is
// added to the dispute on chain. It is not gated: it moves no money and
// signs nothing for the contract.
func (n *Node) SubmitEvidence(ctx context.Context, nid string, spec EvidenceSpec) (ActResult, error) {
	check := func() error {
		if len(spec.Data) == 0 || strings.TrimSpace(spec.Name) == "" {
			return fail(CodeBadArgument, "evidence needs a named, non-empty file")
		}
		if err := negotiation.CheckFileName(spec.Name); err != nil {
			return failWrap(Code(negotiation.CodeBadFileName), err, "the file's name")
		}
		return nil
	}
	var (
		r          ActResult
		taskID     [32]byte
		id         string
		env        *negotiation.Envelope
		c          cid.Cid
		arbitrator bool
	)
	send := func(t *thread) (err error) {
		taskID, id = taskOf(t), disputeIDOf(t)
		if spec.InReplyTo != nil && t.Th.Envelope(*spec.InReplyTo) == nil {
			return fail(CodeBadArgument, "inReplyTo %s is no envelope of this negotiation", spec.InReplyTo)
		}
		if c, err = n.blobs.store(ctx, nid, spec.Name, spec.MediaType, "", spec.Data); err != nil {
			return err
		}
		ref := negotiation.FileRef{Name: spec.Name, CID: negotiation.CID(c.String()), Size: uint64(len(spec.Data)), MediaType: spec.MediaType}
		p := &negotiation.DisputeEvidence{DisputeID: negotiation.NewUint256(chain.DisputeID(taskID)), EvidenceCID: ref.CID, Files: []negotiation.FileRef{ref}, Description: spec.Description, InReplyTo: spec.InReplyTo}
		if env, _, err = n.snd.send(ctx, t, p, n.courts.recipients(t.ID, n.eng.Recipients(t, true)), false); err != nil { // court.go
			return err
		}
		n.hand.joinEvidence(t)
		r = ActResult{Envelope: envRef(env), Thread: n.viewLocked(t), Detail: map[string]string{"cid": c.String()}}
		arbitrator = t.Th.RoleOf(n.self) == negotiation.RoleArbitrator
		return nil
	}
	return n.do(actCall{act: negotiation.ActSubmitEvidence, nid: nid, check: check, locked: send}, func() (ActResult, error) {
		if err := n.host.PublishEvidence(ctx, id, env); err != nil {
			n.log.Warn("evidence not published on the topic (it went directly)", "negotiation", nid, "err", err)
		}
		if n.client != nil && !arbitrator {
			rc, err := n.client.SubmitEvidence(ctx, taskID, c.String())
			if err != nil {
				return r, chainErr("submitEvidence", err)
			}
			r.Tx = txRef(rc)
		}
		return r, nil
	})
}

// Rule gives this node's ruling as the dispute's assigned arbitrator, once
// the gate approves: 0 refuses to rule, r in 1..MaxRuling gives the worker
// r-1 basis points of the escrow.
func (n *Node) Rule(ctx context.Context, nid string, ruling uint64) (ActResult, error) {
	var taskID [32]byte
	read := func(t *thread) error { taskID = taskOf(t); return nil }
	a := actCall{act: negotiation.ActRule, nid: nid, chain: chainAlways, args: negotiation.ActArgs{Ruling: ruling}, locked: read}
	return n.do(a, func() (ActResult, error) {
		share := "refused to rule"
		if bps, ok := negotiation.WorkerShare(ruling); ok {
			share = fmt.Sprintf("%s basis points to the worker", bps)
		}
		args := map[string]any{"disputeId": chain.DisputeID(taskID).String(), "ruling": fmt.Sprint(ruling)}
		if _, err := n.authorize(ctx, ActRule, nid, args, "rule on the dispute: "+share, "critical"); err != nil {
			return ActResult{}, err
		}
		rc, err := n.client.Rule(ctx, taskID, ruling)
		if err != nil {
			return ActResult{}, chainErr("rule", err)
		}
		if err := n.onchain.applyReceipt(ctx, rc); err != nil {
			return ActResult{}, err
		}
		r := n.onchain.result(nid, nil)
		r.Tx = txRef(rc)
		return r, nil
	})
}
