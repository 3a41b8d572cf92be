package engine

import (
	"encoding/json"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// PXP is one negotiation's PXP state (guarded by its thread's lock): the
// mandate of the card it runs under, and what this side's seat did.
type PXP struct {
	Mandate *negotiation.Mandate // nil: the negotiation runs without a card
	Sealed  bool                 // card.sealed of the negotiation is recorded
	CardID  string               // the CID of the card's object

	Room     *RoomMeta
	Agent    string                      // the agent last in this side's seat
	Agents   map[negotiation.Hash]string // the agent per envelope sent
	Messages map[negotiation.Hash]string // messages no payload member carried
	Events   int                         // PXP records, for a room's version
	Asking   map[int]bool                // relayed answers whose confirmation is being asked
}

// NewPXP returns an empty PXP state.
func NewPXP() *PXP {
	return &PXP{Agents: map[negotiation.Hash]string{}, Messages: map[negotiation.Hash]string{}, Asking: map[int]bool{}}
}

// RoomMeta is what create_room named.
type RoomMeta struct {
	Topic            string              `json:"topic"`
	Principal        string              `json:"principal,omitempty"`
	Counterpart      negotiation.Address `json:"counterpart"`
	CounterpartProxy string              `json:"counterpartProxy,omitempty"`
	Agent            string              `json:"agent,omitempty"`
}

// The scopes of a card.sealed entry.
const (
	ScopeDefault      = "default"      // the node's default card (no negotiation)
	ScopeOpened       = "opened"       // the default card, in force when the negotiation opened
	ScopeNegotiation  = "negotiation"  // a card sealed for this negotiation
	ScopeAnnouncement = "announcement" // the card the node's announcement carried
)

// OpenPXP gives t its PXP state when it has none (t's lock held): a thread
// the ledger knows nothing of yet takes the card Config.CardFor names (the
// node's default card, or, for a negotiation answering this node's
// announcement, the card the announcement carried); a negotiation opened
// without a card, an observer's and an arbitrator's run without one. It does no I/O; the card.sealed record is written with the
// thread's first record (PutSent, PutReceived, PutCard).
func (e *Engine) OpenPXP(t *Thread) {
	if t.PXP != nil {
		return
	}
	t.PXP = NewPXP()
	if t.Opened || t.Observer || t.Role == negotiation.RoleArbitrator {
		return
	}
	if e.cfg.CardFor == nil {
		return
	}
	card, id := e.cfg.CardFor(t)
	if card == nil {
		return
	}
	m, err := e.Mandate(t, card)
	if err != nil {
		e.cfg.Logger.Error("no mandate", "negotiation", t.ID, "err", err)
		return
	}
	t.PXP.Mandate, t.PXP.CardID = m, id
}

// PutCard adds the card.sealed record of t's card in force when t opened
// to b, once (t's lock held; nothing otherwise). It goes with the thread's
// first records; once b is written the card counts as sealed.
func (e *Engine) PutCard(b *Batch, t *Thread) {
	if t.PXP == nil || t.PXP.Mandate == nil || t.PXP.Sealed {
		return
	}
	scope := ScopeOpened
	if ann := t.Params.Announcement; ann != nil && ann.Sender.EVMAddress == e.self {
		scope = ScopeAnnouncement
	}
	px := t.PXP
	r, err := CardSealedRecord(t.ID, px.Mandate.Card(), px.CardID, scope, "", e.cfg.Now())
	if err != nil {
		b.Fail(err)
		return
	}
	b.Put(r, func() {
		px.Sealed = true
		px.Events++
	})
}

// CardSealedRecord returns the card.sealed record of card c, stored as
// id, at time at, for negotiation nid ("" for the default card).
func CardSealedRecord(nid string, c *negotiation.IntentCard, id, scope string, via negotiation.Via, at time.Time) (ledger.Record, error) {
	body, err := json.Marshal(CardSealedBody{Hash: c.Seal(), Principal: c.Principal.Name, Card: id, Scope: scope, Via: via})
	if err != nil {
		return ledger.Record{}, err
	}
	return ledger.Record{Kind: ledger.KindCardSealed, NegotiationID: nid, Body: body, At: at}, nil
}
