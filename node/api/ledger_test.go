package api

import (
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/node"
)

// fundFromDeployer sends a 1 ETH to a from the dev chain's deployer.
func fundFromDeployer(t *testing.T, dev *chain.Devchain, a common.Address) {
	t.Helper()
	b, err := chain.DialRPC(t.Context(), dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := chain.New(b, dev.Deployer.Signer(), dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Transact(t.Context(), &a, new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil), nil); err != nil {
		t.Fatal(err)
	}
}

// TestLedgerRoutes: POST /v1/ledger/anchor anchors and answers the
// recorded anchor, a second with nothing new is 409 anchor_unchanged;
// GET /v1/ledger/heads shows the head and the anchor; GET
// /v1/ledger/consistency answers a proof from the anchored size to the
// latest head and refuses a bad query, from above to and a size beyond
// the tree; the client reaches each.
func TestLedgerRoutes(t *testing.T) {
	dev := startDevchain(t)
	s := serve(t, startNode(t, nodeSpec{name: "anchorer", dev: dev}), Options{})
	fundFromDeployer(t, dev, common.Address(s.Address()))
	if r := s.post("/v1/ledger/anchor", Empty{}, http.StatusConflict, nil); r.errCode() != string(node.CodeStateForbidden) {
		t.Fatalf("an anchor of an empty ledger: %s", r.body)
	}
	// An entry: a consent state.
	s.post("/v1/consent/0x00000000000000000000000000000000000000A1", ConsentRequest{State: node.ConsentAllowed}, http.StatusOK, nil)
	var a node.TreeAnchorView
	s.post("/v1/ledger/anchor", Empty{}, http.StatusOK, &a)
	if a.Size == 0 || a.TxHash == "" || a.Address != s.Address().String() {
		t.Fatalf("anchor %+v", a)
	}
	if r := s.post("/v1/ledger/anchor", Empty{}, http.StatusConflict, nil); r.errCode() != string(node.CodeAnchorUnchanged) {
		t.Fatalf("a second anchor: %s", r.body)
	}
	var h node.LedgerHeads
	s.get("/v1/ledger/heads", &h)
	if h.Anchor == nil || *h.Anchor != a || h.Head == nil || h.Head.Size != a.Size || h.Budget.Limit != node.DefaultAnchorGasPerDay {
		t.Fatalf("heads %+v", h)
	}
	var c node.Consistency
	s.get("/v1/ledger/consistency?from=1", &c)
	if c.From != 1 || c.To != h.Head.Size || c.ToRoot != h.Head.Root || c.Head == nil {
		t.Fatalf("consistency %+v", c)
	}
	for _, tc := range []struct{ query, code string }{
		{"from=x", CodeBadRequest},
		{"from=3&to=2", string(node.CodeBadArgument)},
		{"from=1&to=100000", string(node.CodeBadArgument)},
	} {
		r := s.do(call{method: http.MethodGet, path: "/v1/ledger/consistency?" + tc.query})
		if r.status != http.StatusBadRequest || r.errCode() != tc.code {
			t.Errorf("%s: %d %s, want 400 %s", tc.query, r.status, r.body, tc.code)
		}
	}
	cl, err := NewClient(s.url, []byte(apiKey))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cl.LedgerHeads(t.Context()); err != nil || got.Anchor == nil || *got.Anchor != a {
		t.Fatalf("client heads %+v %v", got, err)
	}
	if got, err := cl.LedgerConsistency(t.Context(), a.Size, 0); err != nil || got.FromRoot != a.Root {
		t.Fatalf("client consistency %+v %v", got, err)
	}
	if _, err := cl.AnchorLedger(t.Context()); err == nil {
		t.Fatal("the client's second anchor was not refused")
	}
}
