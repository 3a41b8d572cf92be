package p2p_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	coreconnmgr "github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/libp2p/go-libp2p/p2p/host/peerstore/pstoremem"
	"github.com/libp2p/go-libp2p/p2p/net/connmgr"
	mocknet "github.com/libp2p/go-libp2p/p2p/net/mock"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// simNet runs Parley Hosts over go-libp2p's mocknet (Config.Libp2p): every
// peer is linked to every other as it joins (a link is the ability to
// connect; who actually connects is the Hosts' own doing: bootstrap dials,
// the DHT, gossipsub), with the mocknet's latency and bandwidth per link.
type simNet struct {
	mn mocknet.Mocknet

	mu    sync.Mutex
	peers []peer.ID
	addrs int
}

func newSimNet(link mocknet.LinkOptions) *simNet {
	mn := mocknet.New()
	mn.SetLinkDefaults(link)
	return &simNet{mn: mn}
}

// nextAddr returns a fresh address for a node (one IPv4 address each, so
// that gossipsub's IP colocation score sees distinct hosts).
func (s *simNet) nextAddr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addrs++
	n := s.addrs
	return fmt.Sprintf("/ip4/10.%d.%d.%d/tcp/4001", n>>16&0xff, n>>8&0xff, n&0xff)
}

// simHostOptions are what a simulated libp2p host adds to mocknet's.
type simHostOptions struct {
	// ConnLow, ConnHigh and ConnGrace configure the connection manager
	// (mocknet hosts have none of their own).
	ConnLow, ConnHigh int
	ConnGrace         time.Duration
	// Wrap, when set, wraps the handler of every protocol the Host
	// registers (the simulation meters gossipsub with it).
	Wrap func(protocol.ID, network.StreamHandler) network.StreamHandler
}

// configure points cfg at the simulated network: it listens on a fresh
// mocknet address and its Libp2p hook adds it to the mocknet, linked to
// every peer there.
func (s *simNet) configure(cfg *p2p.Config, o simHostOptions) {
	addr := ma.StringCast(s.nextAddr())
	cfg.ListenAddrs = []string{addr.String()}
	if o.ConnHigh == 0 {
		o.ConnLow, o.ConnHigh, o.ConnGrace = cfg.ConnLow, cfg.ConnHigh, cfg.ConnGrace
	}
	cfg.Libp2p = func(key crypto.PrivKey, gater coreconnmgr.ConnectionGater) (host.Host, error) {
		return s.add(key, addr, gater, o)
	}
}

func (s *simNet) add(key crypto.PrivKey, addr ma.Multiaddr, gater coreconnmgr.ConnectionGater, o simHostOptions) (host.Host, error) {
	id, err := peer.IDFromPrivateKey(key)
	if err != nil {
		return nil, err
	}
	ps, err := pstoremem.NewPeerstore()
	if err != nil {
		return nil, err
	}
	ps.AddAddr(id, addr, peerstore.PermanentAddrTTL)
	if err := ps.AddPrivKey(id, key); err != nil {
		return nil, err
	}
	if err := ps.AddPubKey(id, key.GetPublic()); err != nil {
		return nil, err
	}
	opts, err := peerOptions(ps, gater)
	if err != nil {
		return nil, err
	}
	h, err := s.mn.AddPeerWithOptions(id, opts)
	if err != nil {
		return nil, err
	}
	cm, err := connmgr.NewConnManager(o.ConnLow, o.ConnHigh, connmgr.WithGracePeriod(o.ConnGrace))
	if err != nil {
		_ = h.Close()
		return nil, err
	}
	h.Network().Notify(cm.Notifee())
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.peers {
		if _, err := s.mn.LinkPeers(id, p); err != nil {
			_ = h.Close()
			_ = cm.Close()
			return nil, err
		}
	}
	s.peers = append(s.peers, id)
	return &simHost{Host: h, cm: cm, wrap: o.Wrap}, nil
}

