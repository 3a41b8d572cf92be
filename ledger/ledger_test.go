package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/parleynet/parley/negotiation"
)

func TestEntryFormatAndChain(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	n := nid(1)
	records := []Record{
		{Kind: KindCardSealed, Body: []byte(`{"cardHash":"0x` + strings.Repeat("ab", 32) + `"}`)},
		{Kind: KindThreadState, NegotiationID: n, Body: []byte(` { "state" : "proposed", "z": [1, 2.50, "é\u0001"], "a": null } `)},
		{Kind: KindChainEvent, NegotiationID: n, Body: []byte(`{"event":"TaskFunded","block":12}`), At: t0.Add(90 * 1e9)},
		{Kind: KindEscalation, NegotiationID: n},
	}
	var prev negotiation.Hash
	for i, r := range records {
		e := mustAppend(t, l, r)
		if e.Seq != uint64(i+1) {
			t.Fatalf("seq %d, want %d", e.Seq, i+1)
		}
		// The stored bytes are the JCS form of the entry record.
		canon, err := negotiation.Canonicalize(e.Raw)
		if err != nil || !bytes.Equal(canon, e.Raw) {
			t.Fatalf("entry %d is not canonical: %s (%v)", e.Seq, e.Raw, err)
		}
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(e.Raw, &rec); err != nil {
			t.Fatal(err)
		}
		wantKeys := []string{"at", "body", "kind", "seq"}
		if r.NegotiationID != "" {
			wantKeys = []string{"at", "body", "kind", "negotiationId", "negotiationPrev", "seq"} // the back-link of issue 15
		}
		if len(rec) != len(wantKeys) {
			t.Fatalf("entry members %v, want %v", rec, wantKeys)
		}
		for _, k := range wantKeys {
			if _, ok := rec[k]; !ok {
				t.Fatalf("entry lacks %q: %s", k, e.Raw)
			}
		}
		// hash = SHA-256(prev || JCS(entry)), prev = previous hash (zeros first).
		if e.Prev != prev {
			t.Fatalf("prev %s, want %s", e.Prev, prev)
		}
		want := sha256.Sum256(append(append([]byte{}, prev[:]...), e.Raw...))
		if e.Hash != negotiation.Hash(want) {
			t.Fatalf("hash %s, want SHA-256(prev||entry) %x", e.Hash, want)
		}
		prev = e.Hash
		got, err := l.Get(ctx, e.Seq)
		if err != nil || !bytes.Equal(got.Raw, e.Raw) || got.Hash != e.Hash || got.Kind != r.Kind || got.NegotiationID != r.NegotiationID || !got.At.Equal(e.At) {
			t.Fatalf("get %d: %+v, %v; appended %+v", e.Seq, got, err, e)
		}
	}
	if h := l.Head(); h.Seq != 4 || h.Hash != prev {
		t.Fatalf("head %+v, want 4 %s", h, prev)
	}
	if e, _ := l.Get(ctx, 3); !e.At.Equal(t0.Add(90 * 1e9)) {
		t.Fatalf("explicit at not kept: %s", e.At)
	}
	if e, _ := l.Get(ctx, 2); string(e.Body) != `{"a":null,"state":"proposed","z":[1,2.5,"é\u0001"]}` {
		t.Fatalf("body not canonical: %s", e.Body)
	}
	if _, err := l.Get(ctx, 5); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get beyond head: %v", err)
	}
	if st, _ := l.NegotiationState(ctx, n); st != "proposed" {
		t.Fatalf("state %q", st)
	}
	if _, err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestIndexes(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	a, b := nid(1), nid(2)
	var wantA, wantB []uint64
	for i := range 6 {
		n, list := a, &wantA
		if i%2 == 1 {
			n, list = b, &wantB
		}
		env := poster.counter(t, n, worker, "i", 0)
		e, existed, err := l.AppendEnvelope(ctx, KindEnvelopeSent, env, "", t0)
		if err != nil || existed {
			t.Fatal(err, existed)
		}
		*list = append(*list, e.Seq)
		if e.CID != env.CID() {
			t.Fatalf("entry cid %s, envelope %s", e.CID, env.CID())
		}
		got, err := l.ByCID(ctx, env.CID())
		if err != nil || got.Seq != e.Seq {
			t.Fatalf("by cid: %v %v", got.Seq, err)
		}
		obj, err := l.Object(ctx, env.CID())
		if err != nil || !bytes.Equal(obj, env.Bytes()) {
			t.Fatalf("object: %v", err)
		}
		mustAppend(t, l, Record{Kind: KindChainEvent, Body: []byte(`{"i":1}`)})
	}
	for n, want := range map[string][]uint64{a: wantA, b: wantB} {
		es, err := Collect(l.ByNegotiation(ctx, n))
		if err != nil {
			t.Fatal(err)
		}
		var got []uint64
		for _, e := range es {
			got = append(got, e.Seq)
		}
		if !equalSeqs(got, want) {
			t.Fatalf("negotiation %s: %v, want %v", n, got, want)
		}
	}
	chain, err := Collect(l.ByKind(ctx, KindChainEvent))
	if err != nil || len(chain) != 6 || chain[0].Seq != 2 || chain[5].Seq != 12 {
		t.Fatalf("by kind: %d entries, %v", len(chain), err)
	}
	all, err := Collect(l.Entries(ctx, 5))
	if err != nil || len(all) != 8 || all[0].Seq != 5 {
		t.Fatalf("entries from 5: %d, %v", len(all), err)
	}
	if none, _ := Collect(l.ByNegotiation(ctx, nid(3))); len(none) != 0 {
		t.Fatalf("unknown negotiation yields %d", len(none))
	}
}

