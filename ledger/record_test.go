package ledger

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/storeguard"
)

// recordConfig is a test ledger in root/ledger with its record beside it,
// owned by owner.
func recordConfig(t *testing.T, root, owner string) Config {
	cfg := testConfig(t, filepath.Join(root, "ledger"))
	cfg.RecordFile = filepath.Join(root, "ledger.record")
	cfg.Owner = owner
	return cfg
}

// fillLedger appends n entries to a ledger for cfg (one negotiation per
// ten entries) and closes it: its entries are then in table files.
func fillLedger(t *testing.T, cfg Config, n int) Head {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(i/10 + 1), Body: []byte(`{"i":1}`)})
	}
	h := l.Head()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return h
}

func startErr(t *testing.T, cfg Config) error {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = l.Start(t.Context())
	if err == nil {
		if cerr := l.Close(); cerr != nil {
			t.Fatal(cerr)
		}
	}
	return err
}

func refusedWith(t *testing.T, err error, code storeguard.Code, says ...string) {
	t.Helper()
	var se *storeguard.Error
	if !errors.As(err, &se) || se.Code != code || se.Store != "ledger" {
		t.Fatalf("want a refusal %s of the ledger, got %v", code, err)
	}
	for _, s := range append(says, "--reset-ledger", "parley keys import", "backup") {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("the refusal does not say %q: %v", s, err)
		}
	}
}

