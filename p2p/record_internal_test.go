package p2p

import (
	"crypto/rand"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
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
