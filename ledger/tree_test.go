package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/testonly"
)

// mth is the Merkle Tree Hash of RFC 6962, section 2.1, straight from its
// definition: the reference the ledger's tree is held to.
func mth(leaves [][]byte) [32]byte {
	switch n := len(leaves); n {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return sha256.Sum256(append([]byte{0}, leaves[0]...))
	default:
		k := 1
		for k*2 < n {
			k *= 2
		}
		l, r := mth(leaves[:k]), mth(leaves[k:])
		return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
	}
}

// memTree is a tree of leaves built with the ledger's node visitor into a
// map, as the ledger stores it in Badger.
func memTree(t *testing.T, leaves [][]byte) nodeSource {
	t.Helper()
	nodes := map[compact.NodeID][]byte{}
	r := treeRange.NewEmptyRange(0)
	for _, leaf := range leaves {
		if err := r.Append(hasher.HashLeaf(leaf), func(id compact.NodeID, h []byte) { nodes[id] = h }); err != nil {
			t.Fatal(err)
		}
	}
	return func(ids []compact.NodeID) ([][]byte, error) {
		out := make([][]byte, len(ids))
		for i, id := range ids {
			h, ok := nodes[id]
			if !ok {
				return nil, bad(0, CodeTreeMismatch, "node %v not stored", id)
			}
			out[i] = h
		}
		return out, nil
	}
}

func dh(t *testing.T, s string) [32]byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad hash %q", s)
	}
	return [32]byte(b)
}

// TestTreeRFC6962Vectors holds the tree code to the RFC 6962 test vectors
// (those of transparency-dev/merkle, from certificate transparency): the
// roots of the trees of 0..8 leaves, and inclusion and consistency proofs.
func TestTreeRFC6962Vectors(t *testing.T) {
	leaves, roots := testonly.LeafInputs(), testonly.RootHashes()
	get := memTree(t, leaves)
	for size := range uint64(len(leaves)) + 1 {
		got, err := rootFrom(get, size)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:], roots[size]) {
			t.Errorf("root of %d leaves = %x, want %x", size, got, roots[size])
		}
		if want := mth(leaves[:size]); got != want {
			t.Errorf("root of %d leaves = %x, the RFC's definition gives %x", size, got, want)
		}
	}
	// proof/verify_test.go of transparency-dev/merkle v0.0.2: leaf (from 1), size, proof.
	inclusion := []struct {
		seq, size uint64
		proof     []string
	}{
		{1, 1, nil},
		{1, 8, []string{"96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7", "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"}},
		{6, 8, []string{"bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b", "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0", "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"}},
		{3, 3, []string{"fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"}},
		{2, 5, []string{"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d", "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"}},
	}
	for _, v := range inclusion {
		got, err := inclusionFrom(get, v.seq, v.size)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(v.proof) {
			t.Fatalf("inclusion %d in %d: %d hashes, want %d", v.seq, v.size, len(got), len(v.proof))
		}
		for i, h := range v.proof {
			if got[i] != dh(t, h) {
				t.Errorf("inclusion %d in %d: hash %d = %x, want %s", v.seq, v.size, i, got[i], h)
			}
		}
		if err := VerifyInclusion(leaves[v.seq-1], v.seq, v.size, got, [32]byte(roots[v.size])); err != nil {
			t.Errorf("inclusion %d in %d: %v", v.seq, v.size, err)
		}
	}
	consistency := []struct {
		from, to uint64
		proof    []string
	}{
		{1, 1, nil},
		{1, 8, []string{"96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7", "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"}},
		{6, 8, []string{"0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a", "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0", "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"}},
		{2, 5, []string{"5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"}},
		{6, 7, []string{"0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a", "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f", "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"}},
	}
	for _, v := range consistency {
		got, err := consistencyFrom(get, v.from, v.to)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(v.proof) {
			t.Fatalf("consistency %d to %d: %d hashes, want %d", v.from, v.to, len(got), len(v.proof))
		}
		for i, h := range v.proof {
			if got[i] != dh(t, h) {
				t.Errorf("consistency %d to %d: hash %d = %x, want %s", v.from, v.to, i, got[i], h)
			}
		}
		if err := VerifyConsistency(v.from, v.to, got, [32]byte(roots[v.from]), [32]byte(roots[v.to])); err != nil {
			t.Errorf("consistency %d to %d: %v", v.from, v.to, err)
		}
	}
}

