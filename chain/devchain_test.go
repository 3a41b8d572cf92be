package chain

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

func startDevchain(t *testing.T, dir string) *Devchain {
	t.Helper()
	cfg := DefaultDevchainConfig()
	cfg.DataDir = dir
	d, err := StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// rpcClient dials the devchain over HTTP JSON-RPC and acts as account i.
func rpcClient(t *testing.T, d *Devchain, i int) *Client {
	t.Helper()
	b, err := DialRPC(t.Context(), d.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	c, err := New(b, d.Accounts[i].Signer(), d.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// devSettlement is a signed ETH settlement between dev accounts 0 and 1.
func devSettlement(t *testing.T, d *Devchain, poster *Client) (negotiation.Settlement, []byte, []byte) {
	t.Helper()
	s := negotiation.Settlement{
		Poster: d.Accounts[0].Address, Worker: d.Accounts[1].Address,
		Amount: big.NewInt(3e18), MilestoneAmounts: []*big.Int{big.NewInt(1e18), big.NewInt(2e18)},
		Deadline: uint64(time.Now().Add(24 * time.Hour).Unix()), TermsHash: rand32(), AcceptedOfferHash: rand32(),
		Nonce: new(big.Int).SetBytes(randBytes(16)),
	}
	copy(s.NegotiationID[:], randBytes(16))
	dom, err := poster.Domain(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	digest, err := s.Digest(dom)
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := d.Accounts[0].Signer().SignDigest(digest)
	ws, _ := d.Accounts[1].Signer().SignDigest(digest)
	return s, ps, ws
}

// TestDevchainOverJSONRPC drives the contracts through ethclient over HTTP
// JSON-RPC against the embedded chain, then restarts it from its data
// directory.
func TestDevchainOverJSONRPC(t *testing.T) {
	dir := t.TempDir()
	d := startDevchain(t, dir)
	u, err := url.Parse(d.URL)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		t.Fatalf("RPC URL %q is not http on 127.0.0.1", d.URL)
	}
	if d.ChainID.Int64() != 1337 || len(d.Accounts) != 4 {
		t.Fatalf("chain %v, %d accounts", d.ChainID, len(d.Accounts))
	}
	ctx := t.Context()
	poster, worker := rpcClient(t, d, 0), rpcClient(t, d, 1)
	if id, err := poster.ChainID(ctx); err != nil || id.Cmp(d.ChainID) != 0 {
		t.Fatalf("chain id over RPC: %v %v", id, err)
	}
	s, ps, ws := devSettlement(t, d, poster)
	onChain, err := poster.SettlementDigestOnChain(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := poster.CreateTask(ctx, s, ps, ws)
	if err != nil {
		t.Fatal(err)
	}
	if res.TaskID != onChain {
		t.Fatal("task id is not the contract's digest")
	}
	r, err := worker.SubmitProof(ctx, res.TaskID, res.Task, 0, "bafkreiproof")
	if err != nil {
		t.Fatal(err)
	}
	r, err = poster.ReleaseMilestone(ctx, res.TaskID, r.Task, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := worker.Withdraw(ctx, ethToken, big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	_, err = worker.Withdraw(ctx, ethToken, big.NewInt(1))
	wantRevert(t, err, "insufficient_balance")
	_, err = poster.CreateTask(ctx, s, ps, ws)
	wantRevert(t, err, "digest_used")
	contracts := d.Contracts
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal("second Close:", err)
	}

	// Restart from the same directory: same contracts, same state.
	d2 := startDevchain(t, dir)
	if d2.Contracts != contracts {
		t.Fatalf("contracts moved: %+v vs %+v", d2.Contracts, contracts)
	}
	poster2 := rpcClient(t, d2, 0)
	st, err := poster2.TaskState(ctx, res.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if h1, h2 := mustHash(t, st), mustHash(t, r.Task); h1 != h2 {
		t.Fatal("task state changed across restart")
	}
	if _, err := poster2.ReleaseMilestone(ctx, res.TaskID, st, 1); err != nil {
		t.Fatal(err)
	}
}

const childEnv = "PARLEY_DEVCHAIN_CHILD_DIR"

// TestDevchainChildProcess is the devchain run in a child process by
// TestDevchainSurvivesKill; it does nothing on its own.
func TestDevchainChildProcess(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("helper process for TestDevchainSurvivesKill")
	}
	cfg := DefaultDevchainConfig()
	cfg.DataDir = dir
	cfg.OnDurable = func(n uint64) { fmt.Fprintf(os.Stdout, "DURABLE %d\n", n) }
	d, err := StartDevchain(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("URL " + d.URL + "\n")
	select {} // until killed
}

// TestDevchainSurvivesKill runs the devchain in a child process, funds a
// task through it, kills the child with SIGKILL, and restarts the chain from
// its data directory.
func TestDevchainSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := filepath.Join(t.TempDir(), "chain")
	cmd := exec.Command(os.Args[0], "-test.run=^TestDevchainChildProcess$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	urlc := make(chan string, 1)
	durable := make(chan uint64, 1024)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "URL "); ok {
				urlc <- u
			}
			if v, ok := strings.CutPrefix(sc.Text(), "DURABLE "); ok {
				n, _ := strconv.ParseUint(v, 10, 64)
				durable <- n
			}
		}
	}()
	var rpcURL string
	select {
	case rpcURL = <-urlc:
	case <-time.After(2 * time.Minute):
		t.Fatal("child devchain did not start")
	}
	ctx := t.Context()
	remote := &Devchain{URL: rpcURL, ChainID: big.NewInt(1337)}
	for i := range 2 {
		k := DevKey(i)
		remote.Accounts = append(remote.Accounts, DevAccount{Address: NewKeySigner(k).Address(), Key: k})
	}
	b, err := DialRPC(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// The contracts are where the child recorded them.
	rec := readDevchainRecord(t, dir)
	remote.Contracts = rec.Contracts
	poster := rpcClient(t, remote, 0)
	s, ps, ws := devSettlement(t, remote, poster)
	res, err := poster.CreateTask(ctx, s, ps, ws)
	if err != nil {
		t.Fatal(err)
	}
	// Kill as soon as the child reports the task's block durable.
	for n := uint64(0); n < res.Receipt.BlockNumber.Uint64(); {
		select {
		case n = <-durable:
		case <-time.After(time.Minute):
			t.Fatal("the child never reported the block durable")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true

	d := startDevchain(t, dir)
	if d.Contracts != rec.Contracts {
		t.Fatal("contracts moved after kill -9")
	}
	c := rpcClient(t, d, 0)
	if n, err := c.Backend().BlockNumber(ctx); err == nil {
		t.Logf("after restart head %d, task mined in %d", n, res.Receipt.BlockNumber)
	}
	st, err := c.TaskState(ctx, res.TaskID)
	if err != nil {
		t.Fatalf("task lost after kill -9: %v", err)
	}
	if mustHash(t, st) != mustHash(t, res.Task) {
		t.Fatal("task state changed after kill -9")
	}
}

func readDevchainRecord(t *testing.T, dir string) devchainRecord {
	t.Helper()
	var rec devchainRecord
	b, err := os.ReadFile(filepath.Join(dir, devchainFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestDevchainMinesOnAPeriod(t *testing.T) {
	cfg := DefaultDevchainConfig()
	cfg.Period = time.Second
	d, err := StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	b, err := DialRPC(t.Context(), d.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	start, err := b.BlockNumber(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		n, err := b.BlockNumber(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n >= start+2 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no blocks sealed without transactions")
}

func TestDevchainConfigValidate(t *testing.T) {
	for name, mutate := range map[string]func(*DevchainConfig){
		"no chain id":       func(c *DevchainConfig) { c.ChainID = nil },
		"sub-second":        func(c *DevchainConfig) { c.Period = time.Millisecond },
		"no accounts":       func(c *DevchainConfig) { c.Accounts = 0 },
		"port out of range": func(c *DevchainConfig) { c.HTTPPort = 70000 },
		"host not an IP":    func(c *DevchainConfig) { c.HTTPHost = "example.com" },
		"no bond":           func(c *DevchainConfig) { c.Deploy.Bond = nil },
	} {
		c := DefaultDevchainConfig()
		mutate(&c)
		if _, err := StartDevchain(t.Context(), c); err == nil {
			t.Errorf("%s: started", name)
		}
	}
}
