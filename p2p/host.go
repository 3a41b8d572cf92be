package p2p

import (
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p"
	dht "github.com/libp2p/go-libp2p-kad-dht"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/discovery/mdns"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"
	"github.com/libp2p/go-libp2p/p2p/muxer/yamux"
	"github.com/libp2p/go-libp2p/p2p/net/connmgr"
	relayv2 "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
	"github.com/libp2p/go-libp2p/p2p/protocol/identify"
	"github.com/libp2p/go-libp2p/p2p/security/noise"
	quic "github.com/libp2p/go-libp2p/p2p/transport/quic"
	"github.com/libp2p/go-libp2p/p2p/transport/tcp"
	ma "github.com/multiformats/go-multiaddr"
	"golang.org/x/time/rate"

	"github.com/parleynet/parley/negotiation"
)

type lifecycle int

const (
	stateNew lifecycle = iota
	stateStarted
	stateClosed
)

// Host is a Parley node's peer-to-peer transport: a go-libp2p host with the
// identity handshake, direct envelope delivery with a durable outbox, the
// blob protocol, gossip topics, the DHT and, on store nodes, the mailbox.
// Build it with New, then Start; Close stops everything it started.
type Host struct {
	cfg  Config
	log  *slog.Logger
	self negotiation.Address

	book  *peerBook
	out   *outbox
	in    *inbound
	guard *guard

	mu    sync.Mutex
	state lifecycle
	p2p   host.Host
	ctx   context.Context
	stop  context.CancelFunc
	// lp holds p2p once Start set it, for Libp2p and Addrs, which must
	// not wait on mu: Close holds mu while it waits for the Host's
	// goroutines, some of which call them.
	lp atomic.Value

	gmu     sync.Mutex // guards closing and wg.Add
	closing bool
	wg      sync.WaitGroup

	ps     *pubsub.PubSub
	topics *topics
	kad    *dht.IpfsDHT
	mdns   mdns.Service
	stores []peer.AddrInfo
	recs   recordCache // store nodes named by recipients' records
	// cmu guards cursors (the mailbox cursor per store node) and
	// boardCursors (the task board's history cursor per store node,
	// pollMail); never mu, which Close holds while it waits for pollMail.
	cmu          sync.Mutex
	cursors      map[peer.ID]uint64
	boardCursors map[peer.ID]uint64

	consistency *consistencyLimits // each peer's rate on /parley/ledger-consistency/1

	// punching: this node runs go-libp2p's hole punching (Config.NAT;
	// tests set it alone, without NAT port mapping's packets off loopback).
	punching atomic.Bool

	reach    atomic.Int32 // network.Reachability, as the event bus last said
	observed observedAddrs
	// recordDue wakes publishRecord when the advertised addresses changed.
	recordDue chan struct{}
}

// New returns a Host for cfg. It does no I/O and starts nothing.
func New(cfg Config) (*Host, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	h := &Host{
		cfg:  cfg,
		log:  cfg.Logger.With("component", "p2p"),
		self: negotiation.Address(cfg.Link().EVMAddress),
		book: newPeerBook(),

		boardCursors: map[peer.ID]uint64{},
		recordDue:    make(chan struct{}, 1),

		consistency: &consistencyLimits{r: rate.Limit(cfg.ConsistencyRate), burst: cfg.ConsistencyBurst},
	}
	h.punching.Store(cfg.NAT)
	h.out = newOutbox(h)
	h.in = newInbound(h)
	h.guard = newGuard(h)
	h.topics = newTopics(h)
	h.stores = parsePeers(cfg.StorePeers)
	return h, nil
}

