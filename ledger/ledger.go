package ledger

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/transparency-dev/merkle/compact"

	"github.com/parleynet/parley/storeguard"
)

// Ledger is an append-only, hash-chained, content-addressed event log in one
// Badger directory. Create it with New, open it with Start, release it with
// Close. All methods are safe for concurrent use.
type Ledger struct {
	cfg Config
	log *slog.Logger

	// mu guards the lifecycle fields; appends hold it for reading while they
	// hand a request to the writer, so Close waits for them.
	mu      sync.RWMutex
	state   lifecycle
	db      *badger.DB
	reqs    chan *request
	anchorC chan struct{}
	cancel  context.CancelFunc
	wg      sync.WaitGroup // the writer and anchor goroutines
	readers sync.WaitGroup // reads in progress

	// tree is the Merkle tree's compact range over every entry: set by
	// Start, then the writer goroutine's alone (nil for a ledger written
	// before the tree and opened read-only).
	tree *compact.Range
	// negCache holds the last seqs of recently written negotiations (the
	// writer goroutine's alone).
	negCache negCache

	// headMu guards head and failed, written by the writer goroutine.
	headMu sync.RWMutex
	head   Head
	failed error

	// stats, written by the writer goroutine only.
	batches atomic.Uint64
	written atomic.Uint64

	// The record of the ledger (Config.RecordFile): recordC wakes the
	// record goroutine after a commit; recorded is the seq last written.
	recordC  chan struct{}
	recorded atomic.Uint64
}

// emptyMemtable reports whether badger.Open failed on an empty memtable
// file: z.NewFile ("Create a new file") while opening the memtables. Badger
// does not wrap it with %w; match its text.
func emptyMemtable(err error) bool {
	s := err.Error()
	return strings.Contains(s, "while opening memtables") && strings.HasSuffix(s, "Create a new file")
}

type lifecycle int

const (
	stateNew lifecycle = iota
	stateOpen
	stateClosed
)

// New returns a ledger for cfg. It does no I/O: Start opens the store.
func New(cfg Config) (*Ledger, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Ledger{cfg: cfg, log: cfg.Logger.With("component", "ledger")}, nil
}

// Start opens the Badger directory (creating it unless ReadOnly), verifies
// every entry after the last verified checkpoint, records the new
// checkpoint, and starts the writer. It returns a *VerifyError naming the
// first bad entry when verification fails; the ledger is then not opened.
func (l *Ledger) Start(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch l.state {
	case stateOpen:
		return ErrStarted
	case stateClosed:
		return ErrClosed
	}
	rec, err := l.precheck()
	if err != nil {
		return err
	}
	if l.cfg.ReadOnly {
		if _, err := os.Stat(l.cfg.Dir); err != nil {
			return fmt.Errorf("ledger: open read-only: %w", err)
		}
	}
	db, err := badger.Open(l.badgerOptions())
	if err != nil && !l.cfg.ReadOnly && emptyMemtable(err) {
		// A kill between creating a memtable file and sizing it leaves
		// an empty one, which holds nothing; Badger sizes it and then
		// fails with z.NewFile (dgraph-io/badger#2207). The second open
		// finds it sized and empty.
		l.log.Warn("empty memtable file left by a crash; opening again", "dir", l.cfg.Dir, "err", err)
		db, err = badger.Open(l.badgerOptions())
	}
	if err != nil {
		// Badger does not wrap this one with %w; match its text.
		if l.cfg.ReadOnly && strings.Contains(err.Error(), badger.ErrTruncateNeeded.Error()) {
			return fmt.Errorf("%w: %s: %v", ErrNeedsRecovery, l.cfg.Dir, err)
		}
		return fmt.Errorf("ledger: open %s: %w", l.cfg.Dir, err)
	}
	head, tree, err := l.open(ctx, db)
	if err == nil {
		err = l.checkRecord(db, head, rec)
	}
	if err != nil {
		if cerr := db.Close(); cerr != nil {
			l.log.Warn("close after failed open", "err", cerr)
		}
		return err
	}
	l.private()
	l.db = db
	l.head = head
	l.tree, l.negCache = tree, negCache{}
	l.reqs = make(chan *request, 2*l.cfg.MaxBatch)
	l.anchorC = make(chan struct{}, 1)
	runCtx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.state = stateOpen
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		l.writer()
	}()
	if l.cfg.AnchorHook != nil && l.cfg.AnchorEvery > 0 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.anchorLoop(runCtx, head.Seq)
		}()
	}
	if l.cfg.RecordFile != "" && !l.cfg.ReadOnly {
		l.recordC = make(chan struct{}, 1)
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.recordLoop(runCtx)
		}()
	}
	l.log.Info("ledger open", "dir", l.cfg.Dir, "entries", head.Seq, "head", head.Hash.String())
	return nil
}

func (l *Ledger) badgerOptions() badger.Options {
	return badger.DefaultOptions(l.cfg.Dir).
		WithSyncWrites(true).
		WithReadOnly(l.cfg.ReadOnly).
		WithLogger(badgerLogger{l.log}). // it drops info and debug (WithLoggingLevel would replace it with Badger's stderr logger)
		WithMetricsEnabled(false).
		WithDetectConflicts(false).
		WithMemTableSize(l.cfg.MemTableSize).
		WithBlockCacheSize(l.cfg.BlockCacheSize).
		WithValueLogFileSize(l.cfg.ValueLogFileSize).
		WithNumCompactors(l.cfg.NumCompactors).
		WithValueThreshold(min(1<<20, l.cfg.txnLimit()))
}

