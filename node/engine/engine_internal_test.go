package engine

import (
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

func testThread(t *testing.T, b byte) *Thread {
	t.Helper()
	th, err := NewThread(negotiation.Params{NegotiationID: negotiation.NewNegotiationID([16]byte{b, 1, 2, 3})}, negotiation.RoleWorker, false)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// TestWithHoldsTheThreadsLock: With runs its function with the thread's
// lock held, returns its error and releases the lock on every path; a
// negotiation the engine does not hold is Config.Unknown's error (or
// ErrUnknown) and the function does not run.
func TestWithHoldsTheThreadsLock(t *testing.T) {
	e := New(Config{})
	th := testThread(t, 1)
	e.Register(th)
	boom := errors.New("boom")
	err := e.With(th.ID, func(got *Thread) error {
		if got != th {
			t.Errorf("With gave %p, want %p", got, th)
		}
		if th.mu.TryLock() {
			t.Error("the thread's lock is free inside With")
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("With returned %v, want f's error", err)
	}
	if !th.mu.TryLock() {
		t.Fatal("With left the thread locked")
	}
	th.mu.Unlock()

	ran := false
	if err := e.With("nope", func(*Thread) error { ran = true; return nil }); !errors.Is(err, ErrUnknown) || ran {
		t.Fatalf("an unknown negotiation: %v (ran %v), want ErrUnknown without running", err, ran)
	}
	mine := errors.New("mine")
	e2 := New(Config{Unknown: func(string) error { return mine }})
	if err := e2.With("nope", func(*Thread) error { return nil }); !errors.Is(err, mine) {
		t.Fatalf("Config.Unknown: %v, want its error", err)
	}
}

// TestClaimRegisterDrop: a fresh thread is claimed locked; a second claim
// of its negotiation gets the first; a dropped one is dead and gone, and
// With looks the negotiation up again.
func TestClaimRegisterDrop(t *testing.T) {
	var counts []int
	e := New(Config{Count: func(n int) { counts = append(counts, n) }})
	a := testThread(t, 2)
	got, fresh := e.Claim(a)
	if got != a || !fresh || a.mu.TryLock() {
		t.Fatalf("Claim of a fresh thread: %p fresh %v, want it locked", got, fresh)
	}
	b := testThread(t, 2)
	if got, fresh := e.Claim(b); got != a || fresh {
		t.Fatalf("a second Claim: %p fresh %v, want the first, not fresh", got, fresh)
	}
	e.Drop(a)
	a.mu.Unlock()
	if !a.Dead || e.Lookup(a.ID) != nil || e.Len() != 0 {
		t.Fatalf("after Drop: dead %v, held %v", a.Dead, e.Lookup(a.ID) != nil)
	}
	e.Register(b)
	if err := e.With(b.ID, func(got *Thread) error {
		if got != b {
			t.Errorf("With after a drop gave %p, want the registered %p", got, b)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(counts, []int{1}) {
		t.Fatalf("Count saw %v, want [1]", counts)
	}
}

// TestEachInOrder: Each visits every live thread in negotiation-id order
// with its lock held.
func TestEachInOrder(t *testing.T) {
	e := New(Config{})
	for _, b := range []byte{9, 3, 6} {
		e.Register(testThread(t, b))
	}
	var ids []string
	e.Each(t.Context(), func(th *Thread) {
		if th.mu.TryLock() {
			t.Error("Each runs f without the thread's lock")
		}
		ids = append(ids, th.ID)
	})
	if len(ids) != 3 || !slices.IsSorted(ids) || !slices.Equal(ids, e.IDs()) {
		t.Fatalf("Each visited %v, want the sorted %v", ids, e.IDs())
	}
}

// TestWriteIsAllOrNone: a batch's records go into the ledger in one
// AppendAll, in the order they were put, and its effects run after, in
// the same order; a batch with a refused record, or one that failed to
// build, writes nothing and runs no effect; before Open nothing is
// written.
func TestWriteIsAllOrNone(t *testing.T) {
	cfg := ledger.DefaultConfig()
	cfg.Dir = filepath.Join(t.TempDir(), "ledger")
	cfg.MemTableSize = 8 << 20
	cfg.MaxBatchBytes = 1 << 20
	cfg.MaxObjectBytes = 256 << 10
	cfg.MaxEntryBytes = 64 << 10
	l, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	e := New(Config{})
	nid := negotiation.NewNegotiationID([16]byte{4})
	var ran []string
	put := func(b *Batch, kind, body string) {
		b.Put(ledger.Record{Kind: kind, NegotiationID: nid, Body: []byte(body)}, func() { ran = append(ran, kind) })
	}

	var b Batch
	put(&b, "a.one", `{}`)
	if err := e.Write(t.Context(), &b); !errors.Is(err, ErrNoLedger) || len(ran) != 0 {
		t.Fatalf("Write before Open: %v, ran %v", err, ran)
	}
	e.Open(l, negotiation.Address{})

	var bad Batch
	put(&bad, "a.one", `{}`)
	put(&bad, "a.two", `not json`)
	if err := e.Write(t.Context(), &bad); err == nil || len(ran) != 0 || l.Head().Seq != 0 {
		t.Fatalf("a refused record: %v, ran %v, head %d", err, ran, l.Head().Seq)
	}
	var failed Batch
	put(&failed, "a.one", `{}`)
	failed.Fail(errors.New("unbuildable"))
	if err := e.Write(t.Context(), &failed); err == nil || len(ran) != 0 || l.Head().Seq != 0 {
		t.Fatalf("a failed batch: %v, ran %v, head %d", err, ran, l.Head().Seq)
	}

	var good Batch
	put(&good, "a.one", `{}`)
	put(&good, "a.two", `{"x":1}`)
	put(&good, "a.three", `{}`)
	if err := e.Write(t.Context(), &good); err != nil {
		t.Fatal(err)
	}
	want := []string{"a.one", "a.two", "a.three"}
	if !slices.Equal(ran, want) {
		t.Fatalf("effects ran %v, want %v", ran, want)
	}
	var kinds []string
	for en, err := range l.ByNegotiation(t.Context(), nid) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, en.Kind)
	}
	if !slices.Equal(kinds, want) {
		t.Fatalf("the ledger holds %v, want %v", kinds, want)
	}
}

// TestFactBodies: every chain fact survives its chain.event body, and
// ReplayFact gives only those that took effect. Every fact negotiation
// names (its fact() methods in negotiation/facts.go) is in the table: a
// fact the engine cannot decode would stop a node's restart at the
// thread that holds it.
func TestFactBodies(t *testing.T) {
	id := negotiation.NewUint256(big.NewInt(77))
	by := negotiation.Address{1}
	facts := []negotiation.Fact{
		negotiation.TaskFunded{TaskID: id},
		negotiation.ProofSubmitted{Milestone: 1, ProofCID: "bafy"},
		negotiation.MilestoneReleased{Milestone: 2},
		negotiation.DisputeOpened{DisputeID: id, By: by},
		negotiation.ArbitratorAssigned{DisputeID: id, Arbitrator: by},
		negotiation.Ruled{DisputeID: id, Ruling: 5000},
		negotiation.TaskCancelled{},
		negotiation.WorkerReplaced{NewWorker: by},
		negotiation.MilestonesAmended{Milestones: []negotiation.Milestone{{Amount: id, Description: "m"}}, Deadline: 9},
		negotiation.PaidOut{To: by, Amount: id},
		negotiation.RevisionRequested{Milestone: 1},
		negotiation.PartReleased{Milestone: 1, Amount: negotiation.U64(10), Released: negotiation.U64(30)},
		negotiation.EscrowReclaimed{Amount: id},
		negotiation.DisputeTimedOut{DisputeID: id, WorkerBps: 2500},
	}
	src, err := os.ReadFile("../../negotiation/facts.go")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`\) fact\(\) string +\{ return "([a-z_]+)" \}`).FindAllSubmatch(src, -1)
	if len(named) < len(facts) {
		t.Fatalf("found %d fact names in negotiation/facts.go, want at least %d", len(named), len(facts))
	}
	for _, m := range named {
		if !slices.ContainsFunc(facts, func(f negotiation.Fact) bool { return negotiation.FactName(f) == string(m[1]) }) {
			t.Errorf("fact %s is not in the table", m[1])
		}
	}
	for _, f := range facts {
		b := EncodeFact(f)
		b.Code = "ok"
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReplayFact(ledger.Entry{Body: raw})
		if err != nil {
			t.Fatalf("%s: %v", negotiation.FactName(f), err)
		}
		gj, _ := json.Marshal(got)
		fj, _ := json.Marshal(f)
		if string(gj) != string(fj) {
			t.Fatalf("%s came back as %s, want %s", negotiation.FactName(f), gj, fj)
		}
		b.Code = string(negotiation.CodeStateForbidden)
		raw, _ = json.Marshal(b)
		if got, err := ReplayFact(ledger.Entry{Body: raw}); got != nil || err != nil {
			t.Fatalf("a refused %s replays as %v, %v; want nothing", negotiation.FactName(f), got, err)
		}
	}
}

func testLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	cfg := ledger.DefaultConfig()
	cfg.Dir = filepath.Join(t.TempDir(), "ledger")
	cfg.MemTableSize = 8 << 20
	cfg.MaxBatchBytes = 1 << 20
	cfg.MaxObjectBytes = 256 << 10
	cfg.MaxEntryBytes = 64 << 10
	l, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// TestApplyFactRecordsThenKeepsPending: a chain fact the thread refuses
// for its state is recorded once with the thread's code, kept pending and
// counted as seen (the same log again is a duplicate that writes
// nothing); OnFact is told; a fact whose record fails is neither applied,
// nor pending, nor seen, and wraps ErrNotRecorded.
func TestApplyFactRecordsThenKeepsPending(t *testing.T) {
	l := testLedger(t)
	var told []negotiation.Code
	e := New(Config{OnFact: func(_ *Thread, _ negotiation.Fact, _ LogRef, out negotiation.Outcome, _ time.Time) {
		told = append(told, out.Code)
	}})
	e.Open(l, negotiation.Address{1})
	th := testThread(t, 5)
	e.Register(th)
	at := LogRef{Tx: "0xaa", Index: 3, Block: 9}
	f := negotiation.TaskCancelled{}
	out, err := e.ApplyFact(t.Context(), th.ID, f, at)
	if err != nil || out.Code != negotiation.CodeStateForbidden {
		t.Fatalf("a fact before its state: %+v, %v", out, err)
	}
	if len(th.Pending) != 1 || !e.Seen(at.Key()) || !slices.Equal(told, []negotiation.Code{negotiation.CodeStateForbidden}) {
		t.Fatalf("pending %d, seen %v, told %v", len(th.Pending), e.Seen(at.Key()), told)
	}
	head := l.Head()
	if out, err := e.ApplyFact(t.Context(), th.ID, f, at); err != nil || out.Code != negotiation.CodeDuplicate || l.Head() != head {
		t.Fatalf("the same log again: %+v, %v; head %d, was %d", out, err, l.Head().Seq, head.Seq)
	}
	var codes []string
	for en, err := range l.ByNegotiation(t.Context(), th.ID) {
		if err != nil {
			t.Fatal(err)
		}
		if en.Kind != ledger.KindChainEvent {
			continue // the thread.state of a thread never recorded
		}
		var b FactBody
		if err := json.Unmarshal(en.Body, &b); err != nil {
			t.Fatal(err)
		}
		codes = append(codes, b.Code)
	}
	if !slices.Equal(codes, []string{string(negotiation.CodeStateForbidden)}) {
		t.Fatalf("the ledger holds %v", codes)
	}
	if out, err := e.ApplyFact(t.Context(), "nope", f, LogRef{Tx: "0xbb"}); err != nil || out.Code != "" {
		t.Fatalf("a negotiation not held: %+v, %v", out, err)
	}

	_ = l.Close()
	other := LogRef{Tx: "0xcc", Index: 1}
	state := th.Th.State()
	if _, err := e.ApplyFact(t.Context(), th.ID, f, other); !errors.Is(err, ErrNotRecorded) {
		t.Fatalf("a record that fails: %v, want ErrNotRecorded", err)
	}
	if len(th.Pending) != 1 || e.Seen(other.Key()) || th.Th.State() != state || len(told) != 1 {
		t.Fatalf("a failed record changed the thread: pending %d, seen %v, state %s, told %v", len(th.Pending), e.Seen(other.Key()), th.Th.State(), told)
	}
}
