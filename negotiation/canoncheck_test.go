package negotiation

import (
	"bytes"
	"testing"

	"github.com/gowebpki/jcs"
)

// FuzzIsCanonical is the differential check behind the fast path: any
// input isCanonical accepts must be exactly what Canonicalize makes of it,
// and what the independent JCS library (gowebpki/jcs) makes of it; and
// wherever both canonicalisers accept an input, they agree.
func FuzzIsCanonical(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[true,false,null],"c":{"d":"x"}}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`, `[1,2.5,-0,1e3]`,
		`{"a":"line\nbreak"}`, `{"é":1}`, `"\u2028"`, `9007199254740993`, `-12`, `{"a" : 1}`, `{}`, `[]`,
		`{"\u20ac":1,"\r":2,"\ud83d\ude00":3,"ö":4}`, `[1e21,1e-7,0.1,123456789012345680000]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ours, err := Canonicalize(b)
		lib, libErr := jcs.Transform(b)
		if err == nil && libErr == nil && !bytes.Equal(ours, lib) {
			t.Fatalf("Canonicalize %q, the JCS library %q", ours, lib)
		}
		if !isCanonical(b) {
			return
		}
		if err != nil {
			t.Fatalf("fast path accepted %q, which Canonicalize rejects: %v", b, err)
		}
		if !bytes.Equal(ours, b) {
			t.Fatalf("fast path accepted non-canonical %q (canonical %q)", b, ours)
		}
	})
}

func TestIsCanonicalSubset(t *testing.T) {
	for in, want := range map[string]bool{
		`{"a":1,"b":2}`:      true,
		`{"b":1,"a":2}`:      false, // unsorted
		`{"a":1,"a":1}`:      false, // duplicate
		`{"a": 1}`:           false, // whitespace
		`{"a":"x\ny"}`:       false, // escape: left to Canonicalize
		`{"a":1.5}`:          false, // non-integer
		`{"a":01}`:           false,
		`{"a":-0}`:           false,
		`[9007199254740992]`: true,
		`[9007199254740993]`: false,
		`{"a":"ü"}`:          true,
		`{"ü":1}`:            false,
		`{"a":[{"b":null}]}`: true,
		`{"a":1}x`:           false,
		"{\"a\":\"\xff\"}":   false,
	} {
		if ok := isCanonical([]byte(in)); ok != want {
			t.Errorf("isCanonical(%s) = %v, want %v", in, ok, want)
		}
	}
}
