package node_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
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

// unheld returns the node's outbox items not settled, not counting those
// a store node holds (which wait for the recipient's own ack).
func unheld(t *testing.T, n *tnode) ([]p2p.OutboxItem, error) {
	t.Helper()
	items, err := node.NewOutboxStore(n.Ledger()).Pending(t.Context())
	var out []p2p.OutboxItem
	for _, it := range items {
		if !it.Held {
			out = append(out, it)
		}
	}
	return out, err
}

// withDHT runs the node's DHT as a server (on loopback AutoNAT never
// concludes public, so a node in auto mode would only be a client), with
// the harness's quick retries.
func withDHT() nodeOpt {
	return func(n *tnode) {
		n.cfg.P2P.DHT = true
		n.extra = append(n.extra, node.WithP2PTuning(func(c *p2p.Config) {
			c.RetryMin, c.AckTimeout, c.DialTimeout = 20*time.Millisecond, 10*time.Second, 5*time.Second
			c.ResourceMemory, c.ResourceFDs = 64<<20, 256
			c.DHTServer = true
		}))
	}
}

// TestOfflineDeliveryThroughRecipientsStoreNode: the poster names no
// store node of its own (p2p.store_peers empty). The worker's store node
// S serves it, and the worker's DHT record names S. The worker goes
// offline; the poster's proposals to it are handed to S, found through
// the worker's record (the poster's outbox settles them as held). The
// worker comes back, collects them from S and applies each once; it
// meets the poster, whose held items then go directly and are answered
// duplicate: the poster's items end delivered, its outbox is empty, and
// every ledger verifies.
func TestOfflineDeliveryThroughRecipientsStoreNode(t *testing.T) {
	w := newWorld(t, false)
	worker := w.add("worker", withDHT())
	store := w.add("store", withDHT(), func(n *tnode) {
		n.cfg.Store.Enabled, n.cfg.Store.Serve = true, []string{worker.Address().String()}
	})
	poster := w.add("poster", withDHT(), withBootstrap(store))
	if len(poster.cfg.P2P.StorePeers) != 0 {
		t.Fatal("the poster names store peers")
	}
	worker.stop()
	withStorePeer(store)(worker)
	withBootstrap(store, poster)(worker)
	worker.start()
	eventually(t, "the worker's record (naming its store) to be published", func() bool {
		return worker.Host().PublishRecord(t.Context()) == nil
	})
	connect(t, poster, worker)

	worker.stop()
	var nids []string
	for i := range 2 {
		res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Offline "+string(rune('a'+i)), eth(10)))
		if err != nil {
			t.Fatal(err)
		}
		nids = append(nids, res.Thread.NegotiationID)
	}
	eventually(t, "the worker's store to hold both", func() bool {
		n, _ := store.Mailbox().Held(worker.Address())
		return n == 2
	})
	eventually(t, "the poster's outbox to settle them as held", func() bool {
		return countKind(t, poster, ledger.KindOutboxAcked, "status", "held") == 2
	})
	if p, err := unheld(t, poster); err != nil || len(p) != 0 {
		t.Fatalf("the poster's outbox holds %+v (%v)", p, err)
	}

	// Back: it collects from S and meets the poster.
	worker.start()
	for _, nid := range nids {
		worker.waitState(nid, negotiation.StateProposed)
	}
	eventually(t, "the poster's items to end delivered", func() bool {
		return countKind(t, poster, ledger.KindOutboxAcked, "status", "delivered") == 2
	})
	items, err := node.NewOutboxStore(poster.Ledger()).Pending(t.Context())
	if err != nil || len(items) != 0 {
		t.Fatalf("the poster's outbox still holds %+v (%v)", items, err)
	}
	// It fetches them from S (also when the poster's direct copies came
	// first): a next fetch acknowledges them there.
	eventually(t, "the worker's fetches to acknowledge its mail at the store", func() bool {
		if _, err := worker.Host().CollectMail(t.Context()); err != nil {
			return false
		}
		n, _ := store.Mailbox().Held(worker.Address())
		return n == 0
	})
	for _, nid := range nids {
		if k := kinds(t, worker, nid); k["envelope.received"] != 1 || k["thread.opened"] != 1 {
			t.Fatalf("the worker's ledger for %s: %v", nid, k)
		}
	}
	for _, n := range []*tnode{poster, worker, store} {
		if _, err := n.Ledger().Verify(t.Context()); err != nil {
			t.Fatalf("%s's ledger: %v", n.name, err)
		}
	}
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
	// and is acked directly before the worker goes: stopped between
	// applying it and its ack reaching the poster, the worker would leave
	// the poster's outbox holding it, and the store would hold a fourth.
	eventually(t, "the poster's outbox to settle the direct proposal as delivered", func() bool {
		return countKind(t, poster, ledger.KindOutboxAcked, "status", "delivered") == 1
	})

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
	pending, err := unheld(t, poster)
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
