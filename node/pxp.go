package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
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

// pxpNode is the node's PXP state outside any negotiation: its principal's
// default intent card and every card it sealed, by hash.
type pxpNode struct {
	mu    sync.Mutex
	card  *negotiation.IntentCard         // the default card, or nil
	cards map[negotiation.Hash]sealedCard // every card sealed by this node
	via   map[negotiation.Hash]negotiation.Via
	// drafts are the cards waiting for the principal's confirmation, by
	// hash, so their approval requests show them in full.
	drafts map[negotiation.Hash]*draftCard
}

// sealedCard is a card and the CID of the object that stores it.
type sealedCard struct {
	card *negotiation.IntentCard
	cid  string
}

func newPXPNode() *pxpNode {
	return &pxpNode{cards: map[negotiation.Hash]sealedCard{}, via: map[negotiation.Hash]negotiation.Via{}, drafts: map[negotiation.Hash]*draftCard{}}
}

// pxpThread is one negotiation's PXP state (guarded by its thread's mu).
type pxpThread struct {
	m      *negotiation.Mandate // nil: the negotiation runs without a card
	sealed bool                 // card.sealed of the negotiation is recorded
	cardID string               // the CID of the card's object

	room     *roomMeta
	agent    string                      // the agent last in this side's seat
	agents   map[negotiation.Hash]string // the agent per envelope sent
	messages map[negotiation.Hash]string // messages no payload member carried
	events   int                         // PXP records, for RoomView.Version
	asking   map[int]bool                // relayed answers whose confirmation is being asked
}

// roomMeta is what create_room named.
type roomMeta struct {
	Topic            string              `json:"topic"`
	Principal        string              `json:"principal,omitempty"`
	Counterpart      negotiation.Address `json:"counterpart"`
	CounterpartProxy string              `json:"counterpartProxy,omitempty"`
	Agent            string              `json:"agent,omitempty"`
}

func newPXPThread() *pxpThread {
	return &pxpThread{agents: map[negotiation.Hash]string{}, messages: map[negotiation.Hash]string{},
		asking: map[int]bool{}}
}

// Record bodies.

type cardSealedBody struct {
	Hash      negotiation.Hash `json:"hash"`
	Principal string           `json:"principal"`
	Card      string           `json:"card"`  // the CID of the card's pxp.object
	Scope     string           `json:"scope"` // default, negotiation, announcement
	Via       negotiation.Via  `json:"via,omitempty"`
}

// The scopes of a card.sealed entry.
const (
	scopeDefault      = "default"      // the node's default card (no negotiation)
	scopeOpened       = "opened"       // the default card, in force when the negotiation opened
	scopeNegotiation  = "negotiation"  // a card sealed for this negotiation
	scopeAnnouncement = "announcement" // the card the node's announcement carried
)

type escalationBody struct {
	Private  string   `json:"private"`
	Triggers []string `json:"triggers,omitempty"`
}

type escalationPrivate struct {
	Question string   `json:"question"`
	Reason   string   `json:"reason,omitempty"`
	At       string   `json:"at"`
	Attempt  *attempt `json:"attempt,omitempty"`
}

// attempt is a payload the mandate refused with an escalation: replaying
// it restores the triggers the answer clears.
type attempt struct {
	Type    negotiation.MessageType `json:"type"`
	Payload json.RawMessage         `json:"payload"`
	At      string                  `json:"at"`
}

type amendedBody struct {
	Index    int              `json:"index"`
	Via      negotiation.Via  `json:"via"`
	CardHash negotiation.Hash `json:"cardHash"`
	Private  string           `json:"private"`
}

type amendedPrivate struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	At       string `json:"at"`
}

type confirmedBody struct {
	Index   int    `json:"index"`
	Request string `json:"request,omitempty"`
}

type seatBody struct {
	Agent    string           `json:"agent,omitempty"`
	Envelope negotiation.Hash `json:"envelope"`
	Message  string           `json:"message,omitempty"`
}

// CardInfo is a sealed intent card as the node's API shows it to its
// principal (the card's body is private: peers see the name and hash).
type CardInfo struct {
	Hash      negotiation.Hash `json:"hash"`
	Principal string           `json:"principal"`
	Card      json.RawMessage  `json:"card"`
	// NegotiationID is the negotiation the card is sealed for; empty for
	// the node's default card.
	NegotiationID string `json:"negotiationId,omitempty"`
}

