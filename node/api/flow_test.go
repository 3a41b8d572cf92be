package api

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// enrol registers a new software key as the first passkey of s's node,
// over HTTP: the enrolment token of its data directory (no route issues
// one), the creation options, the key's attestation. It returns the key.
func (s *served) enrol(label string) *approval.SoftwareKey {
	s.t.Helper()
	tok, err := node.IssueEnrolToken(s.t.Context(), s.Config().DataDir, time.Now(), 0)
	if err != nil {
		s.t.Fatal(err)
	}
	var o PasskeyOptions
	r := s.post("/v1/passkeys/options", PasskeyRequest{Token: tok, Label: label, Software: true}, http.StatusOK, &o)
	checkSchema(s.t, "PasskeyOptions", r.body)
	key := newKey(s.t, o.WebAuthn)
	resp, err := key.Create(o.Creation)
	if err != nil {
		s.t.Fatal(err)
	}
	var pk Passkey
	r = s.post("/v1/passkeys/credential", PasskeyCredentialRequest{Session: o.Session, Response: resp}, http.StatusCreated, &pk)
	checkSchema(s.t, "Passkey", r.body)
	if pk.Label != label || !pk.Software || pk.Ref == "" {
		s.t.Fatalf("registered %+v", pk)
	}
	return key
}

// newKey makes a software key for the node info describes.
func newKey(t testing.TB, info WebAuthnInfo) *approval.SoftwareKey {
	t.Helper()
	cfg := approval.DefaultConfig()
	cfg.RPID, cfg.RPName, cfg.Origins, cfg.UserID, cfg.UserName = info.RPID, info.RPName, info.Origins, info.UserID, info.UserName
	key, err := approval.NewSoftwareKey(cfg, info.Origins[0])
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// approveWhenAsked waits until s has one approval request pending for act
// and approves it over HTTP with key: the request's WebAuthn options,
// key's assertion, the receipt. It returns the request.
func approveWhenAsked(s *served, key *approval.SoftwareKey, act node.Act) node.PendingApproval {
	s.t.Helper()
	p := pendingAt(s, act)
	var opts protocol.CredentialAssertion
	r := s.post("/v1/approvals/"+p.Request.RequestID+"/options", Empty{}, http.StatusOK, &opts)
	checkSchema(s.t, "CredentialAssertion", r.body)
	resp, err := key.Get(&opts)
	if err != nil {
		s.t.Fatal(err)
	}
	var rc approval.IntentReceipt
	r = s.post("/v1/approvals/"+p.Request.RequestID+"/assertion", AssertionRequest{Response: resp}, http.StatusOK, &rc)
	checkSchema(s.t, "IntentReceipt", r.body)
	if !rc.Approved() || rc.IntentHash != p.Request.IntentHash || rc.Authenticator == nil || !rc.Authenticator.Software {
		s.t.Fatalf("receipt %+v", rc)
	}
	return p
}

// pendingAt waits until s has one approval request pending, for act, and
// returns it.
func pendingAt(s *served, act node.Act) node.PendingApproval {
	s.t.Helper()
	var pending []node.PendingApproval
	eventually(s.t, "an approval request for "+string(act), func() bool {
		s.get("/v1/approvals", &pending)
		return len(pending) == 1
	})
	checkSchema(s.t, "[]PendingApproval", s.do(call{method: http.MethodGet, path: "/v1/approvals"}).body)
	p := pending[0]
	if p.Act != act || p.Request.IntentHash == "" || p.Title == "" {
		s.t.Fatalf("pending approval %+v, want %s", p, act)
	}
	var one node.PendingApproval
	r := s.do(call{method: http.MethodGet, path: "/v1/approvals/" + p.Request.RequestID})
	if r.status != http.StatusOK || json.Unmarshal(r.body, &one) != nil || one.Request.IntentHash != p.Request.IntentHash {
		s.t.Fatalf("GET the request: %d %s", r.status, r.body)
	}
	checkSchema(s.t, "PendingApproval", r.body)
	return p
}

// actAsync POSTs an act in the background (it waits for its approval);
// the returned function waits for the answer.
func actAsync(s *served, path string, body any) func() reply {
	b, err := json.Marshal(body)
	if err != nil {
		s.t.Fatal(err)
	}
	key := freshKey()
	var r reply
	var wg sync.WaitGroup
	wg.Go(func() { r = s.do(call{method: http.MethodPost, path: path, idem: key, body: b}) })
	return func() reply {
		wg.Wait()
		return r
	}
}

// collect gathers a stream's events until stop says it has what it needs.
func collect(t *testing.T, what string, ch <-chan sseEvent, stop func([]sseEvent) bool) []sseEvent {
	t.Helper()
	var got []sseEvent
	deadline := time.After(60 * time.Second)
	for !stop(got) {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("the stream ended before %s; got %+v", what, got)
			}
			got = append(got, e)
		case <-deadline:
			t.Fatalf("timed out waiting for %s; got %+v", what, got)
		}
	}
	return got
}

