package node_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleynet/parley/internal/codecensus"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
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
		{"same code", &node.Error{Code: node.CodeNotParty}, &node.Error{Code: node.CodeNotParty}, true},
		{"same code, other fields", &node.Error{Code: node.CodeNotParty, Msg: "m", Err: cause}, &node.Error{Code: node.CodeNotParty}, true},
		{"a target with fields", &node.Error{Code: node.CodeNotParty}, &node.Error{Code: node.CodeNotParty, Msg: "other", Err: cause}, true},
		{"wrapped", fmt.Errorf("fund: %w", &node.Error{Code: node.CodeNotParty, Msg: "m"}), &node.Error{Code: node.CodeNotParty}, true},
		{"a sentinel", &node.Error{Code: node.CodeNotParty, Msg: "the worker funds nothing"}, node.ErrNotParty, true},
		{"another code", &node.Error{Code: node.CodeNotParty}, node.ErrStateForbidden, false},
		{"the same text, uncoded", &node.Error{Code: node.CodeNotParty}, errors.New(string(node.CodeNotParty)), false},
		{"the cause", &node.Error{Code: node.CodeStoreFailed, Err: cause}, cause, true},
		{"the state machine's refusal it wraps", &node.Error{Code: node.Code(negotiation.CodeTermsChanged), Err: &negotiation.Error{Code: negotiation.CodeTermsChanged}}, &negotiation.Error{Code: negotiation.CodeTermsChanged}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// TestErrorClass: an *Error knows the class of the code it carries: the
// node's own, one of negotiation's or approval's vocabulary (the class
// that package gives it, with or without the refusal wrapped), or another
// package's code it passes on (the class of the wrapped error).
func TestErrorClass(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"the node's own", node.ErrNotStarted, "unavailable"},
		{"wrapped", fmt.Errorf("act: %w", &node.Error{Code: node.CodeChainFailed}), "upstream"},
		{"a bundle", &node.Error{Code: node.CodeBadBundle}, "unprocessable"},
		{"rate limited", &node.Error{Code: node.CodeRateLimited}, "rate_limited"},
		{"a damaged ledger", node.ErrLedgerDamaged, "conflict"},
		{"the state machine's refusal", &node.Error{Code: node.Code(negotiation.CodeRoleForbidden), Err: &negotiation.Error{Code: negotiation.CodeRoleForbidden}}, "forbidden"},
		{"the state machine's code alone", &node.Error{Code: node.Code(negotiation.CodeBadFileName)}, "invalid"},
		{"the approval protocol's code", &node.Error{Code: node.Code(approval.CodeTokenUsed)}, "conflict"},
		{"a transport code it passes on", &node.Error{Code: node.Code(p2p.CodeClosed), Err: p2p.ErrClosed}, "unavailable"},
		{"its own code over the cause's", &node.Error{Code: node.CodeStoreFailed, Err: ledger.ErrNotFound}, "internal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c interface{ Class() string }
			if !errors.As(tc.err, &c) || c.Class() != tc.class {
				t.Fatalf("%v: class %v, want %q", tc.err, c, tc.class)
			}
		})
	}
	if c := (&node.Error{Code: "no_such_code"}).Class(); c != "" {
		t.Fatalf("an unknown code has class %q", c)
	}
}

// TestCodeOf: the code of an error in the node's vocabulary, from whichever
// package it comes.
func TestCodeOf(t *testing.T) {
	cases := []struct {
		name string
		err  error
		code node.Code
	}{
		{"the node's own", fmt.Errorf("x: %w", node.ErrNoChain), node.CodeNoChain},
		{"the state machine's", &negotiation.Error{Code: negotiation.CodeBadCID}, node.Code(negotiation.CodeBadCID)},
		{"the approval protocol's", &approval.Error{Code: approval.CodeCredentialCloned}, node.Code(approval.CodeCredentialCloned)},
		{"a damaged ledger read", fmt.Errorf("read: %w", &ledger.VerifyError{Seq: 4, Code: ledger.CodeObjectMismatch}), node.CodeLedgerDamaged},
		{"an empty node code passes the cause's on", &node.Error{Err: &negotiation.Error{Code: negotiation.CodePaused}}, node.Code(negotiation.CodePaused)},
		{"none", ledger.ErrNotFound, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if c := node.CodeOf(tc.err); c != tc.code {
				t.Fatalf("%v: %q, want %q", tc.err, c, tc.code)
			}
		})
	}
}

// TestEveryCodeHasAClass holds the package's codes and sentinels, as its
// source declares them (codecensus), to a class: a code added without one
// fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codecensus.Check(t, "Code", func(c string) string { return node.Code(c).Class() }, nil, map[string]error{
		"ErrLedgerDamaged":      node.ErrLedgerDamaged,
		"ErrBadConfig":          node.ErrBadConfig,
		"ErrNotStarted":         node.ErrNotStarted,
		"ErrStarted":            node.ErrStarted,
		"ErrUnknownNegotiation": node.ErrUnknownNegotiation,
		"ErrNotParty":           node.ErrNotParty,
		"ErrStateForbidden":     node.ErrStateForbidden,
		"ErrBadArgument":        node.ErrBadArgument,
		"ErrNoChain":            node.ErrNoChain,
		"ErrApprovalDenied":     node.ErrApprovalDenied,
		"ErrApprovalExpired":    node.ErrApprovalExpired,
		"ErrAlreadyConsumed":    node.ErrAlreadyConsumed,
		"ErrApprovalPending":    node.ErrApprovalPending,
	})
}
