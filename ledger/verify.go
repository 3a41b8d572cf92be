package ledger

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"

	"github.com/dgraph-io/badger/v4"
	"github.com/ipfs/go-cid"
	"github.com/parleynet/parley/negotiation"
)

// Verify recomputes the whole chain from the stored bytes: each entry's seq
// is its position, its prev is the previous entry's hash, SHA-256(prev ||
// stored bytes) is its stored hash, every object an entry names is stored
// (or was pruned) and hashes to its CID, and the chain ends at the recorded
// head. It hashes what is stored and never re-encodes anything. It returns
// the verified head, or a *VerifyError naming the first bad entry. A
// successful verify advances the checkpoint that Start verifies from.
func (l *Ledger) Verify(ctx context.Context) (Head, error) {
	db, release, err := l.acquire()
	if err != nil {
		return Head{}, err
	}
	defer release()
	var head Head
	var found Damage
	err = db.View(func(txn *badger.Txn) error {
		h, err := readHead(txn, keyHead)
		if err != nil {
			return err
		}
		tc, err := newTreeCheck(txn, 0, h.Seq, l.cfg.ReadOnly)
		if err == nil {
			head, err = verifyChain(ctx, txn, Head{}, h, tc)
		}
		var ve *VerifyError
		if errors.As(err, &ve) {
			ds := []Damage{{Seq: ve.Seq, Code: ve.Code, Msg: ve.Msg, Object: ve.Code == CodeObjectMismatch || ve.Code == CodeObjectMissing}}
			if ds[0].Object {
				if e, gerr := getEntry(txn, ve.Seq); gerr == nil {
					ds[0].NegotiationID = e.NegotiationID
				}
			} else {
				resolveNegotiations(txn, ds)
			}
			found = ds[0]
		}
		return err
	})
	if found.Code != "" {
		l.damaged(found)
	}
	if err != nil {
		return Head{}, err
	}
	if !l.cfg.ReadOnly {
		err = db.Update(func(txn *badger.Txn) error {
			ck, err := readHead(txn, keyCheckpoint)
			if err != nil || ck.Seq >= head.Seq {
				return err
			}
			return txn.Set(keyCheckpoint, headValue(head))
		})
		if err != nil {
			return head, fmt.Errorf("ledger: write checkpoint: %w", err)
		}
	}
	return head, nil
}

// verifyRange verifies entries from.Seq+1 up to head, where from is a
// verified position (the zero Head for the start of the chain). It returns
// head when every entry checks out.
func verifyRange(ctx context.Context, txn *badger.Txn, from, head Head) (Head, error) {
	return verifyChain(ctx, txn, from, head, nil)
}

// verifyChain is verifyRange that also, when tc is not nil, recomputes the
// Merkle tree over the entries it reads and holds every node they complete
// to the stored one (tree_mismatch).
func verifyChain(ctx context.Context, txn *badger.Txn, from, head Head, tc *treeCheck) (Head, error) {
	prev, next := from.Hash, from.Seq+1
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 256, Prefix: []byte{pEntry}})
	defer it.Close()
	var objErr error
	sum := sha256.New()
	for it.Seek(entryKey(next)); it.Valid(); it.Next() {
		if next%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return Head{}, err
			}
		}
		item := it.Item()
		k := item.Key()
		if len(k) != 9 {
			return Head{}, bad(next, CodeMalformedEntry, "entry key of %d bytes", len(k))
		}
		seq := seqFromBytes(k[1:])
		if seq != next {
			return Head{}, bad(next, CodeMissingEntry, "no entry %d (the next stored is %d)", next, seq)
		}
		if seq > head.Seq {
			return Head{}, bad(seq, CodeHeadMismatch, "entry beyond the recorded head %d", head.Seq)
		}
		var ref []byte
		err := item.Value(func(v []byte) error {
			h, c, err := checkStored(sum, seq, prev, v)
			if err != nil {
				return err
			}
			prev, ref = h, c
			if tc != nil {
				return tc.leaf(seq, v[64:])
			}
			return nil
		})
		if err != nil {
			return Head{}, err
		}
		if ref != nil {
			if objErr = checkObject(txn, seq, ref); objErr != nil {
				return Head{}, objErr
			}
		}
		next++
	}
	if next-1 < head.Seq {
		return Head{}, bad(next, CodeMissingEntry, "the chain ends at %d, the head is %d", next-1, head.Seq)
	}
	if prev != head.Hash {
		return Head{}, bad(head.Seq, CodeHeadMismatch, "chain hash %s, recorded head %s", prev, head.Hash)
	}
	return head, nil
}

// checkStored checks one stored entry value against its position and the
// previous hash. It returns the entry's hash and its raw body.cid value.
func checkStored(h hash.Hash, seq uint64, prev negotiation.Hash, v []byte) (negotiation.Hash, []byte, error) {
	if len(v) < 64+2 {
		return negotiation.Hash{}, nil, bad(seq, CodeMalformedEntry, "value of %d bytes", len(v))
	}
	raw := v[64:]
	p, err := parseEntry(raw)
	if err != nil {
		return negotiation.Hash{}, nil, bad(seq, CodeMalformedEntry, "%v", err)
	}
	if p.seq != seq {
		return negotiation.Hash{}, nil, bad(seq, CodeSeqMismatch, "entry at position %d says seq %d", seq, p.seq)
	}
	if negotiation.Hash(v[:32]) != prev {
		return negotiation.Hash{}, nil, bad(seq, CodePrevMismatch, "prev %x is not the previous entry's hash %s", v[:32], prev)
	}
	h.Reset()
	h.Write(v[:32])
	h.Write(raw)
	var sum negotiation.Hash
	h.Sum(sum[:0])
	if sum != negotiation.Hash(v[32:64]) {
		return negotiation.Hash{}, nil, bad(seq, CodeHashMismatch, "SHA-256(prev || entry) is %s, stored %x", sum, v[32:64])
	}
	if p.cid != nil {
		return sum, append([]byte(nil), p.cid...), nil
	}
	return sum, nil, nil
}

// checkObject checks that the object named by entry seq is stored and
// hashes to its CID, or was deleted under the retention rule.
func checkObject(txn *badger.Txn, seq uint64, ref []byte) error {
	c, err := parseCIDValue(ref)
	if err != nil {
		return bad(seq, CodeMalformedEntry, "body.cid: %v", err)
	}
	want, err := negotiation.HashFromCID(c)
	if err != nil {
		return bad(seq, CodeMalformedEntry, "body.cid: %v", err)
	}
	item, err := txn.Get(cidKey(pObject, c))
	if errors.Is(err, badger.ErrKeyNotFound) {
		if _, perr := txn.Get(cidKey(pPruned, c)); perr == nil {
			return nil
		}
		return bad(seq, CodeObjectMissing, "object %s is not stored", c)
	}
	if err != nil {
		return err
	}
	return item.Value(func(v []byte) error {
		if sha256.Sum256(v) != want {
			return bad(seq, CodeObjectMismatch, "object %s does not hash to its CID", c)
		}
		return nil
	})
}

// objectMatches reports whether b hashes to the sha2-256 digest in c.
func objectMatches(c cid.Cid, b []byte) bool {
	want, err := negotiation.HashFromCID(c)
	return err == nil && sha256.Sum256(b) == want
}
