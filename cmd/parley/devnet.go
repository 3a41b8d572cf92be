package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
	"github.com/spf13/cobra"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/strictjson"
)

// devnetRoles are the devnet's nodes, in start order.
var devnetRoles = []string{"poster", "worker", "arbitrator"}

// devnetState is what a devnet keeps between runs (devnet.json): the
// ports its nodes listen on, chosen on the first run, so that the nodes'
// addresses, and the bootstrap lists naming them, survive restarts; and
// where each node's API is and its key, for clients.
type devnetState struct {
	Nodes map[string]devnetPorts `json:"nodes"`
}

type devnetPorts struct {
	P2P     int `json:"p2p"`
	Metrics int `json:"metrics"`
	API     int `json:"api"`
	Web     int `json:"web"`
	VXP     int `json:"vxp"`
	// APIURL and APIKeyFile name the node's API and its bearer key file
	// (rewritten at every start); WebURL its principal's pages.
	APIURL     string `json:"api_url,omitempty"`
	APIKeyFile string `json:"api_key_file,omitempty"`
	WebURL     string `json:"web_url,omitempty"`
	// VXPURL is the node's public VXP base URL: vxp.json is at
	// <vxp_url>/.well-known/vxp.json, the issuer <vxp_url>/vxp.
	VXPURL string `json:"vxp_url,omitempty"`
	// EVMAddress is the node's EVM address (EIP-55): its principal's
	// subject, the sub of a VXP agent's jwt-bearer assertion.
	EVMAddress string `json:"evm_address,omitempty"`
	// SoftwareKeyFile is the software key registered as the node's
	// passkey, which approves its gated acts (approval mode passkey), once
	// it is registered.
	SoftwareKeyFile string `json:"software_key_file,omitempty"`
}

// devnetFund is what each node's account is topped up to.
var devnetFund = new(big.Int).Mul(big.NewInt(1000), big.NewInt(params.Ether))

func newDevnetCmd() *cobra.Command {
	var (
		dir       string
		chainPort int
		lightKeys bool
		approval  string
	)
	cmd := &cobra.Command{
		Use:   "devnet",
		Short: "Run a local network: an embedded dev chain and a poster, a worker and an arbitrator node",
		Long: "Starts the embedded EVM dev chain (JSON-RPC on 127.0.0.1, contracts deployed) and three nodes,\n" +
			"poster, worker and arbitrator, each a separate `parley node run` process on loopback with its\n" +
			"own data directory, keys and funded account, bootstrapped to the other two. Each gated act waits\n" +
			"for its principal's passkey (approval.mode passkey): at first start the devnet makes a software\n" +
			"key per node (<dir>/<role>.software-key: a credential, whoever holds it approves that node's\n" +
			"acts), registers it with an enrolment token it writes in the node's data directory (the API\n" +
			"issues none) and names it in devnet.json, so `parley approvals approve ID --software-key FILE`\n" +
			"approves; a person can\n" +
			"also register a passkey on each node's pages. --approval auto approves every act without anyone.\n" +
			"Each node also serves VXP for outside AI agents on loopback (plain http, allowed there only:\n" +
			"vxp.allow_insecure_loopback); devnet.json names its base URL (vxp_url) and EVM address (evm_address),\n" +
			"and an agent's grant is approved with the same software key.\n" +
			"The devnet is for development. Ctrl-C stops every node, then the chain. State lives in --dir and\n" +
			"survives a restart: the same keys, addresses, ledgers, passkeys and chain.",
		Example: "  parley devnet\n  parley devnet --dir /tmp/parley-devnet --chain-port 0\n  parley devnet --approval auto",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				base := os.Getenv("PARLEY_DATA_DIR")
				if base == "" {
					home, err := os.UserHomeDir()
					if err != nil {
						return &exitError{code: 2, err: err}
					}
					base = filepath.Join(home, ".parley")
				}
				dir = filepath.Join(base, "devnet")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if approval != ApprovalAuto && approval != ApprovalPasskey {
				return &exitError{code: 2, err: fmt.Errorf("--approval: %q is not one of passkey, auto", approval)}
			}
			return runDevnet(ctx, cmd, dir, chainPort, lightKeys, approval)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "devnet directory (default $PARLEY_DATA_DIR/devnet, else ~/.parley/devnet)")
	cmd.Flags().IntVar(&chainPort, "chain-port", 8545, "JSON-RPC port of the dev chain on 127.0.0.1 (0 picks a free one)")
	cmd.Flags().StringVar(&approval, "approval", ApprovalPasskey, "how the nodes decide gated acts: passkey (each waits for a passkey's approval; the devnet registers a software key per node) or auto (approved at once, by no one)")
	cmd.Flags().BoolVar(&lightKeys, "insecure-light-keys", false, "encrypt new keys with test-strength scrypt (tests only)")
	_ = cmd.Flags().MarkHidden("insecure-light-keys")
	return cmd
}

