package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// The principal's own words: the pages where the principal reads a
// negotiation's pending question and types the answer, or pastes an
// intent card. Either becomes an approval request (confirm_answer,
// confirm_card) that holds the question and exactly the typed text, or
// the card's hash while the request shows every clause; the browser then
// goes to that request's approval page, where the principal reads it and
// approves it with a passkey. Only then does the node seal the words, via
// web. Nothing else produces via web: the node's API and MCP give api and
// mcp, which bind only once a passkey confirms them.

// MaxAnswer bounds an answer typed on the pages, in bytes.
const MaxAnswer = 2000

// escalationPath reports whether p is the path of one negotiation's
// question page, /escalations/<negotiation id>.
func escalationPath(p string) bool {
	rest, ok := strings.CutPrefix(p, "/escalations/")
	if !ok {
		return false
	}
	_, err := negotiation.ParseNegotiationID(rest)
	return err == nil
}

// questionItem is one pending question of the list.
type questionItem struct {
	NID, Question, Title, AtISO, AtText string
}

func (h *handler) escalationsPage(w http.ResponseWriter, r *http.Request) {
	var items []questionItem
	for _, e := range h.n.Escalations() {
		items = append(items, questionItem{NID: e.NegotiationID, Question: e.Question, Title: e.Title, AtISO: timeISO(e.At), AtText: timeText(e.At)})
	}
	h.render(w, r, http.StatusOK, "escalations", page{Title: "Questions", Nav: "escalations", Body: items})
}

// answerItem is one answer already sealed in a negotiation.
type answerItem struct {
	Question, Answer, Via string
	Confirmed             bool
}

type escalationBody struct {
	NID, Title, Question, Reason string
	Triggers                     []string
	Answers                      []answerItem
}

func (h *handler) escalationPage(w http.ResponseWriter, r *http.Request) {
	nid := r.PathValue("nid")
	if _, err := negotiation.ParseNegotiationID(nid); err != nil {
		h.errorPage(w, r, http.StatusNotFound, "Not found", "There is no negotiation with this id.")
		return
	}
	room, err := h.n.Room(r.Context(), nid)
	if err != nil {
		h.errorPage(w, r, http.StatusNotFound, "Not found", "This node holds no negotiation "+nid+".")
		return
	}
	b := escalationBody{NID: nid, Title: room.Topic}
	for _, e := range h.n.Escalations() {
		if e.NegotiationID == nid {
			b.Question, b.Reason, b.Triggers = e.Question, e.Reason, e.Triggers
			if e.Title != "" {
				b.Title = e.Title
			}
		}
	}
	for _, a := range room.Answers {
		b.Answers = append(b.Answers, answerItem{Question: a.Question, Answer: a.Answer, Via: string(a.Via), Confirmed: a.Confirmed})
	}
	h.render(w, r, http.StatusOK, "escalation", page{Title: "Your node asks you", Nav: "escalations", Body: b})
}

// cardBody is the default card in plain words.
type cardBody struct {
	Lines []node.PlainLine
}

func (h *handler) cardPage(w http.ResponseWriter, r *http.Request) {
	var b cardBody
	if c, err := h.n.DefaultCard(); err == nil {
		if parsed, err := negotiation.ParseIntentCard(c.Card); err == nil {
			b.Lines = node.CardLines(parsed)
		}
	}
	h.render(w, r, http.StatusOK, "card", page{Title: "Intent card", Nav: "card", Body: b})
}

// wordsAnswer is the answer to the pages' answer or card: the request the
// principal approves next, and the page to show it on.
type wordsAnswer struct {
	RequestID string `json:"requestId"`
	// Pending is false when the node's explicit gate decided at once
	// (approval.mode auto on a dev chain).
	Pending bool   `json:"pending"`
	Next    string `json:"next"`
}

type answerBody struct {
	Answer string `json:"answer"`
}

func (h *handler) answer(w http.ResponseWriter, r *http.Request) {
	nid := r.PathValue("nid")
	if _, err := negotiation.ParseNegotiationID(nid); err != nil {
		h.refuse(w, r, http.StatusNotFound, "unknown_negotiation", "no negotiation with this id")
		return
	}
	var b answerBody
	if !h.decode(w, r, &b) {
		return
	}
	b.Answer = strings.TrimSpace(b.Answer)
	if b.Answer == "" || len(b.Answer) > MaxAnswer {
		h.refuse(w, r, http.StatusBadRequest, "bad_argument", fmt.Sprintf("an answer needs text, at most %d bytes", MaxAnswer))
		return
	}
	p, err := h.n.AnswerOnPage(r.Context(), nid, b.Answer)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.words(w, p, "/escalations/"+nid)
}

type sealCardBody struct {
	Card json.RawMessage `json:"card"`
}

func (h *handler) sealCard(w http.ResponseWriter, r *http.Request) {
	var b sealCardBody
	if !h.decode(w, r, &b) {
		return
	}
	if len(b.Card) == 0 || b.Card[0] != '{' {
		h.refuse(w, r, http.StatusBadRequest, "bad_argument", "card must be the card's JSON object")
		return
	}
	p, err := h.n.SealCardOnPage(r.Context(), b.Card)
	if err != nil {
		h.fail(w, r, err) // a card that does not parse: 422 with the card's code
		return
	}
	h.words(w, p, "/card")
}

// words answers the request the principal's words became.
func (h *handler) words(w http.ResponseWriter, p node.PendingApproval, back string) {
	_, err := h.n.Gate().PendingApproval(p.Request.RequestID)
	a := wordsAnswer{RequestID: p.Request.RequestID, Pending: err == nil, Next: back}
	if a.Pending {
		a.Next = "/approvals/" + p.Request.RequestID + "?next=" + back
	}
	h.log.Info("request waits for a passkey", "act", p.Act, "request", p.Request.RequestID, "intent_hash", p.Request.IntentHash)
	h.writeJSON(w, http.StatusOK, a)
}

// revokePasskey starts a passkey's revocation: a revoke_passkey request
// that another passkey approves on its approval page.
func (h *handler) revokePasskey(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	if len(ref) != 32 || strings.Trim(ref, "0123456789abcdef") != "" {
		h.refuse(w, r, http.StatusNotFound, "unknown_passkey", "no passkey with this reference")
		return
	}
	if !h.decode(w, r, &struct{}{}) {
		return
	}
	p, err := h.n.Gate().BeginRevokePasskey(r.Context(), ref)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.words(w, p, "/passkeys")
}
