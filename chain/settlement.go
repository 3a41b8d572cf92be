package chain

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/strictjson"
)

// SettlementInput is the JSON a settlement is read from: the domain it is
// signed under and the settlement itself. Integers are decimal strings
// (deadline may also be a JSON number), addresses EIP-55, hashes 0x + 64
// lowercase hex, negotiationId a lowercase UUID (or 0x + 32 hex).
type SettlementInput struct {
	Domain     *DomainJSON     `json:"domain"`
	Settlement *SettlementJSON `json:"settlement"`
}

// DomainJSON is the variable part of the settlement domain.
type DomainJSON struct {
	ChainID           *negotiation.Uint256 `json:"chainId"`
	VerifyingContract *negotiation.Address `json:"verifyingContract"`
}

// SettlementJSON is a settlement's JSON form.
type SettlementJSON struct {
	NegotiationID     *string               `json:"negotiationId"`
	Poster            *negotiation.Address  `json:"poster"`
	Worker            *negotiation.Address  `json:"worker"`
	Token             *negotiation.Address  `json:"token"`
	Amount            *negotiation.Uint256  `json:"amount"`
	MilestoneAmounts  []negotiation.Uint256 `json:"milestoneAmounts"`
	Deadline          *jsonUint64           `json:"deadline"`
	TermsHash         *negotiation.Hash     `json:"termsHash"`
	AcceptedOfferHash *negotiation.Hash     `json:"acceptedOfferHash"`
	Nonce             *negotiation.Uint256  `json:"nonce"`
}

// jsonUint64 accepts a uint64 as a decimal string or a JSON integer.
type jsonUint64 uint64

func (u *jsonUint64) UnmarshalJSON(b []byte) error {
	s := string(b)
	if strings.HasPrefix(s, `"`) {
		s = strings.Trim(s, `"`)
	}
	var v negotiation.Uint256
	if err := v.UnmarshalText([]byte(s)); err != nil {
		return err
	}
	if !v.IsUint64() {
		return &negotiation.Error{Code: negotiation.CodeBadInteger, Msg: "exceeds 2^64-1"}
	}
	*u = jsonUint64(v.Uint64())
	return nil
}

