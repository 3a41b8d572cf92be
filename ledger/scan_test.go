package ledger

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// damageLedger is a closed ledger whose checkpoint is at its head (it was
// opened twice), so damage to it is behind the checkpoint: a marked entry
// of negotiation 1, a file of 8 KB of negotiation 2 (in a table), a file of
// 1.5 MiB of negotiation 3 (in the value log), then negotiation 4.
type damageLedger struct {
	cfg      Config
	marker   []byte // in the marked entry
	marked   Entry
	small    Entry // the 8 KB file's entry
	smallRaw []byte
	large    Entry
}

func newDamageLedger(t *testing.T) *damageLedger {
	t.Helper()
	d := &damageLedger{cfg: recordConfig(t, t.TempDir(), "12D3KooWthisnode")}
	d.cfg.MaxObjectBytes = 2 << 20
	l, err := New(d.cfg)
	if err != nil {
		t.Fatal(err)
	}
	must(t, l.Start(t.Context()))
	filler := func(neg string, n int) {
		for range n {
			mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: neg, Body: []byte(`{"i":1}`)})
		}
	}
	d.marker = letters(random(t, 32)) // a flipped case keeps the entry JSON: its hash changes
	filler(nid(1), 5)
	d.marked = mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"marker":"` + string(d.marker) + `"}`)})
	filler(nid(1), 5)
	d.smallRaw = random(t, 8<<10)
	d.small = mustAppend(t, l, Record{Kind: "blob.stored", NegotiationID: nid(2), Body: []byte(`{"name":"small"}`), Object: d.smallRaw, ObjectCodec: CodecRaw})
	filler(nid(2), 5)
	d.large = mustAppend(t, l, Record{Kind: "blob.stored", NegotiationID: nid(3), Body: []byte(`{"name":"large"}`), Object: random(t, 1536<<10), ObjectCodec: CodecRaw})
	filler(nid(3), 5)
	filler(nid(4), 10)
	must(t, l.Close())
	l, err = New(d.cfg)
	if err != nil {
		t.Fatal(err)
	}
	must(t, l.Start(t.Context())) // verifies everything: the checkpoint is now the head
	must(t, l.Close())
	return d
}

// letters maps b to upper-case letters from J to Z (none of the hex
// digits nor the I of negotiationId), drawing again until no run of four
// occurs twice: Badger's tables are Snappy-compressed, and a run of four
// bytes seen before in the block would be stored as a back-reference
// instead of the marker's bytes.
func letters(b []byte) []byte {
	out := make([]byte, len(b))
	for {
		for i, c := range b {
			out[i] = 'J' + c%17
		}
		seen := map[string]bool{}
		unique := true
		for i := 0; i+4 <= len(out) && unique; i++ {
			unique = !seen[string(out[i:i+4])]
			seen[string(out[i:i+4])] = true
		}
		if unique {
			return out
		}
		_, _ = rand.Read(b)
	}
}

func random(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// flipIn flips one byte of the first occurrence of needle in the files of
// dir matching pattern.
func flipIn(t *testing.T, dir, pattern string, needle []byte, at int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	must(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		must(t, err)
		if i := bytes.Index(b, needle); i >= 0 {
			b[i+at] ^= 0x20
			must(t, os.WriteFile(f, b, 0o600))
			return
		}
	}
	t.Fatalf("%x is in no %s file", needle[:8], pattern)
}

// TestScanReportsDamageBehindTheCheckpoint: a flipped byte in an entry in
// an old table, a flipped byte in a stored file, and a value log cut in
// half are behind the checkpoint, so the ledger starts; the scan reports
// each with its seq, code and negotiation, and goes on; reading the file
// returns a typed error and never the bytes; exporting the damaged
// negotiation fails, exporting a later one does not.
func TestScanReportsDamageBehindTheCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, d *damageLedger)
		want   func(d *damageLedger) Damage
	}{
		{"entry in a table", func(t *testing.T, d *damageLedger) { flipIn(t, d.cfg.Dir, "*.sst", d.marker, 3) },
			func(d *damageLedger) Damage {
				return Damage{Seq: d.marked.Seq, Code: CodeHashMismatch, NegotiationID: nid(1)}
			}},
		{"stored file", func(t *testing.T, d *damageLedger) { flipIn(t, d.cfg.Dir, "*.sst", d.smallRaw[4000:4032], 7) },
			func(d *damageLedger) Damage {
				return Damage{Seq: d.small.Seq, Code: CodeObjectMismatch, NegotiationID: nid(2), Object: true}
			}},
		{"value log cut in half", func(t *testing.T, d *damageLedger) {
			for _, f := range must1(filepath.Glob(filepath.Join(d.cfg.Dir, "*.vlog"))) {
				if fi := must1(os.Stat(f)); fi.Size() > 1<<20 {
					must(t, os.Truncate(f, fi.Size()/2))
					return
				}
			}
			t.Fatal("no value log holds the large file")
		}, func(d *damageLedger) Damage {
			return Damage{Seq: d.large.Seq, NegotiationID: nid(3), Object: true}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDamageLedger(t)
			tc.damage(t, d)
			want := tc.want(d)
			var mu sync.Mutex
			var reported []Damage
			d.cfg.OnDamage = func(x Damage) {
				mu.Lock()
				defer mu.Unlock()
				reported = append(reported, x)
			}
			l := open(t, d.cfg) // the damage is behind the checkpoint
			var progress []uint64
			rep, err := l.Scan(t.Context(), ScanConfig{Chunk: 8, Duty: 1, Progress: func(s uint64) { progress = append(progress, s) }})
			must(t, err)
			if rep.Count != 1 || len(rep.Damage) != 1 {
				t.Fatalf("scan found %d: %+v", rep.Count, rep.Damage)
			}
			got := rep.Damage[0]
			if got.Seq != want.Seq || got.NegotiationID != want.NegotiationID || got.Object != want.Object || (want.Code != "" && got.Code != want.Code) ||
				(want.Code == "" && got.Code != CodeObjectMismatch && got.Code != CodeUnreadable) {
				t.Fatalf("damage %+v, want %+v", got, want)
			}
			if len(progress) < 4 || progress[len(progress)-1] != rep.Head.Seq {
				t.Fatalf("progress %v, head %d", progress, rep.Head.Seq)
			}
			if len(reported) != 1 || reported[0] != got {
				t.Fatalf("OnDamage got %+v", reported)
			}
			// Reading the damaged file is a typed error, never the bytes.
			if want.Object {
				e, err := l.Get(t.Context(), want.Seq)
				must(t, err)
				b, err := l.Object(t.Context(), e.CID)
				var ve *VerifyError
				if b != nil || !errors.As(err, &ve) || ve.Seq != want.Seq || (ve.Code != CodeObjectMismatch && ve.Code != CodeUnreadable) {
					t.Fatalf("Object of a damaged file: %d bytes, %v", len(b), err)
				}
			}
			// The damaged negotiation is found by its own check and not
			// exported; a negotiation after the damage is.
			ds, err := l.VerifyNegotiation(t.Context(), want.NegotiationID)
			must(t, err)
			if len(ds) != 1 || ds[0].Seq != want.Seq {
				t.Fatalf("VerifyNegotiation: %+v", ds)
			}
			if ds, err := l.VerifyNegotiation(t.Context(), nid(4)); err != nil || len(ds) != 0 {
				t.Fatalf("VerifyNegotiation of an intact negotiation: %+v %v", ds, err)
			}
			var ve *VerifyError
			if _, err := l.Export(t.Context(), want.NegotiationID, io.Discard); !errors.As(err, &ve) || ve.Seq != want.Seq {
				t.Fatalf("export of the damaged negotiation: %v", err)
			}
			var buf bytes.Buffer
			if _, err := l.Export(t.Context(), nid(4), &buf); err != nil {
				t.Fatalf("export of an intact negotiation: %v", err)
			}
			if _, err := VerifyBundle(&buf, BundleOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestScanThrottles: with a duty of a quarter the scan pauses between its
// chunks about three times as long as it works.
func TestScanThrottles(t *testing.T) {
	cfg := recordConfig(t, t.TempDir(), "")
	fillLedger(t, cfg, 400)
	l := open(t, cfg)
	var work, all time.Duration
	for i, duty := range []float64{1, 1, 1, 0.25} {
		start := time.Now()
		rep, err := l.Scan(t.Context(), ScanConfig{Chunk: 20, Duty: duty})
		must(t, err)
		if rep.Count != 0 {
			t.Fatalf("damage in an intact ledger: %+v", rep.Damage)
		}
		switch took := time.Since(start); {
		case duty < 1:
			all = took
		case i == 0 || took < work:
			work = took // the fastest full-speed scan: the machine is shared
		}
	}
	if all < 2*work {
		t.Fatalf("a duty of 0.25 took %v, a full-speed scan %v", all, work)
	}
}

func must1[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
