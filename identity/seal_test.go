package identity

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"
)

var negA = [16]byte{0x6f, 0x1d, 0x2c, 0x3b, 0x4a, 0x59, 0x48, 0x77, 0x86, 0x95, 0xa4, 0xb3, 0xc2, 0xd1, 0xe0, 0xff}

func mustSeal(t *testing.T, s *Sealer, now time.Time, neg [16]byte, to []*Link, msg string) []byte {
	t.Helper()
	f, err := s.Seal(now, neg, to, []byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustOpen(t *testing.T, s *Sealer, now time.Time, frame []byte, want string) *Opened {
	t.Helper()
	o, err := s.Open(now, frame)
	if err != nil {
		t.Fatalf("open %q: %v", want, err)
	}
	if string(o.Plaintext) != want {
		t.Fatalf("opened %q, want %q", o.Plaintext, want)
	}
	return o
}

func TestSealOpenBothKEMs(t *testing.T) {
	for _, kem := range []KEM{KEMMLKEM768X25519, KEMX25519} {
		t.Run(string(kem), func(t *testing.T) {
			a, b := newParty(t, "alice", kem), newParty(t, "bob", kem)
			sa, sb := a.sealer(t), b.sealer(t)
			f1 := mustSeal(t, sa, t0, negA, []*Link{b.link}, "first")
			h, err := ParseFrameHeader(f1)
			if err != nil {
				t.Fatal(err)
			}
			if h.Sender != a.inbox.PeerID() || h.NegotiationID != negA || len(h.Entries) != 1 ||
				h.Entries[0].KeyID != b.enc.ID || h.Entries[0].KEM != kem || h.Entries[0].Enc == nil || len(h.Link) == 0 {
				t.Fatalf("header %+v", h)
			}
			o := mustOpen(t, sb, t0, f1, "first")
			if !o.NewSession || o.Sender.Hash() != a.link.Hash() || o.SenderPeer != a.inbox.PeerID() || o.NegotiationID != negA || o.KeyID != b.enc.ID {
				t.Fatalf("opened %+v", o)
			}
			// Later messages carry only the session id: no enc, no link.
			f2 := mustSeal(t, sa, t0, negA, []*Link{b.link}, "second")
			h2, _ := ParseFrameHeader(f2)
			if h2.Entries[0].Enc != nil || h2.Link != nil || h2.Entries[0].SessionID != h.Entries[0].SessionID {
				t.Fatal("a later message carries a session init")
			}
			if len(f2) > 40+len("second")+200 {
				t.Fatalf("later frame is %d bytes", len(f2))
			}
			o2 := mustOpen(t, sb, t0, f2, "second")
			if o2.NewSession || o2.Sender.Hash() != a.link.Hash() {
				t.Fatal("later message should reuse the session and its verified link")
			}
			// And back: bob to alice is another session.
			r := mustSeal(t, sb, t0, negA, []*Link{a.link}, "reply")
			mustOpen(t, sa, t0, r, "reply")
		})
	}
}

func TestSealNotForOthers(t *testing.T) {
	a, b, c := newParty(t, "alice", KEMMLKEM768X25519), newParty(t, "bob", KEMMLKEM768X25519), newParty(t, "carol", KEMMLKEM768X25519)
	sa, sc := a.sealer(t), c.sealer(t)
	f1 := mustSeal(t, sa, t0, negA, []*Link{b.link}, "for bob")
	f2 := mustSeal(t, sa, t0, negA, []*Link{b.link}, "for bob again")
	for _, f := range [][]byte{f1, f2} {
		_, err := sc.Open(t0, f)
		wantCode(t, err, CodeUnknownKey)
	}
	// Even holding bob's key id under its own key does not help carol.
	forged := &memKeys{keys: []*EncryptionKey{{PublicEncryptionKey: PublicEncryptionKey{KEM: c.enc.KEM, ID: b.enc.ID, Public: c.enc.Public, NotAfter: c.enc.NotAfter}, private: c.enc.private}}}
	cfg := DefaultSealerConfig(c.inbox, c.link, forged)
	sc2, err := NewSealer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc2.Open(t0, f1)
	wantCode(t, err, CodeOpenFailed)
	if _, in := sc2.Sessions(); in != 0 {
		t.Fatal("a failed open registered a session")
	}
}

func TestSealEveryBitFlipFails(t *testing.T) {
	a, b := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519)
	sa := a.sealer(t)
	init := mustSeal(t, sa, t0, negA, []*Link{b.link}, "an envelope of some length")
	later := mustSeal(t, sa, t0, negA, []*Link{b.link}, "a later envelope")
	sb := b.sealer(t)
	check := func(t *testing.T, name string, frame []byte, step int) {
		for bit := 0; bit < len(frame)*8; bit += step {
			c := bytes.Clone(frame)
			c[bit/8] ^= 1 << (bit % 8)
			if o, err := sb.Open(t0, c); err == nil {
				t.Fatalf("%s: flipping bit %d still opens: %q", name, bit, o.Plaintext)
			}
		}
		if _, in := sb.Sessions(); name == "init" && in != 0 {
			t.Fatal("a tampered init registered a session")
		}
	}
	check(t, "init", init, 1)
	mustOpen(t, sb, t0, init, "an envelope of some length")
	check(t, "later", later, 1)
	mustOpen(t, sb, t0, later, "a later envelope")

	// The hybrid KEM's larger frame, sampled.
	a2, b2 := newParty(t, "alice", KEMMLKEM768X25519), newParty(t, "bob", KEMMLKEM768X25519)
	f := mustSeal(t, a2.sealer(t), t0, negA, []*Link{b2.link}, "pq")
	sb = b2.sealer(t)
	check(t, "init", f, 13)
	mustOpen(t, sb, t0, f, "pq")
}

func TestSealWrongNegotiation(t *testing.T) {
	a, b := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519)
	sa, sb := a.sealer(t), b.sealer(t)
	f1 := mustSeal(t, sa, t0, negA, []*Link{b.link}, "one")
	mustOpen(t, sb, t0, f1, "one")
	f2 := mustSeal(t, sa, t0, negA, []*Link{b.link}, "two")
	// negotiationId sits at offset 10 in the clear header.
	moved := bytes.Clone(f2)
	copy(moved[10:26], []byte("another-negot-id"))
	h, err := ParseFrameHeader(moved)
	if err != nil || h.NegotiationID == negA {
		t.Fatalf("edit did not change the negotiation id: %v", err)
	}
	_, err = sb.Open(t0, moved)
	wantCode(t, err, CodeOpenFailed)
	mustOpen(t, sb, t0, f2, "two")
}

