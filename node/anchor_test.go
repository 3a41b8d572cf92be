package node_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// grow adds an entry to n's ledger that is not a tree head or anchor (a
// consent state for a fresh address).
func grow(t *testing.T, n *tnode) {
	t.Helper()
	var a negotiation.Address
	_, _ = rand.Read(a[:])
	if _, err := n.ConsentBook().Set(t.Context(), a, node.ConsentAllowed, node.ConsentViaAPI); err != nil {
		t.Fatal(err)
	}
}

// anchorsOnChain reads n's anchors from LedgerAnchor.
func anchorsOnChain(t *testing.T, n *tnode) []chain.AnchorEvent {
	t.Helper()
	evs, err := n.Chain().AnchorsOf(t.Context(), common.Address(n.Address()))
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestAnchorLedger: an anchor signs the node's tree head, sends it to
// LedgerAnchor from the node's EVM key and records it; the chain's
// Anchored event names the same root and size and the node's address as
// sender. An anchor with nothing new is refused (anchor_unchanged) and
// sends nothing; once the ledger grew, the next anchor covers more.
func TestAnchorLedger(t *testing.T) {
	w := newWorld(t, true)
	n := w.add("anchorer")
	ctx := t.Context()
	grow(t, n)
	got, err := n.AnchorLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	led := n.Ledger()
	root, err := led.TreeHead(got.Size)
	if err != nil {
		t.Fatal(err)
	}
	if got.Root != negotiation.Hash(root).String() || got.Address != n.Address().String() || got.Contract != w.dev.Contracts.LedgerAnchor.Hex() || got.ChainID != w.dev.ChainID.Uint64() {
		t.Fatalf("anchor %+v, want root %s from %s", got, negotiation.Hash(root), n.Address())
	}
	// Recorded after its receipt, as a tree.anchor entry of the same anchor.
	ta, e, err := led.LatestTreeAnchor(ctx, math.MaxUint64)
	if err != nil || e.Seq != got.Seq || ta.TxHash.String() != got.TxHash || ta.Size != got.Size {
		t.Fatalf("recorded anchor %+v at %d (%v), want %+v", ta, e.Seq, err, got)
	}
	// The head it anchored is signed and recorded before it.
	h, he, err := led.LatestTreeHead(ctx)
	if err != nil || h.Size != got.Size || h.Root != root || he.Seq >= e.Seq {
		t.Fatalf("signed head %+v at %d (%v)", h, he.Seq, err)
	}
	evs := anchorsOnChain(t, n)
	if len(evs) != 1 || evs[0].Node != common.Address(n.Address()) || evs[0].Root != root || evs[0].Size != got.Size || evs[0].TxHash.Hex() != got.TxHash || evs[0].Block != got.BlockNumber {
		t.Fatalf("on chain %+v, want the anchor %+v", evs, got)
	}

	// Nothing new since: refused, nothing sent or recorded.
	before := led.Head().Seq
	if _, err := n.AnchorLedger(ctx); node.CodeOf(err) != node.CodeAnchorUnchanged {
		t.Fatalf("an anchor with nothing new: %v", err)
	}
	if led.Head().Seq != before || len(anchorsOnChain(t, n)) != 1 {
		t.Fatal("an unchanged anchor wrote or sent something")
	}
	grow(t, n)
	next, err := n.AnchorLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next.Size <= got.Size || len(anchorsOnChain(t, n)) != 2 {
		t.Fatalf("the next anchor covers %d, the first %d", next.Size, got.Size)
	}
	heads, err := n.LedgerHeads(ctx)
	if err != nil || heads.Anchor == nil || *heads.Anchor != next || heads.Head == nil || heads.Head.Size != next.Size || heads.Budget.Spent == 0 {
		t.Fatalf("heads %+v (%v)", heads, err)
	}
}

// TestAnchorBudget: an anchor that would take the day's gas over
// ledger.anchor_gas_per_day is refused (anchor_budget, rate_limited with
// the wait until the next UTC day) and sends nothing; the day's spend is
// counted from the ledger's anchors, so a restart does not reset it.
func TestAnchorBudget(t *testing.T) {
	w := newWorld(t, true)
	// An anchor uses about 29,000 gas, the first about 46,000: room for one.
	n := w.add("frugal", func(n *tnode) { n.cfg.Ledger.AnchorGasPerDay = 60_000 })
	ctx := t.Context()
	grow(t, n)
	if _, err := n.AnchorLedger(ctx); err != nil {
		t.Fatal(err)
	}
	refused := func(when string) {
		t.Helper()
		grow(t, n)
		_, err := n.AnchorLedger(ctx)
		if node.CodeOf(err) != node.CodeAnchorBudget || node.RetryAfter(err) <= 0 {
			t.Fatalf("%s: an anchor over the budget: %v (retry after %v)", when, err, node.RetryAfter(err))
		}
		var ne *node.Error
		if !errors.As(err, &ne) || ne.Class() != "rate_limited" {
			t.Fatalf("%s: class of %v", when, err)
		}
		if len(anchorsOnChain(t, n)) != 1 {
			t.Fatalf("%s: an anchor over the budget was sent", when)
		}
	}
	refused("before a restart")
	heads, err := n.LedgerHeads(ctx)
	if err != nil || heads.Budget.Spent < 29_000 || heads.Budget.Limit != 60_000 || heads.Budget.Day != time.Now().UTC().Format(time.DateOnly) {
		t.Fatalf("budget %+v (%v)", heads.Budget, err)
	}
	spent := heads.Budget.Spent
	n.restart()
	refused("after a restart")
	if heads, err := n.LedgerHeads(ctx); err != nil || heads.Budget.Spent != spent {
		t.Fatalf("after a restart the day's spend is %d (%v), before %d", heads.Budget.Spent, err, spent)
	}
}

// TestAnchorEvery: with ledger.anchor_every and ledger.head_every set,
// the node signs and anchors by itself once the ledger grew.
func TestAnchorEvery(t *testing.T) {
	w := newWorld(t, true)
	n := w.add("periodic", func(n *tnode) { n.cfg.Ledger.AnchorEvery, n.cfg.Ledger.HeadEvery = time.Second, time.Second })
	grow(t, n)
	eventually(t, "an anchor on chain", func() bool { return len(anchorsOnChain(t, n)) == 1 })
	eventually(t, "the anchor recorded", func() bool {
		_, _, err := n.Ledger().LatestTreeAnchor(t.Context(), math.MaxUint64)
		return err == nil
	})
	// Nothing new: no second anchor.
	time.Sleep(2500 * time.Millisecond)
	if got := len(anchorsOnChain(t, n)); got != 1 {
		t.Fatalf("%d anchors of an idle ledger", got)
	}
}

// TestAnchorOnDispute: when a dispute opens, each party anchors its
// ledger's tree head (anchoring is otherwise off here).
func TestAnchorOnDispute(t *testing.T) {
	_, poster, worker, _ := threeNodes(t)
	nid := agree(t, poster, worker, eth(100))
	if n := len(anchorsOnChain(t, poster)) + len(anchorsOnChain(t, worker)); n != 0 {
		t.Fatalf("%d anchors before the dispute", n)
	}
	if _, err := poster.OpenDispute(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateDisputed)
	for _, n := range []*tnode{poster, worker} {
		eventually(t, n.name+"'s anchor on the dispute", func() bool { return len(anchorsOnChain(t, n)) == 1 })
		eventually(t, n.name+"'s anchor recorded", func() bool {
			_, _, err := n.Ledger().LatestTreeAnchor(t.Context(), math.MaxUint64)
			return err == nil
		})
	}
}

// TestAuditLedger: an auditor reads a node's anchors on chain and asks it
// over p2p for consistency from each to its latest signed head: an honest
// node passes; once a root its tree does not have is anchored from its
// key (its history rewritten after an anchor), the audit reports
// inconsistent_with_anchor, with an event.
func TestAuditLedger(t *testing.T) {
	w := newWorld(t, true)
	audited := w.add("audited")
	auditor := w.add("auditor", withBootstrap(audited))
	connect(t, auditor, audited)
	ctx := t.Context()
	grow(t, audited)
	if _, err := audited.AnchorLedger(ctx); err != nil {
		t.Fatal(err)
	}
	grow(t, audited)
	if _, err := audited.AnchorLedger(ctx); err != nil {
		t.Fatal(err)
	}
	grow(t, audited)
	events, stop := auditor.Subscribe(16)
	defer stop()
	rep, err := auditor.AuditLedger(ctx, audited.Address().String(), "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Code != "ok" || len(rep.Anchors) != 2 || rep.Head == nil || rep.Address != common.Address(audited.Address()).Hex() {
		t.Fatalf("audit of an honest node: %+v", rep)
	}
	// By peer id too.
	if rep, err := auditor.AuditLedger(ctx, audited.PeerID().String(), ""); err != nil || rep.Code != "ok" {
		t.Fatalf("audit by peer id: %+v %v", rep, err)
	}

	// A root the node's tree does not have, anchored from its key at the
	// size of its signed head: what an anchor looks like once the history
	// before it was rewritten.
	h, err := audited.SignTreeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	size := h.Size
	var forged [32]byte
	_, _ = rand.Read(forged[:])
	if _, err := audited.Chain().Anchor(ctx, forged, size); err != nil {
		t.Fatal(err)
	}
	rep, err = auditor.AuditLedger(ctx, audited.Address().String(), w.dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Code != node.AuditInconsistent || len(rep.Anchors) != 3 || rep.Anchors[0].Code != "ok" || rep.Anchors[2].Code != node.AuditInconsistent {
		t.Fatalf("audit after a rewrite: %+v", rep)
	}
	var codes []string
	eventually(t, "the audit events", func() bool {
		for {
			select {
			case e := <-events:
				if e.Kind == node.EventAudit {
					codes = append(codes, e.Code)
				}
			default:
				return len(codes) == 3
			}
		}
	})
	if codes[2] != node.AuditInconsistent {
		t.Fatalf("audit events %v", codes)
	}
}

// TestAnchorRecoversUnrecorded: an anchor of the node's tree on chain that
// its ledger lacks (a stop between the receipt and the entry) is recorded
// before the next anchor and counts in the day's spend.
func TestAnchorRecoversUnrecorded(t *testing.T) {
	w := newWorld(t, true)
	n := w.add("recovering")
	ctx := t.Context()
	grow(t, n)
	h, err := n.SignTreeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	root, err := n.Ledger().TreeHead(h.Size)
	if err != nil {
		t.Fatal(err)
	}
	r, err := n.Chain().Anchor(ctx, root, h.Size) // sent, never recorded
	if err != nil {
		t.Fatal(err)
	}
	grow(t, n)
	next, err := n.AnchorLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for e, err := range n.Ledger().ByKind(ctx, "tree.anchor") {
		if err != nil {
			t.Fatal(err)
		}
		if ta, err := parseAnchor(e.Body); err == nil && ta == r.TxHash.Hex() {
			found = true
		}
	}
	if !found || next.Size <= h.Size {
		t.Fatalf("the unrecorded anchor %s was not recovered (next %+v)", r.TxHash, next)
	}
	heads, err := n.LedgerHeads(ctx)
	if err != nil || heads.Budget.Spent < r.GasUsed+29_000 {
		t.Fatalf("the day's spend %d does not count the recovered anchor (%d gas): %v", heads.Budget.Spent, r.GasUsed, err)
	}
}

// parseAnchor returns a tree.anchor body's transaction hash.
func parseAnchor(body []byte) (string, error) {
	var b struct {
		TxHash string `json:"txHash"`
	}
	err := json.Unmarshal(body, &b)
	return common.HexToHash(b.TxHash).Hex(), err
}

// TestHeadEvery: with ledger.head_every the node signs its tree head once
// the ledger grew, with its inbox key, naming its identity link; an idle
// ledger gets no further head.
func TestHeadEvery(t *testing.T) {
	w := newWorld(t, false)
	n := w.add("signer", func(n *tnode) { n.cfg.Ledger.HeadEvery = time.Second })
	grow(t, n)
	var h ledger.TreeHead
	var he ledger.Entry
	eventually(t, "a signed head", func() bool {
		var err error
		h, he, err = n.Ledger().LatestTreeHead(t.Context())
		return err == nil
	})
	root, err := n.Ledger().TreeHead(h.Size)
	if err != nil || h.Root != root || h.Size != he.Seq-1 {
		t.Fatalf("head %+v at entry %d, root at its size %x (%v)", h, he.Seq, root, err)
	}
	link := n.Link()
	if h.Signer != negotiation.Hash(link.Hash()) || !ed25519.Verify(link.InboxKey, h.SigningBytes(), h.Signature) {
		t.Fatal("the head is not signed by the node's inbox key under its link")
	}
	time.Sleep(2500 * time.Millisecond)
	if again, _, err := n.Ledger().LatestTreeHead(t.Context()); err != nil || again.Size != h.Size || n.Ledger().Head().Seq != he.Seq {
		t.Fatalf("an idle ledger got another head: %+v (ledger at %d)", again, n.Ledger().Head().Seq)
	}
}
