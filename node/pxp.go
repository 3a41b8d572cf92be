package node

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/node/gate"
)

// Ledger kinds of the node's PXP records (engine.KindPXPObject and the
// others; docs/pxp.md, "In the node").
const (
	KindPXPObject       = engine.KindPXPObject
	KindAnswerConfirmed = engine.KindAnswerConfirmed
	KindSeat            = engine.KindSeat
	KindRoomOpened      = engine.KindRoomOpened
)

// Codes of the node's PXP refusals (the mandate's own come from
// negotiation: escalation_required, paused, claim_untagged, ...).
const (
	// CodeNoCard refuses PXP fields (claims, reviews, dependsOn, an
	// escalation) in a negotiation that runs without a sealed intent card.
	CodeNoCard Code = "no_card"
)

// The acts a principal confirms with a passkey that are not acts of a
// negotiation's money: sealing a card an agent drafted, and confirming an
// answer an agent relayed. They pass through the same gate as GatedActs
// (node/gate names them and their tools).
const (
	ActConfirmCard    = gate.ActConfirmCard
	ActConfirmAnswer  = gate.ActConfirmAnswer
	ToolCardConfirm   = gate.ToolCardConfirm
	ToolAnswerConfirm = gate.ToolAnswerConfirm
)

// Event kinds of the node's PXP records.
const (
	// EventCard: an intent card was sealed (the node's default card has
	// no negotiation).
	EventCard EventKind = "card"
	// EventEscalation: a negotiation paused on a question to the
	// principal.
	EventEscalation EventKind = "escalation"
	// EventAnswer: the principal answered, or confirmed a relayed answer.
	EventAnswer EventKind = "answer"
)

// PXPFields are the PXP members an agent adds to an act's envelope:
// tagged claims, reviews of the other side's claims (those the card
// decides are added by the node), the claim ids an offer or an
// acceptance depends on, and a message for the other side's people (sent
// in the payload's text member where its type has one, else kept in this
// node's ledger).
type PXPFields struct {
	Claims    []negotiation.Claim  `json:"claims,omitempty"`
	Reviews   []negotiation.Review `json:"reviews,omitempty"`
	DependsOn []string             `json:"dependsOn,omitempty"`
	Message   string               `json:"message,omitempty"`

	agent  string             // the agent in the seat (rooms), for the ledger
	status negotiation.Status // the status an agent set (rooms)
}

// apply copies f's claims, reviews and dependsOn into p.
func (f PXPFields) apply(p negotiation.Payload) {
	px := p.Proxy()
	px.Claims = slices.Clone(f.Claims)
	px.Reviews = slices.Clone(f.Reviews)
	px.DependsOn = slices.Clone(f.DependsOn)
	if f.status != "" {
		px.Status = f.status
	}
}

// pxpPrepare readies payload p of t for sending at ts (t.mu held): with a
// card, it stamps the card's hash, adds the reviews the card decides for
// the claims the agent left unreviewed, and asks the mandate. A refusal
// that needs the principal pauses an opened negotiation on the question
// (escalate) and returns escalation_required; every other refusal keeps
// the mandate's code. Without a card, PXP members are refused (no_card).
func (n *Node) pxpPrepare(ctx context.Context, t *thread, p negotiation.Payload, ts time.Time) error {
	n.eng.OpenPXP(t)
	px := p.Proxy()
	m := t.PXP.Mandate
	if m == nil {
		if len(px.Claims) > 0 || len(px.Reviews) > 0 || len(px.DependsOn) > 0 || px.Status != "" || px.Escalation != nil {
			return fail(CodeNoCard, "negotiation %s runs without an intent card: claims, reviews and escalations need one", t.ID)
		}
		return nil
	}
	m.Stamp(p)
	if px.Status == "" {
		// PXP's status: an acceptance agrees; an offer continues.
		switch p.(type) {
		case *negotiation.TaskAcceptance:
			px.Status = negotiation.StatusAgree
		case *negotiation.TaskProposal, *negotiation.TaskCounterOffer:
			px.Status = negotiation.StatusContinue
		}
	}
	stakes := offerTermsOf(p)
	if acc, ok := p.(*negotiation.TaskAcceptance); ok {
		if cur := t.Th.Current(); cur != nil && cur.Hash() == acc.AcceptedOfferHash {
			stakes = cur.Terms
		}
	}
	reviewed := map[string]bool{}
	for _, r := range px.Reviews {
		reviewed[r.ClaimID] = true
	}
	for _, r := range m.AutoReviews(stakes, ts) {
		if !reviewed[r.ClaimID] {
			px.Reviews = append(px.Reviews, r)
		}
	}
	err := m.Outgoing(p, nil, ts)
	if err == nil {
		return nil
	}
	var ee *negotiation.EscalationError
	if !errors.As(err, &ee) {
		if negotiation.CodeOf(err) == negotiation.CodeAnswerUnconfirmed {
			n.askConfirmations(t)
		}
		return &Error{Code: CodeOf(err), Msg: "the intent card refuses this " + string(p.MessageType()), Err: err}
	}
	if !t.Opened {
		return &Error{Code: Code(ee.Code), Msg: "outside the principal's intent card; nothing was opened or sent: " + ee.Question, Err: err}
	}
	if eerr := n.escalateLocked(ctx, t, ee.Question, triggerReason(ee.Triggers), p, ts); eerr != nil {
		return eerr
	}
	return &Error{Code: Code(ee.Code), Msg: "paused until the principal answers: " + ee.Question, Err: err}
}

// offerTermsOf returns the terms p offers, or nil.
func offerTermsOf(p negotiation.Payload) *negotiation.Terms {
	switch v := p.(type) {
	case *negotiation.TaskProposal:
		return &v.Terms
	case *negotiation.TaskCounterOffer:
		return &v.Terms
	}
	return nil
}

// pxpCheck judges an envelope this side built in the mandate as Sent
// will (t.mu held), changing nothing: it refuses what the mandate would.
func (n *Node) pxpCheck(t *thread, env *negotiation.Envelope) error {
	if t.PXP == nil || t.PXP.Mandate == nil || env.IsAnnouncement() {
		return nil
	}
	if err := t.PXP.Mandate.Outgoing(env.Payload, nil, env.Timestamp); err != nil {
		return &Error{Code: CodeOf(err), Msg: "the intent card refuses this " + string(env.Type), Err: err}
	}
	return nil
}

// recordSeat records the agent that sat in this side's seat for envelope
// h and a message no payload member carried (t.mu held); nothing when
// both are empty. A failure is logged: the envelope is sent already.
func (n *Node) recordSeat(ctx context.Context, t *thread, agent string, h negotiation.Hash, message string) {
	if agent == "" && message == "" {
		return
	}
	body, err := json.Marshal(engine.SeatBody{Agent: agent, Envelope: h, Message: message})
	if err == nil {
		_, _, err = n.led.Append(ctx, ledger.Record{Kind: KindSeat, NegotiationID: t.ID, Body: body, At: n.now()})
	}
	if err != nil {
		n.log.Warn("seat not recorded", "negotiation", t.ID, "envelope", h, "err", err)
		return
	}
	n.eng.OpenPXP(t)
	if agent != "" {
		t.PXP.Agents[h], t.PXP.Agent = agent, agent
	}
	if message != "" {
		t.PXP.Messages[h] = message
	}
}