func TestSealReorderAndRetry(t *testing.T) {
	a, b := newParty(t, "alice", KEMMLKEM768X25519), newParty(t, "bob", KEMMLKEM768X25519)
	sa, sb := a.sealer(t), b.sealer(t)
	var frames [][]byte
	for i := range 6 {
		frames = append(frames, mustSeal(t, sa, t0, negA, []*Link{b.link}, fmt.Sprint("m", i)))
	}
	// A later message before the session's first is an unknown session,
	// named so the transport can ask for a re-key, and changes nothing.
	_, err := sb.Open(t0, frames[3])
	wantCode(t, err, CodeUnknownSession)
	var ie *Error
	if !errors.As(err, &ie) || ie.Sender != a.inbox.PeerID() || ie.KeyID != b.enc.ID || ie.SessionID == (SessionID{}) {
		t.Fatalf("unknown session error lacks its fields: %+v", ie)
	}
	if !errors.Is(err, ErrUnknownSession) {
		t.Fatal("errors.Is(ErrUnknownSession)")
	}
	for _, i := range []int{0, 4, 2, 2, 5, 3, 1, 0, 3, 5} {
		mustOpen(t, sb, t0, frames[i], fmt.Sprint("m", i))
	}
	if out, in := sb.Sessions(); out != 0 || in != 1 {
		t.Fatalf("sessions %d/%d", out, in)
	}
}

func TestSealRekeyAfterRestart(t *testing.T) {
	a, b := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519)
	sa, sb := a.sealer(t), b.sealer(t)
	mustOpen(t, sb, t0, mustSeal(t, sa, t0, negA, []*Link{b.link}, "one"), "one")
	sb = b.sealer(t) // bob restarts: sessions live in memory only
	f := mustSeal(t, sa, t0, negA, []*Link{b.link}, "two")
	_, err := sb.Open(t0, f)
	wantCode(t, err, CodeUnknownSession)
	var ie *Error
	errors.As(err, &ie)
	sa.ResetSession(ie.KeyID) // the re-key request
	f = mustSeal(t, sa, t0, negA, []*Link{b.link}, "two")
	if o := mustOpen(t, sb, t0, f, "two"); !o.NewSession {
		t.Fatal("re-keyed frame should set up a new session")
	}
}

