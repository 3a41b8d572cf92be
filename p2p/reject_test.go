package p2p_test

import (
	"bufio"
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// rawStream is a hand-driven /parley/envelope/1 stream, for sending
// frames no honest Host would send.
type rawStream struct {
	t  *testing.T
	s  network.Stream
	r  *bufio.Reader
	id uint64
}

func openRaw(t *testing.T, from, to *testNode) *rawStream {
	t.Helper()
	if err := from.host.Libp2p().Connect(t.Context(), to.info()); err != nil {
		t.Fatal(err)
	}
	s, err := from.host.Libp2p().NewStream(t.Context(), to.host.ID(), p2p.ProtocolEnvelope)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Reset() })
	return &rawStream{t: t, s: s, r: bufio.NewReader(s)}
}

// send writes one frame (uvarint length, uvarint id, sealed bytes) and
// returns the code of its ack.
func (rs *rawStream) send(sealed []byte) p2p.Code {
	rs.t.Helper()
	rs.id++
	body := binary.AppendUvarint(nil, rs.id)
	body = append(body, sealed...)
	msg := binary.AppendUvarint(nil, uint64(len(body)))
	msg = append(msg, body...)
	_ = rs.s.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := rs.s.Write(msg); err != nil {
		rs.t.Fatal(err)
	}
	n, err := binary.ReadUvarint(rs.r)
	if err != nil {
		rs.t.Fatal(err)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(rs.r, b); err != nil {
		rs.t.Fatal(err)
	}
	id, k := binary.Uvarint(b)
	if id != rs.id {
		rs.t.Fatalf("ack for frame %d, want %d", id, rs.id)
	}
	cl := int(b[k])
	return p2p.Code(b[k+1 : k+1+cl])
}

// sealerOf returns a fresh sealer with n's keys: its first frame to each
// recipient carries a session init.
func sealerOf(t *testing.T, n *testNode) *identity.Sealer {
	t.Helper()
	s, err := identity.NewSealer(identity.DefaultSealerConfig(n.kr.Inbox(), n.kr.Link(), n.kr))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// seal seals env to the recipient in a new session, so that every frame
// carries its session init and can be sent in any order.
func seal(t *testing.T, s *identity.Sealer, to *testNode, env []byte, nid string) []byte {
	t.Helper()
	if k, err := to.kr.Link().CurrentKey(time.Now()); err == nil {
		s.ResetSession(k.ID)
	}
	id, err := negotiation.ParseNegotiationID(nid)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Seal(time.Now(), id, []*identity.Link{to.kr.Link()}, env)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRejectsNonAuthenticInput(t *testing.T) {
	a, b, c := newNode(t), newNode(t), newNode(t)
	nid := newNID()
	genuine := a.envelope(nid, b.addr())
	aSeal, cSeal := sealerOf(t, a), sealerOf(t, c)

	// C signs an envelope that names A's inbox key: the signature fails.
	resigned, err := negotiation.Sign(genuine.Bytes(), c.kr.Inbox())
	if err != nil {
		t.Fatal(err)
	}
	// C builds a valid envelope claiming A's EVM address with C's own key.
	var cKey negotiation.PublicKey
	copy(cKey[:], c.kr.Inbox().PublicKey())
	claimA, err := negotiation.Build(negotiation.Header{
		NegotiationID: nid, Sequence: 1, Timestamp: time.Now(),
		Sender: negotiation.Sender{EVMAddress: a.addr(), XMTPPublicKey: cKey}, Recipients: []negotiation.Address{b.addr()},
	}, proposal(1), c.kr.Inbox(), negotiation.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	otherNID := newNID()
	wrongRecipient := c.envelope(otherNID, negotiation.Address{0xde, 0xad})
	flipped := seal(t, cSeal, b, c.envelope(otherNID, b.addr()).Bytes(), otherNID)
	flipped[len(flipped)-1] ^= 0x01
	flippedHeader := seal(t, cSeal, b, c.envelope(otherNID, b.addr()).Bytes(), otherNID)
	flippedHeader[12] ^= 0x80 // inside the clear negotiationId
	aFrame := seal(t, aSeal, b, genuine.Bytes(), nid)

	fromC := openRaw(t, c, b)
	cases := []struct {
		name  string
		frame []byte
		want  p2p.Code
	}{
		{"forged signature", seal(t, cSeal, b, resigned, nid), p2p.Code(negotiation.CodeBadSignature)},
		{"sender is not the sealing peer", seal(t, cSeal, b, claimA.Bytes(), nid), p2p.CodeSenderMismatch},
		{"another's envelope re-sealed", seal(t, cSeal, b, genuine.Bytes(), nid), p2p.CodeSenderMismatch},
		{"another's sealed frame replayed", aFrame, p2p.CodeSenderMismatch},
		{"wrong recipient", seal(t, cSeal, b, wrongRecipient.Bytes(), otherNID), p2p.Code(negotiation.CodeNotAddressed)},
		{"flipped body bit", flipped, p2p.Code(identity.CodeOpenFailed)},
		{"flipped header bit", flippedHeader, p2p.Code(identity.CodeOpenFailed)},
		{"garbage", []byte("PRLY not a frame"), p2p.Code(identity.CodeBadFrame)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(b.ev.of(p2p.EventInputRejected))
			if got := fromC.send(tc.frame); got != tc.want {
				t.Fatalf("ack %q, want %q", got, tc.want)
			}
			if got := tc.want.Outcome(); got != p2p.Rejected {
				t.Fatalf("%q is not a final rejection", tc.want)
			}
			rej := b.ev.of(p2p.EventInputRejected)
			if len(rej) != before+1 || rej[len(rej)-1].Code != tc.want || rej[len(rej)-1].Peer != c.host.ID() {
				t.Fatalf("rejection events %+v", rej[before:])
			}
		})
	}
	if _, calls := b.rec.snapshot(); calls != 0 {
		t.Fatalf("the handler saw %d non-authentic envelopes", calls)
	}
	if _, err := b.led.Object(t.Context(), genuine.CID()); err == nil {
		t.Fatal("a forged delivery reached the ledger")
	}

	// A replays its own delivered frame: duplicate, no second effect.
	fromA := openRaw(t, a, b)
	if got := fromA.send(aFrame); got != p2p.CodeOK {
		t.Fatalf("genuine frame acked %q", got)
	}
	replay := seal(t, aSeal, b, genuine.Bytes(), nid)
	for range 2 {
		if got := fromA.send(replay); got != p2p.CodeDuplicate {
			t.Fatalf("replay acked %q, want duplicate", got)
		}
	}
	effects, calls := b.rec.snapshot()
	if len(effects) != 1 || calls != 1 {
		t.Fatalf("effects %d, handler calls %d after replays; want 1 and 1", len(effects), calls)
	}
}

func TestHeldUntilGapFills(t *testing.T) {
	a, b := newNode(t), newNode(t)
	b.rec.gaps = true
	nid := newNID()
	e1 := a.envelope(nid, b.addr())
	e2 := a.envelope(nid, b.addr())
	e3 := a.envelope(nid, b.addr())
	s := sealerOf(t, a)
	raw := openRaw(t, a, b)
	if got := raw.send(seal(t, s, b, e3.Bytes(), nid)); got != p2p.Code(negotiation.CodeSequenceGap) {
		t.Fatalf("envelope 3 first: %q, want sequence_gap", got)
	}
	if got := raw.send(seal(t, s, b, e2.Bytes(), nid)); got != p2p.Code(negotiation.CodeSequenceGap) {
		t.Fatalf("envelope 2 next: %q, want sequence_gap", got)
	}
	if b.host.Held() != 2 {
		t.Fatalf("held %d, want 2", b.host.Held())
	}
	if got := raw.send(seal(t, s, b, e1.Bytes(), nid)); got != p2p.CodeOK {
		t.Fatalf("envelope 1: %q", got)
	}
	// 1 succeeded, so the held 2 and 3 were offered again, in order.
	effects, _ := b.rec.snapshot()
	if len(effects) != 3 || !effects[0].Equals(e1.CID()) || !effects[1].Equals(e2.CID()) || !effects[2].Equals(e3.CID()) {
		t.Fatalf("effects %v, want 1, 2, 3", effects)
	}
	if b.host.Held() != 0 {
		t.Fatalf("still holding %d", b.host.Held())
	}
	// The sender's retry of 3 now finds it stored.
	if got := raw.send(seal(t, s, b, e3.Bytes(), nid)); got != p2p.CodeDuplicate {
		t.Fatalf("retry of 3: %q, want duplicate", got)
	}
}

func TestHoldIsBounded(t *testing.T) {
	a := newNode(t)
	b := newNode(t, func(c *p2p.Config) { c.HoldCount = 2 })
	b.rec.gaps = true
	nid := newNID()
	a.envelope(nid, b.addr()) // sequence 1, never sent
	s := sealerOf(t, a)
	raw := openRaw(t, a, b)
	for i := range 2 {
		if got := raw.send(seal(t, s, b, a.envelope(nid, b.addr()).Bytes(), nid)); got != p2p.Code(negotiation.CodeSequenceGap) {
			t.Fatalf("envelope %d: %q", i+2, got)
		}
	}
	if got := raw.send(seal(t, s, b, a.envelope(nid, b.addr()).Bytes(), nid)); got != p2p.CodeBusy {
		t.Fatalf("over the hold bound: %q, want busy", got)
	}
	if b.host.Held() != 2 {
		t.Fatalf("held %d, want 2", b.host.Held())
	}
}

func TestUnknownSessionAsksForReKey(t *testing.T) {
	a, b := newNode(t), newNode(t)
	nid := newNID()
	s := sealerOf(t, a)
	first := seal(t, s, b, a.envelope(nid, b.addr()).Bytes(), nid)
	id, _ := negotiation.ParseNegotiationID(nid)
	second, err := s.Seal(time.Now(), id, []*identity.Link{b.kr.Link()}, a.envelope(nid, b.addr()).Bytes())
	if err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, a, b)
	// The frame that set the session up never arrived.
	_ = first
	got := raw.send(second)
	if got != p2p.CodeUnknownSession || got.Outcome() != p2p.ReKey {
		t.Fatalf("ack %q (outcome %v), want unknown_session and a re-key", got, got.Outcome())
	}
	if n := len(b.ev.of(p2p.EventInputRejected)); n != 0 {
		t.Fatalf("a re-key request was recorded as %d rejections", n)
	}
	if _, calls := b.rec.snapshot(); calls != 0 {
		t.Fatal("handler called")
	}
}

// TestSenderReKeysWhenRecipientForgotSession has the recipient forget the
// sender's sealing session (it keeps one session only, and a third node
// takes its place); the sender's next frame names the forgotten session,
// the recipient answers unknown_session, and the sender re-keys and
// resends without losing the envelope.
func TestSenderReKeysWhenRecipientForgotSession(t *testing.T) {
	a, c := newNode(t), newNode(t)
	b := newNode(t)
	b.stop()
	b.start(func(cfg *p2p.Config) {
		sc := identity.DefaultSealerConfig(b.kr.Inbox(), b.kr.Link(), b.kr)
		sc.MaxSessions = 1
		s, err := identity.NewSealer(sc)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Sealer = s
	})
	connect(t, a, b)
	connect(t, c, b)
	nid := newNID()
	first := a.envelope(nid, b.addr())
	if err := a.host.Send(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	eventually(t, "A's first ack", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 1 })
	if err := c.host.Send(t.Context(), c.envelope(newNID(), b.addr())); err != nil {
		t.Fatal(err)
	}
	eventually(t, "C's ack", func() bool { return len(c.ev.of(p2p.EventDelivered)) == 1 })
	if _, in := b.host.SealerSessions(); in != 1 {
		t.Fatalf("B holds %d incoming sessions, want 1", in)
	}
	second := a.envelope(nid, b.addr())
	if err := a.host.Send(t.Context(), second); err != nil {
		t.Fatal(err)
	}
	eventually(t, "A's second ack after the re-key", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 2 })
	if got := a.ev.of(p2p.EventDelivered)[1]; got.Code != p2p.CodeOK || !got.CID.Equals(second.CID()) {
		t.Fatalf("second delivery %+v", got)
	}
	if n := len(b.ev.of(p2p.EventInputRejected)); n != 0 {
		t.Fatalf("B recorded %d rejections", n)
	}
}
