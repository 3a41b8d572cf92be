package main

import (
	"encoding/json"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/node"
)

var runningRe = regexp.MustCompile(`running: peer (\S+), EVM (0x[0-9a-fA-F]{40})\n  listening (\S+)`)

// running returns the EVM address and first listen address (with /p2p/)
// a node process printed.
func (p *nodeProcess) running(t *testing.T) (evm, addr string) {
	t.Helper()
	m := runningRe.FindStringSubmatch(p.out.String())
	if m == nil {
		t.Fatalf("no running line:\n%s", p.out.String())
	}
	addr = strings.TrimSuffix(m[3], ",")
	if !strings.Contains(addr, "/p2p/") {
		addr += "/p2p/" + m[1] // node run prints listen addresses without the peer id
	}
	return m[2], addr
}

// offlineLedger opens a stopped node's ledger, verifies it and counts its
// entries of kind whose body has field = value (any when field is "").
func offlineLedger(t *testing.T, dir string) func(kind, field, value string) int {
	t.Helper()
	cfg := ledger.DefaultConfig()
	cfg.Dir = filepath.Join(dir, node.LedgerDirName)
	cfg.Logger = slog.New(slog.DiscardHandler)
	l, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatalf("%s's ledger: %v", dir, err)
	}
	return func(kind, field, value string) int {
		c := 0
		for e, err := range l.ByKind(t.Context(), kind) {
			if err != nil {
				t.Fatal(err)
			}
			var b map[string]any
			_ = json.Unmarshal(e.Body, &b)
			if field == "" || b[field] == value {
				c++
			}
		}
		return c
	}
}

// TestStoreKeys: the store.* keys reach node.Config.Store from flags and
// the environment, and a bad one is refused naming its key.
func TestStoreKeys(t *testing.T) {
	dir := t.TempDir()
	addr := "0x52908400098527886E0F7030069857D2E4169EE7"
	s, err := loadSettings(flagsWith(t, "store-enabled", "true", "store-serve", addr, "store-quota-bytes", "1MiB", "store-history", "false"),
		envOf(map[string]string{"PARLEY_DATA_DIR": dir, "PARLEY_STORE_RETENTION": "2h", "PARLEY_STORE_QUOTA_ITEMS": "5", "PARLEY_STORE_QUOTA_PER_SENDER": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	st := s.Node.Store
	if !st.Enabled || len(st.Serve) != 1 || st.Serve[0] != addr || st.QuotaBytes != 1<<20 || st.QuotaItems != 5 || st.QuotaPerSender != 2 || st.Retention != 2*time.Hour || !st.NoHistory || st.Open {
		t.Fatalf("store settings: %+v", st)
	}
	for _, kv := range [][]string{
		{"store-enabled", "true"},
		{"store-serve", addr},
		{"store-enabled", "true", "store-open", "true", "store-serve", addr},
		{"store-enabled", "true", "store-open", "true", "store-retention", "1s"},
		{"store-enabled", "true", "store-open", "true", "store-quota-items", "0"},
		{"store-enabled", "true", "store-open", "true", "store-quota-per-sender", "0"},
	} {
		if _, err := loadSettings(flagsWith(t, kv...), envOf(map[string]string{"PARLEY_DATA_DIR": dir})); err == nil || !strings.Contains(err.Error(), "store.") {
			t.Fatalf("%v: %v", kv, err)
		}
	}
}

// TestStoreNodeProcesses: three `parley node run` processes on loopback.
// The store node runs with store.enabled serving the worker; the worker
// stops, the poster's three proposals to it are handed to the store (its
// outbox empties: held), the worker comes back and collects them. Each is
// applied once at the worker, the store holds exactly three, and every
// ledger verifies.
func TestStoreNodeProcesses(t *testing.T) {
	t.Setenv(identity.PassphraseEnv, "stores test passphrase")
	root := t.TempDir()
	dirs := map[string]string{}
	for _, role := range []string{"poster", "worker", "arbitrator"} {
		dirs[role] = filepath.Join(root, role)
		if out, err := runInit(t, "init", "--data-dir", dirs[role], "--role", role); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	start := func(role string, extra ...string) *nodeProcess {
		t.Helper()
		p, err := startNodeProcess(t, dirs[role], extra...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	w := start("worker")
	workerEVM, _ := w.running(t)
	w.stop(t)
	// A bad store section is refused at load, naming its key.
	if _, err := startNodeProcess(t, dirs["arbitrator"], "--store-enabled", "true"); err == nil || !regexp.MustCompile(`store\.serve`).MatchString(err.Error()) {
		t.Fatalf("store.enabled without store.serve: %v", err)
	}
	s := start("arbitrator", "--store-enabled", "true", "--store-serve", workerEVM, "--store-quota-items", "10")
	_, storeAddr := s.running(t)
	w = start("worker", "--p2p-store-peers", storeAddr)
	_, workerAddr := w.running(t)
	p := start("poster", "--p2p-store-peers", storeAddr, "--p2p-bootstrap", workerAddr)
	_, posterAddr := p.running(t)
	P := []string{"--api", p.api, "--api-key-file", filepath.Join(dirs["poster"], APIKeyFileName)}
	W := []string{"--api", w.api, "--api-key-file", filepath.Join(dirs["worker"], APIKeyFileName)}
	propose := func(title string) string {
		t.Helper()
		var out string
		// The first may come before the poster knows the worker's link.
		for range 200 {
			r := cli(t, with(P, "task", "propose", "--worker", workerEVM, "--title", title, "--milestone", "0.01eth:all", "-q")...)
			if r.e == nil {
				out = r.out
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		m := negRE.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("task propose %q:\n%s", title, out)
		}
		return m[1]
	}
	shown := func(args []string, nid string) bool {
		return cli(t, with(args, "negotiation", "show", nid)...).e == nil
	}
	first := propose("Direct")
	eventually(t, "the direct proposal at the worker", func() bool { return shown(W, first) })

	w.stop(t)
	var nids []string
	for _, title := range []string{"Offline a", "Offline b", "Offline c"} {
		nids = append(nids, propose(title))
	}
	eventually(t, "the poster's outbox to empty (held by the store)", func() bool { return p.status(t).Outbox == 0 })

	w = start("worker", "--p2p-store-peers", storeAddr, "--p2p-bootstrap", posterAddr)
	W[1] = w.api
	for _, nid := range nids {
		eventually(t, "the worker to collect "+nid, func() bool { return shown(W, nid) })
	}
	for _, x := range []*nodeProcess{w, p, s} {
		x.stop(t)
	}
	worker, poster, store := offlineLedger(t, dirs["worker"]), offlineLedger(t, dirs["poster"]), offlineLedger(t, dirs["arbitrator"])
	// The three sent while the worker was away are held; the direct one
	// too when the poster's first attempt came before the worker's link
	// (under load): then it was handed over as well. Either way what the
	// store holds is what the poster settled as held, once each.
	held := store(node.KindMailboxHeld, "to", workerEVM)
	if held < 3 || held > 4 || store(node.KindMailboxHeld, "", "") != held {
		t.Fatalf("the store holds %d envelopes for the worker, want 3 (or 4 with the direct one)", held)
	}
	if n := poster(ledger.KindOutboxAcked, "status", "held"); n != held {
		t.Fatalf("the poster settled %d envelopes as held, the store holds %d", n, held)
	}
	if n := worker(ledger.KindEnvelopeReceived, "", ""); n != 4 {
		t.Fatalf("the worker applied %d envelopes, want 4 (one direct, three collected)", n)
	}
}
