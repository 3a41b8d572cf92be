package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/strictjson"
)

// Bounds of what an agent may state, the same as the wire's.
const (
	maxMilestones = 32
	maxTitle      = 200
	maxCategory   = 64
	maxDesc       = 8192
	maxMilestone  = 1024
)

// termsObject is the structured form of an offer's terms.
type termsObject struct {
	Title       string            `json:"title,omitempty" jsonschema:"the task's title"`
	Description string            `json:"description,omitempty" jsonschema:"what the work is"`
	Category    string            `json:"category,omitempty" jsonschema:"the task's category"`
	Milestones  []milestoneObject `json:"milestones,omitempty" jsonschema:"the paid steps, in order"`
	Deadline    string            `json:"deadline,omitempty" jsonschema:"when the work is due: RFC 3339 (2026-07-01T12:00:00Z) or a date (2026-07-01, midnight UTC)"`
	Token       string            `json:"token,omitempty" jsonschema:"the payment token's address; absent: native ETH"`
	Supervisor  string            `json:"supervisor,omitempty" jsonschema:"the address of the supervisor your principal names: its node gets the negotiation and may veto it for your side"`
}

// milestoneObject is one milestone as an agent states it.
type milestoneObject struct {
	Amount      string `json:"amount" jsonschema:"the amount with its unit: 0.5 ETH, 250 gwei or 500000000000000000 wei (a bare integer is wei)"`
	Description string `json:"description,omitempty" jsonschema:"what the milestone pays for"`
}

// termLineRE matches one term line: "key = value" or "key: value".
var termLineRE = regexp.MustCompile(`^\s*([A-Za-z_]+)\s*(?:=|:)\s*(.*?)\s*$`)

// termLineForm is what a term line looks like, for error messages.
const termLineForm = `a term line is "<key> = <value>" with key title, description, category, deadline, token, supervisor or milestone (repeat it per milestone: "milestone = 0.5 ETH: the design"); or send terms as an object {title, description, category, milestones: [{amount, description}], deadline, token, supervisor}`

// parseTerms reads an offer's terms in either form: the PXP reference's
// list of strings (one "key = value" line each) or an object.
func parseTerms(raw json.RawMessage) (TermsSpec, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return TermsSpec{}, errors.New("proposal.terms is missing")
	case raw[0] == '[':
		var lines []string
		if err := strictjson.Unmarshal(raw, &lines); err != nil {
			return TermsSpec{}, fmt.Errorf("proposal.terms: a list of strings or an object: %v", err)
		}
		return parseTermLines(lines)
	case raw[0] == '{':
		var o termsObject
		if err := strictjson.Unmarshal(raw, &o); err != nil {
			return TermsSpec{}, fmt.Errorf("proposal.terms: %v (%s)", err, termLineForm)
		}
		return o.spec("proposal.terms")
	}
	return TermsSpec{}, errors.New("proposal.terms: a list of strings or an object; " + termLineForm)
}

// parseTermLines reads the list form.
func parseTermLines(lines []string) (TermsSpec, error) {
	var o termsObject
	seen := make(map[string]bool)
	for i, line := range lines {
		m := termLineRE.FindStringSubmatch(line)
		if m == nil || m[2] == "" {
			return TermsSpec{}, fmt.Errorf("proposal.terms[%d] %q: %s", i, line, termLineForm)
		}
		key, val := strings.ToLower(m[1]), m[2]
		if key != "milestone" && seen[key] {
			return TermsSpec{}, fmt.Errorf("proposal.terms[%d]: %s is given twice", i, key)
		}
		seen[key] = true
		switch key {
		case "title":
			o.Title = val
		case "description":
			o.Description = val
		case "category":
			o.Category = val
		case "deadline":
			o.Deadline = val
		case "token":
			o.Token = val
		case "supervisor":
			o.Supervisor = val
		case "milestone":
			amount, desc, _ := strings.Cut(val, ":")
			o.Milestones = append(o.Milestones, milestoneObject{Amount: strings.TrimSpace(amount), Description: strings.TrimSpace(desc)})
		default:
			return TermsSpec{}, fmt.Errorf("proposal.terms[%d]: unknown key %q: %s", i, m[1], termLineForm)
		}
	}
	return o.spec("proposal.terms")
}

