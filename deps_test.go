package parley_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// module is the module path; the table below names packages relative to it.
const module = "github.com/parleynet/parley"

// rule is what one package may import of the module, as its doc.go says.
type rule struct {
	// may lists the module's packages the package's own (non-test) files
	// may import directly. Every one of them is named in the doc.go.
	may []string
	// any lets the package import every package of the module that
	// importers does not keep from it (cmd/parley, the top).
	any bool
	// never lists packages the package must not depend on, directly or
	// through another package (go list's Deps).
	never []string
	// tests lists what the package's tests may import beyond may and the
	// package itself.
	tests []string
	// planned marks a package the layout names that does not exist yet:
	// its row is skipped until it does, and holds from its first commit.
	planned bool
}

// rules is every package's import rule (DESIGN.md, "Layout and dependency
// direction"): cmd -> node/{api,web,mcp,demo,soak,loadtest} -> node ->
// {node/engine, node/gate} -> {p2p, ledger, chain, approval} ->
// {negotiation, identity, vxp} -> schemas; the leaves strictjson and storeguard
// import nothing of the module; siblings never import each other.
var rules = map[string]rule{
	// Leaves.
	"schemas":    {tests: []string{"negotiation", "identity"}},
	"strictjson": {},
	"storeguard": {},

	// Test support every package's tests may import (forTests).
	"internal/codecensus": {},
	"internal/transcript": {},

	// Generated contract artifacts and bindings.
	"contracts":              {},
	"contracts/bindings":     {},
	"contracts/testbindings": {},

	// The pure core and the keys.
	"negotiation": {
		may:   []string{"schemas"},
		never: []string{"identity", "ledger", "p2p", "chain", "approval", "node"},
		tests: []string{"strictjson"},
	},
	"identity": {
		may:   []string{"strictjson"},
		never: []string{"negotiation", "ledger", "p2p", "chain", "approval", "node"},
	},
	// VXP's native profile, pure, beside negotiation and identity
	// (vxp/doc.go): it reads negotiation's JCS and A2A names.
	"vxp": {
		may:   []string{"strictjson", "negotiation"},
		never: []string{"identity", "ledger", "p2p", "chain", "approval", "node"},
	},

	// The parts behind node: siblings, none imports another.
	"ledger": {
		may:   []string{"negotiation", "storeguard", "strictjson"},
		never: []string{"p2p", "chain", "approval", "node"},
	},
	"p2p": {
		may:   []string{"negotiation", "identity"},
		never: []string{"ledger", "chain", "approval", "node"},
		tests: []string{"ledger", "node", "p2p/hostile"},
	},
	"chain": {
		may:   []string{"negotiation", "identity", "contracts/bindings", "strictjson"},
		never: []string{"ledger", "p2p", "approval", "node"},
		tests: []string{"contracts/testbindings"},
	},
	"approval": {
		may:   []string{"strictjson"},
		never: []string{"ledger", "p2p", "chain", "node"},
	},

	// The threads and their one write path (node/engine/doc.go).
	"node/engine": {
		may:   []string{"negotiation", "identity", "ledger"},
		never: []string{"p2p", "chain", "node/gate", "node"},
	},
	// The approval of gated acts (node/gate/doc.go).
	"node/gate": {
		may:   []string{"approval", "storeguard"},
		never: []string{"node/engine", "ledger", "p2p", "chain", "negotiation", "node"},
	},

	// The composition root.
	"node": {
		may: []string{
			"node/engine", "node/gate",
			"p2p", "ledger", "chain", "approval",
			"negotiation", "identity",
			"storeguard", "strictjson",
		},
		tests: []string{"node/nodetest", "p2p/hostile", "contracts/testbindings"}, // testbindings: a contract arbitrator's story deploys TestCourt
	},

	// Above node: only cmd imports them; the demo and the soak drive nodes
	// through node/api's client.
	"node/api": {
		may:   []string{"node", "approval", "ledger", "negotiation", "p2p", "strictjson"},
		tests: []string{"chain", "identity", "storeguard", "node/gate", "node/nodetest", "vxp"}, // vxp: the census of every package's error classes
	},
	"node/web": {
		may:   []string{"node", "approval", "negotiation", "strictjson"},
		tests: []string{"node/nodetest"},
	},
	"node/mcp": {
		may:   []string{"node", "negotiation", "strictjson"},
		tests: []string{"node/nodetest", "chain"}, // chain: the task tools' story runs on a dev chain
	},
	// VXP's HTTP side and request manager (node/vxp/doc.go).
	"node/vxp": {
		may:   []string{"node", "vxp", "ledger", "negotiation", "identity", "strictjson"},
		tests: []string{"node/nodetest", "chain"},
	},
	"node/demo": {
		may: []string{"node", "node/api", "ledger", "negotiation"},
	},
	"node/soak": {
		may: []string{"node", "node/api", "p2p/hostile", "p2p", "ledger", "negotiation"},
	},
	"node/loadtest": {
		may: []string{"node", "chain", "identity", "ledger", "negotiation", "p2p"},
	},
	// The network testbed's namespaces, hosts and processes (node/testbed/doc.go).
	"node/testbed": {},

	// Test-only packages.
	"node/nodetest": {
		may: []string{"node", "chain", "identity", "ledger", "negotiation", "p2p"}, // negotiation: the payload census
	},
	"p2p/hostile": {
		may: []string{"p2p", "identity", "negotiation"},
	},

	// The one binary.
	"cmd/parley": {any: true},
}