// peerOptions builds mocknet's PeerOptions with a peerstore and a
// connection gater. mocknet applies a gater exactly where the swarm does
// (InterceptPeerDial, InterceptAddrDial, InterceptAccept, InterceptSecured
// and InterceptUpgraded on every connection) but takes it only in an
// unexported field (its own tests set it); the simulation sets that field
// by reflection, and fails loudly if go-libp2p renames it, rather than run
// the Host without its guard.
func peerOptions(ps peerstore.Peerstore, gater coreconnmgr.ConnectionGater) (mocknet.PeerOptions, error) {
	var o mocknet.PeerOptions
	v := reflect.ValueOf(&o).Elem()
	for name, val := range map[string]any{"ps": ps, "gater": gater} {
		f := v.FieldByName(name)
		if !f.IsValid() || !reflect.TypeOf(val).AssignableTo(f.Type()) {
			return o, fmt.Errorf("mocknet.PeerOptions has no field %s of a fitting type any more", name)
		}
		reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(val))
	}
	return o, nil
}

// simHost is a mocknet host with a connection manager (mocknet's hosts
// have the null one: nothing would be trimmed or protected).
type simHost struct {
	host.Host
	cm   *connmgr.BasicConnMgr
	wrap func(protocol.ID, network.StreamHandler) network.StreamHandler
}

func (h *simHost) ConnManager() coreconnmgr.ConnManager { return h.cm }

func (h *simHost) SetStreamHandler(pid protocol.ID, handler network.StreamHandler) {
	if h.wrap != nil {
		handler = h.wrap(pid, handler)
	}
	h.Host.SetStreamHandler(pid, handler)
}

func (h *simHost) SetStreamHandlerMatch(pid protocol.ID, m func(protocol.ID) bool, handler network.StreamHandler) {
	if h.wrap != nil {
		handler = h.wrap(pid, handler)
	}
	h.Host.SetStreamHandlerMatch(pid, m, handler)
}

func (h *simHost) Close() error {
	return errors.Join(h.Host.Close(), h.cm.Close())
}

// memIdentity is a node's keys in memory (no keystore on disk, no
// scrypt): what the simulation's thousand nodes and the hook's tests use.
type memIdentity struct {
	inbox  *identity.InboxKey
	evm    *identity.EVMKey
	enc    *identity.EncryptionKey
	link   *identity.Link
	sealer *identity.Sealer
}

func newMemIdentity(now time.Time) (*memIdentity, error) {
	inbox, err := identity.GenerateInboxKey()
	if err != nil {
		return nil, err
	}
	evm, err := identity.GenerateEVMKey()
	if err != nil {
		return nil, err
	}
	enc, err := identity.GenerateEncryptionKey(identity.KEMX25519, now.Add(30*24*time.Hour))
	if err != nil {
		return nil, err
	}
	link, err := identity.CreateLink(evm, inbox, []*identity.PublicEncryptionKey{enc.PublicKey()}, now.Add(-time.Minute), now.Add(90*24*time.Hour))
	if err != nil {
		return nil, err
	}
	m := &memIdentity{inbox: inbox, evm: evm, enc: enc, link: link}
	if m.sealer, err = identity.NewSealer(identity.DefaultSealerConfig(inbox, link, m)); err != nil {
		return nil, err
	}
	return m, nil
}

// EncryptionKey is the Sealer's KeyLookup.
func (m *memIdentity) EncryptionKey(id identity.KeyID) (*identity.EncryptionKey, bool) {
	if id == m.enc.ID {
		return m.enc, true
	}
	return nil, false
}

func (m *memIdentity) addr() negotiation.Address { return negotiation.Address(m.evm.Address()) }

// envelope builds the first envelope of negotiation nid from m (a
// TaskProposal; an announcement when to is empty).
func (m *memIdentity) envelope(nid string, at time.Time, to ...negotiation.Address) (*negotiation.Envelope, error) {
	var pk negotiation.PublicKey
	copy(pk[:], m.inbox.PublicKey())
	h := negotiation.Header{
		NegotiationID: nid, Sequence: 1, Timestamp: at,
		Sender: negotiation.Sender{EVMAddress: m.addr(), XMTPPublicKey: pk}, Recipients: to,
	}
	return negotiation.Build(h, proposal(0), m.inbox, negotiation.DecodeOptions{})
}