func runDevnet(ctx context.Context, cmd *cobra.Command, dir string, chainPort int, lightKeys bool, approval string) error {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &exitError{code: 1, err: err}
	}
	state, err := devnetLoadState(dir, &chainPort)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	passFile := filepath.Join(dir, "passphrase")
	if _, err := os.Stat(passFile); errors.Is(err, os.ErrNotExist) {
		var p [24]byte
		if _, err := rand.Read(p[:]); err != nil {
			return err
		}
		if err := writeNew(passFile, []byte(hex.EncodeToString(p[:])+"\n"), 0o600); err != nil {
			return &exitError{code: 1, err: err}
		}
	}
	pass, err := identity.PassphraseSource{File: passFile}.Read(false)
	if err != nil {
		return &exitError{code: 1, err: err}
	}

	ccfg := chain.DefaultDevchainConfig()
	ccfg.DataDir = filepath.Join(dir, "chain")
	ccfg.HTTPPort = chainPort
	ccfg.Logger = slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	dev, err := chain.StartDevchain(ctx, ccfg)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("dev chain: %w", err)}
	}
	defer dev.Close()
	fmt.Fprintf(out, "dev chain %s (chain id %s), TaskRegistry %s\n", dev.URL, dev.ChainID, dev.Contracts.TaskRegistry.Hex())

	type member struct {
		role, dir, cfg string
		pub            *identity.PublicInfo
		ports          devnetPorts
	}
	var members []*member
	for i, role := range devnetRoles {
		m := &member{role: role, dir: filepath.Join(dir, role), ports: state.Nodes[role]}
		if _, _, err := identity.ReadPublic(m.dir); errors.Is(err, identity.ErrKeyMissing) {
			kcfg := identity.DefaultConfig(m.dir)
			if lightKeys {
				kcfg.ScryptWorkFactor, kcfg.KeystoreScryptN, kcfg.KeystoreScryptP = 10, keystore.LightScryptN, keystore.LightScryptP
			}
			if err := os.MkdirAll(m.dir, 0o700); err != nil {
				return &exitError{code: 1, err: err}
			}
			if _, err := identity.Create(kcfg, pass, time.Now()); err != nil {
				return &exitError{code: 1, err: fmt.Errorf("%s keys: %w", role, err)}
			}
			fmt.Fprintf(out, "%-10s created keys in %s\n", role, m.dir)
		}
		if m.pub, _, err = identity.ReadPublic(m.dir); err != nil {
			return &exitError{code: 1, err: err}
		}
		keyFile := filepath.Join(m.dir, APIKeyFileName)
		if _, err := os.Stat(keyFile); errors.Is(err, os.ErrNotExist) {
			var k [32]byte
			if _, err := rand.Read(k[:]); err != nil {
				return err
			}
			if err := writeNew(keyFile, []byte(hex.EncodeToString(k[:])+"\n"), 0o600); err != nil {
				return &exitError{code: 1, err: err}
			}
		}
		m.ports.APIURL = fmt.Sprintf("http://127.0.0.1:%d", m.ports.API)
		m.ports.APIKeyFile = keyFile
		m.ports.WebURL = fmt.Sprintf("http://localhost:%d", m.ports.Web)
		m.ports.VXPURL = devnetVXPURL(m.ports)
		m.ports.EVMAddress = common.HexToAddress(m.pub.EVMAddress).Hex()
		state.Nodes[role] = m.ports
		if err := devnetFundAccount(ctx, dev, i, common.HexToAddress(m.pub.EVMAddress), out, role); err != nil {
			return &exitError{code: 1, err: err}
		}
		members = append(members, m)
	}
	if err := devnetSaveState(dir, state); err != nil {
		return &exitError{code: 1, err: err}
	}
	for _, m := range members {
		var boot []string
		for _, o := range members {
			if o != m {
				boot = append(boot, fmt.Sprintf("/ip4/127.0.0.1/tcp/%d/p2p/%s", o.ports.P2P, o.pub.PeerID))
			}
		}
		s := devnetSettings(m.role, m.ports, boot, dev.URL, dev.ChainID.Uint64(), dev.Contracts)
		s.ApprovalMode = approval
		m.cfg = filepath.Join(m.dir, ConfigFileName)
		b := renderConfig(s, "Parley devnet node ("+m.role+"), rewritten by parley devnet at every start.")
		if err := os.WriteFile(m.cfg, b, 0o600); err != nil {
			return &exitError{code: 1, err: err}
		}
	}

	exe, err := os.Executable()
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	var children []*devnetChild
	var outMu sync.Mutex
	exited := make(chan *devnetChild, len(members))
	stopAll := func() {
		for _, c := range children {
			_ = c.cmd.Process.Signal(os.Interrupt)
		}
		deadline := time.After(30 * time.Second)
		for _, c := range children {
			select {
			case <-c.done:
			case <-deadline:
				_ = c.cmd.Process.Kill()
				<-c.done
			}
		}
	}
	for _, m := range members {
		c := &devnetChild{role: m.role, done: make(chan error, 1)}
		c.cmd = exec.Command(exe, "node", "run", "--config", m.cfg)
		c.cmd.Stdout = newPrefixWriter(&outMu, out, m.role)
		c.cmd.Stderr = newPrefixWriter(&outMu, errOut, m.role)
		c.cmd.Env = os.Environ()
		stopWithParent(c.cmd)
		if err := c.cmd.Start(); err != nil {
			stopAll()
			return &exitError{code: 1, err: fmt.Errorf("%s: %w", m.role, err)}
		}
		go func() {
			c.done <- c.cmd.Wait()
			close(c.done)
			exited <- c
		}()
		children = append(children, c)
	}
	for _, m := range members {
		fmt.Fprintf(out, "%-10s peer %s  EVM %s  p2p /ip4/127.0.0.1/tcp/%d  metrics http://127.0.0.1:%d/metrics  api %s/v1  pages %s  vxp %s  data %s\n",
			m.role, m.pub.PeerID, m.pub.EVMAddress, m.ports.P2P, m.ports.Metrics, m.ports.APIURL, m.ports.WebURL, m.ports.VXPURL, m.dir)
	}
	if approval == ApprovalPasskey {
		for _, m := range members {
			keyFile, err := devnetSoftwareKey(ctx, dir, m.role, m.ports, exited)
			if err != nil && ctx.Err() != nil {
				break // stopped while starting: stop as below
			}
			if err != nil {
				stopAll()
				return &exitError{code: 1, err: fmt.Errorf("%s: software key: %w", m.role, err)}
			}
			m.ports.SoftwareKeyFile = keyFile
			state.Nodes[m.role] = m.ports
			fmt.Fprintf(out, "%-10s approves with the software key %s (a passkey of its principal)\n", m.role, keyFile)
		}
		if err := devnetSaveState(dir, state); err != nil {
			stopAll()
			return &exitError{code: 1, err: err}
		}
	}
	fmt.Fprintf(out, "API URLs and key files: %s\n", filepath.Join(dir, "devnet.json"))
	fmt.Fprintln(out, "devnet running; Ctrl-C stops every node, then the chain")
	var failed error
	select {
	case <-ctx.Done():
	case c := <-exited:
		failed = fmt.Errorf("%s exited: %v", c.role, <-c.done)
	}
	stopAll()
	if err := dev.Close(); err != nil && failed == nil {
		failed = err
	}
	for _, c := range children {
		if c.cmd.ProcessState != nil && !c.cmd.ProcessState.Success() && failed == nil {
			failed = fmt.Errorf("%s stopped with %s", c.role, c.cmd.ProcessState)
		}
	}
	if failed != nil {
		return &exitError{code: 1, err: failed}
	}
	fmt.Fprintln(out, "devnet stopped")
	return nil
}