// open checks the format, verifies from the checkpoint to the head (the
// entries and the Merkle tree's nodes they complete), loads the tree
// (building it for a ledger written before the tree) and advances the
// checkpoint.
func (l *Ledger) open(ctx context.Context, db *badger.DB) (Head, *compact.Range, error) {
	var head, ck Head
	var tc *treeCheck
	err := db.View(func(txn *badger.Txn) error {
		meta, err := getValue(txn, keyMeta)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
			meta = nil
		case err != nil:
			return err
		case string(meta) != formatName:
			return fmt.Errorf("ledger: %s holds format %q, want %q", l.cfg.Dir, meta, formatName)
		}
		if head, err = readHead(txn, keyHead); err != nil {
			return err
		}
		if ck, err = readHead(txn, keyCheckpoint); err != nil {
			return err
		}
		if meta == nil && (head.Seq != 0 || ck.Seq != 0) {
			return fmt.Errorf("ledger: %s has entries but no format marker", l.cfg.Dir)
		}
		if ck.Seq > head.Seq {
			return bad(head.Seq+1, CodeMissingEntry, "checkpoint %d is beyond the head %d", ck.Seq, head.Seq)
		}
		if tc, err = newTreeCheck(txn, ck.Seq, head.Seq, true); err != nil {
			return err
		}
		_, err = verifyChain(ctx, txn, ck, head, tc)
		return err
	})
	if err != nil {
		return Head{}, nil, err
	}
	var tree *compact.Range
	if tc != nil {
		tree = tc.r
	} else if !l.cfg.ReadOnly {
		if tree, err = l.buildTree(ctx, db, head.Seq); err != nil {
			return Head{}, nil, err
		}
	}
	if !l.cfg.ReadOnly {
		err = db.Update(func(txn *badger.Txn) error {
			if err := txn.Set(keyMeta, []byte(formatName)); err != nil {
				return err
			}
			if tree != nil {
				if err := txn.Set(keyTree, []byte(treeMarker)); err != nil {
					return err
				}
			}
			return txn.Set(keyCheckpoint, headValue(head))
		})
		if err != nil {
			return Head{}, nil, fmt.Errorf("ledger: write checkpoint: %w", err)
		}
	}
	return head, tree, nil
}

// Close stops accepting appends, waits for the writer to commit what it was
// given and for the anchor hook to return, and closes the store. It is safe
// to call more than once.
func (l *Ledger) Close() error {
	l.mu.Lock()
	if l.state != stateOpen {
		l.state = stateClosed
		l.mu.Unlock()
		return nil
	}
	l.state = stateClosed
	close(l.reqs)
	l.mu.Unlock()
	l.cancel()
	l.wg.Wait()
	l.readers.Wait()
	var errs []error
	if h := l.Head(); l.recordC != nil && h.Seq != l.recorded.Load() {
		errs = append(errs, l.writeRecord(h))
	}
	if err := l.db.Close(); err != nil {
		errs = append(errs, fmt.Errorf("ledger: close: %w", err))
	}
	l.private()
	return errors.Join(errs...)
}

// private makes the store's files readable by the node's user only
// (storeguard.Private): at open and at close, for files that a process
// without the parley binary's umask created.
func (l *Ledger) private() {
	if l.cfg.ReadOnly {
		return
	}
	if err := storeguard.Private(l.cfg.Dir); err != nil {
		l.log.Warn("ledger files not made private", "err", err)
	}
}

// Head returns the last entry's seq and hash (zero for an empty ledger).
func (l *Ledger) Head() Head {
	l.headMu.RLock()
	defer l.headMu.RUnlock()
	return l.head
}

// Stats reports the group commits made and the entries they wrote since
// Start; entries/batches is the mean batch size.
func (l *Ledger) Stats() (batches, entries uint64) {
	return l.batches.Load(), l.written.Load()
}

// acquire returns the open database for a read, or ErrClosed. Close waits
// for every release before it closes the store.
func (l *Ledger) acquire() (*badger.DB, func(), error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.state != stateOpen {
		return nil, nil, ErrClosed
	}
	l.readers.Add(1)
	return l.db, l.readers.Done, nil
}

func headValue(h Head) []byte {
	v := make([]byte, 40)
	binary.BigEndian.PutUint64(v, h.Seq)
	copy(v[8:], h.Hash[:])
	return v
}

func readHead(txn *badger.Txn, key []byte) (Head, error) {
	v, err := getValue(txn, key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return Head{}, nil
	}
	if err != nil {
		return Head{}, err
	}
	if len(v) != 40 {
		return Head{}, bad(0, CodeHeadMismatch, "%q record of %d bytes", key, len(v))
	}
	var h Head
	h.Seq = binary.BigEndian.Uint64(v)
	copy(h.Hash[:], v[8:])
	return h, nil
}

func getValue(txn *badger.Txn, key []byte) ([]byte, error) {
	it, err := txn.Get(key)
	if err != nil {
		return nil, err
	}
	return it.ValueCopy(nil)
}
