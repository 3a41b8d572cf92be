package negotiation

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"
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
		{"same code", &Error{Code: CodeBadHex}, &Error{Code: CodeBadHex}, true},
		{"same code, other fields", &Error{Code: CodeBadHex, Field: "/a", Msg: "m", Err: cause}, &Error{Code: CodeBadHex}, true},
		{"a target with fields", &Error{Code: CodeBadHex}, &Error{Code: CodeBadHex, Field: "/b", Msg: "other"}, true},
		{"wrapped", fmt.Errorf("decoding: %w", &Error{Code: CodeBadHex, Msg: "m"}), &Error{Code: CodeBadHex}, true},
		{"an escalation, by its code", &EscalationError{Code: CodePaused, Question: "q"}, &Error{Code: CodePaused}, true},
		{"another code", &Error{Code: CodeBadHex}, &Error{Code: CodeBadUUID}, false},
		{"the same text, uncoded", &Error{Code: CodeBadHex}, errors.New(string(CodeBadHex)), false},
		{"the cause", &Error{Code: CodeBadHex, Err: cause}, cause, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// TestErrorClass: an *Error, or an error wrapping one, knows the class of
// its code.
func TestErrorClass(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"input", &Error{Code: CodeBadAddress}, "invalid"},
		{"a role", &Error{Code: CodeRoleForbidden}, "forbidden"},
		{"a state", fmt.Errorf("apply: %w", &Error{Code: CodeStateForbidden}), "conflict"},
		{"a limit", &Error{Code: CodeTooLarge}, "too_large"},
		{"an escalation", &EscalationError{Code: CodeEscalationRequired}, "conflict"},
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
		"ErrNotParty": ErrNotParty, "ErrStateForbidden": ErrStateForbidden, "ErrBadArgument": ErrBadArgument,
	})
}
