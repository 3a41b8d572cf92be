package web_test

import (
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/web"
	"github.com/parleynet/parley/p2p"
)

var testPass = []byte("parley web test passphrase")

// testLogger writes the records to the test log when PARLEY_TEST_LOG is
// set, and discards them otherwise.
func testLogger(t testing.TB, name string) *slog.Logger {
	if os.Getenv("PARLEY_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(tlogWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})).With("who", name)
}

type tlogWriter struct{ t testing.TB }

func (w tlogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// site is a node with its principal's pages served on a loopback port at
// http://localhost:<port>.
type site struct {
	*node.Node
	origin string
	ln     net.Listener
	pages  http.Handler
}

// nodeSpec says how to build one test node.
type nodeSpec struct {
	name      string
	gate      node.Gate // nil: the principal's passkeys decide
	bootstrap []*site
	web       bool // serve the pages
}

// newSite creates keys in a fresh data directory, starts a chain-less node
// on loopback (chain id and registry set, so it can propose and sign
// settlements) and, when asked, serves its pages.
func newSite(t *testing.T, spec nodeSpec) *site {
	t.Helper()
	s := &site{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	s.origin = fmt.Sprintf("http://localhost:%d", ln.Addr().(*net.TCPAddr).Port)
	if !spec.web {
		_ = ln.Close()
	}

	dir := t.TempDir()
	kc := identity.DefaultConfig(dir)
	kc.ScryptWorkFactor = 10
	kc.KeystoreScryptN = keystore.LightScryptN
	kc.KeystoreScryptP = keystore.LightScryptP
	kc.KEM = identity.KEMX25519
	if _, err := identity.Create(kc, testPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Name = dir, spec.name
	cfg.P2P.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.P2P.DHT = false
	cfg.P2P.RetryMax = 500 * time.Millisecond
	cfg.Chain.ChainID = 1337
	cfg.Chain.Contracts.TaskRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	cfg.WebAuthn.Origins = []string{s.origin}
	for _, b := range spec.bootstrap {
		cfg.P2P.Bootstrap = append(cfg.P2P.Bootstrap, b.Addrs()[0].String())
	}
	opts := []node.Option{
		node.WithPassphrase(testPass),
		node.WithLogger(testLogger(t, spec.name)),
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
	if spec.gate != nil {
		opts = append(opts, node.WithGate(spec.gate))
	}
	n, err := node.New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	s.Node = n
	if spec.web {
		h, err := web.New(n, web.Options{Logger: testLogger(t, spec.name+"/web"), Refresh: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		s.pages = h
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("serving the pages: %v", err)
			}
		}()
		t.Cleanup(func() {
			_ = srv.Close()
			<-done
		})
	}
	return s
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

// connect waits until both nodes know each other's link.
func connect(t testing.TB, a, b *site) {
	t.Helper()
	eventually(t, "the nodes to know each other", func() bool {
		_, ok1 := a.Host().Link(b.Address())
		_, ok2 := b.Host().Link(a.Address())
		return ok1 && ok2
	})
}

func eth(milli int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(milli), big.NewInt(params.Ether/1000))
}

// proposal has the poster propose a task to the worker and waits until the
// worker holds the proposal; it returns the negotiation id.
func proposal(t *testing.T, poster, worker *site, title string, amounts ...*big.Int) string {
	t.Helper()
	spec := node.TaskSpec{Title: title, Category: "translation", Deadline: time.Now().Add(72 * time.Hour)}
	for i, a := range amounts {
		spec.Milestones = append(spec.Milestones, node.MilestoneSpec{Amount: a, Description: fmt.Sprintf("part %d", i+1)})
	}
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec)
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	eventually(t, "the proposal at the worker", func() bool {
		v, err := worker.Thread(nid)
		return err == nil && v.State == negotiation.StateProposed
	})
	return nid
}

// accepting starts the worker's acceptance of nid, which waits for the
// principal's decision, and returns the pending approval and a channel
// with the act's result.
func accepting(t *testing.T, worker *site, nid string) (node.PendingApproval, <-chan error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := worker.Accept(t.Context(), nid)
		done <- err
	}()
	var p node.PendingApproval
	eventually(t, "the approval request of the acceptance", func() bool {
		for _, q := range worker.PendingApprovals() {
			if q.Request.Action.Target == nid {
				p = q
				return true
			}
		}
		return false
	})
	return p, done
}

// sent reports whether the node's thread nid holds its own acceptance.
func sent(t *testing.T, n *site, nid string) bool {
	t.Helper()
	v, err := n.Thread(nid)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range v.Log {
		if e.Type == negotiation.TypeTaskAcceptance && e.Sender == n.Address() && e.Code == "ok" {
			return true
		}
	}
	return false
}
