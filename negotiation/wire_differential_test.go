package negotiation

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The one-pass decoder against the JSON Schemas: Decode (the wire rules
// compiled from the schemas, checked while the structs are filled) and
// decodeWithSchemas (the schema validator on a generic tree, then a typed
// pass) must give every input the same verdict, the same code and, where
// the schema names one, the same JSON pointer; and the same envelope when
// both accept.

// agree fails t unless Decode and the schema reference agree on b; it
// returns Decode's error.
func agree(t testing.TB, b []byte) error {
	t.Helper()
	got, gErr := Decode(b, DecodeOptions{})
	want, wErr := decodeWithSchemas(b, DecodeOptions{})
	switch {
	case (gErr == nil) != (wErr == nil):
		t.Fatalf("verdicts differ on %s\n one pass: %v\n schemas:  %v", clip(b), gErr, wErr)
	case gErr != nil:
		g, w := asError(gErr), asError(wErr)
		if g.Code != w.Code {
			t.Fatalf("codes differ on %s\n one pass: %v\n schemas:  %v", clip(b), gErr, wErr)
		}
		if w.Field != "" && g.Field != w.Field {
			t.Fatalf("pointers differ on %s\n one pass: %v\n schemas:  %v", clip(b), gErr, wErr)
		}
		return gErr
	default:
		sameEnvelope(t, got, want)
	}
	return nil
}

// sameEnvelope fails t unless a and b are the same envelope in every part
// a reader of an Envelope sees.
func sameEnvelope(t testing.TB, a, b *Envelope) {
	t.Helper()
	if !bytes.Equal(a.Bytes(), b.Bytes()) || a.Hash() != b.Hash() || !bytes.Equal(a.SigningBytes(), b.SigningBytes()) || a.Signature != b.Signature {
		t.Fatalf("bytes differ:\n %s\n %s", clip(a.Bytes()), clip(b.Bytes()))
	}
	ha, hb := a.Header, b.Header
	if !reflect.DeepEqual(ha.Recipients, hb.Recipients) || ha.Timestamp != hb.Timestamp ||
		(ha.TaskID == nil) != (hb.TaskID == nil) || ha.TaskID != nil && ha.TaskID.Cmp(&hb.TaskID.Int) != 0 {
		t.Fatalf("headers differ:\n %+v\n %+v", ha, hb)
	}
	ha.Recipients, hb.Recipients, ha.TaskID, hb.TaskID = nil, nil, nil, nil
	if !reflect.DeepEqual(ha, hb) {
		t.Fatalf("headers differ:\n %+v\n %+v", ha, hb)
	}
	if reflect.TypeOf(a.Payload) != reflect.TypeOf(b.Payload) {
		t.Fatalf("payload types differ: %T, %T", a.Payload, b.Payload)
	}
	pa, _ := json.Marshal(a.Payload)
	pb, _ := json.Marshal(b.Payload)
	if !bytes.Equal(pa, pb) {
		t.Fatalf("payloads differ:\n %s\n %s", pa, pb)
	}
}

func clip(b []byte) string {
	if len(b) > 300 {
		return fmt.Sprintf("%q... (%d bytes)", b[:300], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// variants returns b's envelope with one change each: every member
// removed, set to null, to each JSON kind, to an empty and a long string,
// to boundary integers, with an unknown member beside it; every array
// emptied, doubled and given a duplicate. Together with the fixtures they
// reach every rule of every schema the fixtures use.
func variants(t testing.TB, b []byte) [][]byte {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil
	}
	var out [][]byte
	top, _ := doc.(map[string]any)
	// Each change is emitted alone and beside an unknown top-level member,
	// so that the order in which failures of different codes are ranked is
	// tested too.
	emit := func() {
		for _, extra := range []bool{false, true} {
			if extra && top != nil {
				top["~extra"] = json.Number("1")
			}
			v, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
			if top != nil {
				delete(top, "~extra")
			}
		}
	}
	replacements := []any{nil, true, json.Number("0"), json.Number("1"), json.Number("-1"), json.Number("1.5"),
		json.Number("31"), json.Number("32"), json.Number("59"), json.Number("60"), json.Number("9007199254740992"),
		json.Number("1e400"), "", "x", strings.Repeat("y", 300), strings.Repeat("z", 5000), "../a", "a/b", "\u202e",
		"escalate", "stated", "2026-13-01T00:00:00.000Z", "2026-02-29T00:00:00.000Z", "2024-02-29T00:00:00.000Z",
		"2026-04-31T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01T23:60:00.000Z", "2026-01-01T23:59:60.000Z",
		"2026-01-01T12:00:60.000Z", "2026-00-01T00:00:00.000Z", "2026-01-00T00:00:00.000Z", "0x", "0X" + strings.Repeat("0", 40), strings.Repeat("0", 79),
		map[string]any{}, map[string]any{"zz": json.Number("1")}, []any{}, []any{"a", "a"}}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			x["~unknown/"] = "u"
			emit()
			delete(x, "~unknown/")
			for _, k := range keys {
				old := x[k]
				delete(x, k)
				emit()
				for _, r := range replacements {
					x[k] = r
					emit()
				}
				if s, ok := old.(string); ok {
					x[k] = strings.ToUpper(s)
					emit()
					x[k] = s + "0"
					emit()
					if len(s) > 1 {
						x[k] = s[:len(s)-1]
						emit()
					}
				}
				x[k] = old
				walk(old)
			}
		case []any:
			if len(x) == 0 {
				return
			}
			orig := slices.Clone(x)
			for i := range x {
				walk(x[i])
			}
			_ = orig
		}
	}
	walk(doc)
	// Arrays: doubled (a duplicate of each item) and cut to nothing, at
	// every depth, by path.
	var arrays func(v any, set func(any))
	arrays = func(v any, set func(any)) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				arrays(c, func(n any) { x[k] = n })
			}
		case []any:
			set(append(slices.Clone(x), x...))
			emit()
			set([]any{})
			emit()
			many := make([]any, 0, 70)
			for len(many) < 70 {
				many = append(many, x...)
			}
			set(many)
			emit()
			set(x)
			for i, c := range x {
				arrays(c, func(n any) { x[i] = n })
			}
		}
	}
	arrays(doc, func(any) {})
	return out
}

