package identity

import (
	"bytes"
	"testing"
)

func FuzzParseLink(f *testing.F) {
	a := newParty(f, "alice", KEMX25519)
	f.Add(a.link.Bytes())
	f.Add([]byte(`{"evmAddress":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLink(b)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		// Whatever parses re-encodes to its canonical bytes and parses again.
		again, err := ParseLink(l.Bytes())
		if err != nil || !bytes.Equal(again.Bytes(), l.Bytes()) {
			t.Fatalf("round trip: %v", err)
		}
		_ = l.Verify(t0)
	})
}

func FuzzParseRevocation(f *testing.F) {
	a := newParty(f, "alice", KEMX25519)
	r, err := RevokeLink(a.link, a.evm, a.inbox, t0)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(r.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRevocation(b)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		_ = r.Verify(a.link)
	})
}

func FuzzOpen(f *testing.F) {
	a, b := newParty(f, "alice", KEMX25519), newParty(f, "bob", KEMX25519)
	sa := a.sealer(f)
	f1, err := sa.Seal(t0, negA, []*Link{b.link}, []byte("one"))
	if err != nil {
		f.Fatal(err)
	}
	f2, err := sa.Seal(t0, negA, []*Link{b.link}, []byte("two"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(f1)
	f.Add(f2)
	f.Fuzz(func(t *testing.T, frame []byte) {
		sb := b.sealer(t)
		if _, err := sb.Open(t0, f1); err != nil {
			t.Fatal(err)
		}
		o, err := sb.Open(t0, frame)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		// Only frames alice sealed open (seeds may come from another run of
		// this setup, so compare content, not bytes).
		if o.SenderPeer != a.inbox.PeerID() || (string(o.Plaintext) != "one" && string(o.Plaintext) != "two") {
			t.Fatalf("a frame alice never sealed opened: %q", o.Plaintext)
		}
	})
}
