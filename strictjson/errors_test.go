package strictjson_test

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

	"github.com/parleynet/parley/strictjson"
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
		{"same code", &strictjson.Error{Code: strictjson.CodeUnknownField}, &strictjson.Error{Code: strictjson.CodeUnknownField}, true},
		{"same code, other fields", &strictjson.Error{Code: strictjson.CodeUnknownField, Pointer: "/a", Offset: 3, Msg: "m", Err: cause}, &strictjson.Error{Code: strictjson.CodeUnknownField}, true},
		{"a target with fields", &strictjson.Error{Code: strictjson.CodeUnknownField}, &strictjson.Error{Code: strictjson.CodeUnknownField, Pointer: "/b", Msg: "other"}, true},
		{"wrapped", fmt.Errorf("body: %w", &strictjson.Error{Code: strictjson.CodeUnknownField, Msg: "m"}), &strictjson.Error{Code: strictjson.CodeUnknownField}, true},
		{"another code", &strictjson.Error{Code: strictjson.CodeUnknownField}, &strictjson.Error{Code: strictjson.CodeDuplicateKey}, false},
		{"the same text, uncoded", &strictjson.Error{Code: strictjson.CodeUnknownField}, errors.New(string(strictjson.CodeUnknownField)), false},
		{"the cause", &strictjson.Error{Code: strictjson.CodeSchemaInvalid, Err: cause}, cause, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

// TestErrorClass: a refusal of the decoder, or an error wrapping one,
// knows its class.
func TestErrorClass(t *testing.T) {
	var v struct{ A int }
	cases := []struct {
		name  string
		err   error
		class string
	}{
		{"malformed", strictjson.Unmarshal([]byte(`{`), &v), "invalid"},
		{"an unknown member", fmt.Errorf("body: %w", strictjson.Unmarshal([]byte(`{"B":1}`), &v)), "invalid"},
		{"too large", &strictjson.Error{Code: strictjson.CodeTooLarge}, "too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c interface{ Class() string }
			if !errors.As(tc.err, &c) || c.Class() != tc.class {
				t.Fatalf("%v: class %v, want %q", tc.err, c, tc.class)
			}
		})
	}
	if c := strictjson.Code("no_such_code").Class(); c != "" {
		t.Fatalf("an unknown code has class %q", c)
	}
}

// TestEveryCodeHasAClass iterates over the package's codes and sentinels
// as its source declares them (declared): each has a class, one of
// theClasses, and a code added without one fails here.
func TestEveryCodeHasAClass(t *testing.T) {
	codes, names := declared(t, "Code")
	for name, c := range codes {
		if k := strictjson.Code(c).Class(); !theClasses[k] {
			t.Errorf("%s (%q) has class %q: give it one (errors.go)", name, c, k)
		}
	}
	sentinels := map[string]error{}
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
