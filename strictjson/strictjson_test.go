package strictjson_test

import (
	stdjson "encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parleynet/parley/strictjson"
)

type milestone struct {
	Amount      *big.Int `json:"amount"`
	Description string   `json:"description"`
}

type task struct {
	Title      string             `json:"title"`
	Milestones []milestone        `json:"milestones"`
	Deadline   int64              `json:"deadline,omitempty"`
	Extra      stdjson.RawMessage `json:"extra,omitempty"`
}

// TestUnmarshalRefuses holds every refusal to its code and member: these
// are the holes the API's encoding/json decoder had (the last of two
// members won, names matched in any case, invalid UTF-8 and lone
// surrogates became U+FFFD).
func TestUnmarshalRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		code     strictjson.Code
		pointer  string
	}{
		{"duplicate member, last would win", `{"title":"a","milestones":[{"amount":1,"amount":999999,"description":""}]}`, strictjson.CodeDuplicateKey, "/milestones/0/amount"},
		{"duplicate top-level member", `{"title":"a","title":"b"}`, strictjson.CodeDuplicateKey, "/title"},
		{"duplicate inside a raw value", `{"extra":{"x":1,"x":2}}`, strictjson.CodeDuplicateKey, "/extra/x"},
		{"name in another case", `{"TITLE":"a"}`, strictjson.CodeUnknownField, "/TITLE"},
		{"nested name in another case", `{"milestones":[{"Description":"a"}]}`, strictjson.CodeUnknownField, "/milestones/0/Description"},
		{"unknown member", `{"title":"a","zzz":1}`, strictjson.CodeUnknownField, "/zzz"},
		{"invalid UTF-8", "{\"title\":\"\xff\"}", strictjson.CodeMalformedJSON, "/title"},
		{"invalid UTF-8 in a name", "{\"ti\xfftle\":\"a\"}", strictjson.CodeMalformedJSON, ""},
		{"lone high surrogate", `{"title":"\ud800"}`, strictjson.CodeMalformedJSON, "/title"},
		{"lone low surrogate", `{"title":"\udc00x"}`, strictjson.CodeMalformedJSON, "/title"},
		{"empty", ``, strictjson.CodeMalformedJSON, ""},
		{"white space only", " \n", strictjson.CodeMalformedJSON, ""},
		{"truncated", `{"title":"a"`, strictjson.CodeMalformedJSON, ""},
		{"trailing data", `{"title":"a"} {}`, strictjson.CodeMalformedJSON, ""},
		{"byte order mark", "\ufeff{}", strictjson.CodeMalformedJSON, ""},
		{"NaN", `{"deadline":NaN}`, strictjson.CodeMalformedJSON, ""},
		{"single quotes", `{'title':'a'}`, strictjson.CodeMalformedJSON, ""},
		{"wrong type", `{"title":1}`, strictjson.CodeSchemaInvalid, "/title"},
		{"fraction for an integer", `{"deadline":1.5}`, strictjson.CodeSchemaInvalid, "/deadline"},
		{"integer out of range", `{"deadline":1e30}`, strictjson.CodeSchemaInvalid, "/deadline"},
		{"not an object", `[1,2]`, strictjson.CodeSchemaInvalid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v task
			err := strictjson.Unmarshal([]byte(tc.in), &v)
			var e *strictjson.Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: %v, want an *Error", tc.in, err)
			}
			if e.Code != tc.code || (tc.pointer != "" && e.Pointer != tc.pointer) {
				t.Fatalf("%q: code %s pointer %q (%v), want %s %q", tc.in, e.Code, e.Pointer, err, tc.code, tc.pointer)
			}
			if strictjson.CodeOf(err) != tc.code || !errors.Is(err, &strictjson.Error{Code: tc.code}) {
				t.Fatalf("CodeOf/Is disagree with %v", err)
			}
			if !strings.HasPrefix(err.Error(), "strictjson: "+string(tc.code)) {
				t.Fatalf("message %q", err)
			}
		})
	}
}

func TestUnmarshalAccepts(t *testing.T) {
	var v task
	in := ` {"title":"caf\u00e9 \ud83d\ude00","milestones":[{"amount":1000000000000000000000000,"description":"d"}],"extra":{"k":[1,2]}}` + "\n"
	if err := strictjson.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if v.Title != "café 😀" || v.Milestones[0].Amount.String() != "1000000000000000000000000" || string(v.Extra) != `{"k":[1,2]}` {
		t.Fatalf("%+v", v)
	}
}

// TestMethodErrors: a refusal by a type's own UnmarshalJSON is
// schema_invalid with the method's error in the chain.
func TestMethodErrors(t *testing.T) {
	var v struct {
		A *picky `json:"a"`
	}
	err := strictjson.Unmarshal([]byte(`{"a":"no"}`), &v)
	if strictjson.CodeOf(err) != strictjson.CodeSchemaInvalid || !errors.Is(err, errPicky) {
		t.Fatalf("%v", err)
	}
	var e *strictjson.Error
	if !errors.As(err, &e) || e.Member() != "a" {
		t.Fatalf("member of %v", err)
	}
}

// TestNestedStrictErrors: a value whose own UnmarshalJSON decodes with
// this package keeps its verdict (code, member) under the outer pointer.
func TestNestedStrictErrors(t *testing.T) {
	for in, want := range map[string]struct {
		code    strictjson.Code
		pointer string
	}{
		`{"inner":{"b":1,"x":2}}`: {strictjson.CodeUnknownField, "/inner/x"},
		`{"inner":{"B":1}}`:       {strictjson.CodeUnknownField, "/inner/B"},
		`{"inner":{"b":"one"}}`:   {strictjson.CodeSchemaInvalid, "/inner/b"},
	} {
		var v struct {
			Inner *strictInner `json:"inner"`
		}
		err := strictjson.Unmarshal([]byte(in), &v)
		var e *strictjson.Error
		if !errors.As(err, &e) || e.Code != want.code || e.Pointer != want.pointer {
			t.Errorf("%s: %v, want %s at %s", in, err, want.code, want.pointer)
		}
	}
}

