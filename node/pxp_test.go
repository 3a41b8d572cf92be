package node_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// The cards of the PXP tests: the poster must never pay more than 0.55
// ETH in total and knows the guide's page count; the worker must be paid
// at least 0.3 ETH.
const (
	pxpPosterCard = `{"pxp":"0","principal":{"name":"Dana","role":"buyer"},"goal":"Get the user guide translated.",
 "must_never":[{"text":"pay more than 0.55 ETH in total","rule":"total > eth(\"0.55\")"}],
 "known_facts":[{"text":"The guide has 40 pages","key":"page_count","value":40}]}`
	pxpWorkerCard = `{"pxp":"0","principal":{"name":"Sam","role":"translator"},"goal":"Win translation work.",
 "must_haves":[{"text":"at least 0.3 ETH","rule":"total >= eth(\"0.3\")"}]}`
)

// pxpPair is a poster and a worker on loopback, each with a sealed default
// card, and a negotiation the poster proposed at 0.5 ETH.
type pxpPair struct {
	poster, worker *tnode
	nid            string
	posterCard     negotiation.Hash
	workerCard     negotiation.Hash
}

func newPXPPair(t *testing.T, posterOpts ...nodeOpt) *pxpPair {
	t.Helper()
	w := newWorld(t, false)
	// The poster dials the worker, so it finds it again after a restart.
	p := &pxpPair{worker: w.add("worker")}
	p.poster = w.add("poster", append([]nodeOpt{withBootstrap(p.worker)}, posterOpts...)...)
	connect(t, p.poster, p.worker)
	pc, err := p.poster.SealDefaultCard(t.Context(), []byte(pxpPosterCard), negotiation.ViaAPI)
	if err != nil {
		t.Fatal(err)
	}
	wc, err := p.worker.SealDefaultCard(t.Context(), []byte(pxpWorkerCard), negotiation.ViaAPI)
	if err != nil {
		t.Fatal(err)
	}
	p.posterCard, p.workerCard = pc.Hash, wc.Hash
	res, err := p.poster.ProposeTask(t.Context(), p.worker.Address(), spec("Translate the user guide", eth(300), eth(200)))
	if err != nil {
		t.Fatal(err)
	}
	p.nid = res.Thread.NegotiationID
	p.worker.waitState(p.nid, negotiation.StateProposed)
	return p
}

// counter06 is the worker's counter-offer of 0.6 ETH in total.
func counter06(extra node.PXPFields) node.CounterSpec {
	return node.CounterSpec{
		Milestones: []node.MilestoneSpec{{Amount: eth(350), Description: "chapter 1"}, {Amount: eth(250), Description: "chapter 2"}},
		Reason:     "the glossary is technical", PXPFields: extra,
	}
}

