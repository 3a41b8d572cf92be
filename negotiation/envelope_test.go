package negotiation

import (
	"bytes"
	"testing"

	"github.com/gowebpki/jcs"
)

func TestBuildDecodeVerifyRoundTrip(t *testing.T) {
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	nid := NewNegotiationID([16]byte{1, 2, 3})
	e := poster.send(t, nid, t0, []Address{worker.addr}, &TaskProposal{Terms: testTerms(100, 200)})
	got, err := Decode(e.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if err := got.Verify(); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if got.Hash() != e.Hash() || got.CID() != e.CID() {
		t.Fatalf("hash or CID changed on re-decode")
	}
	// The signing bytes equal JCS of the envelope without its signature.
	var m map[string]any
	if err := strictUnmarshal(e.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "signature")
	b, _ := jsonMarshal(m)
	want, err := jcs.Transform(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(e.SigningBytes(), want) {
		t.Fatalf("signing bytes differ from JCS without signature:\n%s\n%s", e.SigningBytes(), want)
	}
	// A flipped byte in the payload fails verification.
	bad := bytes.Replace(e.Bytes(), []byte("Translate"), []byte("Translata"), 1)
	d, err := Decode(bad, DecodeOptions{})
	if err != nil {
		t.Fatalf("decode tampered: %v", err)
	}
	if CodeOf(d.Verify()) != CodeBadSignature {
		t.Fatalf("tampered envelope verified")
	}
}
