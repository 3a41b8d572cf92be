package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// Ledger kinds of the PXP records besides the ledger's own (card.sealed,
// card.amended, escalation). Every private value (an intent card, a
// question, an answer, a refused attempt) is kept as an object of a
// KindPXPObject entry, which names no negotiation: a negotiation's proof
// bundle carries the objects of its own entries only, so these never
// leave the node. docs/pxp.md ("In the node") describes each body.
const (
	// KindPXPObject stores one private PXP object (an intent card, or the
	// private part of an escalation or an answer): body {what}, object
	// the JSON value. It names no negotiation.
	KindPXPObject = "pxp.object"
	// KindAnswerConfirmed records the principal's passkey confirmation of
	// a relayed answer: body ConfirmedBody.
	KindAnswerConfirmed = "answer.confirmed"
	// KindSeat records which agent sat in this side's seat for an
	// envelope, and the message it gave when no payload member carries
	// it: body SeatBody.
	KindSeat = "pxp.seat"
	// KindRoomOpened records a room opened before its first envelope:
	// body RoomMeta.
	KindRoomOpened = "room.opened"
)

// SeatBody is the body of pxp.seat.
type SeatBody struct {
	Agent    string           `json:"agent,omitempty"`
	Envelope negotiation.Hash `json:"envelope"`
	Message  string           `json:"message,omitempty"`
}

// CardSealedBody is the body of card.sealed: the card's hash, its
// principal, the CID of its pxp.object, its scope and the via it came
// through.
type CardSealedBody struct {
	Hash      negotiation.Hash `json:"hash"`
	Principal string           `json:"principal"`
	Card      string           `json:"card"`  // the CID of the card's pxp.object
	Scope     string           `json:"scope"` // default, negotiation, announcement
	Via       negotiation.Via  `json:"via,omitempty"`
}

// EscalationBody is the body of escalation: the CID of its private part
// (EscalationPrivate) and the triggers.
type EscalationBody struct {
	Private  string   `json:"private"`
	Triggers []string `json:"triggers,omitempty"`
}

// EscalationPrivate is the private part of an escalation.
type EscalationPrivate struct {
	Question string   `json:"question"`
	Reason   string   `json:"reason,omitempty"`
	At       string   `json:"at"`
	Attempt  *Attempt `json:"attempt,omitempty"`
}

// Attempt is a payload the mandate refused with an escalation: replaying
// it restores the triggers the answer clears.
type Attempt struct {
	Type    negotiation.MessageType `json:"type"`
	Payload json.RawMessage         `json:"payload"`
	At      string                  `json:"at"`
}

// AmendedBody is the body of card.amended: the answer's index, via and
// card hash, and the CID of its private part (AmendedPrivate).
type AmendedBody struct {
	Index    int              `json:"index"`
	Via      negotiation.Via  `json:"via"`
	CardHash negotiation.Hash `json:"cardHash"`
	Private  string           `json:"private"`
}

// AmendedPrivate is the private part of an answer.
type AmendedPrivate struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	At       string `json:"at"`
}

// ConfirmedBody is the body of answer.confirmed.
type ConfirmedBody struct {
	Index   int    `json:"index"`
	Request string `json:"request,omitempty"`
}

// decodeAttempt returns the payload of a recorded Attempt.
func decodeAttempt(a *Attempt) (negotiation.Payload, error) {
	p := payloadOf(a.Type)
	if p == nil {
		return nil, fmt.Errorf("unknown payload type %q", a.Type)
	}
	if err := json.Unmarshal(a.Payload, p); err != nil {
		return nil, err
	}
	return p, nil
}

// payloadOf returns an empty payload of message type t, or nil.
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

