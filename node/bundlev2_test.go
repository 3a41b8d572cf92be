package node_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// checkMinimalV2 checks that raw is a version-2 proof bundle of nid that
// node.VerifyBundle accepts, whose entries are all of nid, and whose bytes
// name none of the negotiations others (their entries, ids or objects).
func checkMinimalV2(t *testing.T, what string, raw []byte, nid string, others ...string) *ledger.BundleReport {
	t.Helper()
	rep, err := node.VerifyBundle(bytes.NewReader(raw), ledger.BundleOptions{})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if rep.Version != 2 || rep.TreeHead == nil || rep.NegotiationID != nid {
		t.Fatalf("%s: version %d, tree head %v, negotiation %s (want 2, a head, %s)", what, rep.Version, rep.TreeHead, rep.NegotiationID, nid)
	}
	var b struct {
		Entries []struct {
			Entry struct {
				NegotiationID string `json:"negotiationId"`
			} `json:"entry"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(b.Entries) == 0 || len(b.Entries) != len(rep.Negotiation) {
		t.Fatalf("%s: %d entries, %d of the negotiation", what, len(b.Entries), len(rep.Negotiation))
	}
	for i, e := range b.Entries {
		if e.Entry.NegotiationID != nid {
			t.Fatalf("%s: entry %d is of negotiation %q, not %s", what, i, e.Entry.NegotiationID, nid)
		}
	}
	for _, o := range others {
		if bytes.Contains(raw, []byte(o)) {
			t.Fatalf("%s names the other negotiation %s", what, o)
		}
	}
	return rep
}

// joinedBundle returns the bundle n joined negotiation nid from: the one
// its thread.joined entry names, as n stored it.
func joinedBundle(t *testing.T, n *tnode, nid string) []byte {
	t.Helper()
	for e, err := range n.Ledger().ByNegotiation(t.Context(), nid) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != node.KindThreadJoined {
			continue
		}
		var b struct {
			Bundle string `json:"bundle"`
			Format string `json:"format"`
		}
		if err := json.Unmarshal(e.Body, &b); err != nil {
			t.Fatal(err)
		}
		if b.Format != ledger.BundleFormatV2 {
			t.Fatalf("%s joined %s from a bundle of format %q", n.name, nid, b.Format)
		}
		c, err := cid.Decode(b.Bundle)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := n.Ledger().Object(t.Context(), c)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	t.Fatalf("%s holds no thread.joined of %s", n.name, nid)
	return nil
}

// TestExportIsVersion2: the node's export (the API's GET
// /v1/negotiations/{id}/bundle) is a version-2 bundle of the negotiation
// alone, though another negotiation's entries lie between its own; an
// unknown negotiation is ledger.ErrNotFound and signs no head.
func TestExportIsVersion2(t *testing.T) {
	w := newWorld(t, true)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Build a glossary", eth(300)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	other, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Index the glossary", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, 2)

	var buf bytes.Buffer
	head, err := poster.Export(t.Context(), nid, &buf)
	if err != nil {
		t.Fatal(err)
	}
	rep := checkMinimalV2(t, "the poster's export", buf.Bytes(), nid, other.Thread.NegotiationID)
	if th := rep.TreeHead; th.Size != head.Size || th.Root != head.Root || th.Signer != head.Signer || !bytes.Equal(th.Signature, head.Signature) {
		t.Fatalf("the export's head %+v, the bundle's %+v", head, *rep.TreeHead)
	}
	if len(rep.Envelopes) != 2 {
		t.Fatalf("the bundle holds %d envelopes, want the proposal and the acceptance", len(rep.Envelopes))
	}

	size := poster.Ledger().Head().Seq
	if _, err := poster.Export(t.Context(), "00000000-0000-4000-8000-000000000000", &buf); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("the export of an unknown negotiation: %v", err)
	}
	if got := poster.Ledger().Head().Seq; got != size {
		t.Fatalf("the export of an unknown negotiation wrote %d entries", got-size)
	}
}

// handoffCIDOf returns the CID (raw codec, sha2-256) a hand-over package
// of bytes raw is named by.
func handoffCIDOf(raw []byte) (string, error) {
	c, err := cid.V1Builder{Codec: cid.Raw, MhType: multihash.SHA2_256}.Sum(raw)
	return c.String(), err
}