// configure sets cfg's keys and an in-memory outbox.
func (m *memIdentity) configure(cfg *p2p.Config) *memOutbox {
	out := &memOutbox{items: map[string]p2p.OutboxItem{}, settled: map[string]p2p.OutboxStatus{}}
	cfg.Inbox, cfg.Sealer, cfg.Outbox = m.inbox, m.sealer, out
	cfg.Link = func() *identity.Link { return m.link }
	return out
}

// memOutbox is an OutboxStore in memory; it remembers how each item was
// settled, and refuses to settle one twice (an item acked twice).
type memOutbox struct {
	mu      sync.Mutex
	items   map[string]p2p.OutboxItem
	order   []string
	settled map[string]p2p.OutboxStatus
	twice   int
}

func outboxKey(it p2p.OutboxItem) string { return it.CID.String() + "/" + it.To.String() }

func (o *memOutbox) Put(_ context.Context, it p2p.OutboxItem) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := outboxKey(it)
	if _, ok := o.items[k]; ok {
		return nil
	}
	if _, ok := o.settled[k]; ok {
		return nil
	}
	o.items[k] = it
	o.order = append(o.order, k)
	return nil
}

func (o *memOutbox) Settle(_ context.Context, it p2p.OutboxItem, status p2p.OutboxStatus, _ p2p.Code) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := outboxKey(it)
	if _, ok := o.settled[k]; ok {
		o.twice++
		return nil
	}
	o.settled[k] = status
	delete(o.items, k)
	o.order = slices.DeleteFunc(o.order, func(s string) bool { return s == k })
	return nil
}

func (o *memOutbox) Pending(context.Context) ([]p2p.OutboxItem, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]p2p.OutboxItem, 0, len(o.order))
	for _, k := range o.order {
		out = append(out, o.items[k])
	}
	return out, nil
}

// statuses returns how many items were settled with each status, and how
// many were settled a second time.
func (o *memOutbox) statuses() (map[p2p.OutboxStatus]int, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := map[p2p.OutboxStatus]int{}
	for _, s := range o.settled {
		n[s]++
	}
	return n, o.twice
}

// simConfig is a node's configuration on the simulated network: the
// production defaults, except shorter retries and mailbox polls.
func simConfig(s *simNet, id *memIdentity, h p2p.Handler, o simHostOptions) (p2p.Config, *memOutbox) {
	cfg := p2p.DefaultConfig()
	out := id.configure(&cfg)
	cfg.Handler = h
	cfg.RetryMin = 50 * time.Millisecond
	cfg.RetryMax = 2 * time.Second
	s.configure(&cfg, o)
	return cfg, out
}

