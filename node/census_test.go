package node_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/parleynet/parley/node/nodetest"
)

// TestMain runs the package's tests and then, when every test ran (no
// -run, no -short), checks the payload census (nodetest/census.go): every
// member of every payload type of the seed must have travelled between two
// real nodes, in an envelope the receiving node took, in some test of this
// package. A member no test sends is reported by name, and the run fails.
func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 || !wholeRun() {
		os.Exit(code)
	}
	seen := nodetest.PayloadCensus()
	var missing []string
	for _, member := range nodetest.PayloadMembers() {
		if !seen[member] {
			missing = append(missing, member)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "payload census: %d payload members never travelled between two nodes in this package's tests:\n  %s\n",
			len(missing), strings.Join(missing, "\n  "))
		os.Exit(1)
	}
	os.Exit(0)
}

// wholeRun reports whether every test of the package ran: no -run, -skip
// or -short.
func wholeRun() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return !testing.Short()
}

// TestPayloadMembersNamed: the census knows the members it checks, so an
// empty list cannot pass it (every payload type has members, and PXP's
// and the terms' are among them).
func TestPayloadMembersNamed(t *testing.T) {
	members := nodetest.PayloadMembers()
	for _, want := range []string{"TaskProposal.terms", "Terms.milestones", "PXP.claims", "PaymentRequest.units", "SupervisorVeto.reason", "FileRef.cid"} {
		found := false
		for _, m := range members {
			found = found || m == want
		}
		if !found {
			t.Errorf("the census does not know %s (it knows %d members)", want, len(members))
		}
	}
}
