package ledger

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/dgraph-io/badger/v4"
	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/compact"

	"github.com/parleynet/parley/negotiation"
)

// BundleFormatV2 names the proof-bundle format ExportV2 writes: the
// negotiation's entries only, each with its inclusion proof against a
// signed tree head (docs/ledger.md describes it).
const BundleFormatV2 = "parley-proof-bundle/2"

// maxProofHashes bounds an inclusion or consistency proof in a bundle: no
// tree of at most 2^64 leaves needs more.
const maxProofHashes = 64

// ExportV2 writes a version-2 proof bundle of one negotiation to w: the
// negotiation's entries with seq at most head.Size (and nothing of any
// other entry), each with its RFC 6962 inclusion proof against head.Root,
// the objects they name and the CIDs of those deleted under retention, the
// signed tree head and the signer's identity link (signerLink, its JCS
// bytes), and the newest tree anchor whose size is at most head.Size with
// the consistency proof from its size to head.Size (null when there is
// none). It reads one snapshot and checks what it writes: every entry
// against its stored hash, every proof against the head, every object
// against its CID (damage stops the export with a *VerifyError, reported to
// Config.OnDamage).
//
// head must be a head of this ledger: a size beyond the entries is an
// *Error with CodeUnknownSize, a root that is not the tree's at head.Size
// CodeTreeMismatch, a malformed head (signature not 64 bytes, no signer,
// no time) CodeBadBody or CodeBadTime; signerLink must be a JSON object in
// JCS form whose SHA-256 is head.Signer (else CodeBadBody). The signature
// is the caller's to make: the ledger holds no key. A negotiation with no
// entry up to head.Size is ErrNotFound.
func (l *Ledger) ExportV2(ctx context.Context, negotiationID string, head TreeHead, signerLink []byte, w io.Writer) error {
	if _, err := negotiation.ParseNegotiationID(negotiationID); err != nil {
		return &Error{Code: CodeBadNegotiationID, Field: "negotiationId", Msg: "want a lowercase UUID v4", Err: err}
	}
	if err := head.check(); err != nil {
		return err
	}
	if len(signerLink) < 2 || signerLink[0] != '{' || !canonicalForm(signerLink) {
		return refuse(CodeBadBody, "signerLink", "want the identity link's JCS JSON object")
	}
	if negotiation.Hash(sha256.Sum256(signerLink)) != head.Signer {
		return refuse(CodeBadBody, "signerLink", "its SHA-256 is not the head's signer %s", head.Signer)
	}
	db, release, err := l.acquire()
	if err != nil {
		return err
	}
	defer release()
	var d *Damage
	err = db.View(func(txn *badger.Txn) error {
		size, err := treeSize(txn)
		if err != nil {
			return err
		}
		if err := checkSize(head.Size, size, "size"); err != nil {
			return err
		}
		get := func(ids []compact.NodeID) ([][]byte, error) { return getNodes(txn, ids) }
		root, err := rootFrom(get, head.Size)
		if err != nil {
			return err
		}
		if root != head.Root {
			return refuse(CodeTreeMismatch, "root", "the tree's root at size %d is %s, not %s", head.Size, negotiation.Hash(root), negotiation.Hash(head.Root))
		}
		return exportV2Txn(ctx, txn, get, negotiationID, head, signerLink, w, &d)
	})
	if d != nil {
		l.damaged(*d)
	}
	return err
}

