package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"

	"github.com/dgraph-io/badger/v4"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// The Merkle tree. Beside its hash chain the ledger keeps an RFC 6962
// Merkle tree over its entries: leaf i (from 0) is the stored JCS bytes of
// entry i+1 (Entry.Raw), hashed as SHA-256(0x00 || raw); an inner node is
// SHA-256(0x01 || left || right). Every inner node that roots a perfect
// subtree (a node (level, index), level 0 the leaves) is stored, with the
// other inner nodes its last leaf completes, under node|leaf (nodeKey);
// a leaf's hash is recomputed from its entry. The nodes are written in
// the transaction that writes the entries that complete them, the tree's
// size is the head's seq, and the tree key marks a store that keeps the
// tree; so the tree at any size up to the head (its root too) is rebuilt
// from O(log n) stored nodes, and the compact range of the whole log is
// the nodes that RangeNodes(0, size) names. The hashing, compact
// ranges, proofs and their verification are
// github.com/transparency-dev/merkle's.

var (
	hasher    = rfc6962.DefaultHasher
	treeRange = &compact.RangeFactory{Hash: hasher.HashChildren}
)

// treeMarker is stored under the tree key once the tree covers every
// entry (from the first open with it, or once built): the tree's size is
// then always the head's seq, and the writer keeps the two together.
const treeMarker = "rfc6962-sha256"

// readTree returns the tree's size (the head's seq) and whether the store
// keeps the tree (ok is false for a ledger written before the tree and not
// yet opened read-write since, or an empty one never opened read-write).
func readTree(txn *badger.Txn) (size uint64, ok bool, err error) {
	v, err := getValue(txn, keyTree)
	switch {
	case errors.Is(err, badger.ErrKeyNotFound):
		ok = false
	case err != nil:
		return 0, false, err
	case string(v) != treeMarker:
		return 0, false, bad(0, CodeTreeMismatch, "tree marker %q, want %q", v, treeMarker)
	default:
		ok = true
	}
	h, err := readHead(txn, keyHead)
	return h.Seq, ok, err
}

// nodeKey is the key of the inner nodes that appending leaf index
// completed: x|index, whose value is their hashes by level from 1 (one per
// level whose subtree the leaf completes). A leaf's own hash is not
// stored: it is SHA-256(0x00 || the entry's stored bytes), read from the
// entry. So an even leaf, which completes no inner node, has no key, and
// the tree adds one key per two entries to a commit on average.
func nodeKey(index uint64) []byte {
	k := make([]byte, 9)
	k[0] = pNode
	binary.BigEndian.PutUint64(k[1:], index)
	return k
}

// nodePlace returns the leaf whose append completed inner node id (the
// last leaf under it) and the node's offset in that leaf's value.
func nodePlace(id compact.NodeID) (leaf uint64, offset int) {
	return (id.Index+1)<<id.Level - 1, 32 * (int(id.Level) - 1)
}

// getNode reads node id: an inner node from the store, a leaf's hash from
// its entry. A node that should be stored and is not is a *VerifyError
// (tree_mismatch).
func getNode(txn *badger.Txn, id compact.NodeID) ([]byte, error) {
	if id.Level == 0 {
		v, err := getValue(txn, entryKey(id.Index+1))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil, bad(id.Index+1, CodeMissingEntry, "no entry %d for its tree leaf", id.Index+1)
		}
		if err != nil {
			return nil, err
		}
		if len(v) < 64 {
			return nil, bad(id.Index+1, CodeMalformedEntry, "value of %d bytes", len(v))
		}
		return hasher.HashLeaf(v[64:]), nil
	}
	leaf, off := nodePlace(id)
	item, err := txn.Get(nodeKey(leaf))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, bad(0, CodeTreeMismatch, "tree node (%d, %d) is not stored", id.Level, id.Index)
	}
	if err != nil {
		return nil, err
	}
	var out []byte
	err = item.Value(func(v []byte) error {
		if len(v) < off+32 || len(v)%32 != 0 {
			return bad(0, CodeTreeMismatch, "tree nodes of leaf %d: %d bytes, no node (%d, %d)", leaf, len(v), id.Level, id.Index)
		}
		out = append([]byte(nil), v[off:off+32]...)
		return nil
	})
	return out, err
}

