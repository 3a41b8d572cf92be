package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/spf13/cobra"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/node/demo"
	"github.com/parleynet/parley/node/testbed"
	"github.com/parleynet/parley/p2p"
)

func newTestbedCmd() *cobra.Command {
	var o testbedOptions
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "Build real hosts in network namespaces (NAT, relays, store nodes) and play Parley across them (root)",
		Long: "Builds, in Linux network namespaces on this machine, an internet (a bridge with public addresses of\n" +
			"the testbed's own, linked to nothing else), public hosts (two bootstrap + relay + store nodes, two more\n" +
			"public peers, the dev chain), two home routers that masquerade and drop what arrives unasked, each with\n" +
			"one node behind it (the poster, the worker), and a third router with a shared LAN (the arbitrator and\n" +
			"one more node); one `parley node run` process per host and `parley devchain` on its own. Then it plays\n" +
			"its scenarios and prints, for each, what happened and its figures: the demo story between the NAT'd\n" +
			"poster and worker over the relays alone, then again with hole punching (which path each envelope\n" +
			"took); the worker's link cut mid-negotiation and restored; the worker killed and restarted on another\n" +
			"host; the store node killed; a node started with a bootstrap node gone. Every ledger is verified at\n" +
			"the end. Needs root, iproute2 and iptables (scripts/install-testbed.sh); removes every namespace it\n" +
			"made, also when it fails (PARLEY_TESTBED_HOLD=5m keeps a failed run's hosts up that long first,\n" +
			"to look at them). docs/p2p.md \"Running nodes across the internet\" is what it follows.",
		Example: "  sudo make testbed\n  parley testbed --short --keep --dir /tmp/tb",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.dir == "" {
				tmp, err := os.MkdirTemp("", "parley-testbed-")
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				if !o.keep {
					defer os.RemoveAll(tmp)
				}
				o.dir = tmp
			}
			if err := runTestbed(cmd.Context(), cmd.OutOrStdout(), o); err != nil {
				return &exitError{code: 1, err: err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&o.dir, "dir", "", "directory for the hosts' data and logs (default: a temporary one, removed afterwards)")
	cmd.Flags().BoolVar(&o.keep, "keep", false, "keep the temporary directory afterwards")
	cmd.Flags().BoolVar(&o.short, "short", false, "the short run: no demo story, only the network scenarios")
	cmd.Flags().DurationVar(&o.wait, "wait", 90*time.Second, "how long one step may wait for something to happen")
	cmd.Flags().StringVar(&o.prefix, "prefix", "ptb", "prefix of the namespaces' names")
	cmd.Flags().IntVar(&o.scale, "scale", 0, "instead of the scenarios, start this many nodes on as many public hosts and measure the task board's reach, memory and connections")
	cmd.Flags().BoolVar(&o.light, "insecure-light-keys", false, "encrypt new keys with test-strength scrypt (tests only)")
	_ = cmd.Flags().MarkHidden("insecure-light-keys")
	return cmd
}

type testbedOptions struct {
	dir, prefix string
	keep, short bool
	light       bool
	scale       int
	wait        time.Duration
}

// tbRole is what a testbed node is for.
type tbRole struct {
	name  string
	host  string
	store bool // bootstrap + relay + store node
	party bool // plays the story: a funded account and a passkey
	scale bool // a node of the scale run: public, approvals auto
}

// tbNode is one node of the testbed: its keys and data directory, its
// current host and process, and a client of its API.
type tbNode struct {
	tbRole
	dir, cfg string
	pub      *identity.PublicInfo
	proc     *testbed.Proc
	hc       *http.Client
	api      *api.Client
	key      *approval.SoftwareKey
	keyPath  string
	opts     tbNodeOpts
	starts   int
}

// tbNodeOpts are the settings a node is started with beyond its role's.
type tbNodeOpts struct {
	nat        bool // p2p.nat: AutoNAT, hole punching
	noBoot     bool // no bootstrap peers at all
	bootstraps []string
}

type tb struct {
	ctx  context.Context
	out  io.Writer
	o    testbedOptions
	exe  string
	net  *testbed.Net
	topo *testbed.Topology
	rep  *testbed.Report
	pass []byte

	chainProc *testbed.Proc
	chain     devchainInfo

	nodes map[string]*tbNode
	all   []*tbNode // every node made, also those a scenario replaced
}

const (
	tbP2PPort     = 4001
	tbAPIPort     = 7464
	tbWebPort     = 7465
	tbMetricsPort = 9464
	tbChainPort   = 8545
)

// runTestbed builds the testbed, plays its scenarios and tears it down.
func runTestbed(ctx context.Context, out io.Writer, o testbedOptions) (err error) {
	start := time.Now()
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	t := &tb{ctx: ctx, out: out, o: o, exe: exe, rep: testbed.NewReport(out), nodes: map[string]*tbNode{}}
	if t.net, err = testbed.NewNet(o.prefix, func(f string, a ...any) { fmt.Fprintf(out, f+"\n", a...) }); err != nil {
		return err
	}
	defer func() {
		if err != nil && os.Getenv("PARLEY_TESTBED_HOLD") != "" {
			// For a person debugging a failure: the hosts stay up a while.
			fmt.Fprintf(out, "holding the testbed for %s (PARLEY_TESTBED_HOLD)\n", os.Getenv("PARLEY_TESTBED_HOLD"))
			if d, perr := time.ParseDuration(os.Getenv("PARLEY_TESTBED_HOLD")); perr == nil {
				time.Sleep(d)
			}
		}
		_ = t.stopAll()
		cerr := t.net.Close()
		left, lerr := t.net.Left()
		switch {
		case cerr != nil:
			fmt.Fprintf(out, "tearing down: %v\n", cerr)
		case lerr == nil && len(left) > 0:
			cerr = fmt.Errorf("namespaces left after teardown: %v", left)
		default:
			fmt.Fprintf(out, "\nevery namespace removed (%s-*)\n", o.prefix)
		}
		fmt.Fprintf(out, "\nsummary (%s):\n%s", time.Since(start).Round(time.Second), t.rep.Summary())
		if err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(out, "testbed FAILED: %v\nlogs in %s\n", err, o.dir)
		} else {
			fmt.Fprintln(out, "testbed passed")
		}
	}()
	if o.scale > 0 {
		if err := t.rep.Run("the internet and the chain", t.startChainOnly); err != nil {
			return err
		}
		return t.rep.Run(fmt.Sprintf("%d nodes on %d hosts", o.scale, o.scale), func(s *testbed.Scenario) error { return runTestbedScale(ctx, t, s, o.scale) })
	}
	if err := t.rep.Run("build the hosts", t.build); err != nil {
		return err
	}
	if err := t.rep.Run("start the chain and the nodes", t.startAll); err != nil {
		return err
	}
	if !o.short {
		if err := t.rep.Run("the story over the relays alone (hole punching off)", func(s *testbed.Scenario) error { return t.story(s, false) }); err != nil {
			return err
		}
		if err := t.rep.Run("the story with hole punching", func(s *testbed.Scenario) error { return t.story(s, true) }); err != nil {
			return err
		}
	} else {
		if err := t.rep.Run("a negotiation between the NAT'd nodes", t.relayedNegotiation); err != nil {
			return err
		}
	}
	for _, sc := range []struct {
		name string
		f    func(*testbed.Scenario) error
	}{
		{"two nodes on a shared LAN", t.lan},
		{"partition: the worker's link cut mid-negotiation and restored", t.partition},
		{"the worker killed and restarted on another host", t.move},
		{"the store node killed: the sender retries", t.storeKilled},
		{"a node started while a bootstrap node is gone", t.bootstrapGone},
		{"every ledger verified", t.verifyLedgers},
	} {
		if err := t.rep.Run(sc.name, sc.f); err != nil {
			return err
		}
	}
	return nil
}

