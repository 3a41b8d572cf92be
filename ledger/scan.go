package ledger

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/parleynet/parley/negotiation"
	"github.com/transparency-dev/merkle/compact"
)

// CodeUnreadable is the verification code of an entry or object the store
// cannot read back (a damaged table block, a cut value log).
const CodeUnreadable Code = "unreadable"

// Damage is one damaged entry, or the damaged object of an entry: where it
// is, why it fails, and the negotiation it belongs to ("" for an entry of
// no negotiation, or one whose negotiation cannot be told).
type Damage struct {
	// Seq is the entry's position.
	Seq uint64 `json:"seq"`
	// Code is the verification code (hash_mismatch, object_mismatch,
	// missing_entry, unreadable, ...).
	Code Code `json:"code"`
	// NegotiationID is the entry's negotiation, from the negotiation index
	// when the entry's own bytes cannot be trusted.
	NegotiationID string `json:"negotiationId,omitempty"`
	// Object is true when the entry is intact and the object it names is
	// damaged or missing.
	Object bool `json:"object,omitempty"`
	// Msg describes the damage for people.
	Msg string `json:"message"`
}

// Error returns the damage as a *VerifyError.
func (d Damage) Error() error { return &VerifyError{Seq: d.Seq, Code: d.Code, Msg: d.Msg} }

// maxDamage bounds the damage one scan reports; it goes on verifying and
// counting past it.
const maxDamage = 1000

// ScanConfig configures Scan.
type ScanConfig struct {
	// Chunk is how many entries one read transaction checks (default 512).
	Chunk int
	// Duty is the share of time the scan works, in (0, 1] (default 0.25):
	// after each chunk it pauses (1-Duty)/Duty times as long as the chunk
	// took, so a node keeps most of its disk and CPU for its own work.
	Duty float64
	// Progress, when set, is called after each chunk with the last seq
	// checked.
	Progress func(seq uint64)
}

// ScanReport is what Scan found.
type ScanReport struct {
	// Head is the head the scan checked up to: the head when it started.
	Head Head
	// Damage lists the damaged entries and objects in chain order (at
	// most a thousand; Count has them all).
	Damage []Damage
	// Count is how many damaged entries and objects the scan found.
	Count int
}

// Scan verifies every entry from the first to the head of the moment, as
// Verify does, but reads in chunks (one read transaction each, pausing
// between them as cfg.Duty says) and does not stop at the first bad entry:
// it reports each damaged entry and object (to Config.OnDamage and in the
// report) and goes on, chaining from the stored hash of a damaged entry.
// The store keeps serving reads and appends meanwhile. A scan that finds
// nothing advances the checkpoint like Verify.
func (l *Ledger) Scan(ctx context.Context, cfg ScanConfig) (ScanReport, error) {
	if cfg.Chunk <= 0 {
		cfg.Chunk = 512
	}
	if cfg.Duty <= 0 || cfg.Duty > 1 {
		cfg.Duty = 0.25
	}
	rep := ScanReport{Head: l.Head()}
	s := scanState{next: 1, sum: sha256.New(), resolve: true}
	for s.next <= rep.Head.Seq {
		start := time.Now()
		db, release, err := l.acquire()
		if err != nil {
			return rep, err
		}
		var found []Damage
		err = db.View(func(txn *badger.Txn) error {
			found = s.chunk(txn, rep.Head, cfg.Chunk)
			return nil
		})
		release()
		if err != nil {
			return rep, err
		}
		for _, d := range found {
			rep.Count++
			if len(rep.Damage) < maxDamage {
				rep.Damage = append(rep.Damage, d)
			}
		}
		s.resolve = rep.Count < maxDamage
		l.damaged(found...)
		if cfg.Progress != nil {
			cfg.Progress(s.next - 1)
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if cfg.Duty < 1 && s.next <= rep.Head.Seq {
			pause := time.Duration(float64(time.Since(start)) * (1 - cfg.Duty) / cfg.Duty)
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				t.Stop()
				return rep, ctx.Err()
			case <-t.C:
			}
		}
	}
	if rep.Count == 0 && rep.Head.Seq > 0 && !l.cfg.ReadOnly {
		db, release, err := l.acquire()
		if err != nil {
			return rep, err
		}
		defer release()
		err = db.Update(func(txn *badger.Txn) error {
			ck, err := readHead(txn, keyCheckpoint)
			if err != nil || ck.Seq >= rep.Head.Seq {
				return err
			}
			return txn.Set(keyCheckpoint, headValue(rep.Head))
		})
		if err != nil {
			return rep, fmt.Errorf("ledger: write checkpoint: %w", err)
		}
	}
	return rep, nil
}

