package node_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// TestStatusShowsAnnounceAndReachability runs a node configured with an
// announce address and a forced reachability: its status shows both, and
// the listen address it does not advertise.
func TestStatusShowsAnnounceAndReachability(t *testing.T) {
	dir := t.TempDir()
	if _, err := identity.Create(keyConfig(dir), testPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := node.DefaultConfig()
	cfg.DataDir = dir
	cfg.P2P.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.P2P.DHT = false
	cfg.P2P.Announce = []string{"/ip4/127.0.0.2/tcp/4001"}
	cfg.P2P.Reachability = "private"
	n, err := node.New(cfg, node.WithPassphrase(testPass))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := n.Status()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"/ip4/127.0.0.2/tcp/4001/p2p/" + st.PeerID}
		if st.Network.Reachability == p2p.ReachPrivate && slices.Equal(st.Network.Announced, want) && slices.Equal(st.Addrs, want) &&
			len(st.Network.Listen) == 1 && strings.HasPrefix(st.Network.Listen[0], "/ip4/127.0.0.1/tcp/") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Status.Network = %+v, addrs %v: want private, announcing %v, listening on loopback", st.Network, st.Addrs, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func validConfig(t *testing.T) node.Config {
	cfg := node.DefaultConfig()
	cfg.DataDir = t.TempDir()
	return cfg
}

// storeAddr is an EIP-55 address a store node may serve.
const storeAddr = "0x52908400098527886E0F7030069857D2E4169EE7"

func TestConfigValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		key    string
		change func(*node.Config)
	}{
		{"data_dir", func(c *node.Config) { c.DataDir = " " }},
		{"p2p.listen", func(c *node.Config) { c.P2P.Listen = nil }},
		{"p2p.listen", func(c *node.Config) { c.P2P.Listen = []string{"127.0.0.1:4001"} }},
		{"p2p.bootstrap", func(c *node.Config) { c.P2P.Bootstrap = []string{"/ip4/127.0.0.1/tcp/4001"} }},
		{"p2p.retry_max", func(c *node.Config) { c.P2P.RetryMax = time.Millisecond }},
		{"p2p.mailbox_poll", func(c *node.Config) { c.P2P.MailboxPoll = time.Millisecond }},
		{"p2p.announce", func(c *node.Config) { c.P2P.Announce = []string{"203.0.113.7:4001"} }},
		{"p2p.announce", func(c *node.Config) { c.P2P.Announce = []string{"/ip4/0.0.0.0/tcp/4001"} }},
		{"p2p.announce", func(c *node.Config) {
			c.P2P.Announce = []string{"/ip4/203.0.113.7/tcp/4001/p2p/12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN"}
		}},
		{"p2p.announce", func(c *node.Config) { c.P2P.Announce = slices.Repeat([]string{"/ip4/203.0.113.7/tcp/4001"}, 9) }},
		{"p2p.relays", func(c *node.Config) { c.P2P.Relays = []string{"/ip4/203.0.113.9/tcp/4001"} }},
		{"p2p.relays", func(c *node.Config) {
			c.P2P.Relays = slices.Repeat([]string{"/ip4/203.0.113.9/tcp/4001/p2p/12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN"}, 17)
		}},
		{"p2p.reachability", func(c *node.Config) { c.P2P.Reachability = "relayed" }},
		{"chain.rpc", func(c *node.Config) { c.Chain.RPC = "ftp://127.0.0.1:8545" }},
		{"chain.contracts", func(c *node.Config) { c.Chain.RPC = "http://127.0.0.1:8545" }},
		{"chain.confirmations", func(c *node.Config) { c.Chain.Confirmations = 0 }},
		{"chain.poll_interval", func(c *node.Config) { c.Chain.PollInterval = time.Microsecond }},
		{"approval.ttl", func(c *node.Config) { c.ApprovalTTL = time.Hour }},
		{"approval.ttl", func(c *node.Config) { c.ApprovalTTL = time.Second }},
		{"fetch_timeout", func(c *node.Config) { c.FetchTimeout = 0 }},
		{"capabilities", func(c *node.Config) { c.Capabilities = []string{""} }},
		{"store.serve", func(c *node.Config) { c.Store.Enabled = true }},
		{"store.serve", func(c *node.Config) { c.Store.Enabled, c.Store.Serve = true, []string{"0xabc"} }},
		{"store.serve", func(c *node.Config) {
			// Not EIP-55 checksummed.
			c.Store.Enabled, c.Store.Serve = true, []string{"0x52908400098527886e0f7030069857d2e4169ee7"}
		}},
		{"store.serve", func(c *node.Config) {
			c.Store.Enabled, c.Store.Serve = true, []string{storeAddr, storeAddr}
		}},
		{"store.enabled", func(c *node.Config) { c.Store.Serve = []string{storeAddr} }},
		{"store.enabled", func(c *node.Config) { c.Store.Open = true }},
		{"store.open", func(c *node.Config) { c.Store.Enabled, c.Store.Open, c.Store.Serve = true, true, []string{storeAddr} }},
		{"store.max_recipients", func(c *node.Config) { c.Store.MaxRecipients = 0 }},
		{"store.quota_items", func(c *node.Config) { c.Store.QuotaItems = 0 }},
		{"store.quota_items", func(c *node.Config) { c.Store.QuotaItems = 2_000_000 }},
		{"store.quota_bytes", func(c *node.Config) { c.Store.QuotaBytes = 1024 }},
		{"store.quota_per_sender", func(c *node.Config) { c.Store.QuotaPerSender = 0 }},
		{"store.retention", func(c *node.Config) { c.Store.Retention = time.Second }},
		{"store.retention", func(c *node.Config) { c.Store.Retention = 400 * 24 * time.Hour }},
	} {
		t.Run(tc.key, func(t *testing.T) {
			cfg := validConfig(t)
			if err := cfg.Validate(); err != nil {
				t.Fatalf("the valid config fails: %v", err)
			}
			tc.change(&cfg)
			err := cfg.Validate()
			if !errors.Is(err, node.ErrBadConfig) || !strings.Contains(err.Error(), tc.key+":") {
				t.Fatalf("Validate = %v, want bad_config naming %s", err, tc.key)
			}
			if _, err := node.New(cfg, node.WithPassphrase(testPass)); !errors.Is(err, node.ErrBadConfig) {
				t.Fatalf("New accepted a config Validate refuses: %v", err)
			}
		})
	}
}