// build makes the internet, the routers and the hosts.
func (t *tb) build(s *testbed.Scenario) error {
	topo, err := testbed.NewTopology(t.net)
	if err != nil {
		return err
	}
	t.topo = topo
	for _, h := range []struct {
		name  string
		octet int
	}{{"pub1", 11}, {"pub2", 12}, {"pub3", 13}, {"pub4", 14}, {"pub5", 15}, {"chain", 20}} {
		if _, err := topo.PublicHost(h.name, h.octet); err != nil {
			return err
		}
	}
	for _, r := range []struct {
		name  string
		octet int
		lan   string
	}{{"nat1", 101, "192.168.1"}, {"nat2", 102, "192.168.2"}, {"nat3", 103, "192.168.3"}} {
		if _, err := topo.AddRouter(r.name, r.octet, r.lan); err != nil {
			return err
		}
	}
	for _, h := range []struct {
		name, router string
		octet        int
	}{{"poster", "nat1", 2}, {"worker", "nat2", 2}, {"arbitrator", "nat3", 2}, {"lan2", "nat3", 3}} {
		if _, err := topo.PrivateHost(h.name, h.router, h.octet); err != nil {
			return err
		}
	}
	for _, l := range strings.Split(strings.TrimRight(topo.Describe(), "\n"), "\n") {
		s.Printf("%s", l)
	}
	// The NAT is real: a host behind one router cannot open a connection
	// to a host behind another, while both reach the internet.
	if err := t.net.In("poster", "sh", "-c", "exec 3<>/dev/tcp/"+topo.Hosts["worker"].Addr+"/9 2>/dev/null"); err == nil {
		return errors.New("the poster's host reached the worker's private address: the routers do not isolate their LANs")
	}
	s.Printf("checked: the poster's host cannot reach the worker's LAN address %s", topo.Hosts["worker"].Addr)
	return nil
}

// tbPublic are the public nodes, every other node's bootstrap peers:
// four, since go-libp2p confirms a node's observed address (its NAT's
// mapping, which hole punching needs) once four peers of different IPs
// report it.
var tbPublic = []string{"pub1", "pub2", "pub3", "pub4"}

// roles are the testbed's nodes (pub5 is where the worker moves to).
var tbRoles = []tbRole{
	{name: "pub1", host: "pub1", store: true},
	{name: "pub2", host: "pub2", store: true},
	{name: "pub3", host: "pub3"},
	{name: "pub4", host: "pub4"},
	{name: "poster", host: "poster", party: true},
	{name: "worker", host: "worker", party: true},
	{name: "arbitrator", host: "arbitrator", party: true},
	{name: "lan2", host: "lan2", party: true},
}

// startChainOnly builds the internet with the chain's host alone and
// starts the chain (the scale run adds its own hosts).
func (t *tb) startChainOnly(s *testbed.Scenario) error {
	topo, err := testbed.NewTopology(t.net)
	if err != nil {
		return err
	}
	t.topo = topo
	if _, err := topo.PublicHost("chain", 10); err != nil {
		return err
	}
	return t.startChain(s)
}

// startAll starts the dev chain, makes every node's keys, funds the
// parties, writes each node's configuration and starts them all.
func (t *tb) startAll(s *testbed.Scenario) error {
	began := time.Now()
	if err := t.startChain(s); err != nil {
		return err
	}
	for _, r := range tbRoles {
		n, err := t.newNode(r, "")
		if err != nil {
			return err
		}
		t.nodes[r.name] = n
	}
	funded := 0
	for _, r := range tbRoles {
		if r.party {
			if err := t.fund(t.nodes[r.name], funded); err != nil {
				return err
			}
			funded++
		}
	}
	s.Printf("funded %d parties' accounts over the chain host's JSON-RPC", funded)
	for _, r := range tbRoles {
		if err := t.startNode(t.nodes[r.name], tbNodeOpts{}); err != nil {
			return err
		}
	}
	for _, r := range tbRoles {
		if err := t.ready(t.nodes[r.name]); err != nil {
			return err
		}
	}
	for _, r := range tbRoles {
		n := t.nodes[r.name]
		if err := t.until(n.name+" to connect", func() (bool, error) {
			st, err := n.api.Status(t.ctx)
			return err == nil && st.Network.Direct+st.Network.Relayed > 0, err
		}); err != nil {
			return err
		}
	}
	s.Printf("%d nodes up and connected in %s (keys, funding, processes, passkeys)", len(tbRoles), time.Since(began).Round(100*time.Millisecond))
	return t.describeNodes(s)
}

