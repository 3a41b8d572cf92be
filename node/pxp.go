package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/node/gate"
)

// Ledger kinds of the node's PXP records besides the ledger's own
// (card.sealed, card.amended, escalation). Every private value (an intent
// card, a question, an answer, a refused attempt) is kept as an object of
// a KindPXPObject entry, which names no negotiation: a negotiation's
// proof bundle carries the objects of its own entries only, so these
// never leave the node. docs/pxp.md ("In the node") describes each body.
const (
	// KindPXPObject stores one private PXP object (an intent card, or the
	// private part of an escalation or an answer): body {what}, object
	// the JSON value. It names no negotiation.
	KindPXPObject = "pxp.object"
	// KindAnswerConfirmed records the principal's passkey confirmation of
	// a relayed answer: body {index, request}.
	KindAnswerConfirmed = "answer.confirmed"
	// KindSeat records which agent sat in this side's seat for an
	// envelope, and the message it gave when no payload member carries
	// it: body {agent?, envelope, message?}.
	KindSeat = "pxp.seat"
	// KindRoomOpened records a room opened before its first envelope:
	// body {topic, principal?, counterpart, counterpartProxy?, agent?}.
	KindRoomOpened = "room.opened"
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

type seatBody struct {
	Agent    string           `json:"agent,omitempty"`
	Envelope negotiation.Hash `json:"envelope"`
	Message  string           `json:"message,omitempty"`
}

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

// privateRecord returns the pxp.object record that stores raw (in JCS
// form) in this node's ledger only, and the CID that names it, so that a
// record of the same batch can refer to it.
func (n *Node) privateRecord(what string, raw []byte) (ledger.Record, string, error) {
	canon, err := negotiation.Canonicalize(raw)
	if err != nil {
		return ledger.Record{}, "", err
	}
	c, err := ledger.ObjectCID(canon, ledger.CodecJSON)
	if err != nil {
		return ledger.Record{}, "", err
	}
	body, _ := json.Marshal(map[string]string{"what": what})
	return ledger.Record{Kind: KindPXPObject, Body: body, Object: canon, At: n.now()}, c.String(), nil
}

// privateValueRecord is privateRecord of v's JSON.
func (n *Node) privateValueRecord(what string, v any) (ledger.Record, string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return ledger.Record{}, "", err
	}
	return n.privateRecord(what, raw)
}

