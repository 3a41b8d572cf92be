package p2p_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// heldAt counts the mail.held entries of a store's ledger.
func heldAt(t *testing.T, store *testNode) int {
	t.Helper()
	n := 0
	for _, err := range store.led.ByKind(t.Context(), node.KindMailboxHeld) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// register makes n a registered recipient of its (open) store nodes: its
// first fetch registers it.
func register(t *testing.T, n *testNode) {
	t.Helper()
	eventually(t, "the recipient to register with its store", func() bool {
		_, err := n.host.CollectMail(t.Context())
		return err == nil
	})
}

// TestHandOverToRecipientsStoreFromRecord: the poster has no store peers
// of its own. The worker's DHT record names its store node S; the worker
// goes offline; the poster looks the record up and hands the envelope to
// S (held). The poster restarts: the held item is not handed over again.
// The worker, back, collects it from S and meets the poster, whose held
// item then goes directly: the worker takes it once either way and the
// poster's item ends delivered.
func TestHandOverToRecipientsStoreFromRecord(t *testing.T) {
	dhtOn := func(c *p2p.Config) { c.DHT, c.DHTServer = true, true }
	store := newStore(t, dhtOn)
	boot := withBootstrap(store.bootstrapAddr())
	worker := newNode(t, dhtOn, boot, withStore(store))
	poster := newNode(t, dhtOn, boot)
	register(t, worker)
	eventually(t, "the worker's record to be published", func() bool {
		return worker.host.PublishRecord(t.Context()) == nil
	})
	worker.stop()

	env := poster.envelope(newNID(), worker.addr())
	if err := poster.host.Send(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the worker's store to hold it", func() bool { return len(poster.ev.of(p2p.EventHeld)) == 1 })
	eventually(t, "the poster's outbox to settle it as held", func() bool { return poster.pending() == 0 })
	if got, ok := poster.host.CachedStores(worker.addr()); !ok || len(got) != 1 || got[0].ID != store.host.ID() {
		t.Fatalf("the poster cached %v (%v) as the worker's stores", got, ok)
	}
	if heldAt(t, store) != 1 {
		t.Fatalf("the store holds %d", heldAt(t, store))
	}

	if poster.held() != 1 || len(poster.ev.of(p2p.EventDelivered)) != 0 {
		t.Fatal("a store's ack counted as the recipient's")
	}

	// The poster restarts: the item is held, waiting for the worker's
	// ack, and no store is given it again.
	poster.stop()
	poster.start(dhtOn, boot)
	eventually(t, "the poster to look the worker up again", func() bool { _, ok := poster.host.Link(worker.addr()); return ok })
	time.Sleep(300 * time.Millisecond) // a few of its attempts (RetryMin 20 ms, held: RetryMax 400 ms)
	if poster.held() != 1 || heldAt(t, store) != 1 || len(poster.ev.of(p2p.EventHeld)) != 0 {
		t.Fatalf("after the poster's restart: %d held, the store holds %d", poster.held(), heldAt(t, store))
	}

	// Back: it collects from its store at start.
	worker.start(dhtOn, boot, withStore(store))
	eventually(t, "the worker to collect it", func() bool { e, _ := worker.rec.snapshot(); return len(e) == 1 })
	if n, err := worker.host.CollectMail(t.Context()); err != nil || n != 0 {
		t.Fatalf("collecting again took %d (%v)", n, err)
	}
	// It fetches the mail from S: a next fetch acknowledges it.
	eventually(t, "the worker's fetches to acknowledge its mail at the store", func() bool {
		if _, err := worker.host.CollectMail(t.Context()); err != nil {
			return false
		}
		for e, err := range store.led.ByKind(t.Context(), node.KindMailboxAcked) {
			if err == nil && strings.Contains(string(e.Body), `"cursor":`) {
				return true
			}
		}
		return false
	})
	// The worker meets the poster (here, or already through the DHT): the
	// held item goes directly, the worker answers duplicate (or ok, when
	// it came before the collection, which then was the duplicate), the
	// poster's item ends delivered.
	connect(t, worker, poster)
	eventually(t, "the poster's item to end delivered", func() bool {
		return len(poster.ev.of(p2p.EventDelivered)) == 1 && poster.held() == 0 && poster.pending() == 0
	})
	if d := poster.ev.of(p2p.EventDelivered)[0]; (d.Code != p2p.Code(negotiation.CodeDuplicate) && d.Code != p2p.CodeOK) || !d.CID.Equals(env.CID()) {
		t.Fatalf("the worker acked %s with %s", d.CID, d.Code)
	}
	if e, _ := worker.rec.snapshot(); len(e) != 1 || !e[0].Equals(env.CID()) {
		t.Fatalf("the worker took %v, want %s once", e, env.CID())
	}
	if heldAt(t, store) != 1 {
		t.Fatalf("the store holds %d", heldAt(t, store))
	}
}

// slowMailbox is a store whose hand-overs hang until released.
type slowMailbox struct {
	*node.MailboxStore
	release chan struct{}
}

func (m slowMailbox) Hold(ctx context.Context, to negotiation.Address, from peer.ID, sealed []byte) error {
	select {
	case <-m.release:
	case <-ctx.Done():
	}
	return &p2p.Error{Code: p2p.CodeBusy, Msg: "slow"}
}

// TestHandOverSkipsBadStores: the store nodes a recipient's record names
// are tried in order, each once per attempt and within the dial timeout:
// the sender itself and the recipient are skipped (no loop), a store
// that does not serve the recipient answers not_served and writes
// nothing, one that hangs costs one timeout, and the store that serves
// the recipient holds it.
func TestHandOverSkipsBadStores(t *testing.T) {
	good := newStore(t)
	stranger := newStore(t) // serves only who registered with it: not the worker
	slow := &testNode{t: t, dir: t.TempDir()}
	release := make(chan struct{})
	slow.startStore(nil, func(ms *node.MailboxStore) p2p.MailboxStore { return slowMailbox{ms, release} })
	t.Cleanup(func() { close(release) }) // before the stores stop
	worker := newNode(t, withStore(good))
	register(t, worker)
	poster := newNode(t, func(c *p2p.Config) { c.DialTimeout = time.Second })
	// The poster knows the worker's link but cannot reach it.
	if err := poster.host.AddPeer(worker.kr.Link(), nil); err != nil {
		t.Fatal(err)
	}
	workerAt := worker.bootstrapAddr()
	worker.stop()
	if err := poster.host.RememberStores(worker.addr(),
		poster.bootstrapAddr(), workerAt, slow.bootstrapAddr(), stranger.bootstrapAddr(), good.bootstrapAddr()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	env := poster.envelope(newNID(), worker.addr())
	if err := poster.host.Send(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the good store to hold it", func() bool { return len(poster.ev.of(p2p.EventHeld)) == 1 })
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the hand-over took %v: the slow store was waited for more than a timeout", d)
	}
	if heldAt(t, good) != 1 || heldAt(t, stranger) != 0 || heldAt(t, slow) != 0 {
		t.Fatalf("held: good %d, stranger %d, slow %d", heldAt(t, good), heldAt(t, stranger), heldAt(t, slow))
	}
	eventually(t, "the poster's outbox to settle it as held", func() bool { return poster.pending() == 0 })
}

// TestStoreBoundsEachSender: on the wire, a sender that floods a store
// node with mail for one recipient has at most store.quota_per_sender
// items held there; the rest stays in its outbox (not held, retried),
// while another sender's mail for the same recipient is still held.
func TestStoreBoundsEachSender(t *testing.T) {
	store := &testNode{t: t, dir: t.TempDir()}
	store.startStore(func(c *node.StoreConfig) { c.QuotaItems, c.QuotaPerSender = 10, 2 }, nil)
	worker := newNode(t, withStore(store))
	register(t, worker)
	flood, other := newNode(t, withStore(store)), newNode(t, withStore(store))
	worker.stop()
	for _, n := range []*testNode{flood, other} {
		if err := n.host.AddPeer(worker.kr.Link(), nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		if err := flood.host.Send(t.Context(), flood.envelope(newNID(), worker.addr())); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the store to hold the flooding sender's share", func() bool { return len(flood.ev.of(p2p.EventHeld)) == 2 })
	if err := other.host.Send(t.Context(), other.envelope(newNID(), worker.addr())); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the store to hold the other sender's", func() bool { return len(other.ev.of(p2p.EventHeld)) == 1 })
	eventually(t, "the flooding sender's outbox to settle its share", func() bool { return flood.held() == 2 })
	if heldAt(t, store) != 3 || flood.pending() != 3 || len(flood.ev.of(p2p.EventHeld)) != 2 {
		t.Fatalf("the store holds %d; the flooding sender has %d pending, %d held", heldAt(t, store), flood.pending(), len(flood.ev.of(p2p.EventHeld)))
	}
}

// TestHandOverGoesOnToTheNextStore: when the recipient's first store
// holds the sender's share, what it refuses goes to the next store the
// record names, in the same attempt (the poster's retries are an hour
// apart here).
func TestHandOverGoesOnToTheNextStore(t *testing.T) {
	first := &testNode{t: t, dir: t.TempDir()}
	first.startStore(func(c *node.StoreConfig) { c.QuotaItems, c.QuotaPerSender = 10, 2 }, nil)
	second := newStore(t)
	worker := newNode(t, func(c *p2p.Config) { c.StorePeers = []string{first.bootstrapAddr(), second.bootstrapAddr()} })
	register(t, worker)
	poster := newNode(t, func(c *p2p.Config) { c.RetryMin, c.RetryMax = time.Hour, time.Hour })
	if err := poster.host.AddPeer(worker.kr.Link(), nil); err != nil {
		t.Fatal(err)
	}
	worker.stop()
	if err := poster.host.RememberStores(worker.addr(), first.bootstrapAddr(), second.bootstrapAddr()); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := poster.host.Send(t.Context(), poster.envelope(newNID(), worker.addr())); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "both stores to hold them", func() bool { return len(poster.ev.of(p2p.EventHeld)) == 4 })
	if heldAt(t, first) != 2 || heldAt(t, second) != 2 {
		t.Fatalf("held: first %d, second %d", heldAt(t, first), heldAt(t, second))
	}
}

// TestHandOverRemembersAMissingRecord: the sender looks up the record of a
// recipient that has none, remembers the miss (for 30 s: recipientStores
// reads the cache first) and hands the mail to its own store peers.
func TestHandOverRemembersAMissingRecord(t *testing.T) {
	dhtOn := func(c *p2p.Config) { c.DHT, c.DHTServer = true, true }
	store := newStore(t, dhtOn)
	worker := newNode(t, withStore(store)) // no DHT: no record
	register(t, worker)
	poster := newNode(t, dhtOn, withBootstrap(store.bootstrapAddr()), withStore(store))
	if err := poster.host.AddPeer(worker.kr.Link(), nil); err != nil {
		t.Fatal(err)
	}
	worker.stop()
	if err := poster.host.Send(t.Context(), poster.envelope(newNID(), worker.addr())); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster's own store to hold it", func() bool { return len(poster.ev.of(p2p.EventHeld)) == 1 })
	if st, ok := poster.host.CachedStores(worker.addr()); !ok || st != nil {
		t.Fatalf("the missing record is cached as %v (%v)", st, ok)
	}
}
