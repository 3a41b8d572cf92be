package negotiation

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
)

// Capability proofs. A worker's CapabilityProof may name a file by CID
// (the poster's node fetches it over the blob protocol and checks its
// bytes against the CID) and may carry an attestation: a statement another
// address signed with EIP-191 (personal_sign) over AttestationText. The
// thread verifies the attestation itself (it needs nothing but the
// payload); the file's check is the poster's node's, which records it and
// hands it to the brief (Brief.SetFileCheck).

// The results of a proof's check.
const (
	ProofVerified  = "verified"  // the file's bytes hash to its CID; the attestation is the attester's signature
	ProofFailed    = "failed"    // the file could not be fetched or did not match; the signature is not the attester's
	ProofPending   = "pending"   // the file is being fetched
	ProofUnchecked = "unchecked" // this node did not check the file (it is not the poster)
)

// ProofKindEscalation is the kind of the CapabilityProof that carries a
// PXP escalation to the other party: not a proof of anything.
const ProofKindEscalation = "escalation"

// AttestationText returns the text an attester signs (EIP-191
// personal_sign) to attest that subject has capability, as description
// says. It names the subject, so an attestation of one worker proves
// nothing of another.
func AttestationText(subject Address, capability, description string) string {
	return fmt.Sprintf("Parley capability attestation\nsubject: %s\ncapability: %s\nstatement: %s", subject, capability, description)
}

// AttestationDigest returns the EIP-191 (version 0x45, personal_sign)
// digest of AttestationText: what the attester's key signs.
func AttestationDigest(subject Address, capability, description string) [32]byte {
	msg := AttestationText(subject, capability, description)
	return [32]byte(crypto.Keccak256([]byte(fmt.Sprintf("\x19Ethereum Signed Message:\n%d%s", len(msg), msg))))
}

// HasAttestation reports whether p carries an attestation.
func (p *CapabilityProof) HasAttestation() bool { return p.Attester != nil && len(p.Signature) > 0 }

// VerifyAttestation checks p's attestation of subject: nil when the
// signature over AttestationDigest is the attester's, an *Error with
// CodeSignerMismatch (or CodeBadEVMSignature) otherwise, CodeBadArgument
// when p carries none.
func (p *CapabilityProof) VerifyAttestation(subject Address) error {
	if !p.HasAttestation() {
		return reject(CodeBadArgument, "/payload/signature", "no attestation")
	}
	got, err := RecoverSigner(AttestationDigest(subject, p.Capability, p.Description), p.Signature)
	if err != nil {
		return err
	}
	if Address(got) != *p.Attester {
		return reject(CodeSignerMismatch, "/payload/signature", "signed by %s, not the attester %s", Address(got), *p.Attester)
	}
	return nil
}

// IsEscalationCarrier reports whether p only carries a PXP escalation.
func (p *CapabilityProof) IsEscalationCarrier() bool {
	return p.Kind == ProofKindEscalation && p.Status == StatusEscalate
}

// CapabilityProofs returns the effective CapabilityProofs of the thread
// that prove something (not the carriers of an escalation), in the order
// the thread took them.
func (t *Thread) CapabilityProofs() []*Envelope {
	var out []*Envelope
	for _, r := range t.log {
		if r.Code != "" || r.Type != TypeCapabilityProof {
			continue
		}
		e := t.byHash[r.Hash]
		if p, ok := e.Payload.(*CapabilityProof); ok && !p.IsEscalationCarrier() {
			out = append(out, e)
		}
	}
	return out
}

// BriefProof is one capability proof the worker attached and what was
// checked of it.
type BriefProof struct {
	// Envelope is the CapabilityProof's hash.
	Envelope    Hash     `json:"envelope"`
	By          Address  `json:"by"`
	Capability  string   `json:"capability"`
	Kind        string   `json:"kind"`
	Description string   `json:"description,omitempty"`
	Ref         string   `json:"ref,omitempty"`
	CID         CID      `json:"cid,omitempty"`
	Attester    *Address `json:"attester,omitempty"`
	// File is the check of the file by CID (ProofVerified, ProofFailed,
	// ProofPending, ProofUnchecked); "" for a proof without one.
	File string `json:"file,omitempty"`
	// FileNote says why a file's check failed.
	FileNote string `json:"fileNote,omitempty"`
	// Attestation is the check of the attestation's signature
	// (ProofVerified or ProofFailed); "" for a proof without one.
	Attestation string `json:"attestation,omitempty"`
}

// Checked reports whether everything the proof names was verified.
func (p BriefProof) Checked() bool {
	return (p.File != "" || p.Attestation != "") &&
		(p.File == "" || p.File == ProofVerified) && (p.Attestation == "" || p.Attestation == ProofVerified)
}

// briefProofs lists t's capability proofs, the attestations verified and
// the files unchecked (the node sets their checks: SetFileCheck).
func (t *Thread) briefProofs() []BriefProof {
	var out []BriefProof
	for _, e := range t.CapabilityProofs() {
		p := e.Payload.(*CapabilityProof)
		bp := BriefProof{Envelope: e.Hash(), By: e.Sender.EVMAddress, Capability: p.Capability, Kind: p.Kind,
			Description: p.Description, Ref: p.Ref, CID: p.CID, Attester: p.Attester}
		if p.CID != "" {
			bp.File = ProofUnchecked
		}
		if p.HasAttestation() {
			bp.Attestation = ProofVerified
			if p.VerifyAttestation(e.Sender.EVMAddress) != nil {
				bp.Attestation = ProofFailed
			}
		}
		out = append(out, bp)
	}
	return out
}

// SetFileCheck records the check of the file the proof envelope names
// (result one of the Proof constants, note why it failed); a proof the
// brief does not list, or one without a file, is left alone.
func (b *Brief) SetFileCheck(envelope Hash, result, note string) {
	for i := range b.Proofs {
		if b.Proofs[i].Envelope == envelope && b.Proofs[i].CID != "" {
			b.Proofs[i].File, b.Proofs[i].FileNote = result, note
		}
	}
}

// proofsMarkdown writes the brief's capability proofs.
func (b *Brief) proofsMarkdown(s *strings.Builder, names map[Address]string) {
	if len(b.Proofs) == 0 {
		return
	}
	s.WriteString("\n## Capability proofs\n\n")
	for _, p := range b.Proofs {
		fmt.Fprintf(s, "- `%s` (%s) by %s", p.Capability, p.Kind, names[p.By])
		if p.Description != "" {
			fmt.Fprintf(s, ": \"%s\"", p.Description)
		}
		if p.CID != "" {
			fmt.Fprintf(s, "; file `%s` %s", p.CID, p.File)
			if p.FileNote != "" {
				fmt.Fprintf(s, " (%s)", p.FileNote)
			}
		}
		if p.Attester != nil {
			fmt.Fprintf(s, "; attestation by `%s` %s", *p.Attester, p.Attestation)
		}
		if p.Ref != "" && p.CID == "" && p.Attester == nil {
			fmt.Fprintf(s, "; reference %s, not machine-checked", p.Ref)
		}
		if p.Checked() {
			s.WriteString("; checked")
		} else {
			s.WriteString("; NOT checked")
		}
		s.WriteString(".\n")
	}
}
