package node_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// paymentsOf returns milestone m's payments in v.
func paymentsOf(v node.ThreadView, m int) (node.PaymentView, bool) {
	for _, p := range v.Payments {
		if p.Milestone == m {
			return p, true
		}
	}
	return node.PaymentView{}, false
}

// TestPartialReleases: the worker asks for parts of a milestone (hours
// worked, a stream's units, then the rest); the poster's node shows each
// request (its thread's payments and an event) and, approved
// (release_part), releases it on chain in order; the running total, the
// same on both threads and on chain, never exceeds the milestone: a
// request beyond it is refused before anything is sent. The parts sum to
// the milestone, which the last one releases, and the worker is owed
// exactly the milestone.
func TestPartialReleases(t *testing.T) {
	gate := &recGate{}
	c, poster, worker := revPair(t, time.Hour, withGate(gate))
	events, stop := poster.Subscribe(256)
	defer stop()
	nid := agree(t, poster, worker, eth(300), eth(200))

	if _, err := poster.ReleasePart(t.Context(), nid, node.ReleasePartSpec{Milestone: 0}); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("a release without a request: %v", err)
	}
	r1, err := worker.RequestPayment(t.Context(), nid, node.PaymentSpec{Milestone: 0, Basis: negotiation.BasisHourly, Amount: eth(120), Units: 3, Note: "3 hours of terminology work"})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Envelope == nil || r1.Envelope.Type != negotiation.TypePaymentRequest || r1.Detail["requestable"] != eth(180).String() {
		t.Fatalf("RequestPayment = %+v", r1)
	}
	got := envelopeAt(t, worker, r1.Envelope).Payload.(*negotiation.PaymentRequest)
	eventually(t, "the poster to hold the request", func() bool {
		v, _ := poster.Thread(nid)
		p, ok := paymentsOf(v, 0)
		return ok && len(p.Requests) == 1
	})
	pv, _ := poster.Thread(nid)
	p, _ := paymentsOf(pv, 0)
	if q := p.Requests[0]; q.Hash != r1.Envelope.Hash || q.Basis != negotiation.BasisHourly || q.Amount != eth(120).String() || q.Units != 3 ||
		q.Note != "3 hours of terminology work" || q.Paid || p.Outstanding != eth(120).String() || p.Released != "0" {
		t.Fatalf("the poster's payments: %+v", p)
	}
	if got.Milestone != 0 || got.Basis != negotiation.BasisHourly || got.Amount.Cmp(eth(120)) != 0 || got.Units != 3 || got.Note == "" {
		t.Fatalf("the PaymentRequest: %+v", got)
	}
	select {
	case ev := <-waitKind(events, node.EventPaymentRequest):
		if ev.Hash != r1.Envelope.Hash.String() || ev.NegotiationID != nid {
			t.Fatalf("the payment request event: %+v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no payment request event")
	}

	// Beyond what is left (300 - 120): refused before anything is sent.
	before, _ := worker.Thread(nid)
	_, err = worker.RequestPayment(t.Context(), nid, node.PaymentSpec{Milestone: 0, Basis: negotiation.BasisStream, Amount: new(big.Int).Add(eth(180), big.NewInt(1)), Units: 3600})
	if node.CodeOf(err) != node.Code(negotiation.CodePaymentExceeds) {
		t.Fatalf("a request beyond the milestone: %v", err)
	}
	if _, err := worker.RequestPayment(t.Context(), nid, node.PaymentSpec{Milestone: 0, Basis: negotiation.BasisStream, Amount: eth(10)}); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("a stream request without units: %v", err)
	}
	if _, err := worker.RequestPayment(t.Context(), nid, node.PaymentSpec{Milestone: 0, Basis: negotiation.BasisMilestone, Amount: eth(10)}); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("a milestone request for less than the rest: %v", err)
	}
	if _, err := poster.RequestPayment(t.Context(), nid, node.PaymentSpec{Milestone: 0, Basis: negotiation.BasisHourly, Amount: eth(10), Units: 1}); node.CodeOf(err) != node.CodeNotParty {
		t.Fatalf("the poster's payment request: %v", err)
	}
	if after, _ := worker.Thread(nid); len(after.Log) != len(before.Log) {
		t.Fatalf("refused requests were sent: %d records, had %d", len(after.Log), len(before.Log))
	}
	r2, err := worker.RequestPayment(t.Context(), nid, node.PaymentSpec{Milestone: 0, Basis: negotiation.BasisStream, Amount: eth(100), Units: 3600})
	if err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, len(before.Log)+1)

	// Requests are paid in order.
	if _, err := poster.ReleasePart(t.Context(), nid, node.ReleasePartSpec{Milestone: 0, Request: &r2.Envelope.Hash}); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("releasing the second request first: %v", err)
	}
	res, err := poster.ReleasePart(t.Context(), nid, node.ReleasePartSpec{Milestone: 0})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tx == nil || res.Detail["amount"] != eth(120).String() || res.Detail["released"] != eth(120).String() || res.Detail["request"] != r1.Envelope.Hash.String() {
		t.Fatalf("ReleasePart = %+v", res)
	}
	asked := gate.asked(node.ActReleasePart)
	if len(asked) != 1 || argsOf(t, asked[0])["amount"] != eth(120).String() || argsOf(t, asked[0])["request"] != r1.Envelope.Hash.String() ||
		argsOf(t, asked[0])["basis"] != negotiation.BasisHourly || argsOf(t, asked[0])["units"] != "3" {
		t.Fatalf("the gate was asked %+v", asked)
	}
	if m := c.task(res.Thread).Milestones[0]; m.Released.Cmp(eth(120)) != 0 || m.State != chain.MilestoneOpen {
		t.Fatalf("milestone 0 on chain: %+v", m)
	}
	eventually(t, "the worker to see the part released", func() bool {
		v, _ := worker.Thread(nid)
		p, ok := paymentsOf(v, 0)
		return ok && p.Released == eth(120).String() && len(p.Requests) == 2 && p.Requests[0].Paid && !p.Requests[1].Paid
	})
	if got := owed(t, worker); got.Cmp(eth(120)) != 0 {
		t.Fatalf("the worker is owed %s, want %s", got, eth(120))
	}
	if _, err := poster.ReleasePart(t.Context(), nid, node.ReleasePartSpec{Milestone: 0, Request: &r2.Envelope.Hash}); err != nil {
		t.Fatal(err)
	}

	// The rest of the milestone, on a milestone basis: it releases the
	// milestone.
	eventually(t, "the worker to see 220 released", func() bool {
		v, _ := worker.Thread(nid)
		p, _ := paymentsOf(v, 0)
		return p.Released == eth(220).String()
	})
	r3, err := worker.RequestPayment(t.Context(), nid, node.PaymentSpec{Milestone: 0, Basis: negotiation.BasisMilestone, Amount: eth(80), Note: "the rest"})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster to hold the last request", func() bool {
		v, _ := poster.Thread(nid)
		p, _ := paymentsOf(v, 0)
		return len(p.Requests) == 3
	})
	res, err = poster.ReleasePart(t.Context(), nid, node.ReleasePartSpec{Milestone: 0, Request: &r3.Envelope.Hash})
	if err != nil {
		t.Fatal(err)
	}
	if m := c.task(res.Thread).Milestones[0]; m.State != chain.MilestoneReleased {
		t.Fatalf("milestone 0 on chain after the last part: %+v", m)
	}
	eventually(t, "both threads to take milestone 0 as released", func() bool {
		a, _ := poster.Thread(nid)
		b, _ := worker.Thread(nid)
		_, pa := paymentsOf(a, 0)
		_, pb := paymentsOf(b, 0)
		return len(a.Payments) == 1 && len(b.Payments) == 1 && pa && pb && a.Payments[0].Released == eth(300).String() && b.Payments[0].Released == eth(300).String()
	})
	if got := owed(t, worker); got.Cmp(eth(300)) != 0 {
		t.Fatalf("the worker is owed %s, want exactly the milestone %s", got, eth(300))
	}
	if _, err := worker.RequestPayment(t.Context(), nid, node.PaymentSpec{Milestone: 0, Basis: negotiation.BasisHourly, Amount: big.NewInt(1), Units: 1}); node.CodeOf(err) != node.Code(negotiation.CodeMilestoneInvalid) {
		t.Fatalf("a request of a released milestone: %v", err)
	}
	if _, err := poster.ReleasePart(t.Context(), nid, node.ReleasePartSpec{Milestone: 0}); node.CodeOf(err) != node.Code(negotiation.CodeMilestoneInvalid) {
		t.Fatalf("a release of a released milestone: %v", err)
	}
	withdraw(t, worker, eth(300))
}