// readPrivate decodes the pxp.object with CID s into v.
func (n *Node) readPrivate(ctx context.Context, s string, v any) error {
	c, err := cid.Decode(s)
	if err != nil {
		return err
	}
	raw, err := n.led.Object(ctx, c)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// openPXP gives t its PXP state when it has none (t.mu held): a thread
// the ledger knows nothing of yet takes the node's default card, or, for
// a negotiation answering this node's announcement, the card the
// announcement carried; a negotiation opened without a card runs without
// one. It does no I/O; the card.sealed record is written with the
// thread's first record (putCard).
func (n *Node) openPXP(t *thread) {
	if t.PXP != nil {
		return
	}
	t.PXP = engine.NewPXP()
	if t.Opened || t.Observer || t.Role == negotiation.RoleArbitrator {
		return
	}
	var sc sealedCard
	ann := t.Params.Announcement
	n.px.mu.Lock()
	switch {
	case ann != nil && ann.Sender.EVMAddress == n.self:
		if h := ann.Payload.Proxy().IntentCardHash; h != nil {
			sc = n.px.cards[*h]
		}
	case n.px.card != nil:
		sc = n.px.cards[n.px.card.Seal()]
	}
	n.px.mu.Unlock()
	if sc.card == nil {
		return
	}
	m, err := n.mandateFor(t, sc.card)
	if err != nil {
		n.log.Error("no mandate", "negotiation", t.ID, "err", err)
		return
	}
	t.PXP.Mandate, t.PXP.CardID = m, sc.cid
}

// mandateFor returns a mandate under card that knows t's announcement
// (the offer a negotiation answering it starts from).
func (n *Node) mandateFor(t *thread, card *negotiation.IntentCard) (*negotiation.Mandate, error) {
	m, err := negotiation.NewMandate(card, n.self)
	if err != nil {
		return nil, err
	}
	if ann := t.Params.Announcement; ann != nil {
		if ann.Sender.EVMAddress == n.self {
			err = m.Sent(ann)
		} else {
			err = m.Received(ann)
		}
		if err != nil {
			return nil, fmt.Errorf("node: the announcement under the card: %w", err)
		}
	}
	return m, nil
}

// putCard adds the card.sealed record of t's card in force when t opened
// to b, once (t.mu held; nothing otherwise). It goes with the thread's
// first records; once b is written the card counts as sealed.
func (n *Node) putCard(b *batch, t *thread) {
	if t.PXP == nil || t.PXP.Mandate == nil || t.PXP.Sealed {
		return
	}
	scope := scopeOpened
	if ann := t.Params.Announcement; ann != nil && ann.Sender.EVMAddress == n.self {
		scope = scopeAnnouncement
	}
	px := t.PXP
	r, err := n.cardSealedRecord(t.ID, px.Mandate.Card(), px.CardID, scope, "")
	if err != nil {
		b.Fail(err)
		return
	}
	b.Put(r, func() {
		px.Sealed = true
		px.Events++
	})
}

// rebuildPXP replaces t's PXP state with one replayed from the ledger
// (t.mu held): the card sealed for the negotiation (the last card.sealed
// entry), then, in ledger order, every envelope this side sent (Sent),
// every effective envelope of the other party (Received), every
// escalation (its refused attempt again, then Escalate), answer (Answer)
// and confirmation (ConfirmAnswer).
func (n *Node) rebuildPXP(ctx context.Context, t *thread) error {
	if !t.Opened {
		t.PXP = nil
		return nil
	}
	px := engine.NewPXP()
	var card *cardSealedBody
	var entries []ledger.Entry
	for e, err := range n.led.ByNegotiation(ctx, t.ID) {
		if err != nil {
			return fmt.Errorf("node: pxp replay %s: %w", t.ID, err)
		}
		switch e.Kind {
		case ledger.KindCardSealed:
			var b cardSealedBody
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return fmt.Errorf("node: pxp replay entry %d: %w", e.Seq, err)
			}
			card = &b
			px.Events++
		case KindRoomOpened:
			var b engine.RoomMeta
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return fmt.Errorf("node: pxp replay entry %d: %w", e.Seq, err)
			}
			px.Room = &b
			if b.Agent != "" {
				px.Agent = b.Agent
			}
		case KindSeat:
			var b seatBody
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return fmt.Errorf("node: pxp replay entry %d: %w", e.Seq, err)
			}
			if b.Agent != "" {
				px.Agents[b.Envelope], px.Agent = b.Agent, b.Agent
			}
			if b.Message != "" {
				px.Messages[b.Envelope] = b.Message
			}
		case ledger.KindEnvelopeSent, ledger.KindEnvelopeReceived, ledger.KindEscalation, ledger.KindCardAmended, KindAnswerConfirmed:
			entries = append(entries, e)
		}
	}
	t.PXP = px
	if card == nil || t.Observer || t.Role == negotiation.RoleArbitrator {
		return nil
	}
	c, err := n.cardByCID(ctx, card.Card)
	if err != nil {
		return fmt.Errorf("node: pxp replay %s: card %s: %w", t.ID, card.Card, err)
	}
	m, err := n.mandateFor(t, c)
	if err != nil {
		return err
	}
	px.Mandate, px.Sealed, px.CardID = m, true, card.Card
	for _, e := range entries {
		if err := n.replayPXP(ctx, t, px, e); err != nil {
			return fmt.Errorf("node: pxp replay %s entry %d: %w", t.ID, e.Seq, err)
		}
	}
	return nil
}

// replayPXP feeds one recorded entry to px's mandate.
func (n *Node) replayPXP(ctx context.Context, t *thread, px *engine.PXP, e ledger.Entry) error {
	m := px.Mandate
	switch e.Kind {
	case ledger.KindEnvelopeSent, ledger.KindEnvelopeReceived:
		var b struct {
			Code string `json:"code"`
		}
		if err := json.Unmarshal(e.Body, &b); err != nil || b.Code != "ok" || !e.CID.Defined() {
			return err
		}
		raw, err := n.led.Object(ctx, e.CID)
		if err != nil {
			return err
		}
		env, err := negotiation.Decode(raw, negotiation.DecodeOptions{MaxBytes: len(raw)})
		if err != nil {
			return err
		}
		if env.IsAnnouncement() {
			return nil
		}
		if e.Kind == ledger.KindEnvelopeSent {
			if env.Sender.EVMAddress != n.self {
				return nil
			}
			return m.Sent(env)
		}
		if n.fromCounterparty(t, env) {
			if err := m.Received(env); err != nil {
				n.log.Error("the mandate refused an envelope the thread took", "negotiation", t.ID, "hash", env.Hash(), "err", err)
			}
		}
	case ledger.KindEscalation:
		var b escalationBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return err
		}
		var p escalationPrivate
		if err := n.readPrivate(ctx, b.Private, &p); err != nil {
			return err
		}
		at, err := negotiation.ParseTime(p.At)
		if err != nil {
			return err
		}
		if p.Attempt != nil {
			pl, err := decodeAttempt(p.Attempt)
			if err != nil {
				return err
			}
			aat, err := negotiation.ParseTime(p.Attempt.At)
			if err != nil {
				return err
			}
			_ = m.Outgoing(pl, nil, aat) // restores the triggers the answer clears
		}
		if err := m.Escalate(p.Question, p.Reason, at); err != nil {
			return err
		}
		px.Events++
	case ledger.KindCardAmended:
		var b amendedBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return err
		}
		var p amendedPrivate
		if err := n.readPrivate(ctx, b.Private, &p); err != nil {
			return err
		}
		at, err := negotiation.ParseTime(p.At)
		if err != nil {
			return err
		}
		if _, err := m.Answer(p.Question, p.Answer, b.Via, at); err != nil {
			return err
		}
		px.Events++
	case KindAnswerConfirmed:
		var b confirmedBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return err
		}
		if err := m.ConfirmAnswer(b.Index); err != nil {
			return err
		}
		px.Events++
	}
	return nil
}

