package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// Config is what an Engine is built with: its narrow view of the node
// that holds it (STYLE.md: container versus service).
type Config struct {
	// Now is the clock.
	Now func() time.Time
	// Unknown returns the error for a negotiation the engine does not hold
	// (nil: ErrUnknown). The node answers a quarantined one differently.
	Unknown func(nid string) error
	// Count is told the number of threads after each change (a metric);
	// nil for none.
	Count func(int)
	// OnState is told, as the effect of the batch that records it, that
	// t's recorded state went from from to to (t's lock held); nil for
	// none.
	OnState func(t *Thread, from, to negotiation.State)
	// Seen returns when the announcement h was first seen (now when not
	// known), for the record of a stranger's announcement a new thread
	// answers; nil: now.
	Seen func(h negotiation.Hash, now time.Time) time.Time
	// CardFor returns the intent card a new thread takes and the CID of
	// the object that stores it (the node's default card, or the card
	// its announcement carried), or nil: the thread runs without one.
	// Nil: no thread has a card.
	CardFor func(t *Thread) (*negotiation.IntentCard, string)
	// OnFact is told of each chain fact recorded and applied in t, with
	// the outcome and the time it was recorded at (t's lock held); nil for
	// none.
	OnFact func(t *Thread, f negotiation.Fact, at LogRef, out negotiation.Outcome, now time.Time)
	// Logger logs what should not happen (an Apply that disagrees with
	// its Check); nil discards.
	Logger *slog.Logger
}

// Engine holds the threads of a node: a map from negotiation id to
// thread, the task ids their agreements name, and the chain events they
// recorded. Its own lock guards the maps only and is never held while a
// thread's lock is taken or a caller's function runs, so it can be asked
// under any other lock.
type Engine struct {
	cfg  Config
	led  *ledger.Ledger      // where every step is recorded (Open)
	self negotiation.Address // the node's address (Open)

	mu       sync.Mutex
	threads  map[string]*Thread
	byTask   map[[32]byte]string
	seenLogs map[string]bool // chain events recorded, by LogKey
}

// New returns an engine holding no thread and no ledger yet (Open). It
// does no I/O.
func New(cfg Config) *Engine {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Engine{cfg: cfg, threads: map[string]*Thread{}, byTask: map[[32]byte]string{}, seenLogs: map[string]bool{}}
}

// Open gives the engine the ledger it records every step in and the
// node's address, once the node has opened its keys and the ledger
// (Start); until then Write fails with ErrNoLedger.
func (e *Engine) Open(l *ledger.Ledger, self negotiation.Address) { e.led, e.self = l, self }

// Ledger returns the ledger Open gave, or nil.
func (e *Engine) Ledger() *ledger.Ledger { return e.led }

// Lookup returns the thread of negotiation nid, or nil. The thread's lock
// is not held: a caller that takes it checks Dead.
func (e *Engine) Lookup(nid string) *Thread {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.threads[nid]
}

// With runs f with the lock of nid's thread held and returns what f
// returns; a negotiation the engine does not hold is Config.Unknown's
// error and f does not run. The lock is released when f returns, on
// every path.
func (e *Engine) With(nid string, f func(*Thread) error) error {
	t, err := e.locked(nid)
	if err != nil {
		return err
	}
	defer t.mu.Unlock()
	return f(t)
}

// locked returns the live thread of nid with its lock held, or the error
// With returns; With unlocks it.
func (e *Engine) locked(nid string) (*Thread, error) {
	for {
		t := e.Lookup(nid)
		if t == nil {
			if e.cfg.Unknown != nil {
				return nil, e.cfg.Unknown(nid)
			}
			return nil, fmt.Errorf("%w %s", ErrUnknown, nid)
		}
		t.mu.Lock()
		if !t.Dead {
			return t, nil
		}
		t.mu.Unlock()
	}
}

// Each runs f on every thread with its lock held, in the order of their
// negotiation ids, skipping those removed meanwhile; it stops early when
// ctx ends.
func (e *Engine) Each(ctx context.Context, f func(*Thread)) {
	for _, t := range e.All() {
		if ctx.Err() != nil {
			return
		}
		t.mu.Lock()
		if !t.Dead {
			f(t)
		}
		t.mu.Unlock()
	}
}

// All returns every thread, in the order of their negotiation ids,
// without their locks.
func (e *Engine) All() []*Thread {
	e.mu.Lock()
	out := make([]*Thread, 0, len(e.threads))
	for _, t := range e.threads {
		out = append(out, t)
	}
	e.mu.Unlock()
	slices.SortFunc(out, func(a, b *Thread) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}

// IDs returns the negotiation ids of every thread, sorted.
func (e *Engine) IDs() []string {
	e.mu.Lock()
	ids := make([]string, 0, len(e.threads))
	for id := range e.threads {
		ids = append(ids, id)
	}
	e.mu.Unlock()
	slices.Sort(ids)
	return ids
}

// Len returns the number of threads.
func (e *Engine) Len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.threads)
}

// Register adds t (its lock held by the caller, or t not yet shared),
// replacing any thread of its negotiation, and indexes its task id.
func (e *Engine) Register(t *Thread) {
	e.mu.Lock()
	e.threads[t.ID] = t
	e.indexLocked(t)
	n := len(e.threads)
	e.mu.Unlock()
	if e.cfg.Count != nil {
		e.cfg.Count(n)
	}
}

// Claim adds a fresh thread t, locked, unless the engine holds one for
// its negotiation already: then it returns that one, unlocked, and false.
// A claimed thread is registered once its first step is recorded
// (Register) or dropped (Drop).
func (e *Engine) Claim(t *Thread) (*Thread, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if old := e.threads[t.ID]; old != nil {
		return old, false
	}
	t.mu.Lock()
	e.threads[t.ID] = t
	return t, true
}

// Drop removes t (its lock held) if the engine holds it, and marks it
// dead, so a caller waiting on its lock looks the negotiation up again.
func (e *Engine) Drop(t *Thread) {
	e.mu.Lock()
	if e.threads[t.ID] == t {
		delete(e.threads, t.ID)
	}
	e.mu.Unlock()
	t.Dead = true
}

// Index records the task id of t's agreement, so chain events find t
// (t's lock held).
func (e *Engine) Index(t *Thread) {
	e.mu.Lock()
	e.indexLocked(t)
	e.mu.Unlock()
}

func (e *Engine) indexLocked(t *Thread) {
	if a := t.Th.Agreement(); a != nil {
		e.byTask[[32]byte(a.Digest)] = t.ID
	}
}

// ByTask returns the negotiation of a task id, or "".
func (e *Engine) ByTask(id [32]byte) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.byTask[id]
}

// Seen reports whether the chain event key (LogKey) is recorded.
func (e *Engine) Seen(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seenLogs[key]
}

// MarkSeen notes that the chain event key (LogKey) is recorded.
func (e *Engine) MarkSeen(key string) {
	e.mu.Lock()
	e.seenLogs[key] = true
	e.mu.Unlock()
}

// LogKey returns the key of the chain event at log index of transaction
// tx.
func LogKey(tx string, index uint) string { return fmt.Sprintf("%s/%d", tx, index) }
