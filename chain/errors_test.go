package chain

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

// TestEveryCodeHasAClass iterates over the package's sentinels as its
// source declares them (declared; the package has no codes, and a
// *RevertError's class is TestErrorClass's): each has a class, one of
// theClasses, and a sentinel added without one fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codes, names := declared(t, "")
	if len(codes) != 0 {
		t.Errorf("chain declares codes %v: give the package a Code type with classes", codes)
	}
	sentinels := map[string]error{
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
