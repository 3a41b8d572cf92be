package ledger

import (
	"bytes"
	"regexp"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/parleynet/parley/negotiation"
)

// checkStoredBackLinks holds every entry's negotiationPrev to the seq of its
// negotiation's previous entry (0 for the first; none for an entry of no
// negotiation), from the entries as stored.
func checkStoredBackLinks(t *testing.T, l *Ledger) {
	t.Helper()
	last := map[string]uint64{}
	es, err := Collect(l.Entries(t.Context(), 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.NegotiationID == "" {
			if e.Linked || e.NegotiationPrev != 0 || bytes.Contains(e.Raw, []byte("negotiationPrev")) {
				t.Fatalf("entry %d of no negotiation has a back-link: %s", e.Seq, e.Raw)
			}
			continue
		}
		if !e.Linked || e.NegotiationPrev != last[e.NegotiationID] {
			t.Fatalf("entry %d: negotiationPrev %d (linked %v), want %d", e.Seq, e.NegotiationPrev, e.Linked, last[e.NegotiationID])
		}
		last[e.NegotiationID] = e.Seq
	}
}

func TestBackLink(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	// Alone, in batches, and from concurrent writers sharing commits.
	mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"i":1}`)})
	mustAppend(t, l, Record{Kind: KindCardSealed, Body: []byte(`{"i":2}`)})
	mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(2), Body: []byte(`{"i":3}`)})
	es, err := l.AppendAll(ctx,
		Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"i":4}`)},
		Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"i":5}`)},
		Record{Kind: KindChainEvent, NegotiationID: nid(3), Body: []byte(`{"i":6}`)},
		Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"i":7}`)},
	)
	if err != nil {
		t.Fatal(err)
	}
	if es[0].NegotiationPrev != 1 || es[1].NegotiationPrev != 4 || es[2].NegotiationPrev != 0 || es[3].NegotiationPrev != 5 {
		t.Fatalf("batch back-links %d %d %d %d", es[0].NegotiationPrev, es[1].NegotiationPrev, es[2].NegotiationPrev, es[3].NegotiationPrev)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 40 {
				if _, _, err := l.Append(ctx, Record{Kind: KindChainEvent, NegotiationID: nid(1 + (w+i)%5), Body: []byte(`{"w":1}`)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	// A refused batch leaves no trace in the back-links.
	if _, err := l.AppendAll(ctx,
		Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"i":8}`)},
		Record{Kind: "Bad Kind", NegotiationID: nid(1)},
	); err == nil {
		t.Fatal("a bad batch was accepted")
	}
	checkStoredBackLinks(t, l)
	// After a reopen (an empty cache) the index gives the last seq.
	cfg := l.cfg
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = open(t, cfg)
	e := mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(2), Body: []byte(`{"i":9}`)})
	if e.NegotiationPrev == 0 {
		t.Fatal("no back-link after a reopen")
	}
	checkStoredBackLinks(t, l)
	if _, err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	if rep, err := l.Scan(ctx, ScanConfig{Duty: 1}); err != nil || rep.Count != 0 {
		t.Fatalf("scan: %+v %v", rep, err)
	}
}

// TestBackLinkCacheOverflow writes more negotiations than the cache
// holds: a miss reads the index.
func TestBackLinkCacheOverflow(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	var rs []Record
	for i := range negCacheSize + 100 {
		rs = append(rs, Record{Kind: KindChainEvent, NegotiationID: nid(i), Body: []byte(`{}`)})
		if len(rs) == 500 {
			if _, err := l.AppendAll(t.Context(), rs...); err != nil {
				t.Fatal(err)
			}
			rs = rs[:0]
		}
	}
	if _, err := l.AppendAll(t.Context(), rs...); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 2000, negCacheSize + 99} {
		mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(i), Body: []byte(`{}`)})
	}
	checkStoredBackLinks(t, l)
}

var negPrevRE = regexp.MustCompile(`,"negotiationPrev":[0-9]+`)

// legacyLedger rewrites every entry of the closed ledger at cfg in the
// form stored before the back-link (no negotiationPrev), rechains them,
// drops the tree (a read-write open rebuilds it) and the checkpoint (so
// the open verifies every entry).
func legacyLedger(t *testing.T, cfg Config) {
	t.Helper()
	db := rawDB(t, cfg)
	defer db.Close()
	var prev negotiation.Hash
	var head Head
	err := db.Update(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, Prefix: []byte{pEntry}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			raw := negPrevRE.ReplaceAll(v[64:], nil)
			h := chainHash(prev, raw)
			if err := txn.Set(it.Item().KeyCopy(nil), storedValue(prev, h, raw)); err != nil {
				return err
			}
			prev = h
			head = Head{Seq: seqFromBytes(it.Item().Key()[1:]), Hash: h}
		}
		if err := txn.Set(keyHead, headValue(head)); err != nil {
			return err
		}
		return txn.Set(keyCheckpoint, headValue(Head{}))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DropPrefix([]byte{pNode}, keyTree); err != nil {
		t.Fatal(err)
	}
}

// TestBackLinkLegacyEntries: entries stored before the back-link stay
// valid, and the first new entry of their negotiation links to the last
// of them.
func TestBackLinkLegacyEntries(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(1 + i%2), Body: []byte(`{}`)})
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	legacyLedger(t, cfg)
	l = open(t, cfg)
	for e, err := range l.Entries(t.Context(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Linked || bytes.Contains(e.Raw, []byte("negotiationPrev")) {
			t.Fatalf("entry %d is not in the old form: %s", e.Seq, e.Raw)
		}
	}
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
	e := mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{}`)})
	if !e.Linked || e.NegotiationPrev != 5 {
		t.Fatalf("first new entry: negotiationPrev %d (linked %v), want 5", e.NegotiationPrev, e.Linked)
	}
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rep, err := l.Scan(t.Context(), ScanConfig{Duty: 1}); err != nil || rep.Count != 0 {
		t.Fatalf("scan: %+v %v", rep, err)
	}
	var buf bytes.Buffer
	if _, err := l.Export(t.Context(), nid(1), &buf); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyBundle(&buf, BundleOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestBackLinkParse: a back-link is read only in its place, as a plain
// integer below the entry's seq, and only with a negotiationId.
func TestBackLinkParse(t *testing.T) {
	n := nid(1)
	ok := `{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationId":"` + n + `","negotiationPrev":3,"seq":7}`
	if p, err := parseEntry([]byte(ok)); err != nil || p.negPrev != 3 || !p.linked {
		t.Fatalf("parse: %+v %v", p, err)
	}
	for _, s := range []string{
		`{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationPrev":3,"seq":7}`,
		`{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationId":"` + n + `","negotiationPrev":7,"seq":7}`,
		`{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationId":"` + n + `","negotiationPrev":9,"seq":7}`,
		`{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationId":"` + n + `","negotiationPrev":03,"seq":7}`,
		`{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationId":"` + n + `","negotiationPrev":-1,"seq":7}`,
		`{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationId":"` + n + `","negotiationPrev":"3","seq":7}`,
		`{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationId":"` + n + `","negotiationPrev":18446744073709551616,"seq":7}`,
		`{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationPrev":3,"negotiationId":"` + n + `","seq":7}`,
	} {
		if _, err := parseEntry([]byte(s)); err == nil {
			t.Errorf("parsed %s", s)
		}
	}
}
