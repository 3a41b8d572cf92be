package p2p_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	libp2pnet "github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
	"github.com/parleynet/parley/p2p/hostile"
)

// startHostile starts a hostile peer closed when the test ends.
func startHostile(t *testing.T, cfg hostile.Config) *hostile.Peer {
	t.Helper()
	p, err := hostile.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// throwaway returns a fresh identity.
func throwaway(t *testing.T) *hostile.Identity {
	t.Helper()
	id, err := hostile.NewIdentity(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// identified starts a hostile peer with a throw-away identity, connects it
// to n and completes the identity handshake; it returns the peer and n's
// link as n answered.
func identified(t *testing.T, n *testNode, gossip bool) (*hostile.Peer, *hostile.Identity, *identity.Link) {
	t.Helper()
	id := throwaway(t)
	p := startHostile(t, hostile.Config{Identity: id, Gossip: gossip})
	if err := p.Connect(t.Context(), n.info()); err != nil {
		t.Fatal(err)
	}
	link, err := p.Identify(t.Context(), n.host.ID())
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the handshake on the victim's side", func() bool { return n.host.Identified(p.ID()) })
	return p, id, link
}

// TestUnidentifiedPeerWritesNothing floods a node from peers that never
// complete the identity handshake: one without any link, one with a valid
// throw-away identity that does not present it. Every frame is answered
// unknown_link (retryable) without being opened, recorded or reported,
// the peers are cut off, and an honest peer whose frames arrive while its
// handshake is still under way is delivered without a retry.
func TestUnidentifiedPeerWritesNothing(t *testing.T) {
	// The first frames of a connection wait half the deadline for the
	// handshake and are answered before the sweeper cuts the peer off at
	// the deadline: a short one leaves a loaded machine too narrow a window.
	victim := newNode(t, func(c *p2p.Config) { c.IdentifyTimeout = 6 * time.Second })
	head := victim.led.Head()
	for _, tc := range []struct {
		name string
		cfg  hostile.Config
	}{
		{"no link at all", hostile.Config{}},
		{"a valid identity never presented", hostile.Config{Identity: throwaway(t)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := startHostile(t, tc.cfg)
			if err := x.Connect(t.Context(), victim.info()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			// A few frames, under the ban, are each answered unknown_link;
			// then a flood past it cuts the peer off (the answers queued
			// when the victim resets the stream may be lost, so the flood's
			// own answers are only held to the code).
			res := x.Flood(ctx, victim.host.ID(), 16, hostile.Garbage)
			t.Logf("frames: %d written, %d acked %v in %v (%v)", res.Written, res.Acked, res.Acks, res.Elapsed, res.Err)
			if res.Acked != 16 || res.Acks[p2p.CodeUnknownLink] != res.Acked {
				t.Fatalf("acks %v, want 16 unknown_link", res.Acks)
			}
			res = x.Flood(ctx, victim.host.ID(), 20_000, hostile.Garbage)
			t.Logf("flood: %d written, %d acked %v in %v (%v)", res.Written, res.Acked, res.Acks, res.Elapsed, res.Err)
			if res.Acks[p2p.CodeUnknownLink] != res.Acked {
				t.Fatalf("acks %v, want only unknown_link", res.Acks)
			}
			if p2p.CodeUnknownLink.Outcome() != p2p.Retry {
				t.Fatal("unknown_link is not retried by an honest sender")
			}
			eventually(t, "the unidentified peer cut off", func() bool { return !x.Connected(victim.host.ID()) })
		})
	}
	if ev := victim.ev.of(p2p.EventInputRejected); len(ev) != 0 {
		t.Fatalf("%d rejections reported for frames of unidentified peers: %+v", len(ev), ev[0])
	}
	if _, calls := victim.rec.snapshot(); calls != 0 {
		t.Fatalf("the handler saw %d frames of unidentified peers", calls)
	}
	if victim.led.Head() != head {
		t.Fatal("frames of unidentified peers reached the ledger")
	}
	if st := victim.host.GuardStats(); st.UnidentifiedFrames == 0 {
		t.Fatalf("guard stats %+v", st)
	}

	// An honest sender that has never met the victim: its first frames
	// go out while the handshake of the new connection is under way.
	honest := newNode(t)
	if err := honest.host.AddPeer(victim.kr.Link(), []peer.AddrInfo{victim.info()}); err != nil {
		t.Fatal(err)
	}
	before := victim.host.GuardStats().UnidentifiedFrames
	for range 10 {
		if err := honest.host.Send(t.Context(), honest.envelope(newNID(), victim.addr())); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the honest envelopes", func() bool { return len(honest.ev.of(p2p.EventDelivered)) == 10 })
	for _, e := range honest.ev.of(p2p.EventDelivered) {
		if e.Code != p2p.CodeOK {
			t.Fatalf("honest envelope acked %q", e.Code)
		}
	}
	if got := victim.host.GuardStats().UnidentifiedFrames; got != before {
		t.Fatalf("the honest peer mid-handshake was answered unknown_link %d times", got-before)
	}
}

// TestGarbageFloodBansPeer has an identified peer send 20,000 garbage
// frames without waiting for acks: after a few dozen rejections it is
// banned (disconnected, refused, below the graylist threshold on gossip),
// so the flood is reported a bounded number of times.
func TestGarbageFloodBansPeer(t *testing.T) {
	victim := newNode(t)
	x, _, _ := identified(t, victim, true)
	eventually(t, "the flooder on the board", func() bool { return hasPeer(victim.host.TopicPeers(p2p.TopicTaskBoard), x.ID()) })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res := x.Flood(ctx, victim.host.ID(), 20_000, hostile.Garbage)
	t.Logf("flood: %d written, %d acked %v in %v (%v)", res.Written, res.Acked, res.Acks, res.Elapsed, res.Err)
	rej := victim.ev.of(p2p.EventInputRejected)
	if len(rej) == 0 || len(rej) > 64 {
		t.Fatalf("%d rejections reported for a flood of 20,000 garbage frames, want a few dozen", len(rej))
	}
	for _, e := range rej {
		if e.Peer != x.ID() || e.Code != p2p.Code(identity.CodeBadFrame) {
			t.Fatalf("rejection %+v", e)
		}
	}
	if _, ok := victim.host.Banned(x.ID()); !ok {
		t.Fatal("the flooder is not banned")
	}
	eventually(t, "the flooder disconnected", func() bool { return !x.Connected(victim.host.ID()) })
	// Nothing of it stays: neither its identity link nor its peerstore
	// entries (throw-away identities banned one after the other would
	// grow both without bound).
	eventually(t, "the banned peer forgotten", func() bool {
		_, known := victim.host.PeerLink(x.ID())
		ps := victim.host.Libp2p().Peerstore()
		protos, _ := ps.GetProtocols(x.ID())
		return !known && len(protos) == 0 && len(ps.Addrs(x.ID())) == 0
	})
	refused := victim.host.GuardStats().RefusedConns
	_ = x.Connect(t.Context(), victim.info()) // may complete on the dialler's side before the victim refuses
	eventually(t, "the reconnection refused", func() bool {
		return victim.host.GuardStats().RefusedConns > refused && !x.Connected(victim.host.ID())
	})
	if victim.host.Identified(x.ID()) {
		t.Fatal("a banned peer is identified again")
	}
	// Gossipsub keeps the score of a peer that left with a score below 0.
	eventually(t, "the banned peer's gossip score below the graylist threshold", func() bool {
		s, ok := victim.host.PeerScore(x.ID())
		return ok && s < p2p.GraylistThreshold
	})
	if st := victim.host.GuardStats(); st.Bans != 1 || st.RefusedConns == 0 {
		t.Fatalf("guard stats %+v", st)
	}
}

// TestOverBudgetPeerIsBanned has an identified peer send valid envelopes
// far beyond its frame budget without heeding busy: frames over the
// budget are answered busy and not handled, and a peer that keeps on is
// banned.
func TestOverBudgetPeerIsBanned(t *testing.T) {
	victim := newNode(t, func(c *p2p.Config) { c.PeerFrameRate, c.PeerFrameBurst = 20, 64 })
	x, id, link := identified(t, victim, false)
	const n = 2000
	frames := make([][]byte, n)
	for i := range frames {
		env, err := id.Envelope(newNID(), time.Now(), victim.addr())
		if err != nil {
			t.Fatal(err)
		}
		if frames[i], err = id.Seal(link, env, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	res := x.Flood(ctx, victim.host.ID(), n, func(i int) []byte { return frames[i] })
	t.Logf("flood: %d written, %d acked %v in %v (%v)", res.Written, res.Acked, res.Acks, res.Elapsed, res.Err)
	if res.Acks[p2p.CodeBusy] == 0 || res.Acked >= n {
		t.Fatalf("acks %v: want busy, then the stream cut", res.Acks)
	}
	if _, banned := victim.host.Banned(x.ID()); !banned {
		t.Fatal("the peer over its budget is not banned")
	}
	eventually(t, "the peer disconnected", func() bool { return !x.Connected(victim.host.ID()) })
	// What the budget let through is all the handler saw (the acks of
	// the last ones were lost with the stream).
	limit := 64 + int(20*res.Elapsed.Seconds()) + 8
	if effects, _ := victim.rec.snapshot(); len(effects) > limit {
		t.Fatalf("the handler took %d envelopes, over the budget of %d", len(effects), limit)
	}
	if st := victim.host.GuardStats(); st.OverBudgetFrames == 0 || st.Bans != 1 {
		t.Fatalf("guard stats %+v", st)
	}
	if len(victim.ev.of(p2p.EventInputRejected)) != 0 {
		t.Fatal("frames over the budget were reported as rejected input")
	}
}

// TestHonestBurstWithinBudget sends 2,000 envelopes from 32 goroutines, as
// the one-way benchmark does: the default budgets never answer busy.
func TestHonestBurstWithinBudget(t *testing.T) {
	a, b := newNode(t), newNode(t)
	connect(t, a, b)
	const n, senders = 2000, 32
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			me := &testNode{t: t, kr: a.kr, seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}}
			nid := newNID()
			for range n / senders {
				env, err := me.build(nid, time.Now(), []negotiation.Address{b.addr()})
				if err != nil {
					t.Error(err)
					return
				}
				if err := a.host.Send(context.Background(), env); err != nil {
					t.Error(g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	eventually(t, "every envelope acked", func() bool { return len(a.ev.of(p2p.EventDelivered)) == n/senders*senders })
	if st := b.host.GuardStats(); st.OverBudgetFrames != 0 || st.Bans != 0 || st.UnidentifiedFrames != 0 {
		t.Fatalf("an honest burst hit the budgets: %+v", st)
	}
}

// TestThrowawaysCannotHoldInboundSlots connects more throw-away peers than
// the inbound connection limit, none of which identifies itself: an
// honest newcomer still connects, identifies itself and delivers an
// envelope, no more than MaxUnidentified throw-aways stay connected, and
// the rest are disconnected once the identification deadline passes.
func TestThrowawaysCannotHoldInboundSlots(t *testing.T) {
	def := p2p.DefaultConfig()
	limits := rcmgr.DefaultLimits
	libp2p.SetDefaultServiceLimits(&limits)
	inbound := int(limits.Scale(def.ResourceMemory, def.ResourceFDs).ToPartialLimitConfig().System.ConnsInbound)
	for _, tc := range []struct {
		name     string
		deadline time.Duration
	}{
		// A deadline far away: only the slots held for identified peers
		// let the newcomer in.
		{"slots held for identified peers", 30 * time.Second},
		// A short deadline: every throw-away is gone soon after.
		{"identification deadline", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			victim := newNode(t, func(c *p2p.Config) {
				c.ResourceMemory, c.ResourceFDs = def.ResourceMemory, def.ResourceFDs
				c.IdentifyTimeout = tc.deadline
			})
			n := inbound + 4
			peers := make([]*hostile.Peer, n)
			var wg sync.WaitGroup
			sem := make(chan struct{}, 8)
			for i := range peers {
				peers[i] = startHostile(t, hostile.Config{})
				wg.Go(func() {
					sem <- struct{}{}
					defer func() { <-sem }()
					_ = peers[i].Connect(t.Context(), victim.info()) // refusals are expected
				})
			}
			wg.Wait()
			held := func() int {
				c := 0
				for _, p := range peers {
					if p.Connected(victim.host.ID()) {
						c++
					}
				}
				return c
			}
			t.Logf("%d throw-aways (inbound limit %d) hold %d connections; guard %+v", n, inbound, held(), victim.host.GuardStats())
			newcomer := newNode(t)
			connect(t, newcomer, victim)
			env := newcomer.envelope(newNID(), victim.addr())
			if err := newcomer.host.Send(t.Context(), env); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the newcomer's envelope", func() bool {
				e, _ := victim.rec.snapshot()
				return len(e) == 1 && e[0].Equals(env.CID())
			})
			if tc.deadline > 10*time.Second {
				// (A throw-away learns of its eviction a moment later.)
				eventually(t, "the throw-aways within MaxUnidentified", func() bool { return held() <= def.MaxUnidentified })
			} else {
				eventually(t, "every throw-away gone", func() bool { return held() == 0 })
				if st := victim.host.GuardStats(); st.LateClosed == 0 {
					t.Fatalf("guard stats %+v", st)
				}
				// Nothing of them stays in the peerstore (keys, protocols,
				// metadata, addresses): a stream of throw-aways would grow it
				// without bound.
				eventually(t, "the throw-aways forgotten by the peerstore", func() bool {
					ps := victim.host.Libp2p().Peerstore()
					for _, p := range peers {
						if len(ps.Addrs(p.ID())) > 0 || slices.Contains(ps.PeersWithKeys(), p.ID()) {
							return false
						}
						if protos, _ := ps.GetProtocols(p.ID()); len(protos) > 0 {
							return false
						}
					}
					return true
				})
			}
		})
	}
}

// TestConnManagerTrimsIdlePeersNotCounterparties: identified peers are not
// protected from the connection manager (a node many peers meet would
// hold them all until its resource limits refused newcomers); a peer the
// outbox has a stream open to is (tag parley/envelopes), as gossipsub
// protects its mesh peers. Over its watermarks the node trims the other
// idle peers down to the low watermark and keeps the counterparty.
func TestConnManagerTrimsIdlePeersNotCounterparties(t *testing.T) {
	// A connection is never trimmed in its first second (the grace
	// period; a minute by default): the outbox's stream, and with it the
	// protection, follows the dial.
	const grace = time.Second
	v := newNode(t, func(c *p2p.Config) { c.ConnLow, c.ConnHigh, c.ConnGrace = 1, 4, grace })
	var idle []*testNode
	for range 16 { // more than gossipsub's mesh holds (12)
		x := newNode(t)
		connect(t, x, v)
		idle = append(idle, x)
	}
	counterparty := newNode(t)
	if err := v.host.AddPeer(counterparty.kr.Link(), []peer.AddrInfo{counterparty.info()}); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	if err := v.host.Send(t.Context(), v.envelope(newNID(), counterparty.addr())); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the counterparty's envelope", func() bool { e, _ := counterparty.rec.snapshot(); return len(e) == 1 })
	cm := v.host.Libp2p().ConnManager()
	if !cm.IsProtected(counterparty.host.ID(), "parley/envelopes") {
		t.Fatal("the peer the outbox has a stream to is not protected")
	}

	vnet := v.host.Libp2p().Network()
	eventually(t, "the idle peers trimmed to the low watermark", func() bool {
		cm.TrimOpenConns(t.Context())
		unprotected, trimmed := 0, 0
		for _, x := range idle {
			switch {
			case vnet.Connectedness(x.host.ID()) != libp2pnet.Connected:
				trimmed++
			case !cm.IsProtected(x.host.ID(), ""): // gossipsub's mesh peers are
				unprotected++
			}
		}
		return trimmed > 0 && unprotected <= 1 && time.Since(sent) > 2*grace
	})
	if vnet.Connectedness(counterparty.host.ID()) != libp2pnet.Connected {
		t.Fatal("the counterparty the outbox sends to was trimmed")
	}
}
