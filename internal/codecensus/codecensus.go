package codecensus

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Classes are the classes a code may have, the same in every package of
// Parley (docs/api.md, "Errors").
var Classes = map[string]bool{
	"invalid": true, "unauthorized": true, "forbidden": true, "not_found": true,
	"conflict": true, "too_large": true, "unprocessable": true, "rate_limited": true,
	"internal": true, "upstream": true, "unavailable": true,
}

// Const is a code constant found in a package's source.
type Const struct {
	Name, Value string
	Pos         token.Position
}

// Source is what a package's non-test files declare: whether it has a type
// named Code, its code constants (of type typ, including typ("...")
// conversions; untyped Code* string constants when typ is ""), and the
// names of its package-level variables named Err*.
type Source struct {
	DeclaresCode bool
	Codes        []Const
	Sentinels    []string
}

// Declared reads the non-test Go files of the package in dir.
func Declared(t testing.TB, dir, typ string) Source {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var src Source
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, b, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			switch gd.Tok {
			case token.TYPE:
				for _, sp := range gd.Specs {
					if sp.(*ast.TypeSpec).Name.Name == "Code" {
						src.DeclaresCode = true
					}
				}
			case token.VAR:
				for _, sp := range gd.Specs {
					for _, n := range sp.(*ast.ValueSpec).Names {
						if strings.HasPrefix(n.Name, "Err") {
							src.Sentinels = append(src.Sentinels, n.Name)
						}
					}
				}
			case token.CONST:
				src.Codes = append(src.Codes, consts(t, fset, gd, typ)...)
			}
		}
	}
	return src
}

// consts returns the code constants of one const declaration.
func consts(t testing.TB, fset *token.FileSet, gd *ast.GenDecl, typ string) []Const {
	var out []Const
	var cur ast.Expr // a spec without type or values repeats the previous one's
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		switch {
		case vs.Type != nil:
			cur = vs.Type
		case len(vs.Values) > 0:
			cur = nil
		}
		for i, n := range vs.Names {
			var v ast.Expr
			if i < len(vs.Values) {
				v = vs.Values[i]
			}
			kind := cur
			if call, ok := v.(*ast.CallExpr); ok && typ != "" && isIdent(call.Fun, typ) && len(call.Args) == 1 {
				kind, v = call.Fun, call.Args[0] // Code("...")
			}
			if n.Name == "_" {
				continue
			}
			if typ == "" {
				if kind != nil || !strings.HasPrefix(n.Name, "Code") {
					continue
				}
			} else if !isIdent(kind, typ) {
				continue
			}
			lit, ok := v.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: code %s is not a string literal: give it one so its class can be checked", fset.Position(n.Pos()), n.Name)
				continue
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, Const{Name: n.Name, Value: s, Pos: fset.Position(n.Pos())})
		}
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// Check holds the package in the test's directory to classes: every code
// constant of type typ has one of Classes (classOf asks the package),
// except the codes named in successes, which name no failure and have none;
// every Err* variable the source declares is in sentinels, and each has a
// class. A package without codes of its own passes a nil classOf and must
// declare none.
func Check(t *testing.T, typ string, classOf func(code string) string, successes []string, sentinels map[string]error) {
	t.Helper()
	src := Declared(t, ".", typ)
	if len(src.Codes)+len(src.Sentinels) == 0 {
		t.Fatal("found no codes and no sentinels: the walk is broken")
	}
	ok := map[string]bool{}
	for _, s := range successes {
		ok[s] = true
	}
	for _, c := range src.Codes {
		switch {
		case classOf == nil:
			t.Errorf("%s: the package declares code %s (%q): give it a Code type with classes", c.Pos, c.Name, c.Value)
		case ok[c.Name]:
			if k := classOf(c.Value); k != "" {
				t.Errorf("%s (%q) is no error but has class %q", c.Name, c.Value, k)
			}
		case !Classes[classOf(c.Value)]:
			t.Errorf("%s (%q) has class %q: give it one (errors.go)", c.Name, c.Value, classOf(c.Value))
		}
	}
	for _, name := range src.Sentinels {
		err, found := sentinels[name]
		if !found {
			t.Errorf("sentinel %s is missing from this test's list: add it", name)
			continue
		}
		var c interface{ Class() string }
		if !errors.As(err, &c) || !Classes[c.Class()] {
			t.Errorf("sentinel %s has no class", name)
		}
	}
}
