package node

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// OpenDispute opens a dispute about the funded task as the poster or the
// worker, posting the ArbitrationModule's bond, once the gate approves.
// The node then joins the dispute's evidence topic.
func (n *Node) OpenDispute(ctx context.Context, nid string) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	if err := n.needChain(); err != nil {
		return ActResult{}, n.actDone("open_dispute", err)
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone("open_dispute", err)
	}
	role, st := t.Th.RoleOf(n.self), t.Th.State()
	taskID, terr := taskOf(t)
	t.Unlock()
	switch {
	case role != negotiation.RolePoster && role != negotiation.RoleWorker:
		return ActResult{}, n.actDone("open_dispute", fail(CodeNotParty, "only the poster or the worker opens a dispute"))
	case terr != nil:
		return ActResult{}, n.actDone("open_dispute", terr)
	case st != negotiation.StateFunded && st != negotiation.StateDelivered:
		return ActResult{}, n.actDone("open_dispute", fail(CodeStateForbidden, "no dispute in state %s", st))
	}
	bond, err := n.client.Bond(ctx)
	if err != nil {
		return ActResult{}, n.actDone("open_dispute", chainErr("bond", err))
	}
	args := map[string]any{"taskId": chain.TaskIDString(taskID), "bond": fmtAmount(bond)}
	reason := fmt.Sprintf("open a dispute about the task, posting a bond of %s wei", fmtAmount(bond))
	if _, err := n.authorize(ctx, ActOpenDispute, nid, args, reason, "high"); err != nil {
		return ActResult{}, n.actDone("open_dispute", err)
	}
	task, err := n.client.TaskState(ctx, taskID)
	if err != nil {
		return ActResult{}, n.actDone("open_dispute", chainErr("task state", err))
	}
	res, err := n.client.OpenDispute(ctx, taskID, task)
	if err != nil {
		return ActResult{}, n.actDone("open_dispute", chainErr("openDispute", err))
	}
	if err := n.applyReceipt(ctx, res.Receipt); err != nil {
		return ActResult{}, n.actDone("open_dispute", err)
	}
	r := n.result(nid, nil)
	r.Tx = txRef(res.Receipt)
	r.Detail = map[string]string{"disputeId": chain.DisputeID(taskID).String()}
	return r, n.actDone("open_dispute", nil)
}

// ProposeArbitrator names the arbitrator this party accepts for the
// dispute, once the gate approves: an ArbitratorProposal to the other
// party and proposeArbitrator on chain. The chain assigns the arbitrator
// when both parties named the same one; the node then hands the thread
// over to it (a proof bundle of the thread so far).
func (n *Node) ProposeArbitrator(ctx context.Context, nid string, arbitrator negotiation.Address) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	if err := n.needChain(); err != nil {
		return ActResult{}, n.actDone("propose_arbitrator", err)
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone("propose_arbitrator", err)
	}
	role, st := t.Th.RoleOf(n.self), t.Th.State()
	taskID, terr := taskOf(t)
	poster, worker := t.Th.Poster(), t.Th.Worker()
	t.Unlock()
	switch {
	case role != negotiation.RolePoster && role != negotiation.RoleWorker:
		return ActResult{}, n.actDone("propose_arbitrator", fail(CodeNotParty, "only a party proposes an arbitrator"))
	case terr != nil:
		return ActResult{}, n.actDone("propose_arbitrator", terr)
	case st != negotiation.StateDisputed:
		return ActResult{}, n.actDone("propose_arbitrator", fail(CodeStateForbidden, "no arbitrator to propose in state %s", st))
	case arbitrator == (negotiation.Address{}) || arbitrator == poster || arbitrator == worker:
		return ActResult{}, n.actDone("propose_arbitrator", fail(CodeBadArgument, "the arbitrator %s must be a third party", arbitrator))
	}
	disputeID := negotiation.NewUint256(chain.DisputeID(taskID))
	args := map[string]any{"disputeId": disputeID.String(), "arbitrator": arbitrator.String()}
	if _, err := n.authorize(ctx, ActProposeArbitrator, nid, args, "accept "+arbitrator.String()+" as the dispute's arbitrator", "medium"); err != nil {
		return ActResult{}, n.actDone("propose_arbitrator", err)
	}
	if t, err = n.locked(nid); err != nil {
		return ActResult{}, n.actDone("propose_arbitrator", err)
	}
	env, _, err := n.sendLocked(ctx, t, &negotiation.ArbitratorProposal{DisputeID: disputeID, Arbitrator: arbitrator}, n.recipients(t, false), false)
	t.Unlock()
	if err != nil {
		return ActResult{}, n.actDone("propose_arbitrator", err)
	}
	rc, err := n.client.ProposeArbitrator(ctx, taskID, common.Address(arbitrator))
	if err != nil {
		return ActResult{}, n.actDone("propose_arbitrator", chainErr("proposeArbitrator", err))
	}
	if err := n.applyReceipt(ctx, rc); err != nil {
		return ActResult{}, n.actDone("propose_arbitrator", err)
	}
	r := n.result(nid, env)
	r.Tx = txRef(rc)
	return r, n.actDone("propose_arbitrator", nil)
}

// EvidenceSpec is one piece of evidence: a file and what it shows.
type EvidenceSpec struct {
	Name        string `json:"name"`
	MediaType   string `json:"mediaType,omitempty"`
	Data        []byte `json:"data"`
	Description string `json:"description"`
}