// envelopes returns the envelopes of a node's thread nid, decoded.
func envelopes(t *testing.T, n *tnode, nid string) []*negotiation.Envelope {
	t.Helper()
	var out []*negotiation.Envelope
	for e, err := range n.Ledger().ByNegotiation(t.Context(), nid) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != ledger.KindEnvelopeSent && e.Kind != ledger.KindEnvelopeReceived {
			continue
		}
		raw, err := n.Ledger().Object(t.Context(), e.CID)
		if err != nil {
			t.Fatal(err)
		}
		env, err := negotiation.Decode(raw, negotiation.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

// TestPXPEveryEnvelopeCarriesTheCardHash: with both principals' cards
// sealed, every envelope each node sends in the negotiation carries its own
// card's hash; the cards' bodies stay in their nodes (not in the proof
// bundle), and each side's room shows both hashes.
func TestPXPEveryEnvelopeCarriesTheCardHash(t *testing.T) {
	p := newPXPPair(t)
	if _, err := p.worker.Counter(t.Context(), p.nid, node.CounterSpec{Description: "both chapters, glossary in English"}); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateCountered)
	if _, err := p.poster.Accept(t.Context(), p.nid); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster's acceptance at the worker", func() bool {
		v, _ := p.worker.Thread(p.nid)
		return len(v.Log) == 3
	})
	if _, err := p.worker.Accept(t.Context(), p.nid); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateAgreed)
	want := map[negotiation.Address]negotiation.Hash{p.poster.Address(): p.posterCard, p.worker.Address(): p.workerCard}
	for _, n := range []*tnode{p.poster, p.worker} {
		envs := envelopes(t, n, p.nid)
		if len(envs) != 4 {
			t.Fatalf("%s holds %d envelopes, want 4", n.name, len(envs))
		}
		for _, e := range envs {
			h := e.Payload.Proxy().IntentCardHash
			if h == nil || *h != want[e.Sender.EVMAddress] {
				t.Fatalf("%s: %s from %s carries card %v, want %s", n.name, e.Type, e.Sender.EVMAddress, h, want[e.Sender.EVMAddress])
			}
			if st := e.Payload.Proxy().Status; (e.Type == negotiation.TypeTaskAcceptance) != (st == negotiation.StatusAgree) {
				t.Fatalf("%s: %s has status %q", n.name, e.Type, st)
			}
		}
		v, err := n.Room(t.Context(), p.nid)
		if err != nil {
			t.Fatal(err)
		}
		other := p.posterCard
		if n == p.poster {
			other = p.workerCard
		}
		if v.CardHash == nil || *v.CardHash != want[n.Address()] || v.CounterpartCardHash == nil || *v.CounterpartCardHash != other || !v.Ended || v.YourTurn {
			t.Fatalf("%s's room: card %v, counterpart's %v, ended %v, your turn %v", n.name, v.CardHash, v.CounterpartCardHash, v.Ended, v.YourTurn)
		}
	}
	var bundle bytes.Buffer
	if _, err := p.poster.Ledger().Export(t.Context(), p.nid, &bundle); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bundle.Bytes(), []byte("Get the user guide translated.")) || bytes.Contains(bundle.Bytes(), []byte("0.55 ETH")) {
		t.Fatal("the proof bundle carries the poster's card")
	}
	if !bytes.Contains(bundle.Bytes(), []byte(p.posterCard.String())) {
		t.Fatal("the proof bundle does not name the poster's card hash")
	}
}

