package main

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.yaml.in/yaml/v3"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
)

// TestContractsDeploy deploys the contracts to a chain over JSON-RPC (the
// embedded dev chain) from a data directory's key, as an operator of a
// real chain would, and checks the printed block names live contracts.
func TestContractsDeploy(t *testing.T) {
	cfg := chain.DefaultDevchainConfig()
	cfg.DataDir, cfg.HTTPPort = t.TempDir(), 0
	dev, err := chain.StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()

	dir := t.TempDir()
	kcfg := identity.DefaultConfig(dir)
	lightKeys(&kcfg)
	kr, err := identity.Create(kcfg, []byte("deployer"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pass := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(pass, []byte("deployer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"contracts", "deploy", "--rpc", dev.URL, "--data-dir", dir, "--passphrase-file", pass}

	// An unfunded key deploys nothing.
	var out syncBuffer
	if err := runChainCmd(t, t.Context(), "", &out, args...); err == nil || !strings.Contains(err.Error(), "no funds") {
		t.Fatalf("unfunded deploy: %v", err)
	}
	fund(t, dev, kr.EVM().Address())
	// Another chain id is refused.
	if err := runChainCmd(t, t.Context(), "", &out, append(args, "--chain-id", "1")...); err == nil || !strings.Contains(err.Error(), "nothing deployed") {
		t.Fatalf("wrong chain id: %v", err)
	}
	if err := runChainCmd(t, t.Context(), "", &out, append(args, "--bond-wei", "-1")...); err == nil {
		t.Fatal("a negative bond was accepted")
	}

	out = syncBuffer{}
	if err := runChainCmd(t, t.Context(), "", &out, append(args, "--chain-id", dev.ChainID.String(), "--review-period", "72h")...); err != nil {
		t.Fatalf("deploy: %v\n%s", err, out.String())
	}
	var doc struct {
		Chain struct {
			RPC       string `yaml:"rpc"`
			ChainID   uint64 `yaml:"chain_id"`
			Contracts struct {
				TaskRegistry      string `yaml:"task_registry"`
				ArbitrationModule string `yaml:"arbitration_module"`
				IdentityLink      string `yaml:"identity_link"`
				TaskScopeRegistry string `yaml:"task_scope_registry"`
				LedgerAnchor      string `yaml:"ledger_anchor"`
				DeployBlock       uint64 `yaml:"deploy_block"`
			} `yaml:"contracts"`
		} `yaml:"chain"`
	}
	if err := yaml.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatalf("the printed block is not YAML: %v\n%s", err, out.String())
	}
	c := doc.Chain.Contracts
	a := chain.Addresses{
		TaskRegistry: common.HexToAddress(c.TaskRegistry), ArbitrationModule: common.HexToAddress(c.ArbitrationModule),
		IdentityLink: common.HexToAddress(c.IdentityLink), TaskScopeRegistry: common.HexToAddress(c.TaskScopeRegistry),
		LedgerAnchor: common.HexToAddress(c.LedgerAnchor), DeployBlock: c.DeployBlock,
	}
	if doc.Chain.RPC != dev.URL || doc.Chain.ChainID != dev.ChainID.Uint64() || a.TaskRegistry == (common.Address{}) || a.TaskRegistry == dev.Contracts.TaskRegistry {
		t.Fatalf("printed block: %+v", doc.Chain)
	}
	b, err := chain.DialRPC(t.Context(), dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := chain.CheckDeployed(t.Context(), b, a); err != nil {
		t.Fatal(err)
	}
	// The printed block is what the config loader reads.
	file := filepath.Join(t.TempDir(), "parley.yaml")
	if err := os.WriteFile(file, []byte(out.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := loadSettings(flagsWith(t, "config", file, "data-dir", dir), envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if s.Node.Chain.Contracts != a || s.Node.Chain.RPC != dev.URL {
		t.Fatalf("loaded %+v, want %+v", s.Node.Chain.Contracts, a)
	}
}

// fund sends 10 ETH from the dev chain's first account to a.
func fund(t *testing.T, dev *chain.Devchain, a common.Address) {
	t.Helper()
	b, err := chain.DialRPC(t.Context(), dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := chain.New(b, dev.Accounts[0].Signer(), dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Transact(t.Context(), &a, new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18)), nil); err != nil {
		t.Fatal(err)
	}
}