// startChain starts the dev chain on its host and reads its addresses,
// and makes the run's passphrase.
func (t *tb) startChain(s *testbed.Scenario) error {
	if err := os.MkdirAll(t.o.dir, 0o700); err != nil {
		return err
	}
	chainHost := t.topo.Hosts["chain"]
	var err error
	t.chainProc, err = t.net.Start("devchain", "chain", filepath.Join(t.o.dir, "devchain.log"), t.exe, "devchain",
		"--ephemeral", "--http-host", chainHost.Addr, "--http-port", fmt.Sprint(tbChainPort), "--json", "--accounts", "16")
	if err != nil {
		return err
	}
	line, err := t.chainProc.WaitLine(t.ctx, `"rpcUrl"`, t.o.wait)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(line[strings.Index(line, "{"):]), &t.chain); err != nil {
		return fmt.Errorf("the devchain's line %q: %w", line, err)
	}
	s.Printf("dev chain on %s: %s, chain id %s, TaskRegistry %s", chainHost.Name, t.chain.RPCURL, t.chain.ChainID, t.chain.Contracts.TaskRegistry.Hex())

	passFile := filepath.Join(t.o.dir, "passphrase")
	if _, err := os.Stat(passFile); errors.Is(err, os.ErrNotExist) {
		var p [24]byte
		_, _ = rand.Read(p[:])
		if err := writeNew(passFile, []byte(hex.EncodeToString(p[:])+"\n"), 0o600); err != nil {
			return err
		}
	}
	pass, err := identity.PassphraseSource{File: passFile}.Read(false)
	if err != nil {
		return err
	}
	t.pass = pass
	return nil
}

// newNode makes a node's keys in <dir>/<phase>/<role>.
func (t *tb) newNode(r tbRole, phase string) (*tbNode, error) {
	n := &tbNode{tbRole: r, dir: filepath.Join(t.o.dir, phase, r.name)}
	if err := os.MkdirAll(n.dir, 0o700); err != nil {
		return nil, err
	}
	if _, _, err := identity.ReadPublic(n.dir); errors.Is(err, identity.ErrKeyMissing) {
		kcfg := identity.DefaultConfig(n.dir)
		if t.o.light {
			kcfg.ScryptWorkFactor, kcfg.KeystoreScryptN, kcfg.KeystoreScryptP = 10, keystore.LightScryptN, keystore.LightScryptP
		}
		if _, err := identity.Create(kcfg, t.pass, time.Now()); err != nil {
			return nil, fmt.Errorf("%s keys: %w", r.name, err)
		}
	}
	var err error
	if n.pub, _, err = identity.ReadPublic(n.dir); err != nil {
		return nil, err
	}
	keyFile := filepath.Join(n.dir, APIKeyFileName)
	if _, err := os.Stat(keyFile); errors.Is(err, os.ErrNotExist) {
		var k [32]byte
		_, _ = rand.Read(k[:])
		if err := writeNew(keyFile, []byte(hex.EncodeToString(k[:])+"\n"), 0o600); err != nil {
			return nil, err
		}
	}
	n.keyPath = filepath.Join(n.dir, "software-key.json")
	t.all = append(t.all, n)
	return n, nil
}

// p2pAddr is a node's TCP multiaddr with its peer id on its host.
func (t *tb) p2pAddr(n *tbNode) string {
	return fmt.Sprintf("/ip4/%s/tcp/%d/p2p/%s", t.topo.Hosts[n.host].Addr, tbP2PPort, n.pub.PeerID)
}

// p2pAddrs are the public nodes' multiaddrs as the others name them: TCP
// and QUIC, so a node behind NAT also meets them over QUIC, learns its
// router's UDP mapping from them and can be hole-punched over QUIC (UDP
// punches where TCP's simultaneous open often does not).
func (t *tb) p2pAddrs(names ...string) []string {
	var out []string
	for _, name := range names {
		n := t.nodes[name]
		a := t.topo.Hosts[n.host].Addr
		out = append(out, fmt.Sprintf("/ip4/%s/tcp/%d/p2p/%s", a, tbP2PPort, n.pub.PeerID),
			fmt.Sprintf("/ip4/%s/udp/%d/quic-v1/p2p/%s", a, tbP2PPort, n.pub.PeerID))
	}
	return out
}

