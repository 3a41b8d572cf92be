package node_test

import (
	"log/slog"
	"math/big"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

var testPass = []byte("parley node test passphrase")

// keyConfig is a keyring configuration with test-only scrypt costs.
func keyConfig(dir string) identity.Config {
	cfg := identity.DefaultConfig(dir)
	cfg.ScryptWorkFactor = 10
	cfg.KeystoreScryptN = keystore.LightScryptN
	cfg.KeystoreScryptP = keystore.LightScryptP
	cfg.KEM = identity.KEMX25519
	return cfg
}

// testLogger writes warnings and errors to the test log when
// PARLEY_TEST_LOG is set, and discards otherwise.
func testLogger(t testing.TB, name string) *slog.Logger {
	if os.Getenv("PARLEY_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(tlogWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})).With("who", name)
}

type tlogWriter struct{ t testing.TB }

func (w tlogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

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
			n.cfg.P2P.Bootstrap = append(n.cfg.P2P.Bootstrap, p.Addrs()[0].String())
		}
	}
}

// add creates keys in a fresh data directory and starts a node on them,
// funded with 100 ETH when the world has a chain.
func (w *world) add(name string, opts ...nodeOpt) *tnode {
	t := w.t
	t.Helper()
	dir := t.TempDir()
	if _, err := identity.Create(keyConfig(dir), testPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Name = dir, name
	cfg.P2P.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.P2P.DHT = false
	cfg.P2P.RetryMax = 500 * time.Millisecond
	cfg.Chain.PollInterval = 20 * time.Millisecond
	cfg.FetchTimeout = 10 * time.Second
	if w.dev != nil {
		cfg.Chain.RPC, cfg.Chain.ChainID, cfg.Chain.Contracts = w.dev.URL, w.dev.ChainID.Uint64(), w.dev.Contracts
	} else {
		cfg.Chain.ChainID = 1337
		cfg.Chain.Contracts.TaskRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
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

func (n *tnode) options() []node.Option {
	t := n.w.t
	opts := []node.Option{
		node.WithPassphrase(testPass),
		node.WithLogger(testLogger(t, n.name)),
		node.WithLedgerTuning(func(c *ledger.Config) {
			c.MemTableSize = 16 << 20
			c.BlockCacheSize = 4 << 20
			c.ValueLogFileSize = 16 << 20
			c.MaxObjectBytes = 1 << 20
			c.MaxBatchBytes = 1 << 20
		}),
		node.WithP2PTuning(func(c *p2p.Config) {
			c.RetryMin = 20 * time.Millisecond
			c.AckTimeout = 10 * time.Second
			c.DialTimeout = 5 * time.Second
			c.ResourceMemory = 64 << 20
			c.ResourceFDs = 256
		}),
	}
	if n.gate != nil {
		opts = append(opts, node.WithGate(n.gate))
	}
	return append(opts, n.extra...)
}

// start builds and starts the node from its data directory.
func (n *tnode) start() {
	t := n.w.t
	t.Helper()
	nd, err := node.New(n.cfg, n.options()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := nd.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	n.Node = nd
	t.Cleanup(func() { _ = nd.Close() })
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

// eventually polls cond every 10 ms until it holds or a generous deadline
// passes (the machine is shared: never a sleep as an assertion).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
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
	eventually(t, a.name+" and "+b.name+" to know each other", func() bool {
		_, ok1 := a.Host().Link(b.Address())
		_, ok2 := b.Host().Link(a.Address())
		return ok1 && ok2
	})
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
