package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleynet/parley/identity"
)

func writePass(t *testing.T, pass string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(p, []byte(pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKeysExportImport(t *testing.T) {
	t.Setenv(identity.PassphraseEnv, "")
	t.Setenv(identity.BackupPassphraseEnv, "")
	oldDir := t.TempDir()
	oldPass := writePass(t, "old node passphrase")
	backupPass := writePass(t, "backup passphrase")
	if out, err := runParley(t, "keys", "new", "--data-dir", oldDir, "--passphrase-file", oldPass); err != nil {
		t.Fatalf("keys new: %v\n%s", err, out)
	}
	file := filepath.Join(t.TempDir(), "node.backup")

	out, err := runParley(t, "keys", "export", "--data-dir", oldDir, "--passphrase-file", oldPass, "--backup-passphrase-file", backupPass, "--out", file)
	if err != nil {
		t.Fatalf("keys export: %v\n%s", err, out)
	}
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("backup file mode %v, want 0600", st.Mode().Perm())
	}
	written, _ := os.ReadFile(file)

	// Never overwritten, whatever the passphrases.
	if _, err := runParley(t, "keys", "export", "--data-dir", oldDir, "--passphrase-file", oldPass, "--backup-passphrase-file", backupPass, "--out", file); exitCode(err) != 1 || !strings.Contains(err.Error(), "refusing to overwrite") {
		t.Fatalf("export over an existing file: %v", err)
	}
	if again, _ := os.ReadFile(file); !bytes.Equal(again, written) {
		t.Fatal("a refused export changed the file")
	}
	if _, err := runParley(t, "keys", "export", "--data-dir", oldDir, "--passphrase-file", oldPass); exitCode(err) != 2 {
		t.Fatalf("export without --out: %v", err)
	}
	if _, err := runParley(t, "keys", "export", "--data-dir", oldDir, "--passphrase-file", oldPass, "--out", filepath.Join(t.TempDir(), "x")); exitCode(err) != 2 || !strings.Contains(err.Error(), identity.BackupPassphraseEnv) {
		t.Fatalf("export without a backup passphrase: %v", err)
	}

	// Restore under another node passphrase, the backup passphrase from the
	// environment.
	newDir := filepath.Join(t.TempDir(), "restored")
	newPass := writePass(t, "new node passphrase")
	t.Setenv(identity.BackupPassphraseEnv, "backup passphrase")
	out, err = runParley(t, "keys", "import", "--data-dir", newDir, "--passphrase-file", newPass, "--in", file)
	if err != nil {
		t.Fatalf("keys import: %v\n%s", err, out)
	}
	oldK, err := identity.Open(identity.DefaultConfig(oldDir), []byte("old node passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	newK, err := identity.Open(identity.DefaultConfig(newDir), []byte("new node passphrase"))
	if err != nil {
		t.Fatalf("open the restored keys: %v", err)
	}
	if newK.EVM().Address() != oldK.EVM().Address() {
		t.Fatalf("EVM address %s, want %s", newK.EVM().Address(), oldK.EVM().Address())
	}
	if newK.Inbox().PeerID() != oldK.Inbox().PeerID() {
		t.Fatalf("peer id %s, want %s", newK.Inbox().PeerID(), oldK.Inbox().PeerID())
	}
	if newK.Link().Hash() != oldK.Link().Hash() {
		t.Fatal("link hash differs")
	}
	if !strings.Contains(out, oldK.EVM().Address().Hex()) || !strings.Contains(out, oldK.Inbox().PeerID().String()) {
		t.Fatalf("import output does not name the restored identity:\n%s", out)
	}
	if _, err := runParley(t, "keys", "import", "--data-dir", newDir, "--passphrase-file", newPass, "--in", file); exitCode(err) != 1 {
		t.Fatalf("import over existing keys: %v", err)
	}
	if k, err := identity.Open(identity.DefaultConfig(newDir), []byte("new node passphrase")); err != nil || k.EVM().Address() != oldK.EVM().Address() {
		t.Fatalf("a refused import changed the keys: %v", err)
	}

	// A wrong passphrase, a truncated file and a flipped byte: a clear
	// error and nothing created.
	trunc := filepath.Join(t.TempDir(), "truncated.backup")
	if err := os.WriteFile(trunc, written[:len(written)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	flipped := filepath.Join(t.TempDir(), "flipped.backup")
	fb := bytes.Clone(written)
	fb[len(fb)-100] ^= 0x80
	if err := os.WriteFile(flipped, fb, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, pass, file string
		code             identity.Code
		says             string
	}{
		{"wrong backup passphrase", "not the backup passphrase", file, identity.CodeWrongPassphrase, "incorrect backup passphrase"},
		{"truncated file", "backup passphrase", trunc, identity.CodeBadBackup, "truncated"},
		{"flipped byte", "backup passphrase", flipped, identity.CodeBadBackup, "checksum mismatch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(identity.BackupPassphraseEnv, c.pass)
			dir := filepath.Join(t.TempDir(), "fresh")
			_, err := runParley(t, "keys", "import", "--data-dir", dir, "--passphrase-file", newPass, "--in", c.file)
			if exitCode(err) != 1 || identity.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v (code %q), want exit 1, code %q saying %q", err, identity.CodeOf(err), c.code, c.says)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a refused import created %s (%v)", dir, err)
			}
		})
	}
}
