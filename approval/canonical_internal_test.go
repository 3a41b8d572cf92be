package approval

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// canonicalInputs are JSON texts on the edges of RFC 8785: numbers in
// every notation, escapes, non-ASCII names in UTF-16 order, whitespace,
// nesting, and what both must refuse.
var canonicalInputs = []string{
	`{}`, ` { } `, `{"b":1,"a":2}`, `{"a":{"d":[3,2,1],"c":null}}`,
	`{"n":[0,-0,1.0,1e21,1e-7,123456789012,0.1,1.5e300,-2.5E-5,9007199254740992]}`,
	`{"s":"\u00e9\u2028\u001f\"\\/<>&\ud83d\ude00"}`, `{"\u20ac":1,"\ud83d\ude00":2,"\u00ff":3,"a":4}`,
	`{"t":true,"f":false,"z":null}`, "{\t\"a\"\r\n:\n1}",
	`{"a":1,"a":2}`, `{"a":"\ud800"}`, `{"a":1}x`, `{"a":}`, `[1,2]`, `"s"`, `1`, `{"a":1E400}`, `{"a":01}`,
	`{"a":1e-400}`, `{"a":0.30000000000000004}`, `{"a":12345678901234567890}`, `{"a":"` + strings.Repeat("x", 300) + `"}`,
	strings.Repeat(`{"a":`, 33) + `1` + strings.Repeat(`}`, 33), strings.Repeat(`[`, 32) + strings.Repeat(`]`, 32),
}

// TestCanonicalAgreesWithTheJCSLibrary: the arguments' canonical form
// (jsontext's) is gowebpki/jcs's for every text both accept, and
// canonicalJSONObject accepts nothing jcs refuses.
func TestCanonicalAgreesWithTheJCSLibrary(t *testing.T) {
	for _, in := range canonicalInputs {
		canonicalAgrees(t, []byte(in))
	}
}

func FuzzCanonicalAgreesWithTheJCSLibrary(f *testing.F) {
	for _, in := range canonicalInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) { canonicalAgrees(t, b) })
}

func canonicalAgrees(t *testing.T, in []byte) {
	t.Helper()
	got, err := canonicalJSONObject(in)
	want, jerr := jcs.Transform(bytes.Clone(in))
	switch {
	case err == nil && jerr != nil:
		t.Fatalf("%q: accepted as %s, the JCS library refuses it: %v", in, got, jerr)
	case err == nil && !bytes.Equal(got, want):
		t.Fatalf("%q: canonical %s, the JCS library's %s", in, got, want)
	case err != nil && jerr == nil && len(want) > 0 && want[0] == '{' && checkNumbers(in) == nil && len(in) <= MaxArgumentsBytes:
		t.Fatalf("%q: refused (%v), the JCS library gives %s", in, err, want)
	}
}
