package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/parleynet/parley/negotiation"
)

// benchConfig is DefaultConfig in dir (the node's defaults).
func benchConfig(dir string) Config {
	cfg := DefaultConfig()
	cfg.Dir = filepath.Join(dir, "ledger")
	cfg.RecordFile = filepath.Join(dir, "ledger.record") // as the node keeps it
	cfg.Owner = "12D3KooWbench"
	cfg.Logger = slog.New(slog.DiscardHandler)
	return cfg
}

// body2KB is a JSON object of about 2 KB, the size the figures use.
func body2KB(i int) []byte {
	m := map[string]any{"event": "TaskFunded", "i": i}
	for k := range 24 {
		m[fmt.Sprintf("field%02d", k)] = strings.Repeat(string(rune('a'+k%26)), 70)
	}
	b, _ := json.Marshal(m)
	return b
}

// BenchmarkAppend measures durable appends/s of 2 KB entries with 1, 8 and
// 64 concurrent writers. In the same run it measures the baseline: raw
// Badger writing the same keys per entry (entry, kind and negotiation
// indexes, and the head once per batch) in synced WriteBatches of the mean
// batch size the group commit reached. The two alternate in ten slices, so
// that the disk's changing latency (the machine is shared) weighs on both
// alike.
func BenchmarkAppend(b *testing.B) {
	for _, writers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) { benchAppend(b, writers) })
	}
}

