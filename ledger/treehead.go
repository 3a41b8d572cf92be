package ledger

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/transparency-dev/merkle/compact"

	"github.com/parleynet/parley/negotiation"
)

// Signed tree heads and tree anchors. A tree head is the node's signed
// statement of its Merkle tree's root at a size; a tree anchor records that
// a root at a size was posted on chain (LedgerAnchor). Both are entries of
// reserved kinds, written only by RecordTreeHead and RecordTreeAnchor, and
// checked by the writer against the tree of the transaction that writes
// them: the ledger never records a head or an anchor of a root it does not
// have. The signature is made and checked one layer up (node/), which holds
// the identity; the ledger checks its length only.

// TreeHeadFormat names the signed statement of a tree head
// (TreeHead.SigningBytes).
const TreeHeadFormat = "parley-tree-head/1"

// MaxTreeSize is the largest tree size (and seq) a tree head, an anchor or
// a proof bundle may name: 2^53-1, the largest integer every JSON reader
// (and JCS, whose numbers are IEEE doubles) keeps exactly.
const MaxTreeSize = 1<<53 - 1

// TreeHead is a signed tree head: the node's statement that its ledger's first
// Size entries have the Merkle root Root, at Time, signed by the inbox key of
// the identity link whose SHA-256 (of its JCS bytes) is Signer.
type TreeHead struct {
	Size      uint64
	Root      [32]byte
	Time      time.Time        // millisecond precision, UTC
	Signer    negotiation.Hash // SHA-256 of the signer's JCS identity link (identity.Link.Hash())
	Signature []byte           // 64-byte ed25519 signature over SigningBytes()
}

// SigningBytes is JCS {"format":"parley-tree-head/1","root":"0x..",
// "signer":"0x..","size":N,"time":"<negotiation.TimeLayout>"}: the bytes the
// signer's inbox key signs.
func (h TreeHead) SigningBytes() []byte {
	out := make([]byte, 0, 256)
	out = append(out, `{"format":"`+TreeHeadFormat+`","root":"`...)
	out = appendHex(out, h.Root[:])
	out = append(out, `","signer":"`...)
	out = appendHex(out, h.Signer[:])
	out = append(out, `","size":`...)
	out = strconv.AppendUint(out, h.Size, 10)
	out = append(out, `,"time":"`...)
	out = h.Time.UTC().AppendFormat(out, negotiation.TimeLayout)
	return append(out, `"}`...)
}

// body returns the body of the tree.head entry of h: JCS
// {"root","signature","signer","size","time"}.
func (h TreeHead) body() []byte {
	out := make([]byte, 0, 384)
	out = append(out, `{"root":"`...)
	out = appendHex(out, h.Root[:])
	out = append(out, `","signature":"`...)
	out = appendHex(out, h.Signature)
	out = append(out, `","signer":"`...)
	out = appendHex(out, h.Signer[:])
	out = append(out, `","size":`...)
	out = strconv.AppendUint(out, h.Size, 10)
	out = append(out, `,"time":"`...)
	out = h.Time.UTC().AppendFormat(out, negotiation.TimeLayout)
	return append(out, `"}`...)
}

// check refuses a head that is not well formed (before the writer checks
// its root against the tree).
func (h TreeHead) check() error {
	switch {
	case h.Size == 0 || h.Size > MaxTreeSize:
		return refuse(CodeUnknownSize, "size", "a tree head covers 1..%d entries, not %d", uint64(MaxTreeSize), h.Size)
	case len(h.Signature) != 64:
		return refuse(CodeBadBody, "signature", "an ed25519 signature is 64 bytes, not %d", len(h.Signature))
	case h.Signer.IsZero():
		return refuse(CodeBadBody, "signer", "a tree head names its signer's identity link")
	case h.Time.IsZero():
		return refuse(CodeBadTime, "time", "a tree head has a time")
	}
	if y := h.Time.UTC().Year(); y < 0 || y > 9999 {
		return refuse(CodeBadTime, "time", "year %d is outside 0000-9999", y)
	}
	return nil
}

// RecordTreeHead records a signed tree head as an entry of the reserved
// kind KindTreeHead (no negotiationId). It refuses, with an *Error and
// writing nothing: a size of 0 or beyond the entries (CodeUnknownSize), a
// root that is not the tree's root at that size (CodeTreeMismatch), a
// signature that is not 64 bytes or a zero signer (CodeBadBody), a zero
// time (CodeBadTime). The root is checked by the writer against the tree
// of the transaction that writes the entry. The signature itself is the
// caller's to make and check: the ledger holds no identity.
func (l *Ledger) RecordTreeHead(ctx context.Context, h TreeHead) (Entry, error) {
	if err := h.check(); err != nil {
		return Entry{}, err
	}
	return l.recordTree(ctx, KindTreeHead, h.body(), sizedRoot{h.Size, h.Root})
}

