package node

import (
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
// recorded.
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
	close(release)
	if err := <-anchored; err != nil {
		t.Fatal(err)
	}
	ta, _, err := l.LatestTreeAnchor(t.Context(), l.Head().Seq)
	if err != nil || ta.Size != 8 {
		t.Fatalf("recorded anchor %+v (%v), want the head of size 8", ta, err)
	}
}
