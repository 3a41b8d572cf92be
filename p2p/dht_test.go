package p2p_test

import (
	"slices"
	"testing"
	"time"

	ma "github.com/multiformats/go-multiaddr"

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

// TestRecordRepublishedWhenAddressesChange: a node whose advertised
// addresses change (here a new listen address; a NAT mapping learnt or a
// move to another host are the same event) puts its DHT record again,
// so a lookup finds the new address without waiting for the half-TTL
// republish (12 h).
func TestRecordRepublishedWhenAddressesChange(t *testing.T) {
	dhtOn := func(c *p2p.Config) { c.DHT, c.DHTServer = true, true }
	first := newNode(t, dhtOn)
	nodes := []*testNode{first}
	for range 5 {
		nodes = append(nodes, newNode(t, dhtOn, withBootstrap(first.bootstrapAddr())))
	}
	target, asker := nodes[5], nodes[2]
	eventually(t, "the target's record", func() bool {
		_, err := asker.host.LookupRecord(t.Context(), target.addr())
		return err == nil
	})
	before := target.host.Libp2p().Addrs()
	if err := target.host.Libp2p().Network().Listen(ma.StringCast("/ip4/127.0.0.1/tcp/0")); err != nil {
		t.Fatal(err)
	}
	var added ma.Multiaddr
	eventually(t, "the new listen address", func() bool {
		for _, a := range target.host.Libp2p().Addrs() {
			if !slices.ContainsFunc(before, a.Equal) {
				added = a
			}
		}
		return added != nil
	})
	if r, err := asker.host.LookupRecord(t.Context(), target.addr()); err != nil || slices.ContainsFunc(r.Addrs, added.Equal) {
		t.Fatalf("the record before the change: %v, %v", r, err)
	}
	eventually(t, "a lookup to return the new address", func() bool {
		r, err := asker.host.LookupRecord(t.Context(), target.addr())
		return err == nil && slices.ContainsFunc(r.Addrs, added.Equal)
	})
}

// TestRecordRepublishedAsTheNetworkGrows: a node that put its record
// while its routing table held one peer puts it again once the table has
// doubled, so that the record reaches the peers closest to its key among
// the newcomers (recordCheck shortened from a minute).
func TestRecordRepublishedAsTheNetworkGrows(t *testing.T) {
	t.Cleanup(p2p.SetRecordCheck(100 * time.Millisecond))
	dhtOn := func(c *p2p.Config) { c.DHT, c.DHTServer = true, true }
	first := newNode(t, dhtOn)
	target := newNode(t, dhtOn, withBootstrap(first.bootstrapAddr()))
	// The record settles: the same record for three seconds (the start's
	// address events put it a second time).
	var r0 *p2p.AddressRecord
	eventually(t, "the target's first record to settle", func() bool {
		r, err := first.host.LookupRecord(t.Context(), target.addr())
		if err != nil {
			return false
		}
		if r0 == nil || !r.Issued.Equal(r0.Issued) {
			r0 = r
			return false
		}
		time.Sleep(3 * time.Second)
		r2, err := first.host.LookupRecord(t.Context(), target.addr())
		return err == nil && r2.Issued.Equal(r0.Issued)
	})
	for range 4 {
		newNode(t, dhtOn, withBootstrap(first.bootstrapAddr()))
	}
	eventually(t, "the record put again", func() bool {
		r, err := first.host.LookupRecord(t.Context(), target.addr())
		return err == nil && r.Issued.After(r0.Issued)
	})
}
