package p2p

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"
	relayv2 "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
)

// Reachability is how other nodes can reach this one, as go-libp2p's
// AutoNAT (or Config.Reachability) concluded.
type Reachability string

// The reachabilities a Host reports.
const (
	// ReachUnknown: nothing concluded yet (always so on loopback, where
	// AutoNAT has no public address to test, and with few peers).
	ReachUnknown Reachability = "unknown"
	// ReachPublic: peers can dial this node's addresses.
	ReachPublic Reachability = "public"
	// ReachPrivate: behind NAT or a firewall, without a relay address.
	ReachPrivate Reachability = "private"
	// ReachRelayed: private, and it advertises a circuit relay address.
	ReachRelayed Reachability = "relayed"
)

// Path is how a connection reaches its peer.
type Path string

// The paths of a connection.
const (
	PathDirect  Path = "direct"  // a direct TCP or QUIC connection
	PathRelayed Path = "relayed" // through a circuit relay (/p2p-circuit)
	PathStore   Path = "store"   // left with a store node (Event.Path of EventHeld)
)

// ConnInfo is one open connection of the host.
type ConnInfo struct {
	// Peer is the remote peer id.
	Peer string `json:"peerId"`
	// Addr is the remote multiaddr of the connection.
	Addr string `json:"addr"`
	// Path is direct or relayed.
	Path Path `json:"path"`
	// Direction is inbound (the peer dialled) or outbound.
	Direction string `json:"direction"`
	// Limited is set on a relayed connection the relay bounds in time or
	// bytes (go-libp2p's limited connections).
	Limited bool `json:"limited,omitempty"`
}

// NetStatus is the host's reachability, its addresses and its open
// connections at one moment.
type NetStatus struct {
	// Reachability is public, private, relayed or unknown.
	Reachability Reachability `json:"reachability"`
	// Listen are the addresses the host listens on (ports resolved).
	Listen []string `json:"listen"`
	// Announced are the addresses the host advertises to peers (identify,
	// DHT records), with /p2p/<peer id>: Config.Announce where set, and
	// the circuit addresses of its relays.
	Announced []string `json:"announced"`
	// Observed are the node's public addresses as identified peers
	// reported them (identify's observed address, the newest
	// maxObserved), without /p2p/: behind NAT, the router's mapping, which
	// hole punching offers the peer. Omitted when none.
	Observed []string `json:"observed,omitempty"`
	// Peers are the open connections, by peer id.
	Peers []ConnInfo `json:"peers"`
	// Direct and Relayed count Peers by path.
	Direct  int `json:"direct"`
	Relayed int `json:"relayed"`
}

// Net returns the host's NetStatus; the zero NetStatus (reachability
// unknown) before Start.
func (h *Host) Net() NetStatus {
	s := NetStatus{Reachability: ReachUnknown, Listen: []string{}, Announced: []string{}, Peers: []ConnInfo{}}
	p := h.Libp2p()
	if p == nil {
		return s
	}
	for _, a := range p.Network().ListenAddresses() {
		s.Listen = append(s.Listen, a.String())
	}
	announced := h.Addrs()
	for _, a := range announced {
		s.Announced = append(s.Announced, a.String())
	}
	s.Reachability = reachabilityOf(network.Reachability(h.reach.Load()), announced)
	s.Observed = h.observed.list()
	for _, c := range p.Network().Conns() {
		ci := ConnInfo{Peer: c.RemotePeer().String(), Addr: c.RemoteMultiaddr().String(), Path: connPath(c), Direction: c.Stat().Direction.String(), Limited: c.Stat().Limited}
		if ci.Path == PathRelayed {
			s.Relayed++
		} else {
			s.Direct++
		}
		ci.Direction = strings.ToLower(ci.Direction)
		s.Peers = append(s.Peers, ci)
	}
	slices.SortFunc(s.Peers, func(a, b ConnInfo) int { return strings.Compare(a.Peer+a.Addr, b.Peer+b.Addr) })
	return s
}

// reachabilityOf names r, and private with a circuit address as relayed.
func reachabilityOf(r network.Reachability, addrs []ma.Multiaddr) Reachability {
	switch r {
	case network.ReachabilityPublic:
		return ReachPublic
	case network.ReachabilityPrivate:
		if slices.ContainsFunc(addrs, isCircuit) {
			return ReachRelayed
		}
		return ReachPrivate
	}
	return ReachUnknown
}

// isCircuit reports whether a is a circuit relay address.
func isCircuit(a ma.Multiaddr) bool {
	_, err := a.ValueForProtocol(ma.P_CIRCUIT)
	return err == nil
}

// watchNet follows go-libp2p's event bus: it records the reachability
// AutoNAT concludes and logs every change of it and of the advertised
// addresses. The subscription is made before Start listens, so no event
// is missed; Close cancels ctx.
func (h *Host) watchNet(sub event.Subscription) func(context.Context) {
	return func(ctx context.Context) {
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-sub.Out():
				if !ok {
					return
				}
				switch e := e.(type) {
				case event.EvtLocalReachabilityChanged:
					h.reach.Store(int32(e.Reachability))
					h.log.Info("reachability changed", "reachability", reachabilityOf(e.Reachability, h.p2p.Addrs()))
				case event.EvtPeerIdentificationCompleted:
					if a := e.ObservedAddr; a != nil && manet.IsPublicAddr(a) && !isCircuit(a) {
						h.observed.add(a.String())
					}
				case event.EvtLocalAddressesUpdated:
					h.log.Info("announced addresses changed", "addrs", h.p2p.Addrs(), "reachability", reachabilityOf(network.Reachability(h.reach.Load()), h.p2p.Addrs()))
					select { // the DHT record names them: put it again
					case h.recordDue <- struct{}{}:
					default:
					}
				}
			}
		}
	}
}

