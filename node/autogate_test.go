package node_test

import (
	"context"
	"log/slog"
	"math/big"
	"strings"
	"testing"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// approveAll is an explicit gate that approves every act but is not
// AutoApprove's: the node cannot tell it from a person's decision, as a
// test double standing in for the principal.
var approveAll = node.GateFunc(func(context.Context, node.ApprovalRequest) (node.Decision, error) {
	return node.Decision{Approved: true, Method: "test", By: "test"}, nil
})

func withChainID(id uint64) nodeOpt { return func(n *tnode) { n.cfg.Chain.ChainID = id } }

// startErr builds and starts a node on cfg with opts and returns Start's
// error (closing the node when it started).
func startErr(t *testing.T, cfg node.Config, opts ...node.Option) error {
	t.Helper()
	n, err := node.New(cfg, append(nodetest.Options(t, cfg.Name), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	err = n.Start(t.Context())
	if err == nil {
		_ = n.Close()
	}
	return err
}

// TestAutoOnlyOnDevChain: approval.mode auto (the AutoApprove gate) is
// refused by Start itself, with bad_config and a sentence saying why, on
// a chain-less node whose chain.chain_id is not a dev chain's (1, as was
// tried) or is unset, and on a chain whose own id is not a dev chain's;
// it runs on 1337 and 31337; a node whose principal decides is not
// concerned.
func TestAutoOnlyOnDevChain(t *testing.T) {
	for _, c := range []struct {
		name string
		id   uint64
		auto bool
		ok   bool
	}{
		{"chain id 1", 1, true, false},
		{"no chain id", 0, true, false},
		{"chain id 10", 10, true, false},
		{"chain id 1337", 1337, true, true},
		{"chain id 31337", 31337, true, true},
		{"chain id 1, passkeys", 1, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := nodetest.Config(nodetest.Keys(t), "node")
			cfg.Chain.ChainID = c.id
			var opts []node.Option
			if c.auto {
				opts = append(opts, node.WithGate(node.AutoApprove("test")))
			}
			err := startErr(t, cfg, opts...)
			if c.ok != (err == nil) {
				t.Fatalf("Start = %v, want ok %v", err, c.ok)
			}
			if !c.ok && (node.CodeOf(err) != node.CodeBadConfig || !strings.Contains(err.Error(), "allowed only on a dev chain (chain id 1337 or 31337)")) {
				t.Fatalf("the refusal says %v", err)
			}
		})
	}
	t.Run("a chain whose id is 5", func(t *testing.T) {
		dcfg := chain.DefaultDevchainConfig()
		dcfg.ChainID = big.NewInt(5)
		dcfg.Logger = slog.New(slog.DiscardHandler)
		dev, err := chain.StartDevchain(t.Context(), dcfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = dev.Close() })
		cfg := nodetest.Config(nodetest.Keys(t), "node")
		nodetest.UseChain(&cfg, dev)
		err = startErr(t, cfg, node.WithGate(node.AutoApprove("test")))
		if node.CodeOf(err) != node.CodeBadConfig || !strings.Contains(err.Error(), "this node's chain is chain id 5") {
			t.Fatalf("auto on chain 5 = %v", err)
		}
		cfg.Chain.ChainID = 0 // only the chain's own id counts
		if err := startErr(t, cfg, node.WithGate(node.AutoApprove("test"))); node.CodeOf(err) != node.CodeBadConfig {
			t.Fatalf("auto on chain 5 without chain.chain_id = %v", err)
		}
	})
}

// TestAutoRefusesAnotherDomain: a node in approval mode auto on a dev
// chain refuses to sign a settlement whose terms name another chain (the
// counterparty sets them): its gate refuses the request with bad_config
// (Accept refuses such an offer before it asks, with foreign_domain) and
// nothing is signed or sent. Once its keys have signed for another chain
// (under its principal's decision), the node refuses to start in auto
// mode again, naming the chain and the negotiation.
func TestAutoRefusesAnotherDomain(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster", withChainID(1), withGate(approveAll))
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Translate the guide", eth(300)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	// Accept refuses an offer for another chain before it asks the gate
	// (foreign_domain, TestForeignDomainRefusedBeforeApproval); the gate's
	// own refusal is reached with the settlement's arguments.
	args := map[string]any{"negotiationId": nid, "chainId": "1", "digest": negotiation.Hash{}.String()}
	if err := worker.AuthorizeForTest(t.Context(), node.ActSignSettlement, nid, args); node.CodeOf(err) != node.CodeBadConfig || !strings.Contains(err.Error(), "chain id 1 refused") {
		t.Fatalf("auto-accepting a settlement for chain 1 = %v", err)
	}
	if v, _ := worker.Thread(nid); len(v.Log) != 1 || v.State != negotiation.StateProposed {
		t.Fatalf("the refused acceptance left %+v", v.Log)
	}

	// The worker's principal signs that settlement (on a node set up for
	// chain 1: a node signs for its own chain only); auto mode is then
	// refused for good.
	if err := worker.Close(); err != nil {
		t.Fatal(err)
	}
	worker.gate = approveAll
	devID := worker.cfg.Chain.ChainID
	worker.cfg.Chain.ChainID = 1
	worker.start()
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	if err := worker.Close(); err != nil {
		t.Fatal(err)
	}
	worker.cfg.Chain.ChainID = devID
	err = startErr(t, worker.cfg, node.WithGate(node.AutoApprove("test")))
	if node.CodeOf(err) != node.CodeBadConfig || !strings.Contains(err.Error(), "signatures it made for chain id 1 (negotiation "+nid+")") {
		t.Fatalf("auto after signing for chain 1 = %v", err)
	}
}
