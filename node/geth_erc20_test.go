package node_test

import (
	"testing"

	"github.com/parleynet/parley/chain"
)

// TestGethERC20TaskStory runs the whole ERC-20 task (erc20Story) against
// a separate `geth --dev` process built from the go-ethereum module, as
// TestGethTaskStory does for ETH: the TestToken is deployed on geth from
// its developer account, and the nodes reach the chain only through its
// JSON-RPC endpoint.
func TestGethERC20TaskStory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds geth and starts it as a separate process")
	}
	g := startGeth(t, buildGeth(t))

	w := newWorld(t, false)
	poster := w.add("poster", onGeth(g), withPasskeys())
	worker := w.add("worker", onGeth(g), withBootstrap(poster))
	connect(t, poster, worker)
	g.fund(t, eth(10_000), poster.Address(), worker.Address())
	key := enrol(t, poster, "laptop")

	c, err := chain.New(g.RPC, g.Dev, g.clientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	erc20Story(t, poster, worker, func(id string) { approveWith(t, poster, key, id) }, deployTestToken(t, c))
}
