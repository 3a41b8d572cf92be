package chain

import (
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

func TestIdentityLink(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	inbox, link := rand32(), rand32()
	if rec, err := e.poster.c.LinkOf(ctx, e.poster.addr); err != nil || rec.LinkHash != ([32]byte{}) {
		t.Fatalf("record before registering: %+v %v", rec, err)
	}
	for _, tc := range []struct {
		name        string
		inbox, link [32]byte
		peer        string
	}{
		{"zero inbox key", [32]byte{}, link, "12D3KooW"},
		{"zero link hash", inbox, [32]byte{}, "12D3KooW"},
		{"empty peer id", inbox, link, ""},
		{"long peer id", inbox, link, strings.Repeat("x", 129)},
	} {
		_, err := e.poster.c.RegisterLink(ctx, tc.inbox, tc.peer, tc.link)
		wantRevert(t, err, "bad_record")
	}
	_, err := e.poster.c.RotateLink(ctx, inbox, "12D3KooWpeer", link)
	wantRevert(t, err, "not_registered")
	if _, err := e.poster.c.RegisterLink(ctx, inbox, "12D3KooWpeer", link); err != nil {
		t.Fatal(err)
	}
	rec, err := e.outsider.c.LinkOf(ctx, e.poster.addr)
	if err != nil || rec.InboxKey != inbox || rec.LinkHash != link || rec.PeerId != "12D3KooWpeer" || rec.UpdatedAt == 0 {
		t.Fatalf("record %+v %v", rec, err)
	}
	_, err = e.poster.c.RegisterLink(ctx, inbox, "12D3KooWpeer", link)
	wantRevert(t, err, "already_registered")
	// Only the address itself writes its record.
	if rec, _ := e.outsider.c.LinkOf(ctx, e.outsider.addr); rec.LinkHash != ([32]byte{}) {
		t.Fatal("outsider has a record")
	}
	inbox2, link2 := rand32(), rand32()
	r, err := e.poster.c.RotateLink(ctx, inbox2, "12D3KooWnew", link2)
	if err != nil {
		t.Fatal(err)
	}
	if !hasEvent(DecodeEvents(e.addrs, r.Logs), "IdentityLink", "LinkRotated") {
		t.Fatal("no LinkRotated event")
	}
	if rec, _ := e.poster.c.LinkOf(ctx, e.poster.addr); rec.InboxKey != inbox2 || rec.LinkHash != link2 {
		t.Fatalf("after rotation: %+v", rec)
	}
	if _, err := e.poster.c.RevokeLink(ctx); err != nil {
		t.Fatal(err)
	}
	if rec, _ := e.poster.c.LinkOf(ctx, e.poster.addr); rec.LinkHash != ([32]byte{}) {
		t.Fatal("record survives revocation")
	}
	_, err = e.poster.c.RevokeLink(ctx)
	wantRevert(t, err, "not_registered")
}

func TestTaskScopeRegistry(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	ann, scope := rand32(), rand32()
	_, err := e.poster.c.PublishScope(ctx, ann, [32]byte{})
	wantRevert(t, err, "bad_hash")
	if _, err := e.poster.c.PublishScope(ctx, ann, scope); err != nil {
		t.Fatal(err)
	}
	sc, err := e.outsider.c.ScopeOf(ctx, ann)
	if err != nil || sc.Poster != e.poster.addr || sc.ScopeHash != scope || sc.Withdrawn {
		t.Fatalf("scope %+v %v", sc, err)
	}
	_, err = e.outsider.c.PublishScope(ctx, ann, rand32())
	wantRevert(t, err, "already_published")
	_, err = e.outsider.c.WithdrawScope(ctx, ann)
	wantRevert(t, err, "not_poster")
	if _, err := e.poster.c.WithdrawScope(ctx, ann); err != nil {
		t.Fatal(err)
	}
	_, err = e.poster.c.WithdrawScope(ctx, ann)
	wantRevert(t, err, "not_published")
	// A private-discovery task publishes nothing: no record exists for it.
	if sc, _ := e.outsider.c.ScopeOf(ctx, rand32()); sc.Poster != (common.Address{}) {
		t.Fatal("unpublished announcement has a scope")
	}
}

func TestLedgerAnchor(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	head := rand32()
	_, err := e.poster.c.Anchor(ctx, [32]byte{}, 1)
	wantRevert(t, err, "bad_head")
	_, err = e.poster.c.Anchor(ctx, head, 0)
	wantRevert(t, err, "count_not_increasing")
	r, err := e.poster.c.Anchor(ctx, head, 10)
	if err != nil {
		t.Fatal(err)
	}
	evs := DecodeEvents(e.addrs, r.Logs)
	if !hasEvent(evs, "LedgerAnchor", "Anchored") {
		t.Fatal("no Anchored event")
	}
	_, err = e.poster.c.Anchor(ctx, rand32(), 10)
	wantRevert(t, err, "count_not_increasing")
	// Counts are per node.
	if _, err := e.worker.c.Anchor(ctx, rand32(), 3); err != nil {
		t.Fatal(err)
	}
	if n, err := e.outsider.c.LastAnchorCount(ctx, e.poster.addr); err != nil || n != 10 {
		t.Fatalf("last count %d %v", n, err)
	}
}

// TestAnchorsOf reads a node's anchors back from the Anchored events: every
// anchor of that node (root, size, block, tx), oldest first, and none of
// another node's.
func TestAnchorsOf(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if got, err := e.outsider.c.AnchorsOf(ctx, e.poster.addr); err != nil || len(got) != 0 {
		t.Fatalf("anchors before any: %v %v", got, err)
	}
	roots := [][32]byte{rand32(), rand32()}
	if _, err := e.poster.c.EstimateAnchor(ctx, roots[0], 0); !errors.Is(err, ErrReverted) {
		t.Fatalf("estimate of a refused anchor: %v", err)
	}
	est, err := e.poster.c.EstimateAnchor(ctx, roots[0], 5)
	if err != nil {
		t.Fatal(err)
	}
	var receipts []*types.Receipt
	for i, root := range roots {
		r, err := e.poster.c.Anchor(ctx, root, uint64(5*(i+1)))
		if err != nil {
			t.Fatal(err)
		}
		receipts = append(receipts, r)
		if i == 0 && r.GasUsed > est {
			t.Errorf("anchor used %d gas, estimated %d", r.GasUsed, est)
		}
		if _, err := e.worker.c.Anchor(ctx, rand32(), uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := e.outsider.c.AnchorsOf(ctx, e.poster.addr)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d anchors, want 2: %+v", len(got), got)
	}
	for i, a := range got {
		if a.Node != e.poster.addr || a.Root != roots[i] || a.Size != uint64(5*(i+1)) ||
			a.TxHash != receipts[i].TxHash || a.Block != receipts[i].BlockNumber.Uint64() || a.Timestamp == 0 {
			t.Errorf("anchor %d = %+v, want root %x size %d tx %s", i, a, roots[i], 5*(i+1), receipts[i].TxHash)
		}
	}
}
