package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestConcurrentWriters(t *testing.T) {
	const writers, each = 8, 250
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	type acked struct {
		seq  uint64
		w, i int
	}
	out := make(chan acked, writers*each)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r := Record{Kind: KindChainEvent, NegotiationID: nid(w), Body: fmt.Appendf(nil, `{"i":%d,"w":%d}`, i, w)}
				if i%10 == 0 {
					r.Kind, r.Object, r.ObjectCodec = KindBlobStored, fmt.Appendf(nil, "blob %d/%d", w, i), CodecRaw
				}
				e, existed, err := l.Append(ctx, r)
				if err != nil || existed {
					t.Errorf("writer %d append %d: %v existed=%v", w, i, err, existed)
					return
				}
				out <- acked{e.Seq, w, i}
			}
		}()
	}
	// Readers run alongside the writers.
	stop := make(chan struct{})
	var rg sync.WaitGroup
	for r := range 2 {
		rg.Add(1)
		go func() {
			defer rg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := Collect(l.ByNegotiation(ctx, nid(r))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	close(out)
	seen := map[uint64]acked{}
	for a := range out {
		if prev, dup := seen[a.seq]; dup {
			t.Fatalf("seq %d acknowledged twice: %+v and %+v", a.seq, prev, a)
		}
		seen[a.seq] = a
	}
	if len(seen) != writers*each || l.Head().Seq != writers*each {
		t.Fatalf("%d acknowledged, head %d, want %d", len(seen), l.Head().Seq, writers*each)
	}
	// Every acknowledged seq holds what its writer appended, and each
	// writer's appends are in its own order.
	last := make([]uint64, writers)
	for seq := uint64(1); seq <= writers*each; seq++ {
		a, ok := seen[seq]
		if !ok {
			t.Fatalf("seq %d lost", seq)
		}
		e, err := l.Get(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		if e.NegotiationID != nid(a.w) {
			t.Fatalf("seq %d holds negotiation %s, writer %d wrote it", seq, e.NegotiationID, a.w)
		}
		if a.i%10 != 0 {
			var body struct{ I, W int }
			if err := json.Unmarshal(e.Body, &body); err != nil || body.I != a.i || body.W != a.w {
				t.Fatalf("seq %d body %s, want writer %d append %d", seq, e.Body, a.w, a.i)
			}
		}
		if seq < last[a.w] {
			t.Fatalf("writer %d's appends out of order", a.w)
		}
		last[a.w] = seq
	}
	batches, entries := l.Stats()
	t.Logf("%d entries in %d group commits (%.1f per commit)", entries, batches, float64(entries)/float64(batches))
	if batches >= entries {
		t.Errorf("no group commit: %d commits for %d entries", batches, entries)
	}
	if _, err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestBatchAtTransactionLimit fills group commits up to Badger's
// transaction limit with the largest entries and objects the config allows.
func TestBatchAtTransactionLimit(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	cfg.MemTableSize = 4 << 20 // a transaction limit of 629,145 bytes
	cfg.MaxBatchBytes = int(cfg.txnLimit())
	cfg.MaxEntryBytes = 64 << 10
	cfg.MaxObjectBytes = int(cfg.txnLimit()) - cfg.MaxEntryBytes - entryOverhead
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	l := open(t, cfg)
	bigBody := fmt.Appendf(nil, `{"pad":"%s"}`, strings.Repeat("b", cfg.MaxEntryBytes-400))
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				r := Record{Kind: KindBlobStored, NegotiationID: nid(w), Body: bigBody, ObjectCodec: CodecRaw,
					Object: append(fmt.Appendf(nil, "%04d%04d", w, i), bytes.Repeat([]byte{byte(w)}, cfg.MaxObjectBytes-8)...)}
				if i%2 == 1 {
					r.Object = r.Object[:1000]
				}
				if _, _, err := l.Append(t.Context(), r); err != nil {
					t.Errorf("writer %d append %d: %v", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if l.Head().Seq != 32 {
		t.Fatalf("head %d, want 32", l.Head().Seq)
	}
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
}
