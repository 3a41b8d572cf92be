package node

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// Consent is the principal's decision about one counterparty (an EVM
// address), as messaging systems keep one: allowed, unknown (the default)
// or denied. It governs only the negotiations a counterparty opens with
// this node (a direct proposal to it, or an answer to one of its
// announcements); a negotiation this node opened, by proposing to the
// counterparty or answering its announcement, is this node's own choice
// and is never refused (docs/node.md, "Consent").
type Consent string

// Consent states.
const (
	// ConsentAllowed: the counterparty opens negotiations without bound.
	ConsentAllowed Consent = "allowed"
	// ConsentUnknown: the default; the counterparty's open negotiations
	// are bounded (Config.Consent).
	ConsentUnknown Consent = "unknown"
	// ConsentDenied: every new negotiation the counterparty opens is
	// refused; those already open go on.
	ConsentDenied Consent = "denied"
)

// Valid reports whether c is one of the three states.
func (c Consent) Valid() bool {
	return c == ConsentAllowed || c == ConsentUnknown || c == ConsentDenied
}

// How a consent change arrived, recorded with it.
const (
	ConsentViaAPI = "api" // the node's HTTP API (and the CLI, which uses it)
	ConsentViaWeb = "web" // the principal's pages
)

// KindConsent records a change of a counterparty's consent state: body
// {address, state, previous, via}. It names no negotiation, so no proof
// bundle carries it. Start replays these entries in order.
const KindConsent = "consent"

type consentBody struct {
	Address  negotiation.Address `json:"address"`
	State    Consent             `json:"state"`
	Previous Consent             `json:"previous"`
	Via      string              `json:"via"`
}

// ConsentView is one counterparty as the principal's consent list shows
// it.
type ConsentView struct {
	Address negotiation.Address `json:"address"`
	State   Consent             `json:"state"`
	// Via and At say how and when the principal last set the state (empty
	// for a counterparty never set: unknown).
	Via string     `json:"via,omitempty"`
	At  *time.Time `json:"at,omitempty"`
	// Open counts the negotiations this counterparty opened that count as
	// open now (against the bounds while it is unknown).
	Open int `json:"open"`
	// Negotiations counts the negotiations with this counterparty the
	// node holds, whoever opened them.
	Negotiations int `json:"negotiations"`
	// Refused counts the new negotiations refused to it since the node
	// started (nothing of them is stored).
	Refused int `json:"refusedSinceStart,omitempty"`
}

// ConsentBook is the principal's consent list: the counterparties' states
// (recorded in the ledger), the negotiations unknown counterparties
// opened, and the refusals counted since the node started. It owns its
// state and its locks; reach it with Node.ConsentBook. Its lock is a
// leaf: it is taken under receiver.mu (threadFor), under a thread's lock
// (recordState) and under the board's, never the other way round.
type ConsentBook struct {
	cfg     ConsentConfig
	now     func() time.Time
	running func() error // ErrNotStarted unless the node is started
	events  *broadcaster
	// parties returns the negotiations the node holds per counterparty
	// and the ids of the live ones (it takes the engine's and the threads'
	// locks: never called with c.mu held).
	parties func() (map[negotiation.Address]int, map[string]bool)

	// Set by load, at Start.
	led  *ledger.Ledger
	log  *slog.Logger
	self negotiation.Address

	change  sync.Mutex // one change at a time, so the ledger's order is the book's
	mu      sync.Mutex
	states  map[negotiation.Address]consentRecord
	opened  map[string]*openedBy // negotiations a counterparty opened, by negotiationId
	refused map[negotiation.Address]int
}

type consentRecord struct {
	state Consent
	via   string
	at    time.Time
}

// openedBy is a negotiation a counterparty opened: by whom, when this node
// recorded it (its own clock), and whether it left the negotiation phase.
type openedBy struct {
	by      negotiation.Address
	at      time.Time
	settled bool
}

// maxRefusedTracked bounds the counterparties whose refusals are counted
// in memory.
const maxRefusedTracked = 4096

func newConsentBook(cfg ConsentConfig, now func() time.Time, running func() error, events *broadcaster,
	parties func() (map[negotiation.Address]int, map[string]bool)) *ConsentBook {
	return &ConsentBook{
		cfg: cfg, now: now, running: running, events: events, parties: parties,
		log:    slog.New(slog.DiscardHandler),
		states: map[negotiation.Address]consentRecord{}, opened: map[string]*openedBy{},
		refused: map[negotiation.Address]int{},
	}
}

func (c *ConsentBook) stateLocked(a negotiation.Address) Consent {
	if r, ok := c.states[a]; ok {
		return r.state
	}
	return ConsentUnknown
}

// stateOf returns a's consent state.
func (c *ConsentBook) stateOf(a negotiation.Address) Consent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stateLocked(a)
}