// TestPXPEscalationPausesUntilTheAnswer: the worker counters at 0.6 ETH;
// the poster's acceptance would cross its must_never, so the node pauses
// the negotiation on one question and signs and sends nothing; every
// other act there is refused with paused, across a restart; the
// principal's answer is sealed as an amendment (a new card hash), the
// acceptance then goes through, and the brief names the amendment as the
// authority for the total and passes the design test.
func TestPXPEscalationPausesUntilTheAnswer(t *testing.T) {
	p := newPXPPair(t)
	if _, err := p.worker.Counter(t.Context(), p.nid, counter06(node.PXPFields{})); err != nil {
		t.Fatal(err)
	}
	before := p.poster.waitState(p.nid, negotiation.StateCountered)

	_, err := p.poster.Accept(t.Context(), p.nid)
	if node.CodeOf(err) != node.Code(negotiation.CodeEscalationRequired) || !strings.Contains(err.Error(), "must_never[0]") {
		t.Fatalf("accepting 0.6 ETH = %v, want escalation_required naming must_never[0]", err)
	}
	if k := kinds(t, p.poster, p.nid); k["envelope.sent"] != 1 || k["approval"] != 0 || k["escalation"] != 1 {
		t.Fatalf("the poster's ledger after the escalation: %v", k)
	}
	esc := p.poster.Escalations()
	if len(esc) != 1 || esc[0].NegotiationID != p.nid || !strings.Contains(esc[0].Question, "pay more than 0.55 ETH in total") ||
		len(esc[0].Triggers) != 1 || esc[0].Triggers[0] != "must_never:must_never[0]" {
		t.Fatalf("pending escalations: %+v", esc)
	}
	paused := func(what string) {
		t.Helper()
		head := p.poster.Ledger().Head()
		if _, err := p.poster.Accept(t.Context(), p.nid); node.CodeOf(err) != node.Code(negotiation.CodePaused) {
			t.Fatalf("%s: accept = %v, want paused", what, err)
		}
		if _, err := p.poster.Counter(t.Context(), p.nid, node.CounterSpec{Description: "cheaper, please"}); node.CodeOf(err) != node.Code(negotiation.CodePaused) {
			t.Fatalf("%s: counter = %v, want paused", what, err)
		}
		if _, err := p.poster.Cancel(t.Context(), p.nid, "never mind"); node.CodeOf(err) != node.Code(negotiation.CodePaused) {
			t.Fatalf("%s: cancel = %v, want paused", what, err)
		}
		if wrote := actWrote(t, p.poster, head); wrote != "" {
			t.Fatalf("%s: a refused act wrote %s to the ledger", what, wrote)
		}
		v, _ := p.poster.Thread(p.nid)
		if len(v.Log) != len(before.Log) {
			t.Fatalf("%s: the poster's thread grew: %+v", what, v.Log)
		}
		room, _ := p.poster.Room(t.Context(), p.nid)
		if room.Escalation == nil || room.Escalation.Question != esc[0].Question || room.YourTurn {
			t.Fatalf("%s: the poster's room: %+v", what, room.Escalation)
		}
	}
	paused("after the escalation")
	p.poster.restart()
	paused("after a restart")
	if got := p.poster.Escalations(); len(got) != 1 || got[0].Question != esc[0].Question || !got[0].At.Equal(esc[0].At) {
		t.Fatalf("escalations after a restart: %+v", got)
	}

	// The principal's own answer is given on the pages (a passkey, here
	// the test's gate, confirms the exact text); a caller that claims via
	// web anywhere else is refused and nothing is sealed.
	if _, err := p.poster.AnswerEscalation(t.Context(), p.nid, "Yes, up to 0.6 ETH for this task.", negotiation.ViaWeb); node.CodeOf(err) != node.CodeViaWebRefused {
		t.Fatalf("an answer claiming via web outside the pages = %v", err)
	}
	if len(p.poster.Escalations()) != 1 {
		t.Fatal("a refused answer was taken")
	}
	if _, err := p.poster.AnswerOnPage(t.Context(), p.nid, " "); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("an empty answer = %v", err)
	}
	answered := pageAnswer(t, p.poster, p.nid, "Yes, up to 0.6 ETH for this task.")
	amended := *answered.CardHash
	if a := answered.Answers[0]; len(answered.Answers) != 1 || !a.Confirmed || a.Via != negotiation.ViaWeb || amended == p.posterCard {
		t.Fatalf("the answer: %+v", answered.Answers)
	}
	if len(p.poster.Escalations()) != 0 {
		t.Fatal("the escalation is still pending after the answer")
	}
	if _, err := p.poster.AnswerOnPage(t.Context(), p.nid, "again"); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("a second answer = %v", err)
	}
	p.poster.restart()
	connect(t, p.poster, p.worker)
	room, err := p.poster.Room(t.Context(), p.nid)
	if err != nil {
		t.Fatal(err)
	}
	if room.Escalation != nil || len(room.Answers) != 1 || !room.Answers[0].Confirmed || *room.CardHash != amended || !room.YourTurn {
		t.Fatalf("the poster's room after the answer and a restart: %+v", room)
	}
	if _, err := p.poster.Accept(t.Context(), p.nid); err != nil {
		t.Fatalf("accepting after the answer: %v", err)
	}
	envs := envelopes(t, p.poster, p.nid)
	if h := envs[len(envs)-1].Payload.Proxy().IntentCardHash; h == nil || *h != amended {
		t.Fatalf("the acceptance carries card %v, want the amended %s", h, amended)
	}
	eventually(t, "the poster's acceptance at the worker", func() bool {
		v, _ := p.worker.Thread(p.nid)
		return len(v.Log) == 3
	})
	if _, err := p.worker.Accept(t.Context(), p.nid); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateAgreed)

	b, err := p.poster.Brief(t.Context(), p.nid)
	if err != nil {
		t.Fatal(err)
	}
	var brief negotiation.Brief
	if err := json.Unmarshal(b.JSON, &brief); err != nil {
		t.Fatal(err)
	}
	total := false
	for _, term := range brief.Terms {
		if term.Term != "total" {
			continue
		}
		for _, au := range term.Authority {
			total = total || (au.Ref == "amendments[0]" && au.Party == p.poster.Address())
		}
	}
	if !total {
		t.Fatalf("the brief does not name amendments[0] as the authority of the total: %s", b.JSON)
	}
	if len(brief.Escalations) != 1 || brief.Escalations[0].Answer != "Yes, up to 0.6 ETH for this task." || brief.Ledger.Seq == 0 {
		t.Fatalf("the brief's escalations: %+v", brief.Escalations)
	}
	if !strings.Contains(b.Markdown, "Yes, up to 0.6 ETH for this task.") || !strings.Contains(b.Markdown, "amendments[0]") {
		t.Fatalf("the brief in Markdown:\n%s", b.Markdown)
	}
}

