package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/parleynet/parley/negotiation"
)

// bundleLedger holds two interleaved negotiations, a, with envelopes of
// both parties, state changes, a rejected input and an anchor, and b.
type bundleLedger struct {
	l        *Ledger
	a, b     string
	envs     []*negotiation.Envelope // a's envelopes in ledger order
	firstSeq uint64                  // a's first entry
}

func newBundleLedger(t *testing.T) *bundleLedger {
	t.Helper()
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	bl := &bundleLedger{l: l, a: nid(1), b: nid(2)}
	mustAppend(t, l, Record{Kind: KindCardSealed, Body: []byte(`{"card":"x"}`)})
	mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: bl.b, Body: []byte(`{"e":"before"}`)})
	for i := range 6 {
		from, to := poster, worker
		if i%2 == 1 {
			from, to = worker, poster
		}
		env := from.counter(t, bl.a, to, "a", 0)
		kind := KindEnvelopeSent
		if i%2 == 1 {
			kind = KindEnvelopeReceived
		}
		e, _, err := l.AppendEnvelope(ctx, kind, env, "", t0)
		if err != nil {
			t.Fatal(err)
		}
		if bl.firstSeq == 0 {
			bl.firstSeq = e.Seq
		}
		bl.envs = append(bl.envs, env)
		if _, _, err := l.AppendEnvelope(ctx, KindEnvelopeSent, poster.counter(t, bl.b, worker, "b", 0), "", t0); err != nil {
			t.Fatal(err)
		}
	}
	mustAppend(t, l, Record{Kind: KindThreadState, NegotiationID: bl.a, Body: []byte(`{"state":"agreed"}`)})
	if _, err := l.AppendRejected(ctx, []byte("garbage"), negotiation.CodeMalformedJSON, bl.a, t0); err != nil {
		t.Fatal(err)
	}
	h := l.Head()
	if _, err := l.RecordAnchor(ctx, h, []byte(`{"chainId":"31337"}`)); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: bl.b, Body: []byte(`{"e":"after"}`)})
	return bl
}

