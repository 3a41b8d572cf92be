package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gowebpki/jcs"
)

var canonSeeds = []string{
	`{}`, `[]`, `{"a":1,"b":[true,false,null],"c":{"d":"é"}}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`,
	`{"a":-0}`, `{"a":0}`, `{"a":-1}`, `{"a":1.0}`, `{"a":1e3}`, `{"a":123456789012345}`,
	`{"a":1234567890123456}`, `{"a":"\u0001"}`, `{"a":"\n"}`, `{"a":"/"}`, `{"é":1}`, `{ "a":1}`,
	`{"a":"` + "\x7f" + `"}`, `{"a":"\u2028"}`, `{"a":"` + "\xe2\x80\xa8" + `"}`, `{"a":"` + "\xff" + `"}`,
	`"x"`, `1`, `[1,[2,[3]]]`, `{"A":1,"a":2}`, `{"a":1,"aa":2,"b":3}`,
}

// FuzzIsCanonical checks the fast path against the JCS library: whatever
// isCanonical accepts, the library maps to itself.
func FuzzIsCanonical(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !isCanonical(b) {
			return
		}
		out, err := jcs.Transform(b)
		if err != nil {
			t.Fatalf("accepted %q, the library refuses it: %v", b, err)
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("accepted %q, the library's form is %q", b, out)
		}
	})
}

func TestIsCanonicalSeeds(t *testing.T) {
	accept := map[string]bool{
		`{}`: true, `[]`: true, `{"a":1,"b":[true,false,null],"c":{"d":"é"}}`: true, `{"a":0}`: true,
		`{"a":-1}`: true, `{"a":123456789012345}`: true, `"x"`: true, `1`: true, `[1,[2,[3]]]`: true,
		`{"A":1,"a":2}`: true, `{"a":1,"aa":2,"b":3}`: true, `{"a":"/"}`: true,
		`{"a":"` + "\x7f" + `"}`: true, `{"a":"` + "\xe2\x80\xa8" + `"}`: true,
	}
	for _, s := range canonSeeds {
		if got := isCanonical([]byte(s)); got != accept[s] {
			t.Errorf("isCanonical(%q) = %v", s, got)
		}
	}
}

// FuzzMembers checks the compact-JSON scanner on arbitrary input: it never
// panics, and on canonical objects it finds the members encoding/json finds.
func FuzzMembers(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := members(b)
		if err != nil || !isCanonical(b) {
			return
		}
		for _, m := range ms {
			if !isCanonical(m.val) {
				t.Fatalf("member %q of %q: value %q", m.key, b, m.val)
			}
		}
		// Re-inserting nothing reproduces the object.
		out, err := insertMembers(b, nil)
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("insertMembers(%q) = %q, %v", b, out, err)
		}
		// Inserting a member keeps the object canonical.
		if _, ok := lookup(ms, "cid"); !ok {
			out, err := insertMembers(b, []member{{key: []byte("cid"), val: []byte(`"x"`)}})
			if err != nil {
				t.Fatal(err)
			}
			want, err := jcs.Transform(out)
			if err != nil || !bytes.Equal(out, want) {
				t.Fatalf("insert into %q gave %q, canonical %q", b, out, want)
			}
		}
	})
}

// FuzzVerifyBundle feeds arbitrary bytes to the bundle decoder: it must
// return an error or a report, never panic.
func FuzzVerifyBundle(f *testing.F) {
	f.Add([]byte(`{"format":"parley-proof-bundle/1","negotiationId":"6e65672d-3030-4030-b030-303030303031","head":{"seq":1,"hash":"0x0000000000000000000000000000000000000000000000000000000000000000"},"from":1,"prev":"0x0000000000000000000000000000000000000000000000000000000000000000","entries":[{"at":"2026-06-13T12:00:00.000Z","body":{},"kind":"chain.event","negotiationId":"6e65672d-3030-4030-b030-303030303031","seq":1}],"objects":[],"pruned":[]}`))
	f.Add([]byte(`{}`))
	for _, name := range []string{"bundle-v2.json", "bundle-v2-anchor.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := VerifyBundle(bytes.NewReader(b), BundleOptions{MaxBytes: 1 << 20})
		if err == nil && rep == nil {
			t.Fatal("no report and no error")
		}
		if err != nil && CodeOf(err) == "" {
			t.Fatalf("error without a code: %v", err)
		}
	})
}