func cardInfo(c *negotiation.IntentCard, nid string) CardInfo {
	return CardInfo{Hash: c.Seal(), Principal: c.Principal.Name, Card: json.RawMessage(c.Bytes()), NegotiationID: nid}
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

// cardByCID reads and parses a stored card.
func (n *Node) cardByCID(ctx context.Context, s string) (*negotiation.IntentCard, error) {
	c, err := cid.Decode(s)
	if err != nil {
		return nil, err
	}
	raw, err := n.led.Object(ctx, c)
	if err != nil {
		return nil, err
	}
	return negotiation.ParseIntentCard(raw)
}

// loadCards reads every card the node sealed as its default card; the
// last one is in force.
func (n *Node) loadCards(ctx context.Context) error {
	for e, err := range n.led.ByKind(ctx, ledger.KindCardSealed) {
		if err != nil {
			return fmt.Errorf("node: load cards: %w", err)
		}
		var b cardSealedBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return fmt.Errorf("node: load entry %d: %w", e.Seq, err)
		}
		if e.NegotiationID != "" || b.Scope != scopeDefault {
			continue
		}
		c, err := n.cardByCID(ctx, b.Card)
		if err != nil {
			return fmt.Errorf("node: load entry %d: card: %w", e.Seq, err)
		}
		n.px.mu.Lock()
		n.px.card = c
		n.px.cards[c.Seal()] = sealedCard{card: c, cid: b.Card}
		n.px.via[c.Seal()] = b.Via
		n.px.mu.Unlock()
	}
	return nil
}

// parseCard parses a card for sealing: the card's own codes (too_large,
// schema_invalid, rule_invalid, ...) on bad input.
func parseCard(raw []byte) (*negotiation.IntentCard, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, fail(CodeBadArgument, "no card")
	}
	c, err := negotiation.ParseIntentCard(raw)
	if err != nil {
		return nil, &Error{Code: CodeOf(err), Msg: "intent card", Err: err}
	}
	return c, nil
}

// confirmCard asks the principal to confirm a card that arrived through
// the API (via api) or an agent drafted (via mcp) with a passkey, through
// the approval gate; the request shows the whole card and its hash binds
// it. Only a card via web needs none: the pages seal one only after the
// principal's passkey confirmed it (SealCardOnPage).
func (n *Node) confirmCard(ctx context.Context, nid string, c *negotiation.IntentCard, via negotiation.Via) error {
	if !via.Valid() {
		return fail(CodeBadArgument, "via %q: want api or mcp", via)
	}
	if via == negotiation.ViaWeb {
		return nil
	}
	args := map[string]any{"cardHash": c.Seal().String(), "principal": c.Principal.Name, "goal": c.Goal, "via": string(via)}
	reason := "seal the intent card an agent drafted: the node then acts for " + c.Principal.Name + " within it"
	defer n.px.holdDraft(c)()
	_, err := n.authorize(ctx, ActConfirmCard, nid, args, reason, "medium")
	return err
}

// SealDefaultCard seals card as the principal's default intent card: every
// negotiation the node opens or joins from now on acts under it (a
// negotiation's card is fixed when it opens; SealCard overrides it for
// one negotiation). via says how the card arrived: api (through the
// node's API) or mcp (drafted by an agent over MCP); either way it is
// sealed only once the principal confirms it with a passkey
// (confirm_card). via web is refused with CodeViaWebRefused: only the
// principal's pages give it, after a passkey signed the exact card
// (SealCardOnPage). The card's body stays in this node's ledger; peers
// see its hash and the principal's name.
func (n *Node) SealDefaultCard(ctx context.Context, card []byte, via negotiation.Via) (CardInfo, error) {
	if via == negotiation.ViaWeb {
		return CardInfo{}, errViaWeb("")
	}
	return n.sealDefaultCard(ctx, card, via)
}

// sealDefaultCard is SealDefaultCard for every via, web included (the
// pages' path, once the passkey confirmed the card).
func (n *Node) sealDefaultCard(ctx context.Context, card []byte, via negotiation.Via) (CardInfo, error) {
	if err := n.running(); err != nil {
		return CardInfo{}, err
	}
	c, err := parseCard(card)
	if err != nil {
		return CardInfo{}, err
	}
	if err := n.confirmCard(ctx, "", c, via); err != nil {
		return CardInfo{}, err
	}
	obj, id, err := n.cardRecord(c)
	if err != nil {
		return CardInfo{}, err
	}
	sealed, err := n.cardSealedRecord("", c, id, scopeDefault, via)
	if err != nil {
		return CardInfo{}, err
	}
	var b batch
	b.put(obj, nil)
	b.put(sealed, nil)
	if err := n.write(ctx, &b, "card.sealed"); err != nil {
		return CardInfo{}, err
	}
	n.px.mu.Lock()
	n.px.card = c
	n.px.cards[c.Seal()] = sealedCard{card: c, cid: id}
	n.px.via[c.Seal()] = via
	n.px.mu.Unlock()
	n.events.publish(Event{Kind: EventCard, Hash: c.Seal().String(), At: n.now()})
	n.log.Info("intent card sealed", "hash", c.Seal(), "principal", c.Principal.Name)
	return cardInfo(c, ""), nil
}

// DefaultCard returns the principal's default card, or CodeNoCard.
func (n *Node) DefaultCard() (CardInfo, error) {
	n.px.mu.Lock()
	c := n.px.card
	n.px.mu.Unlock()
	if c == nil {
		return CardInfo{}, fail(CodeNoCard, "no intent card is sealed: seal one with `parley card seal FILE`")
	}
	return cardInfo(c, ""), nil
}

