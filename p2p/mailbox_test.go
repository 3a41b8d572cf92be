package p2p_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// newStore starts a store node: its mailbox and topic history live in its
// ledger.
func newStore(t *testing.T, opts ...nodeOpt) *testNode {
	t.Helper()
	s := &testNode{t: t, dir: t.TempDir()}
	s.seq, s.prev = nil, nil
	s.startStore(nil, nil, opts...)
	return s
}

// startStore starts the node as a store node; edit, when set, changes its
// store configuration and wrap its mailbox.
func (n *testNode) startStore(edit func(*node.StoreConfig), wrap func(*node.MailboxStore) p2p.MailboxStore, opts ...nodeOpt) {
	// The ledger opens in start; the mailbox needs it, so wire it through
	// an option that runs after the ledger is up.
	// It serves any identified peer that registers (fetches) with it.
	n.start(append([]nodeOpt{func(c *p2p.Config) {
		sc := node.DefaultConfig().Store
		sc.Enabled, sc.Open = true, true
		if edit != nil {
			edit(&sc)
		}
		ms := node.NewMailboxStore(n.led, sc, nil)
		if err := ms.Load(n.t.Context()); err != nil {
			n.t.Fatal(err)
		}
		c.Mailbox = ms
		if wrap != nil {
			c.Mailbox = wrap(ms)
		}
	}}, opts...)...)
}

// announceVia starts a poster that bootstraps from store and announces
// one task on the board once it has board peers.
func announceVia(t *testing.T, store *testNode) (*testNode, *negotiation.Envelope) {
	t.Helper()
	poster := newNode(t, withBootstrap(store.bootstrapAddr()))
	eventually(t, "the poster on the task board", func() bool {
		return len(poster.host.TopicPeers(p2p.TopicTaskBoard)) > 0
	})
	ann := poster.envelope(newNID())
	if err := poster.host.Announce(t.Context(), ann); err != nil {
		t.Fatal(err)
	}
	return poster, ann
}

func withStore(s *testNode) nodeOpt {
	return func(c *p2p.Config) {
		c.StorePeers = []string{s.bootstrapAddr()}
		c.MailboxPoll = 100 * time.Millisecond
	}
}

func TestDeliveryThroughStoreNode(t *testing.T) {
	store := newStore(t)
	b := newNode(t, withStore(store))
	a := newNode(t, withStore(store))
	// A knows B's link (from an earlier meeting, the DHT or its operator)
	// but has no address for it: only the store can reach B.
	if err := a.host.AddPeer(b.kr.Link(), nil); err != nil {
		t.Fatal(err)
	}
	nid := newNID()
	env := a.envelope(nid, b.addr())
	if err := a.host.Send(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the store's ack", func() bool { return len(a.ev.of(p2p.EventHeld)) == 1 })
	eventually(t, "the outbox to settle as held", func() bool { return a.pending() == 0 })
	if len(a.ev.of(p2p.EventDelivered)) != 0 {
		t.Fatal("a store's ack counted as delivered")
	}
	eventually(t, "B to collect its mail", func() bool { e, _ := b.rec.snapshot(); return len(e) == 1 })
	effects, _ := b.rec.snapshot()
	distinct(t, effects, effects[:1])
	if !effects[0].Equals(env.CID()) {
		t.Fatalf("B stored %s, want %s", effects[0], env.CID())
	}
	// Collecting again hands nothing new over.
	if n, err := b.host.CollectMail(t.Context()); err != nil || n != 0 {
		t.Fatalf("second collect took %d (%v)", n, err)
	}
}

// TestCollectedMailNotTakenComesAgain: mail the recipient's handler
// answers busy to is not passed by its cursor, so its next fetch does not
// acknowledge it to the store and it is delivered on a later collection;
// nothing is lost and each envelope takes effect once.
func TestCollectedMailNotTakenComesAgain(t *testing.T) {
	store := newStore(t)
	b := newNode(t, withStore(store))
	a := newNode(t, withStore(store))
	if err := a.host.AddPeer(b.kr.Link(), nil); err != nil {
		t.Fatal(err)
	}
	b.rec.mu.Lock()
	b.rec.busy = 1
	b.rec.mu.Unlock()
	want := map[string]bool{}
	for range 2 {
		env := a.envelope(newNID(), b.addr())
		if err := a.host.Send(t.Context(), env); err != nil {
			t.Fatal(err)
		}
		want[env.CID().String()] = true
	}
	eventually(t, "the store to take both", func() bool { return len(a.ev.of(p2p.EventHeld)) == 2 })
	eventually(t, "B to take both", func() bool { e, _ := b.rec.snapshot(); return len(e) == 2 })
	effects, calls := b.rec.snapshot()
	distinct(t, effects, effects)
	for _, c := range effects {
		if !want[c.String()] {
			t.Fatalf("B took %s, not sent", c)
		}
	}
	if calls < 3 {
		t.Fatalf("the handler was called %d times, want the busy one again", calls)
	}
}

// TestStoreRefusesUnidentifiedPeers: a peer that never completes the
// identity handshake gets unknown_link for a hand-over and nothing for a
// fetch, and the store's ledger is unchanged.
func TestStoreRefusesUnidentifiedPeers(t *testing.T) {
	store := newStore(t)
	m, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"), libp2p.DisableRelay(), libp2p.DisableMetrics())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Connect(t.Context(), store.info()); err != nil {
		t.Fatal(err)
	}
	before := store.led.Head()
	ask := func(req []byte) []byte {
		t.Helper()
		s, err := m.NewStream(t.Context(), store.host.ID(), p2p.ProtocolMailbox)
		if err != nil {
			return nil // disconnected as an unidentified peer: nothing stored either
		}
		defer s.Close()
		_, _ = s.Write(append(binary.AppendUvarint(nil, uint64(len(req))), req...))
		_ = s.CloseWrite()
		_ = s.SetReadDeadline(time.Now().Add(30 * time.Second))
		b, _ := io.ReadAll(s)
		return b
	}
	put := append([]byte{1}, make([]byte, 20)...)
	put = append(put, []byte("not even a frame")...)
	if b := ask(put); b != nil && !bytes.Contains(b, []byte(p2p.CodeUnknownLink)) {
		t.Fatalf("an unidentified hand-over was answered %q", b)
	}
	if b := ask([]byte{2, 0}); len(b) > 1 {
		t.Fatalf("an unidentified fetch was answered %q", b)
	}
	if store.led.Head() != before {
		t.Fatal("an unidentified peer wrote to the store's ledger")
	}
}

