package node_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/ipfs/go-cid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	"github.com/parleynet/parley/storeguard"
)

// startOn builds and starts a node on dir with n's configuration, gate and
// opts, and returns it (closed when the test ends) or Start's error.
func startOn(t *testing.T, n *tnode, dir string, opts ...node.Option) (*node.Node, error) {
	t.Helper()
	cfg := n.cfg
	cfg.DataDir = dir
	all := append(nodetest.Options(t, n.name), node.WithGate(n.gate))
	nn, err := node.New(cfg, append(all, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := nn.Start(t.Context()); err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = nn.Close() })
	return nn, nil
}

func refusedStore(t *testing.T, err error, store string, code storeguard.Code, says ...string) {
	t.Helper()
	var se *storeguard.Error
	if node.CodeOf(err) != node.CodeStoreRefused || !errors.As(err, &se) || se.Store != store || se.Code != code {
		t.Fatalf("want the %s store refused with %s, got %v", store, code, err)
	}
	for _, s := range append(says, "--reset-"+store, "parley keys import") {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("the refusal does not say %q: %v", s, err)
		}
	}
}

func resetsOf(t *testing.T, n *node.Node) []map[string]any {
	t.Helper()
	var out []map[string]any
	for e, err := range n.Ledger().ByKind(t.Context(), node.KindStoreReset) {
		if err != nil {
			t.Fatal(err)
		}
		var b map[string]any
		if err := json.Unmarshal(e.Body, &b); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestStoresRefuseToStartEmptier: a node whose ledger lost its MANIFEST,
// or whose approval store was removed, refuses to start, naming the store,
// its record and the ways to restore it, and deletes nothing; an explicit
// reset archives the store, starts it empty and writes an audit entry; a
// reset asked for a healthy store is refused.
func TestStoresRefuseToStartEmptier(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Index the archive", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil { // a consumption in the approval store
		t.Fatal(err)
	}
	head := worker.Ledger().Head()
	if err := worker.Close(); err != nil {
		t.Fatal(err)
	}
	lrec, err := storeguard.Read(node.StoreLedger, filepath.Join(worker.dir, "ledger.record"))
	if err != nil || lrec == nil || lrec.Seq != head.Seq || lrec.Hash != head.Hash.String() || !strings.HasPrefix(lrec.Owner, "12D3KooW") {
		t.Fatalf("the ledger's record: %+v %v (head %+v)", lrec, err, head)
	}
	arec, err := storeguard.Read(node.StoreApprovals, filepath.Join(worker.dir, "approvals.record"))
	if err != nil || arec == nil || arec.Counts["consumptions"] != 1 || arec.Owner != lrec.Owner {
		t.Fatalf("the approval store's record: %+v %v", arec, err)
	}

	noManifest := nodetest.CopyDir(t, worker.dir)
	tables, _ := filepath.Glob(filepath.Join(noManifest, "ledger", "*.sst"))
	if len(tables) == 0 {
		t.Fatal("no ledger tables")
	}
	if err := os.Remove(filepath.Join(noManifest, "ledger", "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	_, err = startOn(t, worker, noManifest)
	refusedStore(t, err, node.StoreLedger, storeguard.CodeNoManifest, "MANIFEST", lrec.Hash)
	if after, _ := filepath.Glob(filepath.Join(noManifest, "ledger", "*.sst")); len(after) != len(tables) {
		t.Fatalf("tables %d -> %d", len(tables), len(after))
	}

	noApprovals := nodetest.CopyDir(t, worker.dir)
	if err := os.RemoveAll(filepath.Join(noApprovals, "approvals")); err != nil {
		t.Fatal(err)
	}
	_, err = startOn(t, worker, noApprovals)
	refusedStore(t, err, node.StoreApprovals, storeguard.CodeEmptier, "1 consumptions")

	t.Run("reset approvals", func(t *testing.T) {
		n, err := startOn(t, worker, noApprovals, node.WithReset(node.StoreApprovals))
		if err != nil {
			t.Fatal(err)
		}
		rs := resetsOf(t, n)
		if len(rs) != 1 || rs[0]["store"] != "approvals" || rs[0]["code"] != string(storeguard.CodeEmptier) ||
			rs[0]["record"].(map[string]any)["counts"].(map[string]any)["consumptions"] != 1.0 {
			t.Fatalf("the reset's audit entry: %+v", rs)
		}
		if _, err := n.Thread(nid); err != nil {
			t.Fatalf("the ledger's threads after an approvals reset: %v", err)
		}
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		if old, _ := filepath.Glob(filepath.Join(noApprovals, "approvals.record.reset-*")); len(old) != 1 {
			t.Fatalf("the old record is not archived: %v", old)
		}
		if _, err := startOn(t, worker, noApprovals); err != nil {
			t.Fatalf("a start after the reset: %v", err)
		}
	})
	t.Run("reset ledger", func(t *testing.T) {
		n, err := startOn(t, worker, noManifest, node.WithReset(node.StoreLedger))
		if err != nil {
			t.Fatal(err)
		}
		if h := n.Ledger().Head(); h.Seq != 1 {
			t.Fatalf("the new ledger holds %d entries", h.Seq)
		}
		rs := resetsOf(t, n)
		if len(rs) != 1 || rs[0]["store"] != "ledger" || rs[0]["code"] != string(storeguard.CodeNoManifest) ||
			rs[0]["record"].(map[string]any)["hash"] != lrec.Hash {
			t.Fatalf("the reset's audit entry: %+v", rs)
		}
		archived := rs[0]["archived"].(map[string]any)["dir"].(string)
		if kept, _ := filepath.Glob(filepath.Join(archived, "*.sst")); len(kept) != len(tables) {
			t.Fatalf("the archive holds %d tables, the ledger had %d", len(kept), len(tables))
		}
		if _, err := n.Thread(nid); node.CodeOf(err) != node.CodeUnknownNegotiation {
			t.Fatalf("a thread of the old ledger: %v", err)
		}
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		_, err = startOn(t, worker, noManifest, node.WithReset(node.StoreLedger))
		if node.CodeOf(err) != node.CodeStoreRefused || !strings.Contains(err.Error(), "nothing to reset") {
			t.Fatalf("a reset of a healthy ledger: %v", err)
		}
	})
}

// rawUpdate changes one stored value of a stopped node's ledger through
// Badger, as damage at rest would: the ledger's own checks are bypassed.
func rawUpdate(t *testing.T, dir string, key []byte, change func([]byte) []byte) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(filepath.Join(dir, "ledger")).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(txn *badger.Txn) error {
		it, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err := it.ValueCopy(nil)
		if err != nil {
			return err
		}
		return txn.Set(key, change(v))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// flipHexLetter changes the case of the first hex letter after marker in
// v: the JSON stays well formed, its hash changes.
func flipHexLetter(t *testing.T, v []byte, marker string) []byte {
	t.Helper()
	i := bytes.Index(v, []byte(marker))
	if i < 0 {
		t.Fatalf("%q not in %s", marker, v)
	}
	for j := i + len(marker); j < len(v); j++ {
		if v[j] >= 'a' && v[j] <= 'f' {
			v[j] -= 'a' - 'A'
			return v
		}
	}
	t.Fatalf("no hex letter after %q", marker)
	return nil
}

func entryKey(seq uint64) []byte {
	k := []byte{'e', 0, 0, 0, 0, 0, 0, 0, 0}
	for i := range 8 {
		k[8-i] = byte(seq >> (8 * i))
	}
	return k
}

// TestLedgerDamageRefusesWhatRestsOnIt: damage behind the checkpoint lets
// the node start, and is reported in the status and the metrics once the
// background check has run. A negotiation with a damaged entry is neither
// exported nor signed for (nothing is asked, signed or sent); one whose
// envelope is damaged is not loaded and refused alike; an intact one is
// exported and acted on.
func TestLedgerDamageRefusesWhatRestsOnIt(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	var nids []string
	for _, title := range []string{"Damaged entry", "Damaged envelope", "Intact"} {
		res, err := poster.ProposeTask(t.Context(), worker.Address(), spec(title, eth(100)))
		if err != nil {
			t.Fatal(err)
		}
		nids = append(nids, res.Thread.NegotiationID)
		worker.waitState(res.Thread.NegotiationID, negotiation.StateProposed)
	}
	nidA, nidQ, nidB := nids[0], nids[1], nids[2]
	var linkSeq uint64
	var envCID cid.Cid
	for e, err := range worker.Ledger().ByNegotiation(t.Context(), nidA) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == "identity.link" {
			linkSeq = e.Seq
		}
	}
	for e, err := range worker.Ledger().ByNegotiation(t.Context(), nidQ) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == ledger.KindEnvelopeReceived {
			envCID = e.CID
		}
	}
	if linkSeq == 0 || !envCID.Defined() {
		t.Fatalf("link entry %d, envelope %v", linkSeq, envCID)
	}
	worker.restart() // the checkpoint is now the head: the damage below is behind it
	if err := worker.Close(); err != nil {
		t.Fatal(err)
	}
	rawUpdate(t, worker.dir, entryKey(linkSeq), func(v []byte) []byte { return flipHexLetter(t, v, `"evm":"0x`) })
	rawUpdate(t, worker.dir, append([]byte{'o'}, envCID.Bytes()...), func(v []byte) []byte { return flipHexLetter(t, v, `"signature":"0x`) })

	reg := prometheus.NewRegistry()
	n, err := startOn(t, worker, worker.dir, node.WithRegisterer(reg))
	if err != nil {
		t.Fatalf("damage behind the checkpoint stopped the start: %v", err)
	}
	var st node.Status
	eventually(t, "the ledger check to complete", func() bool {
		st, err = n.Status()
		return err == nil && st.LedgerCheck.Complete
	})
	found := map[string]ledger.Damage{}
	for _, d := range st.LedgerCheck.Damage {
		found[d.NegotiationID] = d
	}
	if d := found[nidA]; d.Seq != linkSeq || d.Code != ledger.CodeHashMismatch || d.Object {
		t.Fatalf("the damaged entry: %+v (status %+v)", d, st.LedgerCheck)
	}
	if d := found[nidQ]; d.Code != ledger.CodeObjectMismatch || !d.Object {
		t.Fatalf("the damaged envelope: %+v (status %+v)", d, st.LedgerCheck)
	}
	if len(st.LedgerCheck.Damage) != 2 || st.LedgerCheck.VerifiedTo != st.LedgerCheck.Target || st.LedgerCheck.Target == 0 {
		t.Fatalf("the check: %+v", st.LedgerCheck)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var damaged, verified float64
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch mf.GetName() {
			case "parley_node_ledger_damage_total":
				damaged += m.GetCounter().GetValue()
			case "parley_node_ledger_verified_seq":
				verified = m.GetGauge().GetValue()
			}
		}
	}
	if damaged != 2 || verified != float64(st.LedgerCheck.Target) {
		t.Fatalf("metrics: damage %v, verified %v", damaged, verified)
	}

	approvalsOf := func(nid string) int {
		c := 0
		for e, err := range n.Ledger().ByNegotiation(t.Context(), nid) {
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind == ledger.KindApproval || e.Kind == ledger.KindEnvelopeSent {
				c++
			}
		}
		return c
	}
	for _, nid := range []string{nidA, nidQ} {
		before := approvalsOf(nid)
		if _, err := n.Cancel(t.Context(), nid, "changed my mind"); !errors.Is(err, node.ErrLedgerDamaged) {
			t.Fatalf("a gated act on a damaged negotiation: %v", err)
		}
		if after := approvalsOf(nid); after != before {
			t.Fatalf("the refused act wrote %d approval or envelope entries", after-before)
		}
		if _, err := n.Export(t.Context(), nid, io.Discard); !errors.Is(err, node.ErrLedgerDamaged) {
			t.Fatalf("the export of a damaged negotiation: %v", err)
		}
	}
	var buf bytes.Buffer
	if _, err := n.Export(t.Context(), nidB, &buf); err != nil {
		t.Fatalf("the export of an intact negotiation: %v", err)
	}
	if _, err := node.VerifyBundle(&buf, ledger.BundleOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Cancel(t.Context(), nidB, "changed my mind"); err != nil {
		t.Fatalf("a gated act on an intact negotiation: %v", err)
	}
}
