package gate

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"
)

// TestErrorIs: errors.Is matches an *Error by its code alone, whatever the
// other fields of the error and of the target, through wrapping; another
// code or an uncoded error with the same text does not match, and the
// cause still does. A target of another package that shares the
// vocabulary (ErrorCode) matches by its code too.
func TestErrorIs(t *testing.T) {
	cause := errors.New("cause")
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code", &Error{Code: CodeApprovalDenied}, &Error{Code: CodeApprovalDenied}, true},
		{"same code, other fields", &Error{Code: CodeApprovalDenied, Msg: "m", Err: cause}, &Error{Code: CodeApprovalDenied}, true},
		{"wrapped", fmt.Errorf("act: %w", &Error{Code: CodeApprovalDenied}), &Error{Code: CodeApprovalDenied}, true},
		{"a node sentinel by its code", &Error{Code: CodeApprovalDenied}, codeOnly("approval_denied"), true},
		{"another code", &Error{Code: CodeApprovalDenied}, &Error{Code: CodeApprovalExpired}, false},
		{"the same text, uncoded", &Error{Code: CodeApprovalDenied}, errors.New(string(CodeApprovalDenied)), false},
		{"the cause", &Error{Code: CodeStoreFailed, Err: cause}, cause, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// codeOnly is an error of another package sharing the gate's vocabulary.
type codeOnly string

func (c codeOnly) Error() string     { return string(c) }
func (c codeOnly) ErrorCode() string { return string(c) }

// TestEveryCodeHasAClass iterates over the package's codes and sentinels
// as its source declares them: each has a class, and a code the gate
// keeps from the approval protocol has the protocol's.
func TestEveryCodeHasAClass(t *testing.T) {
	codecensus.Check(t, "Code", func(c string) string { return Code(c).Class() }, nil, map[string]error{"ErrNotStarted": ErrNotStarted})
	for c, want := range map[Code]string{"not_authorized": "forbidden", "credential_unknown": "forbidden", "no_such_code": ""} {
		if k := c.Class(); k != want {
			t.Errorf("%s: class %q, want %q", c, k, want)
		}
	}
}
