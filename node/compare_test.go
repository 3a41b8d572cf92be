package node_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// exportReport exports n's bundle of nid and verifies it.
func exportReport(t *testing.T, n *tnode, nid string) *ledger.BundleReport {
	t.Helper()
	var buf bytes.Buffer
	if _, err := n.Ledger().Export(t.Context(), nid, &buf); err != nil {
		t.Fatal(err)
	}
	rep, err := node.VerifyBundle(bytes.NewReader(buf.Bytes()), ledger.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestCompareBundles compares both parties' bundles of one agreed
// negotiation: they agree envelope by envelope; a second envelope the
// worker signs with the sequence of one it sent is an equivocation (both
// CIDs); an envelope of the poster missing from one bundle that holds a
// later one of the poster is an omission; the last envelope of a sender
// missing from one bundle is no evidence (that bundle ends earlier).
func TestCompareBundles(t *testing.T) {
	p := newPXPPair(t)
	if _, err := p.worker.Counter(t.Context(), p.nid, node.CounterSpec{Description: "both chapters"}); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateCountered)
	if _, err := p.poster.Accept(t.Context(), p.nid); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster's acceptance at the worker", func() bool {
		v, _ := p.worker.Thread(p.nid)
		return len(v.Log) == 3
	})
	if _, err := p.worker.Accept(t.Context(), p.nid); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateAgreed)
	eventually(t, "the worker's acceptance recorded", func() bool {
		v, _ := p.worker.Thread(p.nid)
		return v.State == negotiation.StateAgreed
	})
	a, b := exportReport(t, p.poster, p.nid), exportReport(t, p.worker, p.nid)
	cmp, err := node.CompareBundles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Agree || cmp.Same != 4 || len(cmp.OnlyA)+len(cmp.OnlyB) != 0 || len(cmp.Evidence) != 0 {
		t.Fatalf("both parties' bundles: %+v", cmp)
	}

	of := func(r *ledger.BundleReport, who negotiation.Address) []*negotiation.Envelope {
		var out []*negotiation.Envelope
		for _, e := range r.Envelopes {
			if e.Sender.EVMAddress == who {
				out = append(out, e)
			}
		}
		return out
	}
	without := func(r *ledger.BundleReport, drop *negotiation.Envelope) *ledger.BundleReport {
		c := *r
		c.Envelopes = slices.DeleteFunc(slices.Clone(r.Envelopes), func(e *negotiation.Envelope) bool { return e.CID() == drop.CID() })
		return &c
	}

	// Equivocation: the worker signs another envelope with its counter's
	// sequence.
	keys, err := identity.Open(keyConfig(p.worker.dir), testPass)
	if err != nil {
		t.Fatal(err)
	}
	counter := of(b, p.worker.Address())[0]
	var m map[string]any
	if err := json.Unmarshal(counter.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	m["timestamp"] = negotiation.FormatTime(counter.Timestamp.Add(1000000))
	text, _ := json.Marshal(m)
	signed, err := negotiation.Sign(text, keys.Inbox())
	if err != nil {
		t.Fatal(err)
	}
	forged, err := negotiation.Decode(signed, negotiation.DecodeOptions{})
	if err != nil || forged.Verify() != nil || forged.CID() == counter.CID() {
		t.Fatalf("forged envelope: %v", err)
	}
	fb := without(b, counter)
	fb.Envelopes = append(fb.Envelopes, forged)
	cmp, err = node.CompareBundles(a, fb)
	if err != nil {
		t.Fatal(err)
	}
	want := node.BundleEvidence{Kind: node.EvidenceEquivocation, Sender: p.worker.Address(), Sequence: counter.Sequence,
		A: []string{counter.CID().String()}, B: []string{forged.CID().String()}}
	if cmp.Agree || len(cmp.Evidence) != 1 || !evidenceEqual(cmp.Evidence[0], want) || cmp.Same != 3 {
		t.Fatalf("an equivocating worker: %+v, want %+v", cmp, want)
	}

	// Omission: the poster's first envelope is missing from the worker's
	// bundle, which holds the poster's acceptance.
	posters := of(b, p.poster.Address())
	cmp, err = node.CompareBundles(a, without(b, posters[0]))
	if err != nil {
		t.Fatal(err)
	}
	want = node.BundleEvidence{Kind: node.EvidenceOmitted, Sender: p.poster.Address(), Sequence: posters[0].Sequence,
		A: []string{posters[0].CID().String()}, B: []string{}, MissingFrom: "b", Later: posters[1].Sequence}
	if cmp.Agree || len(cmp.Evidence) != 1 || !evidenceEqual(cmp.Evidence[0], want) {
		t.Fatalf("an omitted envelope: %+v, want %+v", cmp, want)
	}
	// The same, the other way round.
	cmp, _ = node.CompareBundles(without(b, posters[0]), a)
	if len(cmp.Evidence) != 1 || cmp.Evidence[0].MissingFrom != "a" {
		t.Fatalf("an omitted envelope in a: %+v", cmp)
	}

	// A bundle that ends earlier: the worker's last envelope is missing.
	last := of(b, p.worker.Address())[1]
	cmp, err = node.CompareBundles(without(a, last), b)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Agree || !slices.Equal(cmp.OnlyB, []string{last.CID().String()}) || cmp.Same != 3 {
		t.Fatalf("a bundle that ends earlier: %+v", cmp)
	}

	other := *b
	other.NegotiationID = "00000000-0000-4000-8000-000000000000"
	if _, err := node.CompareBundles(a, &other); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("bundles of two negotiations: %v", err)
	}
}

