package ledger

import (
	"bytes"
	"errors"
	"testing"

	"github.com/parleynet/parley/negotiation"
)

func TestRetention(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	cfg.MaxEntryBytes = 1024 // at most 9 objects per Prune
	l := open(t, cfg)
	ctx := t.Context()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	closed, open := nid(1), nid(2)
	var cids []Entry
	var envs []*negotiation.Envelope
	for range 25 {
		env := poster.counter(t, closed, worker, "c", 0)
		e, _, err := l.AppendEnvelope(ctx, KindEnvelopeSent, env, "", t0)
		if err != nil {
			t.Fatal(err)
		}
		cids, envs = append(cids, e), append(envs, env)
		if _, _, err := l.AppendEnvelope(ctx, KindEnvelopeSent, poster.counter(t, open, worker, "o", 0), "", t0); err != nil {
			t.Fatal(err)
		}
	}
	state := func(n, s string) {
		mustAppend(t, l, Record{Kind: KindThreadState, NegotiationID: n, Body: []byte(`{"state":"` + s + `"}`)})
	}
	refused := func(n string) {
		t.Helper()
		before := snapshot(t, l)
		if _, err := l.Prune(ctx, n); !errors.Is(err, ErrRetained) {
			t.Fatalf("prune of %s: %v, want retained", n, err)
		}
		if !equalMaps(before, snapshot(t, l)) {
			t.Fatal("a refused prune changed the store")
		}
	}
	refused(closed) // no state yet
	for _, s := range []string{"agreed", "funded", "delivered", "disputed", "arbitrated", "expired"} {
		state(closed, s)
		refused(closed)
	}
	state(closed, "completed")
	state(open, "disputed")
	refused(open)
	total, calls := 0, 0
	for {
		n, err := l.Prune(ctx, closed)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		total += n
		calls++
	}
	if total != 25 || calls != 3 {
		t.Fatalf("pruned %d objects in %d calls, want 25 in 3", total, calls)
	}
	for _, e := range cids {
		if _, err := l.Object(ctx, e.CID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("object %s still stored: %v", e.CID, err)
		}
		got, err := l.Get(ctx, e.Seq)
		if err != nil || got.Hash != e.Hash {
			t.Fatalf("entry %d changed by pruning", e.Seq)
		}
	}
	kept, err := Collect(l.ByNegotiation(ctx, open))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range kept {
		if e.CID.Defined() {
			if _, err := l.Object(ctx, e.CID); err != nil {
				t.Fatalf("object of the disputed negotiation deleted: %v", err)
			}
		}
	}
	if _, err := l.Verify(ctx); err != nil {
		t.Fatalf("verify after pruning: %v", err)
	}
	var buf bytes.Buffer
	if _, err := l.Export(ctx, closed, &buf); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyBundle(&buf, BundleOptions{})
	if err != nil || rep.Pruned != 25 || len(rep.Envelopes) != 0 {
		t.Fatalf("bundle of a pruned negotiation: %+v %v", rep, err)
	}
	// A pruned envelope that arrives again is still a duplicate: its entry
	// remains, and nothing is stored again.
	before := snapshot(t, l)
	again, existed, err := l.AppendEnvelope(ctx, KindEnvelopeReceived, envs[3], "", t0)
	if err != nil || !existed || again.Seq != cids[3].Seq {
		t.Fatalf("pruned envelope again: seq %d existed=%v %v", again.Seq, existed, err)
	}
	if !equalMaps(before, snapshot(t, l)) {
		t.Fatal("a pruned envelope was stored again")
	}
}
