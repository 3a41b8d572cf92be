package chain

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestAnchorOfTx reads the Anchored event of one transaction with its
// sender, whoever sent it; a transaction the chain does not have, or one
// that anchored nothing, is not an anchor.
func TestAnchorOfTx(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	root := rand32()
	r, err := e.worker.c.Anchor(ctx, root, 7)
	if err != nil {
		t.Fatal(err)
	}
	a, ok, err := e.outsider.c.AnchorOfTx(ctx, r.TxHash)
	if err != nil || !ok {
		t.Fatalf("anchor of the tx: %v %v", ok, err)
	}
	if a.Node != e.worker.addr || a.Root != root || a.Size != 7 || a.TxHash != r.TxHash || a.Block != r.BlockNumber.Uint64() {
		t.Fatalf("anchor of the tx = %+v", a)
	}
	if _, ok, err := e.outsider.c.AnchorOfTx(ctx, common.Hash(rand32())); err != nil || ok {
		t.Fatalf("an unknown tx: %v %v", ok, err)
	}
	other, err := e.poster.c.PublishScope(ctx, rand32(), rand32())
	if err != nil {
		t.Skipf("no other transaction to read: %v", err)
	}
	if _, ok, err := e.outsider.c.AnchorOfTx(ctx, other.TxHash); err != nil || ok {
		t.Fatalf("a tx that anchored nothing: %v %v", ok, err)
	}
}