func hasState(evs []sseEvent, st negotiation.State) bool {
	return slices.ContainsFunc(evs, func(e sseEvent) bool { return e.kind == "state" && e.data.State == st })
}

// TestNegotiationOverHTTP runs a negotiation through two nodes' APIs: the
// poster posts a task, the worker counters it from its board, both accept
// with approvals signed by their software keys over HTTP, and every answer
// shows the thread's state and its A2A projection. The worker's event
// stream and the poster's stream filtered to the negotiation see it
// happen.
func TestNegotiationOverHTTP(t *testing.T) {
	pn := startNode(t, nodeSpec{name: "poster"})
	wn := startNode(t, nodeSpec{name: "worker", bootstrap: []*node.Node{pn}})
	poster, worker := serve(t, pn, Options{}), serve(t, wn, Options{})
	posterKey, workerKey := poster.enrol("poster's automation"), worker.enrol("worker's automation")
	eventually(t, "both on the task board", func() bool {
		return len(pn.Host().TopicPeers("/parley/taskboard/1")) > 0 && len(wn.Host().TopicPeers("/parley/taskboard/1")) > 0
	})
	var peers []Peer
	poster.get("/v1/peers", &peers)
	if len(peers) != 1 || peers[0].PeerID != wn.PeerID().String() {
		t.Fatalf("the poster's peers: %+v", peers)
	}
	eventually(t, "the worker's EVM address among the poster's peers", func() bool {
		poster.get("/v1/peers", &peers)
		return len(peers) == 1 && peers[0].EVMAddress != nil && *peers[0].EVMAddress == wn.Address()
	})
	workerEvents := worker.stream("")

	var ann node.Announcement
	poster.post("/v1/tasks", node.TaskSpec{
		Title: "Translate the user guide", Category: "translation", Deadline: time.Now().Add(72 * time.Hour),
		Milestones: []node.MilestoneSpec{{Amount: wei(300), Description: "chapters 1-3"}, {Amount: wei(200), Description: "chapters 4-5"}},
	}, http.StatusCreated, &ann)
	if !ann.Own || ann.Poster != pn.Address() {
		t.Fatalf("announcement %+v", ann)
	}
	last := time.Now()
	eventually(t, "the announcement on the worker's board", func() bool {
		if time.Since(last) > 2*time.Second {
			_ = pn.Announce(t.Context(), ann.Hash) // gossip keeps no history
			last = time.Now()
		}
		r := worker.do(call{method: http.MethodGet, path: "/v1/tasks/" + ann.Hash.String()})
		return r.status == http.StatusOK
	})

	var res node.ActResult
	cr := worker.post("/v1/tasks/"+ann.Hash.String()+"/counter", node.CounterSpec{
		Milestones: []node.MilestoneSpec{{Amount: wei(350), Description: "chapters 1-3"}, {Amount: wei(250), Description: "chapters 4-5"}},
		Reason:     "the glossary is long",
	}, http.StatusCreated, &res)
	checkSchema(t, "ActResult", cr.body)
	nid := res.Thread.NegotiationID
	if res.Thread.State != negotiation.StateCountered || res.Thread.A2A != negotiation.A2AInputRequired || res.Envelope == nil || res.Envelope.Type != negotiation.TypeTaskCounterOffer {
		t.Fatalf("the worker's counter: %+v", res)
	}
	posterEvents := poster.stream("?negotiation=" + nid)
	var v node.ThreadView
	eventually(t, "the counter at the poster", func() bool {
		r := poster.do(call{method: http.MethodGet, path: "/v1/negotiations/" + nid})
		return r.status == http.StatusOK && json.Unmarshal(r.body, &v) == nil && v.State == negotiation.StateCountered
	})
	checkSchema(t, "ThreadView", poster.do(call{method: http.MethodGet, path: "/v1/negotiations/" + nid}).body)
	if v.A2A != negotiation.A2AInputRequired || v.Role != negotiation.RolePoster || v.Current == nil || v.Current.Revision != 2 {
		t.Fatalf("the poster's view: %+v", v)
	}

	// The poster accepts; the act waits for the principal's approval.
	wait := actAsync(poster, "/v1/negotiations/"+nid+"/accept", Empty{})
	req := approveWhenAsked(poster, posterKey, node.ActSignSettlement)
	if req.Request.Action.Target != nid {
		t.Fatalf("the approval names %q", req.Request.Action.Target)
	}
	r := wait()
	if r.status != http.StatusOK || json.Unmarshal(r.body, &res) != nil || res.Envelope == nil || res.Envelope.Type != negotiation.TypeTaskAcceptance {
		t.Fatalf("the poster's accept: %d %s", r.status, r.body)
	}

	// The worker accepts the same offer: the negotiation is agreed.
	eventually(t, "the poster's acceptance at the worker", func() bool {
		worker.get("/v1/negotiations/"+nid, &v)
		return slices.ContainsFunc(v.Log, func(r node.RecordView) bool {
			return r.Type == negotiation.TypeTaskAcceptance && r.Sender == pn.Address() && r.Code == "ok"
		})
	})
	wait = actAsync(worker, "/v1/negotiations/"+nid+"/accept", Empty{})
	approveWhenAsked(worker, workerKey, node.ActSignSettlement)
	if r := wait(); r.status != http.StatusOK || json.Unmarshal(r.body, &res) != nil ||
		res.Thread.State != negotiation.StateAgreed || res.Thread.A2A != negotiation.A2AAuthRequired || res.Thread.Agreement == nil {
		t.Fatalf("the worker's accept: %d %s", r.status, r.body)
	}
	eventually(t, "the agreement at the poster", func() bool {
		poster.get("/v1/negotiations/"+nid, &v)
		return v.State == negotiation.StateAgreed
	})
	if v.A2A != negotiation.A2AAuthRequired || v.Agreement.Digest != res.Thread.Agreement.Digest || v.Agreement.Amount != "600" {
		t.Fatalf("the poster's agreement %+v, the worker's %+v", v.Agreement, res.Thread.Agreement)
	}
	var list []node.ThreadView
	checkSchema(t, "[]ThreadView", poster.do(call{method: http.MethodGet, path: "/v1/negotiations"}).body)
	checkSchema(t, "[]Peer", poster.do(call{method: http.MethodGet, path: "/v1/peers"}).body)
	poster.get("/v1/negotiations?state=agreed", &list)
	if len(list) != 1 || list[0].NegotiationID != nid || list[0].A2A != negotiation.A2AAuthRequired {
		t.Fatalf("agreed negotiations: %+v", list)
	}
	poster.get("/v1/negotiations?state=funded", &list)
	if len(list) != 0 {
		t.Fatalf("funded negotiations: %+v", list)
	}

	// The worker's stream saw the announcement, its counter, its approval
	// asked and consumed, and the agreement.
	evs := collect(t, "the worker's events", workerEvents, func(evs []sseEvent) bool { return hasState(evs, negotiation.StateAgreed) })
	for _, want := range []func(e sseEvent) bool{
		func(e sseEvent) bool { return e.kind == "announcement" && e.data.Hash == ann.Hash.String() },
		func(e sseEvent) bool {
			return e.kind == "envelope" && e.data.Type == negotiation.TypeTaskCounterOffer && e.data.Direction == "sent"
		},
		func(e sseEvent) bool { return e.kind == "approval" && e.data.Code == "request-created" },
		func(e sseEvent) bool { return e.kind == "approval" && e.data.Code == "consumed" },
		func(e sseEvent) bool {
			return e.kind == "envelope" && e.data.Type == negotiation.TypeTaskAcceptance && e.data.Direction == "received"
		},
	} {
		if !slices.ContainsFunc(evs, want) {
			t.Fatalf("the worker's stream lacks an event: %+v", evs)
		}
	}
	for i, e := range evs {
		if e.id != strconv.Itoa(i+1) || e.kind != string(e.data.Kind) {
			t.Fatalf("event %d: id %q kind %q data %+v", i, e.id, e.kind, e.data)
		}
	}
	// The poster's filtered stream holds only this negotiation's events.
	evs = collect(t, "the poster's events", posterEvents, func(evs []sseEvent) bool { return hasState(evs, negotiation.StateAgreed) })
	for _, e := range evs {
		if e.data.NegotiationID != nid {
			t.Fatalf("the filtered stream carried %+v", e)
		}
	}

	// A denial over HTTP refuses the act: 403 approval_denied, nothing sent.
	var prop node.ActResult
	poster.post("/v1/tasks/propose", ProposeRequest{Worker: wn.Address(), Task: node.TaskSpec{
		Title: "Proofread", Deadline: time.Now().Add(time.Hour), Milestones: []node.MilestoneSpec{{Amount: wei(10), Description: "all"}},
	}}, http.StatusCreated, &prop)
	nid2 := prop.Thread.NegotiationID
	eventually(t, "the proposal at the worker", func() bool {
		return worker.do(call{method: http.MethodGet, path: "/v1/negotiations/" + nid2}).status == http.StatusOK
	})
	worker.get("/v1/negotiations/"+nid2, &v)
	before := len(v.Log)
	wait = actAsync(worker, "/v1/negotiations/"+nid2+"/accept", Empty{})
	p := pendingAt(worker, node.ActSignSettlement)
	id := p.Request.RequestID
	// The bearer key alone approves nothing: an assertion that is not the
	// principal's is refused and the request still waits.
	if r := worker.post("/v1/approvals/"+id+"/assertion", AssertionRequest{Response: json.RawMessage(`{"id":"forged","type":"public-key"}`)}, http.StatusForbidden, nil); r.errCode() != string(approval.CodeVerificationFailed) {
		t.Fatalf("a forged assertion: %d %s", r.status, r.body)
	}
	var rc approval.IntentReceipt
	dr := worker.post("/v1/approvals/"+id+"/deny", DenyRequest{Reason: "not now"}, http.StatusOK, &rc)
	checkSchema(t, "IntentReceipt", dr.body)
	if rc.Approved() || rc.Assertion != nil || rc.RequestID != id {
		t.Fatalf("denied: %+v", rc)
	}
	if r := wait(); r.status != http.StatusForbidden || r.errCode() != string(node.CodeApprovalDenied) {
		t.Fatalf("a denied accept: %d %s", r.status, r.body)
	}
	worker.get("/v1/negotiations/"+nid2, &v)
	if len(v.Log) != before || v.State != negotiation.StateProposed {
		t.Fatalf("a denied act changed the thread: %+v", v)
	}
	// The request is decided: it is gone, and deciding it again is 404.
	worker.post("/v1/approvals/"+id+"/options", Empty{}, http.StatusNotFound, nil)
	worker.post("/v1/approvals/"+id+"/deny", DenyRequest{}, http.StatusNotFound, nil)
	if r := worker.do(call{method: http.MethodGet, path: "/v1/approvals/" + id}); r.status != http.StatusNotFound {
		t.Fatalf("GET a decided request: %d %s", r.status, r.body)
	}
	// The audit trail shows the denial and the refused assertion, newest
	// first, and no argument value.
	var trail []approval.AuditEvent
	ar := worker.do(call{method: http.MethodGet, path: "/v1/audit?limit=3"})
	if ar.status != http.StatusOK || json.Unmarshal(ar.body, &trail) != nil {
		t.Fatalf("audit: %d %s", ar.status, ar.body)
	}
	checkSchema(t, "[]AuditEvent", ar.body)
	if len(trail) != 3 || trail[0].Event != approval.EventDenied || trail[1].Event != approval.EventAssertionRejected || trail[2].Event != approval.EventRequestCreated {
		t.Fatalf("audit trail %+v", trail)
	}
	if strings.Contains(string(ar.body), pn.Address().String()) {
		t.Fatalf("the audit trail names the counterparty: %s", ar.body)
	}
	var keys []Passkey
	worker.get("/v1/passkeys", &keys)
	if len(keys) != 1 || keys[0].Label != "worker's automation" || keys[0].SignCount != 1 {
		t.Fatalf("the worker's passkeys: %+v", keys)
	}
}

