package ledger

import "context"

// notifyAnchor wakes the anchor goroutine; a wake-up already pending
// absorbs this one.
func (l *Ledger) notifyAnchor() {
	if l.cfg.AnchorHook == nil || l.cfg.AnchorEvery == 0 {
		return
	}
	select {
	case l.anchorC <- struct{}{}:
	default:
	}
}

// anchorLoop calls the anchor hook with the latest head whenever it has
// advanced AnchorEvery entries since the last call. Heads that arrive while
// the hook runs are coalesced: the hook always sees the newest one.
func (l *Ledger) anchorLoop(ctx context.Context, last uint64) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.anchorC:
		}
		h := l.Head()
		if h.Seq < last+l.cfg.AnchorEvery {
			continue
		}
		l.cfg.AnchorHook(h.Hash, h.Seq)
		last = h.Seq
	}
}
