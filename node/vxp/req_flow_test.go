package vxp

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/nodetest"
	pure "github.com/parleynet/parley/vxp"
)

// TestReqFlow drives offer.respond as the outside agent does: 202
// naming exactly what is missing, the same key re-evaluated to proposed
// once granted, a counter, its acceptance succeeding only once the poster
// holds the counter-offer, a stale accept refused with nothing changed on
// either node, the current accept through waiting_human, and a second
// accept refused.
func TestReqFlow(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(3000, 2000)
	x, _ := w.worker.Thread(nid)
	offerX := x.Current.Hash

	// No grant: 202 authorization_required, exactly the missing entry.
	a := w.respond(agentA, "key-a", nid)
	mustStatus(t, "without a grant", a, 202, "")
	if a.str("state") != "authorization_required" || a.get("projections", "poppy") != nil || a.str("projections", "a2a") != "TASK_STATE_AUTH_REQUIRED" {
		t.Fatalf("202 answer: %s", a.raw)
	}
	want := []any{map[string]any{"type": pure.CapabilityType, "actions": []any{"offer.respond"}, "identifier": nid}}
	if got := a.get("authorization", "authorization_details"); !reflect.DeepEqual(got, want) {
		t.Fatalf("missing details %v, want %v", got, want)
	}
	if a.str("authorization", "device_authorization_endpoint") != w.srv.Metadata().DeviceAuthorizationEndpoint || a.str("authorization", "resource") != w.srv.Endpoint() || a.str("authorization", "error") != "authorization_required" {
		t.Fatalf("authorization member: %s", a.raw)
	}
	reqA := a.str("request_id")

	// A grant of another operation: still exactly offer.respond missing.
	w.grant(agentA, nid, "", "negotiation.read")
	a = w.respond(agentA, "key-a", nid)
	if a.status != 202 || a.str("request_id") != reqA || !reflect.DeepEqual(a.get("authorization", "authorization_details"), want) {
		t.Fatalf("with negotiation.read only: %d %s", a.status, a.raw)
	}

	// Granted: the same key and body is the same request, proposed.
	w.grant(agentA, nid, "", "offer.respond")
	a = w.respond(agentA, "key-a", nid)
	mustStatus(t, "re-evaluated", a, 200, "")
	if a.str("request_id") != reqA || a.str("state") != "proposed" || a.str("projections", "poppy") != "proposed" || a.str("projections", "a2a") != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("re-evaluation: %s", a.raw)
	}
	if a.str("proposal", "terms", "action") != "accept" || a.str("proposal", "terms", "offer") != offerX.String() || a.get("proposal", "user_approval_required") != true || a.str("proposal", "terms", "total") != "5000" {
		t.Fatalf("revision 1: %s", a.raw)
	}
	if a.get("proposal", "limits", "revisions_left") != 2.0 || len(a.str("proposal", "terms", "vxp_salt")) != 22 {
		t.Fatalf("revision 1's limits or salt: %s", a.raw)
	}
	r1 := a.str("proposal", "id")

	// A second request on the same offer, accepted later (stale).
	b := w.respond(agentA, "key-b", nid)
	mustStatus(t, "second request", b, 201, "")
	reqB, b1 := b.str("request_id"), b.str("proposal", "id")

	// Counter: revision 2, action counter, not gated.
	c := w.call("POST", "/proposals/"+r1+"/counter", agentA, "", map[string]any{
		"milestones": []map[string]string{{"amount": "3500", "description": "part 1"}, {"amount": "2500", "description": "part 2"}},
		"reason":     "a glossary is needed",
	})
	mustStatus(t, "counter", c, 200, "")
	if c.get("proposal", "revision") != 2.0 || c.str("proposal", "terms", "action") != "counter" || c.get("proposal", "user_approval_required") != false || c.str("proposal", "terms", "total") != "6000" {
		t.Fatalf("revision 2: %s", c.raw)
	}
	r2 := c.str("proposal", "id")
	// Revision 1 is superseded by the counter.
	mustStatus(t, "accepting revision 1 after the counter", w.call("POST", "/proposals/"+r1+"/accept", agentA, "", nil), 409, "terms_changed")

	// Accepting the counter sends the TaskCounterOffer; succeeded only
	// once the poster holds it.
	acc := w.call("POST", "/proposals/"+r2+"/accept", agentA, "", map[string]string{"approved_by": "user"})
	mustStatus(t, "accepting the counter", acc, 202, "")
	done := w.waitState(reqA, pure.StateSucceeded)
	if len(done.Effects) != 1 || done.Effects[0].Type != string(negotiation.TypeTaskCounterOffer) || !done.Effects[0].Acknowledged {
		t.Fatalf("effects: %+v", done.Effects)
	}
	pv, _ := w.poster.Thread(nid)
	if pv.Current == nil || pv.Current.Hash != done.Effects[0].Hash || pv.Current.By != w.worker.Address() {
		t.Fatalf("the poster's current offer is not the counter: %+v", pv.Current)
	}
	if done.Proposals.Accepted.ApprovedByClass != pure.ApprovedByClassAgentAsserted || len(done.Approvals) != 0 {
		t.Fatalf("acceptance: %+v approvals %v", done.Proposals.Accepted, done.Approvals)
	}
	wantSteps := []pure.State{pure.StateAuthorizationRequired, pure.StateProposed, pure.StateAccepted, pure.StateExecuting, pure.StatePendingVerification, pure.StateSucceeded}
	ev := w.call("GET", "/requests/"+reqA+"/events", agentA, "", nil)
	var evs struct {
		Events []struct{ State, From, At string }
	}
	_ = json.Unmarshal(ev.raw, &evs)
	if len(evs.Events) != len(wantSteps) {
		t.Fatalf("events: %s", ev.raw)
	}
	for i, s := range wantSteps {
		if evs.Events[i].State != string(s) || (i > 0 && evs.Events[i].From != evs.Events[i-1].State) || len(evs.Events[i].At) != 24 {
			t.Fatalf("event %d: %s", i, ev.raw)
		}
	}

	// The poster counters the worker's counter: the negotiation moves
	// under request B's revision 1.
	res, err := w.poster.Counter(t.Context(), nid, nodeCounter(4000))
	if err != nil {
		t.Fatal(err)
	}
	w.waitOffer(w.worker, nid, res.Envelope.Hash)
	// The poster settles the counter it sent after the worker's ack (a
	// ledger entry of its own, written a moment later): take its head
	// once it holds still.
	var pHead ledger.Head
	nodetest.Eventually(t, "the poster's ledger to settle", func() bool {
		h := w.poster.Ledger().Head()
		time.Sleep(300 * time.Millisecond)
		pHead = w.poster.Ledger().Head()
		return h == pHead
	})
	wNeg := negEntries(t, w.worker, nid)
	stale := w.call("POST", "/proposals/"+b1+"/accept", agentA, "", nil)
	mustStatus(t, "stale accept", stale, 409, "terms_changed")
	if w.poster.Ledger().Head() != pHead || !reflect.DeepEqual(negEntries(t, w.worker, nid), wNeg) {
		t.Fatal("a stale accept changed a node's negotiation")
	}
	if w.gate.asked.Load() != 0 {
		t.Fatal("a stale accept asked the principal")
	}
	g := w.call("GET", "/requests/"+reqB, agentA, "", nil)
	if g.str("state") != "proposed" || g.get("proposal", "revision") != 2.0 || g.str("proposal", "terms", "offer") != res.Envelope.Hash.String() || g.get("proposal", "limits", "accept_attempts_left") != 2.0 {
		t.Fatalf("request B after the stale accept: %s", g.raw)
	}
	b2 := g.str("proposal", "id")

	// The current accept signs the settlement: a gated act, through
	// waiting_human until the principal approves. approved_by "user"
	// approves nothing.
	w.gate.held.Store(true)
	acc = w.call("POST", "/proposals/"+b2+"/accept", agentA, "", map[string]string{"approved_by": "user"})
	mustStatus(t, "current accept", acc, 202, "")
	if acc.str("state") != "waiting_human" || acc.str("projections", "a2a") != "TASK_STATE_AUTH_REQUIRED" {
		t.Fatalf("gated accept: %s", acc.raw)
	}
	nodetest.Eventually(t, "the approval asked", func() bool { return w.gate.asked.Load() == 1 })
	if r, _ := w.srv.Store().Request(reqB); r.State != pure.StateWaitingHuman || len(r.Effects) != 0 {
		t.Fatalf("before the approval: %s %+v", r.State, r.Effects)
	}
	mustStatus(t, "a second accept", w.call("POST", "/proposals/"+b2+"/accept", agentA, "", nil), 409, "already_accepted")
	w.gate.release <- struct{}{}
	doneB := w.waitState(reqB, pure.StateSucceeded)
	if len(doneB.Approvals) != 1 || len(doneB.Approvals[0]) != 64 || len(doneB.Effects) != 1 || doneB.Effects[0].Type != string(negotiation.TypeTaskAcceptance) {
		t.Fatalf("gated request: approvals %v effects %+v", doneB.Approvals, doneB.Effects)
	}
	var states []pure.State
	for _, s := range doneB.Steps {
		states = append(states, s.State)
	}
	if !reflect.DeepEqual(states[len(states)-5:], []pure.State{pure.StateAccepted, pure.StateWaitingHuman, pure.StateExecuting, pure.StatePendingVerification, pure.StateSucceeded}) {
		t.Fatalf("gated steps: %v", states)
	}
	if len(doneB.Proposals.Refused) != 1 || doneB.Proposals.Refused[0].ProposalID != b1 || doneB.Proposals.Refused[0].Code != pure.CodeTermsChanged {
		t.Fatalf("refused: %+v", doneB.Proposals.Refused)
	}
	mustStatus(t, "accept after success", w.call("POST", "/proposals/"+b2+"/accept", agentA, "", nil), 409, "already_accepted")

	checkProof(t, w, reqB, nid, doneB)
	_ = reqB
}