type strictInner struct{ B int }

func (s *strictInner) UnmarshalJSON(b []byte) error {
	var w struct {
		B int `json:"b"`
	}
	if err := strictjson.Unmarshal(b, &w); err != nil {
		return err
	}
	s.B = w.B
	return nil
}

var errPicky = errors.New("picky: only yes")

type picky struct{}

func (*picky) UnmarshalJSON(b []byte) error {
	if string(b) != `"yes"` {
		return errPicky
	}
	return nil
}

func TestCheck(t *testing.T) {
	for in, want := range map[string]strictjson.Code{
		`{"a":[1,{"b":null}]}`:  "",
		` "x" `:                 "",
		`{"a":1,"a":1}`:         strictjson.CodeDuplicateKey,
		`[{"a":{"b":1,"b":2}}]`: strictjson.CodeDuplicateKey,
		"\"\xc3\"":              strictjson.CodeMalformedJSON,
		`"\udfff"`:              strictjson.CodeMalformedJSON,
		`1 2`:                   strictjson.CodeMalformedJSON,
		``:                      strictjson.CodeMalformedJSON,
	} {
		if got := strictjson.CodeOf(strictjson.Check([]byte(in))); got != want {
			t.Errorf("Check(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRead(t *testing.T) {
	var v task
	if err := strictjson.Read(strings.NewReader(`{"title":"abc"}`), 15, &v); err != nil || v.Title != "abc" {
		t.Fatalf("%v %+v", err, v)
	}
	if err := strictjson.Read(strings.NewReader(`{"title":"abcd"}`), 15, &v); strictjson.CodeOf(err) != strictjson.CodeTooLarge {
		t.Fatalf("over the limit: %v", err)
	}
	if err := strictjson.Read(strings.NewReader(`{"title":"a","title":"b"}`), 0, &v); strictjson.CodeOf(err) != strictjson.CodeDuplicateKey {
		t.Fatalf("no limit: %v", err)
	}
}

// FuzzUnmarshal: whatever Unmarshal or Check accepts is valid UTF-8, valid
// JSON to encoding/json, and names no member twice in any object.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, `{"title":"\ud800"}`, "\"\xff\"", `[{"x":{"y":[]}}]`, `{"A":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		uerr := strictjson.Unmarshal(b, &v)
		cerr := strictjson.Check(b)
		if (uerr == nil) != (cerr == nil) {
			t.Fatalf("Unmarshal %v, Check %v", uerr, cerr)
		}
		if uerr != nil {
			if strictjson.CodeOf(uerr) == "" {
				t.Fatalf("no code: %v", uerr)
			}
			return
		}
		if !utf8.Valid(b) || !stdjson.Valid(b) {
			t.Fatalf("accepted %q", b)
		}
		if dup(t, stdjson.NewDecoder(strings.NewReader(string(b)))) {
			t.Fatalf("accepted a duplicate member: %q", b)
		}
	})
}

// dup walks one value and reports whether an object names a member twice.
func dup(t *testing.T, d *stdjson.Decoder) bool {
	tok, err := d.Token()
	if err != nil {
		t.Fatal(err)
	}
	switch tok {
	case stdjson.Delim('{'):
		seen := map[string]bool{}
		for d.More() {
			k, _ := d.Token()
			if seen[k.(string)] {
				return true
			}
			seen[k.(string)] = true
			if dup(t, d) {
				return true
			}
		}
		_, _ = d.Token()
	case stdjson.Delim('['):
		for d.More() {
			if dup(t, d) {
				return true
			}
		}
		_, _ = d.Token()
	}
	return false
}

// TestSyntaxFirst: the text is judged before the type, so a duplicate
// member is duplicate_key even when the type does not know the member.
func TestSyntaxFirst(t *testing.T) {
	var v task
	for in, want := range map[string]strictjson.Code{
		`{"zzz":1,"zzz":2}`:              strictjson.CodeDuplicateKey,
		"{\"zzz\":1,\"title\":\"\xff\"}": strictjson.CodeMalformedJSON,
		`{"title":1,"title":2}`:          strictjson.CodeDuplicateKey,
		`{"zzz":1} x`:                    strictjson.CodeMalformedJSON,
	} {
		if got := strictjson.CodeOf(strictjson.Unmarshal([]byte(in), &v)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestEncodingJSONForms: what encoding/json writes decodes to the same
// value (the node writes its JSON with it): byte arrays as arrays, named
// byte slices as base64, durations as nanoseconds.
func TestEncodingJSONForms(t *testing.T) {
	type blob []byte
	type forms struct {
		ID    [4]byte        `json:"id"`
		Blob  blob           `json:"blob"`
		Bytes []byte         `json:"bytes"`
		Wait  time.Duration  `json:"wait"`
		When  time.Time      `json:"when"`
		Map   map[string]int `json:"map"`
	}
	in := forms{ID: [4]byte{1, 2, 3, 4}, Blob: blob("hi"), Bytes: []byte{0, 255}, Wait: 1500 * time.Millisecond, When: time.Date(2026, 6, 13, 12, 0, 0, 5, time.UTC), Map: map[string]int{"a": 1}}
	b, err := stdjson.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out forms
	if err := strictjson.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("%s decoded to %+v", b, out)
	}
}