// TestConcurrentRetriesActOnce: requests under one Idempotency-Key that
// arrive while the first is waiting for its approval wait for it and get
// its answer; the act runs once (one approval request, one envelope).
func TestConcurrentRetriesActOnce(t *testing.T) {
	pn := startNode(t, nodeSpec{name: "poster", gate: node.AutoApprove("test")})
	wn := startNode(t, nodeSpec{name: "worker", bootstrap: []*node.Node{pn}})
	poster, worker := serve(t, pn, Options{}), serve(t, wn, Options{})
	wkey := worker.enrol("worker's automation")
	var res node.ActResult
	poster.post("/v1/tasks/propose", ProposeRequest{Worker: wn.Address(), Task: node.TaskSpec{
		Title: "Index", Deadline: time.Now().Add(time.Hour), Milestones: []node.MilestoneSpec{{Amount: wei(10), Description: "all"}},
	}}, http.StatusCreated, &res)
	nid := res.Thread.NegotiationID
	eventually(t, "the proposal at the worker", func() bool {
		return worker.do(call{method: http.MethodGet, path: "/v1/negotiations/" + nid}).status == http.StatusOK
	})
	key := freshKey()
	path := "/v1/negotiations/" + nid + "/accept"
	first := make(chan reply, 1)
	go func() { first <- worker.do(call{method: http.MethodPost, path: path, idem: key, body: []byte(`{}`)}) }()
	var pending []node.PendingApproval
	eventually(t, "the first request waiting for its approval", func() bool {
		worker.get("/v1/approvals", &pending)
		return len(pending) == 1
	})
	const retries = 4
	answers := make(chan reply, retries)
	for range retries {
		go func() { answers <- worker.do(call{method: http.MethodPost, path: path, idem: key, body: []byte(`{}`)}) }()
	}
	eventually(t, "the retries waiting for the first", func() bool { return worker.api.idem.waiting() == retries })
	if worker.api.idem.waiting() != retries || len(wn.Gate().PendingApprovals()) != 1 {
		t.Fatalf("a retry acted: %d approvals pending", len(wn.Gate().PendingApprovals()))
	}
	approveWhenAsked(worker, wkey, node.ActSignSettlement)
	f := <-first
	if f.status != http.StatusOK {
		t.Fatalf("first: %d %s", f.status, f.body)
	}
	for range retries {
		if r := <-answers; r.status != f.status || string(r.body) != string(f.body) || r.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("a retry got %d %s", r.status, r.body)
		}
	}
	var v node.ThreadView
	worker.get("/v1/negotiations/"+nid, &v)
	sent := 0
	for _, rec := range v.Log {
		if rec.Sender == wn.Address() {
			sent++
		}
	}
	if sent != 1 {
		t.Fatalf("the worker sent %d envelopes, want 1 acceptance: %+v", sent, v.Log)
	}
}
