package p2p_test

import (
	"context"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/p2p"
)

// distinct fails unless effects holds each of want exactly once and
// nothing else.
func distinct(t *testing.T, effects []cid.Cid, want []cid.Cid) {
	t.Helper()
	count := map[cid.Cid]int{}
	for _, c := range effects {
		count[c]++
	}
	for _, c := range want {
		if count[c] != 1 {
			t.Errorf("envelope %s took effect %d times, want once", c, count[c])
		}
	}
	if len(effects) != len(want) {
		t.Errorf("%d effects, want %d", len(effects), len(want))
	}
}

func TestDeliverAndAck(t *testing.T) {
	a, b := newNode(t), newNode(t)
	connect(t, a, b)
	nid := newNID()
	env := a.envelope(nid, b.addr())
	if err := a.host.Send(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ack", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 1 })
	ev := a.ev.of(p2p.EventDelivered)[0]
	if !ev.CID.Equals(env.CID()) || ev.Code != p2p.CodeOK || ev.To != b.addr() {
		t.Fatalf("delivered event %+v", ev)
	}
	effects, _ := b.rec.snapshot()
	distinct(t, effects, []cid.Cid{env.CID()})
	// The receiver stored it before it acked: the ledger has it.
	if _, err := b.led.Object(context.Background(), env.CID()); err != nil {
		t.Fatalf("receiver ledger: %v", err)
	}
	// The settlement is written shortly after the ack (batched).
	eventually(t, "the sender's outbox to settle", func() bool { return a.pending() == 0 })
	// Sending the same envelope again is harmless: duplicate, no effect.
	if err := a.host.Send(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the second ack", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 2 })
	if got := a.ev.of(p2p.EventDelivered)[1].Code; got != p2p.CodeDuplicate {
		t.Fatalf("resend acked %q, want duplicate", got)
	}
	effects, _ = b.rec.snapshot()
	distinct(t, effects, []cid.Cid{env.CID()})
}

func TestRecipientOfflineThenBack(t *testing.T) {
	a, b := newNode(t), newNode(t)
	connect(t, a, b)
	nid := newNID()
	first := a.envelope(nid, b.addr())
	if err := a.host.Send(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first ack", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 1 })
	// Its settlement is written shortly after the ack.
	eventually(t, "the first settlement", func() bool { return a.pending() == 0 })

	// B goes away; A queues more. B's restart loses its sealing sessions,
	// so A must re-key on unknown_session.
	b.stop()
	want := []cid.Cid{first.CID()}
	for range 5 {
		env := a.envelope(nid, b.addr())
		if err := a.host.Send(t.Context(), env); err != nil {
			t.Fatal(err)
		}
		want = append(want, env.CID())
	}
	if n := a.pending(); n != 5 {
		t.Fatalf("%d pending while B is offline, want 5", n)
	}
	b.start(withBootstrap(a.bootstrapAddr()))
	eventually(t, "delivery after B came back", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 6 })
	effects, _ := b.rec.snapshot()
	distinct(t, effects, want[1:])
	// All six are in B's ledger exactly once.
	for _, c := range want {
		if _, err := b.led.Object(context.Background(), c); err != nil {
			t.Fatalf("B's ledger lacks %s: %v", c, err)
		}
	}
	eventually(t, "the sender's outbox to settle", func() bool { return a.pending() == 0 })
}

func TestSenderRestartLosesNothing(t *testing.T) {
	a, b := newNode(t), newNode(t)
	link, _ := b.kr.Link(), 0
	bAddr := b.bootstrapAddr()
	b.stop()
	if err := a.host.AddPeer(link, nil); err != nil {
		t.Fatal(err)
	}
	nid := newNID()
	var want []cid.Cid
	for range 10 {
		env := a.envelope(nid, b.addr())
		if err := a.host.Send(t.Context(), env); err != nil {
			t.Fatal(err)
		}
		want = append(want, env.CID())
	}
	// A stops with ten envelopes in its outbox (nothing could be sent).
	a.stop()
	b.start()
	_ = bAddr
	a.start(withBootstrap(b.bootstrapAddr()))
	eventually(t, "delivery after A restarted", func() bool { e, _ := b.rec.snapshot(); return len(e) == 10 })
	eventually(t, "A's outbox to drain", func() bool { return a.pending() == 0 })
	effects, _ := b.rec.snapshot()
	distinct(t, effects, want)
}

func TestSenderStoppedMidStreamNothingDoubled(t *testing.T) {
	a, b := newNode(t), newNode(t)
	connect(t, a, b)
	nid := newNID()
	var want []cid.Cid
	for range 60 {
		env := a.envelope(nid, b.addr())
		if err := a.host.Send(t.Context(), env); err != nil {
			t.Fatal(err)
		}
		want = append(want, env.CID())
	}
	// Stop A while envelopes are in flight: some acked and settled, some
	// acked but not settled, some never sent.
	a.stop()
	a.start(withBootstrap(b.bootstrapAddr()))
	eventually(t, "all sixty delivered", func() bool { e, _ := b.rec.snapshot(); return len(e) >= 60 })
	eventually(t, "A's outbox to drain", func() bool { return a.pending() == 0 })
	effects, _ := b.rec.snapshot()
	distinct(t, effects, want)
}

func TestDeliverOverQUIC(t *testing.T) {
	quicOnly := func(c *p2p.Config) { c.ListenAddrs = []string{"/ip4/127.0.0.1/udp/0/quic-v1"} }
	a, b := newNode(t, quicOnly), newNode(t, quicOnly)
	connect(t, a, b)
	env := a.envelope(newNID(), b.addr())
	if err := a.host.Send(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ack over QUIC", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 1 })
	effects, _ := b.rec.snapshot()
	distinct(t, effects, []cid.Cid{env.CID()})
}
