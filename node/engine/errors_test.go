package engine

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"
)

// TestErrorClass: each sentinel, or an error wrapping one, knows its
// class, and errors.Is matches it through wrapping.
func TestErrorClass(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		is    error
		class string
	}{
		{"unknown", fmt.Errorf("%w nope", ErrUnknown), ErrUnknown, "not_found"},
		{"no ledger", ErrNoLedger, ErrNoLedger, "unavailable"},
		{"not recorded", fmt.Errorf("%w: %w", ErrNotRecorded, errors.New("disk")), ErrNotRecorded, "internal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c interface{ Class() string }
			if !errors.As(tc.err, &c) || c.Class() != tc.class || !errors.Is(tc.err, tc.is) {
				t.Fatalf("%v: class %v, want %q", tc.err, c, tc.class)
			}
		})
	}
	if errors.Is(ErrUnknown, ErrNoLedger) {
		t.Fatal("a sentinel matches another")
	}
}

// TestEveryCodeHasAClass holds the package's sentinels, as its source
// declares them (codecensus), to a class (the package has no codes): a
// sentinel added without one fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codecensus.Check(t, "", nil, nil, map[string]error{
		"ErrUnknown":     ErrUnknown,
		"ErrNoLedger":    ErrNoLedger,
		"ErrNotRecorded": ErrNotRecorded,
	})
}