// Start builds the libp2p host, listens, registers the protocols, dials
// the bootstrap peers, joins the DHT and the task board, and resumes
// delivery of every envelope the outbox still holds.
func (h *Host) Start(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state != stateNew {
		return fail(CodeClosed, "Start called twice or after Close")
	}
	p, err := h.buildLibp2p()
	if err != nil {
		return err
	}
	h.p2p = p
	h.lp.Store(p)
	h.ctx, h.stop = context.WithCancel(context.Background())
	h.state = stateStarted
	p.SetStreamHandler(ProtocolIdentity, h.handleIdentity)
	p.SetStreamHandler(ProtocolEnvelope, h.in.handleStream)
	p.SetStreamHandler(ProtocolBlob, h.handleBlob)
	p.SetStreamHandler(ProtocolConsistency, h.handleConsistency)
	if h.cfg.Mailbox != nil {
		p.SetStreamHandler(ProtocolMailbox, h.handleMailbox)
	}
	p.Network().Notify(&network.NotifyBundle{
		ConnectedF: func(n network.Network, c network.Conn) {
			h.guard.connected(c)
			h.connected(n, c)
		},
		DisconnectedF: func(_ network.Network, c network.Conn) { h.guard.disconnected(c) },
	})
	sub, err := subscribeNet(p.EventBus())
	if err != nil {
		h.closeLocked()
		return failWrap(CodeBadConfig, err, "event bus")
	}
	h.go1(h.watchNet(sub))
	// Listen only now, so that the guard sees every connection.
	if err := p.Network().Listen(h.listenAddrs()...); err != nil {
		h.closeLocked()
		return failWrap(CodeBadConfig, err, "listen")
	}
	h.go1(h.guard.sweep)

	if err := h.startTopics(); err != nil {
		h.closeLocked()
		return err
	}
	if h.cfg.DHT {
		if err := h.startDHT(); err != nil {
			h.closeLocked()
			return err
		}
	}
	if h.cfg.MDNS {
		h.mdns = mdns.NewMdnsService(p, "parley", mdnsNotifee{h})
		if err := h.mdns.Start(); err != nil {
			h.closeLocked()
			return failWrap(CodeBadConfig, err, "mdns")
		}
	}
	h.go1(func(ctx context.Context) { h.bootstrap(ctx) })
	if err := h.out.resume(ctx); err != nil {
		h.closeLocked()
		return err
	}
	h.go1(h.in.sweep)
	h.go1(h.pollMail)
	h.log.Info("p2p started", "peer", p.ID(), "listen", p.Network().ListenAddresses(), "announced", p.Addrs())
	return nil
}

func (h *Host) buildLibp2p() (host.Host, error) {
	key, err := h.cfg.Inbox.LibP2PKey()
	if err != nil {
		return nil, err
	}
	if h.cfg.Libp2p != nil {
		return h.simulatedLibp2p(key)
	}
	limits := rcmgr.DefaultLimits
	libp2p.SetDefaultServiceLimits(&limits)
	limitProtocols(&limits)
	rm, err := rcmgr.NewResourceManager(rcmgr.NewFixedLimiter(limits.Scale(h.cfg.ResourceMemory, h.cfg.ResourceFDs)))
	if err != nil {
		return nil, failWrap(CodeBadConfig, err, "resource manager")
	}
	cm, err := connmgr.NewConnManager(h.cfg.ConnLow, h.cfg.ConnHigh, connmgr.WithGracePeriod(h.cfg.ConnGrace))
	if err != nil {
		return nil, failWrap(CodeBadConfig, err, "connection manager")
	}
	opts := []libp2p.Option{
		libp2p.Identity(key),
		libp2p.NoListenAddrs,
		libp2p.ConnectionGater(h.guard),
		libp2p.Transport(tcp.NewTCPTransport),
		libp2p.Transport(quic.NewTransport),
		libp2p.Security(noise.ID, noise.New),
		libp2p.Muxer(yamux.ID, yamux.DefaultTransport),
		libp2p.ResourceManager(rm),
		libp2p.ConnectionManager(cm),
		libp2p.WithDialTimeout(h.cfg.DialTimeout),
	}
	if h.cfg.Registerer != nil {
		opts = append(opts, libp2p.PrometheusRegisterer(h.cfg.Registerer))
	} else {
		opts = append(opts, libp2p.DisableMetrics())
	}
	if h.cfg.NAT {
		opts = append(opts, libp2p.NATPortMap(), libp2p.EnableAutoNATv2(), libp2p.EnableHolePunching(h.punchOptions()...))
	}
	if h.cfg.NAT || len(h.cfg.Relays) > 0 {
		opts = append(opts, libp2p.EnableRelay())
	} else {
		opts = append(opts, libp2p.DisableRelay())
	}
	if h.cfg.RelayService {
		opts = append(opts, libp2p.EnableRelayService(relayv2.WithInfiniteLimits(), relayv2.WithACL(relayACL{h})))
	}
	if len(h.cfg.Relays) > 0 {
		opts = append(opts, libp2p.EnableAutoRelayWithStaticRelays(parsePeers(h.cfg.Relays)))
	}
	if len(h.cfg.Announce) > 0 {
		var announce []ma.Multiaddr
		for _, s := range h.cfg.Announce {
			a, _ := parseAnnounce(s, h.cfg.Inbox.PeerID()) // Validate checked them
			announce = append(announce, a)
		}
		opts = append(opts, libp2p.AddrsFactory(announceFactory(announce)))
	}
	switch h.cfg.Reachability {
	case ReachPublic:
		opts = append(opts, libp2p.ForceReachabilityPublic())
	case ReachPrivate:
		opts = append(opts, libp2p.ForceReachabilityPrivate())
	}
	p, err := libp2p.New(opts...)
	if err != nil {
		_ = rm.Close()
		return nil, failWrap(CodeBadConfig, err, "libp2p host")
	}
	return p, nil
}

