package vxp

import (
	"context"
	"reflect"
	"testing"

	"github.com/parleynet/parley/negotiation"
	pure "github.com/parleynet/parley/vxp"
)

// TestRelRevocation: a relationship is read and revoked by its agent;
// after DELETE the grant's token is refused (401) on every call at once,
// and the grant shows revoked to the principal's pages.
func TestRelRevocation(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	g := w.grant(agentA, nid, "rel_1", "offer.respond", "negotiation.read")
	a := w.respond(agentA, "k", nid)
	mustStatus(t, "granted", a, 201, "")
	id := a.str("request_id")

	r := w.call("GET", "/relationships/rel_1", agentA, "", nil)
	if r.status != 200 || r.str("relationship_id") != "rel_1" || r.get("active") != true || len(r.get("company_initiated_actions").([]any)) != 2 {
		t.Fatalf("relationship: %s", r.raw)
	}
	mustStatus(t, "another client's relationship", w.call("GET", "/relationships/rel_1", agentB, "", nil), 404, "unknown_relationship")
	mustStatus(t, "no such relationship", w.call("GET", "/relationships/rel_2", agentA, "", nil), 404, "unknown_relationship")
	mustStatus(t, "a reply with no question open", w.call("POST", "/relationships/rel_1/replies", agentA, "", map[string]string{"answer": "yes"}), 409, "no_question")
	mustStatus(t, "an empty reply", w.call("POST", "/relationships/rel_1/replies", agentA, "", map[string]string{"answer": " "}), 400, "bad_argument")

	d := w.call("DELETE", "/relationships/rel_1", agentA, "", nil)
	if d.status != 200 || d.get("active") != false || d.str("revoked_at") == "" {
		t.Fatalf("DELETE: %s", d.raw)
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/requests/" + id},
		{"GET", "/requests/" + id + "/proof"},
		{"POST", "/proposals/" + a.str("proposal", "id") + "/accept"},
		{"GET", "/relationships/rel_1"},
	} {
		mustStatus(t, c.method+" "+c.path+" after the revocation", w.call(c.method, c.path, agentA, "", nil), 401, "invalid_token")
	}
	mustStatus(t, "a new request after the revocation", w.respond(agentA, "k2", nid), 401, "invalid_token")
	if got, _ := w.srv.Store().Grant(g.ID); got.Revoked == nil {
		t.Fatal("the grant is not revoked in the store")
	}
	if r, _ := w.srv.Store().Request(id); r.State != "proposed" {
		t.Fatalf("the revocation changed the request: %s", r.State)
	}
}

// TestRelRevokedGrantAmongOthers: a token whose one grant was revoked but
// another holds goes on with the other only: the revoked grant's
// negotiation is no longer covered (403), the other's is.
func TestRelRevokedGrantAmongOthers(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	other := w.propose(2000)
	g1 := w.grant(agentA, nid, "", "negotiation.read")
	w.grant(agentA, other, "", "negotiation.read")
	a := w.call("POST", "/requests", agentA, "k1", map[string]any{"operation": "negotiation.read", "target": map[string]string{"negotiation_id": nid}})
	mustStatus(t, "read", a, 201, "")
	if _, err := w.srv.RevokeGrant(t.Context(), g1.ID, "principal"); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, "a read of the revoked grant's request", w.call("GET", "/requests/"+a.str("request_id"), agentA, "", nil), 403, "insufficient_scope")
	b := w.call("POST", "/requests", agentA, "k2", map[string]any{"operation": "negotiation.read", "target": map[string]string{"negotiation_id": other}})
	mustStatus(t, "a read the other grant covers", b, 201, "")
	c := w.call("POST", "/requests", agentA, "k3", map[string]any{"operation": "negotiation.read", "target": map[string]string{"negotiation_id": nid}})
	mustStatus(t, "a new read of the revoked negotiation", c, 202, "")
}

