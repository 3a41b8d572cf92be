package api

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/internal/codecensus"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/gate"
	"github.com/parleynet/parley/p2p"
	"github.com/parleynet/parley/storeguard"
	"github.com/parleynet/parley/strictjson"
	"github.com/parleynet/parley/vxp"
)

// classifiers ask the package that owns a code for its class, by the
// package's directory in the module. Every package that declares a Code
// type must be here (TestEveryCodeHasAClass fails otherwise).
var classifiers = map[string]func(string) string{
	"approval":    func(c string) string { return approval.Code(c).Class() },
	"identity":    func(c string) string { return identity.Code(c).Class() },
	"ledger":      func(c string) string { return ledger.Code(c).Class() },
	"negotiation": func(c string) string { return negotiation.Code(c).Class() },
	"node":        func(c string) string { return node.Code(c).Class() },
	"node/gate":   func(c string) string { return gate.Code(c).Class() },
	"p2p":         func(c string) string { return p2p.Code(c).Class() },
	"storeguard":  func(c string) string { return storeguard.Code(c).Class() },
	"strictjson":  func(c string) string { return strictjson.Code(c).Class() },
	"vxp":         func(c string) string { return vxp.Code(c).Class() },
}

// notErrors are the code constants that name no failure and so have no
// class: the acks of a final success.
var notErrors = map[string]bool{
	"p2p.CodeOK":   true, // stored
	"p2p.CodeHeld": true, // a store node holds the envelope for its recipient
}

// sameStringOtherClass are the code strings two packages spell alike for
// different things, with the reason; every other string shared by two
// packages has one class.
var sameStringOtherClass = map[string]string{
	"bad_record": "p2p's is a peer's DHT record or blob reply (invalid); storeguard's the node's own store record file (internal)",
}

// codeConsts reads every package directory of the module (codecensus)
// and returns the constants of type Code of every package that declares a
// type Code, by package directory (relative to the module root).
func codeConsts(t *testing.T) (map[string][]codecensus.Const, map[string]bool) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root: %v", err)
	}
	consts := map[string][]codecensus.Const{}
	declares := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" || name == "testdata") {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		src := codecensus.Declared(t, path, "Code")
		if src.DeclaresCode {
			declares[pkg] = true
			consts[pkg] = src.Codes
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return consts, declares
}

// TestEveryCodeHasAClass walks every code constant of every package (read
// from the source, not from a list a package keeps) and fails when one has
// no class, or a class the server answers with no status: no code can
// become a 500 by being forgotten.
func TestEveryCodeHasAClass(t *testing.T) {
	consts, declares := codeConsts(t)
	for pkg := range declares {
		if classifiers[pkg] == nil {
			t.Errorf("package %s declares a Code type, but this test cannot ask it for classes: give its codes classes (Code.Class) and add it to classifiers", pkg)
		}
	}
	for pkg := range classifiers {
		if !declares[pkg] {
			t.Errorf("classifiers names %s, which declares no Code type", pkg)
		}
	}
	byString := map[string]map[string][]string{} // code -> class -> packages
	n := 0
	for pkg, cs := range consts {
		class := classifiers[pkg]
		if class == nil {
			continue
		}
		for _, c := range cs {
			n++
			k := class(c.Value)
			if notErrors[pkg+"."+c.Name] {
				if k != "" {
					t.Errorf("%s: %s.%s (%q) is no error but has class %q", c.Pos, pkg, c.Name, c.Value, k)
				}
				continue
			}
			if k == "" {
				t.Errorf("%s: %s.%s (%q) has no class: add it to its package's table of classes", c.Pos, pkg, c.Name, c.Value)
				continue
			}
			if _, ok := statusOf(k); !ok {
				t.Errorf("%s: %s.%s (%q) has class %q, which is none of %v", c.Pos, pkg, c.Name, c.Value, k, classes)
				continue
			}
			if byString[c.Value] == nil {
				byString[c.Value] = map[string][]string{}
			}
			byString[c.Value][k] = append(byString[c.Value][k], pkg)
		}
	}
	if n < 150 {
		t.Fatalf("found only %d code constants: the walk missed packages", n)
	}
	for code, byClass := range byString {
		if len(byClass) > 1 && sameStringOtherClass[code] == "" {
			t.Errorf("code %q has different classes in different packages: %v", code, byClass)
		}
	}
	for code := range sameStringOtherClass {
		if len(byString[code]) < 2 {
			t.Errorf("sameStringOtherClass names %q, which has one class now: take it out", code)
		}
	}
}

