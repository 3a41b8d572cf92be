package node_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// gethDevKey is go-ethereum's developer key (cmd/utils DeveloperKey),
// public and fixed: `geth --dev` imports it into a fresh data directory's
// keystore and funds its account in genesis.
const gethDevKey = "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291"

// gethDev is a `geth --dev` process on loopback, with the Parley contracts
// deployed on it.
type gethDev struct {
	// URL is the JSON-RPC endpoint, http://127.0.0.1:<port>.
	URL string
	// ChainID is the chain's id.
	ChainID *big.Int
	// Contracts are the deployed contracts.
	Contracts chain.Addresses
	// Dev signs for the developer account geth funded in genesis.
	Dev *chain.KeySigner
	// RPC is a connection to URL.
	RPC *chain.RPC

	cmd    *exec.Cmd
	log    *gethLog
	exited chan struct{}
}

// buildGeth builds geth from the go-ethereum module go.mod requires (a
// tool of the module, so the versions match and the module cache serves
// it) into a temporary directory and returns its path.
func buildGeth(t *testing.T) string {
	t.Helper()
	// go test puts its own GOROOT/bin first on the test's PATH.
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("geth is built with the go command, which is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "geth")
	start := time.Now()
	out, err := exec.CommandContext(t.Context(), gobin, "build", "-o", bin, "github.com/ethereum/go-ethereum/cmd/geth").CombinedOutput()
	if err != nil {
		t.Fatalf("building geth: %v\n%s", err, out)
	}
	t.Logf("built geth in %v", time.Since(start).Round(time.Millisecond))
	return bin
}

// startGeth starts `geth --dev` mining on demand in a temporary data
// directory, reachable only on loopback: JSON-RPC over HTTP on a port the
// kernel picks (read back from geth's log), no IPC, no engine API, no
// peers, no discovery, no NAT, no metrics. It waits until eth_chainId
// answers, deploys the contracts from the developer account, and stops geth
// (SIGTERM, then SIGKILL) when the test ends.
func startGeth(t *testing.T, bin string) *gethDev {
	t.Helper()
	g := &gethDev{log: &gethLog{}, exited: make(chan struct{})}
	g.cmd = exec.Command(bin,
		"--dev", "--dev.period", "0",
		"--datadir", t.TempDir(),
		"--http", "--http.addr", "127.0.0.1", "--http.port", "0", "--http.api", "eth,net,web3",
		"--ipcdisable",
		"--nodiscover", "--maxpeers", "0", "--port", "0", "--nat", "none",
		"--authrpc.addr", "127.0.0.1", "--authrpc.port", "0",
		"--cache", "64",
		"--log.format", "json", "--verbosity", "3",
	)
	g.cmd.Stdout = g.log
	g.cmd.Stderr = g.log
	if err := g.cmd.Start(); err != nil {
		t.Fatalf("starting geth: %v", err)
	}
	var waitErr error
	go func() {
		waitErr = g.cmd.Wait()
		close(g.exited)
	}()
	t.Cleanup(func() {
		if g.RPC != nil {
			g.RPC.Close()
		}
		if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			_ = g.cmd.Process.Kill() // no SIGTERM on this system
		}
		select {
		case <-g.exited:
		case <-time.After(20 * time.Second):
			t.Log("geth did not stop on SIGTERM; killing it")
			_ = g.cmd.Process.Kill()
			<-g.exited
		}
		if t.Failed() {
			t.Logf("geth's log (last lines):\n%s", g.log.tail())
		}
	})

	deadline := time.After(60 * time.Second)
	var endpoint, devAddr string
	for endpoint == "" || devAddr == "" {
		select {
		case <-g.exited:
			t.Fatalf("geth exited before it served JSON-RPC: %v", waitErr)
		case <-deadline:
			t.Fatal("geth did not start JSON-RPC within a minute")
		case <-time.After(20 * time.Millisecond):
			endpoint, devAddr = g.log.field("HTTP server started", "endpoint"), g.log.field("Using developer account", "address")
		}
	}
	if !strings.HasPrefix(endpoint, "127.0.0.1:") {
		t.Fatalf("geth serves JSON-RPC on %s, not on loopback", endpoint)
	}
	g.URL = "http://" + endpoint
	g.Dev = chain.NewKeySigner(crypto.ToECDSAUnsafe(common.FromHex(gethDevKey)))
	if common.HexToAddress(devAddr) != g.Dev.Address() {
		t.Fatalf("geth's developer account is %s, not %s (the key of cmd/utils DeveloperKey)", devAddr, g.Dev.Address())
	}

	var err error
	if g.RPC, err = chain.DialRPC(t.Context(), g.URL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "geth to answer eth_chainId", func() bool {
		g.ChainID, err = g.RPC.ChainID(t.Context())
		return err == nil
	})
	var version string
	if err := g.RPC.Client.Client().CallContext(t.Context(), &version, "web3_clientVersion"); err != nil || !strings.HasPrefix(version, "Geth/") {
		t.Fatalf("web3_clientVersion = %q, %v: not geth", version, err)
	}
	t.Logf("%s at %s, chain id %s", version, g.URL, g.ChainID)

	if g.Contracts, err = chain.Deploy(t.Context(), g.RPC, g.Dev, g.clientConfig(), chain.DefaultDeployConfig(), nil); err != nil {
		t.Fatalf("deploying the contracts on geth: %v", err)
	}
	if err := chain.CheckDeployed(t.Context(), g.RPC, g.Contracts); err != nil {
		t.Fatal(err)
	}
	return g
}

