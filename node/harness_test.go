package node_test

import (
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// testPass opens the test nodes' keys.
var testPass = nodetest.Passphrase

// keyConfig is a keyring configuration with test-only scrypt costs.
func keyConfig(dir string) identity.Config { return nodetest.KeyConfig(dir) }

// world is a set of nodes on loopback, optionally with an embedded dev
// chain, built by one harness.
type world struct {
	t   testing.TB
	dev *chain.Devchain
	mu  sync.Mutex
	all []*tnode
}

func newWorld(t testing.TB, withChain bool) *world {
	w := &world{t: t}
	if withChain {
		cfg := chain.DefaultDevchainConfig()
		cfg.Logger = slog.New(slog.DiscardHandler)
		dev, err := chain.StartDevchain(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = dev.Close() })
		w.dev = dev
	}
	return w
}

// tnode is one node of a world with its data directory, so it can be
// stopped and started again.
type tnode struct {
	w    *world
	name string
	dir  string
	gate node.Gate
	cfg  node.Config
	// extra are options added to the harness's own.
	extra []node.Option
	*node.Node
}

type nodeOpt func(*tnode)

func withGate(g node.Gate) nodeOpt { return func(n *tnode) { n.gate = g } }

// withPoll sets how often the node polls the chain for receipts and blocks.
func withPoll(d time.Duration) nodeOpt { return func(n *tnode) { n.cfg.Chain.PollInterval = d } }

func withBootstrap(peers ...*tnode) nodeOpt {
	return func(n *tnode) {
		for _, p := range peers {
			nodetest.Bootstrap(&n.cfg, p.Node)
		}
	}
}

// add creates keys in a fresh data directory and starts a node on them,
// funded with 100 ETH when the world has a chain.
func (w *world) add(name string, opts ...nodeOpt) *tnode {
	t := w.t
	t.Helper()
	dir := nodetest.Keys(t)
	cfg := nodetest.Config(dir, name)
	cfg.FetchTimeout = 10 * time.Second
	if w.dev != nil {
		nodetest.UseChain(&cfg, w.dev)
	}
	n := &tnode{w: w, name: name, dir: dir, gate: node.AutoApprove("test driver"), cfg: cfg}
	for _, o := range opts {
		o(n)
	}
	n.start()
	if w.dev != nil {
		w.fund(n.Address(), big.NewInt(0).Mul(big.NewInt(100), big.NewInt(params.Ether)))
	}
	w.mu.Lock()
	w.all = append(w.all, n)
	w.mu.Unlock()
	return n
}

// start builds and starts the node from its data directory with the
// harness's options, its gate and its extra options.
func (n *tnode) start() {
	t := n.w.t
	t.Helper()
	var opts []node.Option
	if n.gate != nil {
		opts = append(opts, node.WithGate(n.gate))
	}
	n.Node = nodetest.Start(t, n.cfg, append(opts, n.extra...)...)
}

// restart closes the node and starts it again on the same data directory
// and listen address.
func (n *tnode) restart() {
	t := n.w.t
	t.Helper()
	addr := n.Addrs()[0]
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	s := addr.String()
	n.cfg.P2P.Listen = []string{s[:strings.Index(s, "/p2p/")]}
	n.start()
}

// fund sends amount wei to a from a dev account.
func (w *world) fund(a negotiation.Address, amount *big.Int) {
	t := w.t
	t.Helper()
	b, err := chain.DialRPC(t.Context(), w.dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := chain.New(b, w.dev.Deployer.Signer(), w.dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	to := common.Address(a)
	if _, err := c.Transact(t.Context(), &to, amount, nil); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond until it holds (nodetest.Eventually).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	nodetest.Eventually(t, what, cond)
}

// waitState waits until the node's thread nid is in state want.
func (n *tnode) waitState(nid string, want negotiation.State) node.ThreadView {
	t := n.w.t
	t.Helper()
	var v node.ThreadView
	eventually(t, n.name+" to reach "+string(want)+" in "+nid, func() bool {
		var err error
		v, err = n.Thread(nid)
		return err == nil && v.State == want
	})
	return v
}

// connect waits until both nodes know each other's link.
func connect(t testing.TB, a, b *tnode) {
	t.Helper()
	nodetest.Connect(t, a.Node, b.Node)
}

func eth(milli int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(milli), big.NewInt(params.Ether/1000))
}

func spec(title string, amounts ...*big.Int) node.TaskSpec {
	s := node.TaskSpec{Title: title, Category: "translation", Deadline: time.Now().Add(72 * time.Hour)}
	for i, a := range amounts {
		s.Milestones = append(s.Milestones, node.MilestoneSpec{Amount: a, Description: "part " + string(rune('1'+i))})
	}
	return s
}
