package vxp

import (
	"reflect"
	"testing"

	"github.com/parleynet/parley/negotiation"
)

// FuzzParseDetails: ParseDetails never panics, refuses with its one code,
// and what it takes survives Canonical and a second parse unchanged.
func FuzzParseDetails(f *testing.F) {
	f.Add([]byte(`[{"type":"https://vxpprotocol.org/rar/capability","actions":["offer.respond"],"identifier":"n"}]`))
	f.Add([]byte(`[{"type":"https://vxpprotocol.org/rar/capability","actions":["a","b"]}]`))
	f.Add([]byte(`[{"type":"x","actions":[]}]`))
	f.Add([]byte(`[{"actions":["a"],"actions":["b"]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := ParseDetails(b)
		if err != nil {
			if CodeOf(err) != CodeInvalidAuthorizationDetails {
				t.Fatalf("refused with %v", err)
			}
			return
		}
		c, err := Canonical(ds)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseDetails(c)
		if err != nil || !reflect.DeepEqual(again, ds) {
			t.Fatalf("%s: %v %+v", c, err, again)
		}
	})
}

// FuzzBodyHash: BodyHash never panics, gives 64 hex digits, and a body and
// its canonical form are the same body.
func FuzzBodyHash(f *testing.F) {
	f.Add([]byte(`{"operation":"offer.respond","target":{"negotiation_id":"n"}}`))
	f.Add([]byte(`{"a":1e3}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := BodyHash(b)
		if err != nil {
			return
		}
		if len(h) != 64 {
			t.Fatalf("hash %q", h)
		}
		jcs, err := negotiation.Canonicalize(b)
		if err != nil {
			t.Fatal(err)
		}
		if h2, err := BodyHash(jcs); err != nil || h2 != h {
			t.Fatalf("%s and its JCS %s hash apart: %v", b, jcs, err)
		}
	})
}
