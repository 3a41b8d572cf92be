package node

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// The rate at which this node publishes its own announcements is the
// transport's (p2p.Host.ReserveAnnouncement): the rate and burst every
// receiver's transport allows one publisher on the board, so that an
// announcement this node accepts to publish is not dropped by its
// receivers' limit.

// retryAfter is the cause of a rate_limited refusal: when to try again.
type retryAfter struct{ after time.Duration }

func (e *retryAfter) Error() string { return fmt.Sprintf("try again in %v", e.after) }

// RetryAfter returns how long the caller should wait before trying a
// refused act again (a rate_limited refusal), rounded up to whole seconds
// as HTTP's Retry-After; 0 when err says nothing of it.
func RetryAfter(err error) time.Duration {
	var e *retryAfter
	if !errors.As(err, &e) {
		return 0
	}
	return time.Duration(math.Ceil(e.after.Seconds())) * time.Second
}

// publishToken takes one announcement of this node from the board's
// rate (the transport's allowance, reserve), or refuses with rate_limited
// and the wait. A token taken for an announcement that then fails to be
// recorded is not given back: the next post waits a little longer.
func publishToken(reserve func() time.Duration) error {
	if wait := reserve(); wait > 0 {
		return &Error{Code: CodeRateLimited, Err: &retryAfter{after: wait}, Msg: fmt.Sprintf(
			"this node publishes announcements at most at the rate the other nodes take from one publisher; try again in %v",
			RetryAfter(&retryAfter{after: wait}))}
	}
	return nil
}

// protected reports whether b is never evicted: this node's own, or one a
// negotiation of this node answers.
func (b *boardEntry) protected() bool { return b.own || b.answered }

// boundedLocked reports whether b counts against the board's bounds and
// may be evicted to keep them: not protected, and not of a poster the
// principal allowed (b.mu held; an allowed poster is not bounded, as in
// consent, and its announcements are in the ledger). Stale announcements
// leave whoever posted them.
func (b *board) boundedLocked(e *boardEntry) bool {
	return !e.protected() && b.consent(e.env.Sender.EVMAddress) != ConsentAllowed
}

// stale reports whether b is past its deadline or older than maxAge.
func (b *boardEntry) stale(now time.Time, maxAge time.Duration) bool {
	p, ok := b.env.Payload.(*negotiation.TaskProposal)
	if ok && p.Terms.Deadline <= uint64(max(now.Unix(), 0)) {
		return true
	}
	return now.Sub(b.seen) >= maxAge
}

// pruneLocked evicts stale announcements (b.mu held).
func (b *board) pruneLocked(now time.Time) {
	for h, e := range b.entries {
		if !e.protected() && e.stale(now, b.cfg.MaxAge) {
			delete(b.entries, h)
		}
	}
}

// admitLocked makes room on the board for one more announcement of
// poster (b.mu held): it evicts the stale ones, then the poster's oldest
// beyond board.max_per_poster, then the oldest of all beyond
// board.max_total. This node's own announcements and those a negotiation
// of this node answers are never evicted and not counted: they are
// bounded by this node's own acts.
func (b *board) admitLocked(poster negotiation.Address, now time.Time) {
	b.pruneLocked(now)
	per, total := 0, 0
	var oldestOfPoster, oldest *boardEntry
	for _, e := range b.entries {
		if !b.boundedLocked(e) {
			continue
		}
		total++
		if e.env.Sender.EVMAddress == poster {
			per++
			if oldestOfPoster == nil || e.seen.Before(oldestOfPoster.seen) {
				oldestOfPoster = e
			}
		}
		if oldest == nil || e.seen.Before(oldest.seen) {
			oldest = e
		}
	}
	if per >= b.cfg.MaxPerPoster && oldestOfPoster != nil {
		delete(b.entries, oldestOfPoster.env.Hash())
		total--
		if oldest == oldestOfPoster {
			oldest = b.oldestBoundedLocked()
		}
	}
	if total >= b.cfg.MaxTotal && oldest != nil {
		delete(b.entries, oldest.env.Hash())
	}
}

func (b *board) oldestBoundedLocked() *boardEntry {
	var oldest *boardEntry
	for _, e := range b.entries {
		if b.boundedLocked(e) && (oldest == nil || e.seen.Before(oldest.seen)) {
			oldest = e
		}
	}
	return oldest
}

// restore bounds the board rebuilt from the ledger (at start, after the
// threads are loaded): the announcements a negotiation answers (answered)
// are marked, the stale ones evicted, then the oldest beyond the bounds.
func (b *board) restore(answered []negotiation.Hash, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, h := range answered {
		if e := b.entries[h]; e != nil {
			e.answered = true
		}
	}
	b.pruneLocked(now)
	others := make([]*boardEntry, 0, len(b.entries))
	for _, e := range b.entries {
		if !e.own {
			others = append(others, e)
		}
	}
	// Newest first: each is kept while its poster and the board have room.
	slices.SortFunc(others, func(x, y *boardEntry) int { return y.seen.Compare(x.seen) })
	per := map[negotiation.Address]int{}
	kept := 0
	for _, e := range others {
		p := e.env.Sender.EVMAddress
		switch {
		case !b.boundedLocked(e):
		case per[p] < b.cfg.MaxPerPoster && kept < b.cfg.MaxTotal:
			per[p]++
			kept++
		default:
			delete(b.entries, e.env.Hash())
		}
	}
}
