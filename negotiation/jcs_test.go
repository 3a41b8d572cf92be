package negotiation

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The vectors in testdata/jcs come from RFC 8785 and from cyberphone's
// json-canonicalization test data (see testdata/jcs/README.md).
const jcsDir = "testdata/jcs"

// TestJCSVectors canonicalises every input file and compares the result
// with its output file and, where one exists, its hexadecimal dump.
func TestJCSVectors(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join(jcsDir, "input"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 10 {
		t.Fatalf("%d input vectors, want the 10 of the upstream test data", len(entries))
	}
	for _, e := range entries {
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(jcsDir, "input", name))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(jcsDir, "output", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Canonicalize(in)
			if err != nil {
				t.Fatalf("canonicalize: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			again, err := Canonicalize(got)
			if err != nil || !bytes.Equal(again, got) {
				t.Fatalf("canonical form is not a fixed point: %s (%v)", again, err)
			}
			hexFile := filepath.Join(jcsDir, "outhex", strings.TrimSuffix(name, ".json")+".txt")
			dump, err := os.ReadFile(hexFile)
			if os.IsNotExist(err) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantBytes, err := hex.DecodeString(strings.Join(strings.Fields(string(dump)), ""))
			if err != nil {
				t.Fatalf("%s: %v", hexFile, err)
			}
			if !bytes.Equal(got, wantBytes) {
				t.Fatalf("bytes differ from %s", hexFile)
			}
		})
	}
}

// TestJCSNumbers runs the number serialization samples of RFC 8785
// Appendix B: each IEEE 754 double, written as a JSON number that parses
// back to it exactly, must canonicalise to the ECMAScript form; NaN and the
// infinities have no JSON form, and a literal that overflows to infinity
// is refused.
func TestJCSNumbers(t *testing.T) {
	f, err := os.Open(filepath.Join(jcsDir, "rfc8785-appendix-b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ieee, want, ok := strings.Cut(line, ",")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		n++
		b, err := hex.DecodeString(ieee)
		if err != nil || len(b) != 8 {
			t.Fatalf("bad IEEE hex %q", ieee)
		}
		v := math.Float64frombits(binary.BigEndian.Uint64(b))
		t.Run(ieee, func(t *testing.T) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				if want != "" {
					t.Fatalf("vector file gives %q for a non-finite value", want)
				}
				if _, err := Canonicalize([]byte("[1e400]")); CodeOf(err) != CodeMalformedJSON {
					t.Fatalf("a literal that overflows to infinity: got %v, want %s", err, CodeMalformedJSON)
				}
				return
			}
			// 17 significant digits always parse back to the same double.
			lit := strconv.FormatFloat(v, 'e', 16, 64)
			got, err := Canonicalize([]byte("[" + lit + "]"))
			if err != nil {
				t.Fatalf("canonicalize %s: %v", lit, err)
			}
			if string(got) != "["+want+"]" {
				t.Fatalf("%s: got %s, want [%s]", lit, got, want)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 26 {
		t.Fatalf("%d number vectors, want the 26 of RFC 8785 Appendix B", n)
	}
}

// TestCanonicalizeRefuses checks the codes of input JCS cannot canonicalise.
func TestCanonicalizeRefuses(t *testing.T) {
	tests := []struct {
		name, in string
		code     Code
	}{
		{"duplicate member", `{"a":1,"a":1}`, CodeDuplicateKey},
		{"nested duplicate member", `{"a":{"b":1,"c":2,"b":3}}`, CodeDuplicateKey},
		{"empty input", ``, CodeMalformedJSON},
		{"truncated", `{"a":[1,2`, CodeMalformedJSON},
		{"trailing data", `{"a":1}{"b":2}`, CodeMalformedJSON},
		{"lone surrogate", `{"a":"\ud800"}`, CodeMalformedJSON},
		{"NaN literal", `{"a":NaN}`, CodeMalformedJSON},
		{"byte order mark", "\ufeff{}", CodeMalformedJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Canonicalize([]byte(tc.in)); CodeOf(err) != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
		})
	}
}