func benchAppend(b *testing.B, writers int) {
	l, err := New(benchConfig(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	base, err := badger.Open((&Ledger{cfg: benchConfig(b.TempDir())}).badgerOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer base.Close()
	bodies := make([][]byte, 64)
	for i := range bodies {
		bodies[i] = body2KB(i)
	}
	n := nid(1)
	var ledgerTime, baseTime time.Duration
	baseEntries, baseSeq := 0, uint64(0)
	b.ResetTimer()
	for slice := range 10 {
		count := b.N/10 + boolInt(slice < b.N%10)
		if count == 0 {
			continue
		}
		b.StartTimer()
		start := time.Now()
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(writers, count) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1)
					if i > int64(count) {
						return
					}
					if _, _, err := l.Append(b.Context(), Record{Kind: KindChainEvent, NegotiationID: n, Body: bodies[i%64]}); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		ledgerTime += time.Since(start)
		b.StopTimer()
		batches, entries := l.Stats()
		batch := max(1, int(float64(entries)/float64(batches)+0.5))
		baseCount := max(count, 4*batch)
		baseTime += rawBaseline(b, base, &baseSeq, baseCount, batch, len(bodies[0]))
		baseEntries += baseCount
	}
	batches, entries := l.Stats()
	rate := float64(b.N) / ledgerTime.Seconds()
	baseRate := float64(baseEntries) / baseTime.Seconds()
	b.ReportMetric(rate, "entries/s")
	b.ReportMetric(baseRate, "baseline-entries/s")
	b.ReportMetric(rate/baseRate, "ratio")
	b.ReportMetric(float64(entries)/float64(batches), "entries/commit")
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// rawBaseline writes n entries in synced WriteBatches of batch entries
// with plain Badger and returns the time it took.
func rawBaseline(b *testing.B, db *badger.DB, seq *uint64, n, batch, bodyLen int) time.Duration {
	n0 := nid(1)
	value := make([]byte, 64+bodyLen+120)
	start := time.Now()
	for written := 0; written < n; {
		wb := db.NewWriteBatch()
		for i := 0; i < batch && written < n; i++ {
			*seq++
			written++
			value[70] = byte(*seq)
			if err := wb.Set(entryKey(*seq), value); err != nil {
				b.Fatal(err)
			}
			if err := wb.Set(indexKey(pKind, KindChainEvent, *seq), nil); err != nil {
				b.Fatal(err)
			}
			if err := wb.Set(indexKey(pNeg, n0, *seq), nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := wb.Set(keyHead, value[:40]); err != nil {
			b.Fatal(err)
		}
		if err := wb.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// BenchmarkAppendEnvelope measures durable appends/s of 2 KB envelopes
// (stored by CID with their entry) with 8 writers.
func BenchmarkAppendEnvelope(b *testing.B) {
	l, err := New(benchConfig(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	poster, worker := newParty(b, "poster"), newParty(b, "worker")
	envs := make([]*negotiation.Envelope, b.N)
	for i := range envs {
		envs[i] = poster.counter(b, nid(1), worker, fmt.Sprint(i), 2048)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				if _, _, err := l.AppendEnvelope(b.Context(), KindEnvelopeReceived, envs[i], "", t0); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "envelopes/s")
}

// BenchmarkVerify measures full verification of 20,000 entries of 2 KB.
func BenchmarkVerify(b *testing.B) {
	const n = 20000
	l, err := New(benchConfig(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	fill(b, l, n, 64)
	b.ResetTimer()
	start, cpu := time.Now(), processCPU()
	for range b.N {
		if _, err := l.Verify(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer() // closing the store is not part of the figure
	b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "entries/s")
	b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/1e3/float64(n*b.N), "cpu-µs/entry")
}

// fill appends n 2 KB entries from writers goroutines.
func fill(b *testing.B, l *Ledger, n, writers int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	body := body2KB(0)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if _, _, err := l.Append(b.Context(), Record{Kind: KindChainEvent, NegotiationID: nid(2), Body: body}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkExportVerifyBundle exports a negotiation of 1,000 envelopes of
// about 2 KB and verifies the bundle offline (decode and signature of every
// envelope included).
func BenchmarkExportVerifyBundle(b *testing.B) {
	l, err := New(benchConfig(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	poster, worker := newParty(b, "poster"), newParty(b, "worker")
	n := nid(1)
	var wg sync.WaitGroup
	envs := make(chan *negotiation.Envelope, 64)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for env := range envs {
				if _, _, err := l.AppendEnvelope(b.Context(), KindEnvelopeReceived, env, "", t0); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for i := range 1000 {
		from, to := poster, worker
		if i%2 == 1 {
			from, to = worker, poster
		}
		envs <- from.counter(b, n, to, fmt.Sprint(i), 2048)
	}
	close(envs)
	wg.Wait()
	var size int
	b.ResetTimer()
	cpu := processCPU()
	for range b.N {
		var buf bytes.Buffer
		if _, err := l.Export(b.Context(), n, &buf); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
		rep, err := VerifyBundle(&buf, BundleOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Envelopes) != 1000 {
			b.Fatalf("%d envelopes", len(rep.Envelopes))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(size), "bundle-bytes")
	b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
}

// BenchmarkAppendStep measures the records of one node step (thread
// opened, identity link, a 2 KB envelope stored by CID, thread state, card
// sealed) written two ways in the same run: as one AppendAll batch, and as
// five concurrent Appends that meet in the group commit (what the node did
// before AppendAll). The two alternate in ten slices on two ledgers, so
// that the disk's changing latency weighs on both alike; steppers run
// steps concurrently (1: one negotiation at a time; 8: a busy node).
func BenchmarkAppendStep(b *testing.B) {
	for _, steppers := range []int{1, 8} {
		b.Run(fmt.Sprintf("steppers=%d", steppers), func(b *testing.B) { benchAppendStep(b, steppers) })
	}
}

func benchAppendStep(b *testing.B, steppers int) {
	start := func() *Ledger {
		l, err := New(benchConfig(b.TempDir()))
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Start(b.Context()); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = l.Close() })
		return l
	}
	batched, concurrent := start(), start()
	poster, worker := newParty(b, "poster"), newParty(b, "worker")
	steps := make([][]Record, 2*b.N)
	for i := range steps {
		n := nid(i)
		env := poster.counter(b, n, worker, fmt.Sprint(i), 2048)
		er, err := EnvelopeRecord(KindEnvelopeSent, env, "", t0)
		if err != nil {
			b.Fatal(err)
		}
		steps[i] = step(n, er, "proposed")
	}
	run := func(l *Ledger, recs [][]Record, write func(*Ledger, []Record) error) time.Duration {
		var next atomic.Int64
		var wg sync.WaitGroup
		t := time.Now()
		for range steppers {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(len(recs)) {
						return
					}
					if err := write(l, recs[i]); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		return time.Since(t)
	}
	all := func(l *Ledger, recs []Record) error {
		_, err := l.AppendAll(b.Context(), recs...)
		return err
	}
	together := func(l *Ledger, recs []Record) error {
		errs := make([]error, len(recs))
		var wg sync.WaitGroup
		for i, r := range recs {
			wg.Go(func() { _, _, errs[i] = l.Append(b.Context(), r) })
		}
		wg.Wait()
		return errors.Join(errs...)
	}
	var allTime, togetherTime time.Duration
	b.ResetTimer()
	done := 0
	for slice := range 10 {
		count := b.N/10 + boolInt(slice < b.N%10)
		if count == 0 {
			continue
		}
		allTime += run(batched, steps[2*done:2*done+count], all)
		togetherTime += run(concurrent, steps[2*done+count:2*done+2*count], together)
		done += count
	}
	b.StopTimer()
	ab, _ := batched.Stats()
	cb, _ := concurrent.Stats()
	b.ReportMetric(float64(b.N)/allTime.Seconds(), "appendall-steps/s")
	b.ReportMetric(float64(b.N)/togetherTime.Seconds(), "concurrent-steps/s")
	b.ReportMetric(togetherTime.Seconds()/allTime.Seconds(), "speedup")
	b.ReportMetric(float64(ab)/float64(b.N), "appendall-commits/step")
	b.ReportMetric(float64(cb)/float64(b.N), "concurrent-commits/step")
	b.ReportMetric(0, "ns/op")
}

// v2BenchLedger builds, once per benchmark, a ledger of 100,000 entries
// that holds a negotiation of 1,000 envelopes of about 2 KB among 99,000
// entries (about 300 bytes each) of 500 other negotiations, with a tree
// anchor at half its size, and returns it with a signed head of the whole
// tree.
func v2BenchLedger(b *testing.B) (*Ledger, string, TreeHead, testSigner) {
	b.Helper()
	l, err := New(benchConfig(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	poster, worker := newParty(b, "poster"), newParty(b, "worker")
	n := nid(1_000_000)
	body := []byte(`{"event":"TaskFunded","note":"` + strings.Repeat("x", 240) + `"}`)
	var batch []Record
	for i := range 99_000 {
		batch = append(batch, Record{Kind: KindChainEvent, NegotiationID: nid(i % 500), Body: body})
		if len(batch) < 99 {
			continue
		}
		from, to := poster, worker
		if i/99%2 == 1 {
			from, to = worker, poster
		}
		r, err := EnvelopeRecord(KindEnvelopeReceived, from.counter(b, n, to, fmt.Sprint(i), 2048), "", t0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.AppendAll(b.Context(), append(batch, r)...); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
		if l.Head().Seq == 50_000 {
			root, err := l.TreeHead(50_000)
			if err != nil {
				b.Fatal(err)
			}
			a := TreeAnchor{Size: 50_000, Root: root, ChainID: 31337, BlockNumber: 7, TxHash: negotiation.Hash{1}}
			a.Contract[19], a.Address[0] = 0x42, 0x99
			if _, err := l.RecordTreeAnchor(b.Context(), a); err != nil {
				b.Fatal(err)
			}
		}
	}
	if h := l.Head().Seq; h != 100_001 {
		b.Fatalf("%d entries", h)
	}
	s := newTestSigner("bench")
	return l, n, s.head(b, l, l.Head().Seq), s
}

// BenchmarkExportV2 measures ExportV2 of a 1,000-envelope negotiation in a
// 100,000-entry ledger (v2BenchLedger) and reports the bundle's size
// beside that of the version-1 bundle of the same negotiation.
func BenchmarkExportV2(b *testing.B) {
	l, n, head, s := v2BenchLedger(b)
	var v1 countingWriter
	if _, err := l.Export(b.Context(), n, &v1); err != nil {
		b.Fatal(err)
	}
	var size int
	cpu := processCPU()
	for b.Loop() {
		var buf bytes.Buffer
		if err := l.ExportV2(b.Context(), n, head, s.link, &buf); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(size), "bundle-bytes")
	b.ReportMetric(float64(v1), "v1-bundle-bytes")
}

// BenchmarkVerifyBundleV2 measures VerifyBundle of that bundle: every
// entry's inclusion proof, the back-links, every envelope decoded,
// schema-checked and its signature verified, the sender chains, the
// anchor's consistency proof.
func BenchmarkVerifyBundleV2(b *testing.B) {
	l, n, head, s := v2BenchLedger(b)
	var buf bytes.Buffer
	if err := l.ExportV2(b.Context(), n, head, s.link, &buf); err != nil {
		b.Fatal(err)
	}
	bundle := buf.Bytes()
	cpu := processCPU()
	for b.Loop() {
		rep, err := VerifyBundle(bytes.NewReader(bundle), BundleOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Envelopes) != 1000 || rep.Entries != 1000 || rep.Anchor == nil {
			b.Fatalf("%d envelopes, %d entries, anchor %v", len(rep.Envelopes), rep.Entries, rep.Anchor)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(len(bundle)), "bundle-bytes")
}

// countingWriter counts the bytes written to it.
type countingWriter int

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}