// TestLibp2pHookOffByDefault: production configuration never has the
// simulation's hook, and Validate refuses it beside the settings it cannot
// honour.
func TestLibp2pHookOffByDefault(t *testing.T) {
	if p2p.DefaultConfig().Libp2p != nil {
		t.Fatal("DefaultConfig sets Libp2p")
	}
	id, err := newMemIdentity(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s := newSimNet(mocknet.LinkOptions{})
	defer s.mn.Close()
	base, _ := simConfig(s, id, p2p.HandlerFunc(func(context.Context, p2p.Delivery) negotiation.Code { return "ok" }), simHostOptions{})
	if err := base.Validate(); err != nil {
		t.Fatalf("the hook alone: %v", err)
	}
	for name, f := range map[string]func(*p2p.Config){
		"NAT":          func(c *p2p.Config) { c.NAT = true },
		"Relays":       func(c *p2p.Config) { c.Relays = []string{"/ip4/10.9.9.9/tcp/1/p2p/" + peer.ID("x").String()} },
		"RelayService": func(c *p2p.Config) { c.RelayService = true },
		"Announce":     func(c *p2p.Config) { c.Announce = []string{"/ip4/10.9.9.9/tcp/1"} },
		"Reachability": func(c *p2p.Config) { c.Reachability = p2p.ReachPublic },
		"MDNS":         func(c *p2p.Config) { c.MDNS = true },
		"Registerer":   func(c *p2p.Config) { c.Registerer = prometheus.NewRegistry() },
	} {
		cfg := base
		f(&cfg)
		if _, err := p2p.New(cfg); p2p.CodeOf(err) != p2p.CodeBadConfig {
			t.Errorf("the hook with %s: %v, want bad_config", name, err)
		}
	}
}

// TestLibp2pHookWrongPeer: a hook that builds a host for another key is
// refused at Start, and its host closed.
func TestLibp2pHookWrongPeer(t *testing.T) {
	a, err := newMemIdentity(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	other, err := newMemIdentity(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s := newSimNet(mocknet.LinkOptions{})
	defer s.mn.Close()
	cfg, _ := simConfig(s, a, p2p.HandlerFunc(func(context.Context, p2p.Delivery) negotiation.Code { return "ok" }), simHostOptions{})
	hook := cfg.Libp2p
	var built *closeRecorder
	cfg.Libp2p = func(_ crypto.PrivKey, g coreconnmgr.ConnectionGater) (host.Host, error) {
		k, err := other.inbox.LibP2PKey()
		if err != nil {
			return nil, err
		}
		h, err := hook(k, g)
		if err != nil {
			return nil, err
		}
		built = &closeRecorder{Host: h}
		return built, nil
	}
	h, err := p2p.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(t.Context()); p2p.CodeOf(err) != p2p.CodeBadConfig {
		t.Fatalf("Start with another node's host: %v, want bad_config", err)
	}
	if built == nil || !built.closed {
		t.Fatal("the refused host was not closed")
	}
}

type closeRecorder struct {
	host.Host
	closed bool
}

func (h *closeRecorder) Close() error { h.closed = true; return h.Host.Close() }

// TestHostOverMocknet: two Hosts over the mocknet run the identity
// handshake and deliver an envelope; a peer one of them banned is refused
// by its guard through mocknet's connection gater.
func TestHostOverMocknet(t *testing.T) {
	s := newSimNet(mocknet.LinkOptions{Latency: 5 * time.Millisecond})
	defer s.mn.Close()
	type got struct {
		mu   sync.Mutex
		cids []string
	}
	start := func(g *got) (*p2p.Host, *memIdentity, *memOutbox) {
		id, err := newMemIdentity(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		cfg, out := simConfig(s, id, p2p.HandlerFunc(func(_ context.Context, d p2p.Delivery) negotiation.Code {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.cids = append(g.cids, d.Envelope.CID().String())
			return "ok"
		}), simHostOptions{})
		cfg.DHT = false
		h, err := p2p.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = h.Close() })
		return h, id, out
	}
	var ga, gb, gc got
	a, aid, aout := start(&ga)
	b, bid, _ := start(&gb)
	c, _, _ := start(&gc)
	if err := a.Connect(t.Context(), peer.AddrInfo{ID: b.ID(), Addrs: b.Libp2p().Addrs()}); err != nil {
		t.Fatal(err)
	}
	env, err := aid.envelope(newNID(), time.Now(), bid.addr())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Send(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b to take the envelope", func() bool {
		gb.mu.Lock()
		defer gb.mu.Unlock()
		return len(gb.cids) == 1 && gb.cids[0] == env.CID().String()
	})
	eventually(t, "a's outbox to settle the envelope as delivered", func() bool {
		st, twice := aout.statuses()
		return st[p2p.StatusDelivered] == 1 && twice == 0
	})
	b.Ban(c.ID(), "test")
	err = c.Libp2p().Connect(t.Context(), peer.AddrInfo{ID: b.ID(), Addrs: b.Libp2p().Addrs()})
	if err == nil {
		t.Fatal("a banned peer connected: the guard is not the mocknet's gater")
	}
	if b.GuardStats().RefusedConns == 0 {
		t.Fatal("the guard counted no refused connection")
	}
}
