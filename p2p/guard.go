package p2p

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/control"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"golang.org/x/time/rate"
)

// Admission limits that are not configuration (docs/p2p.md "Admission and
// budgets").
const (
	// maxPendingConns is how many connections one peer that has not
	// identified itself may hold (a simultaneous dial makes two).
	maxPendingConns = 2
	// maxUnidentifiedFrames is how many frames a peer may send on
	// /parley/envelope/1 before it identifies itself; an honest sender
	// sends one window and waits for its acks (unknown_link) and backs
	// off.
	maxUnidentifiedFrames = 256
	// strikeBurst is how many frames over its budget a peer may send
	// (each answered busy) before it is banned; strikeRate refills them.
	// An honest sender has at most one window in flight and backs off on
	// busy, so it spends at most a window per incident.
	strikeBurst = 256
	strikeRate  = 16
	// garbageMin and garbageWindow: a peer is banned once, within one
	// window, at least garbageMin of its frames were rejected as not
	// authentic and they are more than half of its frames.
	garbageMin    = 32
	garbageWindow = time.Minute
	// maxBans bounds the ban list; past it the bans closest to their end
	// are forgotten first.
	maxBans = 4096
	// guardSweep is how often the guard looks for peers past the
	// identification deadline.
	guardSweep = 250 * time.Millisecond
	// identifiedTag weighs identified peers in the connection manager:
	// trimmed after the unidentified ones (0), not protected.
	identifiedTag    = "parley/identified"
	identifiedWeight = 10
	// busyTag protects a peer while the outbox has a stream open to it:
	// a counterparty mid-exchange is never trimmed.
	busyTag = "parley/envelopes"
)

// bannedScore is the gossipsub application score of a banned peer: below
// the graylist threshold on its own.
const bannedScore = 2 * GraylistThreshold

// guard is the transport's admission control. It knows which connected
// peers completed the identity handshake, disconnects those that do not
// within IdentifyTimeout, keeps the inbound connections of unidentified
// peers within MaxUnidentified (evicting the oldest unknown one for a
// newcomer), spends each identified peer's budget of frames and bytes on
// /parley/envelope/1, and bans (disconnects, refuses through the
// connection gater, scores down on gossip) a peer that floods or sends
// mostly garbage. It is the Host's connmgr.ConnectionGater.
type guard struct {
	h *Host

	mu     sync.Mutex
	peers  map[peer.ID]*peerState
	banned map[peer.ID]banEntry
	kick   chan struct{}
	// busy counts the outbox's open envelope streams to each peer; the
	// connection manager protects a peer while it has one. bmu guards it
	// and orders the Protect and Unprotect calls.
	bmu  sync.Mutex
	busy map[peer.ID]int

	stats guardCounters
}

var _ connmgr.ConnectionGater = (*guard)(nil)

// peerState is what the guard knows about one connected peer.
type peerState struct {
	conns       map[string]network.Direction // open connections by id
	since       time.Time                    // when its first connection opened
	known       bool                         // a verified link for its peer id was known then
	identified  bool
	onlyInbound bool          // every connection it had so far came to us
	ready       chan struct{} // closed when identified
	closing     bool          // a disconnect was asked for

	frames, bytes, strikes *rate.Limiter
	inflight               *byteBudget // the peer's frames waiting for their ack, over all its streams
	unidentified           int         // frames answered unknown_link
	winStart               time.Time
	winFrames, winGarbage  int
}

type banEntry struct {
	until  time.Time
	reason string
}

// guardCounters count what the guard refused; GuardStats reads them.
type guardCounters struct {
	unidentifiedFrames atomic.Uint64
	overBudgetFrames   atomic.Uint64
	bans               atomic.Uint64
	refusedConns       atomic.Uint64
	lateClosed         atomic.Uint64
	evicted            atomic.Uint64
}

