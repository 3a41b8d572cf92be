package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"

	"github.com/parleynet/parley/strictjson"
)

// Cursor records the next block a Watcher will scan, so it resumes there
// after a restart. node backs it with its ledger; FileCursor keeps it in a
// file.
type Cursor interface {
	// Load returns the next block to scan and whether one was recorded.
	Load(ctx context.Context) (next uint64, ok bool, err error)
	// Save durably records the next block to scan.
	Save(ctx context.Context, next uint64) error
}

// Handler receives the events of one scanned block range, in chain order.
// An error stops the round; the same range is delivered again next time, so
// a handler must be idempotent (events carry block, transaction and index).
type Handler func(ctx context.Context, events []Event) error

// Watcher reports the events of Parley's contracts once they have
// Config.Confirmations blocks, and records its progress in a Cursor. Blocks
// deeper than Confirmations are treated as final.
type Watcher struct {
	b      Backend
	cfg    Config
	cursor Cursor
	h      Handler
	log    *slog.Logger
	table  eventTable

	mu      sync.Mutex
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closed  bool
	lastErr error
}

// NewWatcher returns a Watcher over b. It does no I/O; Start begins
// polling, Poll runs one round by hand.
func NewWatcher(b Backend, cfg Config, cursor Cursor, h Handler, log *slog.Logger) (*Watcher, error) {
	if b == nil || cursor == nil || h == nil {
		return nil, fmt.Errorf("%w: watcher needs a backend, a cursor and a handler", ErrInvalidConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Watcher{
		b: b, cfg: cfg, cursor: cursor, h: h,
		log:   log.With("component", "chain.watcher"),
		table: newEventTable(cfg.Contracts),
	}, nil
}

// Start polls every Config.PollInterval until Close or ctx ends. Errors are
// logged and retried on the next tick.
func (w *Watcher) Start(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if w.cancel != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(w.cfg.PollInterval)
		defer t.Stop()
		for {
			if _, err := w.Poll(ctx); err != nil && ctx.Err() == nil {
				w.log.Warn("watch round failed", "err", err)
				w.mu.Lock()
				w.lastErr = err
				w.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// LastError returns the error of the last failed background round, or nil.
func (w *Watcher) LastError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastErr
}

// Close stops polling and waits for the current round; it is safe to call
// twice.
func (w *Watcher) Close() error {
	w.mu.Lock()
	w.closed = true
	cancel := w.cancel
	w.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	w.wg.Wait()
	return nil
}

// Poll scans every block that has the required confirmations and that the
// cursor has not passed, delivers their events, and advances the cursor
// after each delivered range. It returns how many events it delivered.
func (w *Watcher) Poll(ctx context.Context) (int, error) {
	next, ok, err := w.cursor.Load(ctx)
	if err != nil {
		return 0, fmt.Errorf("chain: watcher: load cursor: %w", err)
	}
	if !ok {
		next = w.cfg.Contracts.DeployBlock
	}
	head, err := w.b.BlockNumber(ctx)
	if err != nil {
		return 0, fmt.Errorf("chain: watcher: block number: %w", err)
	}
	if head+1 < w.cfg.Confirmations {
		return 0, nil
	}
	safe := head + 1 - w.cfg.Confirmations
	delivered := 0
	for next <= safe {
		hi := min(next+w.cfg.LogRange-1, safe)
		logs, err := w.b.FilterLogs(ctx, ethereum.FilterQuery{
			FromBlock: new(big.Int).SetUint64(next),
			ToBlock:   new(big.Int).SetUint64(hi),
			Addresses: w.cfg.Contracts.List(),
		})
		if err != nil {
			return delivered, fmt.Errorf("chain: watcher: logs %d-%d: %w", next, hi, err)
		}
		var events []Event
		for _, l := range logs {
			if ev, ok := w.table.decode(l); ok {
				events = append(events, ev)
			}
		}
		if len(events) > 0 {
			if err := w.h(ctx, events); err != nil {
				return delivered, fmt.Errorf("chain: watcher: handler: %w", err)
			}
			delivered += len(events)
		}
		if err := w.cursor.Save(ctx, hi+1); err != nil {
			return delivered, fmt.Errorf("chain: watcher: save cursor: %w", err)
		}
		w.log.Debug("blocks scanned", "from", next, "to", hi, "events", len(events))
		next = hi + 1
	}
	return delivered, nil
}

// FileCursor is a Cursor kept in a small JSON file, replaced atomically
// (write, fsync, rename, fsync of the directory).
type FileCursor struct {
	path string
}

var _ Cursor = (*FileCursor)(nil)

// NewFileCursor returns a cursor stored at path.
func NewFileCursor(path string) *FileCursor { return &FileCursor{path: path} }

type cursorFile struct {
	Next uint64 `json:"next"`
}

// Load reads the cursor; a missing file means none was recorded.
func (f *FileCursor) Load(context.Context) (uint64, bool, error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var c cursorFile
	if err := strictjson.Unmarshal(b, &c); err != nil {
		return 0, false, fmt.Errorf("chain: cursor %s: %w", f.path, err)
	}
	return c.Next, true, nil
}

// Save writes the cursor durably.
func (f *FileCursor) Save(_ context.Context, next uint64) error {
	b, _ := json.Marshal(cursorFile{Next: next})
	return writeFileAtomic(f.path, b)
}

func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