// simulatedLibp2p runs Config.Libp2p (a simulation's host) and checks
// that it is this node's.
func (h *Host) simulatedLibp2p(key crypto.PrivKey) (host.Host, error) {
	p, err := h.cfg.Libp2p(key, h.guard)
	if err != nil {
		return nil, failWrap(CodeBadConfig, err, "libp2p host (Config.Libp2p)")
	}
	if p.ID() != h.ID() {
		_ = p.Close()
		return nil, fail(CodeBadConfig, "Config.Libp2p built a host for %s, not this node's %s", p.ID(), h.ID())
	}
	return p, nil
}

// limitProtocols bounds the streams one peer may hold on Parley's
// protocols in the resource manager: an honest peer keeps one envelope
// stream each way and runs one handshake per connection.
func limitProtocols(l *rcmgr.ScalingLimitConfig) {
	l.AddProtocolPeerLimit(ProtocolEnvelope,
		rcmgr.BaseLimit{StreamsInbound: 8, StreamsOutbound: 8, Streams: 16, Memory: 64 << 20},
		rcmgr.BaseLimitIncrease{})
	l.AddProtocolPeerLimit(ProtocolIdentity,
		rcmgr.BaseLimit{StreamsInbound: 4, StreamsOutbound: 4, Streams: 8, Memory: 1 << 20},
		rcmgr.BaseLimitIncrease{})
}

// listenAddrs parses ListenAddrs (Validate checked them).
func (h *Host) listenAddrs() []ma.Multiaddr {
	out := make([]ma.Multiaddr, 0, len(h.cfg.ListenAddrs))
	for _, s := range h.cfg.ListenAddrs {
		a, _ := ma.NewMultiaddr(s)
		out = append(out, a)
	}
	return out
}

// connected starts the identity handshake on every new outbound
// connection (the dialler initiates; the listener answers), and on a
// relayed one tries a direct connection beside it (preferDirect).
func (h *Host) connected(_ network.Network, c network.Conn) {
	p := c.RemotePeer()
	if c.Stat().Direction == network.DirOutbound && connPath(c) == PathRelayed {
		h.go1(func(ctx context.Context) { h.preferDirect(ctx, c) })
	}
	if c.Stat().Direction != network.DirOutbound {
		return
	}
	h.go1(func(ctx context.Context) { h.identify(ctx, p) })
}

