package storeguard

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"
)

// TestErrorIs: errors.Is matches an *Error by its code alone, whatever the
// other fields of the error and of the target, through wrapping; another
// code or an uncoded error with the same text does not match, and
// ErrRefused matches every *Error. (The same table in every package with
// coded errors: one meaning of Is.)
func TestErrorIs(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code", &Error{Code: CodeEmptier}, &Error{Code: CodeEmptier}, true},
		{"same code, other fields", &Error{Code: CodeEmptier, Store: "ledger", Dir: "/d", Msg: "m"}, &Error{Code: CodeEmptier}, true},
		{"a target with fields", &Error{Code: CodeEmptier}, &Error{Code: CodeEmptier, Store: "approvals", Msg: "other"}, true},
		{"wrapped", fmt.Errorf("open: %w", &Error{Code: CodeEmptier, Msg: "m"}), &Error{Code: CodeEmptier}, true},
		{"the sentinel of every refusal", &Error{Code: CodeForeign}, ErrRefused, true},
		{"another code", &Error{Code: CodeEmptier}, &Error{Code: CodeDifferent}, false},
		{"the same text, uncoded", &Error{Code: CodeEmptier}, errors.New(string(CodeEmptier)), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// TestErrorClass: a refused store, or an error wrapping one, is internal:
// the node's own state.
func TestErrorClass(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"no manifest", &Error{Code: CodeNoManifest}, "internal"},
		{"wrapped", fmt.Errorf("start: %w", &Error{Code: CodeBadRecord}), "internal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c interface{ Class() string }
			if !errors.As(tc.err, &c) || c.Class() != tc.class {
				t.Fatalf("%v: class %v, want %q", tc.err, c, tc.class)
			}
		})
	}
	if c := Code("no_such_code").Class(); c != "" {
		t.Fatalf("an unknown code has class %q", c)
	}
}

// TestEveryCodeHasAClass holds the package's codes and sentinels, as its
// source declares them (codecensus), to a class: a code added without one
// fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codecensus.Check(t, "Code", func(c string) string { return Code(c).Class() }, nil, map[string]error{
		"ErrRefused": ErrRefused,
	})
}
