package p2p_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// sendRecorded is the node's send path: the envelope's outbox items
// (Outgoing) are written with its envelope.sent entry in one ledger
// commit (node.OutboxStore.PutSent), then handed to the queues (Queued).
func (n *testNode) sendRecorded(ctx context.Context, env *negotiation.Envelope) error {
	items, err := n.host.Outgoing(env)
	if err != nil {
		return err
	}
	if err := node.NewOutboxStore(n.led).PutSent(ctx, env, items, time.Now()); err != nil {
		return err
	}
	n.host.Queued(env, items)
	return nil
}

// sentWithItems checks l's send records: every envelope.sent entry has an
// outbox.queued entry naming its envelope, and every outbox.queued entry
// names an envelope recorded as sent; it returns the envelopes recorded
// as sent.
func sentWithItems(t testing.TB, l *ledger.Ledger) []cid.Cid {
	t.Helper()
	ctx := context.Background()
	sent := map[string]bool{}
	var out []cid.Cid
	for e, err := range l.ByKind(ctx, ledger.KindEnvelopeSent) {
		if err != nil {
			t.Fatal(err)
		}
		sent[e.CID.String()] = true
		out = append(out, e.CID)
	}
	queued := map[string]bool{}
	for e, err := range l.ByKind(ctx, ledger.KindOutboxQueued) {
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Envelope string `json:"envelope"`
		}
		if err := json.Unmarshal(e.Body, &body); err != nil {
			t.Fatal(err)
		}
		if !sent[body.Envelope] {
			t.Errorf("outbox.queued entry %d names %q, which no envelope.sent records", e.Seq, body.Envelope)
		}
		queued[body.Envelope] = true
	}
	for c := range sent {
		if !queued[c] {
			t.Errorf("envelope %s is recorded as sent without its outbox item", c)
		}
	}
	return out
}

// TestOutgoingQueued: the node's send path. Outgoing checks the envelope
// as Send does and stores nothing; PutSent writes the envelope.sent entry
// and the outbox item in one commit; Queued delivers it. A stop after the
// commit and before Queued loses nothing: the restarted host resumes the
// item from the store and delivers it. A PutSent that fails (an item of
// another envelope) stores neither the entry nor any item.
func TestOutgoingQueued(t *testing.T) {
	a, b := newNode(t), newNode(t)
	connect(t, a, b)
	ctx := t.Context()
	nid := newNID()

	if _, err := a.host.Outgoing(a.envelope(nid)); p2p.CodeOf(err) != p2p.Code(negotiation.CodeNotAddressed) {
		t.Fatalf("Outgoing of an announcement: %v", err)
	}
	if _, err := a.host.Outgoing(b.envelope(newNID(), a.addr())); p2p.CodeOf(err) != p2p.CodeSenderMismatch {
		t.Fatalf("Outgoing of another node's envelope: %v", err)
	}
	env := a.envelope(nid, b.addr(), a.addr())
	head := a.led.Head()
	items, err := a.host.Outgoing(env)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].To != b.addr() || !items[0].CID.Equals(env.CID()) {
		t.Fatalf("Outgoing gave %+v, want one item to the recipient other than this node", items)
	}
	if a.led.Head() != head || a.pending() != 0 {
		t.Fatal("Outgoing stored something")
	}

	// A failed commit stores neither.
	other := a.envelope(nid, b.addr())
	if err := node.NewOutboxStore(a.led).PutSent(ctx, other, items, time.Now()); err == nil {
		t.Fatal("PutSent took the items of another envelope")
	}
	if a.led.Head() != head || a.pending() != 0 {
		t.Fatal("a failed PutSent stored something")
	}

	// The commit, then a stop before Queued: the item waits in the store.
	before, _ := a.led.Stats()
	if err := node.NewOutboxStore(a.led).PutSent(ctx, env, items, time.Now()); err != nil {
		t.Fatal(err)
	}
	if after, _ := a.led.Stats(); after != before+1 {
		t.Fatalf("PutSent took %d commits, want one", after-before)
	}
	if a.pending() != 1 {
		t.Fatalf("%d items pending after PutSent, want 1", a.pending())
	}
	a.stop()
	a.start()
	connect(t, a, b)
	eventually(t, "the item resumed and delivered", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 1 })
	eventually(t, "its settlement", func() bool { return a.pending() == 0 })

	// And the whole path, without a stop.
	next := a.envelope(nid, b.addr())
	if err := a.sendRecorded(ctx, next); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the second delivery", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 2 })
	effects, _ := b.rec.snapshot()
	distinct(t, effects, []cid.Cid{env.CID(), next.CID()})
	if got := sentWithItems(t, a.led); len(got) != 2 {
		t.Fatalf("%d envelopes recorded as sent, want 2", len(got))
	}
}

// TestPutSentGroupCommit: concurrent sends on the node's path share the
// ledger's group commit (fewer synced commits than sends), each send's
// entry and item stay together, and every envelope is delivered once.
func TestPutSentGroupCommit(t *testing.T) {
	a, b := newNode(t), newNode(t)
	connect(t, a, b)
	const senders, each = 16, 8
	before, _ := a.led.Stats()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var want []cid.Cid
	for range senders {
		me := &testNode{t: t, kr: a.kr, seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}}
		nid := newNID()
		wg.Go(func() {
			for range each {
				env, err := me.build(nid, time.Now(), []negotiation.Address{b.addr()})
				if err != nil {
					t.Error(err)
					return
				}
				if err := a.sendRecorded(t.Context(), env); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				want = append(want, env.CID())
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	eventually(t, "every delivery", func() bool { return len(a.ev.of(p2p.EventDelivered)) == senders*each })
	effects, _ := b.rec.snapshot()
	distinct(t, effects, want)
	if got := sentWithItems(t, a.led); len(got) != senders*each {
		t.Fatalf("%d envelopes recorded as sent, want %d", len(got), senders*each)
	}
	after, _ := a.led.Stats()
	// The commits include the settlements, written in batches after the
	// acks; the sends alone would be senders*each commits without the
	// group commit.
	if commits := after - before; commits >= senders*each {
		t.Fatalf("%d sends took %d commits (with the settlements): no group commit", senders*each, commits)
	} else {
		t.Logf("%d sends and their settlements in %d commits", senders*each, commits)
	}
}