func exportV2Txn(ctx context.Context, txn *badger.Txn, get nodeSource, negotiationID string, head TreeHead, signerLink []byte, w io.Writer, damage **Damage) error {
	fail := func(d Damage) error {
		if d.NegotiationID == "" {
			d.NegotiationID = negotiationID
		}
		*damage = &d
		return d.Error()
	}
	// The anchor first: an error must come before any byte is written.
	var anchor *TreeAnchor
	var consistency [][32]byte
	_, found, err := latestOfKindTxn(ctx, txn, KindTreeAnchor, ^uint64(0), func(e Entry) (bool, error) {
		a, err := ParseTreeAnchor(e.Body)
		if err != nil {
			return false, fail(Damage{Seq: e.Seq, Code: CodeMalformedEntry, Msg: fmt.Sprintf("tree anchor: %v", err)})
		}
		if a.Size > head.Size {
			return false, nil
		}
		anchor = &a
		return true, nil
	})
	if err != nil {
		return err
	}
	if found {
		if consistency, err = consistencyFrom(get, anchor.Size, head.Size); err != nil {
			return err
		}
		if err := VerifyConsistency(anchor.Size, head.Size, consistency, anchor.Root, head.Root); err != nil {
			return fail(Damage{Code: CodeTreeMismatch, Msg: fmt.Sprintf("the anchored root at size %d is not a prefix of the head: %v", anchor.Size, err)})
		}
	}

	prefix := indexPrefix(pNeg, negotiationID)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	bw := bufio.NewWriterSize(w, 64<<10)
	sum := sha256.New()
	var cids []cid.Cid
	stored := map[cid.Cid]uint64{}
	n := 0
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().Key()
		if len(k) != len(prefix)+8 {
			continue
		}
		seq := seqOfIndexKey(k)
		if seq > head.Size {
			break
		}
		v, err := getValue(txn, entryKey(seq))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return fail(Damage{Seq: seq, Code: CodeMissingEntry, Msg: fmt.Sprintf("the negotiation index names entry %d, which is not stored", seq)})
		}
		if err != nil {
			return fail(Damage{Seq: seq, Code: CodeUnreadable, Msg: err.Error()})
		}
		_, _, p, d := scanStored(sum, seq, negotiation.Hash{}, false, v)
		if d != nil {
			return fail(*d)
		}
		if p.negotiationID != negotiationID {
			return fail(Damage{Seq: seq, Code: CodeMalformedEntry, Msg: fmt.Sprintf("the negotiation index names entry %d, which is of %q", seq, p.negotiationID)})
		}
		raw := v[64:]
		proof, err := inclusionFrom(get, seq, head.Size)
		if err != nil {
			return err
		}
		if err := VerifyInclusion(raw, seq, head.Size, proof, head.Root); err != nil {
			return fail(Damage{Seq: seq, Code: CodeTreeMismatch, Msg: fmt.Sprintf("entry %d is not in the tree at size %d: %v", seq, head.Size, err)})
		}
		if n == 0 {
			bw.WriteString(`{"format":"` + BundleFormatV2 + `",` + "\n" + `"negotiationId":"` + negotiationID + `",` + "\n" + `"treeHead":`)
			bw.Write(head.body())
			bw.WriteString(",\n\"signer\":")
			bw.Write(signerLink)
			bw.WriteString(",\n\"entries\":[\n")
		} else {
			bw.WriteString(",\n")
		}
		fmt.Fprintf(bw, `{"seq":%d,"entry":`, seq)
		bw.Write(raw)
		bw.WriteString(`,"proof":`)
		writeHashes(bw, proof)
		bw.WriteString("}")
		if p.cid != nil {
			c, err := parseCIDValue(p.cid)
			if err != nil {
				return fail(Damage{Seq: seq, Code: CodeMalformedEntry, Msg: fmt.Sprintf("body.cid: %v", err)})
			}
			cids = append(cids, c)
			stored[c] = seq
		}
		n++
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("negotiation %s up to entry %d: %w", negotiationID, head.Size, ErrNotFound)
	}
	bw.WriteString("\n],\n")
	if err := writeObjects(bw, txn, negotiationID, cids, stored, fail); err != nil {
		return err
	}
	bw.WriteString(",\n\"anchor\":")
	if anchor == nil {
		bw.WriteString("null")
	} else {
		b := anchor.body()
		bw.Write(b[:len(b)-1])
		bw.WriteString(`,"consistency":`)
		writeHashes(bw, consistency)
		bw.WriteString("}")
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

func writeHashes(bw *bufio.Writer, hs [][32]byte) {
	bw.WriteByte('[')
	for i, h := range hs {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteByte('"')
		bw.Write(appendHex(nil, h[:]))
		bw.WriteByte('"')
	}
	bw.WriteByte(']')
}