// negotiationPhase reports whether st is before any agreement or end.
func negotiationPhase(st negotiation.State) bool {
	return st == negotiation.StateOpen || st == negotiation.StateProposed || st == negotiation.StateCountered
}

// admit decides whether from may open negotiation nid (receiver.mu held, before
// the thread exists; live reports whether the node holds a negotiation):
// "" admits it and counts it, else the consent code the sender is
// answered. A refusal writes nothing.
func (c *ConsentBook) admit(nid string, from negotiation.Address, live func(nid string) bool) negotiation.Code {
	c.mu.Lock()
	defer c.mu.Unlock()
	state := c.stateLocked(from)
	if state == ConsentAllowed {
		return ""
	}
	refuse := func(code p2p.Code) negotiation.Code {
		if _, ok := c.refused[from]; ok || len(c.refused) < maxRefusedTracked {
			c.refused[from]++
		}
		c.log.Debug("negotiation refused by consent", "from", from, "negotiation", nid, "code", code)
		return negotiation.Code(code)
	}
	if state == ConsentDenied {
		return refuse(p2p.CodeConsentDenied)
	}
	per, total := c.countLocked(from, live)
	if per >= c.cfg.PerCounterparty || total >= c.cfg.Total {
		return refuse(p2p.CodeConsentLimit)
	}
	c.opened[nid] = &openedBy{by: from, at: c.now()}
	return ""
}

// countLocked returns how many open negotiations from opened and how many
// all unknown counterparties did, forgetting those that stopped counting
// (c.mu held): settled, older than the window, or dropped (not live).
func (c *ConsentBook) countLocked(from negotiation.Address, live func(string) bool) (per, total int) {
	now := c.now()
	for id, o := range c.opened {
		if o.settled || now.Sub(o.at) >= c.cfg.Window || !live(id) {
			delete(c.opened, id)
			continue
		}
		if c.stateLocked(o.by) != ConsentUnknown {
			continue // allowed is unbounded; denied opens nothing more
		}
		total++
		if o.by == from {
			per++
		}
	}
	return per, total
}

// settled notes that negotiation nid is in state st (t.mu held): once it
// leaves the negotiation phase it no longer counts as open.
func (c *ConsentBook) settled(nid string, st negotiation.State) {
	if negotiationPhase(st) {
		return
	}
	c.mu.Lock()
	if o := c.opened[nid]; o != nil {
		o.settled = true
	}
	c.mu.Unlock()
}

// load replays the consent entries of led and counts the negotiations
// counterparties opened that are still open (at start, after the threads
// are loaded: openers are the negotiations in the negotiation phase that
// a counterparty opened, by whom). Those of a counterparty allowed now
// are not counted, as they are not while it is allowed. The book records
// its changes in led from now on, and logs to log.
func (c *ConsentBook) load(ctx context.Context, led *ledger.Ledger, log *slog.Logger, self negotiation.Address, openers map[string]negotiation.Address) error {
	states := map[negotiation.Address]consentRecord{}
	for e, err := range led.ByKind(ctx, KindConsent) {
		if err != nil {
			return fmt.Errorf("node: load consent: %w", err)
		}
		var b consentBody
		if err := json.Unmarshal(e.Body, &b); err != nil || !b.State.Valid() {
			return fmt.Errorf("node: load consent entry %d: %v", e.Seq, err)
		}
		if b.State == ConsentUnknown {
			delete(states, b.Address)
		} else {
			states[b.Address] = consentRecord{state: b.State, via: b.Via, at: e.At}
		}
	}
	openedAt := map[string]time.Time{}
	for e, err := range led.ByKind(ctx, KindThreadOpened) {
		if err != nil {
			return fmt.Errorf("node: load consent: %w", err)
		}
		if _, ok := openedAt[e.NegotiationID]; !ok {
			openedAt[e.NegotiationID] = e.At
		}
	}
	now := c.now()
	opened := map[string]*openedBy{}
	for id, by := range openers {
		at, known := openedAt[id]
		if !known || states[by].state == ConsentAllowed || now.Sub(at) >= c.cfg.Window {
			continue
		}
		opened[id] = &openedBy{by: by, at: at}
	}
	c.mu.Lock()
	c.led, c.log, c.self = led, log, self
	c.states, c.opened = states, opened
	c.mu.Unlock()
	return nil
}

// openerOf returns the counterparty that opened t, when an envelope it
// sent opened it (not this node, not a thread joined late).
func openerOf(t *thread, self negotiation.Address) (negotiation.Address, bool) {
	if t.Observer {
		return negotiation.Address{}, false
	}
	log := t.Th.Log()
	if len(log) == 0 || log[0].Sender == self {
		return negotiation.Address{}, false
	}
	return log[0].Sender, true
}