// TestStoreTellsNotServed: an identified sender's hand-over for a
// recipient the store does not serve is answered not_served on the wire
// and writes nothing; once the recipient registered (fetched), the same
// hand-over is held.
func TestStoreTellsNotServed(t *testing.T) {
	store := newStore(t)
	b := newNode(t) // no store peers: it never registers
	a := newNode(t, withStore(store))
	if err := a.host.AddPeer(b.kr.Link(), nil); err != nil {
		t.Fatal(err)
	}
	env := a.envelope(newNID(), b.addr())
	// (The store's ledger may grow meanwhile by A's own registration:
	// count what it holds.)
	held := func() int {
		n := 0
		for _, err := range store.led.ByKind(t.Context(), node.KindMailboxHeld) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}
	if c, err := a.host.PutToStore(t.Context(), store.host.ID(), b.addr(), env); err != nil || c != p2p.CodeNotServed {
		t.Fatalf("a hand-over for a recipient not served: %q (%v)", c, err)
	}
	if held() != 0 {
		t.Fatal("a refused hand-over wrote to the store's ledger")
	}
	c := newNode(t, withStore(store)) // registers by its first fetch
	if err := a.host.AddPeer(c.kr.Link(), nil); err != nil {
		t.Fatal(err)
	}
	env = a.envelope(newNID(), c.addr())
	eventually(t, "the store to hold for the registered recipient", func() bool {
		code, err := a.host.PutToStore(t.Context(), store.host.ID(), c.addr(), env)
		return err == nil && code == p2p.CodeHeld
	})
	eventually(t, "C to collect it", func() bool { e, _ := c.rec.snapshot(); return len(e) == 1 })
}