// TestRelAgentBook: the principal's pages see each agent with its grants
// in plain words and its requests, and revoke an agent's grants.
func TestRelAgentBook(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	w.grant(agentA, nid, "", "offer.respond", "negotiation.read")
	w.respond(agentA, "k", nid)
	w.call("POST", "/requests", agentB, "k", map[string]any{"operation": "board.read"})
	agents := w.srv.Agents()
	if len(agents) != 2 || agents[0].ClientID != agentA || agents[1].ClientID != agentB {
		t.Fatalf("agents: %+v", agents)
	}
	a := agents[0]
	want := []string{"offer.respond on negotiation " + nid, "negotiation.read on negotiation " + nid}
	if len(a.Grants) != 1 || !reflect.DeepEqual(a.Grants[0].Lines, want) || !a.Grants[0].Active || len(a.Requests) != 1 || a.Requests[0].State != "proposed" || a.Requests[0].NegotiationID != nid {
		t.Fatalf("agent a: %+v", a)
	}
	if len(agents[1].Grants) != 0 || len(agents[1].Requests) != 1 {
		t.Fatalf("agent b: %+v", agents[1])
	}
	n, err := w.srv.RevokeAgent(context.Background(), agentA, "principal")
	if err != nil || n != 1 {
		t.Fatalf("revoked %d: %v", n, err)
	}
	if n, _ := w.srv.RevokeAgent(context.Background(), agentA, "principal"); n != 0 {
		t.Fatal("a second revocation revoked again")
	}
	if g := w.srv.Agents()[0].Grants[0]; g.Active || g.RevokedAt.IsZero() {
		t.Fatalf("after RevokeAgent: %+v", g)
	}
	mustStatus(t, "a call after RevokeAgent", w.call("GET", "/requests/nothing", agentA, "", nil), 401, "invalid_token")
}

// workerCard asks the worker's principal when an offer totals less than
// 0.3 ETH.
const workerCard = `{"pxp":"0","principal":{"name":"Sam","role":"translator"},"goal":"Win translation work.",
 "must_haves":[{"text":"at least 0.3 ETH","rule":"total >= eth(\"0.3\")"}]}`

// TestRelReply: an accept outside the principal's card fails with the
// node's escalation_required (nothing signed) and the node asks its
// principal; the agent holding the relationship answers it, recorded as
// relayed (via api) and unconfirmed; with no question open, no_question.
func TestRelReply(t *testing.T) {
	w := newWorld(t)
	if _, err := w.worker.SealDefaultCard(t.Context(), []byte(workerCard), negotiation.ViaAPI); err != nil {
		t.Fatal(err)
	}
	nid := w.propose(1000)
	w.grant(agentA, nid, "rel_q", "offer.respond")
	w.grant(agentB, "00000000-0000-4000-8000-000000000000", "rel_other", "offer.respond")
	a := w.respond(agentA, "k", nid)
	mustStatus(t, "accept", w.call("POST", "/proposals/"+a.str("proposal", "id")+"/accept", agentA, "", nil), 202, "")
	r := w.waitState(a.str("request_id"), pure.StateFailed)
	if r.Failure == nil || r.Failure.Code != string(negotiation.CodeEscalationRequired) || len(r.Effects) != 0 {
		t.Fatalf("failure %+v effects %+v", r.Failure, r.Effects)
	}
	if len(w.worker.Escalations()) != 1 {
		t.Fatalf("escalations: %+v", w.worker.Escalations())
	}
	mustStatus(t, "a relationship on another negotiation", w.call("POST", "/relationships/rel_other/replies", agentB, "", map[string]string{"answer": "yes"}), 409, "no_question")
	rep := w.call("POST", "/relationships/rel_q/replies", agentA, "", map[string]string{"answer": "Yes, accept 1000 wei."})
	if rep.status != 200 || rep.str("via") != "api" || rep.get("confirmed") != false || rep.str("negotiation_id") != nid || rep.str("question") == "" {
		t.Fatalf("reply: %d %s", rep.status, rep.raw)
	}
	if len(w.worker.Escalations()) != 0 {
		t.Fatal("the question is still open")
	}
	mustStatus(t, "a second reply", w.call("POST", "/relationships/rel_q/replies", agentA, "", map[string]string{"answer": "yes"}), 409, "no_question")
}
