package chain

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"
)

// TestErrorIs: this package has no Code type; its sentinels match only
// themselves, through wrapping, ErrReverted matches every *RevertError,
// and a *RevertError matches one of the same code (RevertError.Code). (The same table as in every package with coded errors:
// one meaning of Is.)
func TestErrorIs(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"a sentinel", ErrClosed, ErrClosed, true},
		{"wrapped", fmt.Errorf("send: %w", ErrTxFailed), ErrTxFailed, true},
		{"another sentinel", ErrTxFailed, ErrReceiptTimeout, false},
		{"the same text", ErrClosed, errors.New(ErrClosed.Error()), false},
		{"a revert", &RevertError{Name: "DigestUsed"}, ErrReverted, true},
		{"a revert, wrapped", fmt.Errorf("fund: %w", &RevertError{Name: "Error", Reason: "no"}), ErrReverted, true},
		{"a revert is no other sentinel", &RevertError{Name: "DigestUsed"}, ErrTxFailed, false},
		{"a revert, by its code", &RevertError{Contract: "Escrow", Name: "DigestUsed", Args: []any{1}}, &RevertError{Name: "DigestUsed"}, true},
		{"a revert, wrapped, by its code", fmt.Errorf("fund: %w", &RevertError{Name: "Error", Reason: "no"}), &RevertError{Name: "Error", Reason: "other"}, true},
		{"a revert of another code", &RevertError{Name: "DigestUsed"}, &RevertError{Name: "NotFunded"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// TestErrorClass: every sentinel and every *RevertError, or an error
// wrapping one, knows its class.
func TestErrorClass(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"invalid config", ErrInvalidConfig, "internal"},
		{"reverted", ErrReverted, "conflict"},
		{"a revert", fmt.Errorf("fund: %w", &RevertError{Name: "DigestUsed"}), "conflict"},
		{"a failed transaction", ErrTxFailed, "upstream"},
		{"no receipt", ErrReceiptTimeout, "upstream"},
		{"the wrong chain", ErrWrongChain, "internal"},
		{"no contract", ErrNoContract, "internal"},
		{"no task", ErrTaskNotFound, "not_found"},
		{"no task event", ErrNoTaskEvent, "upstream"},
		{"a bad argument", ErrBadArgument, "invalid"},
		{"closed", ErrClosed, "unavailable"},
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

// TestEveryCodeHasAClass holds the package's sentinels, as its source
// declares them (codecensus), to a class (the package has no codes, and a
// *RevertError's class is TestErrorClass's): a sentinel added without one
// fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codecensus.Check(t, "", nil, nil, map[string]error{
		"ErrInvalidConfig":  ErrInvalidConfig,
		"ErrReverted":       ErrReverted,
		"ErrTxFailed":       ErrTxFailed,
		"ErrReceiptTimeout": ErrReceiptTimeout,
		"ErrWrongChain":     ErrWrongChain,
		"ErrNoContract":     ErrNoContract,
		"ErrTaskNotFound":   ErrTaskNotFound,
		"ErrNoTaskEvent":    ErrNoTaskEvent,
		"ErrBadArgument":    ErrBadArgument,
		"ErrClosed":         ErrClosed,
	})
}
