package negotiation

import (
	"math/big"
)

// Payment requests and partial releases. A worker's PaymentRequest asks
// for part of a milestone (hours worked, a stream's rate over time, or the
// rest of the milestone, as its basis says); the poster releases it on
// chain (releasePart), and the chain's PartReleased fact carries the
// milestone's running total (Thread.Released). Requests are paid in the
// order they were made: the first requests whose amounts the running total
// covers are paid, the others pending. The released total plus the
// pending requests never exceeds the milestone: a request beyond it is
// refused (CodePaymentExceeds), by the act table before it is
// built and by the thread on the wire.

// PaymentRequestState is one PaymentRequest of a milestone and whether
// the running total covers it.
type PaymentRequestState struct {
	Envelope *Envelope
	Request  *PaymentRequest
	// Paid is set once the milestone's running total covers this request
	// and every earlier one.
	Paid bool
}

// PaymentRequests returns the effective PaymentRequests of milestone m,
// in the order the thread took them, each marked paid or pending.
func (t *Thread) PaymentRequests(m int) []PaymentRequestState {
	var out []PaymentRequestState
	released := t.Released(m)
	sum := new(big.Int)
	for _, r := range t.log {
		if r.Code != "" || r.Type != TypePaymentRequest {
			continue
		}
		e := t.byHash[r.Hash]
		p := e.Payload.(*PaymentRequest)
		if p.Milestone != m {
			continue
		}
		sum.Add(sum, &p.Amount.Int)
		out = append(out, PaymentRequestState{Envelope: e, Request: p, Paid: sum.Cmp(released) <= 0})
	}
	return out
}

// PendingPayment returns the first pending PaymentRequest of milestone m
// (the one a release pays next), or nil.
func (t *Thread) PendingPayment(m int) *PaymentRequestState {
	for _, r := range t.PaymentRequests(m) {
		if !r.Paid {
			return &r
		}
	}
	return nil
}

// Outstanding returns what milestone m's pending PaymentRequests ask for
// beyond its running total.
func (t *Thread) Outstanding(m int) *big.Int {
	sum := new(big.Int)
	for _, r := range t.PaymentRequests(m) {
		sum.Add(sum, &r.Request.Amount.Int)
	}
	sum.Sub(sum, t.Released(m))
	if sum.Sign() < 0 {
		sum.SetInt64(0)
	}
	return sum
}

// Requestable returns what a new PaymentRequest of milestone m may ask
// for: the milestone less its running total and the pending requests.
func (t *Thread) Requestable(m int) *big.Int {
	if !t.hasMilestone(m) {
		return new(big.Int)
	}
	left := new(big.Int).Set(&t.milestones[m].Amount.Int)
	left.Sub(left, t.Released(m))
	left.Sub(left, t.Outstanding(m))
	if left.Sign() < 0 {
		left.SetInt64(0)
	}
	return left
}

// checkPaymentAmount refuses a request of amount for milestone m that the
// milestone's running total and pending requests leave no room for.
func (t *Thread) checkPaymentAmount(m int, amount *big.Int, field string) *Error {
	if amount.Sign() <= 0 {
		return reject(CodeBadArgument, field, "a payment request asks for more than nothing")
	}
	if left := t.Requestable(m); amount.Cmp(left) > 0 {
		return reject(CodePaymentExceeds, field, "milestone %d has %s left to request (of %s: %s released, %s requested and pending)",
			m, left, t.milestones[m].Amount.String(), t.Released(m), t.Outstanding(m))
	}
	return nil
}

// checkBasis refuses a request whose units do not fit its basis: hourly
// and stream requests say how many hours or stream units they are for; a
// milestone request asks for all that is left of the milestone.
func (t *Thread) checkBasis(m int, basis string, amount *big.Int, units uint64) *Error {
	switch basis {
	case BasisHourly, BasisStream:
		if units == 0 {
			return reject(CodeBadArgument, "/payload/units", "a %s request says how many units it is for", basis)
		}
	case BasisMilestone:
		if units != 0 {
			return reject(CodeBadArgument, "/payload/units", "a milestone request has no units")
		}
		if left := t.Requestable(m); amount.Cmp(left) != 0 {
			return reject(CodeBadArgument, "/payload/amount", "a milestone request asks for all that is left of milestone %d: %s", m, left)
		}
	default:
		return reject(CodeBadArgument, "/payload/basis", "basis %q is not milestone, hourly or stream", basis)
	}
	return nil
}

// checkRequestPayment: request_payment's milestone exists and is not
// released; with its amount given, the basis fits and the running total
// leaves room for it.
func checkRequestPayment(t *Thread, by Address, a ActArgs) *Error {
	if err := checkMilestone(t, by, a); err != nil {
		return err
	}
	if a.Amount == nil {
		return nil
	}
	if err := t.checkPaymentAmount(a.Milestone, a.Amount, ""); err != nil {
		return err
	}
	return t.checkBasis(a.Milestone, a.Basis, a.Amount, a.Units)
}

// checkReleasePart: release_part's milestone exists, is not released and
// has a pending PaymentRequest; with Request given, it is that one.
func checkReleasePart(t *Thread, by Address, a ActArgs) *Error {
	if err := checkMilestone(t, by, a); err != nil {
		return err
	}
	p := t.PendingPayment(a.Milestone)
	if p == nil {
		return reject(CodeStateForbidden, "", "milestone %d has no pending payment request", a.Milestone)
	}
	if a.Request != (Hash{}) && p.Envelope.Hash() != a.Request {
		return reject(CodeStateForbidden, "", "the request paid next of milestone %d is %s: requests are paid in order", a.Milestone, p.Envelope.Hash())
	}
	return nil
}
