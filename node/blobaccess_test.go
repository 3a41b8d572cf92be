package node_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// hasRecord reports whether n's thread nid holds an envelope of type typ
// from sender.
func hasRecord(n *tnode, nid string, typ negotiation.MessageType, sender negotiation.Address) bool {
	v, err := n.Thread(nid)
	if err != nil {
		return false
	}
	for _, r := range v.Log {
		if r.Type == typ && r.Sender == sender && r.Code == "ok" {
			return true
		}
	}
	return false
}

// TestBlobServedToTheNomineeOnlyOnceBothAgreed: a delivered file is served
// over the blob protocol to the parties, and to an arbitrator only once
// both parties proposed it (docs/node.md, "Files"): the poster's nominee
// gets nothing from either node while the worker has not named it, a
// stranger never does, and once the worker names the same arbitrator the
// worker's node serves it.
func TestBlobServedToTheNomineeOnlyOnceBothAgreed(t *testing.T) {
	w, poster, worker, arb := threeNodes(t)
	stranger := w.add("stranger")
	nid := agree(t, poster, worker, eth(300))
	file := []byte("Glossary, letters A to M")
	c := mustCID(t, deliver(t, poster, worker, nid, 0, file))

	if _, err := poster.OpenDispute(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateDisputed)
	if _, err := poster.ProposeArbitrator(t.Context(), nid, arb.Address()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster's proposal at the worker", func() bool {
		return hasRecord(worker, nid, negotiation.TypeArbitratorProposal, poster.Address())
	})

	for _, n := range []*tnode{poster, worker} {
		if got, err := n.Blob(t.Context(), worker.Link(), c); err != nil || !bytes.Equal(got, file) {
			t.Fatalf("%s serves the delivery to the worker: %q, %v", n.name, got, err)
		}
		if got, err := n.Blob(t.Context(), poster.Link(), c); err != nil || !bytes.Equal(got, file) {
			t.Fatalf("%s serves the delivery to the poster: %q, %v", n.name, got, err)
		}
		// Named by the poster alone: not an arbitrator of this thread yet.
		if got, err := n.Blob(t.Context(), arb.Link(), c); !errors.Is(err, p2p.ErrNotFound) {
			t.Fatalf("%s serves the delivery to the poster's nominee before the worker agreed: %d bytes, %v", n.name, len(got), err)
		}
		if _, err := n.Blob(t.Context(), stranger.Link(), c); !errors.Is(err, p2p.ErrNotFound) {
			t.Fatalf("%s serves the delivery to a stranger: %v", n.name, err)
		}
	}

	if _, err := worker.ProposeArbitrator(t.Context(), nid, arb.Address()); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*tnode{worker, poster} {
		eventually(t, n.name+" to serve the delivery to the arbitrator both named", func() bool {
			got, err := n.Blob(t.Context(), arb.Link(), c)
			return err == nil && bytes.Equal(got, file)
		})
		if _, err := n.Blob(t.Context(), stranger.Link(), c); !errors.Is(err, p2p.ErrNotFound) {
			t.Fatalf("%s serves the delivery to a stranger: %v", n.name, err)
		}
	}
}
