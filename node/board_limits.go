package node

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// boardLimits are the task board's bounds (Config.Board). The rate at
// which this node publishes its own announcements is the transport's
// (p2p.Host.ReserveAnnouncement): the rate and burst every receiver's
// transport allows one publisher on the board, so that an announcement
// this node accepts to publish is not dropped by its receivers' limit.
type boardLimits struct {
	cfg BoardConfig
}

func newBoardLimits(cfg BoardConfig) *boardLimits { return &boardLimits{cfg: cfg} }

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
// rate (the transport's allowance), or refuses with rate_limited and the
// wait. A token taken for an announcement that then fails to be recorded
// is not given back: the next post waits a little longer.
func (n *Node) publishToken() error {
	if wait := n.host.ReserveAnnouncement(); wait > 0 {
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
// principal allowed (n.tmu held; an allowed poster is not bounded, as in
// consent, and its announcements are in the ledger). Stale announcements
// leave whoever posted them.
func (n *Node) boundedLocked(b *boardEntry) bool {
	return !b.protected() && n.consentOf(b.env.Sender.EVMAddress) != ConsentAllowed
}

// stale reports whether b is past its deadline or older than maxAge.
func (b *boardEntry) stale(now time.Time, maxAge time.Duration) bool {
	p, ok := b.env.Payload.(*negotiation.TaskProposal)
	if ok && p.Terms.Deadline <= uint64(max(now.Unix(), 0)) {
		return true
	}
	return now.Sub(b.seen) >= maxAge
}

// pruneBoardLocked evicts stale announcements (n.tmu held).
func (n *Node) pruneBoardLocked(now time.Time) {
	for h, b := range n.board {
		if !b.protected() && b.stale(now, n.cfg.Board.MaxAge) {
			delete(n.board, h)
		}
	}
}

// admitLocked makes room on the board for one more announcement of
// poster (n.tmu held): it evicts the stale ones, then the poster's oldest
// beyond board.max_per_poster, then the oldest of all beyond
// board.max_total. This node's own announcements and those a negotiation
// of this node answers are never evicted and not counted: they are
// bounded by this node's own acts.
func (n *Node) admitLocked(poster negotiation.Address, now time.Time) {
	n.pruneBoardLocked(now)
	per, total := 0, 0
	var oldestOfPoster, oldest *boardEntry
	for _, b := range n.board {
		if !n.boundedLocked(b) {
			continue
		}
		total++
		if b.env.Sender.EVMAddress == poster {
			per++
			if oldestOfPoster == nil || b.seen.Before(oldestOfPoster.seen) {
				oldestOfPoster = b
			}
		}
		if oldest == nil || b.seen.Before(oldest.seen) {
			oldest = b
		}
	}
	if per >= n.cfg.Board.MaxPerPoster && oldestOfPoster != nil {
		delete(n.board, oldestOfPoster.env.Hash())
		total--
		if oldest == oldestOfPoster {
			oldest = n.oldestUnprotectedLocked()
		}
	}
	if total >= n.cfg.Board.MaxTotal && oldest != nil {
		delete(n.board, oldest.env.Hash())
	}
}

func (n *Node) oldestUnprotectedLocked() *boardEntry {
	var oldest *boardEntry
	for _, b := range n.board {
		if n.boundedLocked(b) && (oldest == nil || b.seen.Before(oldest.seen)) {
			oldest = b
		}
	}
	return oldest
}

// loadBoard bounds the board rebuilt from the ledger (at start, after the
// threads are loaded): the announcements a negotiation answers are
// marked, the stale ones evicted, then the oldest beyond the bounds.
func (n *Node) loadBoard() {
	n.tmu.Lock()
	defer n.tmu.Unlock()
	for _, t := range n.eng.All() {
		if a := t.Params.Announcement; a != nil {
			if b := n.board[a.Hash()]; b != nil {
				b.answered = true
			}
		}
	}
	now := n.now()
	n.pruneBoardLocked(now)
	others := make([]*boardEntry, 0, len(n.board))
	for _, b := range n.board {
		if !b.own {
			others = append(others, b)
		}
	}
	// Newest first: each is kept while its poster and the board have room.
	slices.SortFunc(others, func(a, b *boardEntry) int { return b.seen.Compare(a.seen) })
	per := map[negotiation.Address]int{}
	kept := 0
	for _, b := range others {
		p := b.env.Sender.EVMAddress
		switch {
		case !n.boundedLocked(b):
		case per[p] < n.cfg.Board.MaxPerPoster && kept < n.cfg.Board.MaxTotal:
			per[p]++
			kept++
		default:
			delete(n.board, b.env.Hash())
		}
	}
}
