package vxp

import (
	"strings"
	"testing"
	"time"

	pure "github.com/parleynet/parley/vxp"
)

// TestReqIdempotency: the seed's Idempotency-Key rules, keys per client
// and durable across a restart of the server.
func TestReqIdempotency(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond")
	first := w.respond(agentA, "key-1", nid)
	mustStatus(t, "first", first, 201, "")
	id := first.str("request_id")
	body := `{"operation":"offer.respond","target":{"negotiation_id":"` + nid + `"}}`
	reordered := `{ "target" : {"negotiation_id":"` + nid + `"}, "operation":"offer.respond" }`
	other := `{"operation":"negotiation.read","target":{"negotiation_id":"` + nid + `"}}`

	for _, c := range []struct {
		name, client, key, body string
		status                  int
		code                    string
		same                    bool
	}{
		{"no key", agentA, "", body, 400, "idempotency_key_required", false},
		{"a key with a control byte", agentA, "a\x01b", body, 400, "idempotency_key_invalid", false},
		{"a key too long", agentA, strings.Repeat("k", pure.MaxIdempotencyKey+1), body, 400, "idempotency_key_invalid", false},
		{"same key, same body", agentA, "key-1", body, 200, "", true},
		{"same key, same JSON reordered", agentA, "key-1", reordered, 200, "", true},
		{"same key, another body", agentA, "key-1", other, 409, "idempotency_key_reused", false},
		{"same key, another client", agentB, "key-1", body, 202, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(w.srv.Store().Requests(""))
			if c.key == "a\x01b" {
				// net/http refuses to send a control byte in a header:
				// check the rule directly.
				err := pure.CheckIdempotencyKey(c.key)
				if pure.CodeOf(err) != pure.Code(c.code) {
					t.Fatalf("%v", err)
				}
				return
			}
			a := w.call("POST", "/requests", c.client, c.key, c.body)
			mustStatus(t, c.name, a, c.status, c.code)
			if c.same && a.str("request_id") != id {
				t.Fatalf("another request %s, want %s", a.str("request_id"), id)
			}
			if c.status >= 400 && len(w.srv.Store().Requests("")) != before {
				t.Fatal("a refused request was recorded")
			}
			if c.client == agentB && a.str("request_id") == id {
				t.Fatal("keys are per client")
			}
		})
	}

	// Durable: a new server on the same node knows the key.
	w.stopServer()
	w.startServer()
	a := w.respond(agentA, "key-1", nid)
	if a.status != 200 || a.str("request_id") != id {
		t.Fatalf("after a restart: %d %s", a.status, a.raw)
	}
}

// TestReqBadInput: malformed requests are refused with a code and record
// nothing.
func TestReqBadInput(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond", "negotiation.read")
	for i, c := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"not JSON", `{"operation":`, 400, "bad_argument"},
		{"an unknown member", `{"operation":"offer.respond","target":{"negotiation_id":"` + nid + `"},"x":1}`, 400, "bad_argument"},
		{"an unknown operation", `{"operation":"escrow.drain","target":{"negotiation_id":"` + nid + `"}}`, 400, "unknown_operation"},
		{"an operation not offered", `{"operation":"task.post"}`, 400, "unknown_operation"},
		{"no target", `{"operation":"offer.respond"}`, 400, "bad_target"},
		{"a target of another shape", `{"operation":"offer.respond","target":{"order_ref":"P-1"}}`, 400, "bad_target"},
		{"an upper-case negotiation id", `{"operation":"offer.respond","target":{"negotiation_id":"` + strings.ToUpper(nid) + `"}}`, 400, "bad_target"},
		{"a target for board.read", `{"operation":"board.read","target":{"negotiation_id":"` + nid + `"}}`, 400, "bad_target"},
		{"parameters at creation", `{"operation":"offer.respond","target":{"negotiation_id":"` + nid + `"},"parameters":{"x":1}}`, 400, "bad_argument"},
		{"a body too large", `{"operation":"` + strings.Repeat("x", DefaultMaxBody) + `"}`, 413, "body_too_large"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(w.srv.Store().Requests(""))
			head := w.worker.Ledger().Head()
			a := w.call("POST", "/requests", agentA, "bad-"+string(rune('a'+i)), c.body)
			mustStatus(t, c.name, a, c.status, c.code)
			if len(w.srv.Store().Requests("")) != before || w.worker.Ledger().Head() != head {
				t.Fatal("a refused request changed something")
			}
		})
	}
	// No token at all.
	mustStatus(t, "no token", w.call("POST", "/requests", "", "k", `{"operation":"board.read"}`), 401, "invalid_token")
	// An unknown negotiation: the request fails, nothing is run.
	a := w.call("POST", "/requests", agentA, "k-unknown", `{"operation":"negotiation.read","target":{"negotiation_id":"00000000-0000-4000-8000-000000000000"}}`)
	if a.status != 202 {
		t.Fatalf("a read of an ungranted negotiation: %d %s", a.status, a.raw)
	}
	// Counters that do not hold.
	r := w.respond(agentA, "k-counter", nid)
	pid := r.str("proposal", "id")
	for _, c := range []struct{ name, body, code string }{
		{"no milestones", `{"milestones":[],"reason":"x"}`, "bad_argument"},
		{"a negative amount", `{"milestones":[{"amount":"-1","description":"x"}]}`, "bad_argument"},
		{"a leading zero", `{"milestones":[{"amount":"01","description":"x"}]}`, "bad_argument"},
		{"an amount as a number", `{"milestones":[{"amount":1,"description":"x"}]}`, "bad_argument"},
		{"no description", `{"milestones":[{"amount":"1","description":" "}]}`, "bad_argument"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := w.call("POST", "/proposals/"+pid+"/counter", agentA, "", c.body)
			mustStatus(t, c.name, got, 400, c.code)
			if q, _ := w.srv.Store().Request(r.str("request_id")); len(q.Proposals.Revisions) != 1 {
				t.Fatal("a refused counter made a revision")
			}
		})
	}
	mustStatus(t, "bad approved_by", w.call("POST", "/proposals/"+pid+"/accept", agentA, "", `{"approved_by":"principal"}`), 400, "bad_approved_by")
	mustStatus(t, "an unknown proposal", w.call("POST", "/proposals/prop_op_nothing_r1/accept", agentA, "", nil), 404, "proposal_not_found")
	mustStatus(t, "another client's proposal", w.call("POST", "/proposals/"+pid+"/accept", agentB, "", nil), 404, "proposal_not_found")
}

