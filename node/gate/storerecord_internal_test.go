package gate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/storeguard"
)

// recordedStore opens the approval store in root/approvals with its record
// beside it, owned by owner.
func recordedStore(t *testing.T, root, owner string) (*Store, error) {
	t.Helper()
	dir := filepath.Join(root, ApprovalsDirName)
	return OpenStore(dir, nil, WithRecord(storeguard.RecordFile(dir), owner, time.Now))
}

func mustStore(t *testing.T, root, owner string) *Store {
	t.Helper()
	s, err := recordedStore(t, root, owner)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func closeStore(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// fillStore gives s a credential, an approval and a consumption.
func fillStore(t *testing.T, s *Store, id string) {
	t.Helper()
	ctx := t.Context()
	if err := s.PutCredential(ctx, cred("cred-"+id, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordApproval(ctx, approval.ApprovalRecord{RequestID: "req_" + id}, cred("cred-"+id, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkConsumed(ctx, approval.ConsumptionRecord{RequestID: "req_" + id, IntentHash: "h", ConsumedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

func storeRefused(t *testing.T, err error, code storeguard.Code, says ...string) {
	t.Helper()
	var se *storeguard.Error
	if !errors.As(err, &se) || se.Code != code || se.Store != StoreName {
		t.Fatalf("want a refusal %s of the approval store, got %v", code, err)
	}
	for _, s := range append(says, "--reset-approvals", "backup") {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("the refusal does not say %q: %v", s, err)
		}
	}
}

// copyTree copies root (two levels: the data directory and its stores)
// into a new temporary directory.
func copyTree(t *testing.T, root string) string {
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
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestApprovalStoreRecord: every update advances the store's generation
// and rewrites its record (credentials, approvals, consumptions, a store
// id, the owner); an open that finds the store emptier than its record, an
// older copy, another store, a record of another node or a directory
// without its MANIFEST is refused and deletes nothing; a store from before
// records were kept gets one.
func TestApprovalStoreRecord(t *testing.T) {
	root := t.TempDir()
	s := mustStore(t, root, "12D3KooWthis")
	fillStore(t, s, "1")
	closeStore(t, s)
	file := storeguard.RecordFile(filepath.Join(root, ApprovalsDirName))
	rec, err := storeguard.Read(StoreName, file)
	if err != nil || rec == nil || rec.Seq != 3 || rec.StoreID == "" || rec.Owner != "12D3KooWthis" ||
		rec.Counts["credentials"] != 1 || rec.Counts["approvals"] != 1 || rec.Counts["consumptions"] != 1 {
		t.Fatalf("the record: %+v %v", rec, err)
	}
	older := copyTree(t, root) // generation 3
	s = mustStore(t, root, "12D3KooWthis")
	fillStore(t, s, "2")
	closeStore(t, s)
	if r, _ := storeguard.Read(StoreName, file); r.Seq != 6 || r.Counts["approvals"] != 2 {
		t.Fatalf("the record after more updates: %+v", r)
	}

	t.Run("another owner", func(t *testing.T) {
		_, err := recordedStore(t, copyTree(t, root), "12D3KooWother")
		storeRefused(t, err, storeguard.CodeForeign, "12D3KooWother")
	})
	t.Run("no MANIFEST", func(t *testing.T) {
		c := copyTree(t, root)
		dir := filepath.Join(c, ApprovalsDirName)
		if err := os.Remove(filepath.Join(dir, "MANIFEST")); err != nil {
			t.Fatal(err)
		}
		before, _ := filepath.Glob(filepath.Join(dir, "*"))
		_, err := recordedStore(t, c, "12D3KooWthis")
		storeRefused(t, err, storeguard.CodeNoManifest, "2 approvals")
		if after, _ := filepath.Glob(filepath.Join(dir, "*")); len(after) != len(before) {
			t.Fatalf("files %d -> %d", len(before), len(after))
		}
	})
	t.Run("directory removed", func(t *testing.T) {
		c := copyTree(t, root)
		dir := filepath.Join(c, ApprovalsDirName)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		_, err := recordedStore(t, c, "12D3KooWthis")
		storeRefused(t, err, storeguard.CodeEmptier)
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the refused open created the store: %v", err)
		}
	})
	t.Run("an older copy", func(t *testing.T) {
		c := copyTree(t, older)
		if err := os.Rename(file, storeguard.RecordFile(filepath.Join(c, ApprovalsDirName))); err != nil {
			t.Fatal(err)
		}
		_, err := recordedStore(t, c, "12D3KooWthis")
		storeRefused(t, err, storeguard.CodeEmptier, "generation 3", "at 6")
		if err := os.Rename(storeguard.RecordFile(filepath.Join(c, ApprovalsDirName)), file); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("another store", func(t *testing.T) {
		other := t.TempDir()
		o := mustStore(t, other, "12D3KooWthis")
		for _, id := range []string{"3", "4", "5"} {
			fillStore(t, o, id) // more than this store holds
		}
		closeStore(t, o)
		c := copyTree(t, root)
		if err := os.RemoveAll(filepath.Join(c, ApprovalsDirName)); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(other, ApprovalsDirName), filepath.Join(c, ApprovalsDirName)); err != nil {
			t.Fatal(err)
		}
		_, err := recordedStore(t, c, "12D3KooWthis")
		storeRefused(t, err, storeguard.CodeDifferent, "another store")
	})
	t.Run("emptied and opened without the check", func(t *testing.T) {
		// A store opened once without its record (an older binary) after
		// its directory was emptied holds nothing the record names.
		c := copyTree(t, root)
		dir := filepath.Join(c, ApprovalsDirName)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		bare, err := OpenStore(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		closeStore(t, bare)
		_, err = recordedStore(t, c, "12D3KooWthis")
		storeRefused(t, err, storeguard.CodeEmptier, "the store is empty")
	})
	t.Run("upgrade", func(t *testing.T) {
		c := copyTree(t, root)
		f := storeguard.RecordFile(filepath.Join(c, ApprovalsDirName))
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
		closeStore(t, mustStore(t, c, "12D3KooWthis"))
		if r, err := storeguard.Read(StoreName, f); err != nil || r == nil || r.Seq != 6 || r.Counts["consumptions"] != 2 {
			t.Fatalf("the upgrade's record: %+v %v", r, err)
		}
	})
	s = mustStore(t, root, "12D3KooWthis")
	defer closeStore(t, s)
	err = filepath.WalkDir(filepath.Join(root, ApprovalsDirName), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if want := fs.FileMode(0o600); !d.IsDir() && fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v", path, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRecordCountsWhatAScanCounts: the counts the record names are added
// up per update, not scanned; after every kind of update (a new, a
// replaced and a deleted credential, an approval and one already given,
// a consumption and one already made, concurrent consumptions of one
// request, a refused update) the record names what a scan of the store
// counts, and the store's generation.
func TestRecordCountsWhatAScanCounts(t *testing.T) {
	root := t.TempDir()
	s := mustStore(t, root, "12D3KooWthis")
	defer closeStore(t, s)
	ctx := t.Context()
	file := storeguard.RecordFile(filepath.Join(root, ApprovalsDirName))
	agrees := func(step string) {
		t.Helper()
		rec, err := storeguard.Read(StoreName, file)
		if err != nil || rec == nil {
			t.Fatalf("%s: the record: %v", step, err)
		}
		var st approvalState
		if err := s.db.View(func(txn *badger.Txn) error { st, err = readState(txn); return err }); err != nil {
			t.Fatal(err)
		}
		if rec.Seq != st.gen {
			t.Fatalf("%s: the record names generation %d, the store is at %d", step, rec.Seq, st.gen)
		}
		for name, n := range st.counts {
			if rec.Counts[name] != n {
				t.Fatalf("%s: the record names %d %s, a scan counts %d", step, rec.Counts[name], name, n)
			}
		}
	}
	do := func(step string, f func() error) {
		t.Helper()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		agrees(step)
	}
	consume := func(id string) error {
		_, err := s.MarkConsumed(ctx, approval.ConsumptionRecord{RequestID: id, IntentHash: "h", ConsumedAt: time.Now()})
		return err
	}
	do("a new credential", func() error { return s.PutCredential(ctx, cred("a", 0)) })
	do("the credential replaced", func() error { return s.PutCredential(ctx, cred("a", 3)) })
	do("an approval with a known credential", func() error {
		_, err := s.RecordApproval(ctx, approval.ApprovalRecord{RequestID: "req_1"}, cred("a", 4))
		return err
	})
	do("an approval with a new credential", func() error {
		_, err := s.RecordApproval(ctx, approval.ApprovalRecord{RequestID: "req_2"}, cred("b", 1))
		return err
	})
	do("an approval given already", func() error {
		_, err := s.RecordApproval(ctx, approval.ApprovalRecord{RequestID: "req_1"}, cred("c", 1))
		return err
	})
	do("a consumption", func() error { return consume("req_1") })
	do("a consumption made already", func() error { return consume("req_1") })
	do("concurrent consumptions of one request", func() error {
		errs := make(chan error, 8)
		for range 8 {
			go func() { errs <- consume("req_2") }()
		}
		for range 8 {
			if err := <-errs; err != nil {
				return err
			}
		}
		return nil
	})
	do("a credential deleted", func() error { return s.DeleteCredential(ctx, []byte("b")) })
	if err := s.DeleteCredential(ctx, []byte("b")); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("deleting it again: %v", err)
	}
	agrees("a refused deletion")
}
