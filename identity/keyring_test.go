package identity

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

func TestCreateOpen(t *testing.T) {
	cfg := testConfig(t)
	k, err := Create(cfg, testPass, t0)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Open(cfg, testPass)
	if err != nil {
		t.Fatal(err)
	}
	if o.Inbox().PublicHex() != k.Inbox().PublicHex() || o.EVM().Address() != k.EVM().Address() {
		t.Fatal("reopened keys differ")
	}
	if o.Inbox().PeerID() != k.Inbox().PeerID() {
		t.Fatal("peer id differs")
	}
	ek := k.EncryptionKeys()
	if len(ek) != 1 || ek[0].KEM != KEMMLKEM768X25519 {
		t.Fatalf("want one ML-KEM-768+X25519 key, got %+v", ek)
	}
	if !ek[0].NotAfter.Equal(t0.Add(cfg.EncryptionKeyLifetime)) {
		t.Fatalf("notAfter %v", ek[0].NotAfter)
	}
	oek, ok := o.EncryptionKey(ek[0].ID)
	if !ok {
		t.Fatal("reopened keyring lacks the encryption key")
	}
	a, _ := ek[0].PrivateBytes()
	b, _ := oek.PrivateBytes()
	if !bytes.Equal(a, b) {
		t.Fatal("reopened encryption key differs")
	}
	if o.Link() == nil || !bytes.Equal(o.Link().Bytes(), k.Link().Bytes()) {
		t.Fatal("reopened link differs")
	}
	if err := o.Link().Verify(t0); err != nil {
		t.Fatalf("issued link does not verify: %v", err)
	}
}

func TestKeyFilesAtRest(t *testing.T) {
	cfg := testConfig(t)
	k, err := Create(cfg, testPass, t0)
	if err != nil {
		t.Fatal(err)
	}
	dir := KeysDir(cfg.Dir)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("key dir mode %v, want 0700", fi.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", e.Name(), info.Mode().Perm())
		}
	}
	ek := k.EncryptionKeys()[0]
	for _, n := range []string{PublicFileName, InboxFileName, EVMFileName, LinkFileName, EncryptionKeyFileName(ek.ID)} {
		if !names[n] {
			t.Errorf("missing %s in %v", n, names)
		}
	}
	if len(names) != 5 {
		t.Errorf("unexpected files: %v", names)
	}
	// No private key appears in the clear in any file.
	encPriv, _ := ek.PrivateBytes()
	secrets := map[string][]byte{
		"inbox seed":  k.Inbox().Seed(),
		"evm key":     crypto.FromECDSA(k.EVM().PrivateKey()),
		"enc key":     encPriv,
		"storage key": []byte(k.storage.String()),
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		low := strings.ToLower(string(b))
		for what, s := range secrets {
			if bytes.Contains(b, s) || strings.Contains(low, strings.ToLower(hex0x(s))[2:]) {
				t.Errorf("%s holds the %s in the clear", e.Name(), what)
			}
		}
	}
	// public.json holds the public parts.
	pub, link, err := ReadPublic(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if pub.InboxKey != k.Inbox().PublicHex() || pub.PeerID != k.Inbox().PeerID().String() || pub.EVMAddress != k.EVM().Address().Hex() {
		t.Fatalf("public.json: %+v", pub)
	}
	if len(pub.EncryptionKeys) != 1 || pub.EncryptionKeys[0].ID != ek.ID || !pub.EncryptionKeys[0].NotAfterTime().Equal(ek.NotAfter) {
		t.Fatalf("public.json keys: %+v", pub.EncryptionKeys)
	}
	if link == nil || link.Hash() != k.Link().Hash() {
		t.Fatal("ReadPublic link differs")
	}
}