// scanState is where a scan is: the next seq to check and the hash it
// must chain from (prevKnown is false after an entry whose hash cannot be
// read, when the next entry's stored prev is taken as it is).
type scanState struct {
	next      uint64
	prev      negotiation.Hash
	prevKnown bool
	sum       hash.Hash
	resolve   bool // look up the negotiation of damaged entries
	// tree is the Merkle tree recomputed over the entries checked so far,
	// held node by node to the stored one; nil once an entry is damaged
	// (the tree is not checked past it) or for a ledger with no tree.
	tree *compact.Range
}

// chunk checks up to n entries from s.next, never beyond head, and
// returns the damage found.
func (s *scanState) chunk(txn *badger.Txn, head Head, n int) []Damage {
	if s.next == 1 {
		s.prev, s.prevKnown = negotiation.Hash{}, true
		s.tree = nil
		if _, ok, err := readTree(txn); err == nil && ok {
			s.tree = treeRange.NewEmptyRange(0)
		}
	}
	var out []Damage
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 256, Prefix: []byte{pEntry}})
	defer it.Close()
	checked := 0
	for it.Seek(entryKey(s.next)); it.Valid() && checked < n; it.Next() {
		item := it.Item()
		k := item.Key()
		if len(k) != 9 {
			continue // not an entry key: no position to report it at
		}
		seq := seqFromBytes(k[1:])
		if seq > head.Seq {
			break
		}
		if seq > s.next {
			out = append(out, Damage{Seq: s.next, Code: CodeMissingEntry, Msg: fmt.Sprintf("entries %d..%d are missing", s.next, seq-1)})
			s.next, s.prevKnown, s.tree = seq, false, nil
		}
		checked++
		v, err := item.ValueCopy(nil)
		if err != nil {
			out = append(out, Damage{Seq: seq, Code: CodeUnreadable, Msg: err.Error()})
			s.next, s.prevKnown, s.tree = seq+1, false, nil
			continue
		}
		stored, ok, p, d := scanStored(s.sum, seq, s.prev, s.prevKnown, v)
		if d != nil {
			out = append(out, *d)
			s.tree = nil
		} else if d = s.checkTree(txn, seq, v[64:]); d != nil {
			out = append(out, *d)
		}
		if d == nil && p.cid != nil {
			if err := checkObject(txn, seq, p.cid); err != nil {
				out = append(out, objectDamage(seq, p.negotiationID, err))
			}
		}
		s.next, s.prev, s.prevKnown = seq+1, stored, ok
	}
	if !it.Valid() && checked < n && s.next <= head.Seq {
		out = append(out, Damage{Seq: s.next, Code: CodeMissingEntry, Msg: fmt.Sprintf("entries %d..%d are missing: the chain ends at %d", s.next, head.Seq, s.next-1)})
		s.next, s.prevKnown = head.Seq+1, false
	}
	if s.next > head.Seq && s.prevKnown && s.prev != head.Hash && (len(out) == 0 || out[len(out)-1].Seq != head.Seq) {
		out = append(out, Damage{Seq: head.Seq, Code: CodeHeadMismatch, Msg: fmt.Sprintf("chain hash %s, recorded head %s", s.prev, head.Hash)})
	}
	if s.resolve {
		resolveNegotiations(txn, out)
	}
	return out
}

// checkTree adds the intact entry seq (its stored bytes raw) to the
// recomputed tree and holds the nodes it completes to the stored ones.
func (s *scanState) checkTree(txn *badger.Txn, seq uint64, raw []byte) *Damage {
	if s.tree == nil {
		return nil
	}
	tc := &treeCheck{txn: txn, r: s.tree}
	err := tc.leaf(seq, raw)
	if err == nil {
		return nil
	}
	s.tree = nil
	d := Damage{Seq: seq, Code: CodeTreeMismatch, Msg: err.Error()}
	var ve *VerifyError
	if errors.As(err, &ve) {
		d.Code, d.Msg = ve.Code, ve.Msg
	}
	return &d
}