// GuardStats counts what the transport refused since Start (docs/p2p.md
// "Admission and budgets").
type GuardStats struct {
	// UnidentifiedFrames were answered unknown_link because their peer had
	// not completed the identity handshake (nothing else was done with them).
	UnidentifiedFrames uint64
	// OverBudgetFrames were answered busy because their peer was over its
	// budget of frames or bytes.
	OverBudgetFrames uint64
	// Bans counts peers banned: disconnected, refused for BanDuration and
	// scored below the graylist threshold.
	Bans uint64
	// RefusedConns counts connections the gater refused (a banned peer,
	// or too many connections from peers not identified).
	RefusedConns uint64
	// LateClosed counts peers disconnected because they did not identify
	// within IdentifyTimeout.
	LateClosed uint64
	// Evicted counts unidentified peers disconnected to make room for a
	// newcomer (over MaxUnidentified).
	Evicted uint64
}

func newGuard(h *Host) *guard {
	return &guard{h: h, peers: make(map[peer.ID]*peerState), banned: make(map[peer.ID]banEntry), kick: make(chan struct{}, 1)}
}

// GuardStats returns what the transport's admission control refused.
func (h *Host) GuardStats() GuardStats {
	s := &h.guard.stats
	return GuardStats{
		UnidentifiedFrames: s.unidentifiedFrames.Load(),
		OverBudgetFrames:   s.overBudgetFrames.Load(),
		Bans:               s.bans.Load(),
		RefusedConns:       s.refusedConns.Load(),
		LateClosed:         s.lateClosed.Load(),
		Evicted:            s.evicted.Load(),
	}
}

// Identified reports whether p is connected and completed the identity
// handshake on its connection.
func (h *Host) Identified(p peer.ID) bool {
	g := h.guard
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.peers[p]
	return st != nil && st.identified
}

// Banned reports whether p is banned now, and until when.
func (h *Host) Banned(p peer.ID) (time.Time, bool) {
	g := h.guard
	g.mu.Lock()
	defer g.mu.Unlock()
	b, ok := g.banned[p]
	if !ok || !h.now().Before(b.until) {
		return time.Time{}, false
	}
	return b.until, true
}

// stateLocked returns p's state, creating it (g.mu held).
func (g *guard) stateLocked(p peer.ID) *peerState {
	st := g.peers[p]
	if st == nil {
		st = &peerState{conns: make(map[string]network.Direction), since: g.h.now(), ready: make(chan struct{}), known: g.h.book.byPeerID(p) != nil, onlyInbound: true}
		g.peers[p] = st
	}
	return st
}

// inflight returns the budget of bytes p's frames may hold while they
// wait for their ack, shared by all of p's streams (max bytes), or a
// budget of the stream's own when the guard no longer knows p.
func (g *guard) inflight(p peer.ID, max int) *byteBudget {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.peers[p]
	if st == nil {
		return newByteBudget(max)
	}
	if st.inflight == nil {
		st.inflight = newByteBudget(max)
	}
	return st.inflight
}

// connected records a new connection; an unidentified inbound one may
// make room by evicting the oldest (the sweeper does it).
func (g *guard) connected(c network.Conn) {
	p := c.RemotePeer()
	g.mu.Lock()
	st := g.stateLocked(p)
	st.conns[c.ID()] = c.Stat().Direction
	if c.Stat().Direction != network.DirInbound {
		st.onlyInbound = false
	}
	pending := !st.identified
	g.mu.Unlock()
	if pending {
		g.wake()
	}
}

// disconnected forgets a closed connection, and the peer with its last.
func (g *guard) disconnected(c network.Conn) {
	p := c.RemotePeer()
	g.mu.Lock()
	st := g.peers[p]
	if st == nil {
		g.mu.Unlock()
		return
	}
	delete(st.conns, c.ID())
	gone := len(st.conns) == 0
	if gone {
		delete(g.peers, p)
	}
	_, banned := g.banned[p]
	g.mu.Unlock()
	if gone && st.identified {
		if cm := g.connManager(); cm != nil {
			cm.UntagPeer(p, identifiedTag)
		}
	}
	// A peer that came to us and never identified itself, or that was
	// banned, leaves nothing behind: go-libp2p keeps every peer's keys,
	// protocols and metadata until told otherwise, so a stream of
	// throw-away peers would grow the peerstore without bound.
	if gone && ((!st.identified && st.onlyInbound) || banned) && g.h.p2p != nil {
		ps := g.h.p2p.Peerstore()
		ps.RemovePeer(p)
		ps.ClearAddrs(p)
	}
	// A banned peer's identity link goes too: throw-away identities that
	// identify, misbehave and are banned would otherwise fill the book.
	if gone && banned {
		g.h.book.forget(p)
	}
}

