package p2p_test

import (
	"context"
	"encoding/binary"
	"fmt"
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
