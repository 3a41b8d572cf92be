package node_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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

// TestEveryCodeHasAClass iterates over the package's codes and sentinels
// as its source declares them (declared): each has a class, one of
// theClasses, and a code added without one fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codes, names := declared(t, "Code")
	for name, c := range codes {
		if k := node.Code(c).Class(); !theClasses[k] {
			t.Errorf("%s (%q) has class %q: give it one (errors.go)", name, c, k)
		}
	}
	sentinels := map[string]error{
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
	}
	for _, name := range names {
		err, ok := sentinels[name]
		if !ok {
			t.Errorf("sentinel %s is missing from this test's list: add it", name)
			continue
		}
		var c interface{ Class() string }
		if !errors.As(err, &c) || !theClasses[c.Class()] {
			t.Errorf("sentinel %s has no class", name)
		}
	}
}

// theClasses are the classes a code may have, the same in every package
// of Parley (docs/api.md, "Errors").
var theClasses = map[string]bool{
	"invalid": true, "unauthorized": true, "forbidden": true, "not_found": true,
	"conflict": true, "too_large": true, "unprocessable": true, "rate_limited": true,
	"internal": true, "upstream": true, "unavailable": true,
}

// declared reads the package's own (non-test) Go files and returns, by
// name, the string constants named Code* (of type typ, or untyped when
// typ is "") and the names of the package-level variables named Err*: the
// package's list of codes and sentinels as declared, so a code added
// without a class fails its test.
func declared(t *testing.T, typ string) (codes map[string]string, sentinels []string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	codes = map[string]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || (gd.Tok != token.CONST && gd.Tok != token.VAR) {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if gd.Tok == token.VAR {
						if strings.HasPrefix(n.Name, "Err") {
							sentinels = append(sentinels, n.Name)
						}
						continue
					}
					if !strings.HasPrefix(n.Name, "Code") || i >= len(vs.Values) {
						continue
					}
					id, _ := vs.Type.(*ast.Ident)
					if (typ == "" && vs.Type != nil) || (typ != "" && (id == nil || id.Name != typ)) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: %s is not a string literal", fset.Position(n.Pos()), n.Name)
						continue
					}
					codes[n.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	if len(codes)+len(sentinels) == 0 {
		t.Fatal("found no codes and no sentinels: the walk is broken")
	}
	return codes, sentinels
}