// scanStored checks one stored entry value like checkStored, but returns
// the damage instead of stopping, and the stored hash to chain the next
// entry from (ok is false when the value is too short to hold one). The
// entry's negotiation is taken from its own bytes only when they are
// intact; resolveNegotiations fills it in for the others.
func scanStored(h hash.Hash, seq uint64, prev negotiation.Hash, prevKnown bool, v []byte) (negotiation.Hash, bool, parsedEntry, *Damage) {
	if len(v) < 64+2 {
		return negotiation.Hash{}, false, parsedEntry{}, &Damage{Seq: seq, Code: CodeMalformedEntry, Msg: fmt.Sprintf("value of %d bytes", len(v))}
	}
	stored := negotiation.Hash(v[32:64])
	raw := v[64:]
	h.Reset()
	h.Write(v[:32])
	h.Write(raw)
	var sum negotiation.Hash
	h.Sum(sum[:0])
	p, perr := parseEntry(raw)
	switch {
	case perr != nil:
		return stored, true, p, &Damage{Seq: seq, Code: CodeMalformedEntry, Msg: perr.Error()}
	case p.seq != seq:
		return stored, true, p, &Damage{Seq: seq, Code: CodeSeqMismatch, Msg: fmt.Sprintf("entry at position %d says seq %d", seq, p.seq)}
	case prevKnown && negotiation.Hash(v[:32]) != prev:
		return stored, true, p, &Damage{Seq: seq, Code: CodePrevMismatch, Msg: fmt.Sprintf("prev %x is not the previous entry's hash %s", v[:32], prev)}
	case sum != stored:
		return stored, true, p, &Damage{Seq: seq, Code: CodeHashMismatch, Msg: fmt.Sprintf("SHA-256(prev || entry) is %s, stored %s", sum, stored)}
	}
	return stored, true, p, nil
}

// objectDamage turns a failed object check of entry seq into damage.
func objectDamage(seq uint64, negotiationID string, err error) Damage {
	var ve *VerifyError
	if errors.As(err, &ve) {
		return Damage{Seq: seq, Code: ve.Code, NegotiationID: negotiationID, Object: true, Msg: ve.Msg}
	}
	return Damage{Seq: seq, Code: CodeUnreadable, NegotiationID: negotiationID, Object: true, Msg: "object: " + err.Error()}
}

// resolveNegotiations names the negotiation of each damaged entry that has
// none from the negotiation index, which is stored apart from the entry:
// one pass over the index keys.
func resolveNegotiations(txn *badger.Txn, ds []Damage) {
	want := map[uint64]int{}
	for i, d := range ds {
		if !d.Object && d.Code != CodeHeadMismatch {
			want[d.Seq] = i
		}
	}
	if len(want) == 0 {
		return
	}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{pNeg}})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().Key()
		if len(k) < 1+1+9 {
			continue
		}
		if i, ok := want[seqOfIndexKey(k)]; ok {
			ds[i].NegotiationID = string(k[1 : len(k)-9])
		}
	}
}

// VerifyNegotiation checks the entries of one negotiation: each entry's
// stored bytes against its hash and position, its link to the entry before
// it, and the objects it names against their CIDs. It returns the damage
// found (also reported to Config.OnDamage), or nil when the negotiation's
// own record is intact. It reads only that negotiation's entries and their
// predecessors, so the node can check a negotiation before it signs for
// it without waiting for a full scan.
func (l *Ledger) VerifyNegotiation(ctx context.Context, negotiationID string) ([]Damage, error) {
	db, release, err := l.acquire()
	if err != nil {
		return nil, err
	}
	defer release()
	var out []Damage
	err = db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: indexPrefix(pNeg, negotiationID)})
		defer it.Close()
		sum := sha256.New()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			seq := seqOfIndexKey(it.Item().Key())
			prev, known := negotiation.Hash{}, true
			if seq > 1 {
				pv, err := getValue(txn, entryKey(seq-1))
				known = err == nil && len(pv) >= 64
				if known {
					prev = negotiation.Hash(pv[32:64])
				} else if !errors.Is(err, badger.ErrKeyNotFound) && err != nil {
					out = append(out, Damage{Seq: seq - 1, Code: CodeUnreadable, Msg: err.Error()})
				}
			}
			v, err := getValue(txn, entryKey(seq))
			switch {
			case errors.Is(err, badger.ErrKeyNotFound):
				out = append(out, Damage{Seq: seq, Code: CodeMissingEntry, NegotiationID: negotiationID, Msg: "the negotiation index names an entry that is not stored"})
				continue
			case err != nil:
				out = append(out, Damage{Seq: seq, Code: CodeUnreadable, NegotiationID: negotiationID, Msg: err.Error()})
				continue
			}
			_, _, p, d := scanStored(sum, seq, prev, known, v)
			if d != nil {
				d.NegotiationID = negotiationID
				out = append(out, *d)
				continue
			}
			if p.negotiationID != negotiationID {
				out = append(out, Damage{Seq: seq, Code: CodeMalformedEntry, NegotiationID: negotiationID,
					Msg: fmt.Sprintf("the negotiation index names entry %d, which belongs to %q", seq, p.negotiationID)})
				continue
			}
			if p.cid != nil {
				if err := checkObject(txn, seq, p.cid); err != nil {
					out = append(out, objectDamage(seq, negotiationID, err))
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.damaged(out...)
	return out, nil
}

// damaged reports damage to Config.OnDamage.
func (l *Ledger) damaged(ds ...Damage) {
	if l.cfg.OnDamage == nil {
		return
	}
	for _, d := range ds {
		l.cfg.OnDamage(d)
	}
}