// TestReqReads: negotiation.read runs at once and its result is the
// node's thread view; board.read is public (any valid token, no grant);
// a request of another client is unknown_request.
func TestReqReads(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "negotiation.read")
	a := w.call("POST", "/requests", agentA, "r1", map[string]any{"operation": "negotiation.read", "target": map[string]string{"negotiation_id": nid}})
	mustStatus(t, "negotiation.read", a, 201, "")
	if a.str("state") != "succeeded" || a.str("result", "negotiationId") != nid || a.get("projections", "poppy") != nil || a.str("projections", "a2a") != "TASK_STATE_COMPLETED" || a.get("proposal") != nil {
		t.Fatalf("read: %s", a.raw)
	}
	id := a.str("request_id")
	g := w.call("GET", "/requests/"+id, agentA, "", nil)
	if g.status != 200 || g.str("result", "negotiationId") != nid || g.get("result", "log") == nil {
		t.Fatalf("GET: %s", g.raw)
	}
	mustStatus(t, "another client's request", w.call("GET", "/requests/"+id, agentB, "", nil), 404, "unknown_request")
	mustStatus(t, "no such request", w.call("GET", "/requests/req_nothing", agentA, "", nil), 404, "unknown_request")
	mustStatus(t, "offer.respond is not granted", w.respond(agentA, "r2", nid), 202, "")

	b := w.call("POST", "/requests", agentB, "b1", map[string]any{"operation": "board.read"})
	mustStatus(t, "board.read without a grant", b, 201, "")
	if b.str("state") != "succeeded" || b.get("result") == nil {
		t.Fatalf("board.read: %s", b.raw)
	}
	// A read on a negotiation the node does not hold fails, known.
	unknown := "00000000-0000-4000-8000-000000000000"
	w.grant(agentB, unknown, "", "negotiation.read")
	u := w.call("POST", "/requests", agentB, "b2", map[string]any{"operation": "negotiation.read", "target": map[string]string{"negotiation_id": unknown}})
	if u.status != 201 || u.str("state") != "failed" || u.str("failure", "code") != "unknown_negotiation" {
		t.Fatalf("unknown negotiation: %s", u.raw)
	}
	mustStatus(t, "unknown path", w.call("GET", "/nothing", agentA, "", nil), 404, "not_found")
}

// TestReqExpiry: a proposal's expires_at passing expires the request when
// it is next read or accepted.
func TestReqExpiry(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond")
	a := w.respond(agentA, "k", nid)
	b := w.respond(agentA, "k2", nid)
	w.skew.Store(int64(901 * time.Second))
	g := w.call("GET", "/requests/"+a.str("request_id"), agentA, "", nil)
	if g.str("state") != "expired" || g.str("proposal", "state") != "expired" {
		t.Fatalf("after expires_at: %s", g.raw)
	}
	mustStatus(t, "accepting an expired proposal", w.call("POST", "/proposals/"+b.str("proposal", "id")+"/accept", agentA, "", nil), 409, "proposal_expired")
	r, _ := w.srv.Store().Request(b.str("request_id"))
	if r.State != pure.StateExpired || len(r.Proposals.Refused) != 1 {
		t.Fatalf("request b: %s %+v", r.State, r.Proposals.Refused)
	}
}