func (bl *bundleLedger) export(t *testing.T, n string) []byte {
	t.Helper()
	var buf bytes.Buffer
	head, err := bl.l.Export(t.Context(), n, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if head != bl.l.Head() {
		t.Fatalf("export head %+v, ledger head %+v", head, bl.l.Head())
	}
	return buf.Bytes()
}

func TestBundleRoundTrip(t *testing.T) {
	bl := newBundleLedger(t)
	b := bl.export(t, bl.a)
	rep, err := VerifyBundle(bytes.NewReader(b), BundleOptions{})
	if err != nil {
		t.Fatalf("verify bundle: %v\n%s", err, b)
	}
	head := bl.l.Head()
	if rep.Head != head || rep.NegotiationID != bl.a || rep.From != bl.firstSeq || rep.Entries != int(head.Seq-bl.firstSeq+1) {
		t.Fatalf("report %+v, head %+v, first %d", rep, head, bl.firstSeq)
	}
	if len(rep.Envelopes) != len(bl.envs) {
		t.Fatalf("%d envelopes, want %d", len(rep.Envelopes), len(bl.envs))
	}
	for i, env := range rep.Envelopes {
		if env.CID() != bl.envs[i].CID() {
			t.Fatalf("envelope %d out of order", i)
		}
	}
	if len(rep.Negotiation) != len(bl.envs)+2 || len(rep.Anchors) != 1 {
		t.Fatalf("%d negotiation entries, %d anchors", len(rep.Negotiation), len(rep.Anchors))
	}
	// The entries are the stored bytes, verbatim.
	for _, e := range rep.Negotiation {
		stored, err := bl.l.Get(t.Context(), e.Seq)
		if err != nil || !bytes.Equal(stored.Raw, e.Raw) || stored.Hash != e.Hash {
			t.Fatalf("bundled entry %d differs from the ledger", e.Seq)
		}
	}
	// Reformatting the JSON changes no hash.
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", "    "); err != nil {
		t.Fatal(err)
	}
	if rep2, err := VerifyBundle(&pretty, BundleOptions{}); err != nil || rep2.Head != head {
		t.Fatalf("pretty-printed bundle: %v", err)
	}
	// The other negotiation exports on its own.
	if rep, err := VerifyBundle(bytes.NewReader(bl.export(t, bl.b)), BundleOptions{}); err != nil || len(rep.Envelopes) != 6 || rep.From != 2 {
		t.Fatalf("bundle of b: %+v %v", rep, err)
	}
	if _, err := bl.l.Export(t.Context(), nid(9), &bytes.Buffer{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("export of an unknown negotiation: %v", err)
	}
}

// editBundle decodes b, applies fn, and (when forge is set) recomputes the
// head from the edited entries, as a forger who controls the file would.
func editBundle(t *testing.T, b []byte, forge bool, fn func(f *bundleFile)) []byte {
	t.Helper()
	var f bundleFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	fn(&f)
	if forge {
		prev := f.Prev
		for _, raw := range f.Entries {
			c, err := negotiation.Canonicalize(raw)
			if err != nil {
				t.Fatal(err)
			}
			prev = chainHash(prev, c)
		}
		f.Head.Hash = prev
	}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func replaceEntry(t *testing.T, f *bundleFile, i int, old, new string) {
	t.Helper()
	s := string(f.Entries[i])
	if !strings.Contains(s, old) {
		t.Fatalf("entry %d lacks %q: %s", i, old, s)
	}
	f.Entries[i] = json.RawMessage(strings.Replace(s, old, new, 1))
}

func TestBundleTamper(t *testing.T) {
	bl := newBundleLedger(t)
	b := bl.export(t, bl.a)
	first := bl.firstSeq
	head := bl.l.Head().Seq
	badSig := func(f *bundleFile) {
		// Change the envelope and its CID everywhere: the hashes agree, the
		// signature does not.
		var env map[string]any
		if err := json.Unmarshal(f.Objects[0].JSON, &env); err != nil {
			t.Fatal(err)
		}
		env["timestamp"] = "2026-06-13T12:00:00.001Z"
		raw, _ := json.Marshal(env)
		canon, _ := negotiation.Canonicalize(raw)
		newCID := negotiation.CIDOf(canon).String()
		replaceEntry(t, f, 0, f.Objects[0].CID, newCID)
		f.Objects[0] = bundleObject{CID: newCID, JSON: canon}
	}
	cases := []struct {
		name string
		edit []byte
		seq  uint64
		code Code
	}{
		{"entry body changed", editBundle(t, b, false, func(f *bundleFile) { replaceEntry(t, f, 0, `"code":"ok"`, `"code":"terms_changed"`) }), head, CodeHeadMismatch},
		{"head changed", editBundle(t, b, false, func(f *bundleFile) { f.Head.Hash[0] ^= 1 }), head, CodeHeadMismatch},
		{"prev changed", editBundle(t, b, false, func(f *bundleFile) { f.Prev[5] ^= 1 }), head, CodeHeadMismatch},
		{"entry dropped", editBundle(t, b, false, func(f *bundleFile) { f.Entries = append(f.Entries[:2:2], f.Entries[3:]...) }), head, CodeHeadMismatch},
		{"entries swapped", editBundle(t, b, false, func(f *bundleFile) { f.Entries[1], f.Entries[2] = f.Entries[2], f.Entries[1] }), first + 1, CodeSeqMismatch},
		{"entry not JSON", editBundle(t, b, false, func(f *bundleFile) { f.Entries[3] = json.RawMessage(`"x"`) }), first + 3, CodeMalformedEntry},
		{"envelope bytes changed", editBundle(t, b, false, func(f *bundleFile) {
			f.Objects[1].JSON = json.RawMessage(strings.Replace(string(f.Objects[1].JSON), "Translate", "Translata", 1))
		}), first + 2, CodeObjectMismatch},
		{"envelope missing", editBundle(t, b, false, func(f *bundleFile) { f.Objects = f.Objects[1:] }), first, CodeObjectMissing},
		{"pruned without a retention entry", editBundle(t, b, false, func(f *bundleFile) { f.Pruned = []string{f.Objects[0].CID}; f.Objects = f.Objects[1:] }), first, CodeObjectMissing},
		{"extra object", editBundle(t, b, false, func(f *bundleFile) {
			f.Objects = append(f.Objects, bundleObject{CID: negotiation.CIDOf([]byte(`{}`)).String(), JSON: json.RawMessage(`{}`)})
		}), 0, CodeBadBundle},
		{"envelope signature (forged chain)", editBundle(t, b, true, badSig), first, CodeBadEnvelope},
		{"entry lies about the envelope (forged chain)", editBundle(t, b, true, func(f *bundleFile) { replaceEntry(t, f, 0, `"sequence":1`, `"sequence":2`) }), first, CodeBadEnvelope},
		{"anchor names another head (forged chain)", editBundle(t, b, true, func(f *bundleFile) {
			i := len(f.Entries) - 2
			s := string(f.Entries[i])
			k := strings.Index(s, `"head":"0x`) + len(`"head":"0x`)
			c := "0"
			if s[k] == '0' {
				c = "1"
			}
			f.Entries[i] = json.RawMessage(s[:k] + c + s[k+1:])
		}), head - 1, CodeHeadMismatch},
		{"wrong format", editBundle(t, b, false, func(f *bundleFile) { f.Format = "parley-proof-bundle/0" }), 0, CodeBadBundle},
		{"bad negotiation id", editBundle(t, b, false, func(f *bundleFile) { f.NegotiationID = "x" }), 0, CodeBadBundle},
		{"first entry of another negotiation", editBundle(t, b, false, func(f *bundleFile) { f.NegotiationID = bl.b }), first, CodeBadBundle},
		{"unknown member", []byte(strings.Replace(string(b), `"format"`, `"extra":1,"format"`, 1)), 0, CodeBadBundle},
		{"duplicate member", []byte(strings.Replace(string(b), `"format"`, `"from":1,"format"`, 1)), 0, CodeBadBundle},
		{"trailing data", append(append([]byte{}, b...), `{}`...), 0, CodeBadBundle},
		{"not JSON", []byte(`PK\x03\x04`), 0, CodeBadBundle},
		{"missing member", []byte(strings.Replace(string(b), `"pruned":[]`, `"x":[]`, 1)), 0, CodeBadBundle},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := VerifyBundle(bytes.NewReader(c.edit), BundleOptions{})
			var ve *VerifyError
			if !errors.As(err, &ve) || ve.Code != c.code || ve.Seq != c.seq {
				t.Fatalf("VerifyBundle = %v, want %s at %d", err, c.code, c.seq)
			}
		})
	}
	if _, err := VerifyBundle(bytes.NewReader(b), BundleOptions{MaxBytes: int64(len(b) - 1)}); CodeOf(err) != CodeBadBundle {
		t.Fatalf("oversize bundle: %v", err)
	}
	if _, err := VerifyBundle(bytes.NewReader(b), BundleOptions{MaxBytes: int64(len(b))}); err != nil {
		t.Fatalf("bundle at the size limit: %v", err)
	}
}

func TestBundleOfTamperedEnvelope(t *testing.T) {
	// An envelope that decodes but whose signature fails can be stored (the
	// ledger does not re-verify what the node passes it); the bundle check
	// catches it.
	l := open(t, testConfig(t, t.TempDir()))
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	env := poster.counter(t, nid(1), worker, "sig", 0)
	forged, err := negotiation.Decode(bytes.Replace(env.Bytes(), []byte("Translate"), []byte("Translata"), 1), negotiation.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.AppendEnvelope(t.Context(), KindEnvelopeReceived, forged, "", t0); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := l.Export(t.Context(), nid(1), &buf); err != nil {
		t.Fatal(err)
	}
	_, err = VerifyBundle(&buf, BundleOptions{})
	if CodeOf(err) != CodeBadEnvelope || !strings.Contains(err.Error(), "bad_signature") {
		t.Fatalf("VerifyBundle = %v, want bad_envelope (bad_signature)", err)
	}
}
