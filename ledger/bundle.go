package ledger

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/dgraph-io/badger/v4"
	"github.com/ipfs/go-cid"
	"github.com/parleynet/parley/negotiation"
)

// BundleFormat names the proof-bundle format Export writes and VerifyBundle
// reads (docs/ledger.md describes it).
const BundleFormat = "parley-proof-bundle/1"

// Export writes a proof bundle of one negotiation to w: every entry from
// the negotiation's first entry to the current head (the negotiation's
// entries and the entries between them, which link them to the head), the
// objects the negotiation's entries stored, the CIDs of objects deleted
// under retention, and the head. It reads one consistent snapshot. It
// returns the head the bundle ends at, or ErrNotFound when the ledger holds
// no entry of the negotiation.
func (l *Ledger) Export(ctx context.Context, negotiationID string, w io.Writer) (Head, error) {
	if _, err := negotiation.ParseNegotiationID(negotiationID); err != nil {
		return Head{}, &Error{Code: CodeBadNegotiationID, Field: "negotiationId", Msg: "want a lowercase UUID v4", Err: err}
	}
	db, release, err := l.acquire()
	if err != nil {
		return Head{}, err
	}
	defer release()
	var head Head
	var d *Damage
	err = db.View(func(txn *badger.Txn) error {
		var err error
		if head, err = readHead(txn, keyHead); err != nil {
			return err
		}
		return exportTxn(ctx, txn, negotiationID, head, w, &d)
	})
	if d != nil {
		l.damaged(*d)
	}
	return head, err
}