// recordTree appends an entry of a reserved tree kind whose root at its
// size the writer checks against its transaction's tree (opTree).
func (l *Ledger) recordTree(ctx context.Context, kind string, body []byte, at sizedRoot) (Entry, error) {
	req, err := l.prepare(Record{Kind: kind, Body: body})
	if err != nil {
		return Entry{}, err
	}
	req.op, req.tree = opTree, at
	res := l.submit(ctx, req)
	return res.entry, res.err
}

// ParseTreeHead reads a tree head from the body of a tree.head entry (or
// the treeHead member of a proof bundle). It accepts only the exact
// canonical form RecordTreeHead writes: the five members in order, lowercase
// 0x hex, a size in 1..MaxTreeSize, a time in negotiation.TimeLayout; any
// other text is a *VerifyError (CodeMalformedEntry).
func ParseTreeHead(body []byte) (TreeHead, error) {
	var h TreeHead
	vals, err := exactMembers(body, "root", "signature", "signer", "size", "time")
	if err == nil {
		err = parseHexInto(vals[0], h.Root[:])
	}
	if err == nil {
		h.Signature = make([]byte, 64)
		err = parseHexInto(vals[1], h.Signature)
	}
	if err == nil {
		err = parseHexInto(vals[2], h.Signer[:])
	}
	if err == nil {
		h.Size, err = parseSize(vals[3], 1)
	}
	if err == nil {
		h.Time, err = parseTimeValue(vals[4])
	}
	if err == nil && !bytes.Equal(h.body(), body) {
		err = errMalformed
	}
	if err != nil {
		return TreeHead{}, bad(0, CodeMalformedEntry, "not a tree head: %v", err)
	}
	return h, nil
}

// LatestTreeHead returns the newest recorded tree head and its entry, or
// ErrNotFound when none was recorded.
func (l *Ledger) LatestTreeHead(ctx context.Context) (TreeHead, Entry, error) {
	var h TreeHead
	e, err := l.latestOfKind(ctx, KindTreeHead, func(e Entry) (bool, error) {
		var err error
		h, err = ParseTreeHead(e.Body)
		if err != nil {
			return false, bad(e.Seq, CodeMalformedEntry, "tree head: %v", err)
		}
		return true, nil
	})
	if err != nil {
		return TreeHead{}, Entry{}, err
	}
	return h, e, nil
}

// TreeAnchor records that the tree's root at Size was posted on chain: by
// the EVM address Address, to the LedgerAnchor contract Contract of chain
// ChainID, in transaction TxHash of block BlockNumber.
type TreeAnchor struct {
	Size        uint64
	Root        [32]byte
	ChainID     uint64
	Contract    negotiation.Address // LedgerAnchor
	Address     negotiation.Address // the EVM address that sent the anchor tx
	TxHash      negotiation.Hash
	BlockNumber uint64
}

// body returns the body of the tree.anchor entry of a: JCS
// {"address","blockNumber","chainId","contract","root","size","txHash"}.
func (a TreeAnchor) body() []byte {
	out := make([]byte, 0, 320)
	out = a.appendMembers(append(out, '{'))
	return append(out, '}')
}

// appendMembers appends a's members, without braces, in JCS order.
func (a TreeAnchor) appendMembers(out []byte) []byte {
	out = append(out, `"address":"`...)
	out = append(out, a.Address.String()...)
	out = append(out, `","blockNumber":`...)
	out = strconv.AppendUint(out, a.BlockNumber, 10)
	out = append(out, `,"chainId":`...)
	out = strconv.AppendUint(out, a.ChainID, 10)
	out = append(out, `,"contract":"`...)
	out = append(out, a.Contract.String()...)
	out = append(out, `","root":"`...)
	out = appendHex(out, a.Root[:])
	out = append(out, `","size":`...)
	out = strconv.AppendUint(out, a.Size, 10)
	out = append(out, `,"txHash":"`...)
	out = appendHex(out, a.TxHash[:])
	return append(out, '"')
}

