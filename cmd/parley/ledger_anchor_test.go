package main

import (
	"log/slog"
	"math/big"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/node/nodetest"
)

// chainAPINode starts a node on dev, funded with 10 ETH, and its API; it
// returns the node and the flags that reach it.
func chainAPINode(t *testing.T, dev *chain.Devchain, name string, bootstrap ...*node.Node) (*node.Node, []string) {
	t.Helper()
	n := nodetest.New(t, name, func(c *node.Config) {
		nodetest.UseChain(c, dev)
		nodetest.Bootstrap(c, bootstrap...)
	})
	b, err := chain.DialRPC(t.Context(), dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	deployer, err := chain.New(b, dev.Deployer.Signer(), dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	to := common.Address(n.Address())
	if _, err := deployer.Transact(t.Context(), &to, new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether)), nil); err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("c2", 32)
	keyFile := filepath.Join(n.Config().DataDir, APIKeyFileName)
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(n, api.Options{Key: []byte(key)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return n, []string{"--api", ts.URL, "--api-key-file", keyFile}
}

// TestLedgerAnchorCommands: `parley ledger anchor` anchors the node's
// tree head and a second with nothing new exits 1 (anchor_unchanged);
// `parley ledger heads` shows the head and the anchor; `parley ledger
// audit` of another node passes an honest one and exits 1 with
// inconsistent_with_anchor once a root its tree does not have is
// anchored from its key.
func TestLedgerAnchorCommands(t *testing.T) {
	cfg := chain.DefaultDevchainConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	dev, err := chain.StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	audited, A := chainAPINode(t, dev, "audited")
	auditor, P := chainAPINode(t, dev, "auditor", audited)
	nodetest.Connect(t, auditor, audited)
	if _, err := audited.ConsentBook().Set(t.Context(), auditor.Address(), node.ConsentAllowed, node.ConsentViaAPI); err != nil {
		t.Fatal(err)
	}

	out := ok(t, with(A, "ledger", "anchor")...)
	if !strings.Contains(out, "anchored size ") || !strings.Contains(out, "from "+audited.Address().String()) {
		t.Fatalf("ledger anchor:\n%s", out)
	}
	if r := cli(t, with(A, "ledger", "anchor")...); r.e == nil || !strings.Contains(r.e.Error(), "anchor_unchanged") {
		t.Fatalf("a second anchor: %v\n%s", r.e, r.out)
	}
	if out := ok(t, with(A, "ledger", "heads")...); !strings.Contains(out, "anchor size ") || !strings.Contains(out, "head   size ") {
		t.Fatalf("ledger heads:\n%s", out)
	}
	if out := ok(t, with(P, "ledger", "audit", "--peer", audited.Address().String())...); !strings.HasPrefix(out, "ok ") {
		t.Fatalf("audit of an honest node:\n%s", out)
	}
	if _, err := audited.ConsentBook().Set(t.Context(), negotiation.Address{1}, node.ConsentDenied, node.ConsentViaAPI); err != nil {
		t.Fatal(err)
	}
	h, err := audited.SignTreeHead(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := audited.Chain().Anchor(t.Context(), [32]byte{0xde, 0xad}, h.Size); err != nil {
		t.Fatal(err)
	}
	r := cli(t, with(P, "ledger", "audit", "--peer", audited.PeerID().String(), "--rpc", dev.URL)...)
	if r.e == nil || !strings.HasPrefix(r.out, node.AuditInconsistent) || !strings.Contains(r.e.Error(), node.AuditInconsistent) {
		t.Fatalf("audit after a rewrite: %v\n%s", r.e, r.out)
	}
	if r := cli(t, with(P, "ledger", "audit")...); r.e == nil || !strings.Contains(r.e.Error(), "--peer") {
		t.Fatalf("audit without --peer: %v", r.e)
	}
}

// TestDevChainAnchorsByDefault: what parley init and parley devnet write
// for the dev chain anchors every ten minutes within the default gas
// budget; a node's own defaults anchor only on a dispute or on demand.
func TestDevChainAnchorsByDefault(t *testing.T) {
	for _, role := range []string{"poster", "worker", "arbitrator"} {
		s, err := roleSettings(role)
		if err != nil {
			t.Fatal(err)
		}
		if s.Node.Ledger.AnchorEvery != node.DevAnchorEvery || s.Node.Ledger.AnchorGasPerDay != node.DefaultAnchorGasPerDay {
			t.Errorf("parley init --role %s: ledger %+v", role, s.Node.Ledger)
		}
	}
	d := devnetSettings("poster", devnetPorts{P2P: 4010, Metrics: 9474, API: 7474, Web: 7490}, nil, "http://127.0.0.1:8545", 1337, devchainContracts)
	if d.Node.Ledger.AnchorEvery != node.DevAnchorEvery {
		t.Errorf("devnet: ledger %+v", d.Node.Ledger)
	}
	if c := node.DefaultConfig(); c.Ledger.AnchorEvery != 0 || c.Ledger.HeadEvery != node.DefaultHeadEvery {
		t.Errorf("node defaults: ledger %+v", c.Ledger)
	}
	// The keys load, and a bad value names its key.
	dir := t.TempDir()
	s, err := loadSettings(flagsWith(t, "ledger-anchor-every", "5m", "ledger-anchor-gas-per-day", "100000"), envOf(map[string]string{"PARLEY_DATA_DIR": dir}))
	if err != nil || s.Node.Ledger.AnchorEvery.Minutes() != 5 || s.Node.Ledger.AnchorGasPerDay != 100000 {
		t.Fatalf("flags: %+v %v", s.Node.Ledger, err)
	}
	if _, err := loadSettings(flagsWith(t), envOf(map[string]string{"PARLEY_DATA_DIR": dir, "PARLEY_LEDGER_HEAD_EVERY": "10ms"})); err == nil || !strings.Contains(err.Error(), "ledger.head_every") {
		t.Fatalf("a head interval under a second: %v", err)
	}
}