// forTests are the packages made for tests that every package's tests may
// import: the census of a package's error codes (internal/codecensus) and
// the golden transcripts' reader (internal/transcript).
var forTests = []string{"internal/codecensus", "internal/transcript"}

// importers limits who may import a package at all (non-test files; any
// package's tests may, within its row's tests).
var importers = map[string][]string{
	// Test-only packages: tests, and the soak its misbehaving peers.
	"node/nodetest":       nil,
	"internal/codecensus": nil,
	"internal/transcript": nil,
	"p2p/hostile":         {"node/soak"},
	// Nothing but cmd imports node's subpackages; the demo and the soak use
	// the API's client.
	"node/api":      {"cmd/parley", "node/demo", "node/soak"},
	"node/web":      {"cmd/parley"},
	"node/mcp":      {"cmd/parley"},
	"node/vxp":      {"cmd/parley"},
	"node/demo":     {"cmd/parley"},
	"node/soak":     {"cmd/parley"},
	"node/loadtest": {"cmd/parley"},
	"node/testbed":  {"cmd/parley"},
	// The contract bindings are read by chain alone: every other package
	// sees contract events as chain.FactOf's facts.
	"contracts/bindings": {"chain"},
	// node/engine and node/gate serve node alone.
	"node/engine": {"node"},
	"node/gate":   {"node"},
}

// pkg is what go list says of one package of the module.
type pkg struct {
	ImportPath   string
	Dir          string
	Name         string
	GoFiles      []string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// listModule runs go list over the module once and returns its packages
// by their path relative to the module ("." for the root).
var listModule = sync.OnceValues(func() (map[string]pkg, error) {
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,Name,GoFiles,Imports,Deps,TestImports,XTestImports,Error", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs[rel(p.ImportPath)] = p
	}
	if len(pkgs) == 0 {
		return nil, errors.New("go list found no package")
	}
	return pkgs, nil
})

// modulePackages returns listModule's packages or fails t.
func modulePackages(t *testing.T) map[string]pkg {
	t.Helper()
	pkgs, err := listModule()
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// rel returns path relative to the module, or "" for a path outside it.
func rel(path string) string {
	if path == module {
		return "."
	}
	r, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	return r
}

// internal returns the module's packages among paths, relative to it.
func internal(paths []string) []string {
	var out []string
	for _, p := range paths {
		if r := rel(p); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// under reports whether p is pkg or one of its subpackages.
func under(p, pkg string) bool { return p == pkg || strings.HasPrefix(p, pkg+"/") }

// TestImportRules holds every package of the module to its row of rules:
// its own files import only what may allows, depend on nothing never
// forbids, are imported only by the packages importers names, and its
// tests import only may plus tests. A package without a row fails, so a
// new package comes with its rule.
func TestImportRules(t *testing.T) {
	pkgs := modulePackages(t)
	for name, p := range pkgs {
		if len(p.GoFiles) == 0 {
			continue // test-only, as this one
		}
		if _, ok := rules[name]; !ok {
			t.Errorf("%s has no row in rules (deps_test.go): add its import rule there and in its doc.go", name)
		}
	}
	for name, r := range rules {
		p, ok := pkgs[name]
		if !ok {
			if !r.planned {
				t.Errorf("rules names %s, which does not exist: remove its row, or mark it planned", name)
			}
			continue
		}
		for _, imp := range internal(p.Imports) {
			if r.any || slices.Contains(r.may, imp) {
				continue
			}
			t.Errorf("%s imports %s, which its rule does not allow (deps_test.go, %s/doc.go)", name, imp, name)
		}
		for _, dep := range internal(p.Deps) {
			for _, n := range r.never {
				// node's subpackages are not node; "never node" means node itself.
				if dep == n || (n != "node" && under(dep, n)) {
					t.Errorf("%s depends on %s, which its rule forbids (deps_test.go, %s/doc.go)", name, dep, name)
				}
			}
		}
		tests := append(append([]string{}, p.TestImports...), p.XTestImports...)
		for _, imp := range internal(tests) {
			if imp == name || slices.Contains(forTests, imp) || slices.Contains(r.tests, imp) || slices.Contains(r.may, imp) || r.any {
				continue
			}
			t.Errorf("the tests of %s import %s, which its rule does not allow (deps_test.go)", name, imp)
		}
	}
	for name, p := range pkgs {
		for _, imp := range internal(p.Imports) {
			if allowed, ok := importers[imp]; ok && !slices.Contains(allowed, name) {
				who := strings.Join(allowed, ", ")
				if who == "" {
					who = "tests"
				}
				t.Errorf("%s imports %s, which only %s may import (deps_test.go, %s/doc.go)", name, imp, who, imp)
			}
		}
	}
}

// TestRulesAreInDocs checks that every package has a doc.go with its
// package comment, and that the comment names every package its row
// allows it to import, so the table and the words change together.
func TestRulesAreInDocs(t *testing.T) {
	pkgs := modulePackages(t)
	for name, r := range rules {
		p, ok := pkgs[name]
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.Dir, "doc.go"))
		if err != nil {
			t.Errorf("%s has no doc.go stating what it owns and may import: %v", name, err)
			continue
		}
		doc := string(b)
		if !strings.Contains(doc, "// Package "+p.Name+" ") && !strings.Contains(doc, "// Command "+filepath.Base(name)+" ") {
			t.Errorf("%s/doc.go has no package comment", name)
		}
		words := strings.Join(strings.Fields(strings.ReplaceAll(doc, "//", "")), " ")
		for _, m := range r.may {
			if !strings.Contains(words, m) {
				t.Errorf("%s/doc.go does not name %s, which its rule allows it to import", name, m)
			}
		}
	}
}
