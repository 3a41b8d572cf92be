package ledger

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"
)

// TestErrorIs: errors.Is matches an *Error (a *VerifyError) by its code
// alone, whatever the other fields of the error and of the target, through
// wrapping; another code or an uncoded error with the same text does not
// match, the cause still does, and an uncoded sentinel matches only
// itself. (The same table in every package with coded errors: one meaning
// of Is.)
func TestErrorIs(t *testing.T) {
	cause := errors.New("cause")
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code", &Error{Code: CodeBadBody}, &Error{Code: CodeBadBody}, true},
		{"same code, other fields", &Error{Code: CodeBadBody, Field: "body", Msg: "m", Err: cause}, &Error{Code: CodeBadBody}, true},
		{"a target with fields", &Error{Code: CodeBadBody}, &Error{Code: CodeBadBody, Field: "x", Msg: "other"}, true},
		{"wrapped", fmt.Errorf("append: %w", &Error{Code: CodeBadBody, Msg: "m"}), &Error{Code: CodeBadBody}, true},
		{"a sentinel", &Error{Code: CodeTooLarge, Msg: "m"}, ErrTooLarge, true},
		{"another code", &Error{Code: CodeBadBody}, ErrBadKind, false},
		{"the same text, uncoded", &Error{Code: CodeBadBody}, errors.New(string(CodeBadBody)), false},
		{"the cause", &Error{Code: CodeBadBody, Err: cause}, cause, true},
		{"a verification, whatever its seq", &VerifyError{Seq: 7, Code: CodeHashMismatch, Msg: "m"}, &VerifyError{Seq: 3, Code: CodeHashMismatch}, true},
		{"a verification of another code", &VerifyError{Seq: 7, Code: CodeHashMismatch}, &VerifyError{Code: CodePrevMismatch}, false},
		{"an uncoded sentinel, wrapped", fmt.Errorf("read: %w", ErrNotFound), ErrNotFound, true},
		{"an uncoded sentinel is not another", ErrNotFound, ErrClosed, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// TestErrorClass: an *Error, a *VerifyError, a sentinel, or an error
// wrapping one, knows its class.
func TestErrorClass(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"a bad negotiation id", &Error{Code: CodeBadNegotiationID}, "invalid"},
		{"over the limit", fmt.Errorf("append: %w", ErrTooLarge), "too_large"},
		{"retained", ErrRetained, "conflict"},
		{"a damaged entry", &VerifyError{Seq: 2, Code: CodeHashMismatch}, "conflict"},
		{"an unreadable object", Damage{Seq: 2, Code: CodeUnreadable}.Error(), "conflict"},
		{"a bundle that does not verify", &VerifyError{Code: CodeBadBundle}, "unprocessable"},
		{"not found", fmt.Errorf("read: %w", ErrNotFound), "not_found"},
		{"closed", ErrClosed, "unavailable"},
		{"read-only", ErrReadOnly, "unavailable"},
		{"needs recovery", ErrNeedsRecovery, "unavailable"},
		{"started twice", ErrStarted, "conflict"},
		{"the store failed", ErrFailed, "internal"},
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
		"ErrNotFound":      ErrNotFound,
		"ErrClosed":        ErrClosed,
		"ErrStarted":       ErrStarted,
		"ErrFailed":        ErrFailed,
		"ErrReadOnly":      ErrReadOnly,
		"ErrNeedsRecovery": ErrNeedsRecovery,
		"ErrBadBody":       ErrBadBody,
		"ErrTooLarge":      ErrTooLarge,
		"ErrBadKind":       ErrBadKind,
		"ErrRetained":      ErrRetained,
	})
}
