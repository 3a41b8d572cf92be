package node_test

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// attest signs the attestation that subject has capability, as
// description says, with key (EIP-191).
func attest(t *testing.T, key *ecdsa.PrivateKey, subject negotiation.Address, capability, description string) negotiation.EVMSignature {
	t.Helper()
	d := negotiation.AttestationDigest(subject, capability, description)
	sig, err := crypto.Sign(d[:], key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

// capabilityOf returns the view of proof h in v.
func capabilityOf(v node.ThreadView, h negotiation.Hash) (node.CapabilityView, bool) {
	for _, c := range v.Capabilities {
		if c.Proof == h {
			return c, true
		}
	}
	return node.CapabilityView{}, false
}

// TestCapabilityProofs: the worker attaches a portfolio file and a
// colleague's attestation; the poster's node fetches the file over the
// blob protocol, checks it against its CID, verifies the attestation,
// records both and says so in its thread view, its events and the brief.
// A proof naming a CID the worker does not serve is reported failed; an
// attestation that is not the attester's is refused before anything is
// sent.
func TestCapabilityProofs(t *testing.T) {
	_, poster, worker := revPair(t, time.Hour)
	events, stop := poster.Subscribe(256)
	defer stop()
	nid := agree(t, poster, worker, eth(300))

	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	attester := negotiation.Address(crypto.PubkeyToAddress(key.PublicKey))
	const capability, description = "translation:en-de", "120 manuals translated EN to DE since 2019"
	file := []byte("# Portfolio\n\n120 manuals, EN to DE.\n")
	res, err := worker.Capability(t.Context(), nid, node.CapabilitySpec{
		Capability: capability, Kind: "portfolio", Description: description, Ref: "https://portfolio.example.net/en-de",
		Name: "portfolio.md", MediaType: "text/markdown", Data: file,
		Attester: &attester, Signature: attest(t, key, worker.Address(), capability, description),
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ledger.ObjectCID(file, ledger.CodecRaw)
	if res.Envelope == nil || res.Envelope.Type != negotiation.TypeCapabilityProof || res.Detail["cid"] != want.String() {
		t.Fatalf("Capability = %+v", res)
	}
	good := res.Envelope.Hash

	var pv node.CapabilityView
	eventually(t, "the poster to check the proof", func() bool {
		v, err := poster.Thread(nid)
		if err != nil {
			return false
		}
		var ok bool
		pv, ok = capabilityOf(v, good)
		return ok && pv.File != negotiation.ProofPending
	})
	if pv.File != negotiation.ProofVerified || pv.Attestation != negotiation.ProofVerified || !pv.Checked ||
		pv.Capability != capability || pv.Kind != "portfolio" || pv.Description != description ||
		pv.Ref != "https://portfolio.example.net/en-de" || string(pv.CID) != want.String() || pv.Attester == nil || *pv.Attester != attester {
		t.Fatalf("the poster's view of the proof: %+v", pv)
	}
	if got, err := poster.File(t.Context(), want); err != nil || !bytes.Equal(got, file) {
		t.Fatalf("the poster's copy of the portfolio: %q, %v", got, err)
	}
	wv, err := worker.Thread(nid)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := capabilityOf(wv, good); !ok || c.File != negotiation.ProofUnchecked || c.Attestation != negotiation.ProofVerified {
		t.Fatalf("the worker's view of its proof: %+v", c)
	}

	// A CID of bytes the worker does not hold: the poster cannot fetch it.
	missing, _ := ledger.ObjectCID([]byte("a certificate nobody has"), ledger.CodecRaw)
	res, err = worker.Capability(t.Context(), nid, node.CapabilitySpec{
		Capability: "terminology", Kind: "certificate", Description: "a certificate", CID: negotiation.CID(missing.String()),
	})
	if err != nil {
		t.Fatal(err)
	}
	bad := res.Envelope.Hash
	eventually(t, "the poster to fail the proof", func() bool {
		v, err := poster.Thread(nid)
		if err != nil {
			return false
		}
		var ok bool
		pv, ok = capabilityOf(v, bad)
		return ok && pv.File != negotiation.ProofPending
	})
	if pv.File != negotiation.ProofFailed || pv.Checked || pv.FileNote == "" {
		t.Fatalf("the poster's view of the missing proof: %+v", pv)
	}
	results := map[string]string{}
	for len(results) < 2 {
		select {
		case ev := <-events:
			if ev.Kind == node.EventCapability && ev.NegotiationID == nid {
				results[ev.Hash] = ev.Detail
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("capability events: %v", results)
		}
	}
	if results[good.String()] != negotiation.ProofVerified || results[bad.String()] != negotiation.ProofFailed {
		t.Fatalf("capability events: %v", results)
	}

	// An attestation signed for another subject is refused before
	// anything is sent.
	wv, _ = worker.Thread(nid)
	before := len(wv.Log)
	_, err = worker.Capability(t.Context(), nid, node.CapabilitySpec{
		Capability: capability, Kind: "attestation", Description: description,
		Attester: &attester, Signature: attest(t, key, poster.Address(), capability, description),
	})
	if code := node.CodeOf(err); code != node.Code(negotiation.CodeSignerMismatch) {
		t.Fatalf("a forged attestation: %v", err)
	}
	if wv, _ = worker.Thread(nid); len(wv.Log) != before {
		t.Fatalf("the forged attestation was sent: %d records, had %d", len(wv.Log), before)
	}
	if _, err := worker.Capability(t.Context(), nid, node.CapabilitySpec{Capability: "pxp", Kind: "escalation", Description: "x", Ref: "r"}); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("a proof of kind escalation: %v", err)
	}
	if _, err := poster.Capability(t.Context(), nid, node.CapabilitySpec{Capability: capability, Kind: "portfolio", Ref: "r"}); node.CodeOf(err) != node.CodeNotParty {
		t.Fatalf("the poster's capability proof: %v", err)
	}

	// The room, as an agent at the poster's seat reads it, says so too.
	room, err := poster.Room(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	if len(room.Proofs) != 2 || !room.Proofs[0].Checked || room.Proofs[1].File != negotiation.ProofFailed {
		t.Fatalf("the room's proofs: %+v", room.Proofs)
	}

	// The brief says which proofs were checked.
	b, err := poster.Brief(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	var brief negotiation.Brief
	if err := json.Unmarshal(b.JSON, &brief); err != nil {
		t.Fatal(err)
	}
	if len(brief.Proofs) != 2 || brief.Proofs[0].File != negotiation.ProofVerified || brief.Proofs[0].Attestation != negotiation.ProofVerified ||
		!brief.Proofs[0].Checked() || brief.Proofs[1].File != negotiation.ProofFailed || brief.Proofs[1].Checked() {
		t.Fatalf("the brief's proofs: %+v", brief.Proofs)
	}
	if !strings.Contains(b.Markdown, "## Capability proofs") || !strings.Contains(b.Markdown, "`translation:en-de` (portfolio)") ||
		!strings.Contains(b.Markdown, "NOT checked") {
		t.Fatalf("the brief's Markdown:\n%s", b.Markdown)
	}

	// The checks survive a restart.
	poster.restart()
	v, err := poster.Thread(nid)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := capabilityOf(v, good); c.File != negotiation.ProofVerified {
		t.Fatalf("after a restart, the proof: %+v", c)
	}
	if c, _ := capabilityOf(v, bad); c.File != negotiation.ProofFailed {
		t.Fatalf("after a restart, the missing proof: %+v", c)
	}
}
