package p2p_test

import (
	"testing"
	"time"

	"github.com/parleynet/parley/p2p"
)

func TestDHTLookupAmongTwentyPeers(t *testing.T) {
	dhtOn := func(c *p2p.Config) { c.DHT, c.DHTServer = true, true }
	first := newNode(t, dhtOn)
	nodes := []*testNode{first}
	for range 19 {
		nodes = append(nodes, newNode(t, dhtOn, withBootstrap(first.bootstrapAddr())))
	}
	target, asker := nodes[19], nodes[7]
	// Every node publishes its record once its routing table has peers.
	eventually(t, "the target's record to be published", func() bool {
		return target.host.PublishRecord(t.Context()) == nil
	})
	var got bool
	eventually(t, "the lookup", func() bool {
		l, err := asker.host.Lookup(t.Context(), target.addr())
		if err != nil {
			return false
		}
		got = l.PeerID == target.host.ID() && l.Hash() == target.kr.Link().Hash()
		return true
	})
	if !got {
		t.Fatal("lookup returned another link")
	}
	// The lookup taught the asker where the target is: it can deliver.
	env := asker.envelope(newNID(), target.addr())
	if err := asker.host.Send(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	eventually(t, "delivery to the looked-up peer", func() bool { e, _ := target.rec.snapshot(); return len(e) == 1 })

	// An address nobody published is not found.
	stranger := newNode(t)
	if _, err := asker.host.Lookup(t.Context(), stranger.addr()); p2p.CodeOf(err) != p2p.CodeNotFound {
		t.Fatalf("lookup of an unpublished address: %v", err)
	}
	_ = time.Second
}
