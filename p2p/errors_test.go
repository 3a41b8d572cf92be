package p2p_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
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
		{"same code", &p2p.Error{Code: p2p.CodeNotFound}, &p2p.Error{Code: p2p.CodeNotFound}, true},
		{"same code, other fields", &p2p.Error{Code: p2p.CodeNotFound, Msg: "m", Err: cause}, &p2p.Error{Code: p2p.CodeNotFound}, true},
		{"a target with fields", &p2p.Error{Code: p2p.CodeNotFound}, &p2p.Error{Code: p2p.CodeNotFound, Msg: "other", Err: cause}, true},
		{"wrapped", fmt.Errorf("fetch: %w", &p2p.Error{Code: p2p.CodeNotFound, Msg: "m"}), &p2p.Error{Code: p2p.CodeNotFound}, true},
		{"a sentinel", &p2p.Error{Code: p2p.CodeNotFound, Msg: "no peer"}, p2p.ErrNotFound, true},
		{"another code", &p2p.Error{Code: p2p.CodeNotFound}, p2p.ErrClosed, false},
		{"the same text, uncoded", &p2p.Error{Code: p2p.CodeNotFound}, errors.New(string(p2p.CodeNotFound)), false},
		{"the cause", &p2p.Error{Code: p2p.CodeNotFound, Err: cause}, cause, true},
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
// its code, the transport's own or one of negotiation's or identity's
// vocabulary (the class those packages give it).
func TestErrorClass(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"closed", fmt.Errorf("send: %w", p2p.ErrClosed), "unavailable"},
		{"busy", &p2p.Error{Code: p2p.CodeBusy}, "unavailable"},
		{"over rate", &p2p.Error{Code: p2p.CodeOverRate}, "rate_limited"},
		{"consent denied", &p2p.Error{Code: p2p.CodeConsentDenied}, "forbidden"},
		{"a bad config", p2p.ErrBadConfig, "internal"},
		{"a negotiation code", &p2p.Error{Code: p2p.Code(negotiation.CodeTooLarge)}, "too_large"},
		{"an identity code", &p2p.Error{Code: p2p.Code(identity.CodeKeyExpired)}, "conflict"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c interface{ Class() string }
			if !errors.As(tc.err, &c) || c.Class() != tc.class {
				t.Fatalf("%v: class %v, want %q", tc.err, c, tc.class)
			}
		})
	}
	for _, c := range []p2p.Code{p2p.CodeOK, p2p.CodeHeld, "no_such_code"} {
		if k := c.Class(); k != "" {
			t.Errorf("%s has class %q", c, k)
		}
	}
}

// TestEveryCodeHasAClass holds the package's codes and sentinels, as its
// source declares them (codecensus), to a class: a code added without one
// fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codecensus.Check(t, "Code", func(c string) string { return p2p.Code(c).Class() }, []string{"CodeOK", "CodeHeld"}, map[string]error{
		"ErrBadConfig":   p2p.ErrBadConfig,
		"ErrClosed":      p2p.ErrClosed,
		"ErrNotFound":    p2p.ErrNotFound,
		"ErrBadRecord":   p2p.ErrBadRecord,
		"ErrCIDMismatch": p2p.ErrCIDMismatch,
		"ErrUnknownLink": p2p.ErrUnknownLink,
	})
}
