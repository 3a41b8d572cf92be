package node

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parleynet/parley/negotiation"
)

// TestEveryActHasARow: every act the node runs (each actCall in node's
// source, and each act a may call asks about: the PXP acts) that acts in a
// thread names an act with a row in the act table, so the table judges it; the two that act in no thread (post_task,
// withdraw) have no row and name no thread.
func TestEveryActHasARow(t *testing.T) {
	consts := negotiationActs(t)
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[negotiation.Act]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(x ast.Node) bool {
			if call, ok := x.(*ast.CallExpr); ok {
				// A direct question to the table (may, mayAct): the PXP
				// acts and the second asks of the node's acts.
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "may" {
					for _, a := range call.Args {
						if e, ok := a.(*ast.SelectorExpr); ok {
							if x, ok := e.X.(*ast.Ident); ok && x.Name == "negotiation" {
								act, ok := consts[e.Sel.Name]
								if _, row := act.Row(); !ok || !row {
									t.Errorf("%s: may asks about %s, which has no row in the act table", fset.Position(call.Pos()), e.Sel.Name)
								}
								seen[act] = true
							}
						}
					}
				}
				return true
			}
			lit, ok := x.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "actCall" {
				return true
			}
			fields := map[string]ast.Expr{}
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					fields[kv.Key.(*ast.Ident).Name] = kv.Value
				}
			}
			pos := fset.Position(lit.Pos())
			_, inThread := fields["nid"]
			if _, ok := fields["fresh"]; ok {
				inThread = true
			}
			switch e := fields["act"].(type) {
			case *ast.SelectorExpr:
				act, ok := consts[e.Sel.Name]
				if x, isIdent := e.X.(*ast.Ident); !isIdent || x.Name != "negotiation" || !ok {
					t.Errorf("%s: act %s is not an act of package negotiation", pos, e.Sel.Name)
					return true
				}
				if _, ok := act.Row(); !ok {
					t.Errorf("%s: act %s has no row in the act table", pos, act)
				}
				// An act with a row judged without a thread would skip
				// the table (the announcement refusals are the exception:
				// no thread could be made).
				if !inThread && fields["check"] == nil {
					t.Errorf("%s: act %s names no thread: the act table does not judge it", pos, act)
				}
				seen[act] = true
			case *ast.Ident:
				act, ok := map[string]negotiation.Act{"actPostTask": actPostTask, "actWithdraw": actWithdraw,
					"actRegisterIdentity": actRegisterIdentity, "actRotateIdentity": actRotateIdentity, "actRevokeIdentity": actRevokeIdentity}[e.Name]
				if !ok {
					t.Errorf("%s: act %s is neither an act of the table nor one in no thread", pos, e.Name)
					return true
				}
				if _, ok := act.Row(); ok || inThread {
					t.Errorf("%s: %s acts in no thread and has no row", pos, act)
				}
				seen[act] = true
			default:
				t.Errorf("%s: an actCall without its act", pos)
			}
			return true
		})
	}
	// Every act the node performs today is run by the runner.
	for _, a := range []negotiation.Act{
		negotiation.ActPropose, negotiation.ActCounter, negotiation.ActAccept, negotiation.ActFund,
		negotiation.ActDeliver, negotiation.ActAcceptDelivery, negotiation.ActCancel, negotiation.ActAmend,
		negotiation.ActReplace, negotiation.ActOpenDispute, negotiation.ActProposeArbitrator,
		negotiation.ActSubmitEvidence, negotiation.ActRule, actPostTask, actWithdraw,
		negotiation.ActSealCard, negotiation.ActAnswerEscalation, negotiation.ActBrief,
	} {
		if !seen[a] {
			t.Errorf("no actCall runs %s, and no may asks about it", a)
		}
	}
}

// negotiationActs reads the Act constants of package negotiation, by name.
func negotiationActs(t *testing.T) map[string]negotiation.Act {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "../negotiation/act.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]negotiation.Act{}
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Act" {
				continue
			}
			for i, name := range v.Names {
				s, err := strconv.Unquote(v.Values[i].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				out[name.Name] = negotiation.Act(s)
			}
		}
	}
	if len(out) != len(negotiation.Acts()) {
		t.Fatalf("read %d acts of negotiation/act.go, the table has %d", len(out), len(negotiation.Acts()))
	}
	return out
}
