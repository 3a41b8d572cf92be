package node

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// RevisionSpec is a poster's request to revise a delivered milestone.
type RevisionSpec struct {
	// Milestone is the delivered milestone sent back to work (0-based).
	Milestone int `json:"milestone"`
	// Reason says what to change, for the worker.
	Reason string `json:"reason"`
}

// RequestRevision sends a delivered milestone back to work, as the poster,
// once the gate approves (request_revision: it takes the worker's claim
// away). On chain (requestRevision) the milestone's review clock stops, so
// the worker can no longer claim the delivery unanswered; a RevisionRequest
// naming the delivery (inReplyTo) and the reason tells the worker, whose
// thread, like the poster's, shows the milestone back at work until it
// delivers again.
//
// The chain goes first, with the thread's lock held until the envelope is
// sent: a transaction that fails sends nothing (the act may be done again),
// and the chain's RevisionRequested fact, which takes the delivery off
// review too, cannot reach the thread before the envelope does.
func (n *Node) RequestRevision(ctx context.Context, nid string, spec RevisionSpec) (ActResult, error) {
	check := func() error {
		if strings.TrimSpace(spec.Reason) == "" {
			return fail(CodeBadArgument, "a revision request says what to change (reason)")
		}
		return nil
	}
	var (
		taskID   [32]byte
		delivery negotiation.Hash
		proof    negotiation.CID
	)
	read := func(t *thread) error {
		taskID = taskOf(t)
		delivery, _ = t.Th.PendingDelivery(spec.Milestone)
		if d := t.Th.Envelope(delivery); d != nil {
			if p, ok := d.Payload.(*negotiation.DeliveryNotice); ok {
				proof = p.ProofCID
			}
		}
		return nil
	}
	args := negotiation.ActArgs{Milestone: spec.Milestone}
	a := actCall{act: negotiation.ActRequestRevision, nid: nid, chain: chainAlways, check: check, args: args, locked: read}
	return n.do(a, func() (ActResult, error) {
		gated := map[string]any{
			"taskId": chain.TaskIDString(taskID), "milestone": fmt.Sprint(spec.Milestone),
			"deliveryHash": delivery.String(), "reason": spec.Reason,
		}
		if proof != "" {
			gated["proofCid"] = string(proof)
		}
		reason := fmt.Sprintf("send milestone %d back to work: the worker can no longer claim its delivery unanswered", spec.Milestone)
		if _, err := n.authorize(ctx, ActRequestRevision, nid, gated, reason, "high"); err != nil {
			return ActResult{}, err
		}
		var (
			res *chain.TaskResult
			env *negotiation.Envelope
		)
		err := n.eng.With(nid, func(t *thread) error {
			// The thread may have moved while the approval was pending (a
			// new delivery, a release): the act table asks again, and the
			// delivery approved must still be the one pending review.
			if err := n.may(t, negotiation.ActRequestRevision, args); err != nil {
				return err
			}
			if cur, _ := t.Th.PendingDelivery(spec.Milestone); cur != delivery {
				return fail(CodeStateForbidden, "milestone %d's delivery changed while the approval was pending", spec.Milestone)
			}
			task, err := n.client.TaskState(ctx, taskID)
			if err != nil {
				return chainErr("task state", err)
			}
			if res, err = n.client.RequestRevision(ctx, taskID, task, uint64(spec.Milestone)); err != nil {
				return chainErr("requestRevision", err)
			}
			p := &negotiation.RevisionRequest{Milestone: spec.Milestone, Reason: spec.Reason}
			if delivery != (negotiation.Hash{}) {
				p.InReplyTo = &delivery
			}
			env, _, err = n.snd.send(ctx, t, p, n.eng.Recipients(t, false), false)
			if err != nil {
				// The chain took the revision: its fact takes the delivery
				// off review in both threads all the same.
				n.log.Warn("revision requested on chain, its envelope not sent", "negotiation", nid, "err", err)
			}
			return nil
		})
		if err != nil {
			return ActResult{}, err
		}
		if err := n.onchain.applyReceipt(ctx, res.Receipt); err != nil {
			return ActResult{}, err
		}
		r := n.onchain.result(nid, env)
		r.Tx = txRef(res.Receipt)
		return r, nil
	})
}
