package node_test

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"

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
