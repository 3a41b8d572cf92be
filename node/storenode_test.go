package node_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// withStorePeer points the node at store nodes.
func withStorePeer(stores ...*tnode) nodeOpt {
	return func(n *tnode) {
		for _, s := range stores {
			n.cfg.P2P.StorePeers = append(n.cfg.P2P.StorePeers, s.Addrs()[0].String())
		}
	}
}

// stop closes the node and keeps its listen address for start.
func (n *tnode) stop() {
	t := n.w.t
	t.Helper()
	s := n.Addrs()[0].String()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n.cfg.P2P.Listen = []string{s[:strings.Index(s, "/p2p/")]}
}

// countKind counts the node's ledger entries of kind whose body has
// field = value (any body when field is "").
func countKind(t *testing.T, n *tnode, kind, field, value string) int {
	t.Helper()
	c := 0
	for e, err := range n.Ledger().ByKind(t.Context(), kind) {
		if err != nil {
			t.Fatal(err)
		}
		var b map[string]any
		_ = json.Unmarshal(e.Body, &b)
		if field == "" || b[field] == value {
			c++
		}
	}
	return c
}

// TestOfflineDeliveryThroughStoreNode: three real nodes on loopback. The
// worker goes offline; the poster's proposals to it are handed to the
// worker's store node (the poster's outbox settles them as held), while
// one to a node the store does not serve is refused there (not_served:
// nothing held, the item stays in the poster's outbox). The worker comes
// back on the same data directory and collects its mail: each envelope is
// applied once; stopped again before its next fetch acknowledged them,
// it is served them again and its handler answers duplicate; its next
// fetch acknowledges them and the store holds nothing more. The worker
// answers one proposal directly, and every ledger verifies.
func TestOfflineDeliveryThroughStoreNode(t *testing.T) {
	w := newWorld(t, false)
	worker := w.add("worker")
	stranger := w.add("stranger")
	store := w.add("store", func(n *tnode) {
		n.cfg.Store.Enabled, n.cfg.Store.Serve = true, []string{worker.Address().String()}
	})
	if store.Mailbox() == nil || worker.Mailbox() != nil {
		t.Fatal("store.enabled does not make exactly the store a store node")
	}
	poster := w.add("poster", withBootstrap(worker, stranger, store), withStorePeer(store))
	worker.stop()
	withStorePeer(store)(worker)
	withBootstrap(poster)(worker)
	worker.start()
	connect(t, poster, worker)
	connect(t, poster, stranger)

	// Online: a proposal goes directly.
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Direct", eth(10)))
	if err != nil {
		t.Fatal(err)
	}
	worker.waitState(res.Thread.NegotiationID, negotiation.StateProposed)

	worker.stop()
	stranger.stop()
	var nids []string
	for i := range 3 {
		res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Offline "+string(rune('a'+i)), eth(10)))
		if err != nil {
			t.Fatal(err)
		}
		nids = append(nids, res.Thread.NegotiationID)
	}
	sres, err := poster.ProposeTask(t.Context(), stranger.Address(), spec("Not served", eth(10)))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the store to hold the worker's three envelopes", func() bool {
		n, _ := store.Mailbox().Held(worker.Address())
		return n == 3
	})
	eventually(t, "the poster's outbox to settle them as held", func() bool {
		return countKind(t, poster, ledger.KindOutboxAcked, "status", "held") == 3
	})
	pending, err := node.NewOutboxStore(poster.Ledger()).Pending(t.Context())
	if err != nil || len(pending) != 1 || pending[0].NegotiationID != sres.Thread.NegotiationID || pending[0].To != stranger.Address() {
		t.Fatalf("the poster's outbox holds %+v (%v), want only the stranger's proposal", pending, err)
	}
	if n, _ := store.Mailbox().Held(stranger.Address()); n != 0 || countKind(t, store, node.KindMailboxHeld, "", "") != 3 {
		t.Fatalf("the store held mail for a recipient it does not serve (%d, %d entries)", n, countKind(t, store, node.KindMailboxHeld, "", ""))
	}

	applied := func(when string) {
		t.Helper()
		for _, nid := range nids {
			worker.waitState(nid, negotiation.StateProposed)
			if k := kinds(t, worker, nid); k["envelope.received"] != 1 || k["thread.opened"] != 1 {
				t.Fatalf("%s: the worker's ledger for %s: %v", when, nid, k)
			}
		}
	}
	// Back on the same data directory: collected at start, applied once.
	worker.start()
	applied("after coming back")
	// Stopped before a next fetch acknowledged them: served again, taken
	// as duplicates.
	worker.stop()
	worker.start()
	if _, err := worker.Host().CollectMail(t.Context()); err != nil {
		t.Fatal(err)
	}
	applied("after a second restart")
	if n, _ := store.Mailbox().Held(worker.Address()); n != 3 {
		t.Fatalf("the store dropped mail not acknowledged: %d held", n)
	}
	// The next fetch acknowledges them.
	if n, err := worker.Host().CollectMail(t.Context()); err != nil || n != 0 {
		t.Fatalf("collecting again took %d (%v)", n, err)
	}
	if n, b := store.Mailbox().Held(worker.Address()); n != 0 || b != 0 {
		t.Fatalf("after the acknowledging fetch the store holds %d items, %d bytes", n, b)
	}
	applied("after the acknowledgement")

	// The worker answers one of them; the poster sees it.
	if _, err := worker.Accept(t.Context(), nids[0]); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nids[0], 2)
	for _, n := range []*tnode{poster, worker, store} {
		if _, err := n.Ledger().Verify(t.Context()); err != nil {
			t.Fatalf("%s's ledger: %v", n.name, err)
		}
	}
}