// clientConfig is the chain client configuration for geth.
func (g *gethDev) clientConfig() chain.Config {
	c := chain.DefaultConfig()
	c.ChainID = new(big.Int).Set(g.ChainID)
	c.Contracts = g.Contracts
	c.PollInterval = 10 * time.Millisecond
	return c
}

// onGeth points a node at geth's JSON-RPC endpoint: the node dials it like
// any EVM node.
func onGeth(g *gethDev) nodeOpt {
	return func(n *tnode) {
		n.cfg.Chain.RPC, n.cfg.Chain.ChainID, n.cfg.Chain.Contracts = g.URL, g.ChainID.Uint64(), g.Contracts
	}
}

// fund sends amount wei to each of to from the developer account with
// transactions signed here.
func (g *gethDev) fund(t *testing.T, amount *big.Int, to ...negotiation.Address) {
	t.Helper()
	c, err := chain.New(g.RPC, g.Dev, g.clientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range to {
		addr := common.Address(a)
		if _, err := c.Transact(t.Context(), &addr, amount, nil); err != nil {
			t.Fatalf("funding %s from geth's developer account: %v", addr, err)
		}
	}
}

// balance returns a's balance at the latest block.
func (g *gethDev) balance(t *testing.T, a common.Address) *big.Int {
	t.Helper()
	b, err := g.RPC.BalanceAt(t.Context(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// head returns the latest block number.
func (g *gethDev) head(t *testing.T) uint64 {
	t.Helper()
	n, err := g.RPC.BlockNumber(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// feesPaid returns what a paid in transaction fees in blocks from+1
// through to, from the blocks and receipts geth serves.
func (g *gethDev) feesPaid(t *testing.T, a common.Address, from, to uint64) *big.Int {
	t.Helper()
	signer := types.LatestSignerForChainID(g.ChainID)
	total := new(big.Int)
	for n := from + 1; n <= to; n++ {
		b, err := g.RPC.BlockByNumber(t.Context(), new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range b.Transactions() {
			sender, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			if sender != a {
				continue
			}
			r, err := g.RPC.TransactionReceipt(t.Context(), tx.Hash())
			if err != nil {
				t.Fatal(err)
			}
			total.Add(total, new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice))
		}
	}
	return total
}

// gethLog collects geth's JSON log lines: it keeps the last ones for a
// failure report and the first value of the fields the test waits for.
type gethLog struct {
	mu     sync.Mutex
	buf    []byte
	lines  []string
	fields map[string]string
}

// gethLogKeep is how many lines gethLog keeps.
const gethLogKeep = 200

func (l *gethLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := string(l.buf[:i])
		l.buf = l.buf[i+1:]
		l.lines = append(l.lines, line)
		if len(l.lines) > gethLogKeep {
			l.lines = l.lines[len(l.lines)-gethLogKeep:]
		}
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		msg, _ := rec["msg"].(string)
		if auth, ok := rec["auth"].(bool); ok && auth {
			continue // the engine API's server, not JSON-RPC
		}
		for k, v := range rec {
			key := msg + "\x00" + k
			if _, seen := l.fields[key]; !seen {
				if l.fields == nil {
					l.fields = map[string]string{}
				}
				l.fields[key] = fmt.Sprint(v)
			}
		}
	}
	return len(p), nil
}

// field returns the value of key in the first line logged with msg, or "".
func (l *gethLog) field(msg, key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fields[msg+"\x00"+key]
}

// tail returns the lines kept.
func (l *gethLog) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestGethTaskStory runs a poster and a worker against a separate
// `geth --dev` process built from the go-ethereum module: the nodes reach
// the chain only through its JSON-RPC endpoint. The poster proposes a task
// to the worker, both accept, the poster funds escrow with createTask on
// geth, the worker delivers a file with its CID on chain, the poster
// accepts it and the worker withdraws; the balances on geth move by the
// task's amount and the fees each party paid, to the wei.
func TestGethTaskStory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds geth and starts it as a separate process")
	}
	g := startGeth(t, buildGeth(t))

	w := newWorld(t, false)
	poster := w.add("poster", onGeth(g))
	worker := w.add("worker", onGeth(g), withBootstrap(poster))
	connect(t, poster, worker)
	g.fund(t, eth(10_000), poster.Address(), worker.Address())

	registry := g.Contracts.TaskRegistry
	from := g.head(t)
	posterBefore, workerBefore := g.balance(t, common.Address(poster.Address())), g.balance(t, common.Address(worker.Address()))
	registryBefore := g.balance(t, registry)
	amount := eth(450)

	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Proofread the release notes", amount))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the worker's acceptance at the poster", func() bool {
		v, err := poster.Thread(nid)
		return err == nil && len(v.Log) >= 2
	})
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitState(nid, negotiation.StateAgreed)

	fund, err := poster.Fund(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	if fund.Thread.State != negotiation.StateFunded || fund.Tx == nil || fund.Thread.TaskID == "" {
		t.Fatalf("Fund = %+v", fund)
	}
	t.Logf("createTask on geth --dev: %d gas", fund.Tx.GasUsed)
	if got := new(big.Int).Sub(g.balance(t, registry), registryBefore); got.Cmp(amount) != 0 {
		t.Fatalf("the TaskRegistry holds %s wei more after funding, want %s", got, amount)
	}
	worker.waitState(nid, negotiation.StateFunded)

	file := []byte("Release notes, proofread: 14 fixes\n")
	del, err := worker.Deliver(t.Context(), nid, node.DeliverySpec{Milestone: 0, Name: "notes.md", MediaType: "text/markdown", Data: file})
	if err != nil {
		t.Fatal(err)
	}
	cid := del.Detail["cid"]
	if del.Tx == nil || cid == "" {
		t.Fatalf("Deliver = %+v", del)
	}
	eventually(t, "the poster to fetch the delivery and see its CID on geth", func() bool {
		v, err := poster.Thread(nid)
		if err != nil || len(v.Deliveries) != 1 {
			return false
		}
		d := v.Deliveries[0]
		return string(d.ProofCID) == cid && d.Fetched && string(d.ChainProof) == cid
	})
	acc, err := poster.AcceptDelivery(t.Context(), nid, 0)
	if err != nil {
		t.Fatal(err)
	}
	if acc.Tx == nil || acc.Thread.State != negotiation.StateCompleted || acc.Thread.A2A != negotiation.A2ACompleted {
		t.Fatalf("AcceptDelivery = %+v", acc)
	}
	if v := worker.waitState(nid, negotiation.StateCompleted); v.A2A != negotiation.A2ACompleted {
		t.Fatalf("the worker's thread: %s / %s", v.State, v.A2A)
	}

	owed, err := worker.Owed(t.Context(), negotiation.Address{})
	if err != nil || owed.Cmp(amount) != 0 {
		t.Fatalf("the worker is owed %v, %v; want %s", owed, err, amount)
	}
	wd, err := worker.Withdraw(t.Context(), negotiation.Address{})
	if err != nil || wd.Tx == nil || wd.Detail["amount"] != amount.String() {
		t.Fatalf("Withdraw = %+v, %v", wd, err)
	}
	if _, err := worker.Withdraw(t.Context(), negotiation.Address{}); node.CodeOf(err) != node.CodeNothingOwed {
		t.Fatalf("a second withdrawal: %v", err)
	}

	to := g.head(t)
	if got := g.balance(t, registry); got.Cmp(registryBefore) != 0 {
		t.Fatalf("the TaskRegistry holds %s wei after the withdrawal, want %s", got, registryBefore)
	}
	posterFees := g.feesPaid(t, common.Address(poster.Address()), from, to)
	workerFees := g.feesPaid(t, common.Address(worker.Address()), from, to)
	if posterFees.Sign() <= 0 || workerFees.Sign() <= 0 {
		t.Fatalf("fees paid on geth: poster %s, worker %s; both sent transactions", posterFees, workerFees)
	}
	wantPoster := new(big.Int).Sub(posterBefore, new(big.Int).Add(amount, posterFees))
	if got := g.balance(t, common.Address(poster.Address())); got.Cmp(wantPoster) != 0 {
		t.Fatalf("the poster's balance is %s, want %s (%s less the amount and %s of fees)", got, wantPoster, posterBefore, posterFees)
	}
	wantWorker := new(big.Int).Sub(new(big.Int).Add(workerBefore, amount), workerFees)
	if got := g.balance(t, common.Address(worker.Address())); got.Cmp(wantWorker) != 0 {
		t.Fatalf("the worker's balance is %s, want %s (%s plus the amount less %s of fees)", got, wantWorker, workerBefore, workerFees)
	}
	for _, n := range []*tnode{poster, worker} {
		if _, err := n.Ledger().Verify(t.Context()); err != nil {
			t.Fatalf("%s's ledger: %v", n.name, err)
		}
	}
}