// settings are a node's settings on its current host (docs/p2p.md
// "Running nodes across the internet", step by step).
func (t *tb) settings(n *tbNode) settings {
	h := t.topo.Hosts[n.host]
	s := defaultSettings()
	s.Node.Name = n.name
	s.PassphraseFile = filepath.Join(t.o.dir, "passphrase")
	s.MetricsListen = fmt.Sprintf("127.0.0.1:%d", tbMetricsPort)
	s.APIListen = fmt.Sprintf("127.0.0.1:%d", tbAPIPort)
	s.WebListen = fmt.Sprintf("localhost:%d", tbWebPort)
	deriveOrigins(&s)
	s.ApprovalMode = ApprovalPasskey
	s.VXP.Enabled = false
	// Step 2: listen on the host's address, on fixed ports.
	s.Node.P2P.Listen = []string{fmt.Sprintf("/ip4/%s/tcp/%d", h.Addr, tbP2PPort), fmt.Sprintf("/ip4/%s/udp/%d/quic-v1", h.Addr, tbP2PPort)}
	// Step 4: the public nodes are every node's bootstrap peers; the DHT.
	s.Node.P2P.DHT = true
	switch {
	case n.opts.noBoot:
	case n.opts.bootstraps != nil:
		s.Node.P2P.Bootstrap = n.opts.bootstraps
	default:
		for _, b := range tbPublic {
			if b != n.name {
				s.Node.P2P.Bootstrap = append(s.Node.P2P.Bootstrap, t.p2pAddrs(b)...)
			}
		}
	}
	switch {
	case n.scale:
		s.Node.P2P.Reachability = string(p2p.ReachPublic)
		s.ApprovalMode = ApprovalAuto
		// The defaults: the connection manager trims at 40/80, below
		// the 96 inbound connections the resource manager admits, so
		// the two bootstrap nodes every node dials do not fill up (they
		// did when every identified peer was protected).
	case n.store:
		// Steps 1, 6 and 7: a public node, relay and store.
		s.Node.P2P.Reachability = string(p2p.ReachPublic)
		s.Node.P2P.RelayService = true
		s.Node.P2P.NAT = true // AutoNAT v2's server for the others
		s.Node.Store.Enabled, s.Node.Store.Open = true, true
	case h.Public():
		s.Node.P2P.NAT = true
	default:
		// Steps 5 and 6: behind NAT, with the relays; hole punching with
		// p2p.nat.
		s.Node.P2P.NAT = n.opts.nat
		s.Node.P2P.Relays = t.p2pAddrs("pub1", "pub2")
		s.Node.P2P.Reachability = string(p2p.ReachPrivate)
	}
	if !n.store && !n.scale {
		s.Node.P2P.StorePeers = t.p2pAddrs("pub1")
	}
	s.LogLevel = "debug"
	s.Node.P2P.RetryMax = 3 * time.Second
	s.Node.P2P.MailboxPoll = 2 * time.Second
	cid, _ := new(big.Int).SetString(t.chain.ChainID, 10)
	s.Node.Chain.RPC, s.Node.Chain.ChainID, s.Node.Chain.Contracts = t.chain.RPCURL, cid.Uint64(), t.chain.Contracts
	s.Node.Chain.PollInterval = 200 * time.Millisecond
	if n.scale {
		s.Node.Chain.PollInterval = 10 * time.Second
		s.LogLevel = "info"
	}
	s.Node.Ledger.AnchorEvery = node.DevAnchorEvery
	return s
}

// startNode writes n's configuration for its host and starts it there.
func (t *tb) startNode(n *tbNode, o tbNodeOpts) error {
	n.opts = o
	n.cfg = filepath.Join(n.dir, ConfigFileName)
	b := renderConfig(t.settings(n), "Parley testbed node ("+n.name+" on "+n.host+"), rewritten by parley testbed at every start.")
	if err := os.WriteFile(n.cfg, b, 0o600); err != nil {
		return err
	}
	n.starts++
	p, err := t.net.Start(n.name, n.host, filepath.Join(n.dir, "node.log"), t.exe, "node", "run", "--config", n.cfg)
	if err != nil {
		return err
	}
	n.proc = p
	n.hc = t.net.HTTPClient(n.host)
	key, err := readAPIKey(filepath.Join(n.dir, APIKeyFileName))
	if err != nil {
		return err
	}
	n.api, err = api.NewClient(fmt.Sprintf("http://127.0.0.1:%d", tbAPIPort), key, api.WithHTTPClient(n.hc))
	return err
}

// ready waits for n's API and, for a party, registers (or loads) its
// software key, a passkey of its principal.
func (t *tb) ready(n *tbNode) error {
	deadline := time.Now().Add(t.o.wait)
	for {
		sctx, cancel := context.WithTimeout(t.ctx, 2*time.Second)
		_, err := n.api.Status(sctx)
		cancel()
		if err == nil {
			break
		}
		if ok, perr := n.proc.Exited(); ok {
			return fmt.Errorf("%s exited while starting (%v):\n%s", n.name, perr, testbed.Tail(n.proc.Log, 20))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s's API did not answer within %s: %v\n%s", n.name, t.o.wait, err, testbed.Tail(n.proc.Log, 20))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !n.party || n.key != nil {
		return nil
	}
	if _, err := os.Stat(n.keyPath); err == nil {
		n.key, err = loadSoftwareKey(n.keyPath)
		return err
	}
	sk, _, err := registerSoftwareKey(t.ctx, n.api, n.dir, "testbed "+n.name, "", 0, nil)
	if err != nil {
		return fmt.Errorf("%s: software key: %w", n.name, err)
	}
	n.key = sk
	return saveSoftwareKey(n.keyPath, sk)
}

// fund tops a party's account up from dev account i, over the chain
// host's JSON-RPC reached inside its namespace.
func (t *tb) fund(n *tbNode, i int) error {
	rc, err := gethrpc.DialOptions(t.ctx, t.chain.RPCURL, gethrpc.WithHTTPClient(t.net.HTTPClient("chain")))
	if err != nil {
		return err
	}
	b := &chain.RPC{Client: ethclient.NewClient(rc)}
	defer b.Close()
	cfg := chain.DefaultConfig()
	cfg.ChainID, _ = new(big.Int).SetString(t.chain.ChainID, 10)
	cfg.Contracts = t.chain.Contracts
	c, err := chain.New(b, chain.NewKeySigner(chain.DevKey(i)), cfg, nil)
	if err != nil {
		return err
	}
	to := common.HexToAddress(n.pub.EVMAddress)
	amount := new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether))
	if _, err := c.Transact(t.ctx, &to, amount, nil); err != nil {
		return fmt.Errorf("funding %s: %w", n.name, err)
	}
	return nil
}

// describeNodes prints each node's reachability, addresses and
// connections by path, as its status says.
func (t *tb) describeNodes(s *testbed.Scenario) error {
	for _, r := range tbRoles {
		n := t.nodes[r.name]
		st, err := n.api.Status(t.ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", n.name, err)
		}
		nw := st.Network
		s.Printf("%-10s on %-10s %-8s %d direct, %d relayed connections; announces %s", n.name, n.host, nw.Reachability, nw.Direct, nw.Relayed, shortAddrs(nw.Announced))
	}
	return nil
}

