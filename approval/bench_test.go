package approval

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"testing"
)

// BenchmarkApprovalRoundTrip is one whole approval: a request is built,
// the options are begun, a software authenticator signs the intentHash
// (P-256), the assertion is verified and the approval recorded, and the
// receipt is encoded, parsed and consumed by the gate (a second P-256
// verification).
func BenchmarkApprovalRoundTrip(b *testing.B) {
	h := newHarness(b)
	ctx := b.Context()
	key, err := NewSoftwareKey(h.cfg, testOrigin)
	if err != nil {
		b.Fatal(err)
	}
	tok, _ := IssueEnrolToken(ctx, h.store, h.clk.Now(), 0, nil)
	if _, err := RegisterSoftwareKey(ctx, h.c, key, "bench", tok, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		req := h.settlementRequest(b, "1500000000000000000")
		r, err := ApproveWithSoftwareKey(ctx, h.c, key, req)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := json.Marshal(r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.gate.Consume(ctx, raw, req.Action); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConsume is the gate's cost per receipt: parse, window,
// integrity and binding hashes, the one-shot check, the WebAuthn
// re-verification and the consumption record (MemStore). The receipts are
// approved before the timer starts.
func BenchmarkConsume(b *testing.B) {
	h := newHarness(b)
	ctx := b.Context()
	key, err := NewSoftwareKey(h.cfg, testOrigin)
	if err != nil {
		b.Fatal(err)
	}
	tok, _ := IssueEnrolToken(ctx, h.store, h.clk.Now(), 0, nil)
	if _, err := RegisterSoftwareKey(ctx, h.c, key, "bench", tok, nil); err != nil {
		b.Fatal(err)
	}
	type pending struct {
		raw []byte
		act Action
	}
	receipts := make([]pending, b.N)
	for i := range receipts {
		req := h.settlementRequest(b, "1500000000000000000")
		r, err := ApproveWithSoftwareKey(ctx, h.c, key, req)
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := json.Marshal(r)
		receipts[i] = pending{raw, req.Action}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := h.gate.Consume(ctx, receipts[i].raw, receipts[i].act); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkP256VerifyBaseline is the floor under the gate: one P-256
// ECDSA verification of an ASN.1 signature, which Consume does once and
// the round trip twice.
func BenchmarkP256VerifyBaseline(b *testing.B) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	digest := sha256.Sum256([]byte("authenticatorData || SHA-256(clientDataJSON)"))
	sig, err := ecdsa.SignASN1(rand.Reader, k, digest[:])
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if !ecdsa.VerifyASN1(&k.PublicKey, digest[:], sig) {
			b.Fatal("does not verify")
		}
	}
}
