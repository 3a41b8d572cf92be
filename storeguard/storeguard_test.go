package storeguard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// badgerWithTables makes a Badger directory holding n keys in table files.
func badgerWithTables(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithMemTableSize(1 << 20).WithValueLogFileSize(1 << 20).WithValueThreshold(1 << 10))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := db.Update(func(txn *badger.Txn) error {
			return txn.Set(fmt.Appendf(nil, "key%06d", i), make([]byte, 512))
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil { // flushes the memtable into a table
		t.Fatal(err)
	}
	if c, err := CheckBadgerDir("test", dir); err != nil || c.Tables == 0 || c.ManifestTables != c.Tables {
		t.Fatalf("a healthy directory: %+v %v", c, err)
	}
	return dir
}

func TestRecordRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.record")
	if r, err := Read("ledger", path); r != nil || err != nil {
		t.Fatalf("no record: %v %v", r, err)
	}
	at := time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)
	in := Record{Store: "ledger", Owner: "12D3KooWpeer", Seq: 4312, Hash: "0x" + strings.Repeat("ab", 32), At: at}
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := Read("ledger", path)
	if err != nil || out.Seq != 4312 || out.Hash != in.Hash || out.Owner != in.Owner || !out.At.Equal(at) || out.Format != RecordFormat {
		t.Fatalf("read back %+v, %v", out, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != FileMode {
		t.Fatalf("record mode: %v %v", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Fatalf("a temporary file was left: %v", ents)
	}
	for name, content := range map[string]string{
		"not json":      "{seq",
		"unknown field": `{"format":"parley-store-record/1","store":"ledger","seq":1,"at":"2026-06-13T12:00:00Z","extra":1}`,
		"other format":  `{"format":"parley-store-record/9","store":"ledger","seq":1,"at":"2026-06-13T12:00:00Z"}`,
		"other store":   `{"format":"parley-store-record/1","store":"approvals","seq":1,"at":"2026-06-13T12:00:00Z"}`,
		"two values":    `{"format":"parley-store-record/1","store":"ledger","seq":1,"at":"2026-06-13T12:00:00Z"}{}`,
		"empty":         "",
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Read("ledger", path); CodeOf(err) != CodeBadRecord || !errors.Is(err, ErrRefused) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestMissingManifestIsRefused: a directory with tables whose MANIFEST was
// deleted, emptied to its header or damaged is refused before Badger can
// open it, and its tables are still there afterwards.
func TestMissingManifestIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, manifest string)
		code   Code
	}{
		{"deleted", func(t *testing.T, m string) { must(t, os.Remove(m)) }, CodeNoManifest},
		{"header only", func(t *testing.T, m string) { must(t, os.Truncate(m, 8)) }, CodeBadManifest},
		{"empty", func(t *testing.T, m string) { must(t, os.Truncate(m, 0)) }, CodeBadManifest},
		{"flipped byte", func(t *testing.T, m string) { flip(t, m, 12) }, CodeBadManifest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := badgerWithTables(t, 3000)
			before := tablesIn(t, dir)
			tc.damage(t, filepath.Join(dir, manifestName))
			_, err := CheckBadgerDir("ledger", dir)
			var se *Error
			if !errors.As(err, &se) || se.Code != tc.code || se.Store != "ledger" || se.Dir != dir || !strings.Contains(err.Error(), "--reset-ledger") ||
				!strings.Contains(err.Error(), "parley keys import") {
				t.Fatalf("CheckBadgerDir: %v", err)
			}
			if after := tablesIn(t, dir); after != before {
				t.Fatalf("tables %d -> %d", before, after)
			}
		})
	}
	// A new store: no directory, or a directory without data files.
	if c, err := CheckBadgerDir("ledger", filepath.Join(t.TempDir(), "none")); err != nil || c.Exists || c.HasData() {
		t.Fatalf("no directory: %+v %v", c, err)
	}
	empty := t.TempDir()
	must(t, os.WriteFile(filepath.Join(empty, "KEYREGISTRY"), []byte("x"), 0o600))
	if c, err := CheckBadgerDir("ledger", empty); err != nil || c.HasData() {
		t.Fatalf("no data files: %+v %v", c, err)
	}
}

// TestOrphanTables: a table file the MANIFEST does not name beside tables
// it names (a crash between writing a table and recording it) is Badger's
// to delete at open; a MANIFEST naming a table that is gone (an older copy
// of the MANIFEST) is refused.
func TestOrphanTables(t *testing.T) {
	dir := badgerWithTables(t, 3000)
	must(t, os.WriteFile(filepath.Join(dir, "999999.sst"), []byte("an orphan table"), 0o600))
	c, err := CheckBadgerDir("ledger", dir)
	if err != nil || len(c.Orphans) != 1 || c.Orphans[0] != "999999.sst" {
		t.Fatalf("CheckBadgerDir: %+v %v", c, err)
	}
	named, _ := filepath.Glob(filepath.Join(dir, "0000*.sst"))
	must(t, os.Remove(named[0]))
	if _, err := CheckBadgerDir("ledger", dir); CodeOf(err) != CodeBadManifest || !strings.Contains(err.Error(), "not in the directory") {
		t.Fatalf("a MANIFEST naming a missing table: %v", err)
	}
}