func TestSealKeyExpiry(t *testing.T) {
	a, b := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519)
	sa, sb := a.sealer(t), b.sealer(t)
	f1 := mustSeal(t, sa, t0, negA, []*Link{b.link}, "one")
	f2 := mustSeal(t, sa, t0, negA, []*Link{b.link}, "two")
	mustOpen(t, sb, t0, f1, "one")
	grace := DefaultGracePeriod
	end := b.enc.NotAfter.Add(grace)
	// Within the grace period after notAfter, old frames still open.
	mustOpen(t, sb, end.Add(-time.Second), f2, "two")
	// Past it, they do not, even with the private key still in memory.
	_, err := sb.Open(end, f2)
	wantCode(t, err, CodeKeyExpired)
	fresh := b.sealer(t)
	_, err = fresh.Open(end, f1)
	wantCode(t, err, CodeKeyExpired)
	// Pruning deletes the sessions and, with the key gone, nothing opens.
	if n := sb.Prune(end); n != 1 {
		t.Fatalf("pruned %d sessions, want 1", n)
	}
	b.keys.keys = nil
	_, err = sb.Open(end.Add(-time.Hour), f2)
	wantCode(t, err, CodeUnknownKey)
	_, err = b.sealer(t).Open(end.Add(-time.Hour), f1)
	wantCode(t, err, CodeUnknownKey)
	// The sender stops sealing to an expired key.
	_, err = sa.Seal(b.enc.NotAfter, negA, []*Link{b.link}, []byte("late"))
	wantCode(t, err, CodeNoCurrentKey)
}

func TestSealMultiRecipient(t *testing.T) {
	a := newParty(t, "alice", KEMMLKEM768X25519)
	b := newParty(t, "bob", KEMMLKEM768X25519)
	c := newParty(t, "carol", KEMX25519) // a member with an X25519 key
	d := newParty(t, "dave", KEMMLKEM768X25519)
	e := newParty(t, "eve", KEMMLKEM768X25519)
	sa := a.sealer(t)
	members := []*Link{b.link, c.link, d.link}
	sealers := []*Sealer{b.sealer(t), c.sealer(t), d.sealer(t)}
	for i := range 3 {
		msg := fmt.Sprint("evidence ", i)
		f := mustSeal(t, sa, t0, negA, members, msg)
		h, err := ParseFrameHeader(f)
		if err != nil || len(h.Entries) != 3 {
			t.Fatal(err)
		}
		for j, s := range sealers {
			o := mustOpen(t, s, t0, f, msg)
			if o.KeyID != h.Entries[j].KeyID || o.NewSession != (i == 0) {
				t.Fatalf("member %d: %+v", j, o)
			}
		}
		_, err = e.sealer(t).Open(t0, f)
		wantCode(t, err, CodeNotAddressed)
	}
	// A flipped bit in one member's wrap breaks that member only; a flipped
	// bit anywhere else breaks everyone.
	f := mustSeal(t, sa, t0, negA, members, "x")
	p, _ := parseFrame(f)
	off := len(p.header) + 2*wrapSize + 30 // inside dave's wrap
	g := bytes.Clone(f)
	g[off] ^= 1
	mustOpen(t, sealers[0], t0, g, "x")
	mustOpen(t, sealers[1], t0, g, "x")
	_, err := sealers[2].Open(t0, g)
	wantCode(t, err, CodeOpenFailed)
	for _, off := range []int{12, len(p.header) - 3, len(f) - 1, len(f) - 30} {
		g := bytes.Clone(f)
		g[off] ^= 0x80
		for j, s := range sealers {
			if _, err := s.Open(t0, g); err == nil {
				t.Fatalf("member %d opened a frame altered at %d", j, off)
			}
		}
	}
	_, err = sa.Seal(t0, negA, []*Link{b.link, b.link}, []byte("x"))
	wantCode(t, err, CodeBadConfig)
}

// reassemble builds a frame from an edited header and the original wraps
// and body.
func reassemble(h *FrameHeader, p *parsedFrame) []byte {
	out := appendFrameHeader(nil, h)
	out = append(out, p.wraps...)
	return append(out, p.body...)
}

func TestSealInitForgery(t *testing.T) {
	a, b, m := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519), newParty(t, "mallory", KEMX25519)
	f := mustSeal(t, a.sealer(t), t0, negA, []*Link{b.link}, "from alice")
	p, err := parseFrame(f)
	if err != nil {
		t.Fatal(err)
	}
	sb := b.sealer(t)

	// Mallory claims alice's session as hers: her link, peer id and a valid
	// init signature by her own key. She lacks the session key.
	h := p.FrameHeader
	h.Entries = append([]FrameEntry(nil), h.Entries...)
	h.Sender, h.Link = m.inbox.PeerID(), m.link.Bytes()
	e := &h.Entries[0]
	e.InitSig = m.inbox.Sign(initSigningBytes(e.KEM.ID(), e.KeyID, e.SessionID, e.Enc))
	_, err = sb.Open(t0, reassemble(&h, p))
	wantCode(t, err, CodeOpenFailed)

	// Alice's link with mallory's peer id, or mallory's signature under
	// alice's link, are refused before any decryption.
	h2 := p.FrameHeader
	h2.Sender = m.inbox.PeerID()
	_, err = sb.Open(t0, reassemble(&h2, p))
	wantCode(t, err, CodePeerIDMismatch)
	h3 := p.FrameHeader
	h3.Entries = []FrameEntry{p.Entries[0]}
	h3.Entries[0].InitSig = m.inbox.Sign(initSigningBytes(e.KEM.ID(), e.KeyID, e.SessionID, e.Enc))
	_, err = sb.Open(t0, reassemble(&h3, p))
	wantCode(t, err, CodeBadSignature)

	if _, in := sb.Sessions(); in != 0 {
		t.Fatal("a forged init registered a session")
	}
	o := mustOpen(t, sb, t0, f, "from alice")
	if o.SenderPeer != a.inbox.PeerID() {
		t.Fatal("wrong sender")
	}

	// Mallory cannot speak in alice's session under her own peer id.
	sa := a.sealer(t)
	mustOpen(t, sb, t0, mustSeal(t, sa, t0, negA, []*Link{b.link}, "one"), "one")
	f3 := mustSeal(t, sa, t0, negA, []*Link{b.link}, "two")
	p3, _ := parseFrame(f3)
	h4 := p3.FrameHeader
	h4.Sender = m.inbox.PeerID()
	_, err = sb.Open(t0, reassemble(&h4, p3))
	wantCode(t, err, CodeSessionMismatch)
}