// TestDecodeAgreesWithTheSchemas runs every fixture, valid and invalid,
// and every variant of each valid fixture through both decoders.
func TestDecodeAgreesWithTheSchemas(t *testing.T) {
	n, refused := 0, map[Code]int{}
	for _, dir := range []string{"valid", "invalid"} {
		for _, fx := range readFixtures(t, filepath.Join(fixturesDir, dir)) {
			inputs := [][]byte{fx.data}
			if dir == "valid" {
				inputs = append(inputs, variants(t, fx.data)...)
			}
			for _, b := range inputs {
				if err := agree(t, b); err != nil {
					refused[CodeOf(err)]++
				}
				n++
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d inputs", n)
	}
	t.Logf("%d inputs, both decoders agree; refusals by code: %v", n, refused)
}

// FuzzDecodeAgreesWithTheSchemas holds the two decoders to one verdict,
// code and pointer on any input.
func FuzzDecodeAgreesWithTheSchemas(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) { agree(t, b) })
}

// rebuild builds e's header and payload again with key (as e's sender,
// with key's inbox key) and returns the result and Decode's reading of
// its bytes; they must be equal.
func rebuild(t testing.TB, e *Envelope, key ed25519.PrivateKey) {
	t.Helper()
	h := e.Header
	copy(h.Sender.XMTPPublicKey[:], key.Public().(ed25519.PublicKey))
	built, err := Build(h, e.Payload, Ed25519Key(key), DecodeOptions{})
	if err != nil {
		t.Fatalf("Build refuses what Decode accepted: %v\n%s", err, clip(e.Bytes()))
	}
	again, err := Decode(built.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatalf("Decode refuses what Build made: %v\n%s", err, clip(built.Bytes()))
	}
	if err := again.Verify(); err != nil {
		t.Fatalf("Build's signature does not verify: %v", err)
	}
	sameEnvelope(t, built, again)
}

var rebuildKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))

// TestBuildAgreesWithDecode rebuilds every valid fixture and every
// accepted variant of one.
func TestBuildAgreesWithDecode(t *testing.T) {
	n := 0
	for _, fx := range readFixtures(t, filepath.Join(fixturesDir, "valid")) {
		for _, b := range append([][]byte{fx.data}, variants(t, fx.data)...) {
			if e, err := Decode(b, DecodeOptions{}); err == nil {
				rebuild(t, e, rebuildKey)
				n++
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d envelopes rebuilt", n)
	}
	t.Logf("%d envelopes rebuilt: Build and Decode agree", n)
}

// FuzzBuildAgreesWithDecode rebuilds whatever Decode accepts.
func FuzzBuildAgreesWithDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if e, err := Decode(b, DecodeOptions{}); err == nil {
			rebuild(t, e, rebuildKey)
		}
	})
}

// TestBuildRefusesWhatDecodeRefuses gives Build the Go values of every
// refused variant that Go values can hold (its JSON, re-encoded from the
// values, is the variant's): Build must refuse it with Decode's code.
func TestBuildRefusesWhatDecodeRefuses(t *testing.T) {
	n, codes := 0, map[Code]int{}
	for _, fx := range readFixtures(t, filepath.Join(fixturesDir, "valid")) {
		for _, b := range variants(t, fx.data) {
			_, dErr := Decode(b, DecodeOptions{})
			if dErr == nil {
				continue
			}
			h, p, ok := holdable(b)
			if !ok {
				continue
			}
			copy(h.Sender.XMTPPublicKey[:], rebuildKey.Public().(ed25519.PublicKey))
			_, bErr := Build(h, p, Ed25519Key(rebuildKey), DecodeOptions{})
			if CodeOf(bErr) != CodeOf(dErr) {
				t.Fatalf("Build says %v where Decode says %v\n%s", bErr, dErr, clip(b))
			}
			codes[CodeOf(bErr)]++
			n++
		}
	}
	if n < 500 {
		t.Fatalf("only %d refused variants held in Go values", n)
	}
	t.Logf("%d refused variants: Build refuses each with Decode's code: %v", n, codes)
}

// holdable decodes b leniently (encoding/json, no rules) into a header
// and payload, and reports whether encoding those values again gives b's
// canonical form without its signature: whether Go values can hold b.
func holdable(b []byte) (Header, Payload, bool) {
	var probe struct {
		Type MessageType `json:"type"`
	}
	if json.Unmarshal(b, &probe) != nil {
		return Header{}, nil, false
	}
	p := newPayload(probe.Type)
	if p == nil {
		return Header{}, nil, false
	}
	w := wireEnvelope{Payload: p}
	if json.Unmarshal(b, &w) != nil || w.Payload != any(p) {
		return Header{}, nil, false
	}
	ts, err := ParseTime(w.Timestamp)
	if err != nil || w.SchemaVersion != SchemaVersion {
		return Header{}, nil, false
	}
	w.Signature = ""
	again, err := json.Marshal(w)
	if err != nil {
		return Header{}, nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return Header{}, nil, false
	}
	if sig, _ := m["signature"].(string); !hexOf([]byte(sig), 128, false) {
		return Header{}, nil, false // Build signs: the signature is not its input
	}
	delete(m, "signature")
	orig, _ := json.Marshal(m)
	c1, e1 := Canonicalize(again)
	c2, e2 := Canonicalize(orig)
	if e1 != nil || e2 != nil || !bytes.Equal(c1, c2) {
		return Header{}, nil, false
	}
	return Header{Type: w.Type, NegotiationID: w.NegotiationID, TaskID: w.TaskID, Sequence: w.Sequence,
		PreviousHash: w.PreviousHash, Timestamp: ts, Sender: w.Sender, Recipients: w.Recipients}, p, true
}
