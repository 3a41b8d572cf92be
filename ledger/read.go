package ledger

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"

	"github.com/dgraph-io/badger/v4"
	"github.com/ipfs/go-cid"
)

func seqFromBytes(v []byte) uint64 { return binary.BigEndian.Uint64(v) }

// getEntry reads and decodes entry seq.
func getEntry(txn *badger.Txn, seq uint64) (Entry, error) {
	v, err := getValue(txn, entryKey(seq))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return Entry{}, fmt.Errorf("entry %d: %w", seq, ErrNotFound)
	}
	if err != nil {
		return Entry{}, err
	}
	return decodeStored(seq, v)
}

// Get returns entry seq (counting from 1), or ErrNotFound.
func (l *Ledger) Get(ctx context.Context, seq uint64) (Entry, error) {
	db, release, err := l.acquire()
	if err != nil {
		return Entry{}, err
	}
	defer release()
	var e Entry
	err = db.View(func(txn *badger.Txn) error {
		e, err = getEntry(txn, seq)
		return err
	})
	return e, err
}

// Object returns the bytes stored under c, or ErrNotFound (also for an
// object deleted under the retention rule). The bytes are checked against
// c first: stored bytes that do not hash to c, or that the store cannot
// read, are a *VerifyError (object_mismatch, unreadable) naming the entry
// that stored the object, reported to Config.OnDamage, and never returned.
func (l *Ledger) Object(ctx context.Context, c cid.Cid) ([]byte, error) {
	db, release, err := l.acquire()
	if err != nil {
		return nil, err
	}
	defer release()
	var out []byte
	var d *Damage
	err = db.View(func(txn *badger.Txn) error {
		out, err = getValue(txn, cidKey(pObject, c))
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
			return fmt.Errorf("object %s: %w", c, ErrNotFound)
		case err != nil:
			d = objectReadDamage(txn, c, CodeUnreadable, fmt.Sprintf("object %s cannot be read: %v", c, err))
		case !objectMatches(c, out):
			d = objectReadDamage(txn, c, CodeObjectMismatch, fmt.Sprintf("object %s does not hash to its CID", c))
		}
		if d != nil {
			out = nil
			return d.Error()
		}
		return nil
	})
	if d != nil {
		l.damaged(*d)
	}
	return out, err
}

// objectReadDamage is the damage of object c found by a read: at the entry
// that stored it, in that entry's negotiation.
func objectReadDamage(txn *badger.Txn, c cid.Cid, code Code, msg string) *Damage {
	d := &Damage{Code: code, Object: true, Msg: msg}
	v, err := getValue(txn, cidKey(pCID, c))
	if err != nil || len(v) != 8 {
		return d
	}
	d.Seq = seqFromBytes(v)
	if e, err := getEntry(txn, d.Seq); err == nil {
		d.NegotiationID = e.NegotiationID
	}
	return d
}

// ByCID returns the entry that stored object c, or ErrNotFound.
func (l *Ledger) ByCID(ctx context.Context, c cid.Cid) (Entry, error) {
	db, release, err := l.acquire()
	if err != nil {
		return Entry{}, err
	}
	defer release()
	var e Entry
	err = db.View(func(txn *badger.Txn) error {
		v, err := getValue(txn, cidKey(pCID, c))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("cid %s: %w", c, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if len(v) != 8 {
			return fmt.Errorf("ledger: cid index of %d bytes", len(v))
		}
		e, err = getEntry(txn, seqFromBytes(v))
		return err
	})
	return e, err
}

// Entries yields every entry from seq from (1 for all) in chain order.
func (l *Ledger) Entries(ctx context.Context, from uint64) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		db, release, err := l.acquire()
		if err != nil {
			yield(Entry{}, err)
			return
		}
		defer release()
		err = db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: []byte{pEntry}})
			defer it.Close()
			for it.Seek(entryKey(max(from, 1))); it.Valid(); it.Next() {
				if err := ctx.Err(); err != nil {
					return err
				}
				item := it.Item()
				v, err := item.ValueCopy(nil)
				if err != nil {
					return err
				}
				e, err := decodeStored(seqFromBytes(item.Key()[1:]), v)
				if err != nil {
					return err
				}
				if !yield(e, nil) {
					return errStop
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			yield(Entry{}, err)
		}
	}
}

var errStop = errors.New("stop")

// ByNegotiation yields the entries of one negotiation in chain order.
func (l *Ledger) ByNegotiation(ctx context.Context, negotiationID string) iter.Seq2[Entry, error] {
	return l.byIndex(ctx, indexPrefix(pNeg, negotiationID))
}

// ByKind yields the entries of one kind in chain order.
func (l *Ledger) ByKind(ctx context.Context, kind string) iter.Seq2[Entry, error] {
	return l.byIndex(ctx, indexPrefix(pKind, kind))
}

func (l *Ledger) byIndex(ctx context.Context, prefix []byte) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		db, release, err := l.acquire()
		if err != nil {
			yield(Entry{}, err)
			return
		}
		defer release()
		err = db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				if err := ctx.Err(); err != nil {
					return err
				}
				k := it.Item().Key()
				if len(k) != len(prefix)+8 {
					continue
				}
				e, err := getEntry(txn, seqOfIndexKey(k))
				if err != nil {
					return err
				}
				if !yield(e, nil) {
					return errStop
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			yield(Entry{}, err)
		}
	}
}

// Collect gathers a sequence of entries into a slice, stopping at the first
// error.
func Collect(seq iter.Seq2[Entry, error]) ([]Entry, error) {
	var out []Entry
	for e, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

// NegotiationState returns the state named by the negotiation's latest
// thread.state entry, or "" when it has none.
func (l *Ledger) NegotiationState(ctx context.Context, negotiationID string) (string, error) {
	db, release, err := l.acquire()
	if err != nil {
		return "", err
	}
	defer release()
	var s string
	err = db.View(func(txn *badger.Txn) error {
		v, err := getValue(txn, stateKey(negotiationID))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		s = string(v)
		return err
	})
	return s, err
}
