package p2p_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	relayclient "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/client"
	relayv2 "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// connOf returns n's connection to peer id, if it has one.
func connOf(n *testNode, id peer.ID) (p2p.ConnInfo, bool) {
	for _, c := range n.host.Net().Peers {
		if c.Peer == id.String() {
			return c, true
		}
	}
	return p2p.ConnInfo{}, false
}

func TestNetShowsDirectPeersWithDirection(t *testing.T) {
	a, b := newNode(t), newNode(t)
	if got := a.host.Net().Reachability; got != p2p.ReachUnknown {
		t.Fatalf("reachability on loopback = %q, want unknown", got)
	}
	connect(t, a, b)
	ca, ok := connOf(a, b.host.ID())
	if !ok || ca.Path != p2p.PathDirect || ca.Direction != "outbound" || !strings.Contains(ca.Addr, "/tcp/") {
		t.Fatalf("a's connection to b = %+v (%v), want direct outbound over tcp", ca, ok)
	}
	cb, ok := connOf(b, a.host.ID())
	if !ok || cb.Path != p2p.PathDirect || cb.Direction != "inbound" {
		t.Fatalf("b's connection to a = %+v (%v), want direct inbound", cb, ok)
	}
	s := a.host.Net()
	if s.Direct != 1 || s.Relayed != 0 {
		t.Fatalf("a counts direct %d relayed %d, want 1 and 0", s.Direct, s.Relayed)
	}
	if len(s.Listen) != 1 || !strings.HasPrefix(s.Listen[0], "/ip4/127.0.0.1/tcp/") || strings.HasSuffix(s.Listen[0], "/tcp/0") {
		t.Fatalf("listen = %v, want the resolved loopback tcp address", s.Listen)
	}
	if len(s.Announced) != 1 || s.Announced[0] != s.Listen[0]+"/p2p/"+a.host.ID().String() {
		t.Fatalf("announced = %v, want the listen address with /p2p/<id>", s.Announced)
	}
}

// relayHost starts a plain libp2p host on loopback serving circuit relay
// v2 (without limits, so relayed connections are not limited ones).
func relayHost(t *testing.T) host.Host {
	t.Helper()
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"), libp2p.DisableMetrics(), libp2p.DisableRelay())
	if err != nil {
		t.Fatal(err)
	}
	r, err := relayv2.New(h, relayv2.WithInfiniteLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(); _ = h.Close() })
	return h
}

func TestNetShowsARelayedConnectionAsRelayed(t *testing.T) {
	r := relayHost(t)
	rAddr := r.Addrs()[0].String() + "/p2p/" + r.ID().String()
	circuit := rAddr + "/p2p-circuit"
	// a is private (as behind NAT), has r as its static relay and announces
	// its circuit address through r: autorelay reserves a slot there.
	a := newNode(t, func(c *p2p.Config) {
		c.Relays = []string{rAddr}
		c.Reachability = p2p.ReachPrivate
		c.Announce = []string{circuit}
	})
	// b has the relay transport (through its own Relays) and dials a only
	// through r.
	b := newNode(t, func(c *p2p.Config) { c.Relays = []string{rAddr} })
	eventually(t, "a to be relayed", func() bool { return a.host.Net().Reachability == p2p.ReachRelayed })
	if got := a.host.Net().Announced; len(got) != 1 || got[0] != circuit+"/p2p/"+a.host.ID().String() {
		t.Fatalf("a announces %v, want only its circuit address", got)
	}
	connectThrough(t, b, a, circuit)
	cb, ok := connOf(b, a.host.ID())
	if !ok || cb.Path != p2p.PathRelayed || cb.Direction != "outbound" || !strings.Contains(cb.Addr, "/p2p-circuit") {
		t.Fatalf("b's connection to a = %+v (%v), want relayed outbound", cb, ok)
	}
	eventually(t, "a to see b inbound through the relay", func() bool {
		ca, ok := connOf(a, b.host.ID())
		return ok && ca.Path == p2p.PathRelayed && ca.Direction == "inbound"
	})
	if s := b.host.Net(); s.Relayed != 1 {
		t.Fatalf("b counts %d relayed connections, want 1 (%+v)", s.Relayed, s.Peers)
	}
	// The relay itself is a direct connection of a.
	if c, ok := connOf(a, r.ID()); !ok || c.Path != p2p.PathDirect || c.Direction != "outbound" {
		t.Fatalf("a's connection to the relay = %+v (%v), want direct outbound", c, ok)
	}
}

