package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// step returns the records of one step of negotiation n as a node writes
// them: the thread opened, a party's link, the envelope (envRec), the new
// state and the card sealed.
func step(n string, envRec Record, state string) []Record {
	return []Record{
		{Kind: "thread.opened", NegotiationID: n, Body: []byte(`{"role":"poster"}`)},
		{Kind: "identity.link", NegotiationID: n, Body: []byte(`{"address":"0x01"}`)},
		envRec,
		{Kind: KindThreadState, NegotiationID: n, Body: []byte(`{"state":"` + state + `"}`)},
		{Kind: KindCardSealed, NegotiationID: n, Body: []byte(`{"card":"x"}`)},
	}
}

// TestAppendAll: the records of one batch are written in one group commit,
// in the order given, at consecutive seqs, with the chain, the objects,
// the indexes and the latest thread state that Append writes.
func TestAppendAll(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	mustAppend(t, l, Record{Kind: KindChainEvent, Body: []byte(`{"before":1}`)})
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	env := poster.counter(t, nid(1), worker, "batch", 1024)
	er, err := EnvelopeRecord(KindEnvelopeSent, env, "", t0)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := RejectedRecord([]byte("garbage"), "bad_signature", nid(1), t0)
	if err != nil {
		t.Fatal(err)
	}
	recs := append(step(nid(1), er, "proposed"), rr)
	batches, _ := l.Stats()
	es, err := l.AppendAll(ctx, recs...)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := l.Stats(); b != batches+1 {
		t.Fatalf("%d group commits for one batch", b-batches)
	}
	if len(es) != len(recs) {
		t.Fatalf("%d entries for %d records", len(es), len(recs))
	}
	for i, e := range es {
		if e.Seq != uint64(2+i) || e.Kind != recs[i].Kind {
			t.Fatalf("entry %d: seq %d kind %s, want seq %d kind %s", i, e.Seq, e.Kind, 2+i, recs[i].Kind)
		}
		got, err := l.Get(ctx, e.Seq)
		if err != nil || got.Hash != e.Hash || !bytes.Equal(got.Raw, e.Raw) {
			t.Fatalf("entry %d as stored: %v", e.Seq, err)
		}
	}
	if h := l.Head(); h.Seq != es[len(es)-1].Seq || h.Hash != es[len(es)-1].Hash {
		t.Fatalf("head %+v is not the batch's last entry", h)
	}
	if es[2].CID != env.CID() {
		t.Fatalf("the envelope's entry names %s, want %s", es[2].CID, env.CID())
	}
	if obj, err := l.Object(ctx, env.CID()); err != nil || !bytes.Equal(obj, env.Bytes()) {
		t.Fatalf("the envelope as stored: %v", err)
	}
	if e, err := l.ByCID(ctx, env.CID()); err != nil || e.Seq != es[2].Seq {
		t.Fatalf("by CID: %d, %v", e.Seq, err)
	}
	if st, err := l.NegotiationState(ctx, nid(1)); err != nil || st != "proposed" {
		t.Fatalf("negotiation state %q, %v", st, err)
	}
	neg, err := Collect(l.ByNegotiation(ctx, nid(1)))
	if err != nil || len(neg) != len(recs) {
		t.Fatalf("%d entries of the negotiation, %v", len(neg), err)
	}
	if rej, err := Collect(l.ByKind(ctx, KindEnvelopeRejected)); err != nil || len(rej) != 1 || !strings.Contains(string(rej[0].Body), `"size":7`) {
		t.Fatalf("the rejected input's entry: %v", err)
	}
	if _, err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	if es, err := l.AppendAll(ctx); err != nil || es != nil {
		t.Fatalf("an empty batch: %v, %v", es, err)
	}
}