func TestLateJoinerCatchesUpOnTaskBoard(t *testing.T) {
	store := newStore(t)
	poster := newNode(t, withBootstrap(store.bootstrapAddr()))
	eventually(t, "the poster on the task board", func() bool {
		return len(poster.host.TopicPeers(p2p.TopicTaskBoard)) > 0
	})
	want := map[string]bool{}
	for range 3 {
		ann := poster.envelope(newNID())
		if err := poster.host.Announce(t.Context(), ann); err != nil {
			t.Fatal(err)
		}
		want[ann.CID().String()] = true
	}
	eventually(t, "the store to record the announcements", func() bool { e, _ := store.rec.snapshot(); return len(e) == 3 })

	// A worker joins after the fact and asks the store for the history.
	worker := newNode(t)
	connect(t, worker, store)
	cursor, taken, err := worker.host.CatchUp(t.Context(), store.host.ID(), 0)
	if err != nil || taken != 3 {
		t.Fatalf("catch-up took %d (%v)", taken, err)
	}
	effects, _ := worker.rec.snapshot()
	for _, c := range effects {
		if !want[c.String()] {
			t.Fatalf("caught up on %s, which was not announced (or twice)", c)
		}
		delete(want, c.String())
	}
	// From the returned cursor there is nothing more.
	if _, taken, err := worker.host.CatchUp(t.Context(), store.host.ID(), cursor); err != nil || taken != 0 {
		t.Fatalf("second catch-up took %d (%v)", taken, err)
	}
}

func TestLateArbitratorCatchesUpOnEvidence(t *testing.T) {
	store := newStore(t)
	poster, worker := newNode(t), newNode(t)
	arb := newNode(t) // a member, but not connected when the evidence is sent
	connect(t, worker, store)
	connect(t, poster, store)
	connect(t, worker, poster)
	if err := worker.host.AddPeer(arb.kr.Link(), nil); err != nil {
		t.Fatal(err)
	}
	members := []negotiation.Address{poster.addr(), worker.addr(), arb.addr()}
	dispute := "42"
	if err := store.host.RelayEvidence(dispute, members); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*testNode{poster, worker} {
		if err := n.host.JoinEvidence(dispute, members); err != nil {
			t.Fatal(err)
		}
	}
	topic := p2p.EvidenceTopic(dispute)
	eventually(t, "the evidence topic mesh", func() bool {
		return len(worker.host.TopicPeers(topic)) == 2 && len(store.host.TopicPeers(topic)) == 2
	})
	ev := worker.envelope(newNID(), poster.addr(), arb.addr())
	if err := worker.host.PublishEvidence(t.Context(), dispute, ev); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster's copy", func() bool { e, _ := poster.rec.snapshot(); return len(e) == 1 })
	// The store relays without reading; a late arbitrator replays it.
	if _, calls := store.rec.snapshot(); calls != 0 {
		t.Fatal("the store's handler saw sealed evidence")
	}
	if err := arb.host.JoinEvidence(dispute, members); err != nil {
		t.Fatal(err)
	}
	connect(t, arb, store)
	var taken int
	eventually(t, "the arbitrator's catch-up", func() bool {
		_, n, err := arb.host.CatchUpTopic(t.Context(), store.host.ID(), topic, 0)
		taken += n
		return err == nil && taken == 1
	})
	if e, _ := arb.rec.snapshot(); len(e) != 1 || !e[0].Equals(ev.CID()) {
		t.Fatalf("arbitrator stored %v, want %s", e, ev.CID())
	}
	// CatchUpTopic refuses an evidence topic this node has not joined (the
	// store would only hand it ciphertext it cannot open).
	outsider := newNode(t)
	connect(t, outsider, store)
	if _, _, err := outsider.host.CatchUpTopic(t.Context(), store.host.ID(), topic, 0); p2p.CodeOf(err) != p2p.CodeNotFound {
		t.Fatalf("outsider catch-up: %v", err)
	}
}

// TestLateJoinerCatchesUpByItself: a node with store peers reads the task
// board's history from them each time it polls its mail, with no call of
// its own: an announcement made before it joined reaches it.
func TestLateJoinerCatchesUpByItself(t *testing.T) {
	store := newStore(t)
	_, ann := announceVia(t, store)
	eventually(t, "the store to record the announcement", func() bool { e, _ := store.rec.snapshot(); return len(e) == 1 })
	worker := newNode(t, withStore(store))
	eventually(t, "the late worker to learn the announcement from the store", func() bool {
		e, _ := worker.rec.snapshot()
		return len(e) == 1 && e[0].Equals(ann.CID())
	})
}

// hostilePages is a store node's mailbox that answers fetches and history
// requests against the protocol: "repeat" answers cursors 1..limit
// whatever the request's cursor, "endless" always a full page of new
// cursors, "oversize" one item more than a page. Its items are one
// recorded announcement (valid on the board, not a sealed frame).
type hostilePages struct {
	*node.MailboxStore
	mode    string
	mu      sync.Mutex
	data    []byte
	history atomic.Int64
	mail    atomic.Int64
}

