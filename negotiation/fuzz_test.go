package negotiation

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"path/filepath"
	"testing"
)

// fuzzSeeds adds every committed fixture, valid and invalid, to the corpus.
func fuzzSeeds(f *testing.F) [][]byte {
	var valid [][]byte
	for _, dir := range []string{"valid", "invalid"} {
		for _, fx := range readFixtures(f, filepath.Join(fixturesDir, dir)) {
			if len(fx.data) > DefaultMaxEnvelopeBytes {
				continue // too_large: the size check is not worth the fuzzer's time
			}
			f.Add(fx.data)
			if dir == "valid" {
				valid = append(valid, fx.data)
			}
		}
	}
	if len(valid) == 0 {
		f.Fatal("no valid fixtures to seed from")
	}
	return valid
}

// FuzzDecode feeds arbitrary bytes to Decode. It must never panic, every
// refusal must carry a code, and what it accepts must be canonical: the
// stored bytes are a fixed point of JCS, decode again to the same hash, and
// the signing bytes are those bytes without the signature member.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b, DecodeOptions{})
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		raw := e.Bytes()
		canon, err := Canonicalize(raw)
		if err != nil || !bytes.Equal(canon, raw) {
			t.Fatalf("stored bytes are not canonical: %v", err)
		}
		again, err := Decode(raw, DecodeOptions{})
		if err != nil {
			t.Fatalf("the canonical bytes of an accepted envelope are refused: %v", err)
		}
		if again.Hash() != e.Hash() || again.Type != e.Type || again.Sequence != e.Sequence {
			t.Fatalf("re-decoding changed the envelope")
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "signature")
		unsigned, _ := json.Marshal(m)
		want, err := Canonicalize(unsigned)
		if err != nil || !bytes.Equal(e.SigningBytes(), want) {
			t.Fatalf("signing bytes are not JCS without the signature: %v", err)
		}
		if e.Payload == nil || e.Payload.MessageType() != e.Type {
			t.Fatalf("payload %T does not match type %s", e.Payload, e.Type)
		}
	})
}

// FuzzVerify checks that no input the fuzzer makes verifies unless it is one
// of the signed fixtures in another spelling: any change to the signed
// content, the signature or the key must fail with bad_signature.
func FuzzVerify(f *testing.F) {
	valid := fuzzSeeds(f)
	signed := make(map[Hash]bool, len(valid))
	for _, b := range valid {
		e, err := Decode(b, DecodeOptions{})
		if err != nil {
			f.Fatal(err)
		}
		signed[e.Hash()] = true
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b, DecodeOptions{})
		if err != nil {
			return
		}
		err = e.Verify()
		if err != nil {
			if CodeOf(err) != CodeBadSignature {
				t.Fatalf("verify failed with %v, want %s", err, CodeBadSignature)
			}
			return
		}
		if !ed25519.Verify(e.Sender.XMTPPublicKey[:], e.SigningBytes(), e.Signature[:]) {
			t.Fatal("Verify accepted a signature ed25519 refuses")
		}
		if !signed[e.Hash()] {
			t.Fatalf("an envelope that was never signed verifies:\n%s", e.Bytes())
		}
	})
}