// syncLog is a log written by a host, read by the test.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestAParleyNodeServesAsRelay: a public node with RelayService relays
// between a private node and a peer, without go-libp2p's per-circuit
// limit, so the relayed connection is a full one: the identity handshake
// and envelopes run over it (the private node announces only its circuit
// address, so the relay is the only path).
func TestAParleyNodeServesAsRelay(t *testing.T) {
	r := newNode(t, func(c *p2p.Config) { c.RelayService, c.Reachability = true, p2p.ReachPublic })
	eventually(t, "the relay to be public", func() bool { return r.host.Net().Reachability == p2p.ReachPublic })
	rAddr := r.host.Addrs()[0].String()
	circuit := rAddr + "/p2p-circuit"
	a := newNode(t, func(c *p2p.Config) {
		c.Relays, c.Reachability, c.Announce = []string{rAddr}, p2p.ReachPrivate, []string{circuit}
	})
	b := newNode(t, func(c *p2p.Config) { c.Relays = []string{rAddr} })
	eventually(t, "a to be relayed", func() bool { return a.host.Net().Reachability == p2p.ReachRelayed })
	connectThrough(t, b, a, circuit)
	cb, ok := connOf(b, a.host.ID())
	if !ok || cb.Path != p2p.PathRelayed || cb.Limited {
		t.Fatalf("b's connection to a = %+v (%v), want relayed and not limited", cb, ok)
	}
	if _, ok := b.host.Link(a.addr()); !ok {
		t.Fatal("the identity handshake did not run over the relayed connection")
	}
	if err := b.host.Send(t.Context(), b.envelope(newNID(), a.addr())); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the envelope's ack over the relay", func() bool { return len(b.ev.of(p2p.EventDelivered)) == 1 })
	if ev := b.ev.of(p2p.EventDelivered)[0]; ev.Path != p2p.PathRelayed {
		t.Fatalf("the envelope went %q, want relayed", ev.Path)
	}
	if effects, _ := a.rec.snapshot(); len(effects) != 1 {
		t.Fatalf("a applied %d envelopes, want 1", len(effects))
	}
}

func TestReachabilityFollowsTheEventBus(t *testing.T) {
	var log syncLog
	a := newNode(t, func(c *p2p.Config) {
		c.Reachability = p2p.ReachPrivate
		c.Logger = slog.New(slog.NewTextHandler(&log, nil))
	})
	eventually(t, "private", func() bool { return a.host.Net().Reachability == p2p.ReachPrivate })
	// The change is logged for the operator.
	eventually(t, "the change in the log", func() bool {
		return strings.Contains(log.String(), `msg="reachability changed" component=p2p reachability=private`)
	})
	b := newNode(t, func(c *p2p.Config) { c.Reachability = p2p.ReachPublic })
	eventually(t, "public", func() bool { return b.host.Net().Reachability == p2p.ReachPublic })
}

func TestAnnouncedAddressReplacesListenInIdentify(t *testing.T) {
	announced := "/ip4/127.0.0.2/tcp/4001"
	a := newNode(t, func(c *p2p.Config) { c.Announce = []string{announced} })
	b := newNode(t)
	sub, err := b.host.Libp2p().EventBus().Subscribe(new(event.EvtPeerIdentificationCompleted))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	listen := a.host.Net().Listen
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := b.host.Connect(ctx, peer.AddrInfo{ID: a.host.ID(), Addrs: []ma.Multiaddr{ma.StringCast(listen[0])}}); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case <-ctx.Done():
			t.Fatal("no identify from a")
		case e := <-sub.Out():
			ev := e.(event.EvtPeerIdentificationCompleted)
			if ev.Peer != a.host.ID() {
				continue
			}
			var got []string
			for _, m := range ev.ListenAddrs {
				got = append(got, m.String())
			}
			if !slices.Equal(got, []string{announced}) {
				t.Fatalf("b learnt a's addresses %v, want only %s (not the listen %v)", got, announced, listen)
			}
			if s := a.host.Net().Announced; len(s) != 1 || s[0] != announced+"/p2p/"+a.host.ID().String() {
				t.Fatalf("a's status announces %v", s)
			}
			return
		}
	}
}