// TestClassStatuses: each class has its own status, and an answer's
// status gives its class back (api.Error.Class).
func TestClassStatuses(t *testing.T) {
	want := map[string]int{
		ClassInvalid: 400, ClassUnauthorized: 401, ClassForbidden: 403, ClassNotFound: 404,
		ClassConflict: 409, ClassTooLarge: 413, ClassUnprocessable: 422, ClassRateLimited: 429,
		ClassInternal: 500, ClassUpstream: 502, ClassUnavailable: 503,
	}
	if len(classes) != len(want) {
		t.Fatalf("%d classes, want %d", len(classes), len(want))
	}
	for _, c := range classes {
		st, ok := statusOf(c)
		if !ok || st != want[c] {
			t.Errorf("class %s: status %d (%v), want %d", c, st, ok, want[c])
		}
		if got := (&Error{Status: st}).Class(); got != c {
			t.Errorf("an answer of %d has class %q, want %q", st, got, c)
		}
	}
	if st, ok := statusOf("Conflict"); ok || st != http.StatusInternalServerError {
		t.Errorf("a misspelt class: %d %v", st, ok)
	}
	for _, st := range []int{http.StatusMethodNotAllowed, http.StatusNotImplemented, http.StatusTeapot} {
		if c := (&Error{Status: st}).Class(); c != "" {
			t.Errorf("an answer of %d has class %q", st, c)
		}
	}
}

// TestErrorOf: the server asks the error for its class, whichever package
// the error or its code comes from, and answers the node's code (or, for
// an error without one, the API's code of its class).
func TestErrorOf(t *testing.T) {
	negRefusal := &negotiation.Error{Code: negotiation.CodeTermsChanged, Msg: "superseded"}
	cases := []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"the node's own code", &node.Error{Code: node.CodeBadArgument}, 400, "bad_argument"},
		{"a node sentinel, wrapped", fmt.Errorf("act: %w", node.ErrNotParty), 403, "not_party"},
		{"the node wrapping the state machine's refusal", &node.Error{Code: node.Code(negRefusal.Code), Err: negRefusal}, 409, "terms_changed"},
		{"the node carrying the state machine's code alone", &node.Error{Code: node.Code(negotiation.CodeTooLarge)}, 413, "too_large"},
		{"the node carrying the approval protocol's code", &node.Error{Code: node.Code(approval.CodeTokenExpired)}, 403, "token_expired"},
		{"the node carrying a transport code it wraps", &node.Error{Code: node.Code(p2p.CodeClosed), Err: p2p.ErrClosed}, 503, "closed"},
		{"a raw refusal of the state machine", negRefusal, 409, "terms_changed"},
		{"a raw refusal of the approval protocol", &approval.Error{Code: approval.CodeCredentialUnknown}, 403, "credential_unknown"},
		{"the chain failed", &node.Error{Code: node.CodeChainFailed, Err: chain.ErrTxFailed}, 502, "chain_failed"},
		{"a bundle that does not verify", &node.Error{Code: node.CodeBadBundle}, 422, "bad_bundle"},
		{"rate limited", &node.Error{Code: node.CodeRateLimited}, 429, "rate_limited"},
		{"pending is a conflict, not a success", node.ErrApprovalPending, 409, "approval_pending"},
		{"a damaged ledger read", fmt.Errorf("read: %w", &ledger.VerifyError{Seq: 3, Code: ledger.CodeHashMismatch}), 409, "ledger_damaged"},
		{"no such ledger entry", fmt.Errorf("read: %w", ledger.ErrNotFound), 404, "not_found"},
		{"a closed ledger", ledger.ErrClosed, 503, "not_started"},
		{"a bad negotiation id of the ledger", &ledger.Error{Code: ledger.CodeBadNegotiationID}, 400, "bad_request"},
		{"a store failure of the ledger", ledger.ErrFailed, 500, "internal"},
		{"a transport error passed on raw", p2p.ErrNotFound, 404, "not_found"},
		{"a transport error of another vocabulary's code", &p2p.Error{Code: p2p.Code(identity.CodeUnknownKey)}, 404, "not_found"},
		{"an error that knows no class", errors.New("boom"), 500, "internal"},
		{"a class that is none", classless{}, 500, "internal"},
		{"an answer of the server as it is", &httpError{Status: 418, Code: "teapot"}, 418, "teapot"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := errorOf(tc.err)
			if e.Status != tc.status || e.Code != tc.code {
				t.Fatalf("%v: %d %s, want %d %s", tc.err, e.Status, e.Code, tc.status, tc.code)
			}
		})
	}
}

type classless struct{}

func (classless) Error() string { return "classless" }
func (classless) Class() string { return "Invalid" }

// TestErrorIs: errors.Is matches an answer's *Error by its code alone,
// whatever the other fields of the error and of the target, through
// wrapping; another code or an uncoded error with the same text does not
// match. (The same table in every package with coded errors: one meaning
// of Is.)
func TestErrorIs(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code", &Error{Code: CodeUnauthorized}, &Error{Code: CodeUnauthorized}, true},
		{"same code, other fields", &Error{Status: 401, Code: CodeUnauthorized, Message: "m"}, &Error{Code: CodeUnauthorized}, true},
		{"a target with fields", &Error{Code: CodeUnauthorized}, &Error{Status: 500, Code: CodeUnauthorized, Message: "other"}, true},
		{"wrapped", fmt.Errorf("tasks: %w", &Error{Status: 401, Code: CodeUnauthorized}), &Error{Code: CodeUnauthorized}, true},
		{"another code", &Error{Code: CodeUnauthorized}, &Error{Code: CodeNotFound}, false},
		{"the same text, uncoded", &Error{Code: CodeUnauthorized}, errors.New(CodeUnauthorized), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}
