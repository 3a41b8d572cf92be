package negotiation

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Domain is the EIP-712 domain every Parley settlement, amendment,
// replacement and cancel is signed under: {name: "Parley", version: "1",
// chainId, verifyingContract: the TaskRegistry}.
type Domain struct {
	ChainID           *big.Int
	VerifyingContract common.Address
}

// DomainName and DomainVersion are the fixed name and version of the
// settlement domain (DESIGN.md).
const (
	DomainName    = "Parley"
	DomainVersion = "1"
)

// Settlement is the EIP-712 struct both parties sign when they agree. Every
// field is in the clear so a wallet can show a person what is signed.
type Settlement struct {
	NegotiationID     [16]byte
	Poster            common.Address
	Worker            common.Address
	Token             common.Address // the zero address for native ETH
	Amount            *big.Int       // the sum of MilestoneAmounts
	MilestoneAmounts  []*big.Int
	Deadline          uint64 // Unix seconds
	TermsHash         [32]byte
	AcceptedOfferHash [32]byte
	Nonce             *big.Int // the poster's random 128-bit value from the terms
}

// Amendment changes the milestones or deadline of a funded task.
type Amendment struct {
	TaskID           [32]byte
	MilestoneAmounts []*big.Int
	Deadline         uint64
	TermsHash        [32]byte
	Nonce            *big.Int
}

// Replacement hands a funded task to a new worker.
type Replacement struct {
	TaskID      [32]byte
	NewWorker   common.Address
	HandoffHash [32]byte
	Nonce       *big.Int
}

// Cancel is a party's signed intent to cancel a funded task by mutual consent.
type Cancel struct {
	TaskID [32]byte
	Nonce  *big.Int
}

var eip712Types = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
		{Name: "verifyingContract", Type: "address"},
	},
	"Settlement": {
		{Name: "negotiationId", Type: "bytes16"},
		{Name: "poster", Type: "address"},
		{Name: "worker", Type: "address"},
		{Name: "token", Type: "address"},
		{Name: "amount", Type: "uint256"},
		{Name: "milestoneAmounts", Type: "uint256[]"},
		{Name: "deadline", Type: "uint64"},
		{Name: "termsHash", Type: "bytes32"},
		{Name: "acceptedOfferHash", Type: "bytes32"},
		{Name: "nonce", Type: "uint256"},
	},
	"Amendment": {
		{Name: "taskId", Type: "bytes32"},
		{Name: "milestoneAmounts", Type: "uint256[]"},
		{Name: "deadline", Type: "uint64"},
		{Name: "termsHash", Type: "bytes32"},
		{Name: "nonce", Type: "uint256"},
	},
	"Replacement": {
		{Name: "taskId", Type: "bytes32"},
		{Name: "newWorker", Type: "address"},
		{Name: "handoffHash", Type: "bytes32"},
		{Name: "nonce", Type: "uint256"},
	},
	"Cancel": {
		{Name: "taskId", Type: "bytes32"},
		{Name: "nonce", Type: "uint256"},
	},
}

// SettlementTypeString is the EIP-712 type string of Settlement, pinned by
// DESIGN.md; the contract hashes the same string.
const SettlementTypeString = "Settlement(bytes16 negotiationId,address poster,address worker,address token,uint256 amount,uint256[] milestoneAmounts,uint64 deadline,bytes32 termsHash,bytes32 acceptedOfferHash,uint256 nonce)"

func (d Domain) typed() apitypes.TypedDataDomain {
	cid := d.ChainID
	if cid == nil {
		cid = new(big.Int)
	}
	return apitypes.TypedDataDomain{
		Name:              DomainName,
		Version:           DomainVersion,
		ChainId:           (*math.HexOrDecimal256)(new(big.Int).Set(cid)),
		VerifyingContract: d.VerifyingContract.Hex(),
	}
}

func bigs(v []*big.Int) []interface{} {
	out := make([]interface{}, len(v))
	for i, x := range v {
		if x == nil {
			x = new(big.Int)
		}
		out[i] = new(big.Int).Set(x)
	}
	return out
}

func nz(x *big.Int) *big.Int {
	if x == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(x)
}

// TypedData returns the full EIP-712 typed data (domain, types, primary
// type, message) of s, as a wallet or another library would receive it.
func (s Settlement) TypedData(d Domain) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       pick("Settlement"),
		PrimaryType: "Settlement",
		Domain:      d.typed(),
		Message: apitypes.TypedDataMessage{
			"negotiationId":     s.NegotiationID[:],
			"poster":            s.Poster.Hex(),
			"worker":            s.Worker.Hex(),
			"token":             s.Token.Hex(),
			"amount":            nz(s.Amount),
			"milestoneAmounts":  bigs(s.MilestoneAmounts),
			"deadline":          new(big.Int).SetUint64(s.Deadline),
			"termsHash":         s.TermsHash[:],
			"acceptedOfferHash": s.AcceptedOfferHash[:],
			"nonce":             nz(s.Nonce),
		},
	}
}