// NegotiationCard returns the card negotiation nid acts under, or
// CodeNoCard.
func (n *Node) NegotiationCard(nid string) (CardInfo, error) {
	t, err := n.locked(nid)
	if err != nil {
		return CardInfo{}, err
	}
	defer t.mu.Unlock()
	n.openPXP(t)
	if t.pxp.m == nil {
		return CardInfo{}, fail(CodeNoCard, "negotiation %s runs without an intent card", nid)
	}
	return cardInfo(t.pxp.m.Card(), nid), nil
}

// cardRecord returns the pxp.object record of card c and its CID.
func (n *Node) cardRecord(c *negotiation.IntentCard) (ledger.Record, string, error) {
	return n.privateRecord("card", c.Bytes())
}

// cardSealedRecord returns the card.sealed record of card c, stored as
// id, for negotiation nid ("" for the default card).
func (n *Node) cardSealedRecord(nid string, c *negotiation.IntentCard, id, scope string, via negotiation.Via) (ledger.Record, error) {
	body, err := json.Marshal(cardSealedBody{Hash: c.Seal(), Principal: c.Principal.Name, Card: id, Scope: scope, Via: via})
	if err != nil {
		return ledger.Record{}, err
	}
	return ledger.Record{Kind: ledger.KindCardSealed, NegotiationID: nid, Body: body, At: n.now()}, nil
}

// SealCard seals card for negotiation nid only (overriding the default
// card the negotiation opened with), while this side has sent nothing
// there and asked its principal nothing: a negotiation's card changes
// afterwards only by the principal's answers. via is as for
// SealDefaultCard (api or mcp: sealed once a passkey confirms it; web
// refused). It returns the card's hash, which every later envelope of
// this side carries.
func (n *Node) SealCard(ctx context.Context, nid string, card json.RawMessage, via negotiation.Via) (negotiation.Hash, error) {
	if via == negotiation.ViaWeb {
		return negotiation.Hash{}, errViaWeb(nid)
	}
	if err := n.running(); err != nil {
		return negotiation.Hash{}, err
	}
	c, err := parseCard(card)
	if err != nil {
		return negotiation.Hash{}, err
	}
	t, err := n.locked(nid)
	if err != nil {
		return negotiation.Hash{}, err
	}
	err = n.canReseal(t)
	t.mu.Unlock()
	if err != nil {
		return negotiation.Hash{}, err
	}
	if err := n.confirmCard(ctx, nid, c, via); err != nil {
		return negotiation.Hash{}, err
	}
	if t, err = n.locked(nid); err != nil {
		return negotiation.Hash{}, err
	}
	defer t.mu.Unlock()
	if err := n.canReseal(t); err != nil {
		return negotiation.Hash{}, err
	}
	obj, id, err := n.cardRecord(c)
	if err != nil {
		return negotiation.Hash{}, err
	}
	r, err := n.cardSealedRecord(nid, c, id, scopeNegotiation, via)
	if err != nil {
		return negotiation.Hash{}, err
	}
	var b batch
	b.put(obj, nil)
	n.putOpened(&b, t)
	b.put(r, nil)
	if err := n.write(ctx, &b, "card.sealed"); err != nil {
		return negotiation.Hash{}, err
	}
	if err := n.rebuildPXP(ctx, t); err != nil {
		return negotiation.Hash{}, err
	}
	n.events.publish(Event{Kind: EventCard, NegotiationID: nid, Hash: c.Seal().String(), At: n.now()})
	return c.Seal(), nil
}

// canReseal refuses a new card once this side has sent an envelope or
// escalated in t (t.mu held).
func (n *Node) canReseal(t *thread) error {
	if t.observer || t.role == negotiation.RoleArbitrator {
		return fail(CodeNotParty, "an arbitrator acts under no intent card")
	}
	if ann := t.p.Announcement; ann != nil && ann.Sender.EVMAddress == n.self {
		return fail(CodeStateForbidden, "%s answers this node's announcement: it acts under the card the announcement carried", t.id)
	}
	for _, r := range t.th.Log() {
		if r.Sender == n.self {
			return fail(CodeStateForbidden, "this side has spoken in %s: its card changes only by the principal's answers", t.id)
		}
	}
	n.openPXP(t)
	if t.pxp.m != nil && len(t.pxp.m.Escalations()) > 0 {
		return fail(CodeStateForbidden, "this side escalated in %s: its card changes only by the principal's answers", t.id)
	}
	return nil
}