// appendGroup appends leafHash to r and returns the hashes of the inner
// nodes the append completes, by level from 1, as nodeKey stores them
// (empty for an even leaf).
func appendGroup(r *compact.Range, leafHash []byte) ([]byte, error) {
	index := r.End()
	var buf []byte
	var order error
	err := r.Append(leafHash, func(id compact.NodeID, h []byte) {
		if id.Level == 0 {
			return
		}
		if leaf, off := nodePlace(id); leaf != index || off != len(buf) {
			order = fmt.Errorf("ledger: tree node (%d, %d) out of order appending leaf %d", id.Level, id.Index, index)
		}
		buf = append(buf, h...)
	})
	return buf, errors.Join(err, order)
}

func getNodes(txn *badger.Txn, ids []compact.NodeID) ([][]byte, error) {
	hs := make([][]byte, len(ids))
	for i, id := range ids {
		h, err := getNode(txn, id)
		if err != nil {
			return nil, err
		}
		hs[i] = h
	}
	return hs, nil
}

// loadRange returns the compact range [0, size) from the stored nodes.
func loadRange(txn *badger.Txn, size uint64) (*compact.Range, error) {
	hs, err := getNodes(txn, compact.RangeNodes(0, size, nil))
	if err != nil {
		return nil, err
	}
	return treeRange.NewRange(0, size, hs)
}

// rootOf returns the root of r (the empty tree's root for an empty r).
func rootOf(r *compact.Range) ([]byte, error) {
	if r.End() == 0 {
		return hasher.EmptyRoot(), nil
	}
	return r.GetRootHash(nil)
}

func cloneRange(r *compact.Range) *compact.Range {
	hs := make([][]byte, len(r.Hashes()))
	copy(hs, r.Hashes())
	c, err := treeRange.NewRange(r.Begin(), r.End(), hs)
	if err != nil {
		panic(err) // r's own hashes always fit its bounds
	}
	return c
}

// appendLeaf adds the leaf hash of the next entry to st's tree and sets
// the nodes it completes in st's transaction.
func (st *txnState) appendLeaf(leafHash []byte) error {
	index := st.tree.End()
	group, err := appendGroup(st.tree, leafHash)
	if err != nil || len(group) == 0 {
		return err
	}
	return st.txn.Set(nodeKey(index), group)
}

// treeCheck recomputes the tree over entries as verifyChain reads them and
// holds every node it completes to the stored one.
type treeCheck struct {
	txn *badger.Txn
	r   *compact.Range
}

// leaf adds entry seq's stored bytes raw to the check.
func (c *treeCheck) leaf(seq uint64, raw []byte) error {
	index := c.r.End()
	group, err := appendGroup(c.r, hasher.HashLeaf(raw))
	if err != nil || len(group) == 0 {
		return err
	}
	item, err := c.txn.Get(nodeKey(index))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return bad(seq, CodeTreeMismatch, "the tree nodes of entry %d are not stored", seq)
	}
	if err != nil {
		return err
	}
	return item.Value(func(v []byte) error {
		if !bytes.Equal(v, group) {
			return bad(seq, CodeTreeMismatch, "the stored tree nodes of entry %d are %x, the entries give %x", seq, v, group)
		}
		return nil
	})
}

// treeSize returns the tree's size, or ErrNotFound when the ledger keeps
// no tree yet (written before the tree and opened read-only since).
func treeSize(txn *badger.Txn) (uint64, error) {
	size, ok, err := readTree(txn)
	if err != nil {
		return 0, err
	}
	if !ok && size > 0 {
		return 0, fmt.Errorf("ledger: no Merkle tree yet (a read-write open builds it): %w", ErrNotFound)
	}
	return size, nil
}

func checkSize(size, treeSize uint64, field string) error {
	if size > treeSize {
		return refuse(CodeUnknownSize, field, "size %d is beyond the tree's %d entries", size, treeSize)
	}
	return nil
}

func to32(hs [][]byte) [][32]byte {
	out := make([][32]byte, len(hs))
	for i, h := range hs {
		copy(out[i][:], h)
	}
	return out
}

func from32(hs [][32]byte) [][]byte {
	out := make([][]byte, len(hs))
	for i := range hs {
		out[i] = hs[i][:]
	}
	return out
}

// nodeSource reads node hashes, from the store or (in tests) elsewhere.
type nodeSource func(ids []compact.NodeID) ([][]byte, error)

