package identity

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var backupPass = []byte("a different backup passphrase")

// backedUp returns a keyring with two encryption keys (one retired by a
// rotation) and a re-issued link, and a backup of it.
func backedUp(t *testing.T) (*Keyring, []byte) {
	t.Helper()
	k, err := Create(testConfig(t), testPass, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.RotateEncryptionKey(t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := k.IssueLink(t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	b, err := k.Backup(backupPass)
	if err != nil {
		t.Fatal(err)
	}
	return k, b
}

func TestBackupRestore(t *testing.T) {
	k, b := backedUp(t)
	if !bytes.HasPrefix(b, []byte(backupMagic)) {
		t.Fatalf("backup does not start with %q", backupMagic)
	}
	for _, secret := range []string{hex0x(k.Inbox().Seed()), k.storage.String()} {
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(secret[2:])) {
			t.Fatal("a private key is in the backup in the clear")
		}
	}
	bk, err := OpenBackup(b, backupPass)
	if err != nil {
		t.Fatal(err)
	}
	if bk.EVMAddress() != k.EVM().Address().Hex() || bk.PeerID() != k.Inbox().PeerID().String() || bk.Link().Hash() != k.Link().Hash() {
		t.Fatal("the opened backup names other keys")
	}

	cfg := testConfig(t)
	newPass := []byte("the new node's passphrase")
	r, err := Restore(cfg, bk, newPass)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Open(cfg, newPass)
	if err != nil {
		t.Fatalf("open the restored keys under the new passphrase: %v", err)
	}
	if _, err := Open(cfg, testPass); !errors.Is(err, ErrWrongPassphrase) {
		t.Fatalf("restored keys open under the old passphrase: %v", err)
	}
	for _, got := range []*Keyring{r, o} {
		if got.EVM().Address() != k.EVM().Address() {
			t.Fatal("EVM address differs")
		}
		if got.Inbox().PeerID() != k.Inbox().PeerID() || !bytes.Equal(got.Inbox().Seed(), k.Inbox().Seed()) {
			t.Fatal("inbox key differs")
		}
		if got.Link().Hash() != k.Link().Hash() {
			t.Fatal("link hash differs")
		}
		want, have := k.EncryptionKeys(), got.EncryptionKeys()
		if len(have) != len(want) || len(want) != 2 {
			t.Fatalf("%d encryption keys, want %d", len(have), len(want))
		}
		for i := range want {
			a, _ := want[i].PrivateBytes()
			c, _ := have[i].PrivateBytes()
			if have[i].ID != want[i].ID || !have[i].NotAfter.Equal(want[i].NotAfter) || !bytes.Equal(a, c) {
				t.Fatalf("encryption key %d differs", i)
			}
		}
	}
	orig, _ := os.ReadFile(filepath.Join(k.Dir(), PublicFileName))
	rest, _ := os.ReadFile(filepath.Join(o.Dir(), PublicFileName))
	if !bytes.Equal(orig, rest) {
		t.Fatalf("public.json differs:\n%s\n%s", orig, rest)
	}

	// What a peer sealed to the original node opens on the restored one.
	peer := newParty(t, "alice", KEMX25519)
	frame, err := peer.sealer(t).Seal(t0.Add(2*time.Hour), [16]byte{1}, []*Link{k.Link()}, []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSealer(DefaultSealerConfig(o.Inbox(), o.Link(), o))
	if err != nil {
		t.Fatal(err)
	}
	opened, err := s.Open(t0.Add(2*time.Hour), frame)
	if err != nil {
		t.Fatalf("the restored node cannot open a frame sealed to the original: %v", err)
	}
	if string(opened.Plaintext) != "hello" {
		t.Fatalf("opened %q", opened.Plaintext)
	}
}

func TestBackupEachTimeFresh(t *testing.T) {
	k, b := backedUp(t)
	b2, err := k.Backup(backupPass)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(b, b2) {
		t.Fatal("two backups are byte-equal: salt and nonce are not fresh")
	}
	if _, err := k.Backup(nil); !errors.Is(err, ErrNoPassphrase) {
		t.Fatalf("empty backup passphrase: %v", err)
	}
}

func TestRestoreRefusesExistingKeys(t *testing.T) {
	_, b := backedUp(t)
	bk, err := OpenBackup(b, backupPass)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	other, err := Create(cfg, testPass, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(cfg, bk, testPass); !errors.Is(err, ErrKeyExists) {
		t.Fatalf("restore over existing keys: %v", err)
	}
	o, err := Open(cfg, testPass)
	if err != nil || o.EVM().Address() != other.EVM().Address() {
		t.Fatalf("the existing keys changed: %v", err)
	}
	// An empty keys directory counts as existing keys, as for Create.
	cfg2 := testConfig(t)
	if err := os.Mkdir(KeysDir(cfg2.Dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(cfg2, bk, testPass); !errors.Is(err, ErrKeyExists) {
		t.Fatalf("restore over an empty keys dir: %v", err)
	}
}

// reseal recomputes the trailing checksum, as someone altering a backup
// on purpose would.
func reseal(b []byte) []byte {
	body := b[:len(b)-sha256.Size]
	sum := sha256.Sum256(body)
	return append(bytes.Clone(body), sum[:]...)
}

func TestOpenBackupRefusesDamage(t *testing.T) {
	_, b := backedUp(t)
	headEnd := len(backupMagic) + bytes.IndexByte(b[len(backupMagic):], '\n') + 1
	flip := func(i int) []byte {
		c := bytes.Clone(b)
		c[i] ^= 0x01
		return c
	}
	cases := []struct {
		name string
		data []byte
		pass []byte
		code Code
		msg  string
	}{
		{"wrong passphrase", b, []byte("not it"), CodeWrongPassphrase, "incorrect backup passphrase"},
		{"empty passphrase", b, nil, CodeNoPassphrase, ""},
		{"empty file", nil, backupPass, CodeBadBackup, "truncated"},
		{"not a backup", []byte(`{"hello":"world"}`), backupPass, CodeBadBackup, "not a Parley key backup"},
		{"truncated in the first line", b[:5], backupPass, CodeBadBackup, "truncated"},
		{"truncated in the header", b[:len(backupMagic)+20], backupPass, CodeBadBackup, "truncated"},
		{"truncated in the ciphertext", b[:headEnd+40], backupPass, CodeBadBackup, "truncated"},
		{"last byte missing", b[:len(b)-1], backupPass, CodeBadBackup, "truncated"},
		{"a byte too many", append(bytes.Clone(b), 0), backupPass, CodeBadBackup, "after the end"},
		{"flipped byte in the first line", flip(3), backupPass, CodeBadBackup, "not a Parley key backup"},
		{"flipped byte in the header", flip(len(backupMagic) + 2), backupPass, CodeBadBackup, "header"},
		{"flipped byte in the ciphertext", flip(headEnd + 10), backupPass, CodeBadBackup, "checksum mismatch"},
		{"flipped byte in the checksum", flip(len(b) - 1), backupPass, CodeBadBackup, "checksum mismatch"},
		{"altered ciphertext, checksum recomputed", reseal(flip(headEnd + 10)), backupPass, CodeBadBackup, "authentication failed"},
		{"altered header, checksum recomputed", reseal(bytes.Replace(b, []byte(`"ciphertextLength"`), []byte(`"ciphertextLengtH"`), 1)), backupPass, CodeBadBackup, "header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bk, err := OpenBackup(c.data, c.pass)
			if bk != nil {
				t.Fatal("a damaged backup opened")
			}
			wantCode(t, err, c.code)
			if !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %q does not say %q", err, c.msg)
			}
		})
	}
}

func FuzzOpenBackup(f *testing.F) {
	cfg := DefaultConfig(f.TempDir())
	cfg.ScryptWorkFactor, cfg.KeystoreScryptN, cfg.KeystoreScryptP = 1, 1<<8, 1
	cfg.KEM = KEMX25519
	k, err := Create(cfg, testPass, t0)
	if err != nil {
		f.Fatal(err)
	}
	b, err := k.Backup(backupPass)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(backupMagic + "{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bk, err := OpenBackup(data, backupPass)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		// Whatever opens is a consistent set of keys with their link.
		if bk.Link().EVMAddress.Hex() != bk.EVMAddress() || bk.Link().PeerID.String() != bk.PeerID() {
			t.Fatal("an opened backup's link is not for its keys")
		}
	})
}