// treeLedger appends n entries to l, one by one.
func treeLedger(t *testing.T, l *Ledger, n int) {
	t.Helper()
	for i := range n {
		mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(1 + i%3), Body: []byte(`{"i":` + itoa(i) + `}`)})
	}
}

// raws returns the stored bytes of the first n entries.
func raws(t *testing.T, l *Ledger, n uint64) [][]byte {
	t.Helper()
	out := make([][]byte, n)
	for seq := uint64(1); seq <= n; seq++ {
		e, err := l.Get(t.Context(), seq)
		if err != nil {
			t.Fatal(err)
		}
		out[seq-1] = e.Raw
	}
	return out
}

// checkTree holds every tree head of l to the RFC's definition over the
// entries' stored bytes.
func checkTree(t *testing.T, l *Ledger) {
	t.Helper()
	n := l.Head().Seq
	leaves := raws(t, l, n)
	for size := range n + 1 {
		root, err := l.TreeHead(size)
		if err != nil {
			t.Fatal(err)
		}
		if want := mth(leaves[:size]); root != want {
			t.Fatalf("tree head of size %d = %x, want %x", size, root, want)
		}
	}
}

// TestTreeProofsEveryPair proves every entry in every tree of a small
// ledger and every tree consistent with every later one, checked with
// transparency-dev/merkle's verifier and the package's wrappers; a proof
// of the wrong entry, size or root is refused (bad_proof).
func TestTreeProofsEveryPair(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	const n = 13
	treeLedger(t, l, n)
	checkTree(t, l)
	leaves := raws(t, l, n)
	roots := make([][32]byte, n+1)
	for size := range uint64(n + 1) {
		roots[size], _ = l.TreeHead(size)
	}
	for size := uint64(1); size <= n; size++ {
		for seq := uint64(1); seq <= size; seq++ {
			p, err := l.InclusionProof(seq, size)
			if err != nil {
				t.Fatal(err)
			}
			leaf := LeafHash(leaves[seq-1])
			if err := proof.VerifyInclusion(hasher, seq-1, size, leaf[:], from32(p), roots[size][:]); err != nil {
				t.Fatalf("inclusion of %d in %d: %v", seq, size, err)
			}
			if err := VerifyInclusion(leaves[seq-1], seq, size, p, roots[size]); err != nil {
				t.Fatalf("inclusion of %d in %d: %v", seq, size, err)
			}
			other := leaves[(seq)%size]
			if size > 1 {
				if err := VerifyInclusion(other, seq, size, p, roots[size]); CodeOf(err) != CodeBadProof {
					t.Fatalf("inclusion of another entry as %d in %d = %v, want bad_proof", seq, size, err)
				}
			}
			if err := VerifyInclusion(leaves[seq-1], seq, size, p, roots[size-1]); CodeOf(err) != CodeBadProof {
				t.Fatalf("inclusion of %d against another root = %v, want bad_proof", seq, err)
			}
		}
	}
	for to := uint64(0); to <= n; to++ {
		for from := uint64(0); from <= to; from++ {
			p, err := l.ConsistencyProof(from, to)
			if err != nil {
				t.Fatal(err)
			}
			if from > 0 {
				if err := proof.VerifyConsistency(hasher, from, to, from32(p), roots[from][:], roots[to][:]); err != nil {
					t.Fatalf("consistency %d to %d: %v", from, to, err)
				}
			}
			if err := VerifyConsistency(from, to, p, roots[from], roots[to]); err != nil {
				t.Fatalf("consistency %d to %d: %v", from, to, err)
			}
			if from > 0 && from < to {
				forged := roots[from]
				forged[0] ^= 1
				if err := VerifyConsistency(from, to, p, forged, roots[to]); CodeOf(err) != CodeBadProof {
					t.Fatalf("consistency %d to %d from a forged root = %v, want bad_proof", from, to, err)
				}
			}
		}
	}
	for _, err := range []error{
		func() error { _, err := l.TreeHead(n + 1); return err }(),
		func() error { _, err := l.InclusionProof(0, n); return err }(),
		func() error { _, err := l.InclusionProof(5, 4); return err }(),
		func() error { _, err := l.InclusionProof(1, n+1); return err }(),
		func() error { _, err := l.ConsistencyProof(1, n+1); return err }(),
		func() error { _, err := l.ConsistencyProof(5, 4); return err }(),
	} {
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeUnknownSize || e.Class() != "not_found" {
			t.Fatalf("out of range = %v, want an *Error unknown_size of class not_found", err)
		}
	}
}

