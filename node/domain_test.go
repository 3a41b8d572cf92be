package node_test

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// withDomain makes a node chain-less with the configured chain id and
// TaskRegistry its offers name.
func withDomain(chainID uint64, registry common.Address) nodeOpt {
	return func(n *tnode) {
		n.cfg.Chain.RPC, n.cfg.Chain.ChainID, n.cfg.Chain.Contracts.TaskRegistry = "", chainID, registry
	}
}

// TestForeignDomainRefusedBeforeApproval: a worker is offered terms whose
// EIP-712 domain names another chain id, or another TaskRegistry, than the
// chain it acts on (a dev chain, read through its client; or a chain-less
// node's configured chain id and registry). Accept is refused with
// foreign_domain before any approval is asked: the gate saw nothing,
// nothing is pending, nothing was signed, recorded or sent, and the
// poster received nothing.
func TestForeignDomainRefusedBeforeApproval(t *testing.T) {
	w := newWorld(t, true)
	devID, devRegistry := w.dev.ChainID.Uint64(), w.dev.Contracts.TaskRegistry
	other := common.HexToAddress("0x00000000000000000000000000000000000bad01")
	// The other dev chain id: auto-approval (the test driver's gate) runs on
	// dev chain ids only.
	otherID := uint64(31337)
	if devID == otherID {
		otherID = 1337
	}
	cases := []struct {
		name         string
		poster       nodeOpt
		workerOnDev  bool
		workerDomain nodeOpt
	}{
		{"another chain id", withDomain(otherID, devRegistry), true, nil},
		{"another registry", withDomain(devID, other), true, nil},
		{"another chain id, a worker without a chain", withDomain(otherID, devRegistry), false, withDomain(devID, devRegistry)},
		{"another registry, a worker without a chain", withDomain(devID, other), false, withDomain(devID, devRegistry)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			poster := w.add("poster", tc.poster)
			gate := &recGate{}
			opts := []nodeOpt{withBootstrap(poster), withGate(gate)}
			if !tc.workerOnDev {
				opts = append(opts, tc.workerDomain)
			}
			worker := w.add("worker", opts...)
			connect(t, poster, worker)
			res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Translate the release notes", eth(100)))
			if err != nil {
				t.Fatal(err)
			}
			nid := res.Thread.NegotiationID
			before := worker.waitState(nid, negotiation.StateProposed)
			head := worker.Ledger().Head()

			_, err = worker.Accept(t.Context(), nid)
			if node.CodeOf(err) != node.CodeForeignDomain {
				t.Fatalf("Accept of an offer for a foreign domain = %v, want %s", err, node.CodeForeignDomain)
			}
			if len(gate.reqs) != 0 {
				t.Fatalf("the gate was asked %+v", gate.reqs)
			}
			if p := worker.Gate().PendingApprovals(); len(p) != 0 {
				t.Fatalf("approvals pending: %+v", p)
			}
			if got := worker.Ledger().Head(); got.Seq != head.Seq {
				t.Fatalf("the worker's ledger grew by %d entries", got.Seq-head.Seq)
			}
			if k := kinds(t, worker, nid); k["envelope.sent"] != 0 || k["outbox.queued"] != 0 || k[ledger.KindApproval] != 0 {
				t.Fatalf("the worker's ledger: %v", k)
			}
			after, _ := worker.Thread(nid)
			if after.State != negotiation.StateProposed || len(after.Log) != len(before.Log) {
				t.Fatalf("the worker's thread changed: %+v", after)
			}
			if pv, _ := poster.Thread(nid); len(pv.Log) != 1 {
				t.Fatalf("the poster received %d records", len(pv.Log)-1)
			}
		})
	}
	// The same worker accepts an offer for its own chain.
	t.Run("its own chain", func(t *testing.T) {
		poster := w.add("poster")
		worker := w.add("worker", withBootstrap(poster))
		connect(t, poster, worker)
		res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Translate the release notes", eth(100)))
		if err != nil {
			t.Fatal(err)
		}
		worker.waitState(res.Thread.NegotiationID, negotiation.StateProposed)
		if _, err := worker.Accept(t.Context(), res.Thread.NegotiationID); err != nil {
			t.Fatal(err)
		}
	})
}

// TestForeignDomainOfAFundedTask: a funded task's agreement names the
// TaskRegistry it was signed for. A node that now acts on another
// TaskRegistry (a second deployment on the same chain) refuses every act
// that signs or pays for that agreement, funding included, with
// foreign_domain before any approval is asked; on its own registry the
// same acts reach the gate.
func TestForeignDomainOfAFundedTask(t *testing.T) {
	w := newWorld(t, true)
	b, err := chain.DialRPC(t.Context(), w.dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	second, err := chain.Deploy(t.Context(), b, w.dev.Deployer.Signer(), w.dev.ClientConfig(), chain.DefaultDeployConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	gate := &recGate{deny: map[node.Act]bool{node.ActFundEscrow: true, node.ActSignCancel: true, node.ActSignAmendment: true, node.ActSignReplacement: true}}
	poster := w.add("poster", withGate(gate))
	worker := w.add("worker", withBootstrap(poster), withGate(gate))
	stranger := w.add("stranger")
	connect(t, poster, worker)

	// One thread agreed and not funded, one funded, both on the first registry.
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Translate the FAQ", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	agreed := res.Thread.NegotiationID
	worker.waitState(agreed, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), agreed); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(agreed, 2)
	if _, err := poster.Accept(t.Context(), agreed); err != nil {
		t.Fatal(err)
	}
	setDeny := func(deny bool) {
		gate.mu.Lock()
		defer gate.mu.Unlock()
		gate.deny[node.ActFundEscrow] = deny
	}
	asked := func() int {
		gate.mu.Lock()
		defer gate.mu.Unlock()
		return len(gate.reqs)
	}
	setDeny(false)
	funded := agree(t, poster, worker, eth(200))
	setDeny(true)

	acts := []struct {
		name string
		n    *tnode
		act  node.Act
		do   func(n *tnode) error
	}{
		{"fund", poster, node.ActFundEscrow, func(n *tnode) error { _, err := n.Fund(t.Context(), agreed); return err }},
		{"cancel", worker, node.ActSignCancel, func(n *tnode) error { _, err := n.Cancel(t.Context(), funded, "no longer needed"); return err }},
		{"amend", worker, node.ActSignAmendment, func(n *tnode) error {
			_, err := n.Amend(t.Context(), funded, node.AmendSpec{Milestones: []node.MilestoneSpec{{Amount: eth(250), Description: "more"}}, Deadline: time.Now().Add(96 * time.Hour)})
			return err
		}},
		{"replace", worker, node.ActSignReplacement, func(n *tnode) error {
			_, err := n.Replace(t.Context(), funded, node.ReplaceSpec{NewWorker: stranger.Address(), Summary: "hand-over"})
			return err
		}},
	}
	// On its own registry each act reaches the gate (which denies it).
	for _, a := range acts {
		if err := a.do(a.n); node.CodeOf(err) != node.CodeApprovalDenied {
			t.Fatalf("%s on the agreed registry = %v, want the gate's denial", a.name, err)
		}
	}
	before := asked()
	for _, n := range []*tnode{poster, worker} {
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		n.cfg.Chain.Contracts = second
		n.start()
	}
	for _, a := range acts {
		if err := a.do(a.n); node.CodeOf(err) != node.CodeForeignDomain {
			t.Fatalf("%s of an agreement for another registry = %v, want foreign_domain", a.name, err)
		}
	}
	if got := asked(); got != before {
		t.Fatalf("the gate was asked %d more times", got-before)
	}
}
