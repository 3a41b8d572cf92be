package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/storeguard"
)

// storeName names the ledger in its record and in refusals.
const storeName = "ledger"

// recordEvery is the shortest time between two record writes: the record
// trails the head by at most the commits of this window (it is a lower
// bound), and costs at most ten small synced writes a second, off the
// append path.
const recordEvery = 100 * time.Millisecond

// precheck reads the record and checks the Badger directory before it is
// opened: a directory with data files but no readable MANIFEST is refused,
// and so is a record that says entries exist when the directory holds no
// data file at all (nothing is created then). The empty log files a kill
// can leave are removed (a read-only open asks for recovery instead).
func (l *Ledger) precheck() (*storeguard.Record, error) {
	var rec *storeguard.Record
	if l.cfg.RecordFile != "" {
		var err error
		if rec, err = storeguard.Read(storeName, l.cfg.RecordFile); err != nil {
			return nil, err
		}
	}
	c, err := storeguard.CheckBadgerDir(storeName, l.cfg.Dir)
	if err != nil {
		var se *storeguard.Error
		if errors.As(err, &se) {
			se.RecordFile, se.Record = l.cfg.RecordFile, rec
		}
		return nil, err
	}
	if len(c.Orphans) > 0 {
		l.log.Info("table files left by an interrupted flush or compaction (Badger deletes them)", "dir", l.cfg.Dir, "files", len(c.Orphans))
	}
	if rec != nil && rec.Seq > 0 && !c.HasData() {
		return nil, l.refuse(storeguard.CodeEmptier, rec, c.String(),
			"the record says the ledger holds %d entries, the directory holds no data file", rec.Seq)
	}
	if len(c.Empty) > 0 {
		if l.cfg.ReadOnly {
			return nil, fmt.Errorf("%w: %s: empty log files %v left by a kill", ErrNeedsRecovery, l.cfg.Dir, c.Empty)
		}
		if err := storeguard.DropEmpty(l.cfg.Dir, c); err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		l.log.Info("empty log files left by a kill removed (they hold nothing)", "dir", l.cfg.Dir, "files", c.Empty)
	}
	return rec, nil
}

// refuse returns the refusal of this ledger.
func (l *Ledger) refuse(code storeguard.Code, rec *storeguard.Record, found, format string, args ...any) error {
	return &storeguard.Error{Code: code, Store: storeName, Dir: l.cfg.Dir, RecordFile: l.cfg.RecordFile, Record: rec,
		Found: found, Msg: fmt.Sprintf(format, args...)}
}

// checkRecord compares the opened store with its record: a record of
// another owner, more entries than the store holds, or another hash at the
// record's seq are refused. Without a record it writes one (a new ledger,
// or one from before records were kept).
func (l *Ledger) checkRecord(db *badger.DB, head Head, rec *storeguard.Record) error {
	if l.cfg.RecordFile == "" {
		return nil
	}
	found := fmt.Sprintf("%d entries, head %s", head.Seq, head.Hash)
	if l.cfg.Owner == "" && rec != nil {
		l.cfg.Owner = rec.Owner // a tool without the keys keeps the record's owner
	}
	if rec == nil {
		if l.cfg.ReadOnly {
			return nil
		}
		if head.Seq == 0 {
			l.log.Info("new ledger: writing its record", "record", l.cfg.RecordFile)
		} else {
			l.log.Warn("the ledger has no record yet (a data directory from before records were kept, or the record was removed): writing one",
				"record", l.cfg.RecordFile, "entries", head.Seq, "head", head.Hash.String())
		}
		return l.writeRecord(head)
	}
	if l.cfg.Owner != "" && rec.Owner != "" && rec.Owner != l.cfg.Owner {
		return l.refuse(storeguard.CodeForeign, rec, found, "the record names node %s, this node is %s", rec.Owner, l.cfg.Owner)
	}
	if rec.Seq > head.Seq {
		return l.refuse(storeguard.CodeEmptier, rec, found, "the record says the ledger holds %d entries, it holds %d", rec.Seq, head.Seq)
	}
	if rec.Seq > 0 {
		var at negotiation.Hash
		err := db.View(func(txn *badger.Txn) error {
			e, err := getEntry(txn, rec.Seq)
			at = e.Hash
			return err
		})
		if err != nil {
			return l.refuse(storeguard.CodeDifferent, rec, found, "entry %d, which the record names, cannot be read: %v", rec.Seq, err)
		}
		if at.String() != rec.Hash {
			return l.refuse(storeguard.CodeDifferent, rec, found+fmt.Sprintf(", entry %d has hash %s", rec.Seq, at),
				"entry %d is not the one the record names: this is another ledger, or its history was rewritten", rec.Seq)
		}
	}
	if l.cfg.ReadOnly {
		return nil
	}
	return l.writeRecord(head)
}

// writeRecord writes the record of head.
func (l *Ledger) writeRecord(h Head) error {
	err := storeguard.Write(l.cfg.RecordFile, storeguard.Record{
		Store: storeName, Owner: l.cfg.Owner, Seq: h.Seq, Hash: h.Hash.String(), At: l.cfg.Clock().UTC(),
	})
	if err != nil {
		return fmt.Errorf("ledger: record: %w", err)
	}
	l.recorded.Store(h.Seq)
	return nil
}

// notifyRecord wakes the record goroutine after a commit; a wake-up
// already pending absorbs this one.
func (l *Ledger) notifyRecord() {
	if l.recordC == nil {
		return
	}
	select {
	case l.recordC <- struct{}{}:
	default:
	}
}

// recordLoop rewrites the record after commits, at most once per
// recordEvery, with the head of the moment: commits made while it writes
// are coalesced into the next write. It never delays an append: the
// writer only signals it.
func (l *Ledger) recordLoop(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.recordC:
		}
		if h := l.Head(); h.Seq != l.recorded.Load() {
			if err := l.writeRecord(h); err != nil {
				l.log.Error("ledger record not written", "err", err)
			}
		}
		t.Reset(recordEvery)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
