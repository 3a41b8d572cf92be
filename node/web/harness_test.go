package web_test

import (
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	"github.com/parleynet/parley/node/web"
)

// testLogger is the test nodes' and pages' logger.
func testLogger(t testing.TB, name string) *slog.Logger { return nodetest.Logger(t, name) }

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
	agents    node.AgentBook
	grantTTL  time.Duration
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

	var bootstrap []*node.Node
	for _, b := range spec.bootstrap {
		bootstrap = append(bootstrap, b.Node)
	}
	var opts []node.Option
	if spec.gate != nil {
		opts = append(opts, node.WithGate(spec.gate))
	}
	n := nodetest.New(t, spec.name, func(cfg *node.Config) {
		cfg.WebAuthn.Origins = []string{s.origin}
		nodetest.Bootstrap(cfg, bootstrap...)
	}, opts...)
	s.Node = n
	if spec.web {
		h, err := web.New(n, web.Options{Logger: testLogger(t, spec.name+"/web"), Refresh: 500 * time.Millisecond, Agents: spec.agents, GrantTTL: spec.grantTTL})
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

// eventually polls cond until it holds (nodetest.Eventually).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	nodetest.Eventually(t, what, cond)
}

// connect waits until both nodes know each other's link.
func connect(t testing.TB, a, b *site) {
	t.Helper()
	nodetest.Connect(t, a.Node, b.Node)
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
		for _, q := range worker.Gate().PendingApprovals() {
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
