package gate

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
	codes, names := declared(t, "Code")
	for name, c := range codes {
		if k := Code(c).Class(); !theClasses[k] {
			t.Errorf("%s (%q) has class %q: give it one (errors.go)", name, c, k)
		}
	}
	sentinels := map[string]error{"ErrNotStarted": ErrNotStarted}
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
	for c, want := range map[Code]string{"not_authorized": "forbidden", "credential_unknown": "forbidden", "no_such_code": ""} {
		if k := c.Class(); k != want {
			t.Errorf("%s: class %q, want %q", c, k, want)
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