// spec checks o and converts it; where names the argument in errors.
func (o termsObject) spec(where string) (TermsSpec, error) {
	var t TermsSpec
	if len(o.Title) > maxTitle || len(o.Category) > maxCategory || len(o.Description) > maxDesc {
		return t, fmt.Errorf("%s: title is at most %d bytes, category %d, description %d", where, maxTitle, maxCategory, maxDesc)
	}
	t.Title, t.Description, t.Category = strings.TrimSpace(o.Title), strings.TrimSpace(o.Description), strings.TrimSpace(o.Category)
	if len(o.Milestones) > maxMilestones {
		return t, fmt.Errorf("%s: at most %d milestones", where, maxMilestones)
	}
	for i, m := range o.Milestones {
		a, err := parseAmount(m.Amount)
		if err != nil {
			return t, fmt.Errorf("%s: milestone %d: %v", where, i+1, err)
		}
		if len(m.Description) > maxMilestone {
			return t, fmt.Errorf("%s: milestone %d: the description is at most %d bytes", where, i+1, maxMilestone)
		}
		t.Milestones = append(t.Milestones, MilestoneSpec{Amount: a, Description: m.Description})
	}
	if o.Deadline != "" {
		d, err := parseDeadline(o.Deadline)
		if err != nil {
			return t, fmt.Errorf("%s: deadline: %v", where, err)
		}
		t.Deadline = d
	}
	if o.Token != "" {
		a, err := parseAddress(o.Token)
		if err != nil {
			return t, fmt.Errorf("%s: token: %v", where, err)
		}
		t.Token = &a
	}
	if o.Supervisor != "" {
		a, err := parseAddress(o.Supervisor)
		if err != nil {
			return t, fmt.Errorf("%s: supervisor: %v", where, err)
		}
		t.Supervisor = &a
	}
	if t.Title == "" && t.Description == "" && t.Category == "" && len(t.Milestones) == 0 && t.Deadline.IsZero() && t.Token == nil && t.Supervisor == nil {
		return t, fmt.Errorf("%s: no terms given; %s", where, termLineForm)
	}
	return t, nil
}

// weiPerUnit is the value of each unit an amount may name, in wei.
var weiPerUnit = map[string]int64{"eth": 1e18, "ether": 1e18, "gwei": 1e9, "wei": 1}

// amountRE matches "<decimal> [unit]".
var amountRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)$`)

// maxAmount bounds an amount below 2^255, the node's own bound.
var maxAmount = new(big.Int).Lsh(big.NewInt(1), 255)

// parseAmount reads "0.5 ETH", "250 gwei", "500000000000000000 wei" or a
// bare integer (wei) as a positive amount in wei.
func parseAmount(s string) (*big.Int, error) {
	m := amountRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil, fmt.Errorf("amount %q: write it with its unit, like 0.5 ETH, 250 gwei or 500000000000000000 wei", s)
	}
	unit := strings.ToLower(m[2])
	if unit == "" {
		unit = "wei"
	}
	per, ok := weiPerUnit[unit]
	if !ok {
		return nil, fmt.Errorf("amount %q: unknown unit %q (ETH, gwei or wei)", s, m[2])
	}
	r, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return nil, fmt.Errorf("amount %q is not a number", s)
	}
	r.Mul(r, new(big.Rat).SetInt64(per))
	if !r.IsInt() {
		return nil, fmt.Errorf("amount %q is not a whole number of wei", s)
	}
	a := new(big.Int).Set(r.Num())
	if a.Sign() <= 0 || a.Cmp(maxAmount) >= 0 {
		return nil, fmt.Errorf("amount %q must be positive and below 2^255 wei", s)
	}
	return a, nil
}

// parseDeadline reads RFC 3339 or a bare date (midnight UTC).
func parseDeadline(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither RFC 3339 (2026-07-01T12:00:00Z) nor a date (2026-07-01)", s)
}

// parseAddress reads an EVM address: EIP-55 checksummed, or all lower
// (or upper) case; a mixed-case address with a wrong checksum is refused.
func parseAddress(s string) (negotiation.Address, error) {
	s = strings.TrimSpace(s)
	if len(s) != 42 || !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
		return negotiation.Address{}, fmt.Errorf("%q is not an EVM address (0x and 40 hex digits)", s)
	}
	a := common.HexToAddress(s)
	body := s[2:]
	if body != strings.ToLower(body) && body != strings.ToUpper(body) && a.Hex() != s {
		return negotiation.Address{}, fmt.Errorf("%q has a wrong EIP-55 checksum (a typo?)", s)
	}
	return negotiation.Address(a), nil
}

// formatAmount writes wei in the token's unit: "0.5 ETH" for native ETH,
// else the integer in the token's base unit.
func formatAmount(wei *big.Int, token negotiation.Address) string {
	if wei == nil {
		return "0"
	}
	if token != (negotiation.Address{}) {
		return wei.String() + " (token base units)"
	}
	r := new(big.Rat).SetFrac(wei, big.NewInt(1e18))
	s := strings.TrimRight(strings.TrimRight(r.FloatString(18), "0"), ".")
	return s + " ETH"
}
