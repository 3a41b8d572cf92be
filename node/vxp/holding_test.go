package vxp

import (
	"fmt"
	"testing"

	pure "github.com/parleynet/parley/vxp"
)

// TestStrangerWritesNothing: a client the principal never granted
// anything (anyone with a Client ID Metadata Document gets a token) makes
// requests, reads the public board and cancels: the node's ledger does not
// grow, its held requests are bounded per client (rate_limited beyond), and
// the request reaches the ledger the first time a grant covers it.
func TestStrangerWritesNothing(t *testing.T) {
	w := newWorld(t)
	nid := w.propose(1000)
	head := w.worker.Ledger().Head()
	var first string
	for i := range MaxHeldPerClient {
		a := w.respond(agentB, fmt.Sprintf("k-%d", i), nid)
		mustStatus(t, "a stranger's request", a, 202, "")
		if i == 0 {
			first = a.str("request_id")
		}
	}
	over := w.respond(agentB, "k-over", nid)
	mustStatus(t, "beyond the bound", over, 429, string(pure.CodeRateLimited))
	if c := w.call("POST", "/requests/"+first+"/cancel", agentB, "", nil); c.status >= 300 {
		t.Fatalf("cancel: %d %s", c.status, c.raw)
	}
	for i := range 3 {
		a := w.call("POST", "/requests", agentB, fmt.Sprintf("board-%d", i), map[string]any{"operation": "board.read", "target": map[string]string{}})
		if a.status >= 300 {
			t.Fatalf("board.read: %d %s", a.status, a.raw)
		}
	}
	if got := w.worker.Ledger().Head(); got != head {
		t.Fatalf("a stranger's requests wrote %d ledger entries", got.Seq-head.Seq)
	}
	// The same key once a grant covers it: the request is written.
	w.grant(agentB, nid, "", "offer.respond")
	a := w.respond(agentB, "k-1", nid)
	mustStatus(t, "covered", a, 200, "")
	r, ok := w.srv.Store().Request(a.str("request_id"))
	if !ok || r.held || r.Seq <= head.Seq {
		t.Fatalf("the covered request is not in the ledger: %+v", r)
	}
}