// openPXP gives t its PXP state when it has none (t.mu held): a thread
// the ledger knows nothing of yet takes the node's default card, or, for
// a negotiation answering this node's announcement, the card the
// announcement carried; a negotiation opened without a card runs without
// one. It does no I/O; the card.sealed record is written with the
// thread's first record (putCard).
func (n *Node) openPXP(t *thread) {
	if t.pxp != nil {
		return
	}
	t.pxp = newPXPThread()
	if t.opened || t.observer || t.role == negotiation.RoleArbitrator {
		return
	}
	var sc sealedCard
	ann := t.p.Announcement
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
		n.log.Error("no mandate", "negotiation", t.id, "err", err)
		return
	}
	t.pxp.m, t.pxp.cardID = m, sc.cid
}

// mandateFor returns a mandate under card that knows t's announcement
// (the offer a negotiation answering it starts from).
func (n *Node) mandateFor(t *thread, card *negotiation.IntentCard) (*negotiation.Mandate, error) {
	m, err := negotiation.NewMandate(card, n.self)
	if err != nil {
		return nil, err
	}
	if ann := t.p.Announcement; ann != nil {
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
	if t.pxp == nil || t.pxp.m == nil || t.pxp.sealed {
		return
	}
	scope := scopeOpened
	if ann := t.p.Announcement; ann != nil && ann.Sender.EVMAddress == n.self {
		scope = scopeAnnouncement
	}
	px := t.pxp
	r, err := n.cardSealedRecord(t.id, px.m.Card(), px.cardID, scope, "")
	if err != nil {
		b.fail(err)
		return
	}
	b.put(r, func() {
		px.sealed = true
		px.events++
	})
}

// rebuildPXP replaces t's PXP state with one replayed from the ledger
// (t.mu held): the card sealed for the negotiation (the last card.sealed
// entry), then, in ledger order, every envelope this side sent (Sent),
// every effective envelope of the other party (Received), every
// escalation (its refused attempt again, then Escalate), answer (Answer)
// and confirmation (ConfirmAnswer).
func (n *Node) rebuildPXP(ctx context.Context, t *thread) error {
	if !t.opened {
		t.pxp = nil
		return nil
	}
	px := newPXPThread()
	var card *cardSealedBody
	var entries []ledger.Entry
	for e, err := range n.led.ByNegotiation(ctx, t.id) {
		if err != nil {
			return fmt.Errorf("node: pxp replay %s: %w", t.id, err)
		}
		switch e.Kind {
		case ledger.KindCardSealed:
			var b cardSealedBody
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return fmt.Errorf("node: pxp replay entry %d: %w", e.Seq, err)
			}
			card = &b
			px.events++
		case KindRoomOpened:
			var b roomMeta
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return fmt.Errorf("node: pxp replay entry %d: %w", e.Seq, err)
			}
			px.room = &b
			if b.Agent != "" {
				px.agent = b.Agent
			}
		case KindSeat:
			var b seatBody
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return fmt.Errorf("node: pxp replay entry %d: %w", e.Seq, err)
			}
			if b.Agent != "" {
				px.agents[b.Envelope], px.agent = b.Agent, b.Agent
			}
			if b.Message != "" {
				px.messages[b.Envelope] = b.Message
			}
		case ledger.KindEnvelopeSent, ledger.KindEnvelopeReceived, ledger.KindEscalation, ledger.KindCardAmended, KindAnswerConfirmed:
			entries = append(entries, e)
		}
	}
	t.pxp = px
	if card == nil || t.observer || t.role == negotiation.RoleArbitrator {
		return nil
	}
	c, err := n.cardByCID(ctx, card.Card)
	if err != nil {
		return fmt.Errorf("node: pxp replay %s: card %s: %w", t.id, card.Card, err)
	}
	m, err := n.mandateFor(t, c)
	if err != nil {
		return err
	}
	px.m, px.sealed, px.cardID = m, true, card.Card
	for _, e := range entries {
		if err := n.replayPXP(ctx, t, px, e); err != nil {
			return fmt.Errorf("node: pxp replay %s entry %d: %w", t.id, e.Seq, err)
		}
	}
	return nil
}

// replayPXP feeds one recorded entry to px's mandate.
func (n *Node) replayPXP(ctx context.Context, t *thread, px *pxpThread, e ledger.Entry) error {
	m := px.m
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
				n.log.Error("the mandate refused an envelope the thread took", "negotiation", t.id, "hash", env.Hash(), "err", err)
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
		px.events++
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
		px.events++
	case KindAnswerConfirmed:
		var b confirmedBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return err
		}
		if err := m.ConfirmAnswer(b.Index); err != nil {
			return err
		}
		px.events++
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
	switch t.th.RoleOf(s) {
	case negotiation.RolePoster, negotiation.RoleWorker:
		return true
	}
	return false
}