// exportTxn writes the bundle and checks what it writes as VerifyBundle
// will: each entry's hash and its link to the one before, the head, and
// every object against its CID. A damaged entry or object stops the export
// with a *VerifyError (and *damage set): a bundle of damaged history is
// never completed.
func exportTxn(ctx context.Context, txn *badger.Txn, negotiationID string, head Head, w io.Writer, damage **Damage) error {
	from, err := firstOfNegotiation(txn, negotiationID)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var prev negotiation.Hash
	var cids []cid.Cid
	stored := map[cid.Cid]uint64{} // the entry that named each object
	sum := sha256.New()
	fail := func(d Damage) error {
		*damage = &d
		return d.Error()
	}
	n := uint64(0)
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 256, Prefix: []byte{pEntry}})
	for it.Seek(entryKey(from)); it.Valid(); it.Next() {
		seq := seqFromBytes(it.Item().Key()[1:])
		if seq > head.Seq {
			break
		}
		if seq != from+n {
			it.Close()
			return bad(from+n, CodeMissingEntry, "no entry %d", from+n)
		}
		err := it.Item().Value(func(v []byte) error {
			if n == 0 && len(v) >= 64 {
				copy(prev[:], v[:32])
			}
			h, _, p, d := scanStored(sum, seq, prev, true, v)
			if d != nil {
				ds := []Damage{*d}
				resolveNegotiations(txn, ds)
				if ds[0].NegotiationID == "" {
					ds[0].NegotiationID = p.negotiationID
				}
				return fail(ds[0])
			}
			prev = h
			if n == 0 {
				writeHeader(bw, negotiationID, head, from, negotiation.Hash(v[:32]))
			} else {
				bw.WriteString(",\n")
			}
			bw.Write(v[64:])
			if p.negotiationID == negotiationID && p.cid != nil {
				c, err := parseCIDValue(p.cid)
				if err != nil {
					return bad(seq, CodeMalformedEntry, "body.cid: %v", err)
				}
				cids = append(cids, c)
				stored[c] = seq
			}
			return nil
		})
		if err != nil {
			it.Close()
			var ve *VerifyError
			if !errors.As(err, &ve) {
				return fail(Damage{Seq: seq, Code: CodeUnreadable, Msg: err.Error()})
			}
			return err
		}
		n++
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				it.Close()
				return err
			}
		}
	}
	it.Close()
	if from+n-1 != head.Seq {
		return fail(Damage{Seq: from + n, Code: CodeMissingEntry, Msg: fmt.Sprintf("the chain ends at %d, the head is %d", from+n-1, head.Seq)})
	}
	if prev != head.Hash {
		return fail(Damage{Seq: head.Seq, Code: CodeHeadMismatch, Msg: fmt.Sprintf("chain hash %s, recorded head %s", prev, head.Hash)})
	}
	bw.WriteString("\n],\n")
	if err := writeObjects(bw, txn, negotiationID, cids, stored, fail); err != nil {
		return err
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeObjects writes the members "objects" (each object the
// negotiation's entries name, checked against its CID) and "pruned" (the
// CIDs of those deleted under retention) of a bundle.
func writeObjects(bw *bufio.Writer, txn *badger.Txn, negotiationID string, cids []cid.Cid, stored map[cid.Cid]uint64, fail func(Damage) error) error {
	bw.WriteString("\"objects\":[")
	var pruned []cid.Cid
	first := true
	for _, c := range cids {
		obj, err := getValue(txn, cidKey(pObject, c))
		if errors.Is(err, badger.ErrKeyNotFound) {
			if _, perr := txn.Get(cidKey(pPruned, c)); perr != nil {
				return fail(Damage{Seq: stored[c], Code: CodeObjectMissing, NegotiationID: negotiationID, Object: true,
					Msg: fmt.Sprintf("object %s is not stored", c)})
			}
			pruned = append(pruned, c)
			continue
		}
		if err != nil {
			return fail(Damage{Seq: stored[c], Code: CodeUnreadable, NegotiationID: negotiationID, Object: true,
				Msg: fmt.Sprintf("object %s cannot be read: %v", c, err)})
		}
		if !objectMatches(c, obj) {
			return fail(Damage{Seq: stored[c], Code: CodeObjectMismatch, NegotiationID: negotiationID, Object: true,
				Msg: fmt.Sprintf("object %s does not hash to its CID", c)})
		}
		if !first {
			bw.WriteString(",")
		}
		first = false
		bw.WriteString("\n{\"cid\":\"" + c.String() + "\",")
		if c.Prefix().Codec == CodecJSON && canonicalForm(obj) {
			bw.WriteString(`"json":`)
			bw.Write(obj)
		} else {
			bw.WriteString(`"base64":"`)
			bw.WriteString(base64.StdEncoding.EncodeToString(obj))
			bw.WriteString(`"`)
		}
		bw.WriteString("}")
	}
	bw.WriteString("\n],\n\"pruned\":[")
	for i, c := range pruned {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString(`"` + c.String() + `"`)
	}
	bw.WriteString("]")
	return nil
}

func writeHeader(bw *bufio.Writer, negotiationID string, head Head, from uint64, prev negotiation.Hash) {
	fmt.Fprintf(bw, "{\"format\":%q,\n\"negotiationId\":%q,\n\"head\":{\"seq\":%d,\"hash\":%q},\n\"from\":%s,\n\"prev\":%q,\n\"entries\":[\n",
		BundleFormat, negotiationID, head.Seq, head.Hash.String(), strconv.FormatUint(from, 10), prev.String())
}

// canonicalForm reports whether b is JSON in its JCS form, so that a bundle
// can carry it as JSON and a verifier recovers the exact bytes.
func canonicalForm(b []byte) bool {
	if isCanonical(b) {
		return true
	}
	c, err := negotiation.Canonicalize(b)
	return err == nil && bytes.Equal(c, b)
}

// firstOfNegotiation returns the seq of the negotiation's first entry.
func firstOfNegotiation(txn *badger.Txn, negotiationID string) (uint64, error) {
	prefix := indexPrefix(pNeg, negotiationID)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	it.Rewind()
	if !it.Valid() {
		return 0, fmt.Errorf("negotiation %s: %w", negotiationID, ErrNotFound)
	}
	return seqOfIndexKey(it.Item().Key()), nil
}
