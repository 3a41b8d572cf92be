package node

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

const bundleNID = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"

// testLedger opens a ledger in a fresh directory holding n entries, every
// third of negotiation bundleNID; tag goes into every body, so two tags
// give two histories of the same shape.
func testLedger(t *testing.T, n int, tag string) *ledger.Ledger {
	t.Helper()
	cfg := ledger.DefaultConfig()
	cfg.Dir = filepath.Join(t.TempDir(), "ledger")
	cfg.MemTableSize = 8 << 20
	cfg.MaxBatchBytes = 1 << 20
	cfg.MaxObjectBytes = 256 << 10
	cfg.MaxEntryBytes = 64 << 10
	l, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	appendEntries(t, l, n, tag)
	return l
}

func appendEntries(t *testing.T, l *ledger.Ledger, n int, tag string) {
	t.Helper()
	for i := range n {
		r := ledger.Record{Kind: ledger.KindChainEvent, Body: []byte(`{"i":` + itoa(i) + `,"tag":"` + tag + `"}`)}
		if i%3 == 0 {
			r.NegotiationID = bundleNID
		} else {
			r.NegotiationID = "0e0e0e0e-0e0e-4e0e-8e0e-0e0e0e0e0e0e"
		}
		if _, _, err := l.Append(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// exportV2 signs l's head with keys (the node's tree-head service) and
// exports bundleNID.
func exportV2(t *testing.T, l *ledger.Ledger, keys *identity.Keyring) []byte {
	t.Helper()
	heads := newTreeHeads(LedgerConfig{}, time.Now, nil)
	heads.open(l, keys.Inbox(), keys.Link, nil, slog.New(slog.DiscardHandler))
	head, link, err := heads.bundleHead(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := l.ExportV2(t.Context(), bundleNID, head, link, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestVerifyBundleV2: a node's version-2 bundle (its head signed by
// the tree-head service) verifies offline and names its checks; its head re-signed by
// another key, or its signer link swapped, is forged_head; a tampered
// entry keeps the ledger's code (bad_inclusion) under bad_bundle.
func TestVerifyBundleV2(t *testing.T) {
	now := time.Now()
	keys, _ := newHeadKeys(t, now)
	other, otherLink := newHeadKeys(t, now)
	l := testLedger(t, 30, "honest")
	raw := exportV2(t, l, keys)
	v, err := VerifyBundleWith(t.Context(), bytes.NewReader(raw), BundleVerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Report.Version != 2 || v.Signer.EVMAddress != keys.Link().EVMAddress || len(v.Report.Negotiation) != 10 {
		t.Fatalf("verification: %+v", v)
	}
	if names := checkNames(v); names != "bundle,tree head,identity links" {
		t.Fatalf("checks %s", names)
	}

	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	resigned := edit(func(m map[string]any) {
		th := m["treeHead"].(map[string]any)
		h, err := ledger.ParseTreeHead(mustJCS(t, th))
		if err != nil {
			t.Fatal(err)
		}
		th["signature"] = "0x" + hexOf(other.Inbox().Sign(h.SigningBytes()))
	})
	swapped := edit(func(m map[string]any) {
		var link map[string]any
		if err := json.Unmarshal(otherLink.Bytes(), &link); err != nil {
			t.Fatal(err)
		}
		m["signer"] = link
	})
	for name, b := range map[string][]byte{"re-signed by another key": resigned, "another signer link": swapped} {
		v, err := VerifyBundleWith(t.Context(), bytes.NewReader(b), BundleVerifyOptions{})
		if CodeOf(err) != CodeForgedHead || checkNames(v) != "bundle" {
			t.Errorf("%s: %v (checks %s), want forged_head after the bundle check", name, err, checkNames(v))
		}
	}
	tampered := edit(func(m map[string]any) {
		e := m["entries"].([]any)[1].(map[string]any)["entry"].(map[string]any)
		e["at"] = "2000-01-01T00:00:00.000Z"
	})
	_, err = VerifyBundleWith(t.Context(), bytes.NewReader(tampered), BundleVerifyOptions{})
	var ve *ledger.VerifyError
	if CodeOf(err) != CodeBadBundle || !errors.As(err, &ve) || ve.Code != ledger.CodeBadInclusion {
		t.Fatalf("a tampered entry: %v, want bad_bundle wrapping bad_inclusion", err)
	}
}

func checkNames(v *BundleVerification) string {
	s := ""
	for i, c := range v.Checks {
		if i > 0 {
			s += ","
		}
		s += c.Name
	}
	return s
}

func mustJCS(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	c, err := negotiation.Canonicalize(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// TestVerifyBundleV2OnChain anchors a node's tree on a dev chain and
// verifies its bundles against it: the honest ledger's bundle, carrying
// the anchor, passes every check; a ledger rewritten after the anchor
// (another history of the same length, anchored root R at size n from the
// node's key, the bundle's tree at n differs) is rewritten_after_anchor,
// whether its bundle names the node's anchor with its own root or carries
// none; a bundle whose anchor another address sent is anchor_foreign.
func TestVerifyBundleV2OnChain(t *testing.T) {
	w := newAnchorWorld(t)
	honest := testLedger(t, 12, "honest")
	record := func(l *ledger.Ledger, a ledger.TreeAnchor) {
		t.Helper()
		if _, err := l.RecordTreeAnchor(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	root, err := honest.TreeHead(12)
	if err != nil {
		t.Fatal(err)
	}
	anchored := w.anchor(t, w.node, root, 12)
	record(honest, anchored)
	appendEntries(t, honest, 6, "honest, later")
	v, err := VerifyBundleWith(t.Context(), bytes.NewReader(exportV2(t, honest, w.keys)), BundleVerifyOptions{Chain: w.node})
	if err != nil {
		t.Fatalf("the honest bundle: %v (checks %s)", err, checkNames(v))
	}
	if checkNames(v) != "bundle,tree head,identity links,anchor on chain,consistency from the anchored head" || v.Report.Anchor == nil || v.Newest == nil || v.Newest.Size != 12 {
		t.Fatalf("the honest bundle: %+v", v)
	}

	// The rewritten ledger: another history of 12 entries, then the same
	// later ones; its own tree at 12 has another root.
	rewritten := testLedger(t, 12, "rewritten")
	rroot, err := rewritten.TreeHead(12)
	if err != nil || rroot == root {
		t.Fatalf("the rewritten tree: %x %v", rroot, err)
	}
	appendEntries(t, rewritten, 6, "honest, later")
	// Without an anchor record: the chain's anchor at 12 is not proved.
	v, err = VerifyBundleWith(t.Context(), bytes.NewReader(exportV2(t, rewritten, w.keys)), BundleVerifyOptions{Chain: w.node})
	if CodeOf(err) != CodeRewrittenAfterAnchor || checkNames(v) != "bundle,tree head,identity links,anchor on chain" {
		t.Fatalf("a rewritten ledger without the anchor: %v (checks %s)", err, checkNames(v))
	}
	// Offline, the same bundle verifies: only the chain tells.
	if _, err := VerifyBundleWith(t.Context(), bytes.NewReader(exportV2(t, rewritten, w.keys)), BundleVerifyOptions{}); err != nil {
		t.Fatalf("the rewritten bundle offline: %v", err)
	}
	// Naming the node's anchor transaction with its own root at 12.
	claim := anchored
	claim.Root = rroot
	record(rewritten, claim)
	v, err = VerifyBundleWith(t.Context(), bytes.NewReader(exportV2(t, rewritten, w.keys)), BundleVerifyOptions{Chain: w.node})
	if CodeOf(err) != CodeRewrittenAfterAnchor || checkNames(v) != "bundle,tree head,identity links" {
		t.Fatalf("a rewritten ledger naming the anchor: %v (checks %s)", err, checkNames(v))
	}

	// An anchor another address sent, recorded as the node's.
	foreignLedger := testLedger(t, 9, "foreign")
	froot, err := foreignLedger.TreeHead(9)
	if err != nil {
		t.Fatal(err)
	}
	foreign := w.anchor(t, w.other, froot, 9)
	foreign.Address = negotiation.Address(w.link.EVMAddress)
	record(foreignLedger, foreign)
	if _, err := VerifyBundleWith(t.Context(), bytes.NewReader(exportV2(t, foreignLedger, w.keys)), BundleVerifyOptions{Chain: w.node}); CodeOf(err) != CodeAnchorForeign {
		t.Fatalf("an anchor sent by another address: %v", err)
	}
}
