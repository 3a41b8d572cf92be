package chain

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/parleynet/parley/negotiation"
)

// FuzzParseSettlementInput: any input is either refused with a coded
// *negotiation.Error or yields typed data that reads back to the same digest.
func FuzzParseSettlementInput(f *testing.F) {
	f.Add([]byte(`{"domain":{"chainId":"1337","verifyingContract":"0x5FbDB2315678afecb367f032d93F642f64180aa3"},"settlement":{"negotiationId":"6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b","poster":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","worker":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC","token":"0x0000000000000000000000000000000000000000","amount":"3","milestoneAmounts":["1","2"],"deadline":1790000000,"termsHash":"0x1111111111111111111111111111111111111111111111111111111111111111","acceptedOfferHash":"0x2222222222222222222222222222222222222222222222222222222222222222","nonce":"7"}}`))
	f.Add([]byte(`{"settlement":{}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"domain":{"chainId":"1","verifyingContract":"0x0000000000000000000000000000000000000000"},"settlement":{"negotiationId":"0x00000000000000000000000000000000","poster":"0x0000000000000000000000000000000000000000","worker":"0x0000000000000000000000000000000000000000","token":"0x0000000000000000000000000000000000000000","amount":"0","milestoneAmounts":[],"deadline":"18446744073709551615","termsHash":"0x0000000000000000000000000000000000000000000000000000000000000000","acceptedOfferHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":"0"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, s, err := ParseSettlementInput(b, nil)
		if err != nil {
			var ne *negotiation.Error
			if !errors.As(err, &ne) || ne.Code == "" {
				t.Fatalf("refusal without a code: %v", err)
			}
			return
		}
		out, err := SettlementDigest(d, s)
		if err != nil {
			t.Fatalf("accepted input has no digest: %v", err)
		}
		doc := map[string]any{
			"domain":     map[string]string{"chainId": out.TypedData.Domain.ChainID, "verifyingContract": out.TypedData.Domain.VerifyingContract},
			"settlement": out.TypedData.Message,
		}
		again, _ := json.Marshal(doc)
		d2, s2, err := ParseSettlementInput(again, nil)
		if err != nil {
			t.Fatalf("printed typed data does not read back: %v", err)
		}
		out2, err := SettlementDigest(d2, s2)
		if err != nil || out2.Digest != out.Digest {
			t.Fatalf("digest changed on the round trip: %s vs %s (%v)", out.Digest, out2.Digest, err)
		}
	})
}

// FuzzDecodeRevert: revert data of any shape decodes without panicking.
func FuzzDecodeRevert(f *testing.F) {
	dec, err := newErrorDecoder()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{})
	f.Add([]byte{0x08, 0xc3})
	f.Add(append([]byte{0x08, 0xc3, 0x79, 0xa0}, make([]byte, 64)...))
	f.Add(append([]byte{0x4e, 0x48, 0x7b, 0x71}, make([]byte, 32)...))
	for id := range dec.byID {
		f.Add(append(id[:], make([]byte, 96)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		re := dec.decode(data)
		_ = re.Error()
		if re.Code() == "" {
			t.Fatal("empty code")
		}
	})
}
