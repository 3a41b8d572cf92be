package node

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// needChain returns CodeNoChain on a node without a chain.
func (n *Node) needChain() error {
	if n.client == nil {
		return fail(CodeNoChain, "this node runs without a chain")
	}
	return nil
}

// chainErr wraps a chain failure with its revert code when there is one.
func chainErr(op string, err error) error {
	if c := chain.RevertCode(err); c != "" {
		return failWrap(CodeChainFailed, err, "%s reverted: %s", op, c)
	}
	return failWrap(CodeChainFailed, err, "%s", op)
}

// taskOf returns t's task id bytes (t.mu held), or an error before
// funding.
func taskOf(t *thread) ([32]byte, error) {
	id := t.Th.TaskID()
	if id == nil {
		return [32]byte{}, fail(CodeStateForbidden, "the task is not funded")
	}
	var b [32]byte
	id.Big().FillBytes(b[:])
	return b, nil
}

// Fund moves the agreed escrow into the TaskRegistry (createTask with both
// signatures), as the poster, once the gate approves. The thread moves to
// funded on the transaction's TaskCreated event.
func (n *Node) Fund(ctx context.Context, nid string) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	if err := n.needChain(); err != nil {
		return ActResult{}, n.actDone("fund", err)
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone("fund", err)
	}
	ag, st, role := t.Th.Agreement(), t.Th.State(), t.Th.RoleOf(n.self)
	t.Unlock()
	if role != negotiation.RolePoster {
		return ActResult{}, n.actDone("fund", fail(CodeNotParty, "only the poster funds the escrow"))
	}
	if st != negotiation.StateAgreed || ag == nil {
		return ActResult{}, n.actDone("fund", fail(CodeStateForbidden, "funding needs an agreement; the thread is %s", st))
	}
	args := settlementArgs(ag.Settlement, ag.Domain, ag.Digest)
	args["taskId"] = ag.TaskID().String()
	reason := fmt.Sprintf("fund escrow: createTask sends %s wei from this node to the TaskRegistry", fmtAmount(ag.Settlement.Amount))
	if _, err := n.authorize(ctx, ActFundEscrow, nid, args, reason, "critical"); err != nil {
		return ActResult{}, n.actDone("fund", err)
	}
	res, err := n.client.CreateTask(ctx, ag.Settlement, ag.PosterSignature, ag.WorkerSignature)
	if err != nil {
		return ActResult{}, n.actDone("fund", chainErr("createTask", err))
	}
	if res.TaskID != [32]byte(ag.Digest) {
		return ActResult{}, n.actDone("fund", fail(CodeChainFailed, "the registry's task id %x is not the agreed digest %s", res.TaskID, ag.Digest))
	}
	if err := n.applyReceipt(ctx, res.Receipt); err != nil {
		return ActResult{}, n.actDone("fund", err)
	}
	r := n.result(nid, nil)
	r.Tx = txRef(res.Receipt)
	r.Detail = map[string]string{"taskId": chain.TaskIDString(res.TaskID)}
	return r, n.actDone("fund", nil)
}

