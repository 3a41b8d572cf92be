package strictjson_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"

	"github.com/parleynet/parley/strictjson"
)

// TestErrorIs: errors.Is matches an *Error by its code alone, whatever the
// other fields of the error and of the target, through wrapping; another
// code or an uncoded error with the same text does not match, and the
// cause still does. (The same table in every package with coded errors:
// one meaning of Is.)
func TestErrorIs(t *testing.T) {
	cause := errors.New("cause")
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code", &strictjson.Error{Code: strictjson.CodeUnknownField}, &strictjson.Error{Code: strictjson.CodeUnknownField}, true},
		{"same code, other fields", &strictjson.Error{Code: strictjson.CodeUnknownField, Pointer: "/a", Offset: 3, Msg: "m", Err: cause}, &strictjson.Error{Code: strictjson.CodeUnknownField}, true},
		{"a target with fields", &strictjson.Error{Code: strictjson.CodeUnknownField}, &strictjson.Error{Code: strictjson.CodeUnknownField, Pointer: "/b", Msg: "other"}, true},
		{"wrapped", fmt.Errorf("body: %w", &strictjson.Error{Code: strictjson.CodeUnknownField, Msg: "m"}), &strictjson.Error{Code: strictjson.CodeUnknownField}, true},
		{"another code", &strictjson.Error{Code: strictjson.CodeUnknownField}, &strictjson.Error{Code: strictjson.CodeDuplicateKey}, false},
		{"the same text, uncoded", &strictjson.Error{Code: strictjson.CodeUnknownField}, errors.New(string(strictjson.CodeUnknownField)), false},
		{"the cause", &strictjson.Error{Code: strictjson.CodeSchemaInvalid, Err: cause}, cause, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// TestErrorClass: a refusal of the decoder, or an error wrapping one,
// knows its class.
func TestErrorClass(t *testing.T) {
	var v struct{ A int }
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"malformed", strictjson.Unmarshal([]byte(`{`), &v), "invalid"},
		{"an unknown member", fmt.Errorf("body: %w", strictjson.Unmarshal([]byte(`{"B":1}`), &v)), "invalid"},
		{"too large", &strictjson.Error{Code: strictjson.CodeTooLarge}, "too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c interface{ Class() string }
			if !errors.As(tc.err, &c) || c.Class() != tc.class {
				t.Fatalf("%v: class %v, want %q", tc.err, c, tc.class)
			}
		})
	}
	if c := strictjson.Code("no_such_code").Class(); c != "" {
		t.Fatalf("an unknown code has class %q", c)
	}
}

// TestEveryCodeHasAClass holds the package's codes and sentinels, as its
// source declares them (codecensus), to a class: a code added without one
// fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codecensus.Check(t, "Code", func(c string) string { return strictjson.Code(c).Class() }, nil, map[string]error{})
}
