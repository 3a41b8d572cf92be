package vxp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"
)

// TestErrorIs: errors.Is matches an *Error by its code alone, through
// wrapping. (The same table in every package with coded errors.)
func TestErrorIs(t *testing.T) {
	cause := errors.New("cause")
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code", &Error{Code: CodeTermsChanged}, &Error{Code: CodeTermsChanged}, true},
		{"same code, other fields", &Error{Code: CodeTermsChanged, Field: "/a", Msg: "m", Err: cause}, &Error{Code: CodeTermsChanged}, true},
		{"wrapped", fmt.Errorf("accept: %w", &Error{Code: CodeTermsChanged}), &Error{Code: CodeTermsChanged}, true},
		{"another code", &Error{Code: CodeTermsChanged}, &Error{Code: CodeAlreadyAccepted}, false},
		{"the same text, uncoded", &Error{Code: CodeTermsChanged}, errors.New(string(CodeTermsChanged)), false},
		{"the cause", &Error{Code: CodeTermsChanged, Err: cause}, cause, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
	if c := Code("no_such_code").Class(); c != "" {
		t.Fatalf("an unknown code has class %q", c)
	}
	if (&Error{Code: CodeIdempotencyKeyReused}).Class() != "conflict" {
		t.Fatal("idempotency_key_reused is no conflict")
	}
}

// TestEveryCodeHasAClass holds the package's codes, as its source declares
// them, to a class.
func TestEveryCodeHasAClass(t *testing.T) {
	codecensus.Check(t, "Code", func(c string) string { return Code(c).Class() }, nil, map[string]error{
		"ErrReplayed": ErrReplayed, "ErrReplayCacheFull": ErrReplayCacheFull, "ErrBadSubject": ErrBadSubject, "ErrInvalidJWK": ErrInvalidJWK,
	})
}
