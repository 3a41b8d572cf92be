package node

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// TestSigningDoesNotWaitForAnAnchor: while an anchor waits for its
// transaction's receipt (held here, as a slow chain holds it), the node
// still signs tree heads (the API, p2p answers and a bundle's export under
// a thread's lock ask for one), and the anchor then completes and is
// recorded; a bundle's export waits for it, so that the bundle proves
// the newest anchor on chain.
func TestSigningDoesNotWaitForAnAnchor(t *testing.T) {
	w := newAnchorWorld(t)
	l := testLedger(t, 8, "anchored")
	heads := newTreeHeads(LedgerConfig{AnchorGasPerDay: 5_000_000}, time.Now, newBroadcaster())
	heads.open(l, w.keys.Inbox(), w.keys.Link, w.node, slog.New(slog.DiscardHandler))
	waiting, release := make(chan struct{}), make(chan struct{})
	heads.send = func(ctx context.Context, root [32]byte, size uint64) (*types.Receipt, error) {
		close(waiting)
		<-release
		return w.node.Anchor(ctx, root, size)
	}
	anchored := make(chan error, 1)
	go func() {
		_, _, err := heads.anchor(t.Context(), anchorDemand)
		anchored <- err
	}()
	<-waiting
	appendEntries(t, l, 3, "while the anchor waits")
	size := l.Head().Seq
	signed := make(chan error, 1)
	go func() {
		h, _, err := heads.Head(t.Context())
		if err == nil && h.Size != size {
			t.Errorf("signed head of size %d, the ledger held %d", h.Size, size)
		}
		signed <- err
	}()
	select {
	case err := <-signed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("signing a tree head waited for the anchor's receipt")
	}
	// A bundle's export waits for the anchor in flight, so that it proves
	// the signer's newest anchor on chain.
	var bundle bytes.Buffer
	exported := make(chan error, 1)
	go func() {
		_, err := heads.export(t.Context(), bundleNID, &bundle)
		exported <- err
	}()
	select {
	case err := <-exported:
		t.Fatalf("a bundle was exported while an anchor was in flight (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-anchored; err != nil {
		t.Fatal(err)
	}
	ta, _, err := l.LatestTreeAnchor(t.Context(), l.Head().Seq)
	if err != nil || ta.Size != 8 {
		t.Fatalf("recorded anchor %+v (%v), want the head of size 8", ta, err)
	}
	if err := <-exported; err != nil {
		t.Fatal(err)
	}
	v, err := VerifyBundleWith(t.Context(), &bundle, BundleVerifyOptions{Chain: w.node})
	if err != nil || v.Report.Anchor == nil || v.Report.Anchor.Size != 8 {
		t.Fatalf("the bundle exported after the anchor: %+v (%v)", v, err)
	}
}
