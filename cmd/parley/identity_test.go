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
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/node/nodetest"
)

// TestIdentityCommands: through the node's API on a dev chain, `parley
// identity` looks up the node's own record (not registered), registers
// it (matching), refuses a second registration and a rotation to the
// same link before any approval, and revokes it; `task scope` and
// `dispute raise` reach their routes.
func TestIdentityCommands(t *testing.T) {
	cfg := chain.DefaultDevchainConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	dev, err := chain.StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	n := nodetest.New(t, "poster", func(c *node.Config) { nodetest.UseChain(c, dev) }, node.WithGate(node.AutoApprove("test")))
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
	key := strings.Repeat("c1", 32)
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
	P := []string{"--api", ts.URL, "--api-key-file", keyFile}
	self := n.Address().String()

	if out := ok(t, with(P, "identity", "lookup", self)...); !strings.Contains(out, "not_registered") {
		t.Fatalf("lookup before registering:\n%s", out)
	}
	out := ok(t, with(P, "identity", "register")...)
	if !strings.Contains(out, "matching") || !strings.Contains(out, "mined in block") {
		t.Fatalf("identity register:\n%s", out)
	}
	for _, args := range [][]string{{"identity", "register"}, {"identity", "rotate"}} {
		if r := cli(t, with(P, args...)...); r.e == nil || !strings.Contains(r.err+r.e.Error(), "state_forbidden") {
			t.Fatalf("parley %v: %v\n%s", args, r.e, r.err)
		}
	}
	if out := ok(t, with(P, "identity", "lookup", self, "--json")...); !strings.Contains(out, `"state":"matching"`) {
		t.Fatalf("lookup --json after registering:\n%s", out)
	}
	if out := ok(t, with(P, "identity", "revoke")...); !strings.Contains(out, "not_registered") {
		t.Fatalf("identity revoke:\n%s", out)
	}
	if r := cli(t, with(P, "task", "scope", "0x"+strings.Repeat("ab", 32))...); r.e == nil || !strings.Contains(r.err+r.e.Error(), "unknown_announcement") {
		t.Fatalf("task scope of no announcement: %v\n%s", r.e, r.err)
	}
	if r := cli(t, with(P, "dispute", "raise", "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b")...); r.e == nil || !strings.Contains(r.err+r.e.Error(), "unknown_negotiation") {
		t.Fatalf("dispute raise of no negotiation: %v\n%s", r.e, r.err)
	}
	if r := cli(t, with(P, "task", "post", "--title", "T", "--milestone", "1eth:all", "--publish-scope")...); r.e == nil || !strings.Contains(r.e.Error(), "--scope-file") {
		t.Fatalf("--publish-scope without --scope-file: %v", r.e)
	}
}
