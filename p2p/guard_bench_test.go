package p2p

import (
	"context"
	"log/slog"
	"testing"

	"github.com/libp2p/go-libp2p/core/peer"
)

// BenchmarkGuardFrame is the guard's cost per frame of an identified
// peer within its budget: the identification check and the budget.
func BenchmarkGuardFrame(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	// A budget the loop cannot exhaust: this measures the bookkeeping.
	cfg.PeerFrameRate, cfg.PeerFrameBurst = 1e12, 1<<30
	cfg.PeerByteRate, cfg.PeerByteBurst = 1e15, 1<<50
	h := &Host{cfg: cfg, log: cfg.Logger, book: newPeerBook()}
	g := newGuard(h)
	h.guard = g
	p := peer.ID("bench peer")
	g.identified(p)
	ctx := context.Background()
	for b.Loop() {
		if !g.waitIdentified(ctx, p) || g.admitFrame(p, 2048) != "" {
			b.Fatal("refused")
		}
	}
}
