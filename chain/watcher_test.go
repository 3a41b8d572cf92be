package chain

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

type collector struct {
	mu     sync.Mutex
	events []Event
	fail   error
}

func (c *collector) handle(_ context.Context, evs []Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return c.fail
	}
	c.events = append(c.events, evs...)
	return nil
}

func (c *collector) take() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.events
	c.events = nil
	return out
}

func (e *env) watcher(t *testing.T, cursor Cursor, h Handler, confirmations uint64) *Watcher {
	t.Helper()
	cfg := e.cfg
	cfg.Confirmations = confirmations
	w, err := NewWatcher(e.sim, cfg, cursor, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func TestWatcherWaitsForConfirmations(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	col := &collector{}
	w := e.watcher(t, NewFileCursor(filepath.Join(t.TempDir(), "cursor.json")), col.handle, 3)
	if _, err := w.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	col.take() // the deployment's history, if any
	res := e.fund(e.settlement(eths(1)))
	if _, err := w.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if evs := col.take(); len(evs) != 0 {
		t.Fatalf("events reported with one confirmation: %v", names(evs))
	}
	e.sim.Commit()
	if _, err := w.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if evs := col.take(); len(evs) != 0 {
		t.Fatalf("events reported with two confirmations: %v", names(evs))
	}
	e.sim.Commit()
	if _, err := w.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	evs := col.take()
	for _, want := range []string{"TaskCreated", "MetaEvidence", "TaskUpdated"} {
		if !hasEvent(evs, "TaskRegistry", want) {
			t.Fatalf("missing %s among %v", want, names(evs))
		}
	}
	for _, ev := range evs {
		if ev.Log.TxHash != res.Receipt.TxHash {
			t.Fatalf("unexpected event %s.%s", ev.Contract, ev.Name)
		}
	}
}

func TestWatcherResumesAfterRestart(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "cursor.json")
	col := &collector{}
	w := e.watcher(t, NewFileCursor(path), col.handle, 1)
	if _, err := e.poster.c.Anchor(ctx, rand32(), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if evs := col.take(); len(evs) != 1 || evs[0].Name != "Anchored" {
		t.Fatalf("first run: %v", names(evs))
	}
	_ = w.Close()

	// While the watcher is down, more happens.
	if _, err := e.poster.c.Anchor(ctx, rand32(), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := e.worker.c.Anchor(ctx, rand32(), 1); err != nil {
		t.Fatal(err)
	}
	w2 := e.watcher(t, NewFileCursor(path), col.handle, 1)
	if _, err := w2.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	evs := col.take()
	if len(evs) != 2 {
		t.Fatalf("after restart got %v, want the two new anchors only", names(evs))
	}
	// A failing handler does not move the cursor: the range comes again.
	if _, err := e.poster.c.Anchor(ctx, rand32(), 3); err != nil {
		t.Fatal(err)
	}
	col.fail = errors.New("disk full")
	if _, err := w2.Poll(ctx); err == nil {
		t.Fatal("handler error not reported")
	}
	col.fail = nil
	if _, err := w2.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if evs := col.take(); len(evs) != 1 || evs[0].Name != "Anchored" {
		t.Fatalf("after a failed round: %v", names(evs))
	}
}

func TestWatcherRunsInBackground(t *testing.T) {
	e := newEnv(t)
	col := &collector{}
	w := e.watcher(t, NewFileCursor(filepath.Join(t.TempDir(), "c.json")), col.handle, 1)
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.poster.c.PublishScope(t.Context(), rand32(), rand32()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var got []Event
	for time.Now().Before(deadline) && !hasEvent(got, "TaskScopeRegistry", "ScopePublished") {
		got = append(got, col.take()...)
		time.Sleep(5 * time.Millisecond)
	}
	if !hasEvent(got, "TaskScopeRegistry", "ScopePublished") {
		t.Fatalf("background watcher delivered %v", names(got))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if err := w.Start(t.Context()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
}
