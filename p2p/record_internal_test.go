package p2p

import (
	"crypto/rand"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/parleynet/parley/negotiation"
)

func newPeerID(t *testing.T) peer.ID {
	t.Helper()
	_, pub, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRecordStoresPublished: a node's record names its store peers once
// each, never the node itself, at most MaxRecordStores, so that the
// record it publishes always parses.
func TestRecordStoresPublished(t *testing.T) {
	self := newPeerID(t)
	at := func(port string) []ma.Multiaddr { return []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/" + port)} }
	a := peer.AddrInfo{ID: newPeerID(t), Addrs: at("1")}
	stores := []peer.AddrInfo{{ID: self, Addrs: at("2")}, a, a}
	for i := range 5 {
		stores = append(stores, peer.AddrInfo{ID: newPeerID(t), Addrs: at(string(rune('3' + i)))})
	}
	got := recordStores(self, stores)
	if len(got) != MaxRecordStores {
		t.Fatalf("%d stores named, want %d", len(got), MaxRecordStores)
	}
	seen := map[string]bool{}
	for _, m := range got {
		ai, err := peer.AddrInfoFromP2pAddr(m)
		if err != nil || ai.ID == self || seen[m.String()] {
			t.Fatalf("named %s (%v)", m, err)
		}
		seen[m.String()] = true
	}
	if ai, _ := peer.AddrInfoFromP2pAddr(got[0]); ai.ID != a.ID {
		t.Fatalf("the first store named is %s, want the first configured other than the node", got[0])
	}
	if recordStores(self, nil) != nil {
		t.Fatal("stores named without store peers")
	}
}

// TestRecordCacheIsBounded: the cache of recipients' store nodes holds at
// most recordCacheMax recipients (expired ones go first) and forgets an
// entry at its deadline.
func TestRecordCacheIsBounded(t *testing.T) {
	var c recordCache
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	addr := func(i int) (a negotiation.Address) {
		a[0], a[1] = byte(i>>8), byte(i)
		return a
	}
	c.put(addr(0), nil, now.Add(time.Second), now) // expires first
	for i := 1; i < recordCacheMax+10; i++ {
		c.put(addr(i), []peer.AddrInfo{{ID: "s"}}, now.Add(time.Hour), now.Add(2*time.Second))
	}
	if len(c.m) > recordCacheMax {
		t.Fatalf("%d recipients cached, over %d", len(c.m), recordCacheMax)
	}
	if _, ok := c.get(addr(0), now.Add(2*time.Second)); ok {
		t.Fatal("an expired entry was served")
	}
	if st, ok := c.get(addr(recordCacheMax+9), now.Add(time.Minute)); !ok || len(st) != 1 {
		t.Fatal("the newest entry is not cached")
	}
	if _, ok := c.get(addr(recordCacheMax+9), now.Add(2*time.Hour)); ok {
		t.Fatal("an entry was served after its deadline")
	}
}

// TestParsePeersMergesAPeersAddresses: a peer named twice in a configured
// list (its TCP and its QUIC address) is one peer with both addresses, in
// the order given, beside the others in theirs.
func TestParsePeersMergesAPeersAddresses(t *testing.T) {
	a, b := newPeerID(t), newPeerID(t)
	got := parsePeers([]string{
		"/ip4/11.0.0.11/tcp/4001/p2p/" + a.String(),
		"/ip4/11.0.0.12/tcp/4001/p2p/" + b.String(),
		"/ip4/11.0.0.11/udp/4001/quic-v1/p2p/" + a.String(),
	})
	want := []peer.AddrInfo{
		{ID: a, Addrs: []ma.Multiaddr{ma.StringCast("/ip4/11.0.0.11/tcp/4001"), ma.StringCast("/ip4/11.0.0.11/udp/4001/quic-v1")}},
		{ID: b, Addrs: []ma.Multiaddr{ma.StringCast("/ip4/11.0.0.12/tcp/4001")}},
	}
	if len(got) != len(want) {
		t.Fatalf("parsePeers = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || !slices.EqualFunc(got[i].Addrs, want[i].Addrs, ma.Multiaddr.Equal) {
			t.Fatalf("parsePeers[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