func evidenceEqual(x, y node.BundleEvidence) bool {
	return x.Kind == y.Kind && x.Sender == y.Sender && x.Sequence == y.Sequence && slices.Equal(x.A, y.A) && slices.Equal(x.B, y.B) &&
		x.MissingFrom == y.MissingFrom && x.Later == y.Later
}

// joinedFromV2 checks that arb joined nid from a version-2 bundle one of
// the parties signed: its thread.joined entry names the bundle, a
// parley-proof-bundle/2 whose tree head a party's link signed, holding
// the negotiation's entries only.
func joinedFromV2(t *testing.T, arb *tnode, nid string, parties ...*tnode) {
	t.Helper()
	var joined struct {
		Bundle string `json:"bundle"`
		Format string `json:"format"`
	}
	var checked struct {
		Bundle string   `json:"bundle"`
		Code   string   `json:"code"`
		Checks []string `json:"checks"`
	}
	// The check on chain is recorded just after the join.
	eventually(t, "the arbitrator's bundle.checked entry", func() bool {
		for e, err := range arb.Ledger().ByNegotiation(t.Context(), nid) {
			if err != nil {
				t.Fatal(err)
			}
			switch e.Kind {
			case node.KindThreadJoined:
				if err := json.Unmarshal(e.Body, &joined); err != nil {
					t.Fatal(err)
				}
			case node.KindBundleChecked:
				if err := json.Unmarshal(e.Body, &checked); err != nil {
					t.Fatal(err)
				}
			}
		}
		return checked.Bundle != ""
	})
	if joined.Format != ledger.BundleFormatV2 {
		t.Fatalf("the arbitrator joined from a bundle of format %q", joined.Format)
	}
	// It held the bundle to the chain and recorded what it found.
	if checked.Bundle != joined.Bundle || checked.Code != "ok" || !slices.Contains(checked.Checks, node.CheckAnchorConsistency) {
		t.Fatalf("the arbitrator's check on chain of the bundle it joined from: %+v", checked)
	}
	raw, err := arb.File(t.Context(), mustCID(t, joined.Bundle))
	if err != nil {
		t.Fatal(err)
	}
	v, err := node.VerifyBundleWith(t.Context(), bytes.NewReader(raw), node.BundleVerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	signed := false
	for _, p := range parties {
		signed = signed || v.Signer.EVMAddress == [20]byte(p.Address())
	}
	if v.Report.Version != 2 || !signed {
		t.Fatalf("the bundle the arbitrator joined from: version %d, signed by %s", v.Report.Version, v.Signer.EVMAddress)
	}
	for _, e := range v.Report.Negotiation {
		if e.NegotiationID != nid {
			t.Fatalf("the bundle carries entry %d of %q", e.Seq, e.NegotiationID)
		}
	}
}
