package p2p_test

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

// TestEveryCodeHasAClass iterates over the package's codes and sentinels
// as its source declares them (declared): each has a class, one of
// theClasses, and a code added without one fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codes, names := declared(t, "Code")
	for name, c := range codes {
		if name == "CodeOK" || name == "CodeHeld" { // final successes, no errors
			if k := p2p.Code(c).Class(); k != "" {
				t.Errorf("%s (%q) is no error but has class %q", name, c, k)
			}
			continue
		}
		if k := p2p.Code(c).Class(); !theClasses[k] {
			t.Errorf("%s (%q) has class %q: give it one (errors.go)", name, c, k)
		}
	}
	sentinels := map[string]error{
		"ErrBadConfig":   p2p.ErrBadConfig,
		"ErrClosed":      p2p.ErrClosed,
		"ErrNotFound":    p2p.ErrNotFound,
		"ErrBadRecord":   p2p.ErrBadRecord,
		"ErrCIDMismatch": p2p.ErrCIDMismatch,
		"ErrUnknownLink": p2p.ErrUnknownLink,
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