// subscribeNet subscribes to the events watchNet follows.
func subscribeNet(bus event.Bus) (event.Subscription, error) {
	return bus.Subscribe([]any{new(event.EvtLocalReachabilityChanged), new(event.EvtLocalAddressesUpdated), new(event.EvtPeerIdentificationCompleted)}, eventbus.Name("parley-net"), eventbus.BufSize(64))
}

// maxObserved bounds the observed addresses a host remembers.
const maxObserved = 8

// observedAddrs are the public addresses identified peers saw this node
// at, newest last, at most maxObserved.
type observedAddrs struct {
	mu    sync.Mutex
	addrs []string
}

func (o *observedAddrs) add(a string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.addrs = slices.DeleteFunc(o.addrs, func(b string) bool { return b == a })
	o.addrs = append(o.addrs, a)
	if len(o.addrs) > maxObserved {
		o.addrs = o.addrs[len(o.addrs)-maxObserved:]
	}
}

func (o *observedAddrs) list() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.addrs)
}

// announceFactory returns the address factory for Config.Announce: the
// announced addresses instead of the listen ones, and the circuit
// addresses of the relays (autorelay's) after them.
func announceFactory(announce []ma.Multiaddr) func([]ma.Multiaddr) []ma.Multiaddr {
	return func(addrs []ma.Multiaddr) []ma.Multiaddr {
		out := slices.Clone(announce)
		for _, a := range addrs {
			if isCircuit(a) {
				out = append(out, a)
			}
		}
		return out
	}
}

// parseAnnounce checks one Config.Announce entry and returns it without a
// trailing /p2p/<self>: a multiaddr over TCP, QUIC or a relay circuit, not
// on an unspecified IP, and naming no other peer at its end.
func parseAnnounce(s string, self peer.ID) (ma.Multiaddr, error) {
	a, err := ma.NewMultiaddr(s)
	if err != nil {
		return nil, err
	}
	if tr, id := peer.SplitAddr(a); id != "" {
		if self == "" {
			return nil, fail(CodeBadConfig, "ends in /p2p/%s: write it without the peer id", id)
		}
		if id != self {
			return nil, fail(CodeBadConfig, "ends in /p2p/%s, another peer than this node (%s)", id, self)
		}
		a = tr
	}
	if len(a) == 0 {
		return nil, fail(CodeBadConfig, "has no transport address")
	}
	if !isCircuit(a) {
		if _, err := a.ValueForProtocol(ma.P_TCP); err != nil {
			if _, err := a.ValueForProtocol(ma.P_QUIC_V1); err != nil {
				return nil, fail(CodeBadConfig, "is not a TCP, QUIC (quic-v1) or /p2p-circuit address")
			}
		}
		if ip, err := manet.ToIP(a); err == nil && ip.IsUnspecified() {
			return nil, fail(CodeBadConfig, "is on an unspecified IP (0.0.0.0 or ::): announce the address peers dial")
		}
	}
	return a, nil
}

// CheckAnnounce returns an ErrBadConfig error when s is not an address
// Config.Announce takes from an operator who does not know the node's peer
// id yet: as parseAnnounce, and with no /p2p/ suffix at its end at all.
func CheckAnnounce(s string) error {
	_, err := parseAnnounce(s, "")
	return err
}

// relayACL admits to a node's relay service (Config.RelayService) only
// Parley nodes: a peer that completed the identity handshake, for a
// reservation and for a circuit (both ends). The service relays without
// go-libp2p's per-circuit limit (2 minutes, 128 KiB), so a relayed
// connection is a full one on which envelopes, files and the topics'
// gossip run (go-libp2p-pubsub opens no stream on a limited connection);
// what bounds it is this admission, go-libp2p's reservations (128, 4 per
// IP, 16 circuits per peer) and the resource manager.
type relayACL struct{ h *Host }

func (a relayACL) AllowReserve(p peer.ID, _ ma.Multiaddr) bool { return a.identified(p) }

func (a relayACL) AllowConnect(src peer.ID, _ ma.Multiaddr, dest peer.ID) bool {
	return a.identified(src) && a.h.Identified(dest)
}

// identified waits a moment for p's handshake: a reservation request
// comes right after the connection, before the handshake's answer.
func (a relayACL) identified(p peer.ID) bool {
	ctx, cancel := context.WithTimeout(context.Background(), relayIdentifyWait)
	defer cancel()
	return a.h.guard.waitIdentified(ctx, p)
}

// relayIdentifyWait bounds how long the relay service waits for a peer's
// identity handshake before it refuses the peer's request.
const relayIdentifyWait = 5 * time.Second

var _ relayv2.ACLFilter = relayACL{}

// connPath is how c reaches its peer.
func connPath(c network.Conn) Path {
	if isCircuit(c.RemoteMultiaddr()) {
		return PathRelayed
	}
	return PathDirect
}

// overRelay lets a stream or a dial use a limited (relayed) connection:
// Parley's protocols run over circuits too, since a node behind NAT may
// have no other path until hole punching succeeds. A relay with smaller
// limits than RelayCircuitBytes may cut a stream; the sender retries it.
func overRelay(ctx context.Context, why string) context.Context {
	return network.WithAllowLimitedConn(ctx, why)
}
