package node

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/ledger"
)

// cursorPersistEvery is how many blocks without events the cursor may
// advance in memory before it is written anyway.
const cursorPersistEvery = 1000

// ledgerCursor is the chain watcher's Cursor in the ledger. The watcher
// saves after every scanned range; a save is written (chain.cursor) only
// when the range delivered events or the cursor ran far ahead of its last
// record, so an idle chain adds no entries. After a restart the watcher
// rescans from the last record: handlers are idempotent (a fact the thread
// holds is a duplicate and a chain event recorded is recognised by its
// transaction and log index).
type ledgerCursor struct {
	l *ledger.Ledger

	mu        sync.Mutex
	next      uint64
	ok        bool
	persisted uint64
	dirty     bool // events were delivered since the last record
}

var _ chain.Cursor = (*ledgerCursor)(nil)

func newLedgerCursor(l *ledger.Ledger) *ledgerCursor { return &ledgerCursor{l: l} }

type cursorBody struct {
	Next uint64 `json:"next"`
}

// load reads the last chain.cursor entry.
func (c *ledgerCursor) load(ctx context.Context) error {
	for e, err := range c.l.ByKind(ctx, KindChainCursor) {
		if err != nil {
			return fmt.Errorf("node: chain cursor: %w", err)
		}
		var b cursorBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return fmt.Errorf("node: chain cursor entry %d: %w", e.Seq, err)
		}
		c.next, c.ok, c.persisted = b.Next, true, b.Next
	}
	return nil
}

// Load returns the next block to scan.
func (c *ledgerCursor) Load(context.Context) (uint64, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.next, c.ok, nil
}

// delivered marks that events were handled since the last record.
func (c *ledgerCursor) delivered() {
	c.mu.Lock()
	c.dirty = true
	c.mu.Unlock()
}

// Save advances the cursor (never backwards: two rounds may overlap) and
// records it when due.
func (c *ledgerCursor) Save(ctx context.Context, next uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && next <= c.next {
		return nil
	}
	c.next, c.ok = next, true
	if !c.dirty && next-c.persisted < cursorPersistEvery {
		return nil
	}
	body, _ := json.Marshal(cursorBody{Next: next})
	if _, _, err := c.l.Append(ctx, ledger.Record{Kind: KindChainCursor, Body: body}); err != nil {
		return err
	}
	c.persisted, c.dirty = next, false
	return nil
}