func (a TreeAnchor) check() error {
	switch {
	case a.Size == 0 || a.Size > MaxTreeSize:
		return refuse(CodeUnknownSize, "size", "an anchor covers 1..%d entries, not %d", uint64(MaxTreeSize), a.Size)
	case a.ChainID == 0 || a.ChainID > MaxTreeSize:
		return refuse(CodeBadBody, "chainId", "chain id %d is outside 1..%d", a.ChainID, uint64(MaxTreeSize))
	case a.BlockNumber > MaxTreeSize:
		return refuse(CodeBadBody, "blockNumber", "block %d is beyond %d", a.BlockNumber, uint64(MaxTreeSize))
	case a.Contract == negotiation.Address{}:
		return refuse(CodeBadBody, "contract", "an anchor names its contract")
	case a.Address == negotiation.Address{}:
		return refuse(CodeBadBody, "address", "an anchor names the address that sent it")
	case a.TxHash.IsZero():
		return refuse(CodeBadBody, "txHash", "an anchor names its transaction")
	}
	return nil
}

// RecordTreeAnchor records an anchor of the tree on chain as an entry of
// the reserved kind KindTreeAnchor (no negotiationId). It refuses, with an
// *Error and writing nothing: a size of 0 or beyond the entries
// (CodeUnknownSize), a root that is not the tree's root at that size
// (CodeTreeMismatch), a zero contract, address or transaction hash or a
// chain id of 0 (CodeBadBody). The chain is the caller's to read: the
// ledger checks only that the root is its own.
func (l *Ledger) RecordTreeAnchor(ctx context.Context, a TreeAnchor) (Entry, error) {
	if err := a.check(); err != nil {
		return Entry{}, err
	}
	return l.recordTree(ctx, KindTreeAnchor, a.body(), sizedRoot{a.Size, a.Root})
}

// ParseTreeAnchor reads a tree anchor from the body of a tree.anchor entry.
// It accepts only the exact canonical form RecordTreeAnchor writes; any
// other text is a *VerifyError (CodeMalformedEntry).
func ParseTreeAnchor(body []byte) (TreeAnchor, error) {
	a, err := parseAnchorValues(body)
	if err == nil && !bytes.Equal(a.body(), body) {
		err = errMalformed
	}
	if err != nil {
		return TreeAnchor{}, bad(0, CodeMalformedEntry, "not a tree anchor: %v", err)
	}
	return a, nil
}

// parseAnchorValues reads the members of an anchor object, in JCS order,
// with extra members after the anchor's own allowed only as the caller
// allows them (none here).
func parseAnchorValues(body []byte, extra ...string) (TreeAnchor, error) {
	var a TreeAnchor
	names := append([]string{"address", "blockNumber", "chainId", "contract", "root", "size", "txHash"}, extra...)
	vals, err := exactMembers(body, names...)
	if err != nil {
		return a, err
	}
	if a.Address, err = parseAddressValue(vals[0]); err != nil {
		return a, err
	}
	if a.BlockNumber, err = parseSize(vals[1], 0); err != nil {
		return a, err
	}
	if a.ChainID, err = parseSize(vals[2], 1); err != nil {
		return a, err
	}
	if a.Contract, err = parseAddressValue(vals[3]); err != nil {
		return a, err
	}
	if err = parseHexInto(vals[4], a.Root[:]); err != nil {
		return a, err
	}
	if a.Size, err = parseSize(vals[5], 1); err != nil {
		return a, err
	}
	if err = parseHexInto(vals[6], a.TxHash[:]); err != nil {
		return a, err
	}
	return a, nil
}

// LatestTreeAnchor returns the newest recorded tree anchor whose size is
// at most maxSize, and its entry; ErrNotFound when there is none.
func (l *Ledger) LatestTreeAnchor(ctx context.Context, maxSize uint64) (TreeAnchor, Entry, error) {
	var a TreeAnchor
	e, err := l.latestOfKind(ctx, KindTreeAnchor, func(e Entry) (bool, error) {
		var err error
		a, err = ParseTreeAnchor(e.Body)
		if err != nil {
			return false, bad(e.Seq, CodeMalformedEntry, "tree anchor: %v", err)
		}
		return a.Size <= maxSize, nil
	})
	if err != nil {
		return TreeAnchor{}, Entry{}, err
	}
	return a, e, nil
}

