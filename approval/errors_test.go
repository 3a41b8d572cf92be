package approval

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"
)

// TestErrorIs: errors.Is matches an *Error by its code alone, whatever the
// other fields of the error and of the target, through wrapping; another
// code or an uncoded error with the same text does not match, the cause
// still does, and the uncoded ErrNotFound matches only itself. (The same
// table in every package with coded errors: one meaning of Is.)
func TestErrorIs(t *testing.T) {
	cause := errors.New("cause")
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code", &Error{Code: CodeTokenUsed}, &Error{Code: CodeTokenUsed}, true},
		{"same code, other fields", &Error{Code: CodeTokenUsed, Msg: "m", Err: cause}, &Error{Code: CodeTokenUsed}, true},
		{"a target with fields", &Error{Code: CodeTokenUsed}, &Error{Code: CodeTokenUsed, Msg: "other", Err: cause}, true},
		{"wrapped", fmt.Errorf("redeem: %w", fail(CodeTokenUsed, "used at %d", 3)), &Error{Code: CodeTokenUsed}, true},
		{"another code", &Error{Code: CodeTokenUsed}, &Error{Code: CodeTokenExpired}, false},
		{"the same text, uncoded", &Error{Code: CodeTokenUsed}, errors.New(string(CodeTokenUsed)), false},
		{"the cause", failWrap(CodeInvalidConfig, cause, "config"), cause, true},
		{"an uncoded sentinel, wrapped", fmt.Errorf("credential: %w", ErrNotFound), ErrNotFound, true},
		{"an uncoded sentinel is no code", &Error{Code: "not_found"}, ErrNotFound, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// TestErrorClass: an *Error, ErrNotFound, or an error wrapping one, knows
// its class.
func TestErrorClass(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"a denial", &Error{Code: CodeDecisionDenied}, "forbidden"},
		{"an unverified assertion", fmt.Errorf("finish: %w", &Error{Code: CodeVerificationFailed}), "forbidden"},
		{"a replay", &Error{Code: CodeAlreadyConsumed}, "conflict"},
		{"a used token", &Error{Code: CodeTokenUsed}, "conflict"},
		{"a malformed request", &Error{Code: CodeInvalidRequest}, "invalid"},
		{"a bad config", &Error{Code: CodeInvalidConfig}, "internal"},
		{"not found", fmt.Errorf("store: %w", ErrNotFound), "not_found"},
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
		"ErrNotFound": ErrNotFound,
	})
}
