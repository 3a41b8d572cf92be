package negotiation

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
)

// TestAttestationDigestIsPersonalSign: the digest is EIP-191's
// personal_sign hash of the text, as wallets compute it.
func TestAttestationDigestIsPersonalSign(t *testing.T) {
	w := newParty(t, "worker")
	text := AttestationText(w.addr, "translation:en-de", "120 manuals, EN→DE")
	if got, want := AttestationDigest(w.addr, "translation:en-de", "120 manuals, EN→DE"), [32]byte(accounts.TextHash([]byte(text))); got != want {
		t.Fatalf("digest %x, personal_sign %x", got, want)
	}
}

// TestVerifyAttestation: an attestation verifies only as the attester's
// signature over the text naming this subject, capability and statement.
func TestVerifyAttestation(t *testing.T) {
	worker, attester, other := newParty(t, "worker"), newParty(t, "attester"), newParty(t, "other")
	const c, d = "translation:en-de", "translated our manuals"
	sig := attester.signDigest(t, AttestationDigest(worker.addr, c, d))
	a := attester.addr
	good := &CapabilityProof{Capability: c, Kind: "attestation", Description: d, Attester: &a, Signature: sig}
	if err := good.VerifyAttestation(worker.addr); err != nil {
		t.Fatalf("a good attestation: %v", err)
	}
	for name, tc := range map[string]struct {
		p       *CapabilityProof
		subject Address
		code    Code
	}{
		"another subject":    {good, other.addr, CodeSignerMismatch},
		"another capability": {&CapabilityProof{Capability: "law", Description: d, Attester: &a, Signature: sig}, worker.addr, CodeSignerMismatch},
		"another statement":  {&CapabilityProof{Capability: c, Description: d + "!", Attester: &a, Signature: sig}, worker.addr, CodeSignerMismatch},
		"another attester":   {&CapabilityProof{Capability: c, Description: d, Attester: &other.addr, Signature: sig}, worker.addr, CodeSignerMismatch},
		"no attestation":     {&CapabilityProof{Capability: c, Description: d}, worker.addr, CodeBadArgument},
	} {
		t.Run(name, func(t *testing.T) {
			if err := tc.p.VerifyAttestation(tc.subject); !errors.Is(err, &Error{Code: tc.code}) {
				t.Fatalf("VerifyAttestation = %v, want %s", err, tc.code)
			}
		})
	}
}

// TestCapabilityProofAttestationBothOrNeither: a CapabilityProof names its
// attester and carries its signature together, or neither.
func TestCapabilityProofAttestationBothOrNeither(t *testing.T) {
	worker, attester := newParty(t, "worker"), newParty(t, "attester")
	a := attester.addr
	sig := attester.signDigest(t, AttestationDigest(worker.addr, "c", "d"))
	for name, p := range map[string]*CapabilityProof{
		"attester only":  {Capability: "c", Kind: "attestation", Description: "d", Attester: &a},
		"signature only": {Capability: "c", Kind: "attestation", Description: "d", Signature: sig},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := worker.build(NewNegotiationID([16]byte{1}), t0, []Address{a}, p); !errors.Is(err, &Error{Code: CodeSchemaInvalid}) {
				t.Fatalf("Build = %v, want schema_invalid", err)
			}
		})
	}
	e := worker.send(t, NewNegotiationID([16]byte{1}), t0, []Address{a},
		&CapabilityProof{Capability: "c", Kind: "attestation", Description: "d", Attester: &a, Signature: sig})
	back, err := Decode(e.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := back.Payload.(*CapabilityProof); !p.HasAttestation() || *p.Attester != a || p.VerifyAttestation(worker.addr) != nil {
		t.Fatalf("the decoded attestation: %+v", p)
	}
}