// TestEmptyLogs: 0-byte memtable and value-log files (a kill between
// Badger creating one and sizing it) are listed apart, count as no data,
// and DropEmpty removes them and nothing else; Badger then opens the
// directory, which it refuses with them (dgraph-io/badger#2207).
func TestEmptyLogs(t *testing.T) {
	dir := badgerWithTables(t, 10)
	before := tablesIn(t, dir)
	must(t, os.WriteFile(filepath.Join(dir, "00001.mem"), nil, 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "000009.vlog"), nil, 0o600))
	c, err := CheckBadgerDir("ledger", dir)
	if err != nil || strings.Join(c.Empty, " ") != "000009.vlog 00001.mem" || c.Memtables != 0 {
		t.Fatalf("CheckBadgerDir: %+v %v", c, err)
	}
	if db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil)); err == nil {
		db.Close()
		t.Fatal("Badger opened a directory with an empty memtable file: drop the workaround")
	}
	// The failed open gave 00001.mem its size and header: make it empty again.
	must(t, os.Truncate(filepath.Join(dir, "00001.mem"), 0))
	if c, err = CheckBadgerDir("ledger", dir); err != nil {
		t.Fatal(err)
	}
	must(t, DropEmpty(dir, c))
	if c, err := CheckBadgerDir("ledger", dir); err != nil || len(c.Empty) != 0 || tablesIn(t, dir) != before {
		t.Fatalf("after DropEmpty: %+v %v", c, err)
	}
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	must(t, db.Close())
	empty := filepath.Join(t.TempDir(), "new")
	must(t, os.Mkdir(empty, 0o700))
	must(t, os.WriteFile(filepath.Join(empty, "00001.mem"), nil, 0o600))
	if c, err := CheckBadgerDir("ledger", empty); err != nil || c.HasData() {
		t.Fatalf("only an empty memtable file: %+v %v", c, err)
	}
}

func TestPrivate(t *testing.T) {
	dir := badgerWithTables(t, 10)
	must(t, os.Chmod(dir, 0o755))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "f"), nil, 0o644))
	must(t, Private(dir))
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := FileMode
		if d.IsDir() {
			want = DirMode
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: %v, want %v", path, fi.Mode().Perm(), want)
		}
		return nil
	})
	must(t, err)
	if err := Private(filepath.Join(dir, "gone")); err != nil {
		t.Fatalf("a missing directory: %v", err)
	}
}

func TestArchive(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ledger")
	rec := RecordFile(dir)
	must(t, os.Mkdir(dir, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "MANIFEST"), []byte("m"), 0o600))
	must(t, Write(rec, Record{Store: "ledger", Seq: 7}))
	now := time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)
	a, err := Archive(dir, rec, now)
	if err != nil || a.Dir != dir+".reset-20260613T120000Z" || a.RecordFile != rec+".reset-20260613T120000Z" {
		t.Fatalf("archive: %+v %v", a, err)
	}
	if _, err := os.Stat(filepath.Join(a.Dir, "MANIFEST")); err != nil {
		t.Fatalf("the archived store lost its files: %v", err)
	}
	if r, err := Read("ledger", a.RecordFile); err != nil || r.Seq != 7 {
		t.Fatalf("the archived record: %v %v", r, err)
	}
	// A second reset in the same second gets its own name.
	must(t, os.Mkdir(dir, 0o700))
	must(t, Write(rec, Record{Store: "ledger", Seq: 1}))
	b, err := Archive(dir, rec, now)
	if err != nil || b.Dir != a.Dir+"-2" || b.RecordFile != a.RecordFile+"-2" {
		t.Fatalf("second archive: %+v %v", b, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the store is still there: %v", err)
	}
}

func tablesIn(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	must(t, err)
	return len(m)
}

func flip(t *testing.T, path string, at int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	b := make([]byte, 1)
	_, err = f.ReadAt(b, at)
	must(t, err)
	b[0] ^= 0x40
	_, err = f.WriteAt(b, at)
	must(t, err)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkWrite measures one atomic record write (temporary file, fsync,
// rename, fsync of the directory): the ledger makes at most ten a second,
// off its append path.
func BenchmarkWrite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ledger.record")
	r := Record{Store: "ledger", Owner: "12D3KooWbench", Hash: "0x" + strings.Repeat("ab", 32), At: time.Now()}
	for i := range b.N {
		r.Seq = uint64(i)
		if err := Write(path, r); err != nil {
			b.Fatal(err)
		}
	}
}