// TestAppendAllObjects: a record whose object is stored already writes
// nothing and gets the entry that stored it (before the batch or earlier
// in it); the batch's other records are written. A batch of stored objects
// only commits nothing.
func TestAppendAllObjects(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	first := mustAppend(t, l, Record{Kind: KindBlobStored, Object: []byte("blob a"), ObjectCodec: CodecRaw})
	es, err := l.AppendAll(ctx,
		Record{Kind: KindBlobStored, Object: []byte("blob a"), ObjectCodec: CodecRaw},
		Record{Kind: KindBlobStored, Object: []byte("blob b"), ObjectCodec: CodecRaw},
		Record{Kind: KindChainEvent, Body: []byte(`{"i":1}`)},
		Record{Kind: KindBlobStored, Object: []byte("blob b"), ObjectCodec: CodecRaw, Body: []byte(`{"again":true}`)},
	)
	if err != nil {
		t.Fatal(err)
	}
	if es[0].Seq != first.Seq || es[0].Hash != first.Hash {
		t.Fatalf("a stored object got entry %d, want %d", es[0].Seq, first.Seq)
	}
	if es[1].Seq != first.Seq+1 || es[2].Seq != first.Seq+2 {
		t.Fatalf("new entries at %d and %d, want %d and %d", es[1].Seq, es[2].Seq, first.Seq+1, first.Seq+2)
	}
	if es[3].Seq != es[1].Seq || es[3].Hash != es[1].Hash {
		t.Fatalf("an object stored earlier in the batch got entry %d, want %d", es[3].Seq, es[1].Seq)
	}
	if l.Head().Seq != first.Seq+2 {
		t.Fatalf("head %d, want %d", l.Head().Seq, first.Seq+2)
	}
	head := l.Head()
	batches, _ := l.Stats()
	es, err = l.AppendAll(ctx,
		Record{Kind: KindBlobStored, Object: []byte("blob a"), ObjectCodec: CodecRaw},
		Record{Kind: KindBlobStored, Object: []byte("blob b"), ObjectCodec: CodecRaw},
	)
	if err != nil || es[0].Seq != first.Seq || es[1].Seq != first.Seq+1 {
		t.Fatalf("a batch of stored objects: %v", err)
	}
	if b, _ := l.Stats(); b != batches || l.Head() != head {
		t.Fatalf("a batch of stored objects committed (head %d, was %d)", l.Head().Seq, head.Seq)
	}
}

// TestObjectCID: ObjectCID is the CID the entry storing an object names,
// for both codecs, so a record can name an object stored earlier in its
// batch; what the ledger would refuse as an object it refuses too.
func TestObjectCID(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	for _, r := range []Record{
		{Kind: KindBlobStored, Object: []byte(`{"a":1}`)},
		{Kind: KindBlobStored, Object: []byte("raw bytes"), ObjectCodec: CodecRaw},
	} {
		c, err := ObjectCID(r.Object, r.ObjectCodec)
		if err != nil {
			t.Fatal(err)
		}
		if e := mustAppend(t, l, r); !e.CID.Equals(c) {
			t.Fatalf("ObjectCID %s, the entry names %s", c, e.CID)
		}
	}
	for _, bad := range []struct {
		obj   []byte
		codec uint64
	}{{nil, 0}, {[]byte("not json"), CodecJSON}, {[]byte("x"), 0x99}} {
		if _, err := ObjectCID(bad.obj, bad.codec); CodeOf(err) != CodeBadObject {
			t.Fatalf("ObjectCID(%q, %x): %v, want %s", bad.obj, bad.codec, err, CodeBadObject)
		}
	}
}