// result returns the thread view after an act and the envelope it sent.
func (n *Node) result(nid string, env *negotiation.Envelope) ActResult {
	r := ActResult{Envelope: envRef(env)}
	if v, err := n.Thread(nid); err == nil {
		r.Thread = v
	}
	return r
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
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	if err := negotiation.CheckFileName(spec.Name); spec.Name != "" && err != nil {
		return ActResult{}, n.actDone("deliver", failWrap(Code(negotiation.CodeBadFileName), err, "the file's name"))
	}
	if err := n.needChain(); err != nil {
		return ActResult{}, n.actDone("deliver", err)
	}
	if len(spec.Data) == 0 || strings.TrimSpace(spec.Name) == "" {
		return ActResult{}, n.actDone("deliver", fail(CodeBadArgument, "a delivery needs a named, non-empty file"))
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone("deliver", err)
	}
	if t.Th.RoleOf(n.self) != negotiation.RoleWorker {
		t.Unlock()
		return ActResult{}, n.actDone("deliver", fail(CodeNotParty, "only the worker delivers"))
	}
	taskID, err := taskOf(t)
	if err != nil {
		t.Unlock()
		return ActResult{}, n.actDone("deliver", err)
	}
	if st := t.Th.State(); st != negotiation.StateFunded && st != negotiation.StateDelivered {
		t.Unlock()
		return ActResult{}, n.actDone("deliver", fail(CodeStateForbidden, "no delivery in state %s", st))
	}
	if spec.Milestone < 0 || spec.Milestone >= len(t.Th.Milestones()) {
		t.Unlock()
		return ActResult{}, n.actDone("deliver", fail(CodeBadArgument, "milestone %d of %d", spec.Milestone, len(t.Th.Milestones())))
	}
	c, err := n.storeBlob(ctx, nid, spec.Name, spec.MediaType, "", spec.Data)
	if err != nil {
		t.Unlock()
		return ActResult{}, n.actDone("deliver", err)
	}
	ref := negotiation.FileRef{Name: spec.Name, CID: negotiation.CID(c.String()), Size: uint64(len(spec.Data)), MediaType: spec.MediaType}
	p := &negotiation.DeliveryNotice{Milestone: spec.Milestone, ProofCID: ref.CID, Files: []negotiation.FileRef{ref}, Note: spec.Note}
	env, _, err := n.sendLocked(ctx, t, p, n.recipients(t, false), false)
	t.Unlock()
	if err != nil {
		return ActResult{}, n.actDone("deliver", err)
	}
	task, err := n.client.TaskState(ctx, taskID)
	if err != nil {
		return ActResult{}, n.actDone("deliver", chainErr("task state", err))
	}
	res, err := n.client.SubmitProof(ctx, taskID, task, uint64(spec.Milestone), c.String())
	if err != nil {
		return ActResult{}, n.actDone("deliver", chainErr("submitProof", err))
	}
	if err := n.applyReceipt(ctx, res.Receipt); err != nil {
		return ActResult{}, n.actDone("deliver", err)
	}
	r := n.result(nid, env)
	r.Tx = txRef(res.Receipt)
	r.Detail = map[string]string{"cid": c.String()}
	return r, n.actDone("deliver", nil)
}

// pendingDelivery returns the latest DeliveryNotice of milestone m the
// thread holds (t.mu held).
func pendingDelivery(t *thread, m int) (*negotiation.Envelope, *negotiation.DeliveryNotice) {
	log := t.Th.Log()
	for i := len(log) - 1; i >= 0; i-- {
		r := log[i]
		if r.Type != negotiation.TypeDeliveryNotice || r.Code != "" {
			continue
		}
		e := t.Th.Envelope(r.Hash)
		if p, ok := e.Payload.(*negotiation.DeliveryNotice); ok && p.Milestone == m {
			return e, p
		}
	}
	return nil, nil
}