// shortAddrs prints addresses without their /p2p/ ids.
func shortAddrs(addrs []string) string {
	var out []string
	for _, a := range addrs {
		if i := strings.LastIndex(a, "/p2p/"); i > 0 && !strings.Contains(a[i+5:], "/") {
			a = a[:i]
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, " ")
}

// paths reads a node's envelopes delivered by path.
func (t *tb) paths(n *tbNode) (map[p2p.Path]float64, error) {
	page, err := testbed.Scrape(t.ctx, n.hc, fmt.Sprintf("http://127.0.0.1:%d/metrics", tbMetricsPort))
	if err != nil {
		return nil, err
	}
	m := map[p2p.Path]float64{}
	for _, p := range []p2p.Path{p2p.PathDirect, p2p.PathRelayed, p2p.PathStore} {
		m[p] = testbed.Metric(page, "parley_node_envelopes_delivered_total", `path="`+string(p)+`"`)
	}
	return m, nil
}

func pathDiff(a, b map[p2p.Path]float64) string {
	return fmt.Sprintf("%d direct, %d relayed, %d through a store node",
		int(b[p2p.PathDirect]-a[p2p.PathDirect]), int(b[p2p.PathRelayed]-a[p2p.PathRelayed]), int(b[p2p.PathStore]-a[p2p.PathStore]))
}

// party is a node as the demo's story drives it.
func (n *tbNode) demoParty() demo.Party {
	key, path := n.key, n.keyPath
	return demo.Party{Name: n.name, API: n.api, Key: key, Saved: func() error { return saveSoftwareKey(path, key) }}
}

// story plays the demo's story on a fresh poster, worker and arbitrator
// (their own keys, funded), behind their NAT routers, with hole punching
// off (relays alone) or on, and reports the path each envelope took.
func (t *tb) story(s *testbed.Scenario, punch bool) error {
	phase := "relay"
	if punch {
		phase = "punch"
	}
	trio := []string{"poster", "worker", "arbitrator"}
	for i, name := range trio {
		old := t.nodes[name]
		if err := old.proc.Stop(30 * time.Second); err != nil {
			return err
		}
		n, err := t.newNode(old.tbRole, phase)
		if err != nil {
			return err
		}
		off := 4 + i
		if punch {
			off += 3
		}
		if err := t.fund(n, off); err != nil {
			return err
		}
		if err := t.startNode(n, tbNodeOpts{nat: punch}); err != nil {
			return err
		}
		t.nodes[name] = n
	}
	for _, name := range trio {
		if err := t.ready(t.nodes[name]); err != nil {
			return err
		}
	}
	// Wait until each holds its relay reservations (it advertises circuit
	// addresses) and is connected to the four public nodes, whose
	// observations of its NAT's mapping hole punching needs.
	for _, name := range trio {
		n := t.nodes[name]
		if err := t.until(name+" to announce a circuit address and reach the public nodes", func() (bool, error) {
			st, err := n.api.Status(t.ctx)
			if err != nil || st.Network.Reachability != p2p.ReachRelayed {
				return false, err
			}
			for _, b := range tbPublic {
				if !slices.ContainsFunc(st.Network.Peers, func(c p2p.ConnInfo) bool { return c.Peer == t.nodes[b].pub.PeerID && c.Path == p2p.PathDirect }) {
					return false, nil
				}
			}
			return true, nil
		}); err != nil {
			return err
		}
	}
	if punch {
		// Hole punching needs each side's public address as peers see it
		// (its NAT's mapping, confirmed by four observers); go-libp2p's
		// hole punching service starts once it has one, after polling for
		// up to 5 s.
		for _, name := range []string{"poster", "worker"} {
			n := t.nodes[name]
			var obs []string
			if err := t.until(name+" to learn its NAT's public address", func() (bool, error) {
				st, err := n.api.Status(t.ctx)
				obs = st.Network.Observed
				return err == nil && len(obs) > 0, err
			}); err != nil {
				return err
			}
			s.Printf("%-10s observed public address %s (its router's mapping)", name, strings.Join(obs, " "))
		}
		time.Sleep(6 * time.Second)
		if err := t.punched(s); err != nil {
			return err
		}
	}
	before := map[string]map[p2p.Path]float64{}
	for _, name := range trio {
		var err error
		if before[name], err = t.paths(t.nodes[name]); err != nil {
			return err
		}
	}
	var buf strings.Builder
	began := time.Now()
	err := demo.Run(t.ctx, &buf, demo.Options{
		Poster: t.nodes["poster"].demoParty(), Worker: t.nodes["worker"].demoParty(), Arbitrator: t.nodes["arbitrator"].demoParty(),
		Wait:                t.o.wait,
		OutsideAgentSkipped: "the testbed plays the story between nodes; task 3's agent speaks HTTP to the worker's own host (make demo plays it)",
	})
	if werr := os.WriteFile(filepath.Join(t.o.dir, "story-"+phase+".txt"), []byte(buf.String()), 0o600); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("the story: %w\n%s", err, lastLines(buf.String(), 15))
	}
	s.Printf("story played in %s (its steps in %s)", time.Since(began).Round(100*time.Millisecond), filepath.Join(t.o.dir, "story-"+phase+".txt"))
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "ledger verified") || strings.HasPrefix(strings.TrimSpace(l), "balances") {
			s.Printf("  %s", strings.TrimSpace(l))
		}
	}
	var direct float64
	for _, name := range trio {
		after, err := t.paths(t.nodes[name])
		if err != nil {
			return err
		}
		direct += after[p2p.PathDirect] - before[name][p2p.PathDirect]
		s.Printf("%-10s envelopes acked: %s", name, pathDiff(before[name], after))
	}
	poster, worker := t.nodes["poster"], t.nodes["worker"]
	c, err := t.connBetween(poster, worker)
	if err != nil {
		return err
	}
	s.Printf("the poster's connection to the worker now: %s %s (%s)", c.Path, c.Addr, c.Direction)
	if !punch && direct > 0 {
		return fmt.Errorf("%v envelopes went direct with hole punching off: the NAT routers let a direct connection through", direct)
	}
	if punch && c.Path != p2p.PathDirect {
		return fmt.Errorf("with hole punching the poster and the worker still hold only a %s connection", c.Path)
	}
	return nil
}

