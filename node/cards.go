package node

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// The principal's intent cards: the node's default card and those sealed
// for one negotiation, their records (card.sealed, pxp.object) and their
// loading at start (docs/pxp.md).

// sealedCard is a card and the CID of the object that stores it.
type sealedCard struct {
	card *negotiation.IntentCard
	cid  string
}

// Record bodies.

// The scopes of a card.sealed entry the node writes itself (engine.Scope*).
const (
	scopeDefault     = engine.ScopeDefault
	scopeNegotiation = engine.ScopeNegotiation
)

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

// cardFor is the engine's Config.CardFor: the card a new thread takes and
// the CID of its object: for a negotiation answering this node's
// announcement, the card the announcement carried; else the node's
// default card; nil for none.
func (s *pxpService) cardFor(t *thread) (*negotiation.IntentCard, string) {
	var sc sealedCard
	ann := t.Params.Announcement
	s.mu.Lock()
	switch {
	case ann != nil && ann.Sender.EVMAddress == s.self:
		if h := ann.Payload.Proxy().IntentCardHash; h != nil {
			sc = s.cards[*h]
		}
	case s.card != nil:
		sc = s.cards[s.card.Seal()]
	}
	s.mu.Unlock()
	return sc.card, sc.cid
}

// load reads every card the node sealed as its default card; the
// last one is in force.
func (s *pxpService) load(ctx context.Context) error {
	for e, err := range s.led.ByKind(ctx, ledger.KindCardSealed) {
		if err != nil {
			return fmt.Errorf("node: load cards: %w", err)
		}
		var b engine.CardSealedBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return fmt.Errorf("node: load entry %d: %w", e.Seq, err)
		}
		if e.NegotiationID != "" || b.Scope != scopeDefault {
			continue
		}
		c, err := s.eng.CardByCID(ctx, b.Card)
		if err != nil {
			return fmt.Errorf("node: load entry %d: card: %w", e.Seq, err)
		}
		s.mu.Lock()
		s.card = c
		s.cards[c.Seal()] = sealedCard{card: c, cid: b.Card}
		s.via[c.Seal()] = b.Via
		s.mu.Unlock()
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
func (s *pxpService) confirmCard(ctx context.Context, nid string, c *negotiation.IntentCard, via negotiation.Via) error {
	if !via.Valid() {
		return fail(CodeBadArgument, "via %q: want api or mcp", via)
	}
	if via == negotiation.ViaWeb {
		return nil
	}
	args := map[string]any{"cardHash": c.Seal().String(), "principal": c.Principal.Name, "goal": c.Goal, "via": string(via)}
	reason := "seal the intent card an agent drafted: the node then acts for " + c.Principal.Name + " within it"
	defer s.holdDraft(c)()
	_, err := s.authorize(ctx, ActConfirmCard, nid, args, reason, "medium")
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
	if err := n.running(); err != nil {
		return CardInfo{}, err
	}
	return n.px.sealDefault(ctx, card, via)
}

// sealDefault is SealDefaultCard for every via, web included (the
// pages' path, once the passkey confirmed the card): the card parsed,
// confirmed, recorded and in force.
func (s *pxpService) sealDefault(ctx context.Context, card []byte, via negotiation.Via) (CardInfo, error) {
	c, err := parseCard(card)
	if err != nil {
		return CardInfo{}, err
	}
	if err := s.confirmCard(ctx, "", c, via); err != nil {
		return CardInfo{}, err
	}
	obj, id, err := s.cardRecord(c)
	if err != nil {
		return CardInfo{}, err
	}
	sealed, err := engine.CardSealedRecord("", c, id, scopeDefault, via, s.now())
	if err != nil {
		return CardInfo{}, err
	}
	var b batch
	b.Put(obj, nil)
	b.Put(sealed, nil)
	if err := s.write(ctx, &b, "card.sealed"); err != nil {
		return CardInfo{}, err
	}
	s.mu.Lock()
	s.card = c
	s.cards[c.Seal()] = sealedCard{card: c, cid: id}
	s.via[c.Seal()] = via
	s.mu.Unlock()
	s.events.publish(Event{Kind: EventCard, Hash: c.Seal().String(), At: s.now()})
	s.log.Info("intent card sealed", "hash", c.Seal(), "principal", c.Principal.Name)
	return cardInfo(c, ""), nil
}

// DefaultCard returns the principal's default card, or CodeNoCard.
func (n *Node) DefaultCard() (CardInfo, error) { return n.px.defaultCard() }

func (s *pxpService) defaultCard() (CardInfo, error) {
	s.mu.Lock()
	c := s.card
	s.mu.Unlock()
	if c == nil {
		return CardInfo{}, fail(CodeNoCard, "no intent card is sealed: seal one with `parley card seal FILE`")
	}
	return cardInfo(c, ""), nil
}

// NegotiationCard returns the card negotiation nid acts under, or
// CodeNoCard.
func (n *Node) NegotiationCard(nid string) (CardInfo, error) { return n.px.negotiationCard(nid) }

func (s *pxpService) negotiationCard(nid string) (CardInfo, error) {
	var info CardInfo
	err := s.eng.With(nid, func(t *thread) error {
		s.eng.OpenPXP(t)
		if t.PXP.Mandate == nil {
			return fail(CodeNoCard, "negotiation %s runs without an intent card", nid)
		}
		info = cardInfo(t.PXP.Mandate.Card(), nid)
		return nil
	})
	return info, err
}

// cardRecord returns the pxp.object record of card c and its CID.
func (s *pxpService) cardRecord(c *negotiation.IntentCard) (ledger.Record, string, error) {
	return engine.PrivateRecord("card", c.Bytes(), s.now())
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
	return n.px.sealCard(ctx, nid, card, via)
}

// sealCard is SealCard for via api or mcp.
func (s *pxpService) sealCard(ctx context.Context, nid string, card json.RawMessage, via negotiation.Via) (negotiation.Hash, error) {
	c, err := parseCard(card)
	if err != nil {
		return negotiation.Hash{}, err
	}
	// Asked before the principal confirms, and again after, under the
	// lock the card is sealed with.
	if err := s.eng.With(nid, s.canReseal); err != nil {
		return negotiation.Hash{}, err
	}
	if err := s.confirmCard(ctx, nid, c, via); err != nil {
		return negotiation.Hash{}, err
	}
	err = s.eng.With(nid, func(t *thread) error {
		if err := s.canReseal(t); err != nil {
			return err
		}
		obj, id, err := s.cardRecord(c)
		if err != nil {
			return err
		}
		r, err := engine.CardSealedRecord(nid, c, id, scopeNegotiation, via, s.now())
		if err != nil {
			return err
		}
		var b batch
		b.Put(obj, nil)
		s.eng.PutOpened(&b, t)
		b.Put(r, nil)
		if err := s.write(ctx, &b, "card.sealed"); err != nil {
			return err
		}
		if err := s.eng.ReplayPXP(ctx, t); err != nil {
			return err
		}
		s.events.publish(Event{Kind: EventCard, NegotiationID: nid, Hash: c.Seal().String(), At: s.now()})
		return nil
	})
	if err != nil {
		return negotiation.Hash{}, err
	}
	return c.Seal(), nil
}

// canReseal asks the act table (seal_card) whether this side may seal a
// card for t alone (t.mu held): not in an arbitrator's or an observer's
// thread, not in one that answers this node's own announcement, not once
// this side has sent an envelope or escalated in t.
func (s *pxpService) canReseal(t *thread) error {
	s.eng.OpenPXP(t)
	return s.may(t, negotiation.ActSealCard, negotiation.ActArgs{Mandate: t.PXP.Mandate, Observer: t.Observer})
}

// may asks the act table whether this node may do the PXP act act in t
// with args (t.mu held), as Node.may does for the node's acts.
func (s *pxpService) may(t *thread, act negotiation.Act, args negotiation.ActArgs) error {
	return mayAct(t, s.self, act, args)
}

// announcementCard stamps an announcement with the default card's hash
// and checks it against the card (an offer is binding): terms outside
// the card are refused with escalation_required and the question, and
// nothing is published (there is no negotiation to pause yet). Without a
// card the announcement carries none.
func (s *pxpService) announcementCard(p *negotiation.TaskProposal, ts time.Time) error {
	s.mu.Lock()
	c := s.card
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	m, err := negotiation.NewMandate(c, s.self)
	if err != nil {
		return err
	}
	m.Stamp(p)
	if err := m.Outgoing(p, nil, ts); err != nil {
		return &Error{Code: CodeOf(err), Msg: "outside the principal's intent card; nothing was published", Err: err}
	}
	return nil
}
