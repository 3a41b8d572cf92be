package node

import (
	"context"
	"fmt"
	"math/big"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// Payment requests and partial releases (negotiation/payment.go): the
// worker asks for part of a milestone (hours worked, a stream's units, or
// the rest of it); the poster's node shows the request to its principal
// (the thread view's payments, EventPaymentRequest) and, approved
// (release_part), releases that amount on chain (releasePart). Requests
// are paid in order; the milestone's running total, the chain's, never
// exceeds the milestone, and a request beyond what is left is refused
// before it is built (payment_exceeds_milestone).

// EventPaymentRequest: the worker asked for a payment (Hash the request,
// Detail "milestone <m>: <amount> wei").
const EventPaymentRequest EventKind = "payment_request"

// PaymentSpec is a worker's request for part of a milestone.
type PaymentSpec struct {
	// Milestone is the milestone paid from (0-based).
	Milestone int `json:"milestone"`
	// Basis is hourly (Units hours), stream (Units stream units) or
	// milestone (all that is left of the milestone, no Units).
	Basis string `json:"basis"`
	// Amount is the wei asked for.
	Amount *big.Int `json:"amount"`
	// Units are the hours or stream units the amount is for.
	Units uint64 `json:"units,omitempty"`
	// Note is for the poster.
	Note string `json:"note,omitempty"`
}

// ReleasePartSpec names the payment request a poster releases.
type ReleasePartSpec struct {
	// Milestone is the request's milestone (0-based).
	Milestone int `json:"milestone"`
	// Request is the PaymentRequest's hash; absent: the one paid next.
	Request *negotiation.Hash `json:"request,omitempty"`
}

// PaymentView is one milestone's partial payments: its running total,
// what its pending requests ask for, and every request.
type PaymentView struct {
	Milestone int    `json:"milestone"`
	Amount    string `json:"amount"`
	// Released is the milestone's running total released to the worker.
	Released string `json:"released"`
	// Outstanding is what the pending requests ask for beyond it.
	Outstanding string `json:"outstanding"`
	// Requestable is what a new request may still ask for.
	Requestable string               `json:"requestable"`
	Requests    []PaymentRequestView `json:"requests,omitempty"`
}

// PaymentRequestView is one PaymentRequest and whether it is paid.
type PaymentRequestView struct {
	Hash   negotiation.Hash `json:"hash"`
	Basis  string           `json:"basis"`
	Amount string           `json:"amount"`
	Units  uint64           `json:"units,omitempty"`
	Note   string           `json:"note,omitempty"`
	Paid   bool             `json:"paid"`
}

// paymentViews returns the payments of t's milestones that have a request
// or a partial release (t.mu held).
func paymentViews(t *thread) []PaymentView {
	var out []PaymentView
	for m, ms := range t.Th.Milestones() {
		reqs := t.Th.PaymentRequests(m)
		released := t.Th.Released(m)
		if len(reqs) == 0 && (released.Sign() == 0 || released.Cmp(&ms.Amount.Int) == 0) {
			continue
		}
		v := PaymentView{Milestone: m, Amount: ms.Amount.String(), Released: released.String(),
			Outstanding: t.Th.Outstanding(m).String(), Requestable: t.Th.Requestable(m).String()}
		for _, r := range reqs {
			v.Requests = append(v.Requests, PaymentRequestView{Hash: r.Envelope.Hash(), Basis: r.Request.Basis,
				Amount: r.Request.Amount.String(), Units: r.Request.Units, Note: r.Request.Note, Paid: r.Paid})
		}
		out = append(out, v)
	}
	return out
}

// RequestPayment asks the poster for part of a milestone, as the worker:
// a PaymentRequest with the basis, the amount, the units and the note.
// Not gated: it asks, and commits the principal to nothing. The act table
// refuses a request beyond what the milestone's running total and pending
// requests leave (payment_exceeds_milestone) before anything is built.
func (n *Node) RequestPayment(ctx context.Context, nid string, spec PaymentSpec) (ActResult, error) {
	check := func() error {
		if spec.Amount == nil || spec.Amount.Sign() <= 0 {
			return fail(CodeBadArgument, "a payment request asks for an amount above zero")
		}
		return nil
	}
	var r ActResult
	send := func(t *thread) error {
		p := &negotiation.PaymentRequest{Milestone: spec.Milestone, Basis: spec.Basis, Amount: negotiation.NewUint256(spec.Amount),
			Units: spec.Units, Note: spec.Note}
		env, _, err := n.snd.send(ctx, t, p, n.eng.Recipients(t, false), false)
		if err != nil {
			return err
		}
		r = ActResult{Envelope: envRef(env), Thread: n.viewLocked(t),
			Detail: map[string]string{"released": t.Th.Released(spec.Milestone).String(), "requestable": t.Th.Requestable(spec.Milestone).String()}}
		return nil
	}
	args := negotiation.ActArgs{Milestone: spec.Milestone, Amount: spec.Amount, Basis: spec.Basis, Units: spec.Units}
	return n.do(actCall{act: negotiation.ActRequestPayment, nid: nid, check: check, args: args, locked: send}, func() (ActResult, error) {
		return r, nil
	})
}

// ReleasePart releases the amount of a milestone's pending payment request
// to the worker, as the poster, once the gate approves (release_part): on
// chain (releasePart), which adds it to the milestone's running total; the
// part that releases the rest releases the milestone. Requests are paid in
// order. The chain's running total decides, with the thread's lock held
// around the transaction, whether the request is still unpaid: a second
// release of one request sends nothing.
func (n *Node) ReleasePart(ctx context.Context, nid string, spec ReleasePartSpec) (ActResult, error) {
	args := negotiation.ActArgs{Milestone: spec.Milestone}
	if spec.Request != nil {
		args.Request = *spec.Request
	}
	var (
		taskID [32]byte
		req    negotiation.PaymentRequestState
		upto   *big.Int // the requests' total up to this one
	)
	read := func(t *thread) error {
		taskID = taskOf(t)
		req, upto = pendingRequest(t, spec.Milestone)
		return nil
	}
	a := actCall{act: negotiation.ActReleasePart, nid: nid, chain: chainAlways, args: args, locked: read}
	return n.do(a, func() (ActResult, error) {
		amount := &req.Request.Amount.Int
		gated := map[string]any{
			"taskId": chain.TaskIDString(taskID), "milestone": fmt.Sprint(spec.Milestone), "amount": fmtAmount(amount),
			"request": req.Envelope.Hash().String(), "basis": req.Request.Basis, "units": fmt.Sprint(req.Request.Units),
		}
		reason := fmt.Sprintf("release %s wei of milestone %d to the worker (a %s payment request)", fmtAmount(amount), spec.Milestone, req.Request.Basis)
		if _, err := n.authorize(ctx, ActReleasePart, nid, gated, reason, "high"); err != nil {
			return ActResult{}, err
		}
		args.Request = req.Envelope.Hash()
		var res *chain.TaskResult
		err := n.eng.With(nid, func(t *thread) error {
			if err := n.may(t, negotiation.ActReleasePart, args); err != nil {
				return err
			}
			task, err := n.client.TaskState(ctx, taskID)
			if err != nil {
				return chainErr("task state", err)
			}
			if spec.Milestone >= len(task.Milestones) {
				return fail(CodeBadArgument, "milestone %d of %d", spec.Milestone, len(task.Milestones))
			}
			if r := task.Milestones[spec.Milestone].Released; r != nil && r.Cmp(upto) >= 0 {
				return nil // paid on chain already; its fact is on its way
			}
			res, err = n.client.ReleasePart(ctx, taskID, task, uint64(spec.Milestone), amount)
			if err != nil {
				return chainErr("releasePart", err)
			}
			return nil
		})
		if err != nil {
			return ActResult{}, err
		}
		var r ActResult
		if res != nil {
			if err := n.onchain.applyReceipt(ctx, res.Receipt); err != nil {
				return ActResult{}, err
			}
			r = n.onchain.result(nid, nil)
			r.Tx = txRef(res.Receipt)
		} else {
			r = n.onchain.result(nid, nil)
		}
		r.Detail = map[string]string{"amount": amount.String(), "request": req.Envelope.Hash().String()}
		_ = n.eng.With(nid, func(t *thread) error {
			r.Detail["released"] = t.Th.Released(spec.Milestone).String()
			return nil
		})
		return r, nil
	})
}

// pendingRequest returns the payment request of milestone m paid next and
// the total of the requests up to it (t.mu held; the act table checked
// there is one).
func pendingRequest(t *thread, m int) (negotiation.PaymentRequestState, *big.Int) {
	sum := new(big.Int)
	for _, r := range t.Th.PaymentRequests(m) {
		sum.Add(sum, &r.Request.Amount.Int)
		if !r.Paid {
			return r, sum
		}
	}
	return negotiation.PaymentRequestState{}, sum
}