// preferDirect dials c's peer directly once, beside the relayed
// connection c this node opened to it: a peer on the same LAN, or one
// that became reachable, is then reached without the relay (streams
// prefer a direct connection). It waits for the peer's identify first:
// the peer's own addresses come with it (before, this node may know only
// the circuit address it dialled). Behind NAT on both sides the dial
// fails, and hole punching (p2p.nat) is what can open a direct
// connection: when both sides punch (punches), the dial is left to it.
// Through two NAT routers this dial and DCUtR's own first dial, from the
// other side, met in a TCP simultaneous open; both ends then acted as the
// Noise initiator, the handshake failed, its reset closed the routers'
// conntrack entries and the punch after it failed (seen in the testbed's
// packet captures).
func (h *Host) preferDirect(ctx context.Context, c network.Conn) {
	p := c.RemotePeer()
	if !h.identified(ctx, c) || hasDirect(h.p2p.Network(), p) || h.punches(p) {
		return
	}
	dctx, cancel := context.WithTimeout(network.WithForceDirectDial(ctx, "prefer direct"), h.cfg.DialTimeout)
	defer cancel()
	if err := h.p2p.Connect(dctx, peer.AddrInfo{ID: p}); err != nil {
		h.log.Debug("no direct connection beside the relayed one", "peer", p, "err", err)
	}
}

// identified waits, at most DialTimeout, for libp2p's identify on c,
// and reports whether it ended (it may have failed) before that.
func (h *Host) identified(ctx context.Context, c network.Conn) bool {
	ih, ok := h.p2p.(interface{ IDService() identify.IDService })
	if !ok {
		return true // a simulation's host: identify is not ours to wait for
	}
	wctx, cancel := context.WithTimeout(ctx, h.cfg.DialTimeout)
	defer cancel()
	select {
	case <-ih.IDService().IdentifyWait(c):
		return true
	case <-wctx.Done():
		return false
	}
}

// punches reports whether hole punching will try a direct connection to
// p: this node runs DCUtR (p2p.nat) and p speaks it, as its identify
// said. p, which accepted the relayed connection, starts the punch.
func (h *Host) punches(p peer.ID) bool {
	if !h.punching.Load() {
		return false
	}
	ps, err := h.p2p.Peerstore().SupportsProtocols(p, holepunch.Protocol)
	return err == nil && len(ps) > 0
}

// punchDirectDial bounds DCUtR's first step, a plain dial to the peer's
// public addresses before it punches (go-libp2p waits 10 s): behind a
// router that drops unasked packets the dial can only time out, and the
// punch waits for it.
const punchDirectDial = 3 * time.Second

// punchOptions are the hole punching service's options: punchDirectDial,
// and its events in this node's log at debug (with go-libp2p's metrics
// when they are on).
func (h *Host) punchOptions() []holepunch.Option {
	opts := []holepunch.Option{holepunch.DirectDialTimeout(punchDirectDial)}
	if h.cfg.Registerer != nil {
		return append(opts, holepunch.WithMetricsAndEventTracer(holepunch.NewMetricsTracer(holepunch.WithRegisterer(h.cfg.Registerer)), punchLog{h.log}))
	}
	return append(opts, holepunch.WithTracer(punchLog{h.log}))
}

// punchLog writes hole punching's events to the node's log at debug.
type punchLog struct{ log *slog.Logger }

func (l punchLog) Trace(e *holepunch.Event) {
	l.log.Debug("hole punching: "+e.Type, "peer", e.Remote, "event", e.Evt)
}

// hasDirect reports whether n holds a direct connection to p.
func hasDirect(n network.Network, p peer.ID) bool {
	for _, c := range n.ConnsToPeer(p) {
		if connPath(c) == PathDirect {
			return true
		}
	}
	return false
}

// bootstrapRetry is the longest wait between two rounds of bootstrap
// dials while the node has no peer at all.
const bootstrapRetry = 30 * time.Second

// bootstrap dials the configured bootstrap and store peers at start, and again,
// after 2 s, 4 s, ... up to every bootstrapRetry, whenever the node holds
// no connection at all: a node whose bootstrap peers were unreachable at
// its start (their host down, the network not up yet, the machine
// overloaded) would otherwise never join, since the DHT and the board
// find peers only through peers.
func (h *Host) bootstrap(ctx context.Context) {
	if len(h.cfg.Bootstrap)+len(h.stores) == 0 {
		return
	}
	wait := 2 * time.Second
	for first := true; ; first = false {
		// The first round dials them all: other parts of the host (the
		// relay client, the DHT) may have connected to some already.
		if first || len(h.p2p.Network().Peers()) == 0 {
			h.dialBootstrap(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, bootstrapRetry)
	}
}

// dialBootstrap dials every bootstrap and store peer once, together.
func (h *Host) dialBootstrap(ctx context.Context) {
	all := parsePeers(append(slices.Clone(h.cfg.Bootstrap), h.cfg.StorePeers...))
	var wg sync.WaitGroup
	for _, ai := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, h.cfg.DialTimeout)
			defer cancel()
			if err := h.p2p.Connect(cctx, ai); err != nil {
				h.log.Info("bootstrap dial failed", "peer", ai.ID, "err", err)
			}
		}()
	}
	wg.Wait()
}

