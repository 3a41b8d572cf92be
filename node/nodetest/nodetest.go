package nodetest

import (
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// Passphrase opens the keys Keys creates; Options passes it to the node.
var Passphrase = []byte("parley node test passphrase")

// Registry is the task registry address a chain-less test node is
// configured with, so it can make offers and sign settlements.
var Registry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")

// ChainID is a chain-less test node's chain id.
const ChainID = 1337

// KeyConfig returns the keyring configuration of data directory dir with
// test-strength costs: a low scrypt work factor for the identity, light
// keystore scrypt, and X25519 for sealing.
func KeyConfig(dir string) identity.Config {
	cfg := identity.DefaultConfig(dir)
	cfg.ScryptWorkFactor = 10
	cfg.KeystoreScryptN, cfg.KeystoreScryptP = keystore.LightScryptN, keystore.LightScryptP
	cfg.KEM = identity.KEMX25519
	return cfg
}

// Keys creates keys (KeyConfig, Passphrase) in a fresh t.TempDir() and
// returns that directory, a node's data directory.
func Keys(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := identity.Create(KeyConfig(dir), Passphrase, time.Now()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Config returns the configuration of a node named name on data
// directory dir: listening on loopback only, no DHT, quick p2p retries
// and chain polling, and no chain RPC but ChainID and Registry set
// (UseChain points it at a dev chain).
func Config(dir, name string) node.Config {
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Name = dir, name
	cfg.P2P.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.P2P.DHT = false
	cfg.P2P.RetryMax = 500 * time.Millisecond
	cfg.Chain.PollInterval = 20 * time.Millisecond
	cfg.Chain.ChainID = ChainID
	cfg.Chain.Contracts.TaskRegistry = Registry
	return cfg
}

// UseChain points cfg at the dev chain dev: its RPC endpoint, chain id
// and contracts.
func UseChain(cfg *node.Config, dev *chain.Devchain) {
	cfg.Chain.RPC, cfg.Chain.ChainID, cfg.Chain.Contracts = dev.URL, dev.ChainID.Uint64(), dev.Contracts
}

// Bootstrap adds each peer's first listen address to cfg's bootstrap
// peers.
func Bootstrap(cfg *node.Config, peers ...*node.Node) {
	for _, p := range peers {
		cfg.P2P.Bootstrap = append(cfg.P2P.Bootstrap, p.Addrs()[0].String())
	}
}

// Options returns the options every test node takes: Passphrase, Logger
// named name, and small Badger and libp2p limits (memory tables, caches,
// value log files, resource manager) with quick retries and timeouts.
func Options(t testing.TB, name string) []node.Option {
	return []node.Option{
		node.WithPassphrase(Passphrase),
		node.WithLogger(Logger(t, name)),
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
}

// Start builds a node from cfg with Options(t, cfg.Name) and opts, starts
// it and returns it; when the test ends, the payload members of the
// envelopes it received go into the census (census.go) and it is closed. cfg's data
// directory holds keys (Keys).
func Start(t testing.TB, cfg node.Config, opts ...node.Option) *node.Node {
	t.Helper()
	n, err := node.New(cfg, append(Options(t, cfg.Name), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		recordCensus(n)
		_ = n.Close()
	})
	return n
}

// New creates keys in a fresh data directory and starts a chain-less node
// named name on them (Config, then edit when not nil; Start with opts).
func New(t testing.TB, name string, edit func(*node.Config), opts ...node.Option) *node.Node {
	t.Helper()
	cfg := Config(Keys(t), name)
	if edit != nil {
		edit(&cfg)
	}
	return Start(t, cfg, opts...)
}

// Connect waits until a and b each know the other's link.
func Connect(t testing.TB, a, b *node.Node) {
	t.Helper()
	Eventually(t, a.Config().Name+" and "+b.Config().Name+" to know each other", func() bool {
		_, ok1 := a.Host().Link(b.Address())
		_, ok2 := b.Host().Link(a.Address())
		return ok1 && ok2
	})
}

// CopyDir copies a stopped node's data directory (its stores, keys and
// records) into a new temporary directory and returns it: the tests that
// damage a store work on a copy. Directories are 0700, files 0600.
func CopyDir(t testing.TB, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Eventually polls cond every 10 ms until it holds, and fails the test
// when a generous deadline (a minute) passes first: the machine may be
// shared, so a wait is never a sleep followed by an assertion.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Logger returns a logger that writes every record to the test log,
// attributed to name, when PARLEY_TEST_LOG is set, and discards
// otherwise.
func Logger(t testing.TB, name string) *slog.Logger {
	if os.Getenv("PARLEY_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelDebug})).With("who", name)
}

// testLog writes a log record to the test log.
type testLog struct{ t testing.TB }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