// TestPXPBadClaimsAreRefused: a claim without an origin, a stated claim
// citing no clause of the card and a claim id of the other side are
// refused with the mandate's code, and nothing is stored or sent; a
// keyed claim the card's known facts decide is reviewed by the node, and
// a claim the card cannot judge must be reviewed by the agent first.
func TestPXPBadClaimsAreRefused(t *testing.T) {
	p := newPXPPair(t)
	for _, c := range []struct {
		claim negotiation.Claim
		code  negotiation.Code
	}{
		{negotiation.Claim{ID: "c1", Text: "The glossary is technical"}, negotiation.CodeClaimUntagged},
		{negotiation.Claim{ID: "c1", Text: "The glossary is technical", Origin: "guessed"}, negotiation.CodeClaimUntagged},
		{negotiation.Claim{ID: "c1", Text: "The glossary is technical", Origin: negotiation.OriginStated}, negotiation.CodeClaimUntagged},
		{negotiation.Claim{ID: "c1", Text: "The glossary is technical", Origin: negotiation.OriginStated, Ref: "known_facts[3]"}, negotiation.CodeClaimUntagged},
		{negotiation.Claim{ID: "c1", Text: "The glossary is technical", Origin: negotiation.OriginSourced}, negotiation.CodeClaimUntagged},
	} {
		head := p.worker.Ledger().Head()
		_, err := p.worker.Counter(t.Context(), p.nid, node.CounterSpec{Description: "v2", PXPFields: node.PXPFields{Claims: []negotiation.Claim{c.claim}}})
		if node.CodeOf(err) != node.Code(c.code) {
			t.Fatalf("claim %+v: %v, want %s", c.claim, err, c.code)
		}
		if wrote := actWrote(t, p.worker, head); wrote != "" {
			t.Fatalf("claim %+v: the refused counter wrote %s to the ledger", c.claim, wrote)
		}
	}
	if v, _ := p.poster.Thread(p.nid); len(v.Log) != 1 {
		t.Fatalf("the poster received something: %+v", v.Log)
	}

	claims := []negotiation.Claim{
		{ID: "pages", Text: "page_count = 40", Origin: negotiation.OriginAssumed},
		{ID: "tone", Text: "The guide is written informally", Origin: negotiation.OriginAssumed},
	}
	if _, err := p.worker.Counter(t.Context(), p.nid, node.CounterSpec{Description: "v2", PXPFields: node.PXPFields{Claims: claims}}); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateCountered)
	room, _ := p.poster.Room(t.Context(), p.nid)
	if len(room.PendingReviews) != 2 {
		t.Fatalf("the poster owes reviews of %+v", room.PendingReviews)
	}
	head := p.poster.Ledger().Head()
	if _, err := p.poster.Accept(t.Context(), p.nid); node.CodeOf(err) != node.Code(negotiation.CodeReviewMissing) || !strings.Contains(err.Error(), "tone") || strings.Contains(err.Error(), "pages") {
		t.Fatalf("accepting without reviewing the claim the card cannot judge = %v", err)
	}
	bad := node.AcceptSpec{PXPFields: node.PXPFields{Reviews: []negotiation.Review{{ClaimID: "tone", Verdict: negotiation.VerdictAccept}, {ClaimID: "pages", Verdict: negotiation.VerdictChallenge}}}}
	if _, err := p.poster.AcceptWith(t.Context(), p.nid, bad); node.CodeOf(err) != node.Code(negotiation.CodeReviewMismatch) {
		t.Fatalf("a review against the card's known fact = %v", err)
	}
	if wrote := actWrote(t, p.poster, head); wrote != "" {
		t.Fatalf("a refused acceptance wrote %s to the ledger", wrote)
	}
	stolen := node.AcceptSpec{PXPFields: node.PXPFields{
		Reviews: []negotiation.Review{{ClaimID: "tone", Verdict: negotiation.VerdictAccept}},
		Claims:  []negotiation.Claim{{ID: "tone", Text: "The guide is written informally", Origin: negotiation.OriginAssumed}},
	}}
	if _, err := p.poster.AcceptWith(t.Context(), p.nid, stolen); node.CodeOf(err) != node.Code(negotiation.CodeClaimRestated) {
		t.Fatalf("re-using the worker's claim id = %v", err)
	}
	good := node.AcceptSpec{PXPFields: node.PXPFields{Reviews: []negotiation.Review{{ClaimID: "tone", Verdict: negotiation.VerdictAccept}}}}
	if _, err := p.poster.AcceptWith(t.Context(), p.nid, good); err != nil {
		t.Fatal(err)
	}
	envs := envelopes(t, p.poster, p.nid)
	got := map[string]negotiation.Verdict{}
	for _, r := range envs[len(envs)-1].Payload.Proxy().Reviews {
		got[r.ClaimID] = r.Verdict
	}
	if len(got) != 2 || got["pages"] != negotiation.VerdictAccept || got["tone"] != negotiation.VerdictAccept {
		t.Fatalf("the acceptance reviews %v, want pages accepted by the card and tone by the agent", got)
	}
}

