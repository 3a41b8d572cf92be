package negotiation

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gowebpki/jcs"
)

// FuzzParseCanonical is the differential check behind the fast path: any
// input parseCanonical accepts must be exactly what the JCS library makes
// of it, and parse to the same value encoding/json gives.
func FuzzParseCanonical(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[true,false,null],"c":{"d":"x"}}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`, `[1,2.5,-0,1e3]`,
		`{"a":"line\nbreak"}`, `{"é":1}`, `"\u2028"`, `9007199254740993`, `-12`, `{"a" : 1}`, `{}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := parseCanonical(b)
		if !ok {
			return
		}
		canon, err := jcs.Transform(b)
		if err != nil {
			t.Fatalf("fast path accepted %q, which the library rejects: %v", b, err)
		}
		if !bytes.Equal(canon, b) {
			t.Fatalf("fast path accepted non-canonical %q (canonical %q)", b, canon)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json rejects %q: %v", b, err)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("fast path value %#v, encoding/json %#v", v, want)
		}
	})
}

func TestParseCanonicalSubset(t *testing.T) {
	for in, want := range map[string]bool{
		`{"a":1,"b":2}`:      true,
		`{"b":1,"a":2}`:      false, // unsorted
		`{"a":1,"a":1}`:      false, // duplicate
		`{"a": 1}`:           false, // whitespace
		`{"a":"x\ny"}`:       false, // escape: left to the library
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
		if _, ok := parseCanonical([]byte(in)); ok != want {
			t.Errorf("parseCanonical(%s) ok=%v, want %v", in, ok, want)
		}
	}
}