// waitKind returns a channel of the events of kind from events.
func waitKind(events <-chan node.Event, kind node.EventKind) <-chan node.Event {
	out := make(chan node.Event, 1)
	go func() {
		for ev := range events {
			if ev.Kind == kind {
				out <- ev
				return
			}
		}
	}()
	return out
}

// TestReleasePartOnce: two releases of one payment request at once pay
// it once: the act table asks again with the thread's lock held, and the
// chain's running total, read under the same lock, decides whether the
// request is still unpaid.
func TestReleasePartOnce(t *testing.T) {
	c, poster, worker := revPair(t, time.Hour)
	nid := agree(t, poster, worker, eth(300))
	r, err := worker.RequestPayment(t.Context(), nid, node.PaymentSpec{Milestone: 0, Basis: negotiation.BasisHourly, Amount: eth(100), Units: 4})
	if err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, len(r.Thread.Log))
	type out struct {
		res node.ActResult
		err error
	}
	done := make(chan out, 2)
	for range 2 {
		go func() {
			res, err := poster.ReleasePart(t.Context(), nid, node.ReleasePartSpec{Milestone: 0})
			done <- out{res, err}
		}()
	}
	txs := 0
	for range 2 {
		o := <-done
		switch {
		case o.err == nil && o.res.Tx != nil:
			txs++
		case o.err == nil, node.CodeOf(o.err) == node.CodeStateForbidden:
		default:
			t.Fatalf("a release: %v", o.err)
		}
	}
	v, _ := poster.Thread(nid)
	if m := c.task(v).Milestones[0]; txs != 1 || m.Released.Cmp(eth(100)) != 0 {
		t.Fatalf("%d transactions, %s released on chain", txs, m.Released)
	}
	if got := owed(t, worker); got.Cmp(eth(100)) != 0 {
		t.Fatalf("the worker is owed %s, want %s", got, eth(100))
	}
}