// AcceptDelivery accepts a delivered milestone as the poster and releases
// it: the delivered files must have been fetched and checked against their
// CIDs, and the proof CID the chain recorded must be the delivery's. Once
// the gate approves, the AcceptDelivery envelope is sent and the milestone
// released on chain (releaseMilestone). When the envelope went out before
// and only the release is missing (a failed transaction), it releases.
func (n *Node) AcceptDelivery(ctx context.Context, nid string, milestone int) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	if err := n.needChain(); err != nil {
		return ActResult{}, n.actDone("accept_delivery", err)
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone("accept_delivery", err)
	}
	role := t.Th.RoleOf(n.self)
	taskID, terr := taskOf(t)
	env, notice := pendingDelivery(t, milestone)
	proof, haveProof := t.Proofs[milestone]
	worker := n.otherParty(t)
	t.Unlock()
	switch {
	case role != negotiation.RolePoster:
		return ActResult{}, n.actDone("accept_delivery", fail(CodeNotParty, "only the poster accepts a delivery"))
	case terr != nil:
		return ActResult{}, n.actDone("accept_delivery", terr)
	case notice == nil:
		return ActResult{}, n.actDone("accept_delivery", fail(CodeStateForbidden, "no delivery of milestone %d", milestone))
	}
	for _, f := range deliveryFiles(notice) {
		if n.objectStored(ctx, f.c) {
			continue
		}
		// Not fetched yet: fetch it now from the worker.
		l, ok := n.host.Link(worker)
		if !ok {
			return ActResult{}, n.actDone("accept_delivery", fail(CodeDeliveryMissing, "file %s: the worker's link is unknown", f.c))
		}
		if _, err := n.fetchFile(ctx, nid, l.PeerID, f); err != nil {
			return ActResult{}, n.actDone("accept_delivery", failWrap(CodeDeliveryMissing, err, "file %s", f.c))
		}
	}
	if haveProof && proof != notice.ProofCID {
		return ActResult{}, n.actDone("accept_delivery", fail(CodeProofMismatch, "the chain recorded proof %s, the delivery names %s", proof, notice.ProofCID))
	}
	task, err := n.client.TaskState(ctx, taskID)
	if err != nil {
		return ActResult{}, n.actDone("accept_delivery", chainErr("task state", err))
	}
	if milestone < 0 || milestone >= len(task.Milestones) {
		return ActResult{}, n.actDone("accept_delivery", fail(CodeBadArgument, "milestone %d of %d", milestone, len(task.Milestones)))
	}
	amount := task.Milestones[milestone].Amount
	args := map[string]any{
		"taskId": chain.TaskIDString(taskID), "milestone": fmt.Sprint(milestone), "amount": fmtAmount(amount),
		"deliveryHash": env.Hash().String(), "proofCid": string(notice.ProofCID),
	}
	reason := fmt.Sprintf("accept the delivery of milestone %d and release %s wei to the worker", milestone, fmtAmount(amount))
	if _, err := n.authorize(ctx, ActReleaseMilestone, nid, args, reason, "high"); err != nil {
		return ActResult{}, n.actDone("accept_delivery", err)
	}
	var sent *negotiation.Envelope
	if t, err = n.locked(nid); err != nil {
		return ActResult{}, n.actDone("accept_delivery", err)
	}
	if cur, _ := pendingDelivery(t, milestone); cur != nil && cur.Hash() == env.Hash() && t.Th.State() == negotiation.StateDelivered && !releasedIn(t, env.Hash()) {
		p := &negotiation.AcceptDelivery{Milestone: milestone, DeliveryHash: env.Hash()}
		sent, _, err = n.sendLocked(ctx, t, p, n.recipients(t, false), false)
	}
	t.Unlock()
	if err != nil {
		return ActResult{}, n.actDone("accept_delivery", err)
	}
	if task.Milestones[milestone].State == chain.MilestoneReleased {
		return n.result(nid, sent), n.actDone("accept_delivery", nil)
	}
	res, err := n.client.ReleaseMilestone(ctx, taskID, task, uint64(milestone))
	if err != nil {
		return ActResult{}, n.actDone("accept_delivery", chainErr("releaseMilestone", err))
	}
	if err := n.applyReceipt(ctx, res.Receipt); err != nil {
		return ActResult{}, n.actDone("accept_delivery", err)
	}
	r := n.result(nid, sent)
	r.Tx = txRef(res.Receipt)
	return r, n.actDone("accept_delivery", nil)
}

// releasedIn reports whether t holds an AcceptDelivery naming delivery d
// (t.mu held).
func releasedIn(t *thread, d negotiation.Hash) bool {
	for _, r := range t.Th.Log() {
		if r.Type != negotiation.TypeAcceptDelivery || r.Code != "" {
			continue
		}
		if p, ok := t.Th.Envelope(r.Hash).Payload.(*negotiation.AcceptDelivery); ok && p.DeliveryHash == d {
			return true
		}
	}
	return false
}

// Withdraw pays this node what the registry owes it in token (the zero
// address for ETH). It is not gated: the money is already this node's.
func (n *Node) Withdraw(ctx context.Context, token negotiation.Address) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	if err := n.needChain(); err != nil {
		return ActResult{}, n.actDone("withdraw", err)
	}
	owed, err := n.client.Owed(ctx, common.Address(token), common.Address(n.self))
	if err != nil {
		return ActResult{}, n.actDone("withdraw", chainErr("owed", err))
	}
	if owed.Sign() == 0 {
		return ActResult{}, n.actDone("withdraw", fail(CodeNothingOwed, "the registry owes %s nothing in %s", n.self, token))
	}
	r, err := n.client.Withdraw(ctx, common.Address(token), owed)
	if err != nil {
		return ActResult{}, n.actDone("withdraw", chainErr("withdraw", err))
	}
	return ActResult{Tx: txRef(r), Detail: map[string]string{"amount": owed.String(), "token": token.String()}}, n.actDone("withdraw", nil)
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
