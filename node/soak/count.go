package soak

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/parleynet/parley/ledger"
)

// CountEntries reads the ledger in dir (its node stopped) and fills, for
// every phase of rep whose target's ledger it is, the entries the phase
// wrote by kind and how many of them belong to the honest traffic: an
// honest announcement's entries (by its CID or its negotiation) and the
// entries of the negotiations its counters opened.
func CountEntries(ctx context.Context, rep *Report, target, dir string) error {
	cfg := ledger.DefaultConfig()
	cfg.Dir = dir
	cfg.ReadOnly = true
	cfg.Logger = slog.New(slog.DiscardHandler)
	l, err := ledger.New(cfg)
	if err != nil {
		return err
	}
	if err := l.Start(ctx); err != nil {
		return fmt.Errorf("soak: the %s's ledger: %w", target, err)
	}
	defer l.Close()
	cids, nids := rep.honest.honestSets()
	for _, ph := range rep.Phases {
		if ph.Target != target || ph.To <= ph.From {
			continue
		}
		ph.Entries = map[string]int{}
		for e, err := range l.Entries(ctx, ph.From+1) {
			if err != nil {
				return err
			}
			if e.Seq > ph.To {
				break
			}
			ph.Entries[e.Kind]++
			switch {
			case e.CID.Defined() && cids[e.CID.String()]:
				nids[e.NegotiationID] = true // the announcement's own negotiation
				ph.HonestEntries++
			case e.NegotiationID != "" && nids[e.NegotiationID]:
				ph.HonestEntries++
			}
		}
	}
	return nil
}