// TestLedgerRecord: the ledger writes its record at start and after
// commits (it equals the head after Close), and a start that finds the
// store emptier than, or different from, its record, or a record of
// another node, is refused with the record and what was found, and
// deletes nothing.
func TestLedgerRecord(t *testing.T) {
	root := t.TempDir()
	cfg := recordConfig(t, root, "12D3KooWthisnode")
	head := fillLedger(t, cfg, 200)
	rec, err := storeguard.Read("ledger", cfg.RecordFile)
	if err != nil || rec == nil || rec.Seq != head.Seq || rec.Hash != head.Hash.String() || rec.Owner != cfg.Owner {
		t.Fatalf("the record after close: %+v %v (head %+v)", rec, err, head)
	}
	if err := startErr(t, cfg); err != nil {
		t.Fatalf("a healthy ledger: %v", err)
	}

	t.Run("written after commits", func(t *testing.T) {
		l := open(t, cfg)
		e := mustAppend(t, l, Record{Kind: KindChainEvent, Body: []byte(`{"i":2}`)})
		waitFor(t, "the record to reach the new entry", func() bool {
			r, err := storeguard.Read("ledger", cfg.RecordFile)
			return err == nil && r.Seq == e.Seq && r.Hash == e.Hash.String()
		})
	})
	head = fillLedger(t, cfg, 0)

	t.Run("another owner", func(t *testing.T) {
		other := cfg
		other.Owner = "12D3KooWanothernode"
		refusedWith(t, startErr(t, other), storeguard.CodeForeign, "12D3KooWanothernode", "12D3KooWthisnode")
	})
	t.Run("no MANIFEST", func(t *testing.T) {
		dir := copyDir(t, root)
		c := recordConfig(t, dir, cfg.Owner)
		tables := globN(t, filepath.Join(c.Dir, "*.sst"))
		must(t, os.Remove(filepath.Join(c.Dir, "MANIFEST")))
		refusedWith(t, startErr(t, c), storeguard.CodeNoManifest, "MANIFEST", c.Dir, "seq 201")
		if n := globN(t, filepath.Join(c.Dir, "*.sst")); n != tables || n == 0 {
			t.Fatalf("tables %d -> %d", tables, n)
		}
		c.ReadOnly = true // parley ledger verify
		refusedWith(t, startErr(t, c), storeguard.CodeNoManifest)
	})
	t.Run("directory emptied", func(t *testing.T) {
		dir := copyDir(t, root)
		c := recordConfig(t, dir, cfg.Owner)
		must(t, os.RemoveAll(c.Dir))
		must(t, os.Mkdir(c.Dir, 0o700))
		refusedWith(t, startErr(t, c), storeguard.CodeEmptier, "201 entries")
		if ents, _ := os.ReadDir(c.Dir); len(ents) != 0 {
			t.Fatalf("the refused start created %v", ents)
		}
	})
	t.Run("fewer entries than the record", func(t *testing.T) {
		dir := copyDir(t, root)
		c := recordConfig(t, dir, cfg.Owner)
		r, _ := storeguard.Read("ledger", c.RecordFile)
		r.Seq, r.Hash = 500, "0x"+strings.Repeat("00", 32)
		must(t, storeguard.Write(c.RecordFile, *r))
		refusedWith(t, startErr(t, c), storeguard.CodeEmptier, "500 entries", "it holds 201")
	})
	t.Run("another ledger", func(t *testing.T) {
		dir := t.TempDir()
		c := recordConfig(t, dir, cfg.Owner)
		fillLedger(t, c, 300) // another history, longer than the record
		must(t, copyFile(cfg.RecordFile, c.RecordFile))
		refusedWith(t, startErr(t, c), storeguard.CodeDifferent, "entry 201")
	})
	t.Run("damaged record", func(t *testing.T) {
		dir := copyDir(t, root)
		c := recordConfig(t, dir, cfg.Owner)
		must(t, os.WriteFile(c.RecordFile, []byte(`{"format":"parley-store-record/1","store":"ledger","seq":`), 0o600))
		refusedWith(t, startErr(t, c), storeguard.CodeBadRecord)
	})
	t.Run("a record behind the store", func(t *testing.T) {
		// A crash after a commit and before the record caught up leaves
		// the record behind the head: that is no refusal.
		dir := copyDir(t, root)
		c := recordConfig(t, dir, cfg.Owner)
		l := open(t, c)
		var hashAt100 string
		for e, err := range l.Entries(t.Context(), 100) {
			must(t, err)
			hashAt100 = e.Hash.String()
			break
		}
		must(t, l.Close())
		must(t, storeguard.Write(c.RecordFile, storeguard.Record{Store: "ledger", Owner: c.Owner, Seq: 100, Hash: hashAt100}))
		if err := startErr(t, c); err != nil {
			t.Fatal(err)
		}
		if r, _ := storeguard.Read("ledger", c.RecordFile); r.Seq != head.Seq {
			t.Fatalf("the record was not brought up to the head: %+v", r)
		}
	})
	t.Run("upgrade", func(t *testing.T) {
		// A data directory from before records were kept: the record is
		// written from what the store holds.
		dir := copyDir(t, root)
		c := recordConfig(t, dir, cfg.Owner)
		must(t, os.Remove(c.RecordFile))
		ro := c
		ro.ReadOnly = true
		if err := startErr(t, ro); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(c.RecordFile); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a read-only open wrote a record: %v", err)
		}
		if err := startErr(t, c); err != nil {
			t.Fatal(err)
		}
		if r, err := storeguard.Read("ledger", c.RecordFile); err != nil || r.Seq != head.Seq || r.Hash != head.Hash.String() {
			t.Fatalf("the upgrade's record: %+v %v", r, err)
		}
	})
}

// TestLedgerFilesArePrivate: whatever the umask, the ledger's files are
// 0600 and its directory 0700 once it has been opened and closed.
func TestLedgerFilesArePrivate(t *testing.T) {
	root := t.TempDir()
	cfg := recordConfig(t, root, "12D3KooWthisnode")
	fillLedger(t, cfg, 50)
	must(t, os.Chmod(cfg.Dir, 0o755))
	for _, f := range globAll(t, cfg.Dir) {
		must(t, os.Chmod(f, 0o644)) // as Badger makes them under a umask of 022
	}
	fillLedger(t, cfg, 10)
	checkPrivate(t, cfg.Dir)
	if fi, err := os.Stat(cfg.RecordFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the record: %v %v", fi.Mode(), err)
	}
}

func checkPrivate(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
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
			t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), want)
		}
		return nil
	})
	must(t, err)
	if n == 0 {
		t.Fatal("no files")
	}
}

func globAll(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"))
	must(t, err)
	return m
}

func globN(t *testing.T, pattern string) int {
	t.Helper()
	m, err := filepath.Glob(pattern)
	must(t, err)
	return len(m)
}

// copyDir copies the regular files of root and its first-level
// directories into a new temporary directory.
func copyDir(t *testing.T, root string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		return copyFile(path, filepath.Join(dst, rel))
	})
	must(t, err)
	return dst
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o600)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
