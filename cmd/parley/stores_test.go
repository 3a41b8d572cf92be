package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// nodeProcess is `parley node run` in a process of its own: this test
// binary run as parley (TestMain), so main's umask applies.
type nodeProcess struct {
	cmd    *exec.Cmd
	out    *syncBuffer
	err    *syncBuffer
	done   chan error
	api    string
	apiKey []byte
	metric string
}

// startNodeProcess runs `parley node run` on dir without a chain, with
// loopback listeners on ports the kernel picks. It waits until the node
// says it runs, or returns the process's exit when it stops first.
func startNodeProcess(t *testing.T, dir string, extra ...string) (*nodeProcess, error) {
	t.Helper()
	args := append([]string{"node", "run", "--data-dir", dir, "--chain-rpc", "", "--web-listen", "",
		"--p2p-listen", "/ip4/127.0.0.1/tcp/0", "--p2p-dht", "false", "--api-listen", "127.0.0.1:0",
		"--metrics-listen", "127.0.0.1:0", "--log-format", "json"}, extra...)
	p := &nodeProcess{cmd: exec.Command(os.Args[0], args...), out: &syncBuffer{}, err: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), "PARLEY_TEST_AS_MAIN=1", identity.PassphraseEnv+"=stores test passphrase")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.err
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil { // still running
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	deadline := time.After(90 * time.Second)
	for !strings.Contains(p.out.String(), " running: peer ") {
		select {
		case err := <-p.done:
			return p, fmt.Errorf("node run exited: %v\nstdout:\n%s\nstderr:\n%s", err, p.out.String(), p.err.String())
		case <-deadline:
			t.Fatalf("node run did not start:\n%s\n%s", p.out.String(), p.err.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	m := apiLineRe.FindStringSubmatch(p.out.String())
	if m == nil {
		t.Fatalf("no api line:\n%s", p.out.String())
	}
	p.api = m[1]
	key, err := readAPIKey(m[2])
	if err != nil {
		t.Fatal(err)
	}
	p.apiKey = key
	if mm := metricsRe.FindStringSubmatch(p.out.String()); mm != nil {
		p.metric = mm[1]
	}
	return p, nil
}

// stop interrupts the node as Ctrl-C would and waits for it.
func (p *nodeProcess) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("node run stopped with %v\n%s", err, p.err.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("node run did not stop")
	}
}

// status asks the node's API for its status.
func (p *nodeProcess) status(t *testing.T) node.Status {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, p.api+"/v1/status", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+string(p.apiKey))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st node.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

func (p *nodeProcess) metrics(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(p.metric)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// storesFixture is a data directory made by parley init whose ledger holds
// a marked entry of one negotiation, an 8 KB file of another and a
// 1.5 MiB file (in Badger's value log) of a third, and which a node has
// run on once (so the ledger is verified up to its head, and both stores
// have their records).
type storesFixture struct {
	dir          string
	marker       []byte
	small        []byte
	nids         [3]string
	seqs         [3]uint64
	tablesBefore int
}

func newStoresFixture(t *testing.T) *storesFixture {
	t.Helper()
	t.Setenv(identity.PassphraseEnv, "stores test passphrase")
	f := &storesFixture{dir: filepath.Join(t.TempDir(), "worker")}
	if out, err := runInit(t, "init", "--data-dir", f.dir, "--role", "worker"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cfg := ledger.DefaultConfig()
	cfg.Dir = filepath.Join(f.dir, node.LedgerDirName)
	cfg.Logger = slog.New(slog.DiscardHandler)
	l, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := range f.nids {
		var b [16]byte
		_, _ = rand.Read(b[:])
		f.nids[i] = negotiation.NewNegotiationID(b)
	}
	// Upper-case letters that appear nowhere else in the entries, with no
	// four of them repeated: Badger's tables are Snappy-compressed, and a
	// run of four bytes seen before in the block would be stored as a
	// back-reference instead of the marker's bytes. A flipped case keeps
	// the entry JSON; its hash changes.
	f.marker = uniqueRun(t, 32)
	f.small = random(t, 8<<10)
	for i := range 40 {
		if _, _, err := l.Append(t.Context(), ledger.Record{Kind: "test.filler", NegotiationID: f.nids[i%3], Body: []byte(`{"i":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range []ledger.Record{
		{Kind: "test.note", NegotiationID: f.nids[0], Body: []byte(`{"note":"` + string(f.marker) + `"}`)},
		{Kind: ledger.KindBlobStored, NegotiationID: f.nids[1], Body: []byte(`{"name":"report.pdf","size":8192}`), Object: f.small, ObjectCodec: ledger.CodecRaw},
		{Kind: ledger.KindBlobStored, NegotiationID: f.nids[2], Body: []byte(`{"name":"video.mp4","size":1572864}`), Object: random(t, 1536<<10), ObjectCodec: ledger.CodecRaw},
	} {
		e, _, err := l.Append(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		f.seqs[i] = e.Seq
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := startNodeProcess(t, f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.err.String(), "the ledger has no record yet") {
		t.Fatalf("the upgrade did not say it wrote the ledger's record:\n%s", p.err.String())
	}
	eventuallyCheck(t, p)
	p.stop(t)
	f.tablesBefore = len(glob(t, filepath.Join(f.dir, "ledger", "*.sst")))
	if f.tablesBefore == 0 {
		t.Fatal("no ledger tables")
	}
	return f
}

func random(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// eventuallyCheck waits for the node's full ledger check to complete and
// returns its state.
func eventuallyCheck(t *testing.T, p *nodeProcess) node.LedgerCheck {
	t.Helper()
	var c node.LedgerCheck
	eventually(t, "the ledger check to complete", func() bool {
		c = p.status(t).LedgerCheck
		return c.Complete
	})
	return c
}

// flipInFiles flips one byte of the first occurrence of needle in the
// files matching pattern.
// uniqueRun returns n random upper-case letters from J to Z (none of the
// hex digits, nor the I of negotiationId) in which no four-letter run
// occurs twice.
func uniqueRun(t *testing.T, n int) []byte {
	t.Helper()
	for {
		b := random(t, n)
		for i, c := range b {
			b[i] = 'J' + c%17
		}
		seen := map[string]bool{}
		ok := true
		for i := 0; i+4 <= len(b) && ok; i++ {
			ok = !seen[string(b[i:i+4])]
			seen[string(b[i:i+4])] = true
		}
		if ok {
			return b
		}
	}
}

func flipInFiles(t *testing.T, pattern string, needle []byte, at int) {
	t.Helper()
	for _, f := range glob(t, pattern) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(b, needle); i >= 0 {
			b[i+at] ^= 0x20
			if err := os.WriteFile(f, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	all, _ := filepath.Glob(filepath.Join(filepath.Dir(pattern), "*"))
	for _, f := range all {
		b, _ := os.ReadFile(f)
		t.Logf("%s %d bytes, found %v", f, len(b), bytes.Contains(b, needle))
	}
	t.Fatalf("the bytes are in no %s", pattern)
}

// TestNodeRunRefusesMissingManifest runs `parley node run` on a data
// directory whose ledger, then whose approval store, lost its MANIFEST:
// the node refuses to start (exit status 1), names the store, its record
// and the ways to restore it, and the ledger's tables are still there;
// `parley ledger verify` fails on it; --reset-ledger archives the old
// ledger and starts; the files of the stores are 0600.
func TestNodeRunRefusesMissingManifest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	f := newStoresFixture(t)

	dir := nodetest.CopyDir(t, f.dir)
	if err := os.Remove(filepath.Join(dir, "ledger", "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	p, err := startNodeProcess(t, dir)
	var ee *exec.ExitError
	if err == nil || !errors.As(errors.Unwrap(err), &ee) && !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("a ledger without MANIFEST started: %v", err)
	}
	for _, want := range []string{"store_refused", "no_manifest", "the ledger store at " + filepath.Join(dir, "ledger"),
		"ledger.record says seq 43", "parley keys import", "--reset-ledger", "backup"} {
		if !strings.Contains(p.err.String(), want) {
			t.Fatalf("the refusal does not say %q:\n%s", want, p.err.String())
		}
	}
	if n := len(glob(t, filepath.Join(dir, "ledger", "*.sst"))); n != f.tablesBefore {
		t.Fatalf("the refused start left %d of %d tables", n, f.tablesBefore)
	}
	r := cli(t, "ledger", "verify", "--data-dir", dir)
	if !errors.As(r.e, new(*exitError)) || r.e.(*exitError).code != 1 || !strings.Contains(r.out, "FAIL no_manifest") {
		t.Fatalf("ledger verify on a ledger without MANIFEST: %v\n%s%s", r.e, r.out, r.err)
	}

	// The explicit reset: the old ledger is archived whole, the node
	// starts on an empty one whose first entry records the reset.
	p, err = startNodeProcess(t, dir, "--reset-ledger")
	if err != nil {
		t.Fatal(err)
	}
	if st := p.status(t); st.Ledger.Seq != 1 {
		t.Fatalf("the reset ledger holds %d entries", st.Ledger.Seq)
	}
	p.stop(t)
	archived := glob(t, filepath.Join(dir, "ledger.reset-*"))
	if len(archived) != 1 || len(glob(t, filepath.Join(archived[0], "*.sst"))) != f.tablesBefore {
		t.Fatalf("the archive: %v", archived)
	}
	if r := cli(t, "ledger", "verify", "--data-dir", dir); r.e != nil || !strings.HasPrefix(r.out, "ok 1 entries") {
		t.Fatalf("ledger verify after the reset: %v %s", r.e, r.out)
	}
	if _, err := startNodeProcess(t, dir, "--reset-ledger"); err == nil || !strings.Contains(err.Error(), "nothing to reset") {
		t.Fatalf("a reset of a healthy ledger: %v", err)
	}

	// The approval store without its MANIFEST.
	dir = nodetest.CopyDir(t, f.dir)
	if err := os.Remove(filepath.Join(dir, "approvals", "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	p, err = startNodeProcess(t, dir)
	if err == nil || !strings.Contains(p.err.String(), "the approvals store at "+filepath.Join(dir, "approvals")) ||
		!strings.Contains(p.err.String(), "--reset-approvals") {
		t.Fatalf("an approval store without MANIFEST: %v\n%s", err, p.err.String())
	}

	// Every file of the stores is 0600, also those Badger made while the
	// node ran (the binary's umask).
	p, err = startNodeProcess(t, f.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{"ledger", "approvals"} {
		checkModes(t, filepath.Join(f.dir, store))
	}
	p.stop(t)
	for _, store := range []string{"ledger", "approvals"} {
		checkModes(t, filepath.Join(f.dir, store))
	}
}

func checkModes(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		} else {
			n++
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no files in %s", dir)
	}
}

// TestNodeRunReportsDamageAtRest runs `parley node run` on data
// directories whose ledger was damaged behind its verified checkpoint: a
// flipped byte in an entry in an old table, a flipped byte in a stored
// file, a value log cut in half. The node runs, and the damage is in its
// log at error level, in GET /v1/status (seq, code, negotiation), in
// `parley status` and in its metrics; the damaged negotiation's proof
// bundle is refused.
func TestNodeRunReportsDamageAtRest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	f := newStoresFixture(t)
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		i      int
		codes  []ledger.Code
	}{
		{"entry in a table", func(t *testing.T, dir string) { flipInFiles(t, filepath.Join(dir, "ledger", "*.sst"), f.marker, 5) },
			0, []ledger.Code{ledger.CodeHashMismatch}},
		{"stored file", func(t *testing.T, dir string) {
			flipInFiles(t, filepath.Join(dir, "ledger", "*.sst"), f.small[5000:5032], 3)
		},
			1, []ledger.Code{ledger.CodeObjectMismatch}},
		{"value log cut in half", func(t *testing.T, dir string) {
			for _, v := range glob(t, filepath.Join(dir, "ledger", "*.vlog")) {
				if fi, err := os.Stat(v); err == nil && fi.Size() > 1<<20 {
					if err := os.Truncate(v, fi.Size()/2); err != nil {
						t.Fatal(err)
					}
					return
				}
			}
			t.Fatal("no value log holds the large file")
		}, 2, []ledger.Code{ledger.CodeObjectMismatch, ledger.CodeUnreadable}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := nodetest.CopyDir(t, f.dir)
			tc.damage(t, dir)
			p, err := startNodeProcess(t, dir)
			if err != nil {
				t.Fatalf("damage behind the checkpoint stopped the start: %v", err)
			}
			c := eventuallyCheck(t, p)
			if len(c.Damage) != 1 {
				t.Fatalf("the status reports %+v", c)
			}
			d := c.Damage[0]
			if d.Seq != f.seqs[tc.i] || d.NegotiationID != f.nids[tc.i] || !containsCode(tc.codes, d.Code) {
				t.Fatalf("damage %+v, want entry %d of %s", d, f.seqs[tc.i], f.nids[tc.i])
			}
			if !regexp.MustCompile(`"level":"ERROR","msg":"ledger damage[^"]*".*"seq":` + fmt.Sprint(d.Seq)).MatchString(p.err.String()) {
				t.Fatalf("no error line for the damage:\n%s", p.err.String())
			}
			if m := p.metrics(t); !strings.Contains(m, `parley_node_ledger_damage_total{code="`+string(d.Code)+`"} 1`) {
				t.Fatalf("the metrics lack the damage:\n%s", m)
			}
			keyFile := filepath.Join(dir, APIKeyFileName)
			r := cli(t, "status", "--api", p.api, "--api-key-file", keyFile)
			if r.e != nil || !strings.Contains(r.out, "1 damaged") || !strings.Contains(r.out, f.nids[tc.i]) {
				t.Fatalf("parley status: %v\n%s%s", r.e, r.out, r.err)
			}
			r = cli(t, "ledger", "export", f.nids[tc.i], "-o", filepath.Join(t.TempDir(), "b.json"), "--api", p.api, "--api-key-file", keyFile)
			if r.e == nil || !strings.Contains(r.e.Error()+r.out+r.err, "ledger_damaged") {
				t.Fatalf("the export of the damaged negotiation: %v\n%s%s", r.e, r.out, r.err)
			}
			p.stop(t)
		})
	}
}

func containsCode(cs []ledger.Code, c ledger.Code) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}
