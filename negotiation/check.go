package negotiation

import (
	"fmt"
	"math/big"
)

// checkPayload applies the format rules a JSON Schema cannot express: CIDs
// that decode, EVM signatures in r||s||v form with v in {27, 28} and low s,
// and a 128-bit poster nonce.
func checkPayload(p Payload) error {
	switch v := p.(type) {
	case *TaskProposal:
		return checkTerms(&v.Terms)
	case *TaskCounterOffer:
		return checkTerms(&v.Terms)
	case *TaskAcceptance:
		return checkEVMSig(v.Signature, "/payload/signature")
	case *MilestoneDefinition:
		return checkEVMSig(v.Signature, "/payload/signature")
	case *DeliveryNotice:
		if err := checkCID(v.ProofCID, "/payload/proofCid"); err != nil {
			return err
		}
		return checkFiles(v.Files)
	case *CapabilityProof:
		if v.CID != "" {
			if err := checkCID(v.CID, "/payload/cid"); err != nil {
				return err
			}
		}
		if (v.Attester == nil) != (len(v.Signature) == 0) {
			return reject(CodeSchemaInvalid, "/payload/signature", "an attestation names its attester and carries its signature, both or neither")
		}
		if len(v.Signature) > 0 {
			return checkEVMSig(v.Signature, "/payload/signature")
		}
	case *DisputeEvidence:
		if err := checkCID(v.EvidenceCID, "/payload/evidenceCid"); err != nil {
			return err
		}
		return checkFiles(v.Files)
	case *MutualCancel:
		if len(v.Signature) > 0 {
			return checkEVMSig(v.Signature, "/payload/signature")
		}
	case *ReplacementContext:
		if v.HandoffCID != "" {
			if err := checkCID(v.HandoffCID, "/payload/handoffCid"); err != nil {
				return err
			}
		}
		return checkEVMSig(v.Signature, "/payload/signature")
	}
	return nil
}

var max128 = new(big.Int).Lsh(big.NewInt(1), 128)

func checkTerms(t *Terms) error {
	if t.Nonce.Cmp(max128) >= 0 {
		return reject(CodeBadInteger, "/payload/terms/nonce", "the poster's nonce is a 128-bit value")
	}
	if len(t.Milestones) == 0 {
		return reject(CodeSchemaInvalid, "/payload/terms/milestones", "at least one milestone")
	}
	return nil
}

func checkCID(c CID, field string) error {
	if _, err := c.Parse(); err != nil {
		return withField(err, field)
	}
	return nil
}

func checkFiles(fs []FileRef) error {
	for i, f := range fs {
		if err := checkCID(f.CID, fmt.Sprintf("/payload/files/%d/cid", i)); err != nil {
			return err
		}
		if err := CheckFileName(f.Name); err != nil {
			return withPointer(err, fmt.Sprintf("/payload/files/%d/name", i))
		}
	}
	return nil
}

func checkEVMSig(sig EVMSignature, field string) error {
	if len(sig) != 65 {
		return reject(CodeBadEVMSignature, field, "want 65 bytes")
	}
	if v := sig[64]; v != 27 && v != 28 {
		return reject(CodeBadEVMSignature, field, "v must be 27 or 28")
	}
	s := new(big.Int).SetBytes(sig[32:64])
	if s.Sign() == 0 || s.Cmp(secp256k1HalfN) > 0 {
		return reject(CodeBadEVMSignature, field, "s must be in the lower half of the curve order")
	}
	return nil
}