func TestKeyringErrors(t *testing.T) {
	t.Run("refuses to overwrite", func(t *testing.T) {
		cfg := testConfig(t)
		k, err := Create(cfg, testPass, t0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Create(cfg, []byte("other"), t0)
		wantCode(t, err, CodeKeyExists)
		if !errors.Is(err, ErrKeyExists) {
			t.Fatal("errors.Is(ErrKeyExists) is false")
		}
		o, err := Open(cfg, testPass)
		if err != nil {
			t.Fatal(err)
		}
		if o.EVM().Address() != k.EVM().Address() {
			t.Fatal("keys changed after a refused Create")
		}
	})
	t.Run("refuses an existing empty keys dir", func(t *testing.T) {
		cfg := testConfig(t)
		if err := os.MkdirAll(KeysDir(cfg.Dir), 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := Create(cfg, testPass, t0)
		wantCode(t, err, CodeKeyExists)
	})
	t.Run("wrong passphrase", func(t *testing.T) {
		cfg := testConfig(t)
		if _, err := Create(cfg, testPass, t0); err != nil {
			t.Fatal(err)
		}
		_, err := Open(cfg, []byte("wrong"))
		wantCode(t, err, CodeWrongPassphrase)
		if !errors.Is(err, ErrWrongPassphrase) {
			t.Fatal("errors.Is(ErrWrongPassphrase) is false")
		}
	})
	t.Run("empty passphrase", func(t *testing.T) {
		cfg := testConfig(t)
		_, err := Create(cfg, nil, t0)
		wantCode(t, err, CodeNoPassphrase)
		if _, err := os.Stat(KeysDir(cfg.Dir)); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("a refused Create left a key directory")
		}
	})
	t.Run("no keys", func(t *testing.T) {
		cfg := testConfig(t)
		_, err := Open(cfg, testPass)
		wantCode(t, err, CodeKeyMissing)
		_, _, err = ReadPublic(cfg.Dir)
		wantCode(t, err, CodeKeyMissing)
	})
	for _, tc := range []struct {
		name string
		file func(k *Keyring) string
		edit func(b []byte) []byte // nil removes the file
		code Code
	}{
		{"missing inbox", func(*Keyring) string { return InboxFileName }, nil, CodeKeyMissing},
		{"missing evm", func(*Keyring) string { return EVMFileName }, nil, CodeKeyMissing},
		{"missing enc", func(k *Keyring) string { return EncryptionKeyFileName(k.EncryptionKeys()[0].ID) }, nil, CodeKeyMissing},
		{"corrupt inbox", func(*Keyring) string { return InboxFileName }, flipLast, CodeCorruptKeyFile},
		{"truncated inbox", func(*Keyring) string { return InboxFileName }, func(b []byte) []byte { return b[:len(b)/2] }, CodeCorruptKeyFile},
		{"corrupt evm", func(*Keyring) string { return EVMFileName }, func(b []byte) []byte { return b[:len(b)-3] }, CodeCorruptKeyFile},
		{"corrupt enc", func(k *Keyring) string { return EncryptionKeyFileName(k.EncryptionKeys()[0].ID) }, flipLast, CodeCorruptKeyFile},
		{"corrupt public", func(*Keyring) string { return PublicFileName }, func(b []byte) []byte { return append(b, '}') }, CodeCorruptKeyFile},
		{"public names another address", func(*Keyring) string { return PublicFileName }, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"evmAddress":"0x`), []byte(`"evmAddress":"0x0000000000000000000000000000000000000000","x":"`), 1)
		}, CodeCorruptKeyFile},
		{"corrupt link", func(*Keyring) string { return LinkFileName }, flipLast, CodeCorruptKeyFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t)
			k, err := Create(cfg, testPass, t0)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(KeysDir(cfg.Dir), tc.file(k))
			if tc.edit == nil {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			} else {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, tc.edit(b), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err = Open(cfg, testPass)
			wantCode(t, err, tc.code)
		})
	}
}

func flipLast(b []byte) []byte {
	c := bytes.Clone(b)
	c[len(c)-2] ^= 0x01
	return c
}

func TestRotateAndPrune(t *testing.T) {
	cfg := testConfig(t)
	k, err := Create(cfg, testPass, t0)
	if err != nil {
		t.Fatal(err)
	}
	old := k.EncryptionKeys()[0]
	now := t0.Add(24 * time.Hour)
	nk, err := k.RotateEncryptionKey(now)
	if err != nil {
		t.Fatal(err)
	}
	if nk.ID == old.ID {
		t.Fatal("rotation reused the key")
	}
	keys := k.EncryptionKeys()
	if len(keys) != 2 || !keys[0].NotAfter.Equal(now) || !keys[1].NotAfter.Equal(now.Add(cfg.EncryptionKeyLifetime)) {
		t.Fatalf("after rotation: %v %v", keys[0].NotAfter, keys[1].NotAfter)
	}
	l, err := k.IssueLink(now)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.EncryptionKeys) != 1 || l.EncryptionKeys[0].ID != nk.ID {
		t.Fatal("new link should list only the new key")
	}
	cur, err := l.CurrentKey(now)
	if err != nil || cur.ID != nk.ID {
		t.Fatalf("current key %v, %v", cur, err)
	}

	// The retired key survives a reopen, with its new notAfter.
	o, err := Open(cfg, testPass)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := o.EncryptionKey(old.ID); !ok || !r.NotAfter.Equal(now) {
		t.Fatal("retired key lost on reopen")
	}

	// Inside the grace period nothing is pruned.
	gone, err := k.Prune(now.Add(cfg.GracePeriod - time.Second))
	if err != nil || len(gone) != 0 {
		t.Fatalf("pruned %v, %v inside the grace period", gone, err)
	}
	oldFile := filepath.Join(KeysDir(cfg.Dir), EncryptionKeyFileName(old.ID))
	if _, err := os.Stat(oldFile); err != nil {
		t.Fatal(err)
	}
	gone, err = k.Prune(now.Add(cfg.GracePeriod))
	if err != nil || len(gone) != 1 || gone[0] != old.ID {
		t.Fatalf("pruned %v, %v", gone, err)
	}
	if _, err := os.Stat(oldFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("pruned key file still on disk")
	}
	if _, ok := k.EncryptionKey(old.ID); ok {
		t.Fatal("pruned key still in the keyring")
	}
	o, err = Open(cfg, testPass)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := o.EncryptionKey(old.ID); ok {
		t.Fatal("pruned key back after reopen")
	}
	if _, ok := o.EncryptionKey(nk.ID); !ok {
		t.Fatal("current key lost")
	}
}

func TestPruneRemovesOrphans(t *testing.T) {
	cfg := testConfig(t)
	k, err := Create(cfg, testPass, t0)
	if err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(KeysDir(cfg.Dir), "enc-00000000000000000000000000000000.age")
	if err := os.WriteFile(orphan, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Prune(t0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("orphan key file survived Prune")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{
		{"dir", func(c *Config) { c.Dir = "" }},
		{"scrypt", func(c *Config) { c.ScryptWorkFactor = 0 }},
		{"keystore n", func(c *Config) { c.KeystoreScryptN = 1000 }},
		{"keystore p", func(c *Config) { c.KeystoreScryptP = 0 }},
		{"kem", func(c *Config) { c.KEM = "RSA" }},
		{"lifetime", func(c *Config) { c.EncryptionKeyLifetime = 0 }},
		{"grace", func(c *Config) { c.GracePeriod = -1 }},
		{"link", func(c *Config) { c.LinkLifetime = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig(t.TempDir())
			tc.edit(&c)
			wantCode(t, c.Validate(), CodeBadConfig)
			_, err := Create(c, testPass, t0)
			wantCode(t, err, CodeBadConfig)
		})
	}
	c := DefaultConfig("x")
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.ScryptWorkFactor != 18 || c.GracePeriod != 7*24*time.Hour || c.KEM != KEMMLKEM768X25519 {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestX25519Keyring(t *testing.T) {
	cfg := testConfig(t)
	cfg.KEM = KEMX25519
	k, err := Create(cfg, testPass, t0)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Open(cfg, testPass)
	if err != nil {
		t.Fatal(err)
	}
	if o.EncryptionKeys()[0].KEM != KEMX25519 || o.EncryptionKeys()[0].ID != k.EncryptionKeys()[0].ID {
		t.Fatal("x25519 key did not round-trip")
	}
}

func TestOpenAfterInterruptedRotation(t *testing.T) {
	cfg := testConfig(t)
	k, err := Create(cfg, testPass, t0)
	if err != nil {
		t.Fatal(err)
	}
	ek := k.EncryptionKeys()[0]
	path := filepath.Join(KeysDir(cfg.Dir), PublicFileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		notAfter int64
		want     time.Time
	}{
		{"public.json earlier", t0.Add(time.Hour).Unix(), t0.Add(time.Hour)},
		{"key file earlier", ek.NotAfter.Unix() + 3600, ek.NotAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := bytes.Replace(b, []byte(itoa(ek.NotAfter.Unix())), []byte(itoa(tc.notAfter)), 1)
			if bytes.Equal(edited, b) {
				t.Fatal("notAfter not found in public.json")
			}
			if err := os.WriteFile(path, edited, 0o600); err != nil {
				t.Fatal(err)
			}
			o, err := Open(cfg, testPass)
			if err != nil {
				t.Fatal(err)
			}
			if got := o.EncryptionKeys()[0].NotAfter; !got.Equal(tc.want) {
				t.Fatalf("notAfter %v, want the earlier %v", got, tc.want)
			}
		})
	}
}