func (h *hostilePages) Record(ctx context.Context, topic string, data []byte) error {
	h.mu.Lock()
	if h.data == nil {
		h.data = bytes.Clone(data)
	}
	h.mu.Unlock()
	return h.MailboxStore.Record(ctx, topic, data)
}

func (h *hostilePages) page(after uint64, limit int) []p2p.MailItem {
	n, first := limit, after+1
	switch h.mode {
	case "repeat":
		first = 1
	case "oversize":
		n = limit + 1
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]p2p.MailItem, n)
	for i := range out {
		out[i] = p2p.MailItem{Cursor: first + uint64(i), Data: h.data}
	}
	return out
}

func (h *hostilePages) History(_ context.Context, _ string, after uint64, limit int) ([]p2p.MailItem, error) {
	h.history.Add(1)
	return h.page(after, limit), nil
}

func (h *hostilePages) Mail(_ context.Context, _ negotiation.Address, after uint64, limit int) ([]p2p.MailItem, error) {
	h.mail.Add(1)
	return h.page(after, limit), nil
}

// TestHostileStorePagesAreBounded: a configured store node that repeats
// its cursors, sends more than a page, or answers full pages without end
// costs a reader one bounded round: a page that breaks the rules is
// refused whole (bad_record) and nothing of it is handled, and one
// catch-up or collection reads at most 64 pages. Without the checks the
// first two loop on the same page until the reader's context ends.
func TestHostileStorePagesAreBounded(t *testing.T) {
	for _, mode := range []string{"repeat", "oversize", "endless"} {
		t.Run(mode, func(t *testing.T) {
			hp := &hostilePages{mode: mode}
			store := &testNode{t: t, dir: t.TempDir()}
			store.startStore(nil, func(ms *node.MailboxStore) p2p.MailboxStore { hp.MailboxStore = ms; return hp })
			announceVia(t, store)
			eventually(t, "the store to record the announcement", func() bool {
				hp.mu.Lock()
				defer hp.mu.Unlock()
				return hp.data != nil
			})
			reader := newNode(t)
			connect(t, reader, store)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()

			cursor, taken, err := reader.host.CatchUp(ctx, store.host.ID(), 0)
			_, calls := reader.rec.snapshot()
			switch mode {
			case "repeat": // the first page passes, the second repeats it
				if p2p.CodeOf(err) != p2p.CodeBadRecord || hp.history.Load() != 2 || cursor != 256 || taken != 1 || calls != 256 {
					t.Fatalf("catch-up: cursor %d, taken %d, handler calls %d, %d requests, %v", cursor, taken, calls, hp.history.Load(), err)
				}
			case "oversize":
				if p2p.CodeOf(err) != p2p.CodeBadRecord || hp.history.Load() != 1 || cursor != 0 || taken != 0 || calls != 0 {
					t.Fatalf("catch-up: cursor %d, taken %d, handler calls %d, %d requests, %v", cursor, taken, calls, hp.history.Load(), err)
				}
			case "endless":
				if err != nil || hp.history.Load() != 64 || cursor != 64*256 || taken != 1 {
					t.Fatalf("catch-up: cursor %d, taken %d, %d requests, %v", cursor, taken, hp.history.Load(), err)
				}
			}

			// The same for the mailbox: its items are no sealed frames, so
			// nothing is taken; the rounds are bounded all the same.
			before := len(reader.ev.of(p2p.EventInputRejected))
			n, err := reader.host.CollectFrom(ctx, store.host.ID())
			switch mode {
			case "repeat":
				if p2p.CodeOf(err) != p2p.CodeBadRecord || hp.mail.Load() != 2 || n != 0 {
					t.Fatalf("collect: took %d, %d requests, %v", n, hp.mail.Load(), err)
				}
			case "oversize":
				if p2p.CodeOf(err) != p2p.CodeBadRecord || hp.mail.Load() != 1 || len(reader.ev.of(p2p.EventInputRejected)) != before {
					t.Fatalf("collect: took %d, %d requests, %v; a refused page's items were handled", n, hp.mail.Load(), err)
				}
			case "endless":
				if err != nil || hp.mail.Load() != 64 || n != 0 {
					t.Fatalf("collect: took %d, %d requests, %v", n, hp.mail.Load(), err)
				}
			}
		})
	}
}
