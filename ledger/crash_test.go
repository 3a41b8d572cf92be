package ledger

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// crashRounds sets the rounds of TestCrash; PARLEY_LEDGER_CRASH_ROUNDS
// overrides the default of 200 as well.
var crashRounds = flag.Int("ledger.crash-rounds", 0, "rounds of the SIGKILL crash test (default 200, or $PARLEY_LEDGER_CRASH_ROUNDS)")

const crashChildEnv = "PARLEY_LEDGER_CRASH_CHILD"

func crashConfig(t testing.TB, dir string) Config {
	cfg := testConfig(t, dir)
	cfg.Clock = time.Now
	// Small buffers: every round opens the store twice.
	cfg.MemTableSize = 4 << 20
	cfg.MaxBatchBytes = 512 << 10
	cfg.MaxEntryBytes = 64 << 10
	cfg.MaxObjectBytes = 64 << 10
	cfg.ValueLogFileSize = 8 << 20
	return cfg
}

// TestCrashChild is the child side of TestCrash: it appends from four
// goroutines and writes batches from a fifth until it is killed, and
// reports every acknowledged entry as "seq hash" on file descriptor 3.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("run by TestCrash")
	}
	acks := bufio.NewWriter(os.NewFile(3, "acks"))
	var mu sync.Mutex
	cfg := crashConfig(t, dir)
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		fmt.Fprintln(os.Stderr, "child start:", err)
		os.Exit(3)
	}
	pid := os.Getpid()
	for w := range 4 {
		go func() {
			for i := 0; ; i++ {
				r := Record{Kind: KindChainEvent, NegotiationID: nid(w), Body: fmt.Appendf(nil, `{"i":%d,"pid":%d,"pad":"%s"}`, i, pid, strings.Repeat("p", 200*w))}
				if i%5 == 0 {
					r.Kind, r.Object, r.ObjectCodec = KindBlobStored, fmt.Appendf(nil, "blob %d %d %d", pid, w, i), CodecRaw
				}
				e, _, err := l.Append(t.Context(), r)
				if err != nil {
					fmt.Fprintln(os.Stderr, "child append:", err)
					os.Exit(4)
				}
				mu.Lock()
				fmt.Fprintf(acks, "%d %s\n", e.Seq, e.Hash)
				err = acks.Flush()
				mu.Unlock()
				if err != nil {
					os.Exit(5)
				}
			}
		}()
	}
	// A fifth writes batches of three records (AppendAll), which must be
	// found whole or not at all.
	go func() {
		for i := 0; ; i++ {
			var recs []Record
			for k := range crashBatch {
				recs = append(recs, Record{Kind: KindChainEvent, NegotiationID: nid(9), Body: fmt.Appendf(nil, `{"batch":"%d-%d","k":%d}`, pid, i, k)})
			}
			if i%3 == 0 {
				recs[1].Kind, recs[1].Object, recs[1].ObjectCodec = KindBlobStored, fmt.Appendf(nil, "batch blob %d %d", pid, i), CodecRaw
			}
			es, err := l.AppendAll(t.Context(), recs...)
			if err != nil {
				fmt.Fprintln(os.Stderr, "child append all:", err)
				os.Exit(4)
			}
			mu.Lock()
			for _, e := range es {
				fmt.Fprintf(acks, "%d %s\n", e.Seq, e.Hash)
			}
			err = acks.Flush()
			mu.Unlock()
			if err != nil {
				os.Exit(5)
			}
		}
	}()
	select {}
}

// crashBatch is the number of records in each AppendAll of the crash
// child.
const crashBatch = 3

// checkBatchesWhole fails unless every batch record of TestCrashChild
// after seq from is in the ledger with the rest of its batch, at
// consecutive seqs in batch order. from must be a head the ledger had
// after a reopen: a group commit never straddles it.
func checkBatchesWhole(t *testing.T, l *Ledger, from uint64) (batches int) {
	t.Helper()
	var open string
	next := 0
	for e, err := range l.Entries(t.Context(), from+1) {
		if err != nil {
			t.Fatal(err)
		}
		var b struct {
			Batch string `json:"batch"`
			K     int    `json:"k"`
		}
		if err := json.Unmarshal(e.Body, &b); err != nil {
			t.Fatal(err)
		}
		if b.Batch == "" {
			if next != 0 {
				t.Fatalf("entry %d comes inside batch %s (record %d of %d missing)", e.Seq, open, next, crashBatch)
			}
			continue
		}
		if b.K != next || (next > 0 && b.Batch != open) {
			t.Fatalf("entry %d is record %d of batch %s, want record %d of batch %q", e.Seq, b.K, b.Batch, next, open)
		}
		open, next = b.Batch, (next+1)%crashBatch
		if next == 0 {
			batches++
		}
	}
	if next != 0 {
		t.Fatalf("batch %s ends the ledger with %d of %d records", open, next, crashBatch)
	}
	return batches
}