// TypedData returns the EIP-712 typed data of an amendment.
func (a Amendment) TypedData(d Domain) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       pick("Amendment"),
		PrimaryType: "Amendment",
		Domain:      d.typed(),
		Message: apitypes.TypedDataMessage{
			"taskId":           a.TaskID[:],
			"milestoneAmounts": bigs(a.MilestoneAmounts),
			"deadline":         new(big.Int).SetUint64(a.Deadline),
			"termsHash":        a.TermsHash[:],
			"nonce":            nz(a.Nonce),
		},
	}
}

// TypedData returns the EIP-712 typed data of a replacement.
func (r Replacement) TypedData(d Domain) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       pick("Replacement"),
		PrimaryType: "Replacement",
		Domain:      d.typed(),
		Message: apitypes.TypedDataMessage{
			"taskId":      r.TaskID[:],
			"newWorker":   r.NewWorker.Hex(),
			"handoffHash": r.HandoffHash[:],
			"nonce":       nz(r.Nonce),
		},
	}
}

// TypedData returns the EIP-712 typed data of a cancel.
func (c Cancel) TypedData(d Domain) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       pick("Cancel"),
		PrimaryType: "Cancel",
		Domain:      d.typed(),
		Message: apitypes.TypedDataMessage{
			"taskId": c.TaskID[:],
			"nonce":  nz(c.Nonce),
		},
	}
}

func pick(primary string) apitypes.Types {
	return apitypes.Types{"EIP712Domain": eip712Types["EIP712Domain"], primary: eip712Types[primary]}
}

// TypedDataDigest returns keccak256("\x19\x01" || domainSeparator || hashStruct(message)).
func TypedDataDigest(td apitypes.TypedData) ([32]byte, error) {
	h, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return [32]byte{}, fmt.Errorf("negotiation: eip712: %w", err)
	}
	return [32]byte(h), nil
}

// Digest returns the EIP-712 digest of s under d.
func (s Settlement) Digest(d Domain) ([32]byte, error) {
	if err := s.check(); err != nil {
		return [32]byte{}, err
	}
	return TypedDataDigest(s.TypedData(d))
}

// Digest returns the EIP-712 digest of a under d.
func (a Amendment) Digest(d Domain) ([32]byte, error) { return TypedDataDigest(a.TypedData(d)) }

// Digest returns the EIP-712 digest of r under d.
func (r Replacement) Digest(d Domain) ([32]byte, error) { return TypedDataDigest(r.TypedData(d)) }

// Digest returns the EIP-712 digest of c under d.
func (c Cancel) Digest(d Domain) ([32]byte, error) { return TypedDataDigest(c.TypedData(d)) }

func (s Settlement) check() error {
	sum := new(big.Int)
	for _, m := range s.MilestoneAmounts {
		if m == nil || m.Sign() < 0 {
			return fmt.Errorf("negotiation: settlement: negative or missing milestone amount")
		}
		sum.Add(sum, m)
	}
	if s.Amount == nil || s.Amount.Cmp(sum) != 0 {
		return fmt.Errorf("negotiation: settlement: amount %v is not the sum of milestones %v", s.Amount, sum)
	}
	return nil
}

// secp256k1N / 2: signatures with s above it are malleable and refused.
var secp256k1HalfN, _ = new(big.Int).SetString("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0", 16)

// SignDigest signs digest with key and returns the 65-byte r||s||v signature
// with v in {27, 28} (go-ethereum's signer already yields low s).
func SignDigest(digest [32]byte, key interface {
	Sign(digest []byte) ([]byte, error)
}) ([]byte, error) {
	sig, err := key.Sign(digest[:])
	if err != nil {
		return nil, err
	}
	if len(sig) != 65 {
		return nil, fmt.Errorf("negotiation: signer returned %d bytes", len(sig))
	}
	if sig[64] < 27 {
		sig[64] += 27
	}
	return sig, nil
}

// RecoverSigner returns the address whose key made sig over digest. It
// accepts only 65-byte r||s||v signatures with v in {27, 28} and low s.
func RecoverSigner(digest [32]byte, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, reject(CodeBadEVMSignature, "signature", "want 65 bytes, got %d", len(sig))
	}
	v := sig[64]
	if v != 27 && v != 28 {
		return common.Address{}, reject(CodeBadEVMSignature, "signature", "v must be 27 or 28, got %d", v)
	}
	s := new(big.Int).SetBytes(sig[32:64])
	if s.Sign() == 0 || s.Cmp(secp256k1HalfN) > 0 {
		return common.Address{}, reject(CodeBadEVMSignature, "signature", "s is zero or not in the lower half of the curve order")
	}
	norm := make([]byte, 65)
	copy(norm, sig)
	norm[64] = v - 27
	pub, err := crypto.SigToPub(digest[:], norm)
	if err != nil {
		return common.Address{}, reject(CodeBadEVMSignature, "signature", "recover: %v", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// HexBytes formats b as 0x-prefixed lowercase hex.
func HexBytes(b []byte) string { return hexutil.Encode(b) }
