package negotiation

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/gowebpki/jcs"

	"github.com/parleynet/parley/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// benchEnvelopes builds n chained ~2 KB CapabilityProof envelopes from the
// worker in a thread that is already countered.
func benchEnvelopes(b *testing.B, n int) (*Thread, []*Envelope) {
	th, poster, worker, _ := counteredThread(b)
	pad := strings.Repeat("evidence of prior translation work; ", 48) // ~1.7 KB
	out := make([]*Envelope, n)
	for i := range out {
		out[i] = worker.send(b, th.NegotiationID(), t0.Add(time.Duration(i+2)*time.Second), []Address{poster.addr},
			&CapabilityProof{Capability: "translation", Kind: "portfolio", Description: pad})
	}
	return th, out
}

// BenchmarkPipeline measures each stage of receiving a 2 KB envelope, and a
// plain ed25519 verify of the same bytes as the baseline.
func BenchmarkPipeline(b *testing.B) {
	_, envs := benchEnvelopes(b, 1)
	raw := envs[0].Bytes()
	msg := envs[0].SigningBytes()
	pub := ed25519.PublicKey(envs[0].Sender.XMTPPublicKey[:])
	sig := envs[0].Signature[:]
	b.Logf("envelope size: %d bytes", len(raw))

	b.Run("baseline-ed25519-verify", func(b *testing.B) {
		for b.Loop() {
			if !ed25519.Verify(pub, msg, sig) {
				b.Fatal("verify")
			}
		}
	})
	b.Run("jcs", func(b *testing.B) {
		for b.Loop() {
			if _, err := Canonicalize(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("schema", func(b *testing.B) {
		set, _ := schemas.Compiled()
		for b.Loop() {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				b.Fatal(err)
			}
			if err := set.Validate(schemas.Envelope, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode-stage-canonical-check", func(b *testing.B) {
		for b.Loop() {
			if !isCanonical(raw) {
				b.Fatal("not canonical")
			}
		}
	})
	b.Run("decode-stage-one-pass", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeCanonical(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference-decode-with-schemas", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeWithSchemas(raw, DecodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jcs-library", func(b *testing.B) {
		for b.Loop() {
			if _, err := jcs.Transform(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := Decode(raw, DecodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode+verify", func(b *testing.B) {
		for b.Loop() {
			e, err := Decode(raw, DecodeOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if err := e.Verify(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// apply and full replay a pool of chained envelopes, starting a fresh
	// thread (outside the timer) each time the pool is used up: the test
	// parties' keys and times are fixed, so every fresh thread accepts the
	// same pool.
	const pool = 1000
	_, envs = benchEnvelopes(b, pool)
	raws := make([][]byte, len(envs))
	for i, e := range envs {
		raws[i] = e.Bytes()
	}
	fresh := func(b *testing.B) *Thread {
		b.StopTimer()
		th, _, _, _ := counteredThread(b)
		b.StartTimer()
		return th
	}
	b.Run("apply", func(b *testing.B) {
		var th *Thread
		for i := 0; i < b.N; i++ {
			if i%pool == 0 {
				th = fresh(b)
			}
			if out := th.Apply(envs[i%pool], envs[i%pool].Timestamp); !out.Effective() {
				b.Fatal(out.Err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		var th *Thread
		for i := 0; i < b.N; i++ {
			if i%pool == 0 {
				th = fresh(b)
			}
			e, err := Decode(raws[i%pool], DecodeOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if out := th.Apply(e, e.Timestamp); !out.Effective() {
				b.Fatal(out.Err)
			}
		}
	})
}
