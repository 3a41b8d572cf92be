package p2p

import (
	"bufio"
	"context"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// ProtocolIdentity is the identity handshake: each side sends its identity
// link (uvarint length + JCS bytes) and verifies the other's.
const ProtocolIdentity protocol.ID = "/parley/identity/1"

// maxLinkBytes bounds a link on the wire.
const maxLinkBytes = 64 << 10

// identifyTimeout bounds one identity exchange (the guard disconnects a
// peer that has not identified within Config.IdentifyTimeout anyway).
const identifyTimeout = 15 * time.Second

// peerBook holds the verified identity links this node knows, by peer id
// and by EVM address. A newer link for an address replaces an older one.
type peerBook struct {
	mu     sync.RWMutex
	byPeer map[peer.ID]*identity.Link
	byAddr map[negotiation.Address]*identity.Link
}

func newPeerBook() *peerBook {
	return &peerBook{byPeer: make(map[peer.ID]*identity.Link), byAddr: make(map[negotiation.Address]*identity.Link)}
}

// put records a verified link; it keeps the newer of two links for the
// same address and reports whether the address's link changed.
func (b *peerBook) put(l *identity.Link) bool {
	addr := negotiation.Address(l.EVMAddress)
	b.mu.Lock()
	defer b.mu.Unlock()
	if old, ok := b.byAddr[addr]; ok && (old == l || old.Hash() == l.Hash() || old.IssuedAt.After(l.IssuedAt)) {
		return false
	}
	if old, ok := b.byAddr[addr]; ok && old.PeerID != l.PeerID {
		delete(b.byPeer, old.PeerID)
	}
	b.byAddr[addr] = l
	b.byPeer[l.PeerID] = l
	return true
}

// forget drops the link of peer id p, if it is the one its address holds.
func (b *peerBook) forget(p peer.ID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.byPeer[p]
	if l == nil {
		return
	}
	delete(b.byPeer, p)
	if a := negotiation.Address(l.EVMAddress); b.byAddr[a] == l {
		delete(b.byAddr, a)
	}
}

func (b *peerBook) byAddress(a negotiation.Address) *identity.Link {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.byAddr[a]
}

func (b *peerBook) byPeerID(p peer.ID) *identity.Link {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.byPeer[p]
}

// AddPeer records a peer's identity link (verified at now) and, when addrs
// are given, where to dial it. Links also arrive by the identity handshake,
// in session inits and from the DHT.
func (h *Host) AddPeer(l *identity.Link, addrs []peer.AddrInfo) error {
	if err := l.Verify(h.cfg.Clock()); err != nil {
		return err
	}
	h.learn(l)
	for _, ai := range addrs {
		if h.p2p != nil && ai.ID == l.PeerID {
			h.p2p.Peerstore().AddAddrs(ai.ID, ai.Addrs, time.Hour)
		}
	}
	return nil
}

// Link returns the verified identity link known for an EVM address.
func (h *Host) Link(a negotiation.Address) (*identity.Link, bool) {
	l := h.book.byAddress(a)
	return l, l != nil
}

// PeerLink returns the verified identity link known for a peer id.
func (h *Host) PeerLink(p peer.ID) (*identity.Link, bool) {
	l := h.book.byPeerID(p)
	return l, l != nil
}

// learn records a verified link; a new link wakes the delivery queue of
// its address.
func (h *Host) learn(l *identity.Link) {
	if l.PeerID == h.cfg.Inbox.PeerID() {
		return
	}
	if h.book.put(l) {
		h.out.wake(negotiation.Address(l.EVMAddress))
	}
}

// handleIdentity answers the handshake: read the peer's link, verify it,
// answer with this node's link.
func (h *Host) handleIdentity(s network.Stream) {
	defer s.Close()
	_ = s.SetDeadline(time.Now().Add(identifyTimeout))
	remote := s.Conn().RemotePeer()
	b, err := readMsg(bufio.NewReader(s), maxLinkBytes)
	if err != nil {
		_ = s.Reset()
		return
	}
	if !h.acceptLink(remote, b) {
		_ = s.Reset()
		return
	}
	if err := writeMsg(s, h.cfg.Link().Bytes()); err != nil {
		_ = s.Reset()
	}
}

// identify runs the handshake as the initiator on a new outbound
// connection.
func (h *Host) identify(ctx context.Context, p peer.ID) {
	ctx, cancel := context.WithTimeout(ctx, identifyTimeout)
	defer cancel()
	s, err := h.p2p.NewStream(network.WithAllowLimitedConn(ctx, "identity"), p, ProtocolIdentity)
	if err != nil {
		h.log.Debug("identity stream failed", "peer", p, "err", err)
		return
	}
	defer s.Close()
	_ = s.SetDeadline(time.Now().Add(identifyTimeout))
	if err := writeMsg(s, h.cfg.Link().Bytes()); err != nil {
		_ = s.Reset()
		return
	}
	if err := s.CloseWrite(); err != nil {
		_ = s.Reset()
		return
	}
	b, err := readMsg(bufio.NewReader(s), maxLinkBytes)
	if err != nil {
		_ = s.Reset()
		return
	}
	h.acceptLink(p, b)
}

// decodeLink decodes and verifies a link remote presented. The very link
// this node verified for remote before (a reconnect, a re-dial after a
// closed connection) is checked again only for its times: the parse and
// the two signature checks were most of a handshake's cost, 10% of a
// large simulation's CPU.
func (h *Host) decodeLink(remote peer.ID, b []byte) (*identity.Link, error) {
	now := h.cfg.Clock()
	if known := h.book.byPeerID(remote); known != nil {
		if same, err := known.Reverify(b, now); same || err != nil {
			return known, err
		}
	}
	return identity.DecodeLink(b, now)
}

// acceptLink verifies a link received from remote; a link that fails, or
// that names another peer id than remote, disconnects the peer and is
// reported.
func (h *Host) acceptLink(remote peer.ID, b []byte) bool {
	l, err := h.decodeLink(remote, b)
	code := CodeOf(err)
	if err == nil && l.PeerID != remote {
		code = Code(identity.CodePeerIDMismatch)
	}
	if code != "" || err != nil {
		if code == "" {
			code = Code(identity.CodeMalformed)
		}
		h.log.Info("peer link rejected", "peer", remote, "code", code)
		h.emit(Event{Kind: EventPeerRejected, Peer: remote, Code: code, Hash: sha256Sum(b), Size: len(b)})
		_ = h.p2p.Network().ClosePeer(remote)
		return false
	}
	h.learn(l)
	// Its frames are accepted from now on (within its budget).
	h.guard.identified(remote)
	// A peer that (re)connected and identified itself is reachable now:
	// whatever waits for it is due.
	h.out.wake(negotiation.Address(l.EVMAddress))
	h.log.Debug("peer verified", "peer", remote, "evm", l.EVMAddress)
	h.emit(Event{Kind: EventPeerVerified, Peer: remote, To: negotiation.Address(l.EVMAddress), Code: CodeOK})
	return true
}