// fromCounterparty reports whether env comes from the other party of t
// (the poster or the worker that is not this node), whose envelopes the
// mandate reviews.
func (n *Node) fromCounterparty(t *thread, env *negotiation.Envelope) bool {
	s := env.Sender.EVMAddress
	if s == n.self {
		return false
	}
	switch t.Th.RoleOf(s) {
	case negotiation.RolePoster, negotiation.RoleWorker:
		return true
	}
	return false
}

func payloadOf(t negotiation.MessageType) negotiation.Payload {
	switch t {
	case negotiation.TypeTaskProposal:
		return new(negotiation.TaskProposal)
	case negotiation.TypeTaskCounterOffer:
		return new(negotiation.TaskCounterOffer)
	case negotiation.TypeTaskAcceptance:
		return new(negotiation.TaskAcceptance)
	case negotiation.TypeMilestoneDefinition:
		return new(negotiation.MilestoneDefinition)
	case negotiation.TypeRevisionRequest:
		return new(negotiation.RevisionRequest)
	case negotiation.TypeDeliveryNotice:
		return new(negotiation.DeliveryNotice)
	case negotiation.TypePaymentRequest:
		return new(negotiation.PaymentRequest)
	case negotiation.TypeCapabilityProof:
		return new(negotiation.CapabilityProof)
	case negotiation.TypeDisputeEvidence:
		return new(negotiation.DisputeEvidence)
	case negotiation.TypeArbitratorProposal:
		return new(negotiation.ArbitratorProposal)
	case negotiation.TypeMutualCancel:
		return new(negotiation.MutualCancel)
	case negotiation.TypeReplacementContext:
		return new(negotiation.ReplacementContext)
	case negotiation.TypeSupervisorVeto:
		return new(negotiation.SupervisorVeto)
	case negotiation.TypeAcceptDelivery:
		return new(negotiation.AcceptDelivery)
	}
	return nil
}

// pxpPrepare readies payload p of t for sending at ts (t.mu held): with a
// card, it stamps the card's hash, adds the reviews the card decides for
// the claims the agent left unreviewed, and asks the mandate. A refusal
// that needs the principal pauses an opened negotiation on the question
// (escalate) and returns escalation_required; every other refusal keeps
// the mandate's code. Without a card, PXP members are refused (no_card).
func (n *Node) pxpPrepare(ctx context.Context, t *thread, p negotiation.Payload, ts time.Time) error {
	n.openPXP(t)
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

// pxpSent records an envelope this side built, checked (pxpCheck) and
// recorded, in the mandate (t.mu held).
func (n *Node) pxpSent(t *thread, env *negotiation.Envelope) {
	if t.PXP == nil || t.PXP.Mandate == nil || env.IsAnnouncement() {
		return
	}
	if err := t.PXP.Mandate.Sent(env); err != nil {
		n.log.Error("the mandate refused an envelope it checked", "negotiation", t.ID, "hash", env.Hash(), "err", err)
	}
}

// pxpReceived records an effective envelope of the other party in t's
// mandate (t.mu held).
func (n *Node) pxpReceived(t *thread, env *negotiation.Envelope) {
	if t.PXP == nil || t.PXP.Mandate == nil || !n.fromCounterparty(t, env) {
		return
	}
	if err := t.PXP.Mandate.Received(env); err != nil {
		// The thread decides and the mandate follows (docs/pxp.md): it
		// refuses only what is not the other party's envelope.
		n.log.Error("the mandate refused an envelope the thread took", "negotiation", t.ID, "hash", env.Hash(), "err", err)
	}
}

// recordSeat records the agent that sat in this side's seat for envelope
// h and a message no payload member carried (t.mu held); nothing when
// both are empty. A failure is logged: the envelope is sent already.
func (n *Node) recordSeat(ctx context.Context, t *thread, agent string, h negotiation.Hash, message string) {
	if agent == "" && message == "" {
		return
	}
	body, err := json.Marshal(seatBody{Agent: agent, Envelope: h, Message: message})
	if err == nil {
		_, _, err = n.led.Append(ctx, ledger.Record{Kind: KindSeat, NegotiationID: t.ID, Body: body, At: n.now()})
	}
	if err != nil {
		n.log.Warn("seat not recorded", "negotiation", t.ID, "envelope", h, "err", err)
		return
	}
	n.openPXP(t)
	if agent != "" {
		t.PXP.Agents[h], t.PXP.Agent = agent, agent
	}
	if message != "" {
		t.PXP.Messages[h] = message
	}
}