// TestTreeSurvivesReopen closes and reopens a ledger: the tree is loaded
// from the store and grows on from there.
func TestTreeSurvivesReopen(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	treeLedger(t, l, 11)
	before, err := l.TreeHead(11)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = open(t, cfg)
	if root, err := l.TreeHead(11); err != nil || root != before {
		t.Fatalf("tree head after reopen = %x, %v; want %x", root, err, before)
	}
	treeLedger(t, l, 6)
	checkTree(t, l)
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestTreeBuiltForAnOldLedger opens a ledger written before the tree
// (format version 1, no nodes, no tree marker): the read-write open builds
// it and names the store version 2.
func TestTreeBuiltForAnOldLedger(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	treeLedger(t, l, 9)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, cfg)
	if err := db.DropPrefix([]byte{pNode}, keyTree); err != nil {
		t.Fatal(err)
	}
	setRaw(t, db, keyMeta, []byte(formatV1))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	l = open(t, cfg)
	checkTree(t, l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	db = rawDB(t, cfg)
	if meta := getRaw(t, db, keyMeta); string(meta) != formatName {
		t.Fatalf("the upgraded ledger holds format %q, want %q", meta, formatName)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	l = open(t, cfg)
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// flipNode flips a bit of stored node id.
func flipNode(t *testing.T, db *badger.DB, id compact.NodeID) {
	t.Helper()
	leaf, off := nodePlace(id)
	v := append([]byte(nil), getRaw(t, db, nodeKey(leaf))...)
	v[off+5] ^= 1
	setRaw(t, db, nodeKey(leaf), v)
}

// TestTreeTamperIsCaught changes the stored tree or an entry behind the
// ledger's back: Verify (and Start, for what follows the checkpoint)
// reports tree_mismatch, even where the hash chain was rewritten to match.
func TestTreeTamperIsCaught(t *testing.T) {
	const n = 10
	build := func(t *testing.T) Config {
		cfg := testConfig(t, t.TempDir())
		l, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		treeLedger(t, l, n)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	flip := func(v []byte) []byte { v = append([]byte(nil), v...); v[len(v)-1] ^= 1; return v }
	cases := []struct {
		name   string
		seq    uint64
		tamper func(t *testing.T, db *badger.DB)
	}{
		{"a node of level 1", 4, func(t *testing.T, db *badger.DB) { flipNode(t, db, compact.NewNodeID(1, 1)) }},
		{"an inner node", 8, func(t *testing.T, db *badger.DB) { flipNode(t, db, compact.NewNodeID(3, 0)) }},
		{"a missing node", 6, func(t *testing.T, db *badger.DB) {
			leaf, _ := nodePlace(compact.NewNodeID(1, 2))
			deleteRaw(t, db, nodeKey(leaf))
		}},
		{"a node cut short", 10, func(t *testing.T, db *badger.DB) {
			k := nodeKey(9)
			setRaw(t, db, k, getRaw(t, db, k)[:16])
		}},
		{"the tree marker", 0, func(t *testing.T, db *badger.DB) { setRaw(t, db, keyTree, flip(getRaw(t, db, keyTree))) }},
		{"no tree marker", n, func(t *testing.T, db *badger.DB) { deleteRaw(t, db, keyTree) }},
		{"the last entry, its chain rewritten", n, func(t *testing.T, db *badger.DB) {
			v := getRaw(t, db, entryKey(n))
			prev := [32]byte(v[:32])
			raw := bytes.Replace(v[64:], []byte(`"i":9`), []byte(`"i":8`), 1)
			h := chainHash(prev, raw)
			setRaw(t, db, entryKey(n), storedValue(prev, h, raw))
			setRaw(t, db, keyHead, headValue(Head{Seq: n, Hash: h}))
			setRaw(t, db, keyCheckpoint, headValue(Head{Seq: n, Hash: h}))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := build(t)
			db := rawDB(t, cfg)
			c.tamper(t, db)
			if err := verifyRaw(t, db); err != nil && c.name != "the last entry, its chain rewritten" {
				t.Fatalf("the hash chain alone: %v", err)
			}
			err := verifyThroughLedger(t, cfg, db, Head{})
			wantVerifyError(t, err, c.seq, CodeTreeMismatch)
		})
	}
}

// TestTreeGroupCommit appends from 32 writers at once (group-committed)
// and then the same entries one by one into another ledger: both trees
// have the same root at every size.
func TestTreeGroupCommit(t *testing.T) {
	a := open(t, testConfig(t, t.TempDir()))
	const writers, each = 32, 8
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, _, err := a.Append(t.Context(), Record{Kind: KindChainEvent, NegotiationID: nid(1 + w%4), Body: []byte(`{"w":` + itoa(w) + `,"i":` + itoa(i) + `}`)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if batches, entries := a.Stats(); batches >= entries {
		t.Logf("no group commit happened (%d commits for %d entries)", batches, entries)
	}
	n := a.Head().Seq
	b := open(t, testConfig(t, t.TempDir()))
	for seq := uint64(1); seq <= n; seq++ {
		e, err := a.Get(t.Context(), seq)
		if err != nil {
			t.Fatal(err)
		}
		mustAppend(t, b, Record{Kind: e.Kind, NegotiationID: e.NegotiationID, Body: e.Body, At: e.At})
	}
	for size := range n + 1 {
		ra, err := a.TreeHead(size)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := b.TreeHead(size)
		if err != nil {
			t.Fatal(err)
		}
		if ra != rb {
			t.Fatalf("size %d: group-committed root %x, one by one %x", size, ra, rb)
		}
	}
	checkTree(t, a)
}

// TestTreeScanReportsNodeDamage damages a stored node behind the
// checkpoint: Start does not read it, Scan reports it (tree_mismatch) and
// goes on.
func TestTreeScanReportsNodeDamage(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	treeLedger(t, l, 10)
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, cfg)
	flipNode(t, db, compact.NewNodeID(1, 1))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	l = open(t, cfg)
	rep, err := l.Scan(t.Context(), ScanConfig{Duty: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count != 1 || rep.Damage[0].Seq != 4 || rep.Damage[0].Code != CodeTreeMismatch {
		t.Fatalf("scan found %+v, want tree_mismatch at entry 4", rep.Damage)
	}
}

// TestOtherFormatRefused opens a ledger whose store names a format this
// binary does not know (what a newer one writes; version 2 is that to a
// binary of version 1, which would append entries without the tree):
// Start refuses it and writes nothing.
func TestOtherFormatRefused(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	l := open(t, cfg)
	treeLedger(t, l, 3)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, cfg)
	setRaw(t, db, keyMeta, []byte("parley-ledger/3"))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err == nil || !strings.Contains(err.Error(), `holds format "parley-ledger/3"`) {
		l.Close()
		t.Fatalf("Start of a ledger of another format: %v", err)
	}
	db = rawDB(t, cfg)
	defer db.Close()
	if meta := getRaw(t, db, keyMeta); string(meta) != "parley-ledger/3" {
		t.Fatalf("the refused ledger's format became %q", meta)
	}
}
