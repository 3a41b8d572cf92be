package p2p_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
	"github.com/parleynet/parley/p2p/hostile"
)

// rawPublisher is a gossipsub peer without Parley's validators: it
// publishes whatever bytes it is given, as an attacker would. It
// identifies itself with a throw-away identity (an unidentified peer is
// disconnected after IdentifyTimeout).
type rawPublisher struct {
	id  peer.ID
	p   *hostile.Peer
	who *hostile.Identity
}

func newRawPublisher(t *testing.T, to ...*testNode) *rawPublisher {
	t.Helper()
	who := throwaway(t)
	p := startHostile(t, hostile.Config{Identity: who, Gossip: true})
	for _, n := range to {
		if err := p.Connect(t.Context(), n.info()); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Identify(t.Context(), n.host.ID()); err != nil {
			t.Fatal(err)
		}
	}
	return &rawPublisher{id: p.ID(), p: p, who: who}
}

func bundleOf(link, env []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(len(link)))
	return append(append(b, link...), env...)
}

func hasPeer(ps []peer.ID, p peer.ID) bool {
	for _, x := range ps {
		if x == p {
			return true
		}
	}
	return false
}

func TestTaskBoardRejectsInvalidAndScoresFlooder(t *testing.T) {
	victim, honest, other := newNode(t), newNode(t), newNode(t)
	connect(t, honest, victim)
	x := newRawPublisher(t, victim)
	eventually(t, "the topic peers", func() bool {
		ps := victim.host.TopicPeers(p2p.TopicTaskBoard)
		return hasPeer(ps, x.id) && hasPeer(ps, honest.host.ID()) && len(x.p.BoardPeers()) > 0
	})

	// One of each kind of invalid message, with the code that rejects it.
	direct, _ := other.build(newNID(), time.Now(), []negotiation.Address{victim.addr()})
	stale, _ := other.build(newNID(), time.Now().Add(-10*time.Minute), nil)
	future, _ := other.build(newNID(), time.Now().Add(10*time.Minute), nil)
	good, _ := other.build(newNID(), time.Now(), nil)
	good2, _ := other.build(newNID(), time.Now(), nil) // message id = envelope CID: one envelope per case
	resigned, err := negotiation.Sign(good.Bytes(), honest.kr.Inbox())
	if err != nil {
		t.Fatal(err)
	}
	ol := other.kr.Link().Bytes()
	kinds := []struct {
		data []byte
		want p2p.Code
	}{
		{bundleOf(ol, direct.Bytes()), p2p.CodeNotAnnounce},
		{bundleOf(ol, stale.Bytes()), p2p.CodeBadTimestamp},
		{bundleOf(ol, future.Bytes()), p2p.CodeBadTimestamp},
		{bundleOf(ol, resigned), p2p.Code(negotiation.CodeBadSignature)},
		{bundleOf(honest.kr.Link().Bytes(), good.Bytes()), p2p.CodeSenderMismatch},
		{bundleOf(ol[:len(ol)-2], good2.Bytes()), p2p.Code(identity.CodeMalformed)},
		{bundleOf(ol, []byte(`{"schemaVersion":"azzle-xmtp-v1"}`)), p2p.Code(negotiation.CodeSchemaInvalid)},
	}
	for i, k := range kinds {
		if err := x.p.Publish(t.Context(), k.data); err != nil {
			t.Fatal(err)
		}
		eventually(t, fmt.Sprintf("rejection %d (%s)", i, k.want), func() bool {
			rej := victim.ev.of(p2p.EventInputRejected)
			return len(rej) == i+1
		})
		if got := victim.ev.of(p2p.EventInputRejected)[i]; got.Code != k.want || got.Topic != p2p.TopicTaskBoard || got.Peer != x.id {
			t.Fatalf("message %d rejected as %+v, want %s", i, got, k.want)
		}
	}

	// Then a flood of 1,000 invalid messages.
	for i := range 1000 {
		if err := x.p.Publish(t.Context(), bundleOf(ol, fmt.Appendf(nil, "junk %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the flooder below the graylist threshold", func() bool {
		s, ok := victim.host.PeerScore(x.id)
		return ok && s < p2p.GraylistThreshold
	})
	if _, calls := victim.rec.snapshot(); calls != 0 {
		t.Fatalf("%d invalid messages reached the handler", calls)
	}
	if s, _ := victim.host.PeerScore(honest.host.ID()); s < 0 {
		t.Fatalf("honest peer's score %v is negative", s)
	}

	// Honest announcements still arrive.
	ann := honest.envelope(newNID())
	if !ann.IsAnnouncement() {
		t.Fatal("test envelope is not an announcement")
	}
	if err := honest.host.Announce(t.Context(), ann); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the honest announcement", func() bool { e, _ := victim.rec.snapshot(); return len(e) == 1 })
	if e, _ := victim.rec.snapshot(); !e[0].Equals(ann.CID()) {
		t.Fatalf("victim stored %v, want %s", e, ann.CID())
	}
	if err := honest.host.Announce(t.Context(), direct); err == nil {
		t.Fatal("Announce accepted a direct envelope")
	}
}

func TestEvidenceTopicSealedToMembers(t *testing.T) {
	poster, worker, arb := newNode(t), newNode(t), newNode(t)
	connect(t, poster, worker)
	connect(t, poster, arb)
	connect(t, worker, arb)
	members := []negotiation.Address{poster.addr(), worker.addr(), arb.addr()}
	dispute := "7"
	for _, n := range []*testNode{poster, worker, arb} {
		if err := n.host.JoinEvidence(dispute, members); err != nil {
			t.Fatal(err)
		}
	}
	topic := p2p.EvidenceTopic(dispute)
	eventually(t, "evidence topic peers", func() bool {
		return len(poster.host.TopicPeers(topic)) == 2 && len(worker.host.TopicPeers(topic)) == 2 && len(arb.host.TopicPeers(topic)) == 2
	})
	nid := newNID()
	ev := worker.envelope(nid, poster.addr(), arb.addr())
	if err := worker.host.PublishEvidence(t.Context(), dispute, ev); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*testNode{poster, arb} {
		eventually(t, "evidence at a member", func() bool { e, _ := n.rec.snapshot(); return len(e) == 1 })
		if e, _ := n.rec.snapshot(); !e[0].Equals(ev.CID()) {
			t.Fatalf("member stored %v", e)
		}
	}
	// A second message opens in its own session too.
	ev2 := poster.envelope(nid, worker.addr(), arb.addr())
	if err := poster.host.PublishEvidence(t.Context(), dispute, ev2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "second evidence", func() bool { e, _ := arb.rec.snapshot(); return len(e) == 2 })
	_ = context.Background
}

// TestRelayedJunkDoesNotBlameTheRelay has four throw-away identities
// publish valid announcements far over the board's rate through an honest
// poster (they are connected to it only), while the poster announces its
// own tasks within its allowance. The rate is judged per publisher, and
// over it messages are ignored, not rejected: the worker receives every
// one of the poster's announcements, never scores the poster down, and
// takes from each junk identity no more than its rate.
func TestRelayedJunkDoesNotBlameTheRelay(t *testing.T) {
	poster, worker := newNode(t), newNode(t)
	connect(t, poster, worker)
	junk := make([]*rawPublisher, 4)
	for i := range junk {
		junk[i] = newRawPublisher(t, poster)
	}
	eventually(t, "the board's peers", func() bool {
		for _, j := range junk {
			if !hasPeer(poster.host.TopicPeers(p2p.TopicTaskBoard), j.id) || len(j.p.BoardPeers()) == 0 {
				return false
			}
		}
		return hasPeer(worker.host.TopicPeers(p2p.TopicTaskBoard), poster.host.ID())
	})

	// The worker's score of the poster, sampled throughout.
	lowest := 0.0
	stop := make(chan struct{})
	sampled := make(chan struct{})
	var once sync.Once
	halt := func() { once.Do(func() { close(stop); <-sampled }) }
	t.Cleanup(halt)
	go func() {
		defer close(sampled)
		for {
			if s, ok := worker.host.PeerScore(poster.host.ID()); ok && s < lowest {
				lowest = s
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()

	const perJunk = 400
	sent := make([]map[string]bool, len(junk))
	start := time.Now()
	done := make(chan error, len(junk))
	for i, j := range junk {
		sent[i] = map[string]bool{}
		envs := make([]*negotiation.Envelope, perJunk)
		for k := range envs {
			env, err := j.who.Announcement(time.Now())
			if err != nil {
				t.Fatal(err)
			}
			envs[k] = env
			sent[i][env.CID().KeyString()] = true
		}
		go func() {
			// About 500/s each, ten times the rate (faster, and the
			// routers' queues drop what the rate would have refused).
			for _, env := range envs {
				if err := j.p.Publish(t.Context(), j.who.Bundle(env)); err != nil {
					done <- err
					return
				}
				time.Sleep(2 * time.Millisecond)
			}
			done <- nil
		}()
	}
	var own []*negotiation.Envelope
	for range 20 {
		for d := poster.host.ReserveAnnouncement(); d > 0; d = poster.host.ReserveAnnouncement() {
			time.Sleep(d)
		}
		env := poster.envelope(newNID())
		if err := poster.host.Announce(t.Context(), env); err != nil {
			t.Fatal(err)
		}
		own = append(own, env)
		time.Sleep(25 * time.Millisecond)
	}
	for range junk {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "every one of the poster's announcements at the worker", func() bool {
		e, _ := worker.rec.snapshot()
		got := map[string]bool{}
		for _, c := range e {
			got[c.KeyString()] = true
		}
		for _, env := range own {
			if !got[env.CID().KeyString()] {
				return false
			}
		}
		return true
	})
	elapsed := time.Since(start)
	time.Sleep(500 * time.Millisecond) // let the last junk arrive
	halt()
	if lowest < 0 {
		t.Fatalf("the worker scored the poster down to %v for relaying valid announcements", lowest)
	}
	if s, ok := worker.host.PeerScore(poster.host.ID()); !ok || s < 0 {
		t.Fatalf("the poster's score at the worker is %v (%v)", s, ok)
	}
	cfg := p2p.DefaultConfig()
	limit := cfg.TopicBurst + int(cfg.TopicRate*(elapsed+time.Second).Seconds())
	e, _ := worker.rec.snapshot()
	for i := range junk {
		n := 0
		for _, c := range e {
			if sent[i][c.KeyString()] {
				n++
			}
		}
		t.Logf("junk identity %d: %d of %d announcements reached the worker (rate limit %d)", i, n, perJunk, limit)
		if n > limit || n == 0 {
			t.Fatalf("junk identity %d: %d announcements reached the worker, want 1..%d", i, n, limit)
		}
	}
}

// TestReserveAnnouncement spends the node's own allowance: the burst less
// a tenth at once, then one per 1/TopicRate, and a refused reservation
// spends nothing.
func TestReserveAnnouncement(t *testing.T) {
	n := newNode(t, func(c *p2p.Config) { c.TopicRate, c.TopicBurst = 10, 20 })
	for i := range 18 {
		if d := n.host.ReserveAnnouncement(); d != 0 {
			t.Fatalf("reservation %d: wait %v, want none", i, d)
		}
	}
	d := n.host.ReserveAnnouncement()
	if d <= 0 || d > 100*time.Millisecond {
		t.Fatalf("over the burst: wait %v, want up to 100ms", d)
	}
	if d2 := n.host.ReserveAnnouncement(); d2 <= 0 || d2 > d {
		t.Fatalf("a refused reservation spent the allowance: %v then %v", d, d2)
	}
	time.Sleep(d + 20*time.Millisecond)
	if d := n.host.ReserveAnnouncement(); d != 0 {
		t.Fatalf("after the wait: %v", d)
	}
}
