package vxp

import (
	"context"
	"strings"
	"testing"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	pure "github.com/parleynet/parley/vxp"
)

// counterAccepted makes request key's counter of one milestone of amount
// wei and accepts it; it returns the request id.
func (w *world) counterAccepted(client, key, nid, amount string) string {
	w.t.Helper()
	a := w.respond(client, key, nid)
	c := w.call("POST", "/proposals/"+a.str("proposal", "id")+"/counter", client, "", map[string]any{"milestones": []map[string]string{{"amount": amount, "description": "all"}}})
	mustStatus(w.t, "counter", c, 200, "")
	mustStatus(w.t, "accept", w.call("POST", "/proposals/"+c.str("proposal", "id")+"/accept", client, "", nil), 202, "")
	return a.str("request_id")
}

// TestManagerRestartInPendingVerification: with the poster away, the
// accepted counter-offer waits in the worker's outbox and the request in
// pending_verification (never failed while unknown, and not cancellable);
// a new server on the same node reads it back again after the restart,
// and the request succeeds once the poster is back and holds it.
func TestManagerRestartInPendingVerification(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond")
	addr := w.poster.Addrs()[0].String()
	if err := w.poster.Close(); err != nil {
		t.Fatal(err)
	}
	id := w.counterAccepted(agentA, "k", nid, "1200")
	r := w.waitState(id, pure.StatePendingVerification)
	if len(r.Effects) != 1 || r.Effects[0].Acknowledged || r.Effects[0].CID == "" {
		t.Fatalf("effects while the poster is away: %+v", r.Effects)
	}
	if g := w.call("GET", "/requests/"+id, agentA, "", nil); g.str("state") != "pending_verification" || g.str("projections", "a2a") != "TASK_STATE_WORKING" || g.get("effects").([]any)[0].(map[string]any)["acknowledged"] != false {
		t.Fatalf("GET while pending: %s", g.raw)
	}
	mustStatus(t, "cancel while pending_verification", w.call("POST", "/requests/"+id+"/cancel", agentA, "", nil), 409, "effect_unknown")

	w.stopServer()
	w.startServer()
	if r, _ := w.srv.Store().Request(id); r.State != pure.StatePendingVerification {
		t.Fatalf("after the restart: %s", r.State)
	}
	cfg := w.pcfg
	cfg.P2P.Listen = []string{addr[:strings.Index(addr, "/p2p/")]}
	w.poster = nodetest.Start(t, cfg, node.WithGate(node.AutoApprove("test")))
	done := w.waitState(id, pure.StateSucceeded)
	if !done.Effects[0].Acknowledged {
		t.Fatalf("succeeded without the acknowledgement: %+v", done.Effects)
	}
	pv, _ := w.poster.Thread(nid)
	if pv.Current == nil || pv.Current.Hash != done.Effects[0].Hash {
		t.Fatal("succeeded, but the poster does not hold the counter-offer")
	}
}

// TestManagerCancel: the cancel rules of each state.
func TestManagerCancel(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)

	// authorization_required and proposed: cancelled at once; a final
	// request refuses (request_final).
	a := w.respond(agentA, "k1", nid)
	c := w.call("POST", "/requests/"+a.str("request_id")+"/cancel", agentA, "", nil)
	if c.status != 200 || c.str("state") != "cancelled" || c.get("projections", "poppy") != nil || c.str("projections", "a2a") != "TASK_STATE_CANCELED" {
		t.Fatalf("cancel in authorization_required: %s", c.raw)
	}
	w.grant(agentA, nid, "", "offer.respond")
	b := w.respond(agentA, "k2", nid)
	c = w.call("POST", "/requests/"+b.str("request_id")+"/cancel", agentA, "", nil)
	if c.status != 200 || c.str("state") != "cancelled" || c.str("projections", "poppy") != "cancelled" {
		t.Fatalf("cancel in proposed: %s", c.raw)
	}
	mustStatus(t, "cancel twice", w.call("POST", "/requests/"+b.str("request_id")+"/cancel", agentA, "", nil), 409, "request_final")
	mustStatus(t, "accept after cancel", w.call("POST", "/proposals/"+b.str("proposal", "id")+"/accept", agentA, "", nil), 409, "request_final")
	mustStatus(t, "another client's cancel", w.call("POST", "/requests/"+b.str("request_id")+"/cancel", agentB, "", nil), 404, "unknown_request")

	// waiting_human: asked to stop (202); cancelled once the act ended
	// without an effect, and nothing was signed or sent.
	w.gate.held.Store(true)
	d := w.respond(agentA, "k3", nid)
	mustStatus(t, "gated accept", w.call("POST", "/proposals/"+d.str("proposal", "id")+"/accept", agentA, "", nil), 202, "")
	nodetest.Eventually(t, "the approval asked", func() bool { return w.gate.asked.Load() == 1 })
	c = w.call("POST", "/requests/"+d.str("request_id")+"/cancel", agentA, "", nil)
	mustStatus(t, "cancel in waiting_human", c, 202, "")
	w.waitState(d.str("request_id"), pure.StateCancelled)
	v, _ := w.worker.Thread(nid)
	for _, rec := range v.Log {
		if rec.Type == negotiation.TypeTaskAcceptance {
			t.Fatal("a cancelled request signed the settlement")
		}
	}
}