// Close stops the delivery loops, topics, DHT and the libp2p host, and
// waits for every goroutine the Host started. It is safe to call twice.
func (h *Host) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closeLocked()
}

func (h *Host) closeLocked() error {
	if h.state != stateStarted {
		h.state = stateClosed
		return nil
	}
	h.state = stateClosed
	h.gmu.Lock()
	h.closing = true
	h.gmu.Unlock()
	h.stop()
	var errs []error
	if h.mdns != nil {
		errs = append(errs, h.mdns.Close())
	}
	h.topics.close()
	if h.kad != nil {
		errs = append(errs, h.kad.Close())
	}
	errs = append(errs, h.p2p.Close())
	h.wg.Wait()
	h.out.wait()
	h.log.Info("p2p closed")
	return errors.Join(errs...)
}

// go1 runs f on a goroutine the Host owns; Close cancels ctx and waits.
func (h *Host) go1(f func(ctx context.Context)) {
	h.gmu.Lock()
	defer h.gmu.Unlock()
	if h.closing {
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		f(h.ctx)
	}()
}

// ID returns the node's peer id.
func (h *Host) ID() peer.ID { return h.cfg.Inbox.PeerID() }

// Address returns the node's EVM address.
func (h *Host) Address() negotiation.Address { return h.self }

// Addrs returns the node's listen addresses with /p2p/<id>, for other
// nodes' Bootstrap lists. It is empty before Start.
func (h *Host) Addrs() []ma.Multiaddr {
	p := h.Libp2p()
	if p == nil {
		return nil
	}
	out, _ := peer.AddrInfoToP2pAddrs(&peer.AddrInfo{ID: p.ID(), Addrs: p.Addrs()})
	return out
}

// Libp2p returns the underlying libp2p host (nil before Start), for
// metrics and tests.
func (h *Host) Libp2p() host.Host {
	p, _ := h.lp.Load().(host.Host)
	return p
}

// Connect dials a peer and runs the identity handshake before returning.
func (h *Host) Connect(ctx context.Context, ai peer.AddrInfo) error {
	p := h.Libp2p()
	if p == nil {
		return fail(CodeClosed, "not started")
	}
	if len(ai.Addrs) == 0 && len(p.Peerstore().Addrs(ai.ID)) == 0 && h.kad != nil && p.Network().Connectedness(ai.ID) != network.Connected {
		// A peer this node never met: the DHT's peer routing knows
		// where it is (its servers hold its addresses from identify).
		if found, err := h.kad.FindPeer(ctx, ai.ID); err == nil {
			ai = found
		}
	}
	if err := p.Connect(overRelay(ctx, "connect"), ai); err != nil {
		return failWrap(CodeNotFound, err, "dial %s", ai.ID)
	}
	if !h.Identified(ai.ID) {
		h.identify(ctx, ai.ID)
	}
	if !h.Identified(ai.ID) {
		return fail(CodeUnknownLink, "peer %s did not identify", ai.ID)
	}
	return nil
}

func (h *Host) emit(e Event) {
	if h.cfg.OnEvent != nil {
		h.cfg.OnEvent(e)
	}
}

func (h *Host) now() time.Time { return h.cfg.Clock() }

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

type mdnsNotifee struct{ h *Host }

// HandlePeerFound dials a peer found on the LAN.
func (n mdnsNotifee) HandlePeerFound(ai peer.AddrInfo) {
	if ai.ID == n.h.ID() {
		return
	}
	n.h.go1(func(ctx context.Context) {
		cctx, cancel := context.WithTimeout(ctx, n.h.cfg.DialTimeout)
		defer cancel()
		_ = n.h.p2p.Connect(cctx, ai)
	})
}
