package p2p

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// TestInflightIsPerPeer: the bytes a peer's frames hold while they wait
// for their acks are one budget over all of its streams, so opening more
// streams holds no more of the node's memory; another peer has its own.
func TestInflightIsPerPeer(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	h := &Host{cfg: cfg, log: cfg.Logger, book: newPeerBook()}
	g := newGuard(h)
	h.guard = g
	p, q := peer.ID("peer p"), peer.ID("peer q")
	g.identified(p)
	g.identified(q)
	const limit = 1 << 20
	streams := []*byteBudget{g.inflight(p, limit), g.inflight(p, limit), g.inflight(p, limit)}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	took := 0
	for i := 0; ; i++ {
		if !streams[i%len(streams)].acquire(ctx, 64<<10) {
			break
		}
		took += 64 << 10
	}
	if took != limit {
		t.Fatalf("three streams of one peer held %d bytes waiting for acks, want %d in all", took, limit)
	}
	if !g.inflight(q, limit).acquire(t.Context(), 64<<10) {
		t.Fatal("another peer's frames were held by the first peer's budget")
	}
	streams[0].release(64 << 10)
	if !streams[2].acquire(t.Context(), 64<<10) {
		t.Fatal("an ack freed nothing for the peer's other streams")
	}
}
