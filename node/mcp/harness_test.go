package mcp

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

var harnessPass = []byte("parley mcp test passphrase")

// liveNode is a real node (keys, Badger, libp2p on loopback, no chain,
// every gated act approved by the test gate) with its MCP server on a
// loopback test listener at url, under key.
type liveNode struct {
	*node.Node
	srv *Server
	url string // the MCP endpoint
	key string
}

func harnessLogger(t testing.TB, name string) *slog.Logger {
	if os.Getenv("PARLEY_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelDebug})).With("who", name)
}

type tlog struct{ t testing.TB }

func (w tlog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// startLive creates keys in a fresh data directory, starts a node on
// loopback and serves its MCP endpoint at /mcp as parley node run does.
func startLive(t testing.TB, name, key string, bootstrap ...*liveNode) *liveNode {
	t.Helper()
	dir := t.TempDir()
	kcfg := identity.DefaultConfig(dir)
	kcfg.ScryptWorkFactor = 10
	kcfg.KeystoreScryptN, kcfg.KeystoreScryptP = keystore.LightScryptN, keystore.LightScryptP
	kcfg.KEM = identity.KEMX25519
	if _, err := identity.Create(kcfg, harnessPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Name = dir, name
	cfg.P2P.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.P2P.DHT = false
	cfg.P2P.RetryMax = 500 * time.Millisecond
	cfg.Chain.ChainID = 1337
	cfg.Chain.Contracts.TaskRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	for _, b := range bootstrap {
		cfg.P2P.Bootstrap = append(cfg.P2P.Bootstrap, b.Addrs()[0].String())
	}
	n, err := node.New(cfg,
		node.WithPassphrase(harnessPass),
		node.WithLogger(harnessLogger(t, name)),
		node.WithGate(node.AutoApprove("mcp test")),
		node.WithLedgerTuning(func(c *ledger.Config) {
			c.MemTableSize = 16 << 20
			c.BlockCacheSize = 4 << 20
			c.ValueLogFileSize = 16 << 20
			c.MaxObjectBytes = 1 << 20
			c.MaxBatchBytes = 1 << 20
		}),
		node.WithP2PTuning(func(c *p2p.Config) {
			c.RetryMin = 20 * time.Millisecond
			c.DialTimeout = 5 * time.Second
			c.ResourceMemory = 64 << 20
			c.ResourceFDs = 256
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	srv, err := New(NodeBackend(n), n, Options{
		Key: []byte(key), PeerID: n.PeerID().String(), Address: n.Address(),
		SeatFile: filepath.Join(dir, "mcp", "seats.json"), Logger: harnessLogger(t, name+"/mcp"),
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, srv)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = srv.Close()
		ts.Close()
	})
	return &liveNode{Node: n, srv: srv, url: ts.URL + Path, key: key}
}

// livePair is two nodes that know each other.
func livePair(t testing.TB) (a, b *liveNode) {
	t.Helper()
	a = startLive(t, "alice", testKey)
	b = startLive(t, "bob", "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0", a)
	eventually(t, "the nodes to know each other", func() bool {
		_, ok1 := a.Host().Link(b.Address())
		_, ok2 := b.Host().Link(a.Address())
		return ok1 && ok2
	})
	return a, b
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