// confirmGate approves every act at once but holds confirm_answer until
// release is closed, and denies confirm_card of a card an agent drafted
// (via mcp; the test's own cards arrive via api).
type confirmGate struct {
	mu      sync.Mutex
	asked   []node.Act
	release chan struct{}
}

func (g *confirmGate) Decide(ctx context.Context, r node.ApprovalRequest) (node.Decision, error) {
	g.mu.Lock()
	g.asked = append(g.asked, r.Act)
	g.mu.Unlock()
	switch r.Act {
	case node.ActConfirmAnswer:
		select {
		case <-g.release:
		case <-ctx.Done():
			return node.Decision{}, ctx.Err()
		}
	case node.ActConfirmCard:
		var args struct{ Via negotiation.Via }
		if json.Unmarshal(r.Request.Action.Arguments, &args) != nil || args.Via == negotiation.ViaMCP {
			return node.Decision{Approved: false, Method: "test", By: "test"}, nil
		}
	}
	return node.Decision{Approved: true, Method: "test", By: "test"}, nil
}

func (g *confirmGate) count(a node.Act) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, x := range g.asked {
		if x == a {
			n++
		}
	}
	return n
}

// TestPXPRelayedAnswerNeedsThePasskey: an answer an agent relays (via
// mcp) resumes the negotiation, but the acceptance resting on it is
// refused with answer_unconfirmed until the principal confirms it through
// the approval gate; a card an agent drafted is sealed only when the
// principal confirms it (here: denied, nothing sealed).
func TestPXPRelayedAnswerNeedsThePasskey(t *testing.T) {
	g := &confirmGate{release: make(chan struct{})}
	p := newPXPPair(t, withGate(g))
	if _, err := p.poster.SealDefaultCard(t.Context(), []byte(pxpWorkerCard), negotiation.ViaMCP); node.CodeOf(err) != node.CodeApprovalDenied {
		t.Fatalf("sealing a drafted card the principal denies = %v", err)
	}
	if c, err := p.poster.DefaultCard(); err != nil || c.Hash != p.posterCard {
		t.Fatalf("the default card after the denial: %v, %v", c.Hash, err)
	}
	if _, err := p.worker.Counter(t.Context(), p.nid, counter06(node.PXPFields{})); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateCountered)
	if _, err := p.poster.Accept(t.Context(), p.nid); node.CodeOf(err) != node.Code(negotiation.CodeEscalationRequired) {
		t.Fatalf("accept = %v", err)
	}
	room, err := p.poster.Answer(t.Context(), p.nid, "Yes, up to 0.6 ETH for this task.", negotiation.ViaMCP)
	if err != nil {
		t.Fatal(err)
	}
	if room.Escalation != nil || len(room.Answers) != 1 || room.Answers[0].Confirmed || room.Answers[0].Via != negotiation.ViaMCP {
		t.Fatalf("the room after a relayed answer: %+v", room.Answers)
	}
	eventually(t, "the confirmation request", func() bool { return g.count(node.ActConfirmAnswer) == 1 })
	if _, err := p.poster.Accept(t.Context(), p.nid); node.CodeOf(err) != node.Code(negotiation.CodeAnswerUnconfirmed) {
		t.Fatalf("accepting on an unconfirmed answer = %v", err)
	}
	close(g.release)
	eventually(t, "the confirmation", func() bool {
		r, _ := p.poster.Room(t.Context(), p.nid)
		return len(r.Answers) == 1 && r.Answers[0].Confirmed
	})
	if _, err := p.poster.Accept(t.Context(), p.nid); err != nil {
		t.Fatalf("accepting on the confirmed answer: %v", err)
	}
	p.poster.restart()
	r, _ := p.poster.Room(t.Context(), p.nid)
	if len(r.Answers) != 1 || !r.Answers[0].Confirmed {
		t.Fatalf("the confirmation after a restart: %+v", r.Answers)
	}
	if k := kinds(t, p.poster, p.nid); k[node.KindAnswerConfirmed] != 1 || k["card.amended"] != 1 {
		t.Fatalf("the poster's ledger: %v", k)
	}
}

