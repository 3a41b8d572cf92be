package schemas

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"
)

// TestErrorIs: errors.Is matches an *Error by its code alone, whatever the
// other fields of the error and of the target, through wrapping; another
// code or an uncoded error with the same text does not match. (The same
// table in every package with coded errors: one meaning of Is.)
func TestErrorIs(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code", &Error{Code: CodeBadHex}, &Error{Code: CodeBadHex}, true},
		{"same code, other fields", &Error{Code: CodeBadHex, Pointer: "/a", Msg: "m"}, &Error{Code: CodeBadHex}, true},
		{"a target with fields", &Error{Code: CodeBadHex}, &Error{Code: CodeBadHex, Pointer: "/b", Msg: "other"}, true},
		{"wrapped", fmt.Errorf("validate: %w", &Error{Code: CodeBadHex, Msg: "m"}), &Error{Code: CodeBadHex}, true},
		{"another code", &Error{Code: CodeBadHex}, &Error{Code: CodeBadUUID}, false},
		{"the same text, uncoded", &Error{Code: CodeBadHex}, errors.New(CodeBadHex), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// TestErrorClass: a validation failure, or an error wrapping one, is
// invalid input.
func TestErrorClass(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"a failure", &Error{Code: CodeSchemaInvalid}, "invalid"},
		{"wrapped", fmt.Errorf("decode: %w", &Error{Code: CodeUnknownField}), "invalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c interface{ Class() string }
			if !errors.As(tc.err, &c) || c.Class() != tc.class {
				t.Fatalf("%v: class %v, want %q", tc.err, c, tc.class)
			}
		})
	}
}

// TestEveryCodeHasAClass holds the package's codes and sentinels, as its
// source declares them (codecensus), to a class: a code added without one
// fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codecensus.Check(t, "", func(c string) string { return (&Error{Code: c}).Class() }, nil, map[string]error{})
}