func TestAnnounceRelaysAndReachabilityAreChecked(t *testing.T) {
	n := newNode(t)
	other := newNode(t)
	self, them := n.host.ID().String(), other.host.ID().String()
	good := func() p2p.Config {
		c := testConfig()
		sealer, _ := identity.NewSealer(identity.DefaultSealerConfig(n.kr.Inbox(), n.kr.Link(), n.kr))
		c.Inbox, c.Link, c.Sealer, c.Outbox, c.Handler = n.kr.Inbox(), n.kr.Link, sealer, nopOutbox{}, n.rec
		return c
	}
	ok := []struct {
		name string
		mut  func(*p2p.Config)
	}{
		{"announce tcp", func(c *p2p.Config) { c.Announce = []string{"/ip4/203.0.113.7/tcp/4001"} }},
		{"announce quic and dns", func(c *p2p.Config) {
			c.Announce = []string{"/ip4/203.0.113.7/udp/4001/quic-v1", "/dns4/node.example.org/tcp/4001"}
		}},
		{"announce with own id", func(c *p2p.Config) { c.Announce = []string{"/ip4/203.0.113.7/tcp/4001/p2p/" + self} }},
		{"announce a circuit", func(c *p2p.Config) { c.Announce = []string{"/ip4/203.0.113.9/tcp/4001/p2p/" + them + "/p2p-circuit"} }},
		{"relays", func(c *p2p.Config) { c.Relays = []string{"/ip4/203.0.113.9/tcp/4001/p2p/" + them} }},
		{"reachability", func(c *p2p.Config) { c.Reachability = p2p.ReachPrivate }},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			c := good()
			tc.mut(&c)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
	many := func(n int, s string) []string { return slices.Repeat([]string{s}, n) }
	bad := []struct {
		field string
		mut   func(*p2p.Config)
	}{
		{"Announce[0]", func(c *p2p.Config) { c.Announce = []string{"not a multiaddr"} }},
		{"Announce[1]", func(c *p2p.Config) {
			c.Announce = []string{"/ip4/203.0.113.7/tcp/4001", "/ip4/203.0.113.7/tcp/4001/p2p/" + them}
		}},
		{"Announce[0]", func(c *p2p.Config) { c.Announce = []string{"/ip4/0.0.0.0/tcp/4001"} }},
		{"Announce[0]", func(c *p2p.Config) { c.Announce = []string{"/ip4/203.0.113.7"} }},
		{"Announce[0]", func(c *p2p.Config) { c.Announce = []string{"/p2p/" + self} }},
		{"Announce", func(c *p2p.Config) { c.Announce = many(9, "/ip4/203.0.113.7/tcp/4001") }},
		{"Relays[0]", func(c *p2p.Config) { c.Relays = []string{"/ip4/203.0.113.9/tcp/4001"} }},
		{"Relays[0]", func(c *p2p.Config) { c.Relays = []string{"/ip4/203.0.113.9/tcp/4001/p2p/" + self} }},
		{"Relays", func(c *p2p.Config) { c.Relays = many(17, "/ip4/203.0.113.9/tcp/4001/p2p/"+them) }},
		{"Reachability", func(c *p2p.Config) { c.Reachability = p2p.ReachRelayed }},
	}
	for _, tc := range bad {
		t.Run(tc.field, func(t *testing.T) {
			c := good()
			tc.mut(&c)
			err := c.Validate()
			if !errors.Is(err, p2p.ErrBadConfig) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("got %v, want bad_config naming %s", err, tc.field)
			}
			if _, err := p2p.New(c); !errors.Is(err, p2p.ErrBadConfig) {
				t.Fatalf("New accepted it: %v", err)
			}
		})
	}
}

// TestRelayServiceAdmitsOnlyParleyNodes: a libp2p peer that never runs
// Parley's identity handshake gets no reservation from a Parley relay,
// while a Parley node does.
func TestRelayServiceAdmitsOnlyParleyNodes(t *testing.T) {
	r := newNode(t, func(c *p2p.Config) { c.RelayService, c.Reachability = true, p2p.ReachPublic })
	eventually(t, "the relay to be public", func() bool { return r.host.Net().Reachability == p2p.ReachPublic })
	ri := peer.AddrInfo{ID: r.host.ID(), Addrs: r.host.Libp2p().Addrs()}
	stranger, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"), libp2p.DisableMetrics())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stranger.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := stranger.Connect(ctx, ri); err != nil {
		t.Fatal(err)
	}
	if _, err := relayclient.Reserve(ctx, stranger, ri); err == nil {
		t.Fatal("a peer without a Parley identity got a reservation")
	}
	a := newNode(t, func(c *p2p.Config) { c.Relays = []string{r.host.Addrs()[0].String()} })
	connect(t, a, r)
	if _, err := relayclient.Reserve(ctx, a.host.Libp2p(), ri); err != nil {
		t.Fatalf("a Parley node's reservation: %v", err)
	}
}