// decodeAttempt returns the payload of a recorded attempt.
func decodeAttempt(a *attempt) (negotiation.Payload, error) {
	p := payloadOf(a.Type)
	if p == nil {
		return nil, fmt.Errorf("unknown payload type %q", a.Type)
	}
	if err := json.Unmarshal(a.Payload, p); err != nil {
		return nil, err
	}
	return p, nil
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
	m := t.pxp.m
	if m == nil {
		if len(px.Claims) > 0 || len(px.Reviews) > 0 || len(px.DependsOn) > 0 || px.Status != "" || px.Escalation != nil {
			return fail(CodeNoCard, "negotiation %s runs without an intent card: claims, reviews and escalations need one", t.id)
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
		if cur := t.th.Current(); cur != nil && cur.Hash() == acc.AcceptedOfferHash {
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
	if !t.opened {
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

// triggerReason says why the node asks, in a sentence per trigger.
func triggerReason(ts []negotiation.Trigger) string {
	var parts []string
	for _, tr := range ts {
		var p string
		switch tr.Kind {
		case negotiation.TriggerMustNever:
			p = tr.Clause + " is a hard limit: only the principal can lift it"
		case negotiation.TriggerMayAgreeTo:
			p = "the card does not let the node agree to this (" + tr.Clause + ")"
		case negotiation.TriggerMustHave:
			p = "it would give up " + tr.Clause
		case negotiation.TriggerEscalateWhen:
			p = "the card says to ask when " + tr.Clause + " matches"
		case negotiation.TriggerConflict:
			p = "claim " + tr.ClaimID + " conflicts with the card and the node cannot resolve it"
		case negotiation.TriggerAssumption:
			p = "the agreement would rest on the assumption " + tr.ClaimID + ", which touches " + tr.Clause
		case negotiation.TriggerDispute:
			p = "the offer rests on claim " + tr.ClaimID + ", which this side disputed"
		default:
			p = tr.Detail
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// escalateLocked pauses t on question (t.mu held): the mandate records the
// escalation (with the triggers of the attempt it refused, if any), the
// ledger keeps it (the question, the reason and the attempt privately),
// and the other party is told with an envelope of status escalate where
// this side has one that may carry it (a worker's CapabilityProof); a
// poster has none before funding, so its escalation stays local.
func (n *Node) escalateLocked(ctx context.Context, t *thread, question, reason string, attemptP negotiation.Payload, now time.Time) error {
	m := t.pxp.m
	at := now.UTC().Truncate(time.Millisecond)
	priv := escalationPrivate{Question: question, Reason: reason, At: negotiation.FormatTime(at)}
	if acc, ok := attemptP.(*negotiation.TaskAcceptance); ok && len(acc.Signature) == 0 {
		// Judged before it is signed: a placeholder keeps it decodable.
		cp := *acc
		cp.Signature = make(negotiation.EVMSignature, 65)
		attemptP = &cp
	}
	if attemptP != nil {
		raw, err := json.Marshal(attemptP)
		if err != nil {
			return err
		}
		priv.Attempt = &attempt{Type: attemptP.MessageType(), Payload: raw, At: negotiation.FormatTime(now)}
	}
	if err := m.Escalate(question, reason, at); err != nil {
		return &Error{Code: CodeOf(err), Msg: "escalate", Err: err}
	}
	idx := len(m.Escalations()) - 1
	var triggers []string
	for _, tr := range m.Escalations()[idx].Triggers {
		triggers = append(triggers, triggerName(tr))
	}
	err := func() error {
		obj, id, err := n.privateValueRecord("escalation", priv)
		if err != nil {
			return err
		}
		body, err := json.Marshal(escalationBody{Private: id, Triggers: triggers})
		if err != nil {
			return err
		}
		var b batch
		b.put(obj, nil)
		b.put(ledger.Record{Kind: ledger.KindEscalation, NegotiationID: t.id, Body: body, At: at}, nil)
		return n.write(ctx, &b, "escalation")
	}()
	if err != nil {
		if rerr := n.rebuildPXP(ctx, t); rerr != nil {
			n.log.Error("pxp rebuild failed", "negotiation", t.id, "err", rerr)
		}
		return err
	}
	t.pxp.events++
	n.log.Info("escalated to the principal", "negotiation", t.id, "question", question)
	n.events.publish(Event{Kind: EventEscalation, NegotiationID: t.id, Detail: question, State: t.th.State(), At: n.now()})
	n.carryEscalation(ctx, t, question, reason)
	return nil
}

func triggerName(tr negotiation.Trigger) string {
	s := string(tr.Kind)
	if tr.Clause != "" {
		s += ":" + tr.Clause
	}
	if tr.ClaimID != "" {
		s += ":" + tr.ClaimID
	}
	return s
}

// carryEscalation tells the other party that t paused (t.mu held), when
// this side is the worker: a CapabilityProof with status escalate and the
// question (docs/pxp.md, "In the node"). A carrier the state machine or
// the mandate refuses is not sent; the pause stands either way.
func (n *Node) carryEscalation(ctx context.Context, t *thread, question, reason string) {
	if t.th.RoleOf(n.self) != negotiation.RoleWorker || !n.liveParty(t) {
		return
	}
	st := t.th.State()
	if st == negotiation.StateCompleted || st == negotiation.StateResolved || st == negotiation.StateCancelled ||
		st == negotiation.StateVetoed || st == negotiation.StateExpired {
		return
	}
	p := &negotiation.CapabilityProof{
		Capability: "pxp", Kind: "escalation",
		Description: "This side asked its principal and waits for the answer: " + question,
		PXP:         negotiation.PXP{Status: negotiation.StatusEscalate, Escalation: &negotiation.Escalation{Question: question, Reason: reason}},
	}
	if _, _, err := n.sendLocked(ctx, t, p, n.recipients(t, false), false); err != nil {
		n.log.Info("escalation not carried to the other party", "negotiation", t.id, "err", err)
	}
}

// liveParty reports whether t has another party to tell.
func (n *Node) liveParty(t *thread) bool {
	return n.otherParty(t) != (negotiation.Address{})
}

// pxpSent records an envelope this side built in the mandate (t.mu held):
// it refuses, changing nothing, what the mandate would.
func (n *Node) pxpSent(t *thread, env *negotiation.Envelope) error {
	if t.pxp == nil || t.pxp.m == nil || env.IsAnnouncement() {
		return nil
	}
	if err := t.pxp.m.Sent(env); err != nil {
		return &Error{Code: CodeOf(err), Msg: "the intent card refuses this " + string(env.Type), Err: err}
	}
	return nil
}

// pxpReceived records an effective envelope of the other party in t's
// mandate (t.mu held).
func (n *Node) pxpReceived(t *thread, env *negotiation.Envelope) {
	if t.pxp == nil || t.pxp.m == nil || !n.fromCounterparty(t, env) {
		return
	}
	if err := t.pxp.m.Received(env); err != nil {
		// The thread decides and the mandate follows (docs/pxp.md): it
		// refuses only what is not the other party's envelope.
		n.log.Error("the mandate refused an envelope the thread took", "negotiation", t.id, "hash", env.Hash(), "err", err)
	}
}

// pausedErr refuses an act in negotiation nid while it waits for the
// principal's answer (paused). Acts that send an envelope are refused by
// the mandate itself; this covers the gated acts that send none (funding)
// before their approval is asked.
func (n *Node) pausedErr(nid string) error {
	t := n.lookup(nid)
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pxp == nil || t.pxp.m == nil {
		return nil
	}
	if q, ok := t.pxp.m.Paused(); ok {
		return fail(Code(negotiation.CodePaused), "negotiation %s waits for the principal's answer to %q", nid, q.Question)
	}
	return nil
}

// PendingEscalation is a question a negotiation waits on: the principal
// answers it with AnswerEscalation (`parley escalations answer`).
type PendingEscalation struct {
	NegotiationID string    `json:"negotiationId"`
	Title         string    `json:"title,omitempty"`
	Question      string    `json:"question"`
	Reason        string    `json:"reason,omitempty"`
	At            time.Time `json:"at"`
	// Triggers name what made the node escalate (trigger kinds and the
	// clauses or claims involved), when the node decided it.
	Triggers []string `json:"triggers,omitempty"`
}

// Escalations returns the questions every paused negotiation waits on,
// oldest first.
func (n *Node) Escalations() []PendingEscalation {
	n.tmu.Lock()
	ts := make([]*thread, 0, len(n.threads))
	for _, t := range n.threads {
		ts = append(ts, t)
	}
	n.tmu.Unlock()
	var out []PendingEscalation
	for _, t := range ts {
		t.mu.Lock()
		if e, ok := pendingEscalation(t); ok {
			if cur := t.th.Current(); cur != nil && cur.Terms != nil {
				e.Title = cur.Terms.Title
			}
			out = append(out, e)
		}
		t.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b PendingEscalation) int { return a.At.Compare(b.At) })
	return out
}

// pendingEscalation returns t's pending question (t.mu held).
func pendingEscalation(t *thread) (PendingEscalation, bool) {
	if t.pxp == nil || t.pxp.m == nil {
		return PendingEscalation{}, false
	}
	if _, ok := t.pxp.m.Paused(); !ok {
		return PendingEscalation{}, false
	}
	es := t.pxp.m.Escalations()
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Answer < 0 {
			e := PendingEscalation{NegotiationID: t.id, Question: es[i].Question, Reason: es[i].Reason, At: es[i].At}
			for _, tr := range es[i].Triggers {
				e.Triggers = append(e.Triggers, triggerName(tr))
			}
			return e, true
		}
	}
	return PendingEscalation{}, false
}

// AnswerEscalation records an answer to negotiation nid's pending
// question that arrived through the node's API (via api) or an agent
// relayed over MCP (via mcp): it is sealed into the negotiation's card as
// an amendment (the card's hash changes; later envelopes carry the new
// one), recorded as a stated claim with speaker principal, and the
// negotiation resumes, but the answer is unconfirmed until the principal
// confirms it with a passkey (the node asks at once, through the approval
// gate): binding acts resting on it are refused with answer_unconfirmed
// until then. via web is refused with CodeViaWebRefused: only the
// principal's pages give it, after a passkey signed the exact text
// (AnswerOnPage).
func (n *Node) AnswerEscalation(ctx context.Context, nid, answer string, via negotiation.Via) (negotiation.PrincipalAnswer, error) {
	if via == negotiation.ViaWeb {
		return negotiation.PrincipalAnswer{}, errViaWeb(nid)
	}
	return n.answerEscalation(ctx, nid, answer, via, "")
}

// answerEscalation is AnswerEscalation for every via, web included (the
// pages' path, once the passkey confirmed the answer); a question other
// than "" must be the pending one.
func (n *Node) answerEscalation(ctx context.Context, nid, answer string, via negotiation.Via, question string) (negotiation.PrincipalAnswer, error) {
	if err := n.running(); err != nil {
		return negotiation.PrincipalAnswer{}, err
	}
	if !via.Valid() {
		return negotiation.PrincipalAnswer{}, fail(CodeBadArgument, "via %q: want api or mcp", via)
	}
	if strings.TrimSpace(answer) == "" {
		return negotiation.PrincipalAnswer{}, fail(CodeBadArgument, "an answer needs text")
	}
	t, err := n.locked(nid)
	if err != nil {
		return negotiation.PrincipalAnswer{}, err
	}
	defer t.mu.Unlock()
	n.openPXP(t)
	m := t.pxp.m
	if m == nil {
		return negotiation.PrincipalAnswer{}, fail(CodeNoCard, "negotiation %s runs without an intent card", nid)
	}
	q, ok := m.Paused()
	if !ok {
		return negotiation.PrincipalAnswer{}, fail(CodeStateForbidden, "negotiation %s waits for no answer", nid)
	}
	if question != "" && q.Question != question {
		return negotiation.PrincipalAnswer{}, fail(CodeStateForbidden, "negotiation %s now asks %q, not the question answered", nid, q.Question)
	}
	at := n.now().UTC().Truncate(time.Millisecond)
	a, err := m.Answer(q.Question, answer, via, at)
	if err != nil {
		return negotiation.PrincipalAnswer{}, &Error{Code: CodeOf(err), Msg: "answer", Err: err}
	}
	err = func() error {
		obj, id, err := n.privateValueRecord("answer", amendedPrivate{Question: q.Question, Answer: answer, At: negotiation.FormatTime(at)})
		if err != nil {
			return err
		}
		body, err := json.Marshal(amendedBody{Index: len(m.Answers()) - 1, Via: via, CardHash: a.CardHash, Private: id})
		if err != nil {
			return err
		}
		var b batch
		b.put(obj, nil)
		b.put(ledger.Record{Kind: ledger.KindCardAmended, NegotiationID: nid, Body: body, At: at}, nil)
		return n.write(ctx, &b, "card.amended")
	}()
	if err != nil {
		if rerr := n.rebuildPXP(ctx, t); rerr != nil {
			n.log.Error("pxp rebuild failed", "negotiation", nid, "err", rerr)
		}
		return negotiation.PrincipalAnswer{}, err
	}
	t.pxp.events++
	n.log.Info("the principal answered", "negotiation", nid, "via", via, "card", a.CardHash)
	n.events.publish(Event{Kind: EventAnswer, NegotiationID: nid, Hash: a.CardHash.String(), Detail: string(via), State: t.th.State(), At: n.now()})
	if !a.Confirmed {
		n.askConfirmations(t)
	}
	return a, nil
}

// askConfirmations asks the principal, through the approval gate, to
// confirm every relayed answer of t not confirmed yet and not being
// asked already (t.mu held). Each request waits on a goroutine the node
// owns; an approval records answer.confirmed and confirms the answer.
func (n *Node) askConfirmations(t *thread) {
	for i, a := range t.pxp.m.Answers() {
		if a.Confirmed || t.pxp.asking[i] {
			continue
		}
		t.pxp.asking[i] = true
		nid, q, ans, via := t.id, a.Amendment.Question, a.Amendment.Answer, a.Via
		n.spawn(func(ctx context.Context) {
			err := n.confirmAnswer(ctx, nid, i, q, ans, via)
			if err != nil {
				n.log.Info("relayed answer not confirmed", "negotiation", nid, "answer", i, "err", err)
			}
			if t, lerr := n.locked(nid); lerr == nil {
				if t.pxp != nil {
					delete(t.pxp.asking, i)
				}
				t.mu.Unlock()
			}
		})
	}
}

// confirmAnswer asks for the passkey confirmation of relayed answer i of
// nid and records it.
func (n *Node) confirmAnswer(ctx context.Context, nid string, i int, question, answer string, via negotiation.Via) error {
	args := map[string]any{"answerIndex": fmt.Sprint(i), "question": question, "answer": answer}
	if via != "" {
		args["via"] = string(via)
	}
	req, err := n.authorize(ctx, ActConfirmAnswer, nid, args, "confirm the answer your agent relayed for you: binding acts may rest on it", "medium")
	if err != nil {
		return err
	}
	t, err := n.locked(nid)
	if err != nil {
		return err
	}
	defer t.mu.Unlock()
	if t.pxp == nil || t.pxp.m == nil || i >= len(t.pxp.m.Answers()) || t.pxp.m.Answers()[i].Confirmed {
		return nil
	}
	body, err := json.Marshal(confirmedBody{Index: i, Request: req.RequestID})
	if err != nil {
		return err
	}
	if _, _, err := n.led.Append(ctx, ledger.Record{Kind: KindAnswerConfirmed, NegotiationID: nid, Body: body, At: n.now()}); err != nil {
		return failWrap(CodeStoreFailed, err, "answer.confirmed")
	}
	if err := t.pxp.m.ConfirmAnswer(i); err != nil {
		return err
	}
	t.pxp.events++
	n.events.publish(Event{Kind: EventAnswer, NegotiationID: nid, Detail: "confirmed", State: t.th.State(), At: n.now()})
	return nil
}

// resumeConfirmations asks again, after a start, for the confirmation of
// every relayed answer still unconfirmed.
func (n *Node) resumeConfirmations() {
	n.tmu.Lock()
	ts := make([]*thread, 0, len(n.threads))
	for _, t := range n.threads {
		ts = append(ts, t)
	}
	n.tmu.Unlock()
	for _, t := range ts {
		t.mu.Lock()
		if t.pxp != nil && t.pxp.m != nil {
			n.askConfirmations(t)
		}
		t.mu.Unlock()
	}
}

// BriefView is a negotiation's decision brief: JSON (the record) and
// Markdown (its reading form).
type BriefView struct {
	JSON     json.RawMessage `json:"json"`
	Markdown string          `json:"markdown"`
}

// Brief returns the decision brief of negotiation nid once its
// negotiation phase is over (agreed, or later, or an exit), made from the
// thread, this side's mandate (its card, escalations and answers) and the
// ledger's head now.
func (n *Node) Brief(ctx context.Context, nid string) (BriefView, error) {
	if err := n.running(); err != nil {
		return BriefView{}, err
	}
	t, err := n.locked(nid)
	if err != nil {
		return BriefView{}, err
	}
	defer t.mu.Unlock()
	if !ended(t.th.StateAt(n.now())) {
		return BriefView{}, fail(CodeStateForbidden, "negotiation %s is %s: its brief is made once it is agreed or over", nid, t.th.State())
	}
	n.openPXP(t)
	var ms []*negotiation.Mandate
	if m := t.pxp.m; m != nil {
		if r := t.th.RoleOf(n.self); r == negotiation.RolePoster || r == negotiation.RoleWorker {
			ms = append(ms, m)
		}
	}
	h := n.led.Head()
	b, err := negotiation.NewBrief(t.th, negotiation.LedgerHead{Seq: h.Seq, Hash: h.Hash}, ms...)
	if err != nil {
		return BriefView{}, &Error{Code: CodeOf(err), Msg: "brief", Err: err}
	}
	raw, err := b.JSON()
	if err != nil {
		return BriefView{}, err
	}
	return BriefView{JSON: raw, Markdown: b.Markdown()}, nil
}

// ended reports whether the negotiation phase is over in st.
func ended(st negotiation.State) bool {
	switch st {
	case negotiation.StateOpen, negotiation.StateProposed, negotiation.StateCountered:
		return false
	}
	return true
}

// announcementCard stamps an announcement with the default card's hash
// and checks it against the card (an offer is binding): terms outside
// the card are refused with escalation_required and the question, and
// nothing is published (there is no negotiation to pause yet). Without a
// card the announcement carries none.
func (n *Node) announcementCard(p *negotiation.TaskProposal, ts time.Time) error {
	n.px.mu.Lock()
	c := n.px.card
	n.px.mu.Unlock()
	if c == nil {
		return nil
	}
	m, err := negotiation.NewMandate(c, n.self)
	if err != nil {
		return err
	}
	m.Stamp(p)
	if err := m.Outgoing(p, nil, ts); err != nil {
		return &Error{Code: CodeOf(err), Msg: "outside the principal's intent card; nothing was published", Err: err}
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
	body, err := json.Marshal(seatBody{Agent: agent, Envelope: h, Message: message})
	if err == nil {
		_, _, err = n.led.Append(ctx, ledger.Record{Kind: KindSeat, NegotiationID: t.id, Body: body, At: n.now()})
	}
	if err != nil {
		n.log.Warn("seat not recorded", "negotiation", t.id, "envelope", h, "err", err)
		return
	}
	n.openPXP(t)
	if agent != "" {
		t.pxp.agents[h], t.pxp.agent = agent, agent
	}
	if message != "" {
		t.pxp.messages[h] = message
	}
}