// TestReqConcurrentAccepts: accepts of the current revision at the same
// time give one effect; the others are already_accepted.
func TestReqConcurrentAccepts(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond")
	a := w.respond(agentA, "k", nid)
	c := w.call("POST", "/proposals/"+a.str("proposal", "id")+"/counter", agentA, "", map[string]any{"milestones": []map[string]string{{"amount": "1500", "description": "all"}}})
	mustStatus(t, "counter", c, 200, "")
	pid := c.str("proposal", "id")
	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = w.call("POST", "/proposals/"+pid+"/accept", agentA, "", nil).status
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case 202, 200:
			ok++
		case 409:
		default:
			t.Fatalf("statuses %v", codes)
		}
	}
	if ok != 1 {
		t.Fatalf("%d accepts went through: %v", ok, codes)
	}
	r := w.waitState(a.str("request_id"), pure.StateSucceeded)
	if len(r.Effects) != 1 {
		t.Fatalf("effects %+v", r.Effects)
	}
	counters := 0
	v, _ := w.worker.Thread(nid)
	for _, rec := range v.Log {
		if rec.Type == negotiation.TypeTaskCounterOffer {
			counters++
		}
	}
	if counters != 1 {
		t.Fatalf("%d counter-offers in the thread", counters)
	}
}