// TestBootstrapRetriesUntilAPeerAnswers: a node whose only bootstrap peer
// is not up at its start dials it again until it answers, instead of
// staying alone (the DHT and the board find peers only through peers).
func TestBootstrapRetriesUntilAPeerAnswers(t *testing.T) {
	bdir := t.TempDir()
	kr, err := openKeyring(bdir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	boot := fmt.Sprintf("/ip4/127.0.0.1/tcp/%d/p2p/%s", port, kr.Inbox().PeerID())
	a := newNode(t, withBootstrap(boot))
	eventually(t, "a's first bootstrap round to fail", func() bool { return len(a.host.Libp2p().Network().Peers()) == 0 })
	b := &testNode{t: t, dir: bdir, seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}}
	b.start(func(c *p2p.Config) { c.ListenAddrs = []string{fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", port)} })
	eventually(t, "a to reach its bootstrap peer once it is up", func() bool {
		return a.host.Libp2p().Network().Connectedness(b.host.ID()) == network.Connected
	})
}

// connectThrough dials a from b at a's circuit address, again until
// autorelay's reservation with the relay is made (20 s at most).
func connectThrough(t *testing.T, b, a *testNode, circuit string) {
	t.Helper()
	via := peer.AddrInfo{ID: a.host.ID(), Addrs: []ma.Multiaddr{ma.StringCast(circuit)}}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := b.host.Connect(ctx, via)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("b could not reach a through the relay: %v", err)
		}
		time.Sleep(100 * time.Millisecond) // autorelay's reservation is not made yet
	}
}

// punchPeer starts a plain libp2p host on loopback with a slot reserved
// at the relay r, speaking DCUtR when dcutr (a handler that only answers
// the protocol, so identify advertises it), and returns it with its
// circuit address through r.
func punchPeer(t *testing.T, r host.Host, dcutr bool) (host.Host, string) {
	t.Helper()
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"), libp2p.DisableMetrics(), libp2p.EnableRelay())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if dcutr {
		h.SetStreamHandler(holepunch.Protocol, func(s network.Stream) { _ = s.Reset() })
	}
	ri := peer.AddrInfo{ID: r.ID(), Addrs: r.Addrs()}
	if err := h.Connect(t.Context(), ri); err != nil {
		t.Fatal(err)
	}
	if _, err := relayclient.Reserve(t.Context(), h, ri); err != nil {
		t.Fatal(err)
	}
	return h, r.Addrs()[0].String() + "/p2p/" + r.ID().String() + "/p2p-circuit"
}

// TestADirectDialBesideARelayIsLeftToHolePunching: a node that opened a
// relayed connection dials the peer directly beside it, unless both run
// hole punching: then DCUtR, which the peer starts, opens the direct
// connection, and a plain dial beside it would compete with the punch
// for the same addresses (in the testbed the punched connection was then
// lost a moment later).
func TestADirectDialBesideARelayIsLeftToHolePunching(t *testing.T) {
	r := relayHost(t)
	rAddr := r.Addrs()[0].String() + "/p2p/" + r.ID().String()
	b := newNode(t, func(c *p2p.Config) { c.Relays = []string{rAddr} })
	b.host.SetPunching(true)
	plain, plainCircuit := punchPeer(t, r, false)
	punching, punchCircuit := punchPeer(t, r, true)
	direct := func(p host.Host) bool {
		for _, c := range b.host.Libp2p().Network().ConnsToPeer(p.ID()) {
			if !strings.Contains(c.RemoteMultiaddr().String(), "/p2p-circuit") {
				return true
			}
		}
		return false
	}
	dial := func(p host.Host, circuit string) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := b.host.Libp2p().Connect(ctx, peer.AddrInfo{ID: p.ID(), Addrs: []ma.Multiaddr{ma.StringCast(circuit)}}); err != nil {
			t.Fatal(err)
		}
	}
	// A peer without DCUtR: the direct dial beside the relayed connection.
	dial(plain, plainCircuit)
	eventually(t, "b's direct connection to the peer without DCUtR", func() bool { return direct(plain) })
	// A peer that speaks DCUtR: no plain dial; it is the one to punch.
	dial(punching, punchCircuit)
	eventually(t, "b to learn that the peer speaks DCUtR", func() bool {
		ps, _ := b.host.Libp2p().Peerstore().SupportsProtocols(punching.ID(), holepunch.Protocol)
		return len(ps) == 1
	})
	time.Sleep(2 * time.Second) // longer than the direct dial to the first peer took
	if direct(punching) {
		t.Fatal("b dialled the DCUtR peer directly beside the relayed connection: the punch is left to DCUtR")
	}
}