// TestCrash kills a child that is appending with SIGKILL at random moments
// and checks after every round that the ledger reopens, verifies from its
// checkpoint, holds every entry the child saw acknowledged and every
// AppendAll batch whole or not at all; a full verification runs at the
// end.
func TestCrash(t *testing.T) {
	rounds := 200
	if v, err := strconv.Atoi(os.Getenv("PARLEY_LEDGER_CRASH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	if *crashRounds > 0 {
		rounds = *crashRounds
	}
	if testing.Short() {
		rounds = 20
	}
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("PARLEY_LEDGER_CRASH_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("kill schedule seed %d (PARLEY_LEDGER_CRASH_SEED)", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	acked := map[uint64]negotiation.Hash{}
	killedEarly, totalAcks, totalBatches, prevHead := 0, 0, 0, uint64(0)
	for round := range rounds {
		got, stderr := crashRound(t, dir, rng, 0)
		if len(got) == 0 {
			killedEarly++
		}
		totalAcks += len(got)
		for seq, h := range got {
			acked[seq] = h
		}
		l, err := New(crashConfig(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(t.Context()); err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v\nchild stderr:\n%s", round, err, stderr)
		}
		head := l.Head()
		totalBatches += checkBatchesWhole(t, l, prevHead)
		prevHead = head.Seq
		for seq, h := range got {
			if seq > head.Seq {
				t.Fatalf("round %d: acknowledged entry %d lost: head is %d", round, seq, head.Seq)
			}
			e, err := l.Get(t.Context(), seq)
			if err != nil || e.Hash != h {
				t.Fatalf("round %d: acknowledged entry %d: hash %s, want %s (%v)", round, seq, e.Hash, h, err)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	l := open(t, crashConfig(t, dir))
	head, err := l.Verify(t.Context())
	if err != nil {
		t.Fatalf("full verify: %v", err)
	}
	for seq, h := range acked {
		e, err := l.Get(t.Context(), seq)
		if err != nil || e.Hash != h {
			t.Fatalf("acknowledged entry %d lost by the end", seq)
		}
	}
	if n := checkBatchesWhole(t, l, 0); n != totalBatches {
		t.Fatalf("%d whole batches at the end, %d seen after the rounds", n, totalBatches)
	}
	t.Logf("%d rounds, %d acknowledged entries (all kept), %d kills before the first ack, %d entries in the ledger, %d batches (all whole)",
		rounds, totalAcks, killedEarly, head.Seq, totalBatches)
}

// crashRound runs one child, kills it after at least minAcks
// acknowledgements, and returns what it acknowledged.
func crashRound(t *testing.T, dir string, rng *rand.Rand, minAcks int) (map[uint64]negotiation.Hash, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.ExtraFiles = []*os.File{w}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	got := map[uint64]negotiation.Hash{}
	record := func(line string) {
		seqText, hashText, ok := strings.Cut(line, " ")
		seq, err := strconv.ParseUint(seqText, 10, 64)
		h, herr := negotiation.ParseHash(hashText)
		if !ok || err != nil || herr != nil {
			t.Fatalf("bad ack line %q", line)
		}
		got[seq] = h
	}
	// Kill after a random number of acknowledgements (0: at a random moment
	// of start-up), then a random sub-millisecond delay.
	wantAcks := max(minAcks, rng.IntN(40))
	deadline := time.After(time.Duration(rng.IntN(150)) * time.Millisecond)
	if wantAcks > 0 {
		deadline = time.After(10 * time.Second)
	}
wait:
	for len(got) < wantAcks || wantAcks == 0 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("child exited: %v\n%s", cmd.Wait(), stderr.String())
			}
			record(line)
		case <-deadline:
			break wait
		}
	}
	time.Sleep(time.Duration(rng.IntN(1000)) * time.Microsecond)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for line := range lines {
		record(line)
	}
	r.Close()
	_ = cmd.Wait()
	return got, stderr.String()
}

// TestReadOnlyAfterCrash checks that a read-only open of a ledger killed
// mid-write asks for recovery, and that one read-write open recovers it
// with every acknowledged entry.
func TestReadOnlyAfterCrash(t *testing.T) {
	dir := t.TempDir()
	got, _ := crashRound(t, dir, rand.New(rand.NewPCG(3, 4)), 5)
	cfg := crashConfig(t, dir)
	cfg.ReadOnly = true
	ro, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ro.Start(t.Context()); !errors.Is(err, ErrNeedsRecovery) {
		t.Fatalf("read-only open after a crash: %v", err)
	}
	l := open(t, crashConfig(t, dir))
	for seq, h := range got {
		if e, err := l.Get(t.Context(), seq); err != nil || e.Hash != h {
			t.Fatalf("acknowledged entry %d lost", seq)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ro = open(t, cfg)
	if _, err := ro.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestEmptyMemtableAfterCrash: a kill between Badger's creating a new
// memtable file and sizing it leaves an empty .mem file, on which
// badger.Open fails once with z.NewFile (sizing the file as it fails;
// dgraph-io/badger#2207). Start opens such a store, with every entry.
func TestEmptyMemtableAfterCrash(t *testing.T) {
	cfg := crashConfig(t, t.TempDir())
	l := open(t, cfg)
	for i := range 10 {
		mustAppend(t, l, Record{Kind: KindChainEvent, Body: fmt.Appendf(nil, `{"i":%d}`, i)})
	}
	head := l.Head()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mems, err := filepath.Glob(filepath.Join(cfg.Dir, "*.mem"))
	if err != nil {
		t.Fatal(err)
	}
	next := 1
	for _, m := range mems {
		if fid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(m), ".mem")); err == nil && fid >= next {
			next = fid + 1
		}
	}
	if err := os.WriteFile(filepath.Join(cfg.Dir, fmt.Sprintf("%05d.mem", next)), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l = open(t, cfg)
	if l.Head() != head {
		t.Fatalf("head %+v after the reopen, want %+v", l.Head(), head)
	}
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, Record{Kind: KindChainEvent, Body: []byte(`{"after":true}`)})
}