func inputErr(code negotiation.Code, field, format string, args ...any) error {
	return &negotiation.Error{Code: code, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ParseSettlementInput reads a SettlementInput strictly: duplicate keys,
// unknown members, missing members and malformed values are refused with a
// *negotiation.Error carrying a stable code. The settlement's amount must be
// the sum of its milestones. A non-nil override replaces the domain of the
// input, which may then be absent.
func ParseSettlementInput(b []byte, override *negotiation.Domain) (negotiation.Domain, negotiation.Settlement, error) {
	if _, err := negotiation.Canonicalize(b); err != nil {
		return negotiation.Domain{}, negotiation.Settlement{}, err
	}
	var in SettlementInput
	if err := strictjson.Unmarshal(b, &in); err != nil {
		return negotiation.Domain{}, negotiation.Settlement{}, jsonErr(err)
	}
	s, err := in.Settlement.settlement()
	if err != nil {
		return negotiation.Domain{}, negotiation.Settlement{}, err
	}
	if override != nil {
		if override.ChainID == nil || override.ChainID.Sign() <= 0 {
			return negotiation.Domain{}, negotiation.Settlement{}, inputErr(negotiation.CodeBadInteger, "chainId", "must be positive")
		}
		return negotiation.Domain{ChainID: new(big.Int).Set(override.ChainID), VerifyingContract: override.VerifyingContract}, s, nil
	}
	if in.Domain == nil || in.Domain.ChainID == nil || in.Domain.VerifyingContract == nil {
		return negotiation.Domain{}, negotiation.Settlement{}, inputErr(negotiation.CodeSchemaInvalid, "domain", "chainId and verifyingContract are required")
	}
	d := negotiation.Domain{ChainID: in.Domain.ChainID.Big(), VerifyingContract: common.Address(*in.Domain.VerifyingContract)}
	if d.ChainID.Sign() <= 0 {
		return negotiation.Domain{}, negotiation.Settlement{}, inputErr(negotiation.CodeBadInteger, "chainId", "must be positive")
	}
	return d, s, nil
}

func jsonErr(err error) error {
	var ne *negotiation.Error
	if errors.As(err, &ne) {
		return ne
	}
	if c := strictjson.CodeOf(err); c != "" {
		return &negotiation.Error{Code: negotiation.Code(c), Msg: err.Error(), Err: err}
	}
	return &negotiation.Error{Code: negotiation.CodeSchemaInvalid, Msg: err.Error(), Err: err}
}

func (j *SettlementJSON) settlement() (negotiation.Settlement, error) {
	var s negotiation.Settlement
	if j == nil {
		return s, inputErr(negotiation.CodeSchemaInvalid, "settlement", "required")
	}
	switch {
	case j.NegotiationID == nil:
		return s, inputErr(negotiation.CodeSchemaInvalid, "negotiationId", "required")
	case j.Poster == nil, j.Worker == nil, j.Token == nil:
		return s, inputErr(negotiation.CodeSchemaInvalid, "poster/worker/token", "required")
	case j.Amount == nil, j.Nonce == nil, j.Deadline == nil, j.MilestoneAmounts == nil:
		return s, inputErr(negotiation.CodeSchemaInvalid, "amount/milestoneAmounts/deadline/nonce", "required")
	case j.TermsHash == nil, j.AcceptedOfferHash == nil:
		return s, inputErr(negotiation.CodeSchemaInvalid, "termsHash/acceptedOfferHash", "required")
	}
	id, err := parseNegotiationID(*j.NegotiationID)
	if err != nil {
		return s, err
	}
	s = negotiation.Settlement{
		NegotiationID:     id,
		Poster:            common.Address(*j.Poster),
		Worker:            common.Address(*j.Worker),
		Token:             common.Address(*j.Token),
		Amount:            j.Amount.Big(),
		Deadline:          uint64(*j.Deadline),
		TermsHash:         *j.TermsHash,
		AcceptedOfferHash: *j.AcceptedOfferHash,
		Nonce:             j.Nonce.Big(),
	}
	sum := new(big.Int)
	for _, m := range j.MilestoneAmounts {
		s.MilestoneAmounts = append(s.MilestoneAmounts, m.Big())
		sum.Add(sum, m.Big())
	}
	if sum.Cmp(s.Amount) != 0 {
		return negotiation.Settlement{}, inputErr(negotiation.CodeSchemaInvalid, "amount", "%v is not the sum of milestoneAmounts %v", s.Amount, sum)
	}
	return s, nil
}

func parseNegotiationID(v string) ([16]byte, error) {
	if strings.HasPrefix(v, "0x") {
		var out [16]byte
		b, err := hex.DecodeString(v[2:])
		if err != nil || len(b) != 16 || strings.ToLower(v) != v {
			return out, inputErr(negotiation.CodeBadHex, "negotiationId", "want a UUID or 0x + 32 lowercase hex, got %q", v)
		}
		copy(out[:], b)
		return out, nil
	}
	return negotiation.ParseNegotiationID(v)
}

// TypedDataJSON is EIP-712 typed data as wallets take it
// (eth_signTypedData_v4) and libraries such as ethers.js hash it.
type TypedDataJSON struct {
	Types       map[string][]TypeField `json:"types"`
	PrimaryType string                 `json:"primaryType"`
	Domain      TypedDomainJSON        `json:"domain"`
	Message     SettlementMessageJSON  `json:"message"`
}

// SettlementMessageJSON is a settlement as typed-data message, members in
// the order of the type.
type SettlementMessageJSON struct {
	NegotiationID     string   `json:"negotiationId"`
	Poster            string   `json:"poster"`
	Worker            string   `json:"worker"`
	Token             string   `json:"token"`
	Amount            string   `json:"amount"`
	MilestoneAmounts  []string `json:"milestoneAmounts"`
	Deadline          string   `json:"deadline"`
	TermsHash         string   `json:"termsHash"`
	AcceptedOfferHash string   `json:"acceptedOfferHash"`
	Nonce             string   `json:"nonce"`
}

// TypeField is one member of an EIP-712 struct type.
type TypeField struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// TypedDomainJSON is the full settlement domain.
type TypedDomainJSON struct {
	Name              string `json:"name"`
	Version           string `json:"version"`
	ChainID           string `json:"chainId"`
	VerifyingContract string `json:"verifyingContract"`
}

// DigestOutput is what `parley settlement digest` prints: the typed data and
// its digest.
type DigestOutput struct {
	TypedData TypedDataJSON `json:"typedData"`
	Digest    string        `json:"digest"`
}

// SettlementTypedData returns the typed data of s under d in wallet form:
// integers as decimal strings, bytes as 0x lowercase hex, addresses EIP-55.
func SettlementTypedData(d negotiation.Domain, s negotiation.Settlement) TypedDataJSON {
	td := s.TypedData(d)
	types := make(map[string][]TypeField, len(td.Types))
	for name, fields := range td.Types {
		for _, f := range fields {
			types[name] = append(types[name], TypeField{Name: f.Name, Type: f.Type})
		}
	}
	ms := make([]string, len(s.MilestoneAmounts))
	for i, m := range s.MilestoneAmounts {
		ms[i] = bigOrZero(m).String()
	}
	chainID := "0"
	if d.ChainID != nil {
		chainID = d.ChainID.String()
	}
	return TypedDataJSON{
		Types:       types,
		PrimaryType: td.PrimaryType,
		Domain: TypedDomainJSON{
			Name: negotiation.DomainName, Version: negotiation.DomainVersion,
			ChainID: chainID, VerifyingContract: d.VerifyingContract.Hex(),
		},
		Message: SettlementMessageJSON{
			NegotiationID:     negotiation.HexBytes(s.NegotiationID[:]),
			Poster:            s.Poster.Hex(),
			Worker:            s.Worker.Hex(),
			Token:             s.Token.Hex(),
			Amount:            bigOrZero(s.Amount).String(),
			MilestoneAmounts:  ms,
			Deadline:          new(big.Int).SetUint64(s.Deadline).String(),
			TermsHash:         negotiation.HexBytes(s.TermsHash[:]),
			AcceptedOfferHash: negotiation.HexBytes(s.AcceptedOfferHash[:]),
			Nonce:             bigOrZero(s.Nonce).String(),
		},
	}
}

// SettlementDigest returns the typed data and EIP-712 digest of s under d;
// the TaskRegistry at d.VerifyingContract computes the same digest, which is
// the task's id.
func SettlementDigest(d negotiation.Domain, s negotiation.Settlement) (DigestOutput, error) {
	digest, err := s.Digest(d)
	if err != nil {
		return DigestOutput{}, err
	}
	return DigestOutput{TypedData: SettlementTypedData(d, s), Digest: negotiation.HexBytes(digest[:])}, nil
}