// identified records that p completed the handshake: its frames are
// accepted from now on, within its budget, and the connection manager
// trims it only after the unidentified peers. It is not protected: a node
// that many peers meet (a bootstrap node, a DHT neighbour) would hold
// every one of them until its resource limits refused newcomers. Peers
// with an open envelope stream are (streamOpened).
func (g *guard) identified(p peer.ID) {
	g.mu.Lock()
	st := g.stateLocked(p)
	fresh := !st.identified
	if fresh {
		cfg := g.h.cfg
		st.identified = true
		close(st.ready)
		st.frames = rate.NewLimiter(rate.Limit(cfg.PeerFrameRate), cfg.PeerFrameBurst)
		st.bytes = rate.NewLimiter(rate.Limit(cfg.PeerByteRate), cfg.PeerByteBurst)
		st.strikes = rate.NewLimiter(strikeRate, strikeBurst)
		st.winStart = g.h.now()
	}
	g.mu.Unlock()
	if fresh {
		if cm := g.connManager(); cm != nil {
			cm.TagPeer(p, identifiedTag, identifiedWeight)
		}
	}
}

// streamOpened records an envelope stream the outbox opened to p; the
// connection manager protects p until the last one closes
// (streamClosed). The outbox keeps its stream to a recipient for a minute
// after its last envelope, so a counterparty stays connected while
// envelopes flow. Only this node's own sending protects a peer: a
// stranger's streams to it buy no protection (and no slot).
func (g *guard) streamOpened(p peer.ID) {
	g.bmu.Lock()
	defer g.bmu.Unlock()
	if g.busy == nil {
		g.busy = make(map[peer.ID]int)
	}
	g.busy[p]++
	if g.busy[p] == 1 {
		if cm := g.connManager(); cm != nil {
			cm.Protect(p, busyTag)
		}
	}
}

// streamClosed undoes one streamOpened.
func (g *guard) streamClosed(p peer.ID) {
	g.bmu.Lock()
	defer g.bmu.Unlock()
	if g.busy[p]--; g.busy[p] > 0 {
		return
	}
	delete(g.busy, p)
	if cm := g.connManager(); cm != nil {
		cm.Unprotect(p, busyTag)
	}
}

func (g *guard) connManager() connmgr.ConnManager {
	if g.h.p2p == nil {
		return nil
	}
	return g.h.p2p.ConnManager()
}