func equalSeqs(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEnvelopeIdempotent(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	env := poster.counter(t, nid(1), worker, "once", 0)
	first, existed, err := l.AppendEnvelope(ctx, KindEnvelopeReceived, env, negotiation.CodeTermsChanged, t0)
	if err != nil || existed {
		t.Fatal(err, existed)
	}
	var body map[string]any
	if err := json.Unmarshal(first.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["code"] != "terms_changed" || body["cid"] != env.CID().String() || body["type"] != "TaskProposal" || body["sequence"] != 1.0 || body["sender"] != poster.addr.String() {
		t.Fatalf("envelope body %s", first.Body)
	}
	before := snapshot(t, l)
	for _, kind := range []string{KindEnvelopeReceived, KindEnvelopeSent} {
		again, existed, err := l.AppendEnvelope(ctx, kind, env, "", t0)
		if err != nil || !existed || again.Seq != first.Seq || again.Hash != first.Hash {
			t.Fatalf("second append: %+v existed=%v err=%v", again, existed, err)
		}
	}
	// The same bytes through Append with an object are idempotent too.
	again, existed, err := l.Append(ctx, Record{Kind: KindBlobStored, Object: env.Bytes()})
	if err != nil || !existed || again.Seq != first.Seq {
		t.Fatalf("blob append of the same bytes: %v %v", existed, err)
	}
	if after := snapshot(t, l); !equalMaps(before, after) {
		t.Fatalf("a duplicate append wrote to the store")
	}
	// Concurrent duplicates in one batch store the object once.
	other := poster.counter(t, nid(1), worker, "twice", 0)
	results := make(chan Entry, 16)
	for range 16 {
		go func() {
			e, _, err := l.AppendEnvelope(ctx, KindEnvelopeReceived, other, "", t0)
			if err != nil {
				t.Error(err)
			}
			results <- e
		}()
	}
	seqs := map[uint64]bool{}
	for range 16 {
		seqs[(<-results).Seq] = true
	}
	if len(seqs) != 1 || l.Head().Seq != 2 {
		t.Fatalf("concurrent duplicates made entries %v, head %d", seqs, l.Head().Seq)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestRejectedInputKeepsOnlyHashAndCode(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	input := []byte(`{"secret":"do-not-store-this-body","type":"TaskProposal"}`)
	e, err := l.AppendRejected(ctx, input, negotiation.CodeBadSignature, nid(7), t0)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(input)
	want := `{"code":"bad_signature","hash":"` + negotiation.Hash(sum).String() + `","size":57}`
	if string(e.Body) != want || e.Kind != KindEnvelopeRejected || e.NegotiationID != nid(7) {
		t.Fatalf("rejected entry %s", e.Raw)
	}
	for k, v := range snapshot(t, l) {
		if strings.Contains(k+v, "do-not-store-this-body") {
			t.Fatalf("the rejected body is stored under %q", k)
		}
	}
	// A code that names authentic input must go through AppendEnvelope.
	for _, code := range []negotiation.Code{negotiation.CodeTermsChanged, "", negotiation.CodeDuplicate, "Not A Code"} {
		if _, err := l.AppendRejected(ctx, input, code, "", t0); CodeOf(err) != CodeBadCode {
			t.Fatalf("code %q: %v", code, err)
		}
	}
	// Reserved kinds cannot be written through Append.
	for _, k := range []string{KindEnvelopeRejected, KindEnvelopeReceived, KindEnvelopeSent, KindAnchor, KindRetentionPruned} {
		if _, _, err := l.Append(ctx, Record{Kind: k, Body: []byte(`{"hash":"x"}`)}); CodeOf(err) != CodeBadKind {
			t.Fatalf("append of reserved kind %s: %v", k, err)
		}
	}
}

func TestReopenVerifiesFromCheckpoint(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		mustAppend(t, l, Record{Kind: KindChainEvent, Body: []byte(`{"x":1}`)})
	}
	head := l.Head()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, _, err := l.Append(t.Context(), Record{Kind: KindChainEvent}); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	if err := l.Start(t.Context()); !errors.Is(err, ErrClosed) {
		t.Fatalf("restart of a closed ledger: %v", err)
	}
	// A flip before the checkpoint is not re-read at open; one after it is.
	db := rawDB(t, cfg)
	ck := readHeadRaw(t, db, keyCheckpoint)
	if ck.Seq != 0 {
		t.Fatalf("checkpoint %d before the first reopen", ck.Seq)
	}
	db.Close()
	l2 := open(t, cfg)
	if l2.Head() != head {
		t.Fatalf("head after reopen %+v, want %+v", l2.Head(), head)
	}
	mustAppend(t, l2, Record{Kind: KindChainEvent, Body: []byte(`{"x":2}`)})
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	db = rawDB(t, cfg)
	if ck := readHeadRaw(t, db, keyCheckpoint); ck != head {
		t.Fatalf("checkpoint %+v, want the head verified at open %+v", ck, head)
	}
	db.Close()
}

func TestReadOnly(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	l := open(t, cfg)
	mustAppend(t, l, Record{Kind: KindChainEvent})
	head := l.Head()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	cfg.ReadOnly = true
	ro := open(t, cfg)
	if ro.Head() != head {
		t.Fatalf("read-only head %+v", ro.Head())
	}
	if _, _, err := ro.Append(t.Context(), Record{Kind: KindChainEvent}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("append to read-only: %v", err)
	}
	if _, err := ro.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
	missing := testConfig(t, t.TempDir()+"/nope")
	missing.ReadOnly = true
	if l, _ := New(missing); l.Start(t.Context()) == nil {
		t.Fatal("read-only open of a missing ledger succeeded")
	}
}

func TestAnchor(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	type anchorCall struct {
		head  negotiation.Hash
		count uint64
	}
	calls := make(chan anchorCall, 100)
	cfg.AnchorEvery = 5
	cfg.AnchorHook = func(h negotiation.Hash, n uint64) { calls <- anchorCall{h, n} }
	l := open(t, cfg)
	ctx := t.Context()
	var at5 Head
	for i := range 5 {
		e := mustAppend(t, l, Record{Kind: KindChainEvent})
		if i == 4 {
			at5 = Head{Seq: e.Seq, Hash: e.Hash}
		}
	}
	c := <-calls
	if c.count != 5 || c.head != at5.Hash {
		t.Fatalf("hook got (%s, %d), want (%s, 5)", c.head, c.count, at5.Hash)
	}
	e, err := l.RecordAnchor(ctx, at5, []byte(`{"chainId":"31337","txHash":"0x01"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"chainId":"31337","count":5,"head":"` + at5.Hash.String() + `","txHash":"0x01"}`
	if e.Kind != KindAnchor || string(e.Body) != want {
		t.Fatalf("anchor entry %s", e.Raw)
	}
	for _, h := range []Head{{Seq: 5, Hash: negotiation.Hash{1}}, {Seq: 99, Hash: at5.Hash}, {}} {
		if _, err := l.RecordAnchor(ctx, h, nil); CodeOf(err) != CodeUnknownHead {
			t.Fatalf("anchor of %+v: %v", h, err)
		}
	}
	if _, err := l.RecordAnchor(ctx, at5, []byte(`{"head":"0x"}`)); CodeOf(err) != CodeReservedMember {
		t.Fatalf("anchor proof that sets head: %v", err)
	}
	select {
	case c := <-calls:
		t.Fatalf("hook called early at %d", c.count)
	default:
	}
}

func TestConfigValidate(t *testing.T) {
	base := testConfig(t, t.TempDir())
	cases := map[string]func(*Config){
		"Dir":            func(c *Config) { c.Dir = "" },
		"Logger":         func(c *Config) { c.Logger = nil },
		"Clock":          func(c *Config) { c.Clock = nil },
		"MaxBatch":       func(c *Config) { c.MaxBatch = 0 },
		"MaxBatchBytes":  func(c *Config) { c.MaxBatchBytes = 1 << 30 },
		"MaxObjectBytes": func(c *Config) { c.MaxObjectBytes = 64 << 20 },
		"AnchorHook":     func(c *Config) { c.AnchorEvery = 10 },
		"NumCompactors":  func(c *Config) { c.NumCompactors = 1 },
	}
	for field, mutate := range cases {
		t.Run(field, func(t *testing.T) {
			c := base
			mutate(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), "config "+field) {
				t.Fatalf("Validate() = %v, want an error naming %s", err, field)
			}
			if _, err := New(c); err == nil {
				t.Fatal("New accepted an invalid config")
			}
		})
	}
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
}
