package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/parleynet/parley/negotiation"
)

// exportV2 exports a version-2 bundle of n against a fresh head of the
// whole ledger, signed by s.
func exportV2(t *testing.T, l *Ledger, s testSigner, n string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := l.ExportV2(t.Context(), n, s.head(t, l, l.Head().Seq), s.link, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func verifyV2(t *testing.T, b []byte) *BundleReport {
	t.Helper()
	rep, err := VerifyBundle(bytes.NewReader(b), BundleOptions{})
	if err != nil {
		t.Fatalf("verify bundle: %v\n%s", err, b)
	}
	if rep.Version != 2 {
		t.Fatalf("version %d", rep.Version)
	}
	return rep
}

func TestBundleV2RoundTrip(t *testing.T) {
	bl := newBundleLedger(t)
	l, s := bl.l, newTestSigner("node")
	ctx := t.Context()
	anchored := l.Head().Seq - 3
	if _, err := l.RecordTreeAnchor(ctx, testAnchor(t, l, anchored)); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, Record{Kind: KindThreadState, NegotiationID: bl.a, Body: []byte(`{"state":"disputed"}`)})
	b := exportV2(t, l, s, bl.a)
	rep := verifyV2(t, b)
	own, err := Collect(l.ByNegotiation(ctx, bl.a))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Entries != len(own) || len(rep.Negotiation) != len(own) || len(rep.Envelopes) != len(bl.envs) {
		t.Fatalf("%d entries (%d of the negotiation), %d envelopes; the ledger has %d, %d", rep.Entries, len(rep.Negotiation), len(rep.Envelopes), len(own), len(bl.envs))
	}
	for i, e := range rep.Negotiation {
		if !bytes.Equal(e.Raw, own[i].Raw) || e.Seq != own[i].Seq {
			t.Fatalf("bundled entry %d differs from the ledger's %d", e.Seq, own[i].Seq)
		}
	}
	if rep.Anchor == nil || rep.Anchor.Size != anchored || rep.TreeHead.Size != l.Head().Seq || !bytes.Equal(rep.Signer, s.link) || rep.TreeHead.Signer != s.hash {
		t.Fatalf("report: anchor %+v, head %+v, signer %s", rep.Anchor, rep.TreeHead, rep.Signer)
	}
	if rep.From != own[0].Seq || rep.Unlinked != 0 {
		t.Fatalf("from %d unlinked %d", rep.From, rep.Unlinked)
	}
	if bytes.Contains(b, []byte(bl.b)) {
		t.Fatal("the bundle names the other negotiation")
	}
	// Reformatting the JSON changes no proof.
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	verifyV2(t, pretty.Bytes())
	// Without an anchor up to the head's size, the bundle carries none.
	var buf bytes.Buffer
	if err := l.ExportV2(ctx, bl.a, s.head(t, l, anchored-1), s.link, &buf); err != nil {
		t.Fatal(err)
	}
	if rep := verifyV2(t, buf.Bytes()); rep.Anchor != nil || rep.TreeHead.Size != anchored-1 || rep.Entries >= len(own) {
		t.Fatalf("bundle at an earlier head: anchor %v, %d entries", rep.Anchor, rep.Entries)
	}
	// Version 1 still verifies, and says so.
	if rep, err := VerifyBundle(bytes.NewReader(bl.export(t, bl.a)), BundleOptions{}); err != nil || rep.Version != 1 {
		t.Fatalf("v1: %+v %v", rep, err)
	}
}

func TestExportV2Refusals(t *testing.T) {
	bl := newBundleLedger(t)
	l, s := bl.l, newTestSigner("node")
	ctx := t.Context()
	good := s.head(t, l, l.Head().Seq)
	forged := good
	forged.Root[3] ^= 1
	beyond := good
	beyond.Size++
	for _, c := range []struct {
		name string
		n    string
		h    TreeHead
		link []byte
		code Code
	}{
		{"forged root", bl.a, forged, s.link, CodeTreeMismatch},
		{"size beyond", bl.a, beyond, s.link, CodeUnknownSize},
		{"another link", bl.a, good, newTestSigner("other").link, CodeBadBody},
		{"link not JCS", bl.a, good, append([]byte(" "), s.link...), CodeBadBody},
		{"short signature", bl.a, func() TreeHead { h := good; h.Signature = h.Signature[:10]; return h }(), s.link, CodeBadBody},
		{"bad negotiation id", "x", good, s.link, CodeBadNegotiationID},
	} {
		var buf bytes.Buffer
		err := l.ExportV2(ctx, c.n, c.h, c.link, &buf)
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code || buf.Len() != 0 {
			t.Errorf("%s: got %v (%d bytes written), want an *Error %s", c.name, err, buf.Len(), c.code)
		}
	}
	if err := l.ExportV2(ctx, nid(9), good, s.link, &bytes.Buffer{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown negotiation: %v", err)
	}
	// A head before the negotiation's first entry holds none of it.
	if err := l.ExportV2(ctx, bl.a, s.head(t, l, bl.firstSeq-1), s.link, &bytes.Buffer{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("head before the negotiation: %v", err)
	}
}

// v2Doc is a version-2 bundle opened for editing.
type v2Doc struct {
	top     map[string]json.RawMessage
	entries []v2DocEntry
	anchor  map[string]json.RawMessage
}

type v2DocEntry struct {
	Seq   json.RawMessage `json:"seq"`
	Entry json.RawMessage `json:"entry"`
	Proof []string        `json:"proof"`
}

func editV2(t *testing.T, b []byte, fn func(d *v2Doc)) []byte {
	t.Helper()
	var d v2Doc
	if err := json.Unmarshal(b, &d.top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(d.top["entries"], &d.entries); err != nil {
		t.Fatal(err)
	}
	if string(d.top["anchor"]) != "null" {
		if err := json.Unmarshal(d.top["anchor"], &d.anchor); err != nil {
			t.Fatal(err)
		}
	}
	fn(&d)
	var err error
	if d.top["entries"], err = json.Marshal(d.entries); err != nil {
		t.Fatal(err)
	}
	if d.anchor != nil {
		if d.top["anchor"], err = json.Marshal(d.anchor); err != nil {
			t.Fatal(err)
		}
	}
	out, err := json.Marshal(d.top)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (d *v2Doc) entryIndex(t *testing.T, contains string) int {
	t.Helper()
	for i, e := range d.entries {
		if strings.Contains(string(e.Entry), contains) {
			return i
		}
	}
	t.Fatalf("no entry holds %q", contains)
	return -1
}

func wantBundleCode(t *testing.T, name string, b []byte, code Code) {
	t.Helper()
	_, err := VerifyBundle(bytes.NewReader(b), BundleOptions{})
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Code != code {
		t.Errorf("%s: got %v, want %s", name, err, code)
	}
}

// TestBundleV2Tamper: each way a bundle can lie is reported with its own
// code.
func TestBundleV2Tamper(t *testing.T) {
	bl := newBundleLedger(t)
	l, s := bl.l, newTestSigner("node")
	if _, err := l.RecordTreeAnchor(t.Context(), testAnchor(t, l, l.Head().Seq-2)); err != nil {
		t.Fatal(err)
	}
	b := exportV2(t, l, s, bl.a)
	verifyV2(t, b)
	// An entry of the other negotiation, with a true proof.
	var foreign v2DocEntry
	var foreignSeq uint64
	for e, err := range l.ByNegotiation(t.Context(), bl.b) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Seq > bl.firstSeq {
			p, err := l.InclusionProof(e.Seq, l.Head().Seq) // the size of the head exportV2 signed
			if err != nil {
				t.Fatal(err)
			}
			foreignSeq = e.Seq
			foreign = v2DocEntry{Seq: json.RawMessage(fmt.Sprint(e.Seq)), Entry: e.Raw}
			for _, h := range p {
				foreign.Proof = append(foreign.Proof, negotiation.Hash(h).String())
			}
			break
		}
	}
	cases := []struct {
		name string
		b    []byte
		code Code
	}{
		{"entry changed", editV2(t, b, func(d *v2Doc) {
			i := d.entryIndex(t, `"state":"agreed"`)
			d.entries[i].Entry = json.RawMessage(strings.Replace(string(d.entries[i].Entry), "agreed", "settled", 1))
		}), CodeBadInclusion},
		{"back-link changed", editV2(t, b, func(d *v2Doc) {
			d.entries[2].Entry = json.RawMessage(negPrevRE.ReplaceAllString(string(d.entries[2].Entry), `,"negotiationPrev":1`))
		}), CodeBadInclusion},
		{"proof hash changed", editV2(t, b, func(d *v2Doc) { d.entries[1].Proof[0] = negotiation.Hash{1}.String() }), CodeBadInclusion},
		{"proof shortened", editV2(t, b, func(d *v2Doc) { d.entries[1].Proof = d.entries[1].Proof[1:] }), CodeBadInclusion},
		{"proof of 65 hashes", editV2(t, b, func(d *v2Doc) {
			for len(d.entries[1].Proof) <= 64 {
				d.entries[1].Proof = append(d.entries[1].Proof, d.entries[1].Proof[0])
			}
		}), CodeBadInclusion},
		{"proof hash in capitals", editV2(t, b, func(d *v2Doc) { d.entries[1].Proof[0] = "0x" + strings.ToUpper(d.entries[1].Proof[0][2:]) }), CodeBadInclusion},
		{"no proof", editV2(t, b, func(d *v2Doc) { d.entries[1].Proof = nil }), CodeBadInclusion},
		{"entries reordered", editV2(t, b, func(d *v2Doc) { d.entries[1], d.entries[2] = d.entries[2], d.entries[1] }), CodeOutOfOrder},
		{"entry twice", editV2(t, b, func(d *v2Doc) { d.entries = append(d.entries[:3:3], d.entries[2:]...) }), CodeOutOfOrder},
		{"middle entry omitted", editV2(t, b, func(d *v2Doc) { d.entries = append(d.entries[:2:2], d.entries[3:]...) }), CodeOmittedEntry},
		{"first entry omitted", editV2(t, b, func(d *v2Doc) { d.entries = d.entries[1:] }), CodeOmittedEntry},
		// An envelope's entry omitted (with its object): the back-link of
		// the entry after it sees it first, before the sender chain would.
		{"envelope of a sender omitted", editV2(t, b, func(d *v2Doc) {
			i := d.entryIndex(t, `"sequence":2`)
			d.entries = append(d.entries[:i:i], d.entries[i+1:]...)
			var objs []json.RawMessage
			json.Unmarshal(d.top["objects"], &objs)
			d.top["objects"], _ = json.Marshal(append(objs[:i:i], objs[i+1:]...))
		}), CodeOmittedEntry},
		{"foreign entry", editV2(t, b, func(d *v2Doc) {
			for i, e := range d.entries {
				var seq uint64
				json.Unmarshal(e.Seq, &seq)
				if seq > foreignSeq {
					d.entries = append(d.entries[:i:i], append([]v2DocEntry{foreign}, d.entries[i:]...)...)
					return
				}
			}
			t.Fatal("no place for the foreign entry")
		}), CodeForeignEntry},
		{"seq listed wrong", editV2(t, b, func(d *v2Doc) { d.entries[1].Seq = d.entries[2].Seq }), CodeSeqMismatch},
		{"seq overflows", editV2(t, b, func(d *v2Doc) { d.entries[1].Seq = json.RawMessage(`18446744073709551616`) }), CodeBadBundle},
		{"seq negative", editV2(t, b, func(d *v2Doc) { d.entries[1].Seq = json.RawMessage(`-1`) }), CodeBadBundle},
		{"seq fraction", editV2(t, b, func(d *v2Doc) { d.entries[1].Seq = json.RawMessage(`1.5`) }), CodeBadBundle},
		{"anchor root changed", editV2(t, b, func(d *v2Doc) {
			d.anchor["root"] = json.RawMessage(`"` + negotiation.Hash{7}.String() + `"`)
		}), CodeInconsistent},
		{"anchor proof changed", editV2(t, b, func(d *v2Doc) {
			var p []string
			json.Unmarshal(d.anchor["consistency"], &p)
			p[0] = negotiation.Hash{7}.String()
			d.anchor["consistency"], _ = json.Marshal(p)
		}), CodeInconsistent},
		{"anchor proof of 65 hashes", editV2(t, b, func(d *v2Doc) {
			d.anchor["consistency"], _ = json.Marshal(make([]string, 65))
		}), CodeInconsistent},
		{"anchor beyond the head", editV2(t, b, func(d *v2Doc) { d.anchor["size"] = json.RawMessage(`1000`) }), CodeInconsistent},
		{"anchor size 0", editV2(t, b, func(d *v2Doc) { d.anchor["size"] = json.RawMessage(`0`) }), CodeBadBundle},
		{"anchor without a proof", editV2(t, b, func(d *v2Doc) { delete(d.anchor, "consistency") }), CodeBadBundle},
		{"anchor with an extra member", editV2(t, b, func(d *v2Doc) { d.anchor["x"] = json.RawMessage(`1`) }), CodeBadBundle},
		{"tree head root changed", editV2(t, b, func(d *v2Doc) {
			d.top["treeHead"] = json.RawMessage(replaceHexAt(string(d.top["treeHead"]), `"root":"0x`))
		}), CodeBadInclusion},
		{"tree head size beyond 2^53", editV2(t, b, func(d *v2Doc) {
			d.top["treeHead"] = json.RawMessage(negSizeRE(string(d.top["treeHead"]), `9007199254740992`))
		}), CodeBadBundle},
		{"tree head size 0", editV2(t, b, func(d *v2Doc) { d.top["treeHead"] = json.RawMessage(negSizeRE(string(d.top["treeHead"]), `0`)) }), CodeBadBundle},
		{"tree head signature short", editV2(t, b, func(d *v2Doc) {
			d.top["treeHead"] = json.RawMessage(shortenHexAt(string(d.top["treeHead"]), `"signature":"0x`))
		}), CodeBadBundle},
		{"signer not an object", editV2(t, b, func(d *v2Doc) { d.top["signer"] = json.RawMessage(`"x"`) }), CodeBadBundle},
		{"unknown member", editV2(t, b, func(d *v2Doc) { d.top["extra"] = json.RawMessage(`1`) }), CodeBadBundle},
		{"no anchor member", editV2(t, b, func(d *v2Doc) { delete(d.top, "anchor"); d.anchor = nil }), CodeBadBundle},
		{"no entries", editV2(t, b, func(d *v2Doc) { d.entries = []v2DocEntry{} }), CodeBadBundle},
		{"object dropped", editV2(t, b, func(d *v2Doc) { d.top["objects"] = json.RawMessage(`[]`) }), CodeObjectMissing},
	}
	for _, c := range cases {
		wantBundleCode(t, c.name, c.b, c.code)
	}
	// A member named twice, and the format of another version.
	wantBundleCode(t, "member twice", bytes.Replace(b, []byte(`"anchor":`), []byte(`"pruned":[],"anchor":`), 1), CodeBadBundle)
	wantBundleCode(t, "format 3", bytes.Replace(b, []byte(BundleFormatV2), []byte("parley-proof-bundle/3"), 1), CodeBadBundle)
}

// replaceHexAt changes the first hex digit after marker in s.
func replaceHexAt(s, marker string) string {
	i := strings.Index(s, marker) + len(marker)
	c := byte('0')
	if s[i] == '0' {
		c = '1'
	}
	return s[:i] + string(c) + s[i+1:]
}

// shortenHexAt drops two hex digits after marker in s.
func shortenHexAt(s, marker string) string {
	i := strings.Index(s, marker) + len(marker)
	return s[:i] + s[i+2:]
}

// negSizeRE sets the size member of a tree head's text.
func negSizeRE(s, size string) string {
	i := strings.Index(s, `"size":`) + len(`"size":`)
	j := i + strings.IndexByte(s[i:], ',')
	return s[:i] + size + s[j:]
}

// TestBundleV2SenderChain: a ledger that never recorded a sender's
// envelope (so no back-link is broken) gives sender_chain; so does an
// envelope whose previousHash names another.
func TestBundleV2SenderChain(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	n := nid(1)
	record := func(env *negotiation.Envelope) {
		if _, _, err := l.AppendEnvelope(ctx, KindEnvelopeReceived, env, "", t0); err != nil {
			t.Fatal(err)
		}
	}
	record(poster.counter(t, n, worker, "1", 0))
	record(worker.counter(t, n, poster, "1", 0))
	poster.counter(t, n, worker, "2", 0) // never recorded
	record(poster.counter(t, n, worker, "3", 0))
	s := newTestSigner("node")
	wantBundleCode(t, "envelope never recorded", exportV2(t, l, s, n), CodeSenderChain)

	l2 := open(t, testConfig(t, t.TempDir()))
	poster, worker = newParty(t, "poster"), newParty(t, "worker")
	if _, _, err := l2.AppendEnvelope(ctx, KindEnvelopeReceived, poster.counter(t, n, worker, "1", 0), "", t0); err != nil {
		t.Fatal(err)
	}
	poster.prev[n] = negotiation.Hash{9} // the next envelope names another as its previous
	if _, _, err := l2.AppendEnvelope(ctx, KindEnvelopeReceived, poster.counter(t, n, worker, "2", 0), "", t0); err != nil {
		t.Fatal(err)
	}
	wantBundleCode(t, "previousHash of another", exportV2(t, l2, s, n), CodeSenderChain)
}

// TestBundleV2OnlyTheNegotiation: the bundle of one negotiation in a
// ledger that holds 10,000 entries of others carries only that
// negotiation's entries: no other negotiation's id or body is in its bytes.
func TestBundleV2OnlyTheNegotiation(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	target := nid(424242)
	others := map[string]bool{}
	own := 0
	var batch []Record
	for i := range 10000 {
		o := nid(i % 200)
		others[o] = true
		batch = append(batch, Record{Kind: KindChainEvent, NegotiationID: o, Body: []byte(fmt.Sprintf(`{"secret":"other-%05d"}`, i))})
		if len(batch) == 500 {
			if _, err := l.AppendAll(ctx, batch...); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
			from, to := poster, worker
			if i%1000 == 499 {
				from, to = worker, poster
			}
			env := from.counter(t, target, to, fmt.Sprint(i), 0)
			if _, _, err := l.AppendEnvelope(ctx, KindEnvelopeSent, env, "", t0); err != nil {
				t.Fatal(err)
			}
			mustAppend(t, l, Record{Kind: KindThreadState, NegotiationID: target, Body: []byte(`{"state":"proposed"}`)})
			own += 2
		}
	}
	if l.Head().Seq != uint64(10000+own) {
		t.Fatalf("%d entries", l.Head().Seq)
	}
	b := exportV2(t, l, newTestSigner("node"), target)
	rep := verifyV2(t, b)
	if rep.Entries != own || len(rep.Negotiation) != own || len(rep.Envelopes) != own/2 {
		t.Fatalf("%d entries (%d envelopes), want %d", rep.Entries, len(rep.Envelopes), own)
	}
	if c := bytes.Count(b, []byte(`{"seq":`)); c != own {
		t.Fatalf("%d bundled entries in the bytes, want %d", c, own)
	}
	for o := range maps.Keys(others) {
		if bytes.Contains(b, []byte(o)) {
			t.Fatalf("the bundle names negotiation %s", o)
		}
	}
	if bytes.Contains(b, []byte("other-")) || bytes.Contains(b, []byte(KindChainEvent)) {
		t.Fatal("the bundle holds another negotiation's body or kind")
	}
	t.Logf("%d entries in the ledger, %d in the bundle, %d bytes", l.Head().Seq, rep.Entries, len(b))
}

// TestBundleV2LegacyEntries: entries stored before the back-link export
// and verify; they are counted as unlinked.
func TestBundleV2LegacyEntries(t *testing.T) {
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
	mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"new":1}`)})
	mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"new":2}`)})
	b := exportV2(t, l, newTestSigner("node"), nid(1))
	if rep := verifyV2(t, b); rep.Unlinked != 3 || rep.Entries != 5 {
		t.Fatalf("unlinked %d, entries %d", rep.Unlinked, rep.Entries)
	}
	// The first linked entry names the last unlinked one: omitting it shows.
	wantBundleCode(t, "last unlinked omitted", editV2(t, b, func(d *v2Doc) { d.entries = append(d.entries[:2:2], d.entries[3:]...) }), CodeOmittedEntry)
}

func TestParseProofBound(t *testing.T) {
	if _, err := parseProof(make([]string, 65)); err == nil || !strings.Contains(err.Error(), "exceeds 64") {
		t.Fatalf("a proof of 65 hashes: %v", err)
	}
	h := negotiation.Hash{1}.String()
	if p, err := parseProof([]string{h, h}); err != nil || len(p) != 2 {
		t.Fatalf("a proof of 2 hashes: %v", err)
	}
}

// TestReplayThreadFromBundleV2: an arbitrator rebuilds the thread from a
// version-2 bundle alone, as from version 1.
func TestReplayThreadFromBundleV2(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	th, params := negotiateToFunded(t, l)
	rep := verifyV2(t, exportV2(t, l, newTestSigner("node"), params.NegotiationID))
	got, err := rep.ReplayThread(negotiation.Params{NegotiationID: params.NegotiationID}, taskFundedFact)
	if err != nil {
		t.Fatal(err)
	}
	if got.State() != th.State() || !reflect.DeepEqual(got.Log(), th.Log()) || got.Agreement().Digest != th.Agreement().Digest {
		t.Fatalf("replayed state %s, live %s; or the log or agreement differ", got.State(), th.State())
	}
}