// TestPXPRoomsThroughTheSeat: a room created for an agent opens with the
// agent's proposal; the other side's agent sees it, must review the
// claim its card cannot judge before it agrees, and both agreements make
// the agreement; the seat records which agent sat in it, a card sealed
// for the negotiation is refused once that side has spoken, and the brief
// is readable once agreed.
func TestPXPRoomsThroughTheSeat(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	if _, err := worker.SealDefaultCard(t.Context(), []byte(pxpWorkerCard), negotiation.ViaAPI); err != nil {
		t.Fatal(err)
	}
	if _, err := poster.CreateRoom(t.Context(), node.RoomRequest{Topic: "translation", Counterpart: poster.Address()}); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("a room with oneself = %v", err)
	}
	info, err := poster.CreateRoom(t.Context(), node.RoomRequest{Topic: "Translate the user guide", Principal: "Dana", Counterpart: worker.Address(), Agent: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	if info.Role != negotiation.RolePoster || info.CounterpartPeer != worker.PeerID().String() {
		t.Fatalf("room info: %+v", info)
	}
	nid := info.ID
	v, err := poster.Room(t.Context(), nid)
	if err != nil || !v.YourTurn || v.CardHash != nil || v.Principal != "Dana" || v.Agent != "claude" || v.Topic != "Translate the user guide" {
		t.Fatalf("the new room: %+v, %v", v, err)
	}
	h, err := poster.SealCard(t.Context(), nid, json.RawMessage(pxpPosterCard), negotiation.ViaAPI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := poster.Send(t.Context(), nid, "claude", node.ProxyMessage{Message: "hello"}); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("words alone = %v", err)
	}
	prop := &node.ProxyProposal{Terms: node.ProxyTerms{
		Title: "Translate the user guide", Milestones: []node.MilestoneSpec{{Amount: eth(500), Description: "the guide"}},
		Deadline: spec("x").Deadline,
	}, DependsOn: []string{"pages"}}
	v, err = poster.Send(t.Context(), nid, "claude", node.ProxyMessage{
		Message: "Here is my offer.", Status: negotiation.StatusContinue, Proposal: prop,
		Claims: []negotiation.Claim{{ID: "pages", Text: "page_count = 40", Origin: negotiation.OriginStated, Ref: "known_facts[0]"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Envelopes) != 1 || v.Envelopes[0].Agent != "claude" || v.Envelopes[0].Message != "Here is my offer." || *v.CardHash != h || v.YourTurn {
		t.Fatalf("the room after the proposal: %+v", v)
	}
	if _, err := poster.SealCard(t.Context(), nid, json.RawMessage(pxpPosterCard), negotiation.ViaAPI); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("a new card after speaking = %v", err)
	}
	eventually(t, "the proposal at the worker", func() bool {
		_, err := worker.Thread(nid)
		return err == nil
	})
	wv, err := worker.Wait(t.Context(), nid, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !wv.YourTurn || len(wv.PendingReviews) != 1 || wv.PendingReviews[0].ID != "pages" || wv.CounterpartCardHash == nil || *wv.CounterpartCardHash != h {
		t.Fatalf("the worker's room: %+v", wv)
	}
	if _, err := worker.Send(t.Context(), nid, "codex", node.ProxyMessage{Status: negotiation.StatusAgree}); node.CodeOf(err) != node.Code(negotiation.CodeReviewMissing) {
		t.Fatalf("agreeing without the review = %v", err)
	}
	wv, err = worker.Send(t.Context(), nid, "codex", node.ProxyMessage{Status: negotiation.StatusAgree, Message: "Deal.",
		Reviews: []negotiation.Review{{ClaimID: "pages", Verdict: negotiation.VerdictAccept}}})
	if err != nil {
		t.Fatal(err)
	}
	if last := wv.Envelopes[len(wv.Envelopes)-1]; last.Agent != "codex" || last.Message != "Deal." || last.Status != negotiation.StatusAgree {
		t.Fatalf("the worker's agreement: %+v", last)
	}
	pv, err := poster.Wait(t.Context(), nid, v.Version)
	if err != nil {
		t.Fatal(err)
	}
	for !pv.YourTurn {
		if pv, err = poster.Wait(t.Context(), nid, pv.Version); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := poster.Brief(t.Context(), nid); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("a brief before the agreement = %v", err)
	}
	pv, err = poster.Send(t.Context(), nid, "claude", node.ProxyMessage{Status: negotiation.StatusAgree})
	if err != nil {
		t.Fatal(err)
	}
	if pv.State != negotiation.StateAgreed || !pv.Ended {
		t.Fatalf("the poster's room after both agreed: %s", pv.State)
	}
	b, err := poster.Brief(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Markdown, "Dana") {
		t.Fatalf("the brief names no principal:\n%s", b.Markdown)
	}
	poster.restart()
	pv, err = poster.Room(t.Context(), nid)
	if err != nil || pv.Agent != "claude" || pv.Envelopes[0].Agent != "claude" || pv.Envelopes[0].Message != "Here is my offer." {
		t.Fatalf("the seat after a restart: %+v, %v", pv, err)
	}
	if errors.Is(err, node.ErrNotStarted) {
		t.Fatal(err)
	}
}

// TestPXPDraftedCardNeedsThePrincipalsPasskey: in approval mode passkey, a
// card an agent drafted (via mcp) waits as confirm_card in the principal's
// pending approvals, in plain words; a denial seals nothing, an approval
// with the principal's passkey seals it.
func TestPXPDraftedCardNeedsThePrincipalsPasskey(t *testing.T) {
	w := newWorld(t, false)
	n := w.add("poster", withPasskeys())
	key := enrol(t, n, "laptop")
	seal := func() func() error {
		return runAct(func() error {
			_, err := n.SealDefaultCard(t.Context(), []byte(pxpPosterCard), negotiation.ViaMCP)
			return err
		})
	}
	wait := seal()
	p := pending(t, n, 1)[0]
	if p.Act != node.ActConfirmCard || p.Request.Action.Tool != node.ToolCardConfirm || !strings.Contains(p.Title, "«Dana»") {
		t.Fatalf("pending: %+v", p)
	}
	// The request shows the whole card, every clause with its rule, not
	// only its hash and goal.
	lines := strings.Join(linesOf(p), "\n")
	for _, want := range []string{"Principal: Dana, buyer", "Goal: Get the user guide translated.", `Must never 1: pay more than 0.55 ETH in total (rule: total > eth("0.55"))`,
		"Known fact 1: The guide has 40 pages (page_count = 40)", "Must have: (none)", "Card hash: 0x", "How it arrived: relayed by an agent over MCP"} {
		if !strings.Contains(lines, want) {
			t.Fatalf("the confirm_card request lacks %q:\n%s", want, lines)
		}
	}
	if _, err := n.Gate().DenyApproval(t.Context(), p.Request.RequestID, "not my card"); err != nil {
		t.Fatal(err)
	}
	if err := wait(); node.CodeOf(err) != node.CodeApprovalDenied {
		t.Fatalf("sealing a denied card = %v", err)
	}
	if _, err := n.DefaultCard(); node.CodeOf(err) != node.CodeNoCard {
		t.Fatalf("a denied card was sealed: %v", err)
	}
	wait = seal()
	p = pending(t, n, 1)[0]
	approveWith(t, n, key, p.Request.RequestID)
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if c, err := n.DefaultCard(); err != nil || c.Principal != "Dana" {
		t.Fatalf("the confirmed card: %+v, %v", c, err)
	}
	// A card through the API is no more the principal's word than one
	// an agent drafted: via web is refused outside the pages, and via api
	// waits for the passkey too.
	if _, err := n.SealDefaultCard(t.Context(), []byte(pxpWorkerCard), negotiation.ViaWeb); node.CodeOf(err) != node.CodeViaWebRefused || len(n.Gate().PendingApprovals()) != 0 {
		t.Fatalf("a card claiming via web outside the pages: %v, pending %d", err, len(n.Gate().PendingApprovals()))
	}
	wait = runAct(func() error {
		_, err := n.SealDefaultCard(t.Context(), []byte(pxpWorkerCard), negotiation.ViaAPI)
		return err
	})
	p = pending(t, n, 1)[0]
	if p.Act != node.ActConfirmCard || !strings.Contains(strings.Join(linesOf(p), "\n"), "How it arrived: through the node's API") {
		t.Fatalf("a card via api: %+v", p)
	}
	if _, err := n.Gate().DenyApproval(t.Context(), p.Request.RequestID, ""); err != nil {
		t.Fatal(err)
	}
	if err := wait(); node.CodeOf(err) != node.CodeApprovalDenied {
		t.Fatalf("sealing a denied card via api = %v", err)
	}
	if c, err := n.DefaultCard(); err != nil || c.Principal != "Dana" {
		t.Fatalf("the default card after the denial: %+v, %v", c, err)
	}
}

// actWrote returns the kinds of the entries n's ledger holds after head
// that an act writes ("" for none). The transport's own records of what
// arrives meanwhile (acknowledgements of earlier envelopes, envelopes
// received, chain events) are not the act's and do not count.
func actWrote(t *testing.T, n *tnode, head ledger.Head) string {
	t.Helper()
	var kinds []string
	for e, err := range n.Ledger().Entries(t.Context(), head.Seq+1) {
		if err != nil {
			t.Fatal(err)
		}
		switch e.Kind {
		case ledger.KindOutboxAcked, ledger.KindEnvelopeReceived, ledger.KindChainEvent:
		default:
			kinds = append(kinds, e.Kind)
		}
	}
	return strings.Join(kinds, ", ")
}
