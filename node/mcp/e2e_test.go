package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/negotiation"
)

// The principals' cards: Alice (poster) must never pay more than 0.55 ETH
// in total and knows the guide's page count; Bob (worker) must be paid at
// least 0.3 ETH. Both written as the PXP reference writes cards (no pxp
// member), with Parley's rules.
var (
	aliceCard = map[string]any{
		"principal":   map[string]any{"name": "Alice", "role": "buyer"},
		"goal":        "Get the user guide translated.",
		"must_never":  []any{map[string]any{"text": "pay more than 0.55 ETH in total", "rule": `total > eth("0.55")`}},
		"known_facts": []any{map[string]any{"text": "The guide has 40 pages", "key": "page_count", "value": 40}},
	}
	bobCard = map[string]any{
		"principal":  map[string]any{"name": "Bob", "role": "translator"},
		"goal":       "Win translation work.",
		"must_haves": []any{map[string]any{"text": "at least 0.3 ETH", "rule": `total >= eth("0.3")`}},
	}
)

// waitTurn calls wait_for_turn until cond holds for the room.
func waitTurn(t *testing.T, cs *sdk.ClientSession, link string, cond func(roomOut) bool) roomOut {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		r := ok[roomOut](t, cs, ToolWaitForTurn, map[string]any{"link": link, "timeout_seconds": 5})
		if cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the room never got there: %+v", r)
		}
		if r.TimedOut != nil && !*r.TimedOut {
			// Actionable but not what cond wants yet (the answer's
			// confirmation, the other side's envelope in flight): look
			// again shortly.
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestNegotiationThroughMCP: two real nodes, each with its own MCP
// endpoint, and an agent on each side driving its principal's seat with
// the Go SDK's client: a room created with the agent key, the counterpart
// taking its seat from the invite, both cards sealed, a proposal with a
// stated claim, a counter-offer with a review, an agreement the node
// refuses because it crosses Alice's must_never (escalation), Alice's
// answer relayed via mcp, both agreements, and the brief naming the
// answer. The ledger records which agent sat in each seat.
func TestNegotiationThroughMCP(t *testing.T) {
	alice, bob := livePair(t)
	a := connect(t, alice.url, alice.key)
	b := connect(t, bob.url, bob.key)

	// Without Alice's key, or with Bob's, no session opens on her node,
	// so no room is made there.
	wantNoSession(t, alice.url, "")
	wantNoSession(t, alice.url, bob.key)
	if n := len(alice.Threads()); n != 0 {
		t.Fatalf("refused sign-ins left %d negotiations", n)
	}

	made := ok[createRoomOut](t, a, ToolCreateRoom, map[string]any{
		"topic": "Translate the user guide", "your_principal": "Alice",
		"counterpart": bob.Address().String(), "counterpart_proxy": "external",
	})
	if made.Role != "poster" || made.InviteLink != "parley://"+bob.PeerID().String()+"/rooms/"+made.RoomID {
		t.Fatalf("create_room: %+v", made)
	}
	aLink := made.YourLink
	joined := ok[roomOut](t, a, ToolJoinRoom, map[string]any{"link": aLink, "agent_name": "Agent A"})
	if joined.Status != "drafting" || !joined.YourTurn {
		t.Fatalf("alice's new room: %+v", joined)
	}
	ok[roomOut](t, a, ToolSealIntentCard, map[string]any{"link": aLink, "card": aliceCard})
	deadline := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	sent := ok[sendOut](t, a, ToolSendEnvelope, map[string]any{
		"link": aLink, "message": "Translate the 40-page guide for 0.5 ETH.", "status": "continue",
		"claims": []any{map[string]any{"text": "page_count = 40", "origin": "stated", "ref": "known_facts[0]"}},
		"proposal": map[string]any{
			"terms":      []any{"title = Translate the user guide", "milestone = 0.3 ETH: chapter 1", "milestone = 0.2 ETH: chapter 2", "deadline = " + deadline},
			"depends_on": []any{"new1"},
		},
	})
	if sent.AcceptedEnvelope == nil || sent.AcceptedEnvelope.Type != "TaskProposal" || sent.AcceptedEnvelope.Proposal.Terms.Total != "0.5 ETH" ||
		len(sent.AcceptedEnvelope.Claims) != 1 || sent.AcceptedEnvelope.Claims[0].ID != "p1" {
		t.Fatalf("alice's proposal: %+v", sent.AcceptedEnvelope)
	}

	// Bob's agent: the invite is for Bob's node; Alice's key does not
	// take a seat there, Bob's does.
	refused(t, a, ToolJoinRoom, map[string]any{"link": made.InviteLink}, "is for node")
	eventually(t, "the proposal at bob's node", func() bool {
		_, err := bob.Room(t.Context(), made.RoomID)
		return err == nil
	})
	wantNoSession(t, bob.url, alice.key)
	bj := ok[roomOut](t, b, ToolJoinRoom, map[string]any{"link": made.InviteLink, "agent_name": "Agent B"})
	bLink := bj.YourLink
	if bLink == "" || bj.You.Role != "worker" {
		t.Fatalf("bob's seat: %+v", bj)
	}
	ok[roomOut](t, b, ToolSealIntentCard, map[string]any{"link": bLink, "card": bobCard})
	br := waitTurn(t, b, bLink, func(r roomOut) bool { return r.YourTurn })
	if len(br.ClaimsToReview) != 1 || br.ClaimsToReview[0].ID != "p1" || br.CurrentOffer == nil || br.CurrentOffer.Terms.Total != "0.5 ETH" {
		t.Fatalf("bob's turn: %+v", br)
	}
	if br.Counterpart.Principal != "Alice" {
		t.Fatalf("bob's room names the counterpart's principal %q, want Alice (from her card, on the wire)", br.Counterpart.Principal)
	}
	// Bob counters at 0.6 ETH, reviewing Alice's claim.
	ok[sendOut](t, b, ToolSendEnvelope, map[string]any{
		"link": bLink, "message": "The glossary is technical: 0.6 ETH.", "status": "continue",
		"reviews":  []any{map[string]any{"claim_id": "p1", "verdict": "accept"}},
		"proposal": map[string]any{"terms": map[string]any{"milestones": []any{map[string]any{"amount": "0.35 ETH", "description": "chapter 1"}, map[string]any{"amount": "0.25 ETH", "description": "chapter 2"}}}},
	})

	// Alice's agent agrees; the node refuses: it crosses her must_never,
	// and the room pauses on one question for her.
	ar := waitTurn(t, a, aLink, func(r roomOut) bool {
		return r.YourTurn && r.CurrentOffer != nil && r.CurrentOffer.Terms.Total == "0.6 ETH"
	})
	if ar.Status != "negotiating" || ar.Counterpart.Principal != "Bob" {
		t.Fatalf("alice's room: %+v", ar)
	}
	refused(t, a, ToolSendEnvelope, map[string]any{"link": aLink, "message": "Agreed.", "status": "agree"}, "escalation_required")
	ar = ok[roomOut](t, a, ToolGetRoom, map[string]any{"link": aLink})
	if ar.Status != "paused" || ar.PendingQuestion == "" || !strings.Contains(ar.NextAction, ar.PendingQuestion) {
		t.Fatalf("alice's paused room: %+v", ar)
	}
	refused(t, a, ToolSendEnvelope, map[string]any{"link": aLink, "message": "Agreed.", "status": "agree"}, "paused")
	question := ar.PendingQuestion
	ar = ok[roomOut](t, a, ToolAnswerEscalation, map[string]any{"link": aLink, "answer": "Yes, up to 0.6 ETH for this task."})
	if ar.PendingQuestion != "" || len(ar.Answers) != 1 || ar.Answers[0].Via != "mcp" || ar.Answers[0].Question != question {
		t.Fatalf("after the answer: %+v", ar)
	}
	// A relayed answer binds once the principal confirmed it (the test
	// gate approves at once).
	eventually(t, "the answer's confirmation", func() bool {
		return ok[roomOut](t, a, ToolGetRoom, map[string]any{"link": aLink}).Answers[0].Confirmed
	})
	ok[sendOut](t, a, ToolSendEnvelope, map[string]any{"link": aLink, "message": "Agreed at 0.6 ETH.", "status": "agree"})

	// Bob agrees to his own offer too: both acceptances make the
	// agreement.
	waitTurn(t, b, bLink, func(r roomOut) bool { return r.YourTurn || r.Status == "agreed" })
	ok[sendOut](t, b, ToolSendEnvelope, map[string]any{"link": bLink, "message": "Deal.", "status": "agree"})
	ar = waitTurn(t, a, aLink, func(r roomOut) bool { return r.Status == "agreed" })
	if !strings.Contains(ar.NextAction, "get_brief") {
		t.Errorf("next action %q", ar.NextAction)
	}

	brief := ok[briefOut](t, a, ToolGetBrief, map[string]any{"link": aLink})
	if brief.Status != "agreed" || !strings.Contains(brief.Markdown, "Yes, up to 0.6 ETH for this task.") || !strings.Contains(brief.Markdown, "Alice") {
		t.Fatalf("alice's brief:\n%s", brief.Markdown)
	}
	var bj2 struct {
		NegotiationID string `json:"negotiationId"`
		Escalations   []struct {
			Answer string `json:"answer"`
			Via    string `json:"via"`
		} `json:"escalations"`
	}
	raw, _ := json.Marshal(brief.Brief)
	if err := json.Unmarshal(raw, &bj2); err != nil || bj2.NegotiationID != made.RoomID || len(bj2.Escalations) == 0 || bj2.Escalations[0].Via != "mcp" {
		t.Fatalf("the brief's record: %s (%v)", raw, err)
	}
	// By room id with the key, the same negotiation's brief (its ledger
	// head may have moved on since).
	if b2 := ok[briefOut](t, a, ToolGetBrief, map[string]any{"room_id": made.RoomID}); b2.RoomID != made.RoomID || !strings.Contains(b2.Markdown, "Yes, up to 0.6 ETH for this task.") {
		t.Errorf("the brief by room id:\n%s", b2.Markdown)
	}

	// The ledger recorded which agent sat in each seat.
	av, err := alice.Room(t.Context(), made.RoomID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range av.Envelopes {
		if e.Ours && e.Agent != "Agent A" {
			t.Errorf("alice's envelope %s: agent %q, want Agent A", e.Type, e.Agent)
		}
	}
	bv, err := bob.Room(t.Context(), made.RoomID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range bv.Envelopes {
		if e.Ours && e.Agent != "Agent B" {
			t.Errorf("bob's envelope %s: agent %q, want Agent B", e.Type, e.Agent)
		}
	}
	if bv.State != negotiation.StateAgreed {
		t.Errorf("bob's state %s", bv.State)
	}
}

// TestParleyToolsThroughMCP: Parley's own tools on real nodes: a task
// posted with the agent key and listed; a counter on the announcement
// from the other node opens a negotiation with its own seat link; the
// seat link then drives it.
func TestParleyToolsThroughMCP(t *testing.T) {
	alice, bob := livePair(t)
	a := connect(t, alice.url, alice.key)
	b := connect(t, bob.url, bob.key)
	wantNoSession(t, alice.url, "")
	post := map[string]any{
		"title": "Translate the user guide", "category": "translation",
		"milestones": []any{map[string]any{"amount": "0.4 ETH", "description": "the guide"}},
		"deadline":   time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339),
	}
	if n := len(alice.Board()); n != 0 {
		t.Fatalf("a refused post put %d tasks on the board", n)
	}
	task := ok[taskOut](t, a, ToolPostTask, post)
	if !task.Own || task.Terms.Total != "0.4 ETH" {
		t.Fatalf("posted: %+v", task)
	}
	list := ok[listTasksOut](t, a, ToolListTasks, map[string]any{})
	if len(list.Tasks) != 1 || list.Tasks[0].Announcement != task.Announcement {
		t.Fatalf("listed: %+v", list)
	}
	eventually(t, "the announcement at bob's node", func() bool { return len(bob.Board()) == 1 })
	opened := ok[actOut](t, b, ToolCounter, map[string]any{
		"announcement": task.Announcement, "reason": "two chapters are diagrams",
		"terms": []any{"milestone = 0.45 ETH: the guide"},
	})
	if opened.YourLink == "" || opened.Type != "TaskCounterOffer" || opened.State != "countered" {
		t.Fatalf("counter on the announcement: %+v", opened)
	}
	// A session opened with the seat link alone drives the seat and
	// nothing that needs the key.
	seat := connectSeat(t, bob.url, opened.YourLink)
	refused(t, seat, ToolListTasks, map[string]any{}, SignInRequired)
	refused(t, seat, ToolPostTask, post, SignInRequired)
	if n := len(bob.Board()); n != 1 {
		t.Fatalf("a refused post left %d tasks on bob's board, want alice's one", n)
	}
	ok[roomOut](t, seat, ToolGetRoom, map[string]any{"link": opened.YourLink})
	r := ok[roomOut](t, b, ToolGetRoom, map[string]any{"link": opened.YourLink})
	if r.RoomID != opened.RoomID || r.CurrentOffer == nil || r.CurrentOffer.Terms.Total != "0.45 ETH" {
		t.Fatalf("bob's room: %+v", r)
	}
	refused(t, b, ToolCounter, map[string]any{"link": opened.YourLink, "terms": []any{"category = design"}}, "keeps the category")
	// A dispute needs a funded task on a chain; the node says why not.
	refused(t, b, ToolOpenDispute, map[string]any{"link": opened.YourLink}, "no_chain")
	// So do the timeout exits, through the same acts.
	refused(t, b, ToolClaimUnanswered, map[string]any{"link": opened.YourLink, "milestone": 0}, "no_chain")
	refused(t, b, ToolReclaimExpired, map[string]any{"link": opened.YourLink}, "no_chain")
	refused(t, b, ToolResolveTimedOut, map[string]any{"link": opened.YourLink}, "no_chain")
	refused(t, b, ToolClaimUnanswered, map[string]any{"link": opened.YourLink, "milestone": -1}, "validating")
	// Only the supervisor a party named vetoes; the worker is not_party,
	// and the tool needs the agent key.
	veto := map[string]any{"negotiation": opened.RoomID, "party": task.Poster, "reason": "over budget"}
	refused(t, b, ToolVeto, veto, "not_party")
	refused(t, seat, ToolVeto, veto, SignInRequired)
	refused(t, b, ToolVeto, map[string]any{"negotiation": opened.RoomID, "party": "0x1", "reason": "over budget"}, "party")
	// So do the acts on the chain's registries and a contract arbitrator.
	refused(t, b, ToolRaiseArbitrator, map[string]any{"link": opened.YourLink}, "no_chain")
	refused(t, b, ToolRegisterIdentity, map[string]any{}, "no_chain")
	refused(t, b, ToolLookupIdentity, map[string]any{"address": task.Poster}, "no_chain")
	refused(t, b, ToolCheckScope, map[string]any{"announcement": task.Announcement}, "no_chain")
	refused(t, seat, ToolRegisterIdentity, map[string]any{}, SignInRequired)
}