func rootFrom(get nodeSource, size uint64) ([32]byte, error) {
	var out [32]byte
	hs, err := get(compact.RangeNodes(0, size, nil))
	if err != nil {
		return out, err
	}
	r, err := treeRange.NewRange(0, size, hs)
	if err != nil {
		return out, err
	}
	root, err := rootOf(r)
	copy(out[:], root)
	return out, err
}

func buildProof(get nodeSource, nodes proof.Nodes) ([][32]byte, error) {
	hs, err := get(nodes.IDs)
	if err != nil {
		return nil, err
	}
	hs, err = nodes.Rehash(hs, hasher.HashChildren)
	if err != nil {
		return nil, err
	}
	return to32(hs), nil
}

func inclusionFrom(get nodeSource, seq, size uint64) ([][32]byte, error) {
	if seq == 0 || seq > size {
		return nil, refuse(CodeUnknownSize, "seq", "entry %d is not in a tree of size %d", seq, size)
	}
	nodes, err := proof.Inclusion(seq-1, size)
	if err != nil {
		return nil, err
	}
	return buildProof(get, nodes)
}

func consistencyFrom(get nodeSource, from, to uint64) ([][32]byte, error) {
	if from > to {
		return nil, refuse(CodeUnknownSize, "from", "size %d is beyond size %d", from, to)
	}
	nodes, err := proof.Consistency(from, to)
	if err != nil {
		return nil, err
	}
	return buildProof(get, nodes)
}

// treeView runs fn on the store's tree: its size and a node source.
func (l *Ledger) treeView(fn func(size uint64, get nodeSource) error) error {
	db, release, err := l.acquire()
	if err != nil {
		return err
	}
	defer release()
	return db.View(func(txn *badger.Txn) error {
		size, err := treeSize(txn)
		if err != nil {
			return err
		}
		return fn(size, func(ids []compact.NodeID) ([][]byte, error) { return getNodes(txn, ids) })
	})
}

// TreeHead returns the root of the Merkle tree over the first size entries
// (size 0 is the empty tree, SHA-256 of nothing), for any size up to the
// number of entries; a larger size is an *Error (CodeUnknownSize).
func (l *Ledger) TreeHead(size uint64) (root [32]byte, err error) {
	err = l.treeView(func(n uint64, get nodeSource) error {
		if err := checkSize(size, n, "size"); err != nil {
			return err
		}
		root, err = rootFrom(get, size)
		return err
	})
	return root, err
}

// InclusionProof returns the RFC 6962 inclusion proof (audit path) of entry
// seq in the tree of the first size entries: the sibling hashes from the
// leaf up. seq must be in 1..size and size at most the number of entries,
// else an *Error (CodeUnknownSize). VerifyInclusion checks it.
func (l *Ledger) InclusionProof(seq, size uint64) ([][32]byte, error) {
	var out [][32]byte
	err := l.treeView(func(n uint64, get nodeSource) error {
		if err := checkSize(size, n, "size"); err != nil {
			return err
		}
		var err error
		out, err = inclusionFrom(get, seq, size)
		return err
	})
	return out, err
}

// ConsistencyProof returns the RFC 6962 consistency proof that the tree of
// the first from entries is a prefix of the tree of the first to entries
// (empty when from is 0 or equals to). from must be at most to, and to at
// most the number of entries, else an *Error (CodeUnknownSize).
// VerifyConsistency checks it.
func (l *Ledger) ConsistencyProof(from, to uint64) ([][32]byte, error) {
	var out [][32]byte
	err := l.treeView(func(n uint64, get nodeSource) error {
		if err := checkSize(to, n, "to"); err != nil {
			return err
		}
		var err error
		out, err = consistencyFrom(get, from, to)
		return err
	})
	return out, err
}

// seal writes r's entry prefix and starts its leaf hash over it (on the
// caller's goroutine: prepare).
func (r *request) seal() {
	r.prefix = entryPrefix(r.kind, r.negID, r.body, r.at)
	r.leaf = sha256.New()
	r.leaf.Write([]byte{rfc6962.RFC6962LeafHashPrefix})
	r.leaf.Write(r.prefix)
}

// finishLeaf returns the leaf hash of an entry from the state over its
// prefix (left as it was: a retried build uses it again) and its tail.
func finishLeaf(prefix hash.Hash, tail []byte) []byte {
	h, err := prefix.(hash.Cloner).Clone()
	if err != nil {
		panic(err) // SHA-256 always clones
	}
	h.Write(tail)
	return h.Sum(nil)
}

