package web_test

import (
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// The poster's card of the page tests: it must never pay more than 0.55
// ETH, and its clause holds markup.
const wordsCard = `{"pxp":"0","principal":{"name":"Dana","role":"buyer"},"goal":"Get the <b>guide</b> translated.",
 "may_agree_to":["a deadline of a week"],
 "must_never":[{"text":"pay more than 0.55 ETH in total","rule":"total > eth(\"0.55\")"}]}`

// TestOwnWordsPages: the principal's own words come only from the pages,
// and only through a passkey over the exact text. The card pasted on
// /card becomes a confirm_card request whose approval page shows every
// clause (escaped) and nothing is sealed before the passkey approves it;
// the question of a paused negotiation is shown on /escalations and its
// page, the typed answer becomes a confirm_answer request holding the
// question and exactly that text, and only the passkey's approval seals
// it, via web and confirmed; the pages refuse an empty answer, an
// unknown negotiation, a card that is not an object, and a next page
// outside their own.
func TestOwnWordsPages(t *testing.T) {
	poster := newSite(t, nodeSpec{name: "poster", web: true})
	worker := newSite(t, nodeSpec{name: "worker", gate: node.AutoApprove("test driver"), bootstrap: []*site{poster}})
	connect(t, poster, worker)
	token, err := node.IssueEnrolToken(t.Context(), poster.Config().DataDir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	key := enrolSoftwareKey(t, poster, token, "laptop")

	// The card.
	if body := poster.call(t, req{path: "/card"}).Body.String(); !strings.Contains(body, `id="no-card"`) || !strings.Contains(body, `id="card-form"`) {
		t.Fatalf("the card page without a card:\n%s", body)
	}
	var r refusal
	if st := poster.post(t, "/api/card", map[string]any{"card": "not an object"}, &r); st != http.StatusBadRequest {
		t.Fatalf("a card that is no object: %d %+v", st, r)
	}
	var words struct {
		RequestID, Next string
		Pending         bool
	}
	if st := poster.post(t, "/api/card", map[string]any{"card": rawJSON(wordsCard)}, &words); st != http.StatusOK || !words.Pending || words.Next != "/approvals/"+words.RequestID+"?next=/card" {
		t.Fatalf("sealing a card on the page: %d %+v", st, words)
	}
	page := poster.call(t, req{path: words.Next}).Body.String()
	for _, want := range []string{"Seal your intent card for «Dana»", "Dana, buyer", html.EscapeString("Get the <b>guide</b> translated."), "May agree to 1", "a deadline of a week",
		"Must never 1", html.EscapeString(`pay more than 0.55 ETH in total (rule: total > eth("0.55"))`), "Must have", "(none)", "Card hash", `data-next="/card"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the card's approval page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<b>guide</b>") {
		t.Fatal("the card's approval page does not escape the goal")
	}
	if _, err := poster.DefaultCard(); node.CodeOf(err) != node.CodeNoCard {
		t.Fatalf("a card was sealed before the passkey: %v", err)
	}
	if st := approveWith(t, poster, key, words.RequestID); st != http.StatusOK {
		t.Fatalf("approving the card: %d", st)
	}
	eventually(t, "the card sealed", func() bool { _, err := poster.DefaultCard(); return err == nil })
	if body := poster.call(t, req{path: "/card"}).Body.String(); !strings.Contains(body, `id="current-card"`) || !strings.Contains(body, "pay more than 0.55 ETH in total") {
		t.Fatalf("the card page after sealing:\n%s", body)
	}

	// A question.
	if _, err := worker.SealDefaultCard(t.Context(), []byte(`{"pxp":"0","principal":{"name":"Sam"},"goal":"Translate."}`), negotiation.ViaAPI); err != nil {
		t.Fatal(err)
	}
	nid := proposal(t, poster, worker, "Translate the guide", eth(500))
	if _, err := worker.Counter(t.Context(), nid, node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: eth(600), Description: "all"}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the counter at the poster", func() bool {
		v, err := poster.Thread(nid)
		return err == nil && v.State == negotiation.StateCountered
	})
	if _, err := poster.Accept(t.Context(), nid); node.CodeOf(err) != node.Code(negotiation.CodeEscalationRequired) {
		t.Fatalf("accepting 0.6 ETH: %v", err)
	}
	q := poster.Escalations()[0].Question
	if body := poster.call(t, req{path: "/escalations"}).Body.String(); !strings.Contains(body, "/escalations/"+nid) || !strings.Contains(body, html.EscapeString(q)) {
		t.Fatalf("the questions page:\n%s", body)
	}
	if body := poster.call(t, req{path: "/escalations/" + nid}).Body.String(); !strings.Contains(body, `id="answer-form"`) || !strings.Contains(body, html.EscapeString(q)) {
		t.Fatalf("the question's page:\n%s", body)
	}
	if st := poster.post(t, "/api/escalations/"+nid+"/answer", map[string]string{"answer": "  "}, &r); st != http.StatusBadRequest {
		t.Fatalf("an empty answer: %d %+v", st, r)
	}
	if st := poster.post(t, "/api/escalations/00000000-0000-4000-8000-000000000000/answer", map[string]string{"answer": "yes"}, &r); st < 400 {
		t.Fatalf("an answer for an unknown negotiation: %d %+v", st, r)
	}
	const answer = `Yes, up to 0.6 ETH <i>for this task</i>.`
	if st := poster.post(t, "/api/escalations/"+nid+"/answer", map[string]string{"answer": answer}, &words); st != http.StatusOK || !words.Pending {
		t.Fatalf("answering on the page: %d %+v", st, words)
	}
	page = poster.call(t, req{path: words.Next}).Body.String()
	for _, want := range []string{"Seal your answer", html.EscapeString(q), html.EscapeString(answer), "typed on your pages", `data-next="/escalations/` + nid + `"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the answer's approval page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<i>for this task</i>") {
		t.Fatal("the answer's approval page does not escape the answer")
	}
	if room, _ := poster.Room(t.Context(), nid); len(room.Answers) != 0 {
		t.Fatal("the answer was sealed before the passkey")
	}
	if body := poster.call(t, req{path: "/approvals/" + words.RequestID + "?next=//elsewhere.example"}).Body.String(); strings.Contains(body, "data-next") {
		t.Fatal("the approval page sends the browser to a page not its own")
	}
	if st := approveWith(t, poster, key, words.RequestID); st != http.StatusOK {
		t.Fatalf("approving the answer: %d", st)
	}
	var room node.RoomView
	eventually(t, "the answer sealed", func() bool {
		room, err = poster.Room(t.Context(), nid)
		return err == nil && len(room.Answers) == 1
	})
	if a := room.Answers[0]; a.Via != negotiation.ViaWeb || !a.Confirmed || a.Answer != answer {
		t.Fatalf("the page's answer: %+v", a)
	}
	if body := poster.call(t, req{path: "/escalations/" + nid}).Body.String(); !strings.Contains(body, `id="no-question"`) || !strings.Contains(body, "yes, with a passkey") {
		t.Fatalf("the question's page after the answer:\n%s", body)
	}
}

// rawJSON is JSON text to embed as it is.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestRevokePage: the passkeys page offers a Revoke button while another
// passkey can approve; a revocation is a revoke_passkey request shown on
// its approval page, refused when the passkey revoked approves it and
// done when another one does; the page then shows the passkey revoked
// and offers no revocation of the last one.
func TestRevokePage(t *testing.T) {
	s := newSite(t, nodeSpec{name: "principal", web: true})
	token, err := node.IssueEnrolToken(t.Context(), s.Config().DataDir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	a := enrolSoftwareKey(t, s, token, "laptop")
	var pending refusal
	if st := s.post(t, "/api/passkeys/options", map[string]string{"label": "phone"}, &pending); st != http.StatusConflict {
		t.Fatalf("a further passkey: %d %+v", st, pending)
	}
	if st := approveWith(t, s, a, pending.RequestID); st != http.StatusOK {
		t.Fatalf("approving the registration: %d", st)
	}
	var opts registrationOptions
	if st := s.post(t, "/api/passkeys/options", map[string]string{"token": pending.Session}, &opts); st != http.StatusOK {
		t.Fatalf("going on: %d", st)
	}
	b, err := approval.NewSoftwareKey(s.Gate().WebAuthnConfig(), s.origin)
	if err != nil {
		t.Fatal(err)
	}
	finishRegistration(t, s, b, opts)
	refA := approval.CredentialRef(a.CredentialID())
	if body := s.call(t, req{path: "/passkeys"}).Body.String(); strings.Count(body, `class="deny revoke"`) != 2 || !strings.Contains(body, `data-ref="`+refA+`"`) {
		t.Fatalf("the passkeys page offers no revocation:\n%s", body)
	}
	var words struct {
		RequestID, Next string
		Pending         bool
	}
	if st := s.post(t, "/api/passkeys/"+refA+"/revoke", struct{}{}, &words); st != http.StatusOK || !words.Pending || words.Next != "/approvals/"+words.RequestID+"?next=/passkeys" {
		t.Fatalf("revoking on the page: %d %+v", st, words)
	}
	page := s.call(t, req{path: words.Next}).Body.String()
	for _, want := range []string{"Revoke the passkey «laptop»", refA, "approve with another passkey"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the revocation's approval page lacks %q:\n%s", want, page)
		}
	}
	// A cannot approve its own revocation: the node does not offer it, and
	// its assertion is refused with the request still waiting.
	var r refusal
	var ao protocol.CredentialAssertion
	if st := s.post(t, "/api/approvals/"+words.RequestID+"/options", struct{}{}, &ao); st != http.StatusOK || len(ao.Response.AllowedCredentials) != 1 {
		t.Fatalf("approval options: %d %+v", st, ao.Response.AllowedCredentials)
	}
	ao.Response.AllowedCredentials = nil
	self, err := a.Get(&ao)
	if err != nil {
		t.Fatal(err)
	}
	if w := s.call(t, req{method: http.MethodPost, path: "/api/approvals/" + words.RequestID + "/finish", body: string(self)}); w.Code != http.StatusForbidden || decodeRefusal(t, w).Code != string(approval.CodeNotAuthorized) {
		t.Fatalf("A approving its own revocation: %d %s", w.Code, w.Body.String())
	}
	if st := approveWith(t, s, b, words.RequestID); st != http.StatusOK {
		t.Fatalf("approving with B: %d", st)
	}
	eventually(t, "A revoked", func() bool {
		creds, _ := s.Gate().Passkeys(t.Context())
		return len(creds) == 2 && creds[0].Revoked()
	})
	body := s.call(t, req{path: "/passkeys"}).Body.String()
	if !strings.Contains(body, "revoked <time") || strings.Contains(body, `class="deny revoke"`) {
		t.Fatalf("the passkeys page after the revocation:\n%s", body)
	}
	if st := s.post(t, "/api/passkeys/"+approval.CredentialRef(b.CredentialID())+"/revoke", struct{}{}, &r); st != http.StatusForbidden || r.Code != string(approval.CodeNotAuthorized) {
		t.Fatalf("revoking the last passkey on the page: %d %+v", st, r)
	}
}