// TestManagerResumeWaitingHuman: a request waiting for the principal when
// the server stops asks the principal again at the next start (the
// approval went with the call that asked it), and goes on once approved.
func TestManagerResumeWaitingHuman(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond")
	w.gate.held.Store(true)
	a := w.respond(agentA, "k", nid)
	mustStatus(t, "gated accept", w.call("POST", "/proposals/"+a.str("proposal", "id")+"/accept", agentA, "", nil), 202, "")
	nodetest.Eventually(t, "the approval asked", func() bool { return w.gate.asked.Load() == 1 })
	w.stopServer()
	w.startServer()
	if r, _ := w.srv.Store().Request(a.str("request_id")); r.State != pure.StateWaitingHuman {
		t.Fatalf("after the restart: %s", r.State)
	}
	nodetest.Eventually(t, "the approval asked again", func() bool { return w.gate.asked.Load() == 2 })
	w.gate.release <- struct{}{}
	r := w.waitState(a.str("request_id"), pure.StateSucceeded)
	if len(r.Approvals) != 1 || r.Effects[0].Type != string(negotiation.TypeTaskAcceptance) {
		t.Fatalf("resumed request: %+v %+v", r.Approvals, r.Effects)
	}
}

// TestManagerResumeMovedWhileWaiting: a request waiting for the principal
// whose negotiation moved while the server was stopped (the principal
// countered through the node's own API) fails with terms_changed at the
// next start, and nothing is asked again or signed.
func TestManagerResumeMovedWhileWaiting(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond")
	w.gate.held.Store(true)
	a := w.respond(agentA, "k", nid)
	mustStatus(t, "gated accept", w.call("POST", "/proposals/"+a.str("proposal", "id")+"/accept", agentA, "", nil), 202, "")
	nodetest.Eventually(t, "the approval asked", func() bool { return w.gate.asked.Load() == 1 })
	w.stopServer()
	if _, err := w.worker.Counter(t.Context(), nid, nodeCounter(1250)); err != nil {
		t.Fatal(err)
	}
	w.startServer()
	r := w.waitState(a.str("request_id"), pure.StateFailed)
	if r.Failure == nil || r.Failure.Code != "terms_changed" || w.gate.asked.Load() != 1 || len(r.Effects) != 0 {
		t.Fatalf("failure %+v, asked %d, effects %+v", r.Failure, w.gate.asked.Load(), r.Effects)
	}
}

// TestManagerMovedWhileAsked: the negotiation moves while the principal
// is asked to sign the accepted revision's settlement: nothing is signed
// or sent, and the request fails with terms_changed.
func TestManagerMovedWhileAsked(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond")
	w.gate.held.Store(true)
	move := func() {
		if _, err := w.worker.Counter(context.Background(), nid, nodeCounter(1250)); err != nil {
			t.Error(err)
		}
	}
	w.gate.onAsk.Store(&move)
	a := w.respond(agentA, "k", nid)
	mustStatus(t, "gated accept", w.call("POST", "/proposals/"+a.str("proposal", "id")+"/accept", agentA, "", nil), 202, "")
	nodetest.Eventually(t, "the approval asked", func() bool { return w.gate.asked.Load() == 1 })
	w.gate.release <- struct{}{}
	r := w.waitState(a.str("request_id"), pure.StateFailed)
	if r.Failure == nil || r.Failure.Code != "terms_changed" || len(r.Effects) != 0 {
		t.Fatalf("failure %+v effects %+v", r.Failure, r.Effects)
	}
	v, _ := w.worker.Thread(nid)
	for _, rec := range v.Log {
		if rec.Type == negotiation.TypeTaskAcceptance {
			t.Fatal("the settlement was signed after the negotiation moved")
		}
	}
}
