package identity

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
		{"same code", &Error{Code: CodeUnknownSession}, &Error{Code: CodeUnknownSession}, true},
		{"same code, other fields", &Error{Code: CodeUnknownSession, Msg: "m", Err: cause, SessionID: SessionID{1}}, &Error{Code: CodeUnknownSession}, true},
		{"a target with fields", &Error{Code: CodeUnknownSession}, &Error{Code: CodeUnknownSession, Msg: "other", Err: cause}, true},
		{"wrapped", fmt.Errorf("opening: %w", &Error{Code: CodeUnknownSession, Msg: "m"}), &Error{Code: CodeUnknownSession}, true},
		{"a sentinel", &Error{Code: CodeKeyMissing, File: "x"}, ErrKeyMissing, true},
		{"another code", &Error{Code: CodeUnknownSession}, ErrUnknownKey, false},
		{"the same text, uncoded", &Error{Code: CodeUnknownSession}, errors.New(string(CodeUnknownSession)), false},
		{"the cause", &Error{Code: CodeUnknownSession, Err: cause}, cause, true},
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
		{"a wrong passphrase", ErrWrongPassphrase, "unauthorized"},
		{"no keys", fmt.Errorf("open: %w", &Error{Code: CodeKeyMissing}), "not_found"},
		{"a damaged key file", &Error{Code: CodeCorruptKeyFile}, "internal"},
		{"an expired link", &Error{Code: CodeLinkExpired}, "conflict"},
		{"a frame over the limit", ErrTooLarge, "too_large"},
		{"a bad signature", ErrBadSignature, "invalid"},
		{"a damaged backup", ErrBadBackup, "invalid"},
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
		"ErrBadBackup":          ErrBadBackup,
		"ErrWrongPassphrase":    ErrWrongPassphrase,
		"ErrNoPassphrase":       ErrNoPassphrase,
		"ErrKeyMissing":         ErrKeyMissing,
		"ErrKeyExists":          ErrKeyExists,
		"ErrCorruptKeyFile":     ErrCorruptKeyFile,
		"ErrBadConfig":          ErrBadConfig,
		"ErrMalformed":          ErrMalformed,
		"ErrDuplicateKey":       ErrDuplicateKey,
		"ErrUnknownField":       ErrUnknownField,
		"ErrBadSignature":       ErrBadSignature,
		"ErrBadEVMSignature":    ErrBadEVMSignature,
		"ErrLinkExpired":        ErrLinkExpired,
		"ErrLinkNotYetValid":    ErrLinkNotYetValid,
		"ErrPeerIDMismatch":     ErrPeerIDMismatch,
		"ErrUnknownKEM":         ErrUnknownKEM,
		"ErrNoCurrentKey":       ErrNoCurrentKey,
		"ErrRevocationMismatch": ErrRevocationMismatch,
		"ErrBadFrame":           ErrBadFrame,
		"ErrTooLarge":           ErrTooLarge,
		"ErrNotAddressed":       ErrNotAddressed,
		"ErrUnknownKey":         ErrUnknownKey,
		"ErrKeyExpired":         ErrKeyExpired,
		"ErrUnknownSession":     ErrUnknownSession,
		"ErrSessionMismatch":    ErrSessionMismatch,
		"ErrOpenFailed":         ErrOpenFailed,
	})
}