// TestReqRevisionLimit: max_revisions counts revisions, revision 1
// included: two counters, then revision_limit; a negotiation that moves
// when no revision can follow supersedes the current one without a
// successor (accepting it is terms_changed) and fails the request.
func TestReqRevisionLimit(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond")
	a := w.respond(agentA, "k", nid)
	pid := a.str("proposal", "id")
	for i, amount := range []string{"1100", "1200"} {
		c := w.call("POST", "/proposals/"+pid+"/counter", agentA, "", map[string]any{"milestones": []map[string]string{{"amount": amount, "description": "all"}}})
		mustStatus(t, "counter", c, 200, "")
		if c.get("proposal", "limits", "revisions_left") != float64(1-i) {
			t.Fatalf("counter %d: %s", i, c.raw)
		}
		pid = c.str("proposal", "id")
	}
	mustStatus(t, "a third counter", w.call("POST", "/proposals/"+pid+"/counter", agentA, "", map[string]any{"milestones": []map[string]string{{"amount": "1300", "description": "all"}}}), 409, "revision_limit")
	// The principal counters through the node itself: the negotiation
	// moves under revision 3, and no fourth revision may follow.
	if _, err := w.worker.Counter(t.Context(), nid, nodeCounter(1250)); err != nil {
		t.Fatal(err)
	}
	g := w.call("GET", "/requests/"+a.str("request_id"), agentA, "", nil)
	if g.str("state") != "failed" || g.str("failure", "code") != "revision_limit" || g.str("proposal", "state") != "superseded" {
		t.Fatalf("after the move: %s", g.raw)
	}
	mustStatus(t, "accepting revision 3", w.call("POST", "/proposals/"+pid+"/accept", agentA, "", nil), 409, "terms_changed")
}

// TestReqConcurrentSameKey: the same key and body sent at once make one
// request; every answer shows it.
func TestReqConcurrentSameKey(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "negotiation.read", "offer.respond")
	for _, op := range []string{"negotiation.read", "offer.respond"} {
		const n = 8
		ans := make([]resAnswer, n)
		done := make(chan int, n)
		for i := range n {
			go func() {
				ans[i] = w.call("POST", "/requests", agentA, "same-"+op, map[string]any{"operation": op, "target": map[string]string{"negotiation_id": nid}})
				done <- i
			}()
		}
		for range n {
			<-done
		}
		created := 0
		for _, a := range ans {
			if a.status == 201 {
				created++
			} else if a.status != 200 {
				t.Fatalf("%s: %d %s", op, a.status, a.raw)
			}
			if a.str("request_id") != ans[0].str("request_id") {
				t.Fatalf("%s: two requests for one key", op)
			}
		}
		if created < 1 {
			t.Fatalf("%s: no answer says created", op)
		}
		r, _ := w.srv.Store().Request(ans[0].str("request_id"))
		if (op == "negotiation.read" && r.State != pure.StateSucceeded) || (op == "offer.respond" && (r.State != pure.StateProposed || len(r.Proposals.Revisions) != 1)) {
			t.Fatalf("%s: %s %+v", op, r.State, r.Proposals)
		}
	}
}

// TestReqReevaluatedAfterRevocation: a proposed request re-posted after
// its grant was revoked is authorization_required again (202), and
// proposed again once a new grant covers it, with the same proposal.
func TestReqReevaluatedAfterRevocation(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	g := w.grant(agentA, nid, "", "offer.respond")
	w.grant(agentA, nid, "", "negotiation.read") // the token stays valid
	a := w.respond(agentA, "k", nid)
	mustStatus(t, "proposed", a, 201, "")
	if _, err := w.srv.RevokeGrant(t.Context(), g.ID, "principal"); err != nil {
		t.Fatal(err)
	}
	b := w.respond(agentA, "k", nid)
	mustStatus(t, "after the revocation", b, 202, "")
	if b.str("state") != "authorization_required" || b.str("request_id") != a.str("request_id") {
		t.Fatalf("after the revocation: %s", b.raw)
	}
	w.grant(agentA, nid, "", "offer.respond")
	c := w.respond(agentA, "k", nid)
	mustStatus(t, "granted again", c, 200, "")
	if c.str("state") != "proposed" || c.str("proposal", "id") != a.str("proposal", "id") {
		t.Fatalf("granted again: %s", c.raw)
	}
}