// latestOfKind walks the entries of kind from the newest and returns the
// first that match accepts; ErrNotFound when none does.
func (l *Ledger) latestOfKind(ctx context.Context, kind string, match func(Entry) (bool, error)) (Entry, error) {
	db, release, err := l.acquire()
	if err != nil {
		return Entry{}, err
	}
	defer release()
	var out Entry
	err = db.View(func(txn *badger.Txn) error {
		e, ok, err := latestOfKindTxn(ctx, txn, kind, ^uint64(0), match)
		if err == nil && !ok {
			err = fmt.Errorf("%s entry: %w", kind, ErrNotFound)
		}
		out = e
		return err
	})
	return out, err
}

// latestOfKindTxn walks the entries of kind with seq at most maxSeq from the
// newest, in txn, and returns the first that match accepts.
func latestOfKindTxn(ctx context.Context, txn *badger.Txn, kind string, maxSeq uint64, match func(Entry) (bool, error)) (Entry, bool, error) {
	prefix := indexPrefix(pKind, kind)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: true})
	defer it.Close()
	for it.Seek(indexKey(pKind, kind, maxSeq)); it.Valid(); it.Next() {
		if err := ctx.Err(); err != nil {
			return Entry{}, false, err
		}
		k := it.Item().Key()
		if len(k) != len(prefix)+8 {
			continue
		}
		e, err := getEntry(txn, seqOfIndexKey(k))
		if err != nil {
			return Entry{}, false, err
		}
		ok, err := match(e)
		if err != nil || ok {
			return e, ok, err
		}
	}
	return Entry{}, false, nil
}

// sizedRoot is a tree size and the root a tree head or anchor names for it.
type sizedRoot struct {
	size uint64
	root [32]byte
}

// checkTreeRoot refuses a tree head or anchor whose size is not in
// 1..the entries of this transaction, or whose root is not the tree's root
// at that size.
func (st *txnState) checkTreeRoot(t sizedRoot) error {
	size, root := t.size, t.root
	if size == 0 || size > st.head.Seq {
		return refuse(CodeUnknownSize, "size", "size %d is outside 1..%d", size, st.head.Seq)
	}
	var want [32]byte
	if size == st.tree.End() {
		r, err := rootOf(st.tree)
		if err != nil {
			return err
		}
		copy(want[:], r)
	} else {
		var err error
		want, err = rootFrom(func(ids []compact.NodeID) ([][]byte, error) { return getNodes(st.txn, ids) }, size)
		if err != nil {
			return err
		}
	}
	if want != root {
		return refuse(CodeTreeMismatch, "root", "the tree's root at size %d is %s, not %s", size,
			negotiation.Hash(want), negotiation.Hash(root))
	}
	return nil
}

// exactMembers returns the values of the members of the compact JSON
// object b, which must be exactly names, in that order.
func exactMembers(b []byte, names ...string) ([][]byte, error) {
	vals := make([][]byte, 0, len(names))
	err := eachMember(b, func(m member) bool {
		if len(vals) == len(names) || string(m.key) != names[len(vals)] {
			vals = nil
			return false
		}
		vals = append(vals, m.val)
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(vals) != len(names) {
		return nil, fmt.Errorf("want the members %v", names)
	}
	return vals, nil
}

// parseHexInto reads a JSON string "0x" + lowercase hex of len(dst) bytes.
func parseHexInto(v []byte, dst []byte) error {
	s, ok := plainString(v)
	if !ok || len(s) != 2+2*len(dst) || s[:2] != "0x" {
		return fmt.Errorf("want 0x and %d hex digits", 2*len(dst))
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return errors.New("want lowercase hex digits")
		}
	}
	_, err := hex.Decode(dst, []byte(s[2:]))
	return err
}

// parseSize reads a JSON integer in min..MaxTreeSize.
func parseSize(v []byte, min uint64) (uint64, error) {
	n, err := parseSeq(v)
	if err != nil || n < min || n > MaxTreeSize {
		return 0, fmt.Errorf("want an integer in %d..%d", min, uint64(MaxTreeSize))
	}
	return n, nil
}

func parseTimeValue(v []byte) (time.Time, error) {
	s, ok := plainString(v)
	if !ok {
		return time.Time{}, errMalformed
	}
	return negotiation.ParseTime(s)
}

func parseAddressValue(v []byte) (negotiation.Address, error) {
	s, ok := plainString(v)
	if !ok {
		return negotiation.Address{}, errMalformed
	}
	return negotiation.ParseAddress(s)
}

func appendHex(out, b []byte) []byte {
	out = append(out, "0x"...)
	return hex.AppendEncode(out, b)
}