// readPrivate decodes the pxp.object with CID s into v.
func (e *Engine) readPrivate(ctx context.Context, s string, v any) error {
	c, err := cid.Decode(s)
	if err != nil {
		return err
	}
	raw, err := e.led.Object(ctx, c)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// CardByCID reads and parses the intent card stored under CID s.
func (e *Engine) CardByCID(ctx context.Context, s string) (*negotiation.IntentCard, error) {
	c, err := cid.Decode(s)
	if err != nil {
		return nil, err
	}
	raw, err := e.led.Object(ctx, c)
	if err != nil {
		return nil, err
	}
	return negotiation.ParseIntentCard(raw)
}

// Mandate returns a mandate of this node under card that knows t's announcement
// (the offer a negotiation answering it starts from).
func (e *Engine) Mandate(t *Thread, card *negotiation.IntentCard) (*negotiation.Mandate, error) {
	m, err := negotiation.NewMandate(card, e.self)
	if err != nil {
		return nil, err
	}
	if ann := t.Params.Announcement; ann != nil {
		if ann.Sender.EVMAddress == e.self {
			err = m.Sent(ann)
		} else {
			err = m.Received(ann)
		}
		if err != nil {
			return nil, fmt.Errorf("engine: the announcement under the card: %w", err)
		}
	}
	return m, nil
}

// ReplayPXP replaces t's PXP state with one replayed from the ledger
// (t's lock held): the card sealed for the negotiation (the last card.sealed
// entry), then, in ledger order, every envelope this side sent (Sent),
// every effective envelope of the other party (Received), every
// escalation (its refused attempt again, then Escalate), answer (Answer)
// and confirmation (ConfirmAnswer).
func (e *Engine) ReplayPXP(ctx context.Context, t *Thread) error {
	if !t.Opened {
		t.PXP = nil
		return nil
	}
	px := NewPXP()
	var card *CardSealedBody
	var entries []ledger.Entry
	for en, err := range e.led.ByNegotiation(ctx, t.ID) {
		if err != nil {
			return fmt.Errorf("engine: pxp replay %s: %w", t.ID, err)
		}
		switch en.Kind {
		case ledger.KindCardSealed:
			var b CardSealedBody
			if err := json.Unmarshal(en.Body, &b); err != nil {
				return fmt.Errorf("engine: pxp replay entry %d: %w", en.Seq, err)
			}
			card = &b
			px.Events++
		case KindRoomOpened:
			var b RoomMeta
			if err := json.Unmarshal(en.Body, &b); err != nil {
				return fmt.Errorf("engine: pxp replay entry %d: %w", en.Seq, err)
			}
			px.Room = &b
			if b.Agent != "" {
				px.Agent = b.Agent
			}
		case KindSeat:
			var b SeatBody
			if err := json.Unmarshal(en.Body, &b); err != nil {
				return fmt.Errorf("engine: pxp replay entry %d: %w", en.Seq, err)
			}
			if b.Agent != "" {
				px.Agents[b.Envelope], px.Agent = b.Agent, b.Agent
			}
			if b.Message != "" {
				px.Messages[b.Envelope] = b.Message
			}
		case ledger.KindEnvelopeSent, ledger.KindEnvelopeReceived, ledger.KindEscalation, ledger.KindCardAmended, KindAnswerConfirmed:
			entries = append(entries, en)
		}
	}
	t.PXP = px
	if card == nil || t.Observer || t.Role == negotiation.RoleArbitrator {
		return nil
	}
	c, err := e.CardByCID(ctx, card.Card)
	if err != nil {
		return fmt.Errorf("engine: pxp replay %s: card %s: %w", t.ID, card.Card, err)
	}
	m, err := e.Mandate(t, c)
	if err != nil {
		return err
	}
	px.Mandate, px.Sealed, px.CardID = m, true, card.Card
	for _, en := range entries {
		if err := e.replayPXP(ctx, t, px, en); err != nil {
			return fmt.Errorf("engine: pxp replay %s entry %d: %w", t.ID, en.Seq, err)
		}
	}
	return nil
}

// replayPXP feeds one recorded entry to px's mandate.
func (e *Engine) replayPXP(ctx context.Context, t *Thread, px *PXP, en ledger.Entry) error {
	m := px.Mandate
	switch en.Kind {
	case ledger.KindEnvelopeSent, ledger.KindEnvelopeReceived:
		var b struct {
			Code string `json:"code"`
		}
		if err := json.Unmarshal(en.Body, &b); err != nil || b.Code != "ok" || !en.CID.Defined() {
			return err
		}
		raw, err := e.led.Object(ctx, en.CID)
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
		if en.Kind == ledger.KindEnvelopeSent {
			if env.Sender.EVMAddress != e.self {
				return nil
			}
			return m.Sent(env)
		}
		if e.FromCounterparty(t, env) {
			if err := m.Received(env); err != nil {
				e.cfg.Logger.Error("the mandate refused an envelope the thread took", "negotiation", t.ID, "hash", env.Hash(), "err", err)
			}
		}
	case ledger.KindEscalation:
		var b EscalationBody
		if err := json.Unmarshal(en.Body, &b); err != nil {
			return err
		}
		var p EscalationPrivate
		if err := e.readPrivate(ctx, b.Private, &p); err != nil {
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
		var b AmendedBody
		if err := json.Unmarshal(en.Body, &b); err != nil {
			return err
		}
		var p AmendedPrivate
		if err := e.readPrivate(ctx, b.Private, &p); err != nil {
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
		var b ConfirmedBody
		if err := json.Unmarshal(en.Body, &b); err != nil {
			return err
		}
		if err := m.ConfirmAnswer(b.Index); err != nil {
			return err
		}
		px.Events++
	}
	return nil
}

// FromCounterparty reports whether env comes from the other party of t
// (the poster or the worker that is not this node), whose envelopes the
// mandate reviews.
func (e *Engine) FromCounterparty(t *Thread, env *negotiation.Envelope) bool {
	s := env.Sender.EVMAddress
	if s == e.self {
		return false
	}
	switch t.Th.RoleOf(s) {
	case negotiation.RolePoster, negotiation.RoleWorker:
		return true
	}
	return false
}
