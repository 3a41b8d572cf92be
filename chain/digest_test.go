package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	mrand "math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/negotiation"
)

// randomSettlement returns a settlement with random values across each
// field's whole range: up to 8 milestones of up to 250 bits (their sum is
// the amount), any deadline, any 256-bit nonce.
func randomSettlement(r *mrand.Rand) negotiation.Settlement {
	word := func(bits int) *big.Int {
		if bits == 0 {
			return new(big.Int)
		}
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		v := new(big.Int).SetBytes(b)
		return v.Rsh(v, uint(256-bits))
	}
	var s negotiation.Settlement
	for i := range s.NegotiationID {
		s.NegotiationID[i] = byte(r.UintN(256))
	}
	addr := func() (a common.Address) {
		if r.UintN(8) == 0 {
			return a // the zero address now and then (ETH token)
		}
		for i := range a {
			a[i] = byte(r.UintN(256))
		}
		return a
	}
	s.Poster, s.Worker, s.Token = addr(), addr(), addr()
	s.Amount = new(big.Int)
	for range r.IntN(9) {
		m := word(r.IntN(251))
		s.MilestoneAmounts = append(s.MilestoneAmounts, m)
		s.Amount.Add(s.Amount, m)
	}
	s.Deadline = r.Uint64()
	for i := range s.TermsHash {
		s.TermsHash[i] = byte(r.UintN(256))
		s.AcceptedOfferHash[i] = byte(r.UintN(256))
	}
	s.Nonce = word(r.IntN(257))
	return s
}

// TestSettlementDigestMatchesContract checks 1,000 random settlements: the
// Go digest (negotiation, through go-ethereum's apitypes) equals the one the
// deployed TaskRegistry computes.
func TestSettlementDigestMatchesContract(t *testing.T) {
	e := newEnv(t)
	r := mrand.New(mrand.NewPCG(1, 2))
	for i := range 1000 {
		s := randomSettlement(r)
		want, err := s.Digest(e.domain)
		if err != nil {
			t.Fatalf("#%d: go digest: %v", i, err)
		}
		got, err := e.poster.c.SettlementDigestOnChain(t.Context(), s)
		if err != nil {
			t.Fatalf("#%d: contract digest: %v", i, err)
		}
		if got != want {
			t.Fatalf("#%d: contract %x, go %x for %+v", i, got, want, s)
		}
	}
}

// TestSettlementDigestMatchesEthers checks 1,000 random settlements: the
// typed data `parley settlement digest` prints, hashed by ethers.js, gives
// the Go digest.
func TestSettlementDigestMatchesEthers(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	r := mrand.New(mrand.NewPCG(3, 4))
	d := negotiation.Domain{ChainID: big.NewInt(1), VerifyingContract: common.HexToAddress("0x00000000000000000000000000000000DeaDBeef")}
	var docs []TypedDataJSON
	var want []string
	for i := range 1000 {
		if i%2 == 1 {
			d.ChainID = new(big.Int).Add(big.NewInt(int64(i)), new(big.Int).Lsh(big.NewInt(1), uint(r.IntN(200))))
		}
		out, err := SettlementDigest(d, randomSettlement(r))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, out.TypedData)
		want = append(want, out.Digest)
	}
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "node", "testdata/eip712_digest.js")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v: %s", err, stderr.String())
	}
	var got []string
	if err := json.Unmarshal(outb, &got); err != nil {
		t.Fatalf("node output: %v: %s", err, outb)
	}
	if len(got) != len(want) {
		t.Fatalf("ethers returned %d digests, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("#%d: ethers %s, go %s", i, got[i], want[i])
		}
	}
}

// TestSignedTypesMatchContract checks the Amendment, Replacement and Cancel
// digests against the contract for random values.
func TestSignedTypesMatchContract(t *testing.T) {
	e := newEnv(t)
	r := mrand.New(mrand.NewPCG(5, 6))
	for i := range 100 {
		s := randomSettlement(r)
		a := negotiation.Amendment{TaskID: s.TermsHash, MilestoneAmounts: s.MilestoneAmounts, Deadline: s.Deadline, TermsHash: s.AcceptedOfferHash, Nonce: s.Nonce}
		rp := negotiation.Replacement{TaskID: s.TermsHash, NewWorker: s.Worker, HandoffHash: s.AcceptedOfferHash, Nonce: s.Nonce}
		c := negotiation.Cancel{TaskID: s.TermsHash, Nonce: s.Nonce}
		for _, x := range []struct {
			name string
			goD  func() ([32]byte, error)
			onD  func() ([32]byte, error)
		}{
			{"amendment", func() ([32]byte, error) { return a.Digest(e.domain) }, func() ([32]byte, error) { return e.poster.c.AmendmentDigestOnChain(t.Context(), a) }},
			{"replacement", func() ([32]byte, error) { return rp.Digest(e.domain) }, func() ([32]byte, error) { return e.poster.c.ReplacementDigestOnChain(t.Context(), rp) }},
			{"cancel", func() ([32]byte, error) { return c.Digest(e.domain) }, func() ([32]byte, error) { return e.poster.c.CancelDigestOnChain(t.Context(), c) }},
		} {
			want, err := x.goD()
			if err != nil {
				t.Fatal(err)
			}
			got, err := x.onD()
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("#%d %s: contract %x, go %x", i, x.name, got, want)
			}
		}
	}
}

