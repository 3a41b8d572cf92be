package node

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/parleynet/parley/approval"
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

// pxpService is the node's PXP (docs/pxp.md, "In the node"): the
// principal's intent cards (the default one, every one sealed, the drafts
// waiting for a passkey), the mandate in front of every envelope the node
// sends, the escalations to the principal and the answers, and the rooms
// node/mcp serves. It owns the cards and their lock (a leaf); a thread's
// PXP state (engine.PXP, the mandate) is the engine's, opened by it with
// the card this service names (cardFor, the engine's Config.CardFor) and
// reached only through Engine.With and Engine.Each or under a lock its
// caller holds.
// It gets what it needs as fields set in New (the engine, the clock, the
// events, the refusals, the node's write, send, approval and spawn
// functions) and at Start (start: the ledger, the node's address, the
// logger); it knows nothing of the transport or the chain, and acts check
// running, the chain and the act table in the node's runner, not here.
type pxpService struct {
	eng    *engine.Engine
	now    func() time.Time
	events *broadcaster
	out    *refusals // this node's envelopes its recipients refused (rooms show them)
	// write records one batch (Node.write).
	write func(ctx context.Context, b *batch, what string) error
	// send sends payload p in t to the addresses to, through the node's
	// one send path (t.mu held; it calls prepare).
	send func(ctx context.Context, t *thread, p negotiation.Payload, to []negotiation.Address) error
	// authorize passes a principal's confirmation through the approval
	// gate and waits for it.
	authorize func(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string) (approval.IntentRequest, error)
	// spawn runs a function on a goroutine the node owns.
	spawn func(func(ctx context.Context))

	// Set at Start (start), before the threads load.
	led  *ledger.Ledger
	self negotiation.Address
	log  *slog.Logger

	mu    sync.Mutex
	card  *negotiation.IntentCard         // the default card, or nil
	cards map[negotiation.Hash]sealedCard // every card sealed by this node
	via   map[negotiation.Hash]negotiation.Via
	// drafts are the cards waiting for the principal's confirmation, by
	// hash, so their approval requests show them in full.
	drafts map[negotiation.Hash]*draftCard
}

// pxpConfig is what the node gives its PXP service in New.
type pxpConfig struct {
	eng       *engine.Engine
	now       func() time.Time
	log       *slog.Logger
	events    *broadcaster
	out       *refusals
	write     func(ctx context.Context, b *batch, what string) error
	send      func(ctx context.Context, t *thread, p negotiation.Payload, to []negotiation.Address) error
	authorize func(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string) (approval.IntentRequest, error)
	spawn     func(func(ctx context.Context))
}

func newPXPService(c pxpConfig) *pxpService {
	return &pxpService{eng: c.eng, now: c.now, log: c.log, events: c.events, out: c.out,
		write: c.write, send: c.send, authorize: c.authorize, spawn: c.spawn,
		cards: map[negotiation.Hash]sealedCard{}, via: map[negotiation.Hash]negotiation.Via{}, drafts: map[negotiation.Hash]*draftCard{}}
}

// start gives the service the ledger, the node's address and its logger
// (at Start, once the ledger is open and before the threads load).
func (s *pxpService) start(led *ledger.Ledger, self negotiation.Address, log *slog.Logger) {
	s.led, s.self, s.log = led, self, log
}

// prepare readies payload p of t for sending at ts (t.mu held): with a
// card, it stamps the card's hash, adds the reviews the card decides for
// the claims the agent left unreviewed, and asks the mandate. A refusal
// that needs the principal pauses an opened negotiation on the question
// (escalate) and returns escalation_required; every other refusal keeps
// the mandate's code. Without a card, PXP members are refused (no_card).
func (s *pxpService) prepare(ctx context.Context, t *thread, p negotiation.Payload, ts time.Time) error {
	s.eng.OpenPXP(t)
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
			s.askConfirmations(t)
		}
		return &Error{Code: CodeOf(err), Msg: "the intent card refuses this " + string(p.MessageType()), Err: err}
	}
	if !t.Opened {
		return &Error{Code: Code(ee.Code), Msg: "outside the principal's intent card; nothing was opened or sent: " + ee.Question, Err: err}
	}
	if eerr := s.escalate(ctx, t, ee.Question, triggerReason(ee.Triggers), p, ts); eerr != nil {
		return eerr
	}
	return &Error{Code: Code(ee.Code), Msg: "paused until the principal answers: " + ee.Question, Err: err}
}

// precheckAccept asks the intent card about the acceptance of the offer
// o before the approval is asked (the signature is not judged), so an
// acceptance the card refuses pauses without a signature request (t.mu
// held).
func (s *pxpService) precheckAccept(ctx context.Context, t *thread, o offerToSign, spec AcceptSpec) error {
	p := &negotiation.TaskAcceptance{AcceptedOfferHash: o.offer, SettlementDigest: o.digest}
	spec.apply(p)
	return s.prepare(ctx, t, p, s.now().UTC().Truncate(time.Millisecond))
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

// check judges an envelope this side built in the mandate as Sent
// will (t.mu held), changing nothing: it refuses what the mandate would.
func (s *pxpService) check(t *thread, env *negotiation.Envelope) error {
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
func (s *pxpService) recordSeat(ctx context.Context, t *thread, agent string, h negotiation.Hash, message string) {
	if agent == "" && message == "" {
		return
	}
	body, err := json.Marshal(engine.SeatBody{Agent: agent, Envelope: h, Message: message})
	if err == nil {
		_, _, err = s.led.Append(ctx, ledger.Record{Kind: KindSeat, NegotiationID: t.ID, Body: body, At: s.now()})
	}
	if err != nil {
		s.log.Warn("seat not recorded", "negotiation", t.ID, "envelope", h, "err", err)
		return
	}
	s.eng.OpenPXP(t)
	if agent != "" {
		t.PXP.Agents[h], t.PXP.Agent = agent, agent
	}
	if message != "" {
		t.PXP.Messages[h] = message
	}
}
