package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleynet/parley/identity"
)

func runParley(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	// Replace the keys command by one with test-only scrypt costs.
	for _, c := range root.Commands() {
		if c.Name() == "keys" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(keysCmd(func(c *identity.Config) {
		c.ScryptWorkFactor = 10
		c.KeystoreScryptN, c.KeystoreScryptP = 1<<8, 1
	}))
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestKeysNewShow(t *testing.T) {
	t.Setenv(identity.PassphraseEnv, "")
	dir := t.TempDir()
	pf := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(pf, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runParley(t, "keys", "new", "--data-dir", dir, "--passphrase-file", pf, "--kem", "X25519")
	if err != nil {
		t.Fatalf("keys new: %v\n%s", err, out)
	}
	k, err := identity.Open(identity.DefaultConfig(dir), []byte("s3cret"))
	if err != nil {
		t.Fatalf("open with the file's passphrase (trailing newline stripped): %v", err)
	}
	show, err := runParley(t, "keys", "show", "--data-dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{k.Inbox().PublicHex(), k.Inbox().PeerID().String(), k.EVM().Address().Hex(), k.EncryptionKeys()[0].ID.String(), "X25519"} {
		if !strings.Contains(show, want) {
			t.Errorf("keys show lacks %s:\n%s", want, show)
		}
	}
	if _, err := runParley(t, "keys", "new", "--data-dir", dir, "--passphrase-file", pf); err == nil {
		t.Fatal("keys new overwrote existing keys")
	}
	if k2, err := identity.Open(identity.DefaultConfig(dir), []byte("s3cret")); err != nil || k2.EVM().Address() != k.EVM().Address() {
		t.Fatal("keys changed after a refused keys new")
	}
	if _, err := runParley(t, "keys", "show", "--data-dir", t.TempDir()); identity.CodeOf(err) != identity.CodeKeyMissing {
		t.Fatalf("show without keys: %v", err)
	}
	if _, err := runParley(t, "keys", "new", "--data-dir", t.TempDir()); identity.CodeOf(err) != identity.CodeNoPassphrase {
		t.Fatalf("new without a passphrase: %v", err)
	}
}