func TestSealSenderLinkExpiry(t *testing.T) {
	a, b := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519)
	sa, sb := a.sealer(t), b.sealer(t)
	late := a.link.ExpiresAt
	// b's key has expired by then too; give bob a key valid that late.
	k, _ := DeriveEncryptionKey(KEMX25519, seed("bob", "late"), late.Add(time.Hour))
	b.keys.keys = append(b.keys.keys, k)
	bl, err := CreateLink(b.evm, b.inbox, []*PublicEncryptionKey{k.PublicKey()}, t0, late.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	f := mustSeal(t, sa, late, negA, []*Link{bl}, "stale link")
	_, err = sb.Open(late, f)
	wantCode(t, err, CodeLinkExpired)
	var ie *Error
	if !errors.As(err, &ie) || ie.SessionID == (SessionID{}) {
		t.Fatal("link error lacks its session")
	}
}

func TestFrameParseRejects(t *testing.T) {
	a, b := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519)
	f := mustSeal(t, a.sealer(t), t0, negA, []*Link{b.link}, "x")
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"magic", append([]byte("XRLY"), f[4:]...)},
		{"version", append(append([]byte{}, f[:4]...), append([]byte{2}, f[5:]...)...)},
		{"truncated header", f[:40]},
		{"truncated body", f[:len(f)-len("x")-tagSize-nonceSize]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.sealer(t).Open(t0, tc.in)
			wantCode(t, err, CodeBadFrame)
		})
	}
}

func TestSealerConfigValidate(t *testing.T) {
	a, b := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519)
	for _, tc := range []struct {
		name string
		edit func(*SealerConfig)
	}{
		{"inbox", func(c *SealerConfig) { c.Inbox = nil }},
		{"link", func(c *SealerConfig) { c.Link = nil }},
		{"link of another", func(c *SealerConfig) { c.Link = b.link }},
		{"keys", func(c *SealerConfig) { c.Keys = nil }},
		{"grace", func(c *SealerConfig) { c.GracePeriod = -1 }},
		{"plaintext", func(c *SealerConfig) { c.MaxPlaintext = 0 }},
		{"sessions", func(c *SealerConfig) { c.MaxSessions = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultSealerConfig(a.inbox, a.link, a.keys)
			tc.edit(&c)
			_, err := NewSealer(c)
			wantCode(t, err, CodeBadConfig)
		})
	}
	s := a.sealer(t)
	_, err := s.Seal(t0, negA, []*Link{b.link}, make([]byte, DefaultMaxPlaintext+1))
	wantCode(t, err, CodeTooLarge)
	wantCode(t, s.SetLink(b.link), CodeBadConfig)
	_, err = s.Seal(b.link.ExpiresAt, negA, []*Link{b.link}, []byte("x"))
	wantCode(t, err, CodeLinkExpired)
}

func TestSealerSessionBound(t *testing.T) {
	a, b, c := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519), newParty(t, "carol", KEMX25519)
	cfg := DefaultSealerConfig(b.inbox, b.link, b.keys)
	cfg.MaxSessions = 1
	sb, err := NewSealer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sa, sc := a.sealer(t), c.sealer(t)
	mustOpen(t, sb, t0, mustSeal(t, sa, t0, negA, []*Link{b.link}, "a1"), "a1")
	mustOpen(t, sb, t0, mustSeal(t, sc, t0, negA, []*Link{b.link}, "c1"), "c1")
	if _, in := sb.Sessions(); in != 1 {
		t.Fatalf("%d sessions kept, bound is 1", in)
	}
	_, err = sb.Open(t0, mustSeal(t, sa, t0, negA, []*Link{b.link}, "a2"))
	wantCode(t, err, CodeUnknownSession) // evicted: alice re-keys
}