// ConsentBook returns the principal's consent list.
func (n *Node) ConsentBook() *ConsentBook { return n.cs }

// Set sets counterparty a's consent state, for the principal (via
// ConsentViaAPI or ConsentViaWeb): the change is recorded in the ledger
// (consent) before it takes effect, so it survives a restart and is
// audited. Setting the state a counterparty already has records nothing.
// It changes no negotiation already open.
func (c *ConsentBook) Set(ctx context.Context, a negotiation.Address, state Consent, via string) (ConsentView, error) {
	if err := c.running(); err != nil {
		return ConsentView{}, err
	}
	switch {
	case !state.Valid():
		return ConsentView{}, fail(CodeBadArgument, "consent state %q: allowed, unknown or denied", state)
	case a == (negotiation.Address{}) || a == c.self:
		return ConsentView{}, fail(CodeBadArgument, "counterparty %s: another node's EVM address", a)
	case via != ConsentViaAPI && via != ConsentViaWeb:
		return ConsentView{}, fail(CodeBadArgument, "via %q: api or web", via)
	}
	c.change.Lock()
	defer c.change.Unlock()
	prev := c.stateOf(a)
	if prev == state {
		return c.view(a), nil
	}
	body, err := json.Marshal(consentBody{Address: a, State: state, Previous: prev, Via: via})
	if err != nil {
		return ConsentView{}, err
	}
	e, _, err := c.led.Append(ctx, ledger.Record{Kind: KindConsent, Body: body, At: c.now()})
	if err != nil {
		return ConsentView{}, failWrap(CodeStoreFailed, err, "consent")
	}
	c.mu.Lock()
	if state == ConsentUnknown {
		delete(c.states, a)
	} else {
		c.states[a] = consentRecord{state: state, via: via, at: e.At}
	}
	c.mu.Unlock()
	c.log.Info("consent changed", "counterparty", a, "state", state, "previous", prev, "via", via)
	c.events.publish(Event{Kind: EventConsent, Detail: a.String(), Code: string(state), At: e.At})
	return c.view(a), nil
}

// Of returns counterparty a's consent state and counts.
func (c *ConsentBook) Of(a negotiation.Address) (ConsentView, error) {
	if err := c.running(); err != nil {
		return ConsentView{}, err
	}
	return c.view(a), nil
}

// List returns every counterparty the principal set a state for, that
// this node holds a negotiation with, or that was refused since the node
// started, ordered by address.
func (c *ConsentBook) List() ([]ConsentView, error) {
	if err := c.running(); err != nil {
		return nil, err
	}
	return c.views(nil), nil
}

func (c *ConsentBook) view(a negotiation.Address) ConsentView {
	for _, v := range c.views(&a) {
		return v
	}
	return ConsentView{Address: a, State: ConsentUnknown}
}

func (c *ConsentBook) views(only *negotiation.Address) []ConsentView {
	views := map[negotiation.Address]*ConsentView{}
	get := func(a negotiation.Address) *ConsentView {
		v := views[a]
		if v == nil {
			v = &ConsentView{Address: a, State: ConsentUnknown}
			views[a] = v
		}
		return v
	}
	want := func(a negotiation.Address) bool { return only == nil || *only == a }
	// The negotiations first (each under its own lock), then the book.
	held, live := c.parties()
	for a, k := range held {
		if want(a) {
			get(a).Negotiations = k
		}
	}
	now := c.now()
	c.mu.Lock()
	for a, r := range c.states {
		if want(a) {
			v := get(a)
			at := r.at
			v.State, v.Via, v.At = r.state, r.via, &at
		}
	}
	for a, k := range c.refused {
		if want(a) {
			get(a).Refused = k
		}
	}
	for id, o := range c.opened {
		if !o.settled && live[id] && now.Sub(o.at) < c.cfg.Window && want(o.by) {
			get(o.by).Open++
		}
	}
	c.mu.Unlock()
	out := make([]ConsentView, 0, len(views))
	for _, v := range views {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b ConsentView) int { return slices.Compare(a.Address[:], b.Address[:]) })
	return out
}

// parties returns how many negotiations the node holds with each
// counterparty, and the ids of the live ones (the consent book's view of
// the threads).
func (n *Node) parties() (map[negotiation.Address]int, map[string]bool) {
	threads := n.eng.All()
	live := make(map[string]bool, len(threads))
	for _, t := range threads {
		live[t.ID] = true
	}
	held := map[negotiation.Address]int{}
	n.eng.Each(context.Background(), func(t *thread) {
		if t.Observer {
			return
		}
		if other := n.eng.OtherParty(t); other != (negotiation.Address{}) {
			held[other]++
		}
	})
	return held, live
}