// devnetChild is one node process of the devnet.
type devnetChild struct {
	role string
	cmd  *exec.Cmd
	done chan error
}

// devnetSettings are the settings parley devnet gives each of its nodes
// (configs/devnet.yaml shows them): loopback, the devnet's peers as
// bootstrap, the dev chain, and gated acts approved with a passkey.
func devnetSettings(role string, ports devnetPorts, bootstrap []string, rpc string, chainID uint64, contracts chain.Addresses) settings {
	s := defaultSettings()
	s.Node.Name = role
	s.PassphraseFile = "../passphrase"
	s.MetricsListen = fmt.Sprintf("127.0.0.1:%d", ports.Metrics)
	s.APIListen = fmt.Sprintf("127.0.0.1:%d", ports.API)
	s.WebListen = fmt.Sprintf("localhost:%d", ports.Web)
	deriveOrigins(&s)
	s.ApprovalMode = ApprovalPasskey
	s.Node.P2P.Listen = []string{fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", ports.P2P)}
	s.Node.P2P.Bootstrap = bootstrap
	s.Node.P2P.DHT = false
	s.Node.P2P.RetryMax = 5 * time.Second
	s.Node.Chain.RPC, s.Node.Chain.ChainID, s.Node.Chain.Contracts = rpc, chainID, contracts
	s.Node.Chain.PollInterval = 100 * time.Millisecond
	s.Node.Ledger.AnchorEvery = node.DevAnchorEvery // anchoring is on by default on the devnet
	// VXP on loopback, plain http (allowed on loopback only), so that
	// outside agents on this machine can be granted authority.
	s.VXP.Enabled = true
	s.VXP.Listen = fmt.Sprintf("127.0.0.1:%d", ports.VXP)
	s.VXP.PublicURL = devnetVXPURL(ports)
	s.VXP.AllowInsecureLoopback = true
	s.VXP.DeviceInterval = time.Second
	return s
}

// devnetVXPURL is a devnet node's public VXP base URL.
func devnetVXPURL(p devnetPorts) string { return fmt.Sprintf("http://127.0.0.1:%d", p.VXP) }

// devnetSoftwareKey makes sure role's node has a software key registered
// as its principal's passkey: at the first start it waits for the node's
// API, makes the key, registers it with the enrolment token of the node's
// data directory (no credential exists yet; the API issues none) and writes it to <dir>/<role>.software-key;
// later it checks that the key is still registered. It returns the file.
func devnetSoftwareKey(ctx context.Context, dir, role string, ports devnetPorts, exited <-chan *devnetChild) (string, error) {
	path := filepath.Join(dir, role+".software-key")
	key, err := readAPIKey(ports.APIKeyFile)
	if err != nil {
		return "", err
	}
	c, err := api.NewClient(ports.APIURL, key)
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := c.Status(sctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the node's API did not answer within 2 minutes: %w", err)
		}
		select {
		case ch := <-exited:
			return "", fmt.Errorf("%s exited while starting: %v", ch.role, <-ch.done)
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if _, err := os.Stat(path); err == nil {
		sk, err := loadSoftwareKey(path)
		if err != nil {
			return "", err
		}
		pks, err := c.Passkeys(ctx)
		if err != nil {
			return "", err
		}
		ref := approval.CredentialRef(sk.CredentialID())
		for _, p := range pks {
			if p.Ref == ref {
				return path, nil
			}
		}
		return "", fmt.Errorf("%s is not a registered passkey of the node (remove it to register a new one)", path)
	}
	sk, _, err := registerSoftwareKey(ctx, c, filepath.Join(dir, role), "devnet "+role, "", 0, nil)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(sk)
	if err != nil {
		return "", err
	}
	return path, writeNew(path, append(b, '\n'), 0o600)
}

// devnetLoadState reads devnet.json, choosing free loopback ports for
// what it does not name yet (everything on the first run). chainPort,
// when not nil, is the dev chain's: no node's port is chosen on it, and
// when it is 0 it is chosen here, with the nodes' ports, so that the
// chain does not pick, at its start, a port a node is about to listen on
// (before, the kernel once handed the chain the poster's VXP port).
func devnetLoadState(dir string, chainPort *int) (devnetState, error) {
	path := filepath.Join(dir, "devnet.json")
	var st devnetState
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := strictjson.Unmarshal(b, &st); err != nil {
			return st, fmt.Errorf("%s: %w", path, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return st, err
	}
	if st.Nodes == nil {
		st.Nodes = map[string]devnetPorts{}
	}
	// Each port is chosen once: the kernel may hand a port just closed out
	// again, and two listeners on one port stop a node at its start.
	used := map[int]bool{}
	if chainPort != nil && *chainPort != 0 {
		used[*chainPort] = true
	}
	for _, p := range st.Nodes {
		for _, port := range []int{p.P2P, p.Metrics, p.API, p.Web, p.VXP} {
			used[port] = true
		}
	}
	for _, role := range devnetRoles {
		p := st.Nodes[role]
		for _, port := range []*int{&p.P2P, &p.Metrics, &p.API, &p.Web, &p.VXP} {
			if *port != 0 {
				continue
			}
			for *port == 0 || used[*port] {
				if *port, err = freePort(); err != nil {
					return st, err
				}
			}
			used[*port] = true
		}
		st.Nodes[role] = p
	}
	if chainPort != nil && *chainPort == 0 {
		for *chainPort == 0 || used[*chainPort] {
			if *chainPort, err = freePort(); err != nil {
				return st, err
			}
		}
	}
	return st, devnetSaveState(dir, st)
}

// devnetSaveState writes devnet.json.
func devnetSaveState(dir string, st devnetState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "devnet.json"), append(b, '\n'), 0o600)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// devnetFundAccount tops a node's account up from dev account i.
func devnetFundAccount(ctx context.Context, dev *chain.Devchain, i int, to common.Address, out io.Writer, role string) error {
	b, err := chain.DialRPC(ctx, dev.URL)
	if err != nil {
		return err
	}
	defer b.Close()
	bal, err := b.BalanceAt(ctx, to, nil)
	if err != nil {
		return err
	}
	if bal.Cmp(new(big.Int).Div(devnetFund, big.NewInt(10))) >= 0 {
		return nil
	}
	c, err := chain.New(b, dev.Accounts[i%len(dev.Accounts)].Signer(), dev.ClientConfig(), nil)
	if err != nil {
		return err
	}
	amount := new(big.Int).Sub(devnetFund, bal)
	if _, err := c.Transact(ctx, &to, amount, nil); err != nil {
		return fmt.Errorf("funding %s: %w", role, err)
	}
	fmt.Fprintf(out, "%-10s funded %s with %s ETH from dev account %d\n", role, to.Hex(), new(big.Int).Div(amount, big.NewInt(params.Ether)), i)
	return nil
}

// prefixWriter writes each line of a child's output with its role.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix []byte
	buf    bytes.Buffer
}

func newPrefixWriter(mu *sync.Mutex, w io.Writer, role string) *prefixWriter {
	return &prefixWriter{mu: mu, w: w, prefix: []byte(fmt.Sprintf("[%s] ", role))}
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	for {
		line, err := p.buf.ReadBytes('\n')
		if err != nil {
			p.buf.Write(line) // keep the partial line
			return len(b), nil
		}
		if _, err := p.w.Write(append(append([]byte{}, p.prefix...), line...)); err != nil {
			return len(b), err
		}
	}
}