// TestAppendAllRefusesWholeBatch: one refused record refuses the batch, the
// error names that record and carries its code, and the store is
// unchanged key by key. Reserved kinds go in only as their constructors
// built them; a batch that cannot fit one group commit is refused before
// it reaches the writer.
func TestAppendAllRefusesWholeBatch(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	cfg.MaxBatch = 8
	cfg.MaxBatchBytes = cfg.MaxObjectBytes // one object and its entry exceed it
	l := open(t, cfg)
	ctx := t.Context()
	mustAppend(t, l, Record{Kind: KindChainEvent, Body: []byte(`{"ok":true}`)})
	before, head := snapshot(t, l), l.Head()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	env := poster.counter(t, nid(1), worker, "refused", 1024)
	er, err := EnvelopeRecord(KindEnvelopeReceived, env, "", t0)
	if err != nil {
		t.Fatal(err)
	}
	good := Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"good":1}`)}
	changedBody, changedObject, changedKind := er, er, er
	changedBody.Body = []byte(`{"code":"ok","sender":"0x0","sequence":9,"type":"TaskProposal"}`)
	changedObject.Object = bytes.Clone(er.Object)
	changedObject.Object[len(changedObject.Object)-2] ^= 1
	changedKind.Kind = KindEnvelopeSent
	big := func(n int) []Record {
		out := make([]Record, n)
		for i := range out {
			out[i] = Record{Kind: KindBlobStored, Object: bytes.Repeat([]byte{byte(i)}, cfg.MaxObjectBytes), ObjectCodec: CodecRaw}
		}
		return out
	}
	cases := []struct {
		name  string
		recs  []Record
		index int // -1: the batch as a whole
		code  Code
	}{
		{"bad body", []Record{good, er, {Kind: KindChainEvent, Body: []byte(`{"a":`)}, good}, 2, CodeBadBody},
		{"bad kind first", []Record{{Kind: "Bad Kind"}, good}, 0, CodeBadKind},
		{"bad negotiation id last", []Record{good, good, {Kind: KindChainEvent, NegotiationID: "n-1"}}, 2, CodeBadNegotiationID},
		{"reserved kind by hand", []Record{good, {Kind: KindEnvelopeSent, NegotiationID: nid(1), Body: []byte(`{"code":"ok"}`), Object: env.Bytes()}}, 1, CodeBadKind},
		{"anchor by hand", []Record{good, {Kind: KindAnchor, Body: []byte(`{}`)}}, 1, CodeBadKind},
		{"envelope record with another body", []Record{good, changedBody}, 1, CodeBadKind},
		{"envelope record with other bytes", []Record{good, changedObject}, 1, CodeBadKind},
		{"envelope record with another kind", []Record{good, changedKind}, 1, CodeBadKind},
		{"thread state without a state", []Record{good, {Kind: KindThreadState, NegotiationID: nid(1), Body: []byte(`{}`)}}, 1, CodeBadBody},
		{"more records than a group commit takes", make9(good), -1, CodeTooLarge},
		{"more bytes than a group commit takes", big(2), -1, CodeTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			es, err := l.AppendAll(ctx, c.recs...)
			if err == nil || es != nil {
				t.Fatalf("AppendAll = %d entries, %v", len(es), err)
			}
			if CodeOf(err) != c.code || !errors.Is(err, &Error{Code: c.code}) {
				t.Fatalf("AppendAll = %v, want code %s", err, c.code)
			}
			var be *BatchError
			if c.index < 0 {
				var e *Error
				if errors.As(err, &be) || !errors.As(err, &e) || e.Field != "records" {
					t.Fatalf("a batch refused as a whole: %#v", err)
				}
				return
			}
			if !errors.As(err, &be) || be.Index != c.index {
				t.Fatalf("AppendAll = %v, want record %d named", err, c.index)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("batch record %d", c.index)) {
				t.Fatalf("the message %q does not name the record", err)
			}
		})
	}
	if after := snapshot(t, l); !equalMaps(before, after) || l.Head() != head {
		t.Fatal("a refused batch changed the store")
	}
	// The constructed records are accepted as built, by Append too.
	if _, err := l.AppendAll(ctx, good, er); err != nil {
		t.Fatal(err)
	}
	if _, existed, err := l.Append(ctx, er); err != nil || !existed {
		t.Fatalf("Append of the same envelope record: existed %v, %v", existed, err)
	}
	// One record is Append's case: it always goes, alone, even when it
	// exceeds MaxBatchBytes.
	if _, err := l.AppendAll(ctx, big(1)...); err != nil {
		t.Fatal(err)
	}
}

func make9(r Record) []Record {
	out := make([]Record, 9)
	for i := range out {
		out[i] = r
	}
	return out
}

// TestAppendAllRefusedInTheWriter: a batch refused inside the writer after
// some of its records were set in the transaction writes none of them; the
// appends it shared the group commit with are written. (AppendAll puts
// only plain appends in a batch, which the writer cannot refuse; the test
// builds a batch with an anchor that names an unknown head.)
func TestAppendAllRefusedInTheWriter(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	mustAppend(t, l, Record{Kind: KindChainEvent, Body: []byte(`{"ok":true}`)})
	for round := range 20 {
		good, err := l.prepare(Record{Kind: KindChainEvent, Body: fmt.Appendf(nil, `{"lost":%d}`, round)})
		if err != nil {
			t.Fatal(err)
		}
		anchor, err := l.prepare(Record{Kind: KindAnchor, Body: []byte(`{"count":999999,"head":"0x00"}`)})
		if err != nil {
			t.Fatal(err)
		}
		anchor.op, anchor.anchor = opAnchor, Head{Seq: 999999}
		var wg sync.WaitGroup
		errs := make(chan error, 9)
		for i := range 8 {
			wg.Go(func() {
				_, _, err := l.Append(ctx, Record{Kind: KindChainEvent, Body: fmt.Appendf(nil, `{"round":%d,"i":%d}`, round, i)})
				errs <- err
			})
		}
		wg.Go(func() {
			res := l.submit(ctx, &request{op: opBatch, parts: []*request{good, anchor}, size: good.size + anchor.size})
			var be *BatchError
			if !errors.As(res.err, &be) || be.Index != 1 || CodeOf(res.err) != CodeUnknownHead {
				errs <- fmt.Errorf("the batch: %v", res.err)
				return
			}
			errs <- nil
		})
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	es, err := Collect(l.ByKind(ctx, KindChainEvent))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.Contains(string(e.Body), "lost") {
			t.Fatalf("entry %d of a refused batch was written: %s", e.Seq, e.Body)
		}
	}
	if len(es) != 1+20*8 || l.Head().Seq != 1+20*8 {
		t.Fatalf("%d entries, head %d, want %d", len(es), l.Head().Seq, 1+20*8)
	}
	if _, err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAppendAllConcurrent: batches from several goroutines beside single
// appends keep their records together and in order: the entries of each
// batch are consecutive, and group commits still gather several callers.
func TestAppendAllConcurrent(t *testing.T) {
	const writers, each = 6, 40
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	var wg sync.WaitGroup
	batchesC := make(chan []Entry, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if w%2 == 0 {
					if _, _, err := l.Append(ctx, Record{Kind: KindChainEvent, NegotiationID: nid(w), Body: fmt.Appendf(nil, `{"w":%d,"i":%d}`, w, i)}); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				var recs []Record
				for k := range 1 + i%5 {
					recs = append(recs, Record{Kind: KindChainEvent, NegotiationID: nid(w), Body: fmt.Appendf(nil, `{"w":%d,"i":%d,"k":%d}`, w, i, k)})
				}
				es, err := l.AppendAll(ctx, recs...)
				if err != nil {
					t.Error(err)
					return
				}
				batchesC <- es
			}
		})
	}
	wg.Wait()
	close(batchesC)
	total := writers / 2 * each
	for es := range batchesC {
		for k, e := range es {
			if e.Seq != es[0].Seq+uint64(k) {
				t.Fatalf("a batch's entries at %d and %d: another append came between", es[0].Seq, e.Seq)
			}
			if !strings.Contains(string(e.Body), fmt.Sprintf(`"k":%d`, k)) {
				t.Fatalf("entry %d of a batch is %s", k, e.Body)
			}
			got, err := l.Get(ctx, e.Seq)
			if err != nil || got.Hash != e.Hash {
				t.Fatalf("entry %d as stored: %v", e.Seq, err)
			}
		}
		total += len(es)
	}
	if l.Head().Seq != uint64(total) {
		t.Fatalf("head %d, want %d", l.Head().Seq, total)
	}
	if _, err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	batches, entries := l.Stats()
	t.Logf("%d entries in %d group commits", entries, batches)
}
