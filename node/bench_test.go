package node_test

import (
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// waitFor reads events until one satisfies pred or the deadline passes.
func waitFor(tb testing.TB, ch <-chan node.Event, what string, pred func(node.Event) bool) {
	tb.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				tb.Fatalf("event stream closed waiting for %s", what)
			}
			if pred(ev) {
				return
			}
		case <-deadline:
			tb.Fatalf("timed out waiting for %s", what)
		}
	}
}

// BenchmarkProposalToFunded measures a whole negotiation on loopback and
// the embedded dev chain without human approval (the gate approves at
// once): a direct proposal, the worker's acceptance, the poster's
// acceptance (agreement on one digest, both EVM signatures), and
// createTask with its receipt (one block, mined on demand). Every
// envelope is signed, sealed, sent, acknowledged after a synced ledger
// write, and applied by both state machines. negotiate-ms is the time to
// agreement at the poster; fund-ms the createTask transaction.
func BenchmarkProposalToFunded(b *testing.B) {
	w := newWorld(b, true)
	poster := w.add("poster", withPoll(5*time.Millisecond))
	worker := w.add("worker", withBootstrap(poster), withPoll(5*time.Millisecond))
	connect(b, poster, worker)
	pev, stopP := poster.Subscribe(1024)
	defer stopP()
	wev, stopW := worker.Subscribe(1024)
	defer stopW()
	ctx := b.Context()
	var negotiate, fund time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		res, err := poster.ProposeTask(ctx, worker.Address(), spec("Translate a page", eth(10)))
		if err != nil {
			b.Fatal(err)
		}
		nid := res.Thread.NegotiationID
		waitFor(b, wev, "the proposal at the worker", func(e node.Event) bool {
			return e.Kind == node.EventEnvelope && e.NegotiationID == nid && e.Direction == "received"
		})
		if _, err := worker.Accept(ctx, nid); err != nil {
			b.Fatal(err)
		}
		waitFor(b, pev, "the worker's acceptance at the poster", func(e node.Event) bool {
			return e.Kind == node.EventEnvelope && e.NegotiationID == nid && e.Type == negotiation.TypeTaskAcceptance
		})
		if _, err := poster.Accept(ctx, nid); err != nil {
			b.Fatal(err)
		}
		agreed := time.Now()
		if _, err := poster.Fund(ctx, nid); err != nil {
			b.Fatal(err)
		}
		negotiate += agreed.Sub(start)
		fund += time.Since(agreed)
	}
	b.ReportMetric(float64(negotiate.Microseconds())/1000/float64(b.N), "negotiate-ms/op")
	b.ReportMetric(float64(fund.Microseconds())/1000/float64(b.N), "fund-ms/op")
}