func TestParseSettlementInput(t *testing.T) {
	const good = `{"domain":{"chainId":"1337","verifyingContract":"0x5FbDB2315678afecb367f032d93F642f64180aa3"},
"settlement":{"negotiationId":"6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b","poster":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
"worker":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC","token":"0x0000000000000000000000000000000000000000",
"amount":"3","milestoneAmounts":["1","2"],"deadline":1790000000,
"termsHash":"0x1111111111111111111111111111111111111111111111111111111111111111",
"acceptedOfferHash":"0x2222222222222222222222222222222222222222222222222222222222222222","nonce":"7"}}`
	d, s, err := ParseSettlementInput([]byte(good), nil)
	if err != nil {
		t.Fatalf("good input: %v", err)
	}
	if d.ChainID.Int64() != 1337 || s.Amount.Int64() != 3 || len(s.MilestoneAmounts) != 2 || s.Deadline != 1790000000 {
		t.Fatalf("parsed %+v %+v", d, s)
	}
	out, err := SettlementDigest(d, s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s.Digest(d)
	if out.Digest != negotiation.HexBytes(want[:]) {
		t.Fatalf("digest %s, want %x", out.Digest, want)
	}
	// The printed typed data reads back (message + domain) to the same settlement.
	again := `{"domain":{"chainId":"` + out.TypedData.Domain.ChainID + `","verifyingContract":"` + out.TypedData.Domain.VerifyingContract + `"},"settlement":`
	msg, _ := json.Marshal(out.TypedData.Message)
	_, s2, err := ParseSettlementInput([]byte(again+string(msg)+"}"), nil)
	if err != nil {
		t.Fatalf("re-read typed data message: %v", err)
	}
	if d2, _ := s2.Digest(d); d2 != want {
		t.Fatal("typed data message does not read back to the same settlement")
	}

	override := &negotiation.Domain{ChainID: big.NewInt(10), VerifyingContract: common.HexToAddress("0x01")}
	d3, _, err := ParseSettlementInput([]byte(good), override)
	if err != nil || d3.ChainID.Int64() != 10 {
		t.Fatalf("override: %v %v", d3, err)
	}

	bad := []struct {
		name, from, to string
		code           negotiation.Code
	}{
		{"lowercase address", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", negotiation.CodeBadAddress},
		{"bad checksum", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x70997970C51812DC3A010C7d01b50e0d17dc79C8", negotiation.CodeBadAddress},
		{"amount not the sum", `"amount":"3"`, `"amount":"4"`, negotiation.CodeSchemaInvalid},
		{"amount as number", `"amount":"3"`, `"amount":3`, negotiation.CodeBadInteger},
		{"leading zero", `"amount":"3"`, `"amount":"03"`, negotiation.CodeBadInteger},
		{"negative deadline", `1790000000`, `-1`, negotiation.CodeBadInteger},
		{"deadline over 64 bits", `1790000000`, `"18446744073709551616"`, negotiation.CodeBadInteger},
		{"uppercase hash", "0x1111111111111111111111111111111111111111111111111111111111111111", "0xAAAA111111111111111111111111111111111111111111111111111111111111", negotiation.CodeBadHex},
		{"short hash", "0x2222222222222222222222222222222222222222222222222222222222222222", "0x22", negotiation.CodeBadHex},
		{"bad uuid", "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", "6F1C2A3B-4D5E-4F60-8A7B-9C0D1E2F3A4B", negotiation.CodeBadUUID},
		{"unknown field", `"nonce":"7"`, `"nonce":"7","tip":"1"`, negotiation.CodeUnknownField},
		{"duplicate key", `"nonce":"7"`, `"nonce":"7","nonce":"8"`, negotiation.CodeDuplicateKey},
		{"missing nonce", `,"nonce":"7"`, ``, negotiation.CodeSchemaInvalid},
		{"missing domain", `"domain":{"chainId":"1337","verifyingContract":"0x5FbDB2315678afecb367f032d93F642f64180aa3"},`, ``, negotiation.CodeSchemaInvalid},
		{"zero chain id", `"chainId":"1337"`, `"chainId":"0"`, negotiation.CodeBadInteger},
		{"not json", `{"domain"`, `{domain`, negotiation.CodeMalformedJSON},
		{"member in another case", `"nonce":"7"`, `"Nonce":"7"`, negotiation.CodeUnknownField},
		{"nested member in another case", `"chainId":"1337"`, `"ChainId":"1337"`, negotiation.CodeUnknownField},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(good, tc.from, tc.to, 1)
			if in == good {
				t.Fatal("replacement did not apply")
			}
			_, _, err := ParseSettlementInput([]byte(in), nil)
			if err == nil {
				t.Fatal("accepted")
			}
			var ne *negotiation.Error
			if !errors.As(err, &ne) || ne.Code != tc.code {
				t.Fatalf("code %q (%v), want %q", negotiation.CodeOf(err), err, tc.code)
			}
		})
	}
}