func TestNewRejectsNilAndConflictingOptions(t *testing.T) {
	sim := chain.StartSimulated(nil)
	t.Cleanup(sim.Close)
	withRPC := func(t *testing.T) node.Config {
		c := validConfig(t)
		c.Chain.RPC = "http://127.0.0.1:8545"
		c.Chain.Contracts = chain.Addresses{
			TaskRegistry: common.Address{1}, ArbitrationModule: common.Address{2}, IdentityLink: common.Address{3},
			TaskScopeRegistry: common.Address{4}, LedgerAnchor: common.Address{5},
		}
		return c
	}
	for _, tc := range []struct {
		name string
		cfg  func(*testing.T) node.Config
		opts []node.Option
	}{
		{"no passphrase", validConfig, nil},
		{"empty passphrase", validConfig, []node.Option{node.WithPassphrase(nil)}},
		{"passphrase twice", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithPassphrase(testPass)}},
		{"nil option", validConfig, []node.Option{node.WithPassphrase(testPass), nil}},
		{"nil logger", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithLogger(nil)}},
		{"nil registerer", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithRegisterer(nil)}},
		{"nil clock", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithClock(nil)}},
		{"nil gate", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithGate(nil)}},
		{"two gates", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithGate(node.AutoApprove("a")), node.WithGate(node.AutoApprove("b"))}},
		{"nil backend", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithChainBackend(nil)}},
		{"backend and rpc", withRPC, []node.Option{node.WithPassphrase(testPass), node.WithChainBackend(sim)}},
		{"backend without contracts", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithChainBackend(sim)}},
		{"nil ledger tuning", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithLedgerTuning(nil)}},
		{"nil p2p tuning", validConfig, []node.Option{node.WithPassphrase(testPass), node.WithP2PTuning(nil)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := node.New(tc.cfg(t), tc.opts...); !errors.Is(err, node.ErrBadConfig) {
				t.Fatalf("New = %v, want bad_config", err)
			}
		})
	}
}

// TestLifecycle starts a node without a chain, checks that Close is safe
// twice and that a closed node cannot start again; a wrong passphrase
// fails Start and releases everything (the ledger opens again).
func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	if _, err := identity.Create(keyConfig(dir), testPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := node.DefaultConfig()
	cfg.DataDir = dir
	cfg.P2P.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.P2P.DHT = false
	cfg.Chain.ChainID = 1337
	cfg.Chain.Contracts.TaskRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")

	bad, err := node.New(cfg, node.WithPassphrase([]byte("wrong")))
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Start(t.Context()); !errors.Is(err, identity.ErrWrongPassphrase) {
		t.Fatalf("Start with a wrong passphrase = %v", err)
	}
	if err := bad.Start(t.Context()); err == nil {
		t.Fatal("a node whose Start failed started again")
	}

	reg := prometheus.NewRegistry()
	n, err := node.New(cfg, node.WithPassphrase(testPass), node.WithRegisterer(reg))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Status(); !errors.Is(err, node.ErrNotStarted) {
		t.Fatalf("Status before Start = %v", err)
	}
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); !errors.Is(err, node.ErrStarted) {
		t.Fatalf("second Start = %v", err)
	}
	st, err := n.Status()
	if err != nil || st.PeerID == "" || len(st.Addrs) == 0 || st.Chain || st.Address != n.Address() {
		t.Fatalf("Status = %+v, %v", st, err)
	}
	if !strings.Contains(st.Addrs[0], "/ip4/127.0.0.1/") {
		t.Fatalf("listening on %s, want loopback", st.Addrs[0])
	}
	if st.Network.Reachability != p2p.ReachUnknown || len(st.Network.Listen) != 1 || !slices.Equal(st.Network.Announced, st.Addrs) || len(st.Network.Peers) != 0 {
		t.Fatalf("Status.Network = %+v, want unknown, one listen address, announced as addrs, no peers", st.Network)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		if mf.GetName() == "parley_node_threads" {
			found = true
		}
	}
	if !found {
		t.Fatal("the node's metrics are not in the registry it was given")
	}
	if _, err := n.PostTask(t.Context(), spec("x", eth(1))); err != nil {
		t.Fatalf("PostTask on a node without peers or chain: %v", err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := n.Start(t.Context()); err == nil {
		t.Fatal("a closed node started again")
	}
	if _, err := n.PostTask(t.Context(), spec("x", eth(1))); !errors.Is(err, node.ErrNotStarted) {
		t.Fatalf("PostTask after Close = %v", err)
	}
	// The same data directory opens again: everything was released, and
	// the announcement is still on the board (rebuilt from the ledger).
	again, err := node.New(cfg, node.WithPassphrase(testPass))
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if b := again.Board(); len(b) != 1 || !b[0].Own {
		t.Fatalf("board after restart = %+v", b)
	}
}