// waitIdentified waits until p has identified itself, at most half its
// identification time (IdentifyTimeout/2 after its first connection): a
// peer mid-handshake identifies within milliseconds, and a frame of a peer
// that does not is answered unknown_link well before the connection is
// closed at the full IdentifyTimeout (the two deadlines were one, and the
// close could win, leaving the sender without an answer).
func (g *guard) waitIdentified(ctx context.Context, p peer.ID) bool {
	g.mu.Lock()
	st := g.stateLocked(p)
	if st.identified {
		g.mu.Unlock()
		return true
	}
	ready, wait := st.ready, st.since.Add(g.h.cfg.IdentifyTimeout/2).Sub(g.h.now())
	g.mu.Unlock()
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ready:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// unidentifiedFrame counts a frame answered unknown_link; past
// maxUnidentifiedFrames the peer is banned and it returns false.
func (g *guard) unidentifiedFrame(p peer.ID) bool {
	g.stats.unidentifiedFrames.Add(1)
	g.mu.Lock()
	st := g.stateLocked(p)
	st.unidentified++
	over := st.unidentified > maxUnidentifiedFrames
	g.mu.Unlock()
	if over {
		g.ban(p, "unidentified_frames", maxUnidentifiedFrames, 0)
	}
	return !over
}

// admitFrame spends one frame of size bytes from p's budget. It returns ""
// when the frame is within it, CodeBusy when it is over (the peer retries
// later), and CodeClosed when the peer is over its strikes too and was
// banned.
func (g *guard) admitFrame(p peer.ID, size int) Code {
	now := g.h.now()
	g.mu.Lock()
	st := g.stateLocked(p)
	if !st.identified {
		g.mu.Unlock()
		return CodeUnknownLink
	}
	if now.Sub(st.winStart) > garbageWindow {
		st.winStart, st.winFrames, st.winGarbage = now, 0, 0
	}
	st.winFrames++
	if st.frames.AllowN(now, 1) && st.bytes.AllowN(now, min(size, st.bytes.Burst())) {
		g.mu.Unlock()
		return ""
	}
	struck := st.strikes.AllowN(now, 1)
	frames := st.winFrames
	g.mu.Unlock()
	g.stats.overBudgetFrames.Add(1)
	if !struck {
		g.ban(p, "over_budget", frames, 0)
		return CodeClosed
	}
	return CodeBusy
}

// rejected counts a frame of p's own that was rejected as not authentic;
// a peer whose frames are mostly garbage is banned (it returns false).
func (g *guard) rejected(p peer.ID) bool {
	g.mu.Lock()
	st := g.peers[p]
	if st == nil || !st.identified {
		g.mu.Unlock()
		return true
	}
	st.winGarbage++
	bad := st.winGarbage >= garbageMin && 2*st.winGarbage > st.winFrames
	frames, garbage := st.winFrames, st.winGarbage
	g.mu.Unlock()
	if bad {
		g.ban(p, "garbage", frames, garbage)
	}
	return !bad
}

// ban disconnects p, refuses its connections for BanDuration and scores
// it below the graylist threshold on gossip. One log line per ban.
func (g *guard) ban(p peer.ID, reason string, frames, garbage int) {
	now := g.h.now()
	g.mu.Lock()
	if b, ok := g.banned[p]; ok && now.Before(b.until) {
		g.mu.Unlock()
		return // banned already; its connections are closing
	}
	if g.h.cfg.BanDuration > 0 {
		g.banned[p] = banEntry{until: now.Add(g.h.cfg.BanDuration), reason: reason}
		g.pruneBansLocked(now)
	}
	if st := g.peers[p]; st != nil {
		st.closing = true
	}
	g.mu.Unlock()
	g.stats.bans.Add(1)
	g.h.log.Warn("peer banned", "peer", p, "reason", reason, "frames", frames, "garbage", garbage, "for", g.h.cfg.BanDuration)
	g.h.go1(func(context.Context) { _ = g.h.p2p.Network().ClosePeer(p) })
}

// pruneBansLocked forgets ended bans and, over maxBans, the ones closest
// to their end (g.mu held).
func (g *guard) pruneBansLocked(now time.Time) {
	if len(g.banned) <= maxBans {
		return
	}
	for p, b := range g.banned {
		if !now.Before(b.until) {
			delete(g.banned, p)
		}
	}
	for len(g.banned) > maxBans {
		var first peer.ID
		var at time.Time
		for p, b := range g.banned {
			if first == "" || b.until.Before(at) {
				first, at = p, b.until
			}
		}
		delete(g.banned, first)
	}
}

// isBanned reports whether p is banned at now.
func (g *guard) isBanned(p peer.ID) bool {
	now := g.h.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	b, ok := g.banned[p]
	if ok && !now.Before(b.until) {
		delete(g.banned, p)
		return false
	}
	return ok
}

// appScore is gossipsub's application-specific score: a banned peer
// falls below the graylist threshold.
func (g *guard) appScore(p peer.ID) float64 {
	if g.isBanned(p) {
		return bannedScore
	}
	return 0
}

// InterceptPeerDial refuses to dial a banned peer.
func (g *guard) InterceptPeerDial(p peer.ID) bool {
	if g.isBanned(p) {
		g.stats.refusedConns.Add(1)
		return false
	}
	return true
}

// InterceptAddrDial allows every address (the peer was checked).
func (g *guard) InterceptAddrDial(peer.ID, ma.Multiaddr) bool { return true }

// InterceptAccept allows every inbound connection until its peer is known.
func (g *guard) InterceptAccept(network.ConnMultiaddrs) bool { return true }

// InterceptSecured refuses a banned peer, an unidentified peer's third
// connection, and new inbound connections while peers that have not
// identified themselves hold twice MaxUnidentified (the sweeper evicts
// down to MaxUnidentified as they come, so this is a backstop).
func (g *guard) InterceptSecured(dir network.Direction, p peer.ID, _ network.ConnMultiaddrs) bool {
	if g.isBanned(p) {
		g.stats.refusedConns.Add(1)
		return false
	}
	if dir != network.DirInbound {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.peers[p]; st != nil {
		if st.identified {
			return true
		}
		if len(st.conns) >= maxPendingConns {
			g.stats.refusedConns.Add(1)
			return false
		}
	}
	if g.pendingInboundLocked() >= 2*g.h.cfg.MaxUnidentified {
		g.stats.refusedConns.Add(1)
		return false
	}
	return true
}

// InterceptUpgraded allows every upgraded connection.
func (g *guard) InterceptUpgraded(network.Conn) (bool, control.DisconnectReason) { return true, 0 }

// pendingInboundLocked counts the inbound connections of peers that have
// not identified themselves and are not being closed (g.mu held).
func (g *guard) pendingInboundLocked() int {
	n := 0
	for _, st := range g.peers {
		if st.identified || st.closing {
			continue
		}
		for _, d := range st.conns {
			if d == network.DirInbound {
				n++
			}
		}
	}
	return n
}

func (g *guard) wake() {
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// sweep disconnects peers past their identification deadline and evicts
// the oldest unidentified inbound peers over MaxUnidentified (unknown
// peer ids first), on every new connection and every guardSweep.
func (g *guard) sweep(ctx context.Context) {
	t := time.NewTicker(guardSweep)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-g.kick:
		}
		late, evict := g.due()
		for _, p := range late {
			_ = g.h.p2p.Network().ClosePeer(p)
		}
		for _, p := range evict {
			_ = g.h.p2p.Network().ClosePeer(p)
		}
		if len(late)+len(evict) > 0 {
			g.stats.lateClosed.Add(uint64(len(late)))
			g.stats.evicted.Add(uint64(len(evict)))
			g.h.log.Info("unidentified peers disconnected", "late", len(late), "evicted", len(evict), "deadline", g.h.cfg.IdentifyTimeout)
		}
	}
}

// due picks the peers to disconnect now and marks them closing.
func (g *guard) due() (late, evict []peer.ID) {
	now := g.h.now()
	var unprotect []peer.ID
	defer func() {
		if cm := g.connManager(); cm != nil {
			for _, p := range unprotect {
				cm.UntagPeer(p, identifiedTag)
			}
		}
	}()
	g.mu.Lock()
	defer g.mu.Unlock()
	type cand struct {
		p     peer.ID
		st    *peerState
		conns int
	}
	var pending []cand
	inbound := 0
	for p, st := range g.peers {
		if len(st.conns) == 0 && now.Sub(st.since) >= g.h.cfg.IdentifyTimeout {
			// Made for a stream or a handshake that outlived its
			// connection: nothing will report its end.
			delete(g.peers, p)
			if st.identified {
				unprotect = append(unprotect, p)
			}
			continue
		}
		if st.identified || st.closing {
			continue
		}
		if now.Sub(st.since) >= g.h.cfg.IdentifyTimeout {
			st.closing = true
			late = append(late, p)
			continue
		}
		n := 0
		for _, d := range st.conns {
			if d == network.DirInbound {
				n++
			}
		}
		if n > 0 {
			pending = append(pending, cand{p, st, n})
			inbound += n
		}
	}
	if inbound <= g.h.cfg.MaxUnidentified {
		return late, nil
	}
	// Unknown peer ids first, oldest first: a returning counterparty is
	// the last to make room.
	slices.SortFunc(pending, func(a, b cand) int {
		if a.st.known != b.st.known {
			if a.st.known {
				return 1
			}
			return -1
		}
		return a.st.since.Compare(b.st.since)
	})
	for _, c := range pending {
		if inbound <= g.h.cfg.MaxUnidentified {
			break
		}
		c.st.closing = true
		evict = append(evict, c.p)
		inbound -= c.conns
	}
	return late, evict
}