// LeafHash returns the RFC 6962 leaf hash of an entry's stored bytes
// (Entry.Raw): SHA-256(0x00 || raw).
func LeafHash(raw []byte) [32]byte {
	var out [32]byte
	copy(out[:], hasher.HashLeaf(raw))
	return out
}

// VerifyInclusion checks that raw (an entry's stored bytes, Entry.Raw) is
// entry seq of the tree of size entries whose root is root, by proof. It
// needs nothing but its arguments. A proof that does not verify is a
// *VerifyError (CodeBadProof) naming seq.
func VerifyInclusion(raw []byte, seq, size uint64, proofHashes [][32]byte, root [32]byte) error {
	if seq == 0 || seq > size {
		return bad(seq, CodeBadProof, "entry %d is not in a tree of size %d", seq, size)
	}
	leaf := LeafHash(raw)
	if err := proof.VerifyInclusion(hasher, seq-1, size, leaf[:], from32(proofHashes), root[:]); err != nil {
		return bad(seq, CodeBadProof, "inclusion in the tree of size %d: %v", size, err)
	}
	return nil
}

// VerifyConsistency checks that the tree of from entries with root
// fromRoot is a prefix of the tree of to entries with root toRoot, by
// proof. A proof that does not verify is a *VerifyError (CodeBadProof)
// naming to.
func VerifyConsistency(from, to uint64, proofHashes [][32]byte, fromRoot, toRoot [32]byte) error {
	if from == 0 {
		// The empty tree is a prefix of every tree; the proof is empty.
		if len(proofHashes) != 0 || fromRoot != [32]byte(hasher.EmptyRoot()) {
			return bad(to, CodeBadProof, "consistency from the empty tree: want no proof and the empty root")
		}
		return nil
	}
	if err := proof.VerifyConsistency(hasher, from, to, from32(proofHashes), fromRoot[:], toRoot[:]); err != nil {
		return bad(to, CodeBadProof, "consistency from size %d to %d: %v", from, to, err)
	}
	return nil
}

// newTreeCheck returns the check of the tree from entry from+1 to head
// entries, starting from the stored compact range of the first from. With
// no tree marker and entries, it returns nil when skipMissing (a ledger
// written before the tree: open builds it) and tree_mismatch otherwise.
func newTreeCheck(txn *badger.Txn, from, head uint64, skipMissing bool) (*treeCheck, error) {
	_, ok, err := readTree(txn)
	if err != nil {
		return nil, err
	}
	if !ok {
		switch {
		case head == 0:
			return &treeCheck{txn: txn, r: treeRange.NewEmptyRange(0)}, nil
		case skipMissing:
			return nil, nil
		}
		return nil, bad(head, CodeTreeMismatch, "no tree marker for %d entries", head)
	}
	r, err := loadRange(txn, from)
	if err != nil {
		var ve *VerifyError
		if errors.As(err, &ve) {
			ve.Seq = max(from, 1)
		}
		return nil, err
	}
	return &treeCheck{txn: txn, r: r}, nil
}

// buildTree writes the tree over the first n entries of a ledger written
// before the tree (already verified) and returns its compact range.
func (l *Ledger) buildTree(ctx context.Context, db *badger.DB, n uint64) (*compact.Range, error) {
	r := treeRange.NewEmptyRange(0)
	wb := db.NewWriteBatch()
	defer wb.Cancel()
	err := db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 256, Prefix: []byte{pEntry}})
		defer it.Close()
		for it.Rewind(); it.Valid() && r.End() < n; it.Next() {
			if r.End()%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			index := r.End()
			var group []byte
			err := it.Item().Value(func(v []byte) (err error) {
				group, err = appendGroup(r, hasher.HashLeaf(v[64:]))
				return err
			})
			if err == nil && len(group) > 0 {
				err = wb.Set(nodeKey(index), group)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && r.End() != n {
		err = fmt.Errorf("ledger: %d entries for a tree of %d", r.End(), n)
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: build the Merkle tree: %w", err)
	}
	err = wb.Set(keyTree, []byte(treeMarker))
	if err == nil {
		err = wb.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: write the Merkle tree: %w", err)
	}
	l.log.Info("Merkle tree built for a ledger written before it", "entries", n)
	return r, nil
}
