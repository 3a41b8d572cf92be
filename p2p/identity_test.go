package p2p_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/network"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// TestHandshakeRejectsBadLinks connects a raw libp2p host that presents
// another node's link (its peer id is not the connection's), a link that
// does not parse, and then checks that a valid peer is accepted.
func TestHandshakeRejectsBadLinks(t *testing.T) {
	a, b := newNode(t), newNode(t)
	cases := []struct {
		name string
		link []byte
		want p2p.Code
	}{
		{"another peer's link", a.kr.Link().Bytes(), p2p.Code(identity.CodePeerIDMismatch)},
		{"not a link", []byte(`{"evmAddress":"0x0"}`), p2p.Code(identity.CodeMalformed)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"), libp2p.DisableRelay(), libp2p.DisableMetrics())
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if err := m.Connect(t.Context(), b.info()); err != nil {
				t.Fatal(err)
			}
			s, err := m.NewStream(t.Context(), b.host.ID(), p2p.ProtocolIdentity)
			if err != nil {
				t.Fatal(err)
			}
			msg := binary.AppendUvarint(nil, uint64(len(tc.link)))
			if _, err := s.Write(append(msg, tc.link...)); err != nil {
				t.Fatal(err)
			}
			_ = s.SetReadDeadline(time.Now().Add(30 * time.Second))
			if _, err := binary.ReadUvarint(bufio.NewReader(s)); err == nil {
				t.Fatal("b answered a peer whose link failed")
			}
			eventually(t, "the rejection", func() bool {
				for _, e := range b.ev.of(p2p.EventPeerRejected) {
					if e.Peer == m.ID() && e.Code == tc.want {
						return true
					}
				}
				return false
			})
			eventually(t, "the disconnect", func() bool {
				return m.Network().Connectedness(b.host.ID()) != network.Connected
			})
			if _, ok := b.host.Link(a.addr()); ok {
				t.Fatal("b recorded a link presented by the wrong peer")
			}
		})
	}
	connect(t, a, b)
	if ev := b.ev.of(p2p.EventPeerVerified); len(ev) == 0 || ev[len(ev)-1].Peer != a.host.ID() {
		t.Fatalf("verified events %+v", ev)
	}
}

func TestAddPeerRefusesExpiredLink(t *testing.T) {
	a, b := newNode(t), newNode(t)
	past := time.Now().Add(-48 * time.Hour)
	expired, err := identity.CreateLink(b.kr.EVM(), b.kr.Inbox(), b.kr.Link().EncryptionKeys, past, past.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.host.AddPeer(expired, nil); !errors.Is(err, identity.ErrLinkExpired) {
		t.Fatalf("AddPeer of an expired link: %v", err)
	}
	if _, ok := a.host.Link(b.addr()); ok {
		t.Fatal("expired link recorded")
	}
	if err := a.host.AddPeer(b.kr.Link(), nil); err != nil {
		t.Fatal(err)
	}
	if l, ok := a.host.Link(b.addr()); !ok || l.Hash() != b.kr.Link().Hash() {
		t.Fatal("valid link not recorded")
	}
	if _, ok := a.host.Link(negotiation.Address{1}); ok {
		t.Fatal("unknown address has a link")
	}
}

func TestConfigValidateNamesTheBadField(t *testing.T) {
	n := newNode(t)
	good := func() p2p.Config {
		c := testConfig()
		sealer, _ := identity.NewSealer(identity.DefaultSealerConfig(n.kr.Inbox(), n.kr.Link(), n.kr))
		c.Inbox, c.Link, c.Sealer, c.Outbox, c.Handler = n.kr.Inbox(), n.kr.Link, sealer, nil, n.rec
		c.Outbox = nopOutbox{}
		return c
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("good config: %v", err)
	}
	cases := []struct {
		field string
		mut   func(*p2p.Config)
	}{
		{"Inbox", func(c *p2p.Config) { c.Inbox = nil }},
		{"Sealer", func(c *p2p.Config) { c.Sealer = nil }},
		{"Handler", func(c *p2p.Config) { c.Handler = nil }},
		{"ListenAddrs", func(c *p2p.Config) { c.ListenAddrs = nil }},
		{"ListenAddrs[0]", func(c *p2p.Config) { c.ListenAddrs = []string{"not a multiaddr"} }},
		{"Bootstrap[0]", func(c *p2p.Config) { c.Bootstrap = []string{"/ip4/127.0.0.1/tcp/1"} }},
		{"MaxFrameBytes", func(c *p2p.Config) { c.MaxFrameBytes = 10 }},
		{"Window", func(c *p2p.Config) { c.Window = 0 }},
		{"RetryMin", func(c *p2p.Config) { c.RetryMax = c.RetryMin / 2 }},
		{"SubscriptionBuffer", func(c *p2p.Config) { c.SubscriptionBuffer = 8 }},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			c := good()
			tc.mut(&c)
			err := c.Validate()
			if !errors.Is(err, p2p.ErrBadConfig) || !containsWord(err.Error(), tc.field) {
				t.Fatalf("got %v, want bad_config naming %s", err, tc.field)
			}
			if _, err := p2p.New(c); !errors.Is(err, p2p.ErrBadConfig) {
				t.Fatalf("New accepted it: %v", err)
			}
		})
	}
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w {
			return true
		}
	}
	return false
}

// nopOutbox satisfies the interface for configuration checks only (no
// host is started with it).
type nopOutbox struct{}

func (nopOutbox) Put(context.Context, p2p.OutboxItem) error { return nil }
func (nopOutbox) Settle(context.Context, p2p.OutboxItem, p2p.OutboxStatus, p2p.Code) error {
	return nil
}
func (nopOutbox) Pending(context.Context) ([]p2p.OutboxItem, error) { return nil, nil }

// TestReconnectWithAnExpiredLinkIsRefused: a peer presenting again the
// link this node verified for it skips the signature checks, never the
// times. b's clock passes a's link's expiry while they are apart; a's
// reconnection with the same link is refused as expired.
func TestReconnectWithAnExpiredLinkIsRefused(t *testing.T) {
	var skew atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	a := newNode(t)
	b := newNode(t, func(c *p2p.Config) { c.Clock = clock })
	connect(t, a, b)
	verified := len(b.ev.of(p2p.EventPeerVerified))
	if err := a.host.Libp2p().Network().ClosePeer(b.host.ID()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the disconnect", func() bool {
		return b.host.Libp2p().Network().Connectedness(a.host.ID()) != network.Connected
	})

	// The same link again, still current: accepted.
	connect(t, a, b)
	eventually(t, "the second verification", func() bool { return len(b.ev.of(p2p.EventPeerVerified)) > verified })
	_ = a.host.Libp2p().Network().ClosePeer(b.host.ID())
	eventually(t, "the second disconnect", func() bool {
		return b.host.Libp2p().Network().Connectedness(a.host.ID()) != network.Connected
	})

	skew.Store(int64(time.Until(a.kr.Link().ExpiresAt) + time.Minute))
	if err := a.host.Connect(t.Context(), b.info()); err != nil {
		t.Logf("connect: %v (b may close it first)", err)
	}
	eventually(t, "the expired link's rejection", func() bool {
		for _, e := range b.ev.of(p2p.EventPeerRejected) {
			if e.Peer == a.host.ID() && e.Code == p2p.Code(identity.CodeLinkExpired) {
				return true
			}
		}
		return false
	})
	eventually(t, "the disconnect", func() bool {
		return b.host.Libp2p().Network().Connectedness(a.host.ID()) != network.Connected
	})
}
