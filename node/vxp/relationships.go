package vxp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
	pure "github.com/parleynet/parley/vxp"
)

// escalator is what the replies need of the node beyond Backend: the
// questions its negotiations wait on and the relayed answer. *node.Node
// is one; a Backend that is not answers no_question.
type escalator interface {
	Escalations() []node.PendingEscalation
	AnswerEscalation(ctx context.Context, nid, answer string, via negotiation.Via) (negotiation.PrincipalAnswer, error)
}

var _ escalator = (*node.Node)(nil)

// relationshipView is a relationship as its agent reads it.
type relationshipView struct {
	RelationshipID       string        `json:"relationship_id"`
	ClientID             string        `json:"client_id"`
	AuthorizationDetails []pure.Detail `json:"authorization_details"`
	Actions              []string      `json:"company_initiated_actions"`
	GrantedAt            string        `json:"granted_at"`
	ExpiresAt            string        `json:"expires_at"`
	RevokedAt            string        `json:"revoked_at,omitempty"`
	Active               bool          `json:"active"`
}

func relView(g Grant, now time.Time) relationshipView {
	v := relationshipView{
		RelationshipID: g.RelationshipID, ClientID: g.ClientID, AuthorizationDetails: g.Details,
		Actions: g.RelationshipActions, GrantedAt: g.GrantedAt.UTC().Format(pure.TimeFormat),
		ExpiresAt: g.ExpiresAt.UTC().Format(pure.TimeFormat), Active: g.Active(now),
	}
	if v.Actions == nil {
		v.Actions = []string{}
	}
	if g.Revoked != nil {
		v.RevokedAt = g.Revoked.UTC().Format(pure.TimeFormat)
	}
	return v
}

// ownRelationship returns the grant holding the path's relationship, of
// the caller's client: unknown_relationship otherwise.
func (s *Server) ownRelationship(r *http.Request, c *Caller) (Grant, error) {
	id := r.PathValue("id")
	g, ok := s.store.GrantByRelationship(id)
	if !ok || g.ClientID != c.ClientID {
		return Grant{}, &pure.Error{Code: pure.CodeUnknownRelationship, Field: "relationship_id", Msg: fmt.Sprintf("%q names no relationship of this client", id)}
	}
	return g, nil
}

// getRelationship is GET /v1/relationships/{id}.
func (s *Server) getRelationship(w http.ResponseWriter, r *http.Request, c *Caller) {
	g, err := s.ownRelationship(r, c)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, relView(g, s.cfg.Now()))
}

// deleteRelationship is DELETE /v1/relationships/{id}: the grant holding
// it is revoked at once (a vxp.grant.revoked entry), so its tokens are
// refused from the next call on.
func (s *Server) deleteRelationship(w http.ResponseWriter, r *http.Request, c *Caller) {
	g, err := s.ownRelationship(r, c)
	if err != nil {
		writeError(w, err)
		return
	}
	if _, err := s.store.RevokeGrant(s.ctx, g.ID, "agent "+c.ClientID, s.cfg.Now()); err != nil {
		writeError(w, err)
		return
	}
	g, _ = s.store.Grant(g.ID)
	writeJSON(w, http.StatusOK, relView(g, s.cfg.Now()))
}

// replyBody is a reply to the closed question the node asked.
type replyBody struct {
	Answer string `json:"answer"`
	// NegotiationID names the negotiation when the relationship covers
	// several with a question open.
	NegotiationID string `json:"negotiation_id,omitempty"`
}

// replyView is what a reply answers: the question, the answer recorded
// as relayed by the agent (via api), unconfirmed until the principal
// confirms it with a passkey.
type replyView struct {
	NegotiationID string `json:"negotiation_id"`
	Question      string `json:"question"`
	Answer        string `json:"answer"`
	Via           string `json:"via"`
	Confirmed     bool   `json:"confirmed"`
}

// postReply is POST /v1/relationships/{id}/replies: the agent answers a
// closed question the node asked the principal on a negotiation its
// grant covers. The answer is relayed (as through the node's API): the
// negotiation resumes, but binding acts resting on it wait until the
// principal confirms it with a passkey (PXP). No question open:
// no_question (409).
func (s *Server) postReply(w http.ResponseWriter, r *http.Request, c *Caller) {
	g, err := s.ownRelationship(r, c)
	if err != nil {
		writeError(w, err)
		return
	}
	if !g.Active(s.cfg.Now()) {
		writeError(w, &pure.Error{Code: pure.CodeInvalidToken, Msg: "the relationship was revoked or expired"})
		return
	}
	raw, err := readBody(r, false)
	if err != nil {
		writeError(w, err)
		return
	}
	var body replyBody
	if err := strictjson.Unmarshal(raw, &body); err != nil {
		writeError(w, badBody(err))
		return
	}
	if strings.TrimSpace(body.Answer) == "" {
		writeError(w, &pure.Error{Code: pure.CodeBadArgument, Field: "answer", Msg: "empty"})
		return
	}
	esc, ok := s.b.(escalator)
	var open []node.PendingEscalation
	if ok {
		for _, e := range esc.Escalations() {
			if covered(g, e.NegotiationID) && (body.NegotiationID == "" || body.NegotiationID == e.NegotiationID) {
				open = append(open, e)
			}
		}
	}
	switch {
	case len(open) == 0:
		writeError(w, &pure.Error{Code: pure.CodeNoQuestion, Field: "relationship_id", Msg: "no question is open on a negotiation this relationship covers"})
		return
	case len(open) > 1:
		writeError(w, &pure.Error{Code: pure.CodeBadArgument, Field: "negotiation_id", Msg: "questions are open on several negotiations: name one"})
		return
	}
	q := open[0]
	a, err := esc.AnswerEscalation(s.ctx, q.NegotiationID, body.Answer, negotiation.ViaAPI)
	if err != nil {
		code := node.CodeOf(err)
		if code == "" {
			writeError(w, err)
			return
		}
		writeError(w, &pure.Error{Code: pure.CodeNoQuestion, Field: "relationship_id", Msg: err.Error(), Err: err})
		return
	}
	writeJSON(w, http.StatusOK, replyView{NegotiationID: q.NegotiationID, Question: q.Question, Answer: body.Answer, Via: string(a.Via), Confirmed: a.Confirmed})
}

// covered reports whether some entry of g names negotiation nid.
func covered(g Grant, nid string) bool {
	for _, d := range g.Details {
		if d.Identifier == nid {
			return true
		}
	}
	return false
}