// punched has the poster propose a first task to the worker, which opens
// their relayed connection, and waits until hole punching (DCUtR, which
// the worker starts on that inbound relayed connection) gives them a
// direct one: the story that follows then runs over it.
func (t *tb) punched(s *testbed.Scenario) error {
	poster, worker := t.nodes["poster"], t.nodes["worker"]
	stop := t.approver(poster)
	defer stop()
	began := time.Now()
	_, paths, err := t.propose(poster, worker, "Translate the glossary")
	if err != nil {
		return err
	}
	s.Printf("a first proposal from the poster to the worker: %s", paths)
	var c p2p.ConnInfo
	if err := t.until("hole punching to give the poster and the worker a direct connection", func() (bool, error) {
		var err error
		c, err = t.connBetween(poster, worker)
		return err == nil && c.Path == p2p.PathDirect, err
	}); err != nil {
		return err
	}
	s.Printf("punched %s after the proposal: the poster's connection to the worker is direct to %s (%s)", time.Since(began).Round(100*time.Millisecond), c.Addr, c.Direction)
	return nil
}

// connBetween returns a's connection to b as a's status shows it,
// preferring a direct one.
func (t *tb) connBetween(a, b *tbNode) (p2p.ConnInfo, error) {
	st, err := a.api.Status(t.ctx)
	if err != nil {
		return p2p.ConnInfo{}, err
	}
	var found *p2p.ConnInfo
	for i, c := range st.Network.Peers {
		if c.Peer != b.pub.PeerID {
			continue
		}
		if found == nil || c.Path == p2p.PathDirect {
			found = &st.Network.Peers[i]
		}
	}
	if found == nil {
		return p2p.ConnInfo{Path: "none"}, nil
	}
	return *found, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// until polls cond until it holds or the wait ends.
func (t *tb) until(what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(t.o.wait)
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		if time.Now().After(deadline) {
			if last != nil {
				return fmt.Errorf("waiting for %s: %w", what, last)
			}
			return fmt.Errorf("waited %s for %s", t.o.wait, what)
		}
		select {
		case <-t.ctx.Done():
			return t.ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// approver approves every gated act of n until stop is called: the
// principal saying yes to each, with its passkey.
func (t *tb) approver(n *tbNode) (stop func()) {
	ctx, cancel := context.WithCancel(t.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			reqs, err := n.api.Approvals(ctx)
			if err == nil {
				for _, r := range reqs {
					if _, err := n.api.Approve(ctx, r.Request.RequestID, n.key); err == nil {
						_ = saveSoftwareKey(n.keyPath, n.key)
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() { cancel(); <-done }
}

// tbSpec is a task the fault scenarios negotiate: a translation of 0.3
// ETH, which both principals' cards (sealed by the story) allow, as the
// worker's counter of 0.4 ETH.
func tbSpec(title string) node.TaskSpec {
	return node.TaskSpec{
		Title:      title,
		Category:   "translation",
		Milestones: []node.MilestoneSpec{{Amount: milliETH(300), Description: "all of it"}},
		Deadline:   time.Now().Add(72 * time.Hour).Truncate(time.Second),
	}
}

// thread returns p's view of nid, or ok false while p has none.
func (t *tb) thread(n *tbNode, nid string) (node.ThreadView, bool, error) {
	v, err := n.api.Negotiation(t.ctx, nid)
	var ae *api.Error
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return v, false, nil
	}
	return v, err == nil, err
}

// logged waits until n's thread nid holds want envelopes, and checks that
// it holds each once.
func (t *tb) logged(n *tbNode, nid string, want int) error {
	if err := t.until(fmt.Sprintf("%s to hold %d envelopes of %s", n.name, want, nid), func() (bool, error) {
		v, ok, err := t.thread(n, nid)
		return ok && len(v.Log) >= want, err
	}); err != nil {
		return err
	}
	v, _, err := t.thread(n, nid)
	if err != nil {
		return err
	}
	return onceEach(n.name, v, want)
}

// onceEach checks a thread holds want envelopes, no hash twice.
func onceEach(who string, v node.ThreadView, want int) error {
	seen := map[negotiation.Hash]bool{}
	for _, r := range v.Log {
		if seen[r.Hash] {
			return fmt.Errorf("%s holds envelope %s twice", who, r.Hash)
		}
		seen[r.Hash] = true
	}
	if len(v.Log) != want {
		return fmt.Errorf("%s holds %d envelopes of %s, want %d", who, len(v.Log), v.NegotiationID, want)
	}
	return nil
}

// propose has from propose a task to to directly and waits until to
// holds it, once; it returns the negotiation and the paths from's
// envelopes took meanwhile.
func (t *tb) propose(from, to *tbNode, title string) (nid, paths string, err error) {
	before, err := t.paths(from)
	if err != nil {
		return "", "", err
	}
	res, err := from.api.ProposeTask(t.ctx, to.evm(), tbSpec(title))
	if err != nil {
		return "", "", fmt.Errorf("%s proposes to %s: %w", from.name, to.name, err)
	}
	nid = res.Thread.NegotiationID
	if err := t.logged(to, nid, 1); err != nil {
		return nid, "", err
	}
	after, err := t.paths(from)
	if err != nil {
		return nid, "", err
	}
	return nid, pathDiff(before, after), nil
}

// evm is the node's EVM address.
func (n *tbNode) evm() negotiation.Address {
	return negotiation.Address(common.HexToAddress(n.pub.EVMAddress))
}

// relayedNegotiation is the short run's first scenario: a direct
// proposal from the poster to the worker, behind their NAT routers, and
// the worker's counter, over whatever path they find.
func (t *tb) relayedNegotiation(s *testbed.Scenario) error {
	poster, worker := t.nodes["poster"], t.nodes["worker"]
	stop := t.approver(poster)
	defer stop()
	_, paths, err := t.propose(poster, worker, "Translate the release notes")
	if err != nil {
		return err
	}
	s.Printf("the poster's proposal reached the worker: %s", paths)
	return nil
}

// partition cuts the worker's link mid-negotiation: the worker's counter
// waits in its outbox, the poster's next proposal is left with the store
// node; once the link is back each is delivered and applied once.
func (t *tb) partition(s *testbed.Scenario) error {
	poster, worker := t.nodes["poster"], t.nodes["worker"]
	stopP, stopW := t.approver(poster), t.approver(worker)
	defer stopP()
	defer stopW()
	workerAddr := worker.evm()
	res, err := poster.api.ProposeTask(t.ctx, workerAddr, tbSpec("Translate the archive index"))
	if err != nil {
		return err
	}
	nid := res.Thread.NegotiationID
	if err := t.logged(worker, nid, 1); err != nil {
		return err
	}
	s.Printf("the poster proposes %s; the worker holds it", shortID(nid))
	if err := t.topo.Cut("worker"); err != nil {
		return err
	}
	cut := time.Now()
	s.Printf("the worker's link is cut")
	if _, err := worker.api.Counter(t.ctx, nid, node.CounterSpec{
		Milestones: []node.MilestoneSpec{{Amount: milliETH(400), Description: "all of it"}}, Reason: "the archive is large",
	}); err != nil {
		return fmt.Errorf("the worker's counter: %w", err)
	}
	before, err := t.paths(poster)
	if err != nil {
		return err
	}
	res2, err := poster.api.ProposeTask(t.ctx, workerAddr, tbSpec("Translate the photo captions"))
	if err != nil {
		return err
	}
	nid2 := res2.Thread.NegotiationID
	if err := t.until("the store node to hold the poster's second proposal", func() (bool, error) {
		after, err := t.paths(poster)
		return err == nil && after[p2p.PathStore] > before[p2p.PathStore], err
	}); err != nil {
		return err
	}
	s.Printf("while cut: the worker's counter waits in its outbox; the poster's proposal %s is held by the store node (%s after the cut)", shortID(nid2), time.Since(cut).Round(100*time.Millisecond))
	if v, _, err := t.thread(poster, nid); err != nil || len(v.Log) != 1 {
		return fmt.Errorf("the poster got the counter through a cut link (%d envelopes, %v)", len(v.Log), err)
	}
	time.Sleep(5 * time.Second) // the cut lasts: the worker's retries fail meanwhile
	if err := t.topo.Restore("worker"); err != nil {
		return err
	}
	restored := time.Now()
	s.Printf("the link is restored after %s", restored.Sub(cut).Round(100*time.Millisecond))
	if err := t.logged(poster, nid, 2); err != nil {
		return err
	}
	s.Printf("the worker's counter reached the poster %s after the restore (its outbox's retry)", time.Since(restored).Round(100*time.Millisecond))
	if err := t.logged(worker, nid2, 1); err != nil {
		return err
	}
	s.Printf("the worker collected the held proposal %s after the restore (its mailbox poll)", time.Since(restored).Round(100*time.Millisecond))
	if err := t.logged(worker, nid, 2); err != nil {
		return err
	}
	return nil
}

// move kills the worker and starts it, with the same data, on another
// host (pub5, a public one: its circuit addresses through the relays and
// its LAN address are gone): the poster finds its new address in the
// worker's DHT record and its next envelope is delivered there.
func (t *tb) move(s *testbed.Scenario) error {
	poster, worker := t.nodes["poster"], t.nodes["worker"]
	old := t.topo.Hosts[worker.host].Addr
	worker.proc.Kill()
	worker.host = "pub5"
	if err := t.startNode(worker, worker.opts); err != nil {
		return err
	}
	moved := time.Now()
	if err := t.ready(worker); err != nil {
		return err
	}
	s.Printf("the worker killed on %s and started on pub5 (%s, public); its API up in %s", old, t.topo.Hosts["pub5"].Addr, time.Since(moved).Round(100*time.Millisecond))
	stopP, stopW := t.approver(poster), t.approver(worker)
	defer stopP()
	defer stopW()
	_, paths, err := t.propose(poster, worker, "Translate the interview")
	if err != nil {
		return err
	}
	s.Printf("the poster's proposal reached the moved worker %s after its restart: %s", time.Since(moved).Round(100*time.Millisecond), paths)
	c, err := t.connBetween(poster, worker)
	if err != nil {
		return err
	}
	how := "the worker's own connection told the poster its new address (identify)"
	if _, ok := grepLog(poster.proc.Log, "recipient's record read again"); ok {
		how = "the poster read the worker's DHT record again"
	}
	s.Printf("the poster's connection to the worker: %s %s (%s); %s", c.Path, c.Addr, c.Direction, how)
	return nil
}

// grepLog returns the first line of a log holding want.
func grepLog(path, want string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, want) {
			return l, true
		}
	}
	return "", false
}

// storeKilled kills the store node; with the worker cut off the poster's
// envelope has nowhere to go and waits in its outbox, retried until the
// worker is back.
func (t *tb) storeKilled(s *testbed.Scenario) error {
	poster, worker := t.nodes["poster"], t.nodes["worker"]
	t.nodes["pub1"].proc.Kill()
	s.Printf("the store node pub1 killed")
	if err := t.topo.Cut(worker.host); err != nil {
		return err
	}
	cut := time.Now()
	stopP, stopW := t.approver(poster), t.approver(worker)
	defer stopP()
	defer stopW()
	before, err := t.paths(poster)
	if err != nil {
		return err
	}
	res, err := poster.api.ProposeTask(t.ctx, worker.evm(), tbSpec("Translate the video subtitles"))
	if err != nil {
		return err
	}
	nid := res.Thread.NegotiationID
	time.Sleep(8 * time.Second) // several retries while the worker is cut and the store gone
	mid, err := t.paths(poster)
	if err != nil {
		return err
	}
	if mid[p2p.PathStore] != before[p2p.PathStore] || mid[p2p.PathDirect]+mid[p2p.PathRelayed] != before[p2p.PathDirect]+before[p2p.PathRelayed] {
		return fmt.Errorf("the proposal was acked while the worker was cut off and the store gone: %s", pathDiff(before, mid))
	}
	s.Printf("for %s the proposal waits in the poster's outbox: no store to hold it, the worker unreachable", time.Since(cut).Round(100*time.Millisecond))
	if err := t.topo.Restore(worker.host); err != nil {
		return err
	}
	restored := time.Now()
	if err := t.logged(worker, nid, 1); err != nil {
		return err
	}
	after, err := t.paths(poster)
	if err != nil {
		return err
	}
	s.Printf("delivered %s after the worker's link came back, by the outbox's retry: %s", time.Since(restored).Round(100*time.Millisecond), pathDiff(before, after))
	return nil
}

// bootstrapGone starts lan2 again with pub1 (still dead) first in its
// bootstrap list: it joins through pub2, finds the worker by its EVM
// address in the DHT and its proposal is delivered.
func (t *tb) bootstrapGone(s *testbed.Scenario) error {
	n, worker := t.nodes["lan2"], t.nodes["worker"]
	if err := n.proc.Stop(30 * time.Second); err != nil {
		return err
	}
	fresh, err := t.newNode(n.tbRole, "late")
	if err != nil {
		return err
	}
	if err := t.fund(fresh, 10); err != nil {
		return err
	}
	began := time.Now()
	if err := t.startNode(fresh, tbNodeOpts{nat: true, bootstraps: t.p2pAddrs("pub1", "pub2")}); err != nil {
		return err
	}
	t.nodes["lan2"] = fresh
	if err := t.ready(fresh); err != nil {
		return err
	}
	s.Printf("a new node on lan2, bootstrap [pub1 (gone), pub2]: its API up in %s", time.Since(began).Round(100*time.Millisecond))
	if err := t.until("the new node to have peers", func() (bool, error) {
		st, err := fresh.api.Status(t.ctx)
		return err == nil && st.Network.Direct+st.Network.Relayed > 0, err
	}); err != nil {
		return err
	}
	s.Printf("connected %s after start", time.Since(began).Round(100*time.Millisecond))
	stop := t.approver(fresh)
	defer stop()
	if _, _, err := t.propose(fresh, worker, "Translate the citations"); err != nil {
		return err
	}
	s.Printf("it found the worker by EVM address through the DHT and its proposal was delivered %s after start", time.Since(began).Round(100*time.Millisecond))
	return nil
}

// lan has lan2 propose a task to the arbitrator, on the same LAN behind
// nat3: they reach each other directly over the LAN.
func (t *tb) lan(s *testbed.Scenario) error {
	a, b := t.nodes["lan2"], t.nodes["arbitrator"]
	stop := t.approver(a)
	defer stop()
	if _, _, err := t.propose(a, b, "Translate the contract"); err != nil {
		return err
	}
	var c p2p.ConnInfo
	lanPrefix := t.topo.Routers["nat3"].LAN + "."
	if err := t.until("lan2's direct connection to the arbitrator over the LAN", func() (bool, error) {
		var err error
		c, err = t.connBetween(a, b)
		return err == nil && c.Path == p2p.PathDirect && strings.Contains(c.Addr, "/ip4/"+lanPrefix), err
	}); err != nil {
		return fmt.Errorf("%w (the connection: %s %s)", err, c.Path, c.Addr)
	}
	s.Printf("lan2's proposal reached the arbitrator; their connection: %s %s", c.Path, c.Addr)
	return nil
}

// verifyLedgers verifies every running node's ledger through its API,
// stops every node, then verifies every ledger the run made, offline
// (parley ledger verify --data-dir), those of killed nodes too.
func (t *tb) verifyLedgers(s *testbed.Scenario) error {
	names := make([]string, 0, len(t.nodes))
	for name := range t.nodes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		n := t.nodes[name]
		if ok, _ := n.proc.Exited(); ok {
			continue
		}
		rep, err := n.api.VerifyLedger(t.ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !rep.OK {
			return fmt.Errorf("%s's ledger does not verify: %s", name, rep.Error)
		}
		s.Printf("%-10s ledger verified by the running node: %d entries", name, rep.Seq)
	}
	began := time.Now()
	if err := t.stopAll(); err != nil {
		return err
	}
	s.Printf("every node stopped cleanly on SIGINT in %s", time.Since(began).Round(100*time.Millisecond))
	for _, n := range t.all {
		out, err := exec.CommandContext(t.ctx, t.exe, "ledger", "verify", "--data-dir", n.dir).CombinedOutput()
		if err != nil {
			return fmt.Errorf("parley ledger verify --data-dir %s: %v: %s", n.dir, err, out)
		}
	}
	s.Printf("every ledger the run made (%d data directories, killed nodes' too) verified offline", len(t.all))
	return nil
}

// stopAll interrupts every process the testbed started and waits for
// them; it returns the first that did not stop within 30 s (and was
// killed).
func (t *tb) stopAll() error {
	var wg sync.WaitGroup
	errs := make(chan error, len(t.nodes))
	for _, n := range t.nodes {
		if n.proc == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- n.proc.Stop(30 * time.Second)
		}()
	}
	wg.Wait()
	close(errs)
	var first error
	for err := range errs {
		if err != nil && first == nil {
			first = err
		}
	}
	if t.chainProc != nil {
		_ = t.chainProc.Stop(30 * time.Second)
	}
	return first
}

// shortID shortens a negotiation id for a report line.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func milliETH(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e15)) }
