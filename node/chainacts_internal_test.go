package node

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// TestChainActsWithoutANode: the chain side of the acts is built from what
// it is given, not from a Node: with an engine and nothing else, a chain
// fact of a negotiation this node does not hold is skipped (no thread, no
// error), a receipt-less act applies nothing, and a node without a chain
// submits nothing on receipt or after a restart.
func TestChainActsWithoutANode(t *testing.T) {
	spawned := 0
	c := &chainActs{
		eng:   engine.New(engine.Config{}),
		spawn: func(func(context.Context)) { spawned++ },
	}
	ctx := t.Context()
	if nid, f := c.factOf(negotiation.TaskFunded{}, chain.FactRef{NegotiationID: "not-held"}); nid != "" || f != nil {
		t.Fatalf("a fact of a negotiation not held: %q, %v", nid, f)
	}
	if nid, f := c.factOf(negotiation.MilestonesAmended{}, chain.FactRef{TaskID: [32]byte{1}, Nonce: 2}); nid != "" || f != nil {
		t.Fatalf("an amendment of a task not held: %q, %v", nid, f)
	}
	if err := c.onFact(ctx, negotiation.TaskFunded{}, chain.FactRef{TaskID: [32]byte{1}}, types.Log{}); err != nil {
		t.Fatalf("a fact of a task not held: %v", err)
	}
	if err := c.onEvents(ctx, nil); err != nil {
		t.Fatalf("no events: %v", err)
	}
	if err := c.applyReceipt(ctx, nil); err != nil {
		t.Fatalf("no receipt: %v", err)
	}
	th, err := negotiation.NewThread(negotiation.Params{NegotiationID: "7f0c8a52-3b1e-4c7d-9a2e-5d6f7a8b9c0d"})
	if err != nil {
		t.Fatal(err)
	}
	tr := &thread{ID: "7f0c8a52-3b1e-4c7d-9a2e-5d6f7a8b9c0d", Th: th}
	c.onCoSigned(tr, nil)
	c.resumeCoSigned(tr)
	if spawned != 0 {
		t.Fatalf("%d submissions started without a chain", spawned)
	}
}
