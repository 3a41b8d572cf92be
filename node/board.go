package node

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// boardEntry is one announcement on the task board as this node saw it.
type boardEntry struct {
	env  *negotiation.Envelope
	seen time.Time
	own  bool
	// answered: a negotiation of this node answers it (never evicted).
	answered bool
}

// Announcement is a public task announcement on the board.
type Announcement struct {
	// Hash is the announcement envelope's hash: answers name it in
	// inReplyTo (a counter) or acceptedOfferHash (an acceptance).
	Hash negotiation.Hash `json:"hash"`
	// CID is the envelope's content identifier.
	CID string `json:"cid"`
	// Poster is the announcing node's EVM address.
	Poster negotiation.Address `json:"poster"`
	// Principal is the display name of the principal the poster acts
	// for, as its sealed card names it (PXP), when the announcement
	// carries one.
	Principal string `json:"principal,omitempty"`
	// Terms are the announced terms (revision 1 of every negotiation that
	// answers it).
	Terms negotiation.Terms `json:"terms"`
	// Timestamp is the announcement's signed timestamp.
	Timestamp time.Time `json:"timestamp"`
	// Own is true for this node's own announcements.
	Own bool `json:"own"`
	// Scope is the last check of the scope hash the terms name against
	// the chain (scope.go); absent when they name none or before a check.
	Scope *ScopeCheck `json:"scope,omitempty"`
	// ScopeTx is the transaction that published the scope (PostTask's
	// answer, when it published one).
	ScopeTx *TxRef `json:"scopeTx,omitempty"`
}

func (b *boardEntry) view() Announcement {
	p := b.env.Payload.(*negotiation.TaskProposal)
	return Announcement{
		Hash: b.env.Hash(), CID: b.env.CID().String(), Poster: b.env.Sender.EVMAddress, Principal: p.Principal,
		Terms: p.Terms, Timestamp: b.env.Timestamp, Own: b.own,
	}
}

// board is the task board: the announcements this node saw, kept within
// the bounds of Config.Board (board_limits.go). It owns its entries and
// their lock, a leaf but for the consent book's (the bounds ask it who is
// allowed): the board is read under receiver.mu (threadFor) and never takes it.
// An entry's env, seen and own never change once it is on the board.
type board struct {
	cfg     BoardConfig
	consent func(negotiation.Address) Consent // the principal's consent states

	mu      sync.Mutex
	entries map[negotiation.Hash]*boardEntry
}

func newBoard(cfg BoardConfig, consent func(negotiation.Address) Consent) *board {
	return &board{cfg: cfg, consent: consent, entries: map[negotiation.Hash]*boardEntry{}}
}

// with runs f with the board's lock held.
func (b *board) with(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f()
}

// get returns the entry with hash h, or nil.
func (b *board) get(h negotiation.Hash) (e *boardEntry) {
	b.with(func() { e = b.entries[h] })
	return e
}

// has reports whether an announcement with hash h is on the board.
func (b *board) has(h negotiation.Hash) bool { return b.get(h) != nil }

// announcement returns the entry with hash h, or an unknown_task error.
func (b *board) announcement(h negotiation.Hash) (*boardEntry, error) {
	if e := b.get(h); e != nil {
		return e, nil
	}
	return nil, fail(CodeUnknownTask, "no announcement %s on the board", h)
}

// put puts e on the board as it is: this node's own announcement, or one
// the ledger holds (at start, before restore bounds them).
func (b *board) put(e *boardEntry) {
	b.with(func() { b.entries[e.env.Hash()] = e })
}

// loadEntry puts on the board the announcement an envelope entry e of
// the ledger led stored, marked own when self sent it (at start, as
// Engine.Load's Entry hook: other entries, and envelopes of other types
// after reading their type, are skipped).
func (b *board) loadEntry(ctx context.Context, led *ledger.Ledger, self negotiation.Address, e ledger.Entry) error {
	if e.Kind != ledger.KindEnvelopeSent && e.Kind != ledger.KindEnvelopeReceived {
		return nil
	}
	var h struct {
		Type negotiation.MessageType `json:"type"`
	}
	if err := json.Unmarshal(e.Body, &h); err != nil || h.Type != negotiation.TypeTaskProposal || !e.CID.Defined() {
		return nil
	}
	raw, err := led.Object(ctx, e.CID)
	if err != nil {
		return nil // pruned
	}
	env, err := negotiation.Decode(raw, negotiation.DecodeOptions{MaxBytes: len(raw)})
	if err != nil {
		return fmt.Errorf("node: load entry %d: %w", e.Seq, err)
	}
	if env.IsAnnouncement() {
		b.put(&boardEntry{env: env, seen: e.At, own: env.Sender.EVMAddress == self})
	}
	return nil
}

// take puts a received announcement on the board at now, making room
// for it within the bounds first: the oldest leave first.
func (b *board) take(env *negotiation.Envelope, now time.Time) {
	b.with(func() {
		b.admitLocked(env.Sender.EVMAddress, now)
		b.entries[env.Hash()] = &boardEntry{env: env, seen: now}
	})
}

// answer marks e answered: a negotiation of this node answers it, so the
// board keeps it while this node negotiates on it.
func (b *board) answer(e *boardEntry) {
	b.with(func() { e.answered = true })
}

// seenAt returns when this node first saw the announcement with hash h,
// or def when it is not on the board.
func (b *board) seenAt(h negotiation.Hash, def time.Time) time.Time {
	if e := b.get(h); e != nil {
		return e.seen
	}
	return def
}

// len returns how many announcements the board holds.
func (b *board) len() (k int) {
	b.with(func() { k = len(b.entries) })
	return k
}

// list returns the announcements on the board at now, newest first (the
// stale ones leave first).
func (b *board) list(now time.Time) []Announcement {
	var out []Announcement
	b.with(func() {
		b.pruneLocked(now)
		out = make([]Announcement, 0, len(b.entries))
		for _, e := range b.entries {
			out = append(out, e.view())
		}
	})
	slices.SortFunc(out, func(a, b Announcement) int { return b.Timestamp.Compare(a.Timestamp) })
	return out
}