// SubmitEvidence submits evidence to the thread's dispute: the file is
// stored under its CID (served to the parties and the arbitrator, sealed
// to each), a DisputeEvidence envelope goes directly to the other party
// and the arbitrator and on the dispute's evidence topic, and the CID is
// added to the dispute on chain. It is not gated: it moves no money and
// signs nothing for the contract.
func (n *Node) SubmitEvidence(ctx context.Context, nid string, spec EvidenceSpec) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	if len(spec.Data) == 0 || strings.TrimSpace(spec.Name) == "" {
		return ActResult{}, n.actDone("evidence", fail(CodeBadArgument, "evidence needs a named, non-empty file"))
	}
	if err := negotiation.CheckFileName(spec.Name); err != nil {
		return ActResult{}, n.actDone("evidence", failWrap(Code(negotiation.CodeBadFileName), err, "the file's name"))
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone("evidence", err)
	}
	taskID, err := taskOf(t)
	if err != nil {
		t.Unlock()
		return ActResult{}, n.actDone("evidence", err)
	}
	id := disputeIDOf(t)
	if st := t.Th.State(); id == "" || (st != negotiation.StateDisputed && st != negotiation.StateArbitrated) {
		t.Unlock()
		return ActResult{}, n.actDone("evidence", fail(CodeStateForbidden, "no dispute is open"))
	}
	if r := t.Th.RoleOf(n.self); r != negotiation.RolePoster && r != negotiation.RoleWorker && r != negotiation.RoleArbitrator {
		t.Unlock()
		return ActResult{}, n.actDone("evidence", fail(CodeNotParty, "only the parties and the arbitrator submit evidence"))
	}
	c, err := n.storeBlob(ctx, nid, spec.Name, spec.MediaType, "", spec.Data)
	if err != nil {
		t.Unlock()
		return ActResult{}, n.actDone("evidence", err)
	}
	ref := negotiation.FileRef{Name: spec.Name, CID: negotiation.CID(c.String()), Size: uint64(len(spec.Data)), MediaType: spec.MediaType}
	p := &negotiation.DisputeEvidence{DisputeID: negotiation.NewUint256(chain.DisputeID(taskID)), EvidenceCID: ref.CID, Files: []negotiation.FileRef{ref}, Description: spec.Description}
	env, _, err := n.sendLocked(ctx, t, p, n.recipients(t, true), false)
	if err != nil {
		t.Unlock()
		return ActResult{}, n.actDone("evidence", err)
	}
	n.joinEvidenceLocked(t)
	r := ActResult{Envelope: envRef(env), Thread: n.viewLocked(t), Detail: map[string]string{"cid": c.String()}}
	arbitrator := t.Th.RoleOf(n.self) == negotiation.RoleArbitrator
	t.Unlock()
	if err := n.host.PublishEvidence(ctx, id, env); err != nil {
		n.log.Warn("evidence not published on the topic (it went directly)", "negotiation", nid, "err", err)
	}
	if n.client != nil && !arbitrator {
		rc, err := n.client.SubmitEvidence(ctx, taskID, c.String())
		if err != nil {
			return r, n.actDone("evidence", chainErr("submitEvidence", err))
		}
		r.Tx = txRef(rc)
	}
	return r, n.actDone("evidence", nil)
}

// Rule gives this node's ruling as the dispute's assigned arbitrator, once
// the gate approves: 0 refuses to rule, r in 1..10001 gives the worker
// r-1 basis points of the escrow.
func (n *Node) Rule(ctx context.Context, nid string, ruling uint64) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	if err := n.needChain(); err != nil {
		return ActResult{}, n.actDone("rule", err)
	}
	if ruling > 10001 {
		return ActResult{}, n.actDone("rule", fail(CodeBadArgument, "ruling %d is outside 0..10001", ruling))
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone("rule", err)
	}
	role, st := t.Th.RoleOf(n.self), t.Th.State()
	taskID, terr := taskOf(t)
	t.Unlock()
	switch {
	case role != negotiation.RoleArbitrator:
		return ActResult{}, n.actDone("rule", fail(CodeNotParty, "only the assigned arbitrator rules"))
	case terr != nil:
		return ActResult{}, n.actDone("rule", terr)
	case st != negotiation.StateArbitrated:
		return ActResult{}, n.actDone("rule", fail(CodeStateForbidden, "no ruling in state %s", st))
	}
	share := "refused to rule"
	if bps, ok := negotiation.WorkerShare(ruling); ok {
		share = fmt.Sprintf("%s basis points to the worker", bps)
	}
	args := map[string]any{"disputeId": chain.DisputeID(taskID).String(), "ruling": fmt.Sprint(ruling)}
	if _, err := n.authorize(ctx, ActRule, nid, args, "rule on the dispute: "+share, "critical"); err != nil {
		return ActResult{}, n.actDone("rule", err)
	}
	rc, err := n.client.Rule(ctx, taskID, ruling)
	if err != nil {
		return ActResult{}, n.actDone("rule", chainErr("rule", err))
	}
	if err := n.applyReceipt(ctx, rc); err != nil {
		return ActResult{}, n.actDone("rule", err)
	}
	r := n.result(nid, nil)
	r.Tx = txRef(rc)
	return r, n.actDone("rule", nil)
}
