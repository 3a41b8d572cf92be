package node_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/node"
)

// revChain is go-ethereum's simulated chain with the contracts deployed,
// for tests that move the chain's clock (the review period): the nodes
// of a world talk to it in process (node.WithChainBackend).
type revChain struct {
	t      testing.TB
	sim    *chain.Simulated
	addrs  chain.Addresses
	review time.Duration
	funder *chain.Client
}

// newRevChain starts a simulated chain whose review period is review and
// deploys the contracts on it.
func newRevChain(t testing.TB, review time.Duration) *revChain {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	alloc := types.GenesisAlloc{crypto.PubkeyToAddress(key.PublicKey): {Balance: new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))}}
	sim := chain.StartSimulated(alloc)
	t.Cleanup(sim.Close)
	cfg := chain.DefaultConfig()
	cfg.PollInterval = 5 * time.Millisecond
	dc := chain.DefaultDeployConfig()
	dc.ReviewPeriod = review
	s := chain.NewKeySigner(key)
	addrs, err := chain.Deploy(t.Context(), sim, s, cfg, dc, nil)
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	cfg.Contracts = addrs
	funder, err := chain.New(sim, s, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &revChain{t: t, sim: sim, addrs: addrs, review: review, funder: funder}
}

// on makes a node of a chain-less world talk to the simulated chain.
func (c *revChain) on() nodeOpt {
	return func(n *tnode) {
		n.cfg.Chain.RPC, n.cfg.Chain.ChainID, n.cfg.Chain.Contracts = "", 1337, c.addrs
		n.extra = append(n.extra, node.WithChainBackend(c.sim))
	}
}

// add adds a node on the chain to w, funded with 100 ETH.
func (c *revChain) add(w *world, name string, opts ...nodeOpt) *tnode {
	c.t.Helper()
	n := w.add(name, append([]nodeOpt{c.on()}, opts...)...)
	to := common.Address(n.Address())
	if _, err := c.funder.Transact(c.t.Context(), &to, new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether)), nil); err != nil {
		c.t.Fatal(err)
	}
	return n
}

// task reads the task of thread view v.
func (c *revChain) task(v node.ThreadView) chain.Task {
	c.t.Helper()
	id, err := chain.ParseTaskID(v.TaskID)
	if err != nil {
		c.t.Fatal(err)
	}
	task, err := c.funder.TaskState(c.t.Context(), id)
	if err != nil {
		c.t.Fatal(err)
	}
	return task
}

// later moves the chain's clock d on.
func (c *revChain) later(d time.Duration) {
	c.t.Helper()
	if err := c.sim.AdjustTime(d); err != nil {
		c.t.Fatal(err)
	}
}

// revPair is a poster and a worker on a simulated chain, connected.
func revPair(t *testing.T, review time.Duration, posterOpts ...nodeOpt) (c *revChain, poster, worker *tnode) {
	t.Helper()
	c = newRevChain(t, review)
	w := newWorld(t, false)
	poster = c.add(w, "poster", posterOpts...)
	worker = c.add(w, "worker", withBootstrap(poster))
	connect(t, poster, worker)
	return c, poster, worker
}
