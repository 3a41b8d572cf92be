package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// goldenV2Ledger is a small deterministic ledger (fixed clock, fixed keys):
// negotiation 1 with envelopes of both parties and a state change,
// interleaved with entries of negotiation 2 and of none, and a tree anchor
// at size 7.
func goldenV2Ledger(t *testing.T) *Ledger {
	t.Helper()
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	a, b := nid(1), nid(2)
	mustAppend(t, l, Record{Kind: KindCardSealed, Body: []byte(`{"card":"golden"}`)})
	if _, _, err := l.AppendEnvelope(ctx, KindEnvelopeSent, poster.counter(t, a, worker, "golden 1", 0), "", t0); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: b, Body: []byte(`{"event":"other"}`)})
	if _, _, err := l.AppendEnvelope(ctx, KindEnvelopeReceived, worker.counter(t, a, poster, "golden 2", 0), "", t0); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, Record{Kind: KindThreadState, NegotiationID: a, Body: []byte(`{"state":"negotiating"}`)})
	mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: b, Body: []byte(`{"event":"other 2"}`)})
	mustAppend(t, l, Record{Kind: KindEscalation, Body: []byte(`{"q":"none"}`)})
	if _, err := l.RecordTreeAnchor(ctx, testAnchor(t, l, 7)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.AppendEnvelope(ctx, KindEnvelopeSent, poster.counter(t, a, worker, "golden 3", 0), "", t0); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, Record{Kind: KindThreadState, NegotiationID: a, Body: []byte(`{"state":"agreed"}`)})
	mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: b, Body: []byte(`{"event":"other 3"}`)})
	return l
}

// TestBundleV2Golden pins two version-2 bundles in testdata for other
// implementations (scripts/ recomputes their proofs from RFC 6962 alone):
// bundle-v2.json at a head of size 6 (no anchor up to it) and
// bundle-v2-anchor.json at the full size 11 with the anchor of size 7 and
// its consistency proof. The tree head is signed with a fixed ed25519 key
// (newTestSigner("golden")); the signer member is a stand-in link object,
// not an identity link (the ledger cannot build one). -update rewrites
// them.
func TestBundleV2Golden(t *testing.T) {
	l := goldenV2Ledger(t)
	s := newTestSigner("golden")
	for _, c := range []struct {
		file   string
		size   uint64
		anchor bool
	}{{"bundle-v2.json", 6, false}, {"bundle-v2-anchor.json", 11, true}} {
		var buf bytes.Buffer
		if err := l.ExportV2(t.Context(), nid(1), s.head(t, l, c.size), s.link, &buf); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", c.file)
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("%s differs from the export (run with -update if the change is meant):\n%s", c.file, buf.Bytes())
		}
		rep, err := VerifyBundle(bytes.NewReader(want), BundleOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if rep.Version != 2 || rep.TreeHead.Size != c.size || (rep.Anchor != nil) != c.anchor {
			t.Fatalf("%s: version %d, size %d, anchor %v", c.file, rep.Version, rep.TreeHead.Size, rep.Anchor)
		}
		if c.anchor && rep.Anchor.Size != 7 {
			t.Fatalf("%s: anchor size %d", c.file, rep.Anchor.Size)
		}
	}
}
