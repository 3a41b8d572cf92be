package vxp

import (
	"testing"
	"time"

	pure "github.com/parleynet/parley/vxp"
)

// TestManagerEffectFromThread: a request in pending_verification whose
// record names no effect (the node stopped between sending and recording
// it, or the act returned an error that is no refusal) is decided by the
// negotiation's thread after a restart: the counter-offer it holds is the
// effect, read back to succeeded; with none, nothing was sent and the
// request fails (not_sent), never held forever.
func TestManagerEffectFromThread(t *testing.T) {
	w := newWorld(t)
	sent := w.propose(1000)
	w.grant(agentA, sent, "", "offer.respond")
	id := w.counterAccepted(agentA, "k1", sent, "1200")
	w.waitState(id, pure.StateSucceeded)

	// The same request as if the effect had never been recorded.
	w.stopServer()
	if _, err := w.srv.Store().Update(t.Context(), id, time.Now(), func(r *Request) error {
		r.Effects, r.State = nil, pure.StatePendingVerification
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A request accepted whose act never sent anything.
	none := w.propose(2000)
	w.grant(agentA, none, "", "offer.respond")
	w.startServer()
	a := w.respond(agentA, "k2", none)
	mustStatus(t, "second request", a, 201, "")
	lost := a.str("request_id")
	w.stopServer()
	if _, err := w.srv.Store().Update(t.Context(), lost, time.Now(), func(r *Request) error {
		if _, err := r.Proposals.Accept(r.Proposals.Current().ID, "", time.Now()); err != nil {
			return err
		}
		r.State = pure.StatePendingVerification
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	w.startServer()
	done := w.waitState(id, pure.StateSucceeded)
	if len(done.Effects) != 1 || !done.Effects[0].Acknowledged || done.Effects[0].Type != "TaskCounterOffer" {
		t.Fatalf("the effect read from the thread: %+v", done.Effects)
	}
	failed := w.waitState(lost, pure.StateFailed)
	if failed.Failure == nil || failed.Failure.Code != "not_sent" || len(failed.Effects) != 0 {
		t.Fatalf("the request that sent nothing: %+v", failed.Failure)
	}
}
