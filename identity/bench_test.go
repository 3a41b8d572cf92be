package identity

import (
	"crypto/hpke"
	"testing"
)

// benchPlaintext is the size of a typical envelope.
const benchPlaintext = 2048

// BenchmarkSealOpenCachedSession measures seal + open of one 2 KB message
// in an established session: two XChaCha20-Poly1305 operations each way
// (content and key wrap) and two SHA-256 over the frame.
func BenchmarkSealOpenCachedSession(b *testing.B) {
	for _, kem := range []KEM{KEMMLKEM768X25519, KEMX25519} {
		b.Run(string(kem), func(b *testing.B) {
			a, r := newParty(b, "alice", kem), newParty(b, "bob", kem)
			sa, sr := a.sealer(b), r.sealer(b)
			msg := make([]byte, benchPlaintext)
			f, err := sa.Seal(t0, negA, []*Link{r.link}, msg)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sr.Open(t0, f); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(benchPlaintext)
			b.ReportAllocs()
			for b.Loop() {
				f, err := sa.Seal(t0, negA, []*Link{r.link}, msg)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sr.Open(t0, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSealOpenFreshSession measures seal + open of one 2 KB message
// when every message sets up a new session: an HPKE key exchange, the
// sender's init signature, and the recipient's verification of the
// sender's link (EIP-712 recovery and ed25519) and of the init signature.
func BenchmarkSealOpenFreshSession(b *testing.B) {
	for _, kem := range []KEM{KEMMLKEM768X25519, KEMX25519} {
		b.Run(string(kem), func(b *testing.B) {
			a, r := newParty(b, "alice", kem), newParty(b, "bob", kem)
			sa := a.sealer(b)
			cfg := DefaultSealerConfig(r.inbox, r.link, r.keys)
			cfg.MaxSessions = 1
			sr, err := NewSealer(cfg)
			if err != nil {
				b.Fatal(err)
			}
			msg := make([]byte, benchPlaintext)
			b.SetBytes(benchPlaintext)
			b.ReportAllocs()
			for b.Loop() {
				sa.ResetSession(r.enc.ID)
				f, err := sa.Seal(t0, negA, []*Link{r.link}, msg)
				if err != nil {
					b.Fatal(err)
				}
				o, err := sr.Open(t0, f)
				if err != nil || !o.NewSession {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHPKESingleShot is the baseline without sessions: RFC 9180
// single-shot Seal and Open (a key exchange per message, ChaCha20-Poly1305)
// of the same 2 KB, with no link or signature checks.
func BenchmarkHPKESingleShot(b *testing.B) {
	for _, kem := range []KEM{KEMMLKEM768X25519, KEMX25519} {
		b.Run(string(kem), func(b *testing.B) {
			r := newParty(b, "bob", kem)
			msg := make([]byte, benchPlaintext)
			b.SetBytes(benchPlaintext)
			b.ReportAllocs()
			for b.Loop() {
				ct, err := hpke.Seal(r.enc.Public, hpke.HKDFSHA256(), hpke.ChaCha20Poly1305(), nil, msg)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := hpke.Open(r.enc.private, hpke.HKDFSHA256(), hpke.ChaCha20Poly1305(), nil, ct); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSealOpenMultiRecipient measures a dispute-thread message to
// three members in established sessions: one seal, three opens.
func BenchmarkSealOpenMultiRecipient(b *testing.B) {
	a := newParty(b, "alice", KEMMLKEM768X25519)
	ms := []*party{newParty(b, "bob", KEMMLKEM768X25519), newParty(b, "carol", KEMMLKEM768X25519), newParty(b, "dave", KEMMLKEM768X25519)}
	sa := a.sealer(b)
	links := []*Link{ms[0].link, ms[1].link, ms[2].link}
	var openers []*Sealer
	for _, m := range ms {
		openers = append(openers, m.sealer(b))
	}
	msg := make([]byte, benchPlaintext)
	f, err := sa.Seal(t0, negA, links, msg)
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range openers {
		if _, err := o.Open(t0, f); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(benchPlaintext)
	b.ReportAllocs()
	for b.Loop() {
		f, err := sa.Seal(t0, negA, links, msg)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range openers {
			if _, err := o.Open(t0, f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLinkVerify measures verifying an identity link (EIP-712 digest,
// secp256k1 recovery, ed25519 verification).
func BenchmarkLinkVerify(b *testing.B) {
	a := newParty(b, "alice", KEMMLKEM768X25519)
	raw := a.link.Bytes()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeLink(raw, t0); err != nil {
			b.Fatal(err)
		}
	}
}
