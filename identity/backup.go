package identity

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"filippo.io/age"
	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/scrypt"
)

// A key backup is one file that holds every key of a node (inbox seed,
// storage key, EVM key, every encryption key) and its signed identity
// link, encrypted under a backup passphrase (docs/identity.md "Backup and
// restore"). Its layout:
//
//	parley-keys-backup\n
//	<JCS header>\n
//	<ciphertext: XChaCha20-Poly1305 of the JCS payload, header lines as AAD>
//	<SHA-256 of everything before it, 32 bytes>
//
// The trailing checksum tells damage (a truncated file, a flipped byte)
// from a wrong passphrase; the key check in the header tells a wrong
// passphrase without trying the AEAD; the AEAD authenticates the header
// and the payload against anyone who recomputes the checksum.

// BackupPassphraseEnv is the environment variable the backup passphrase
// may come from.
const BackupPassphraseEnv = "PARLEY_BACKUP_PASSPHRASE"

// Backup codes.
const (
	// CodeBadBackup: a key backup is truncated, altered, not a backup, or
	// holds keys that do not fit together.
	CodeBadBackup Code = "bad_backup"
)

// ErrBadBackup is returned when a key backup file is truncated, damaged,
// altered, of an unknown version, or holds keys that do not fit together.
// A wrong backup passphrase is ErrWrongPassphrase instead.
var ErrBadBackup = &Error{Code: CodeBadBackup}

const (
	backupMagic        = "parley-keys-backup\n"
	backupVersion      = 1
	backupKDF          = "scrypt"
	backupAEAD         = "XChaCha20-Poly1305"
	backupScryptR      = 8
	backupScryptP      = 1
	backupSaltSize     = 32
	backupKeyCheckSize = 16
	backupMaxHeader    = 1024
	backupMaxPayload   = 1 << 20
	backupSumSize      = sha256.Size
)

// backupHeader is the clear, authenticated header of a key backup.
type backupHeader struct {
	Version          int    `json:"version"`
	KDF              string `json:"kdf"`
	LogN             int    `json:"logN"`
	R                int    `json:"r"`
	P                int    `json:"p"`
	Salt             string `json:"salt"`
	AEAD             string `json:"aead"`
	Nonce            string `json:"nonce"`
	KeyCheck         string `json:"keyCheck"`
	CiphertextLength int    `json:"ciphertextLength"`
}

// backupPayload is what a key backup encrypts.
type backupPayload struct {
	Version         int             `json:"version"`
	InboxSeed       string          `json:"inboxSeed"`
	StorageIdentity string          `json:"storageIdentity"`
	EVMKey          string          `json:"evmKey"`
	EncryptionKeys  []encFile       `json:"encryptionKeys"`
	Link            json.RawMessage `json:"link"`
}

// Backup returns a key backup of k: every key and the last issued link,
// encrypted under passphrase with scrypt (N = 2^ScryptWorkFactor of the
// keyring's Config, r = 8, p = 1) and XChaCha20-Poly1305. The result is
// secret-bearing: store it like the keys themselves. It returns
// ErrNoPassphrase for an empty passphrase and ErrKeyMissing when the
// keyring has no link.
func (k *Keyring) Backup(passphrase []byte) ([]byte, error) {
	if len(passphrase) == 0 {
		return nil, fail(CodeNoPassphrase, "empty backup passphrase")
	}
	k.mu.Lock()
	p := backupPayload{
		Version:         backupVersion,
		InboxSeed:       hex0x(k.inbox.Seed()),
		StorageIdentity: k.storage.String(),
		EVMKey:          hex0x(crypto.FromECDSA(k.evm.PrivateKey())),
		EncryptionKeys:  make([]encFile, 0, len(k.enc)),
	}
	for _, e := range k.enc {
		priv, err := e.PrivateBytes()
		if err != nil {
			k.mu.Unlock()
			return nil, fmt.Errorf("identity: encryption key bytes: %w", err)
		}
		p.EncryptionKeys = append(p.EncryptionKeys, encFile{KEM: string(e.KEM), PrivateKey: hex0x(priv), NotAfter: uint64(e.NotAfter.Unix())})
	}
	if k.link != nil {
		p.Link = k.link.Bytes()
	}
	k.mu.Unlock()
	if p.Link == nil {
		return nil, fail(CodeKeyMissing, "no identity link to back up: issue one first")
	}
	plain, err := marshalCanonical(p)
	if err != nil {
		return nil, err
	}
	defer clear(plain)

	var salt [backupSaltSize]byte
	var nonce [chacha20poly1305.NonceSizeX]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return nil, fmt.Errorf("identity: backup salt: %w", err)
	}
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("identity: backup nonce: %w", err)
	}
	logN := k.cfg.ScryptWorkFactor
	key, check, err := backupKeys(passphrase, salt[:], logN)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	h := backupHeader{
		Version: backupVersion, KDF: backupKDF, LogN: logN, R: backupScryptR, P: backupScryptP,
		Salt: hex0x(salt[:]), AEAD: backupAEAD, Nonce: hex0x(nonce[:]), KeyCheck: hex0x(check),
		CiphertextLength: len(plain) + chacha20poly1305.Overhead,
	}
	hb, err := marshalCanonical(h)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(backupMagic)+len(hb)+1+h.CiphertextLength+backupSumSize)
	out = append(out, backupMagic...)
	out = append(out, hb...)
	out = append(out, '\n')
	aad := bytes.Clone(out)
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, fmt.Errorf("identity: backup cipher: %w", err)
	}
	out = aead.Seal(out, nonce[:], plain, aad)
	sum := sha256.Sum256(out)
	return append(out, sum[:]...), nil
}

// backupKeys derives the 32-byte AEAD key and the key check from the
// passphrase: scrypt yields 32 + 16 bytes, and the last 16 are stored in
// the header so that a wrong passphrase is told apart from damage.
func backupKeys(passphrase, salt []byte, logN int) (key, check []byte, err error) {
	out, err := scrypt.Key(passphrase, salt, 1<<logN, backupScryptR, backupScryptP, chacha20poly1305.KeySize+backupKeyCheckSize)
	if err != nil {
		return nil, nil, fmt.Errorf("identity: backup kdf: %w", err)
	}
	return out[:chacha20poly1305.KeySize], out[chacha20poly1305.KeySize:], nil
}

// BackupKeys is the content of a key backup, decrypted and checked: the
// keys fit together and the link is signed by them. It holds secrets.
type BackupKeys struct {
	inbox   *InboxKey
	evm     *EVMKey
	storage *age.X25519Identity
	enc     []*EncryptionKey
	link    *Link
}

// EVMAddress returns the EVM address of the backed-up EVM key.
func (b *BackupKeys) EVMAddress() string { return b.evm.Address().Hex() }

// PeerID returns the peer id of the backed-up inbox key.
func (b *BackupKeys) PeerID() string { return b.inbox.PeerID().String() }

// Link returns the backed-up identity link.
func (b *BackupKeys) Link() *Link { return b.link }

// OpenBackup decrypts and checks a key backup. It returns
// ErrWrongPassphrase when passphrase is not the backup's, and ErrBadBackup
// when the file is truncated, damaged, altered, of an unknown version, or
// holds keys that do not fit together (each with a message that says
// which).
func OpenBackup(data, passphrase []byte) (*BackupKeys, error) {
	if len(passphrase) == 0 {
		return nil, fail(CodeNoPassphrase, "empty backup passphrase")
	}
	if !bytes.HasPrefix(data, []byte(backupMagic)) {
		if len(data) < len(backupMagic) && bytes.HasPrefix([]byte(backupMagic), data) {
			return nil, fail(CodeBadBackup, "truncated: the file ends inside its first line")
		}
		return nil, fail(CodeBadBackup, "not a Parley key backup (no %q line)", backupMagic[:len(backupMagic)-1])
	}
	rest := data[len(backupMagic):]
	nl := bytes.IndexByte(rest[:min(len(rest), backupMaxHeader)], '\n')
	if nl < 0 {
		if len(rest) < backupMaxHeader {
			return nil, fail(CodeBadBackup, "truncated: the file ends inside its header")
		}
		return nil, fail(CodeBadBackup, "header longer than %d bytes", backupMaxHeader)
	}
	var h backupHeader
	if _, err := decodeStrict(rest[:nl], &h); err != nil {
		return nil, failWrap(CodeBadBackup, err, "header")
	}
	if h.Version != backupVersion {
		return nil, fail(CodeBadBackup, "version %d; this node reads version %d", h.Version, backupVersion)
	}
	if h.KDF != backupKDF || h.AEAD != backupAEAD || h.R != backupScryptR || h.P != backupScryptP {
		return nil, fail(CodeBadBackup, "kdf %s (r=%d, p=%d) with %s; this node reads %s (r=%d, p=%d) with %s",
			h.KDF, h.R, h.P, h.AEAD, backupKDF, backupScryptR, backupScryptP, backupAEAD)
	}
	if h.LogN < 1 || h.LogN > 22 {
		return nil, fail(CodeBadBackup, "scrypt logN %d is outside 1..22", h.LogN)
	}
	if h.CiphertextLength < chacha20poly1305.Overhead || h.CiphertextLength > backupMaxPayload {
		return nil, fail(CodeBadBackup, "ciphertextLength %d is outside %d..%d", h.CiphertextLength, chacha20poly1305.Overhead, backupMaxPayload)
	}
	salt, err := parseHex(h.Salt, backupSaltSize)
	if err != nil {
		return nil, failWrap(CodeBadBackup, err, "header salt")
	}
	nonce, err := parseHex(h.Nonce, chacha20poly1305.NonceSizeX)
	if err != nil {
		return nil, failWrap(CodeBadBackup, err, "header nonce")
	}
	check, err := parseHex(h.KeyCheck, backupKeyCheckSize)
	if err != nil {
		return nil, failWrap(CodeBadBackup, err, "header keyCheck")
	}
	headEnd := len(backupMagic) + nl + 1
	want := headEnd + h.CiphertextLength + backupSumSize
	switch {
	case len(data) < want:
		return nil, fail(CodeBadBackup, "truncated: the file has %d bytes, its header promises %d", len(data), want)
	case len(data) > want:
		return nil, fail(CodeBadBackup, "%d bytes after the end of the backup", len(data)-want)
	}
	body := data[:want-backupSumSize]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[want-backupSumSize:]) {
		return nil, fail(CodeBadBackup, "checksum mismatch: the file is damaged or was altered")
	}
	key, gotCheck, err := backupKeys(passphrase, salt, h.LogN)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	if subtle.ConstantTimeCompare(gotCheck, check) != 1 {
		return nil, fail(CodeWrongPassphrase, "incorrect backup passphrase")
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, fmt.Errorf("identity: backup cipher: %w", err)
	}
	plain, err := aead.Open(nil, nonce, body[headEnd:], body[:headEnd])
	if err != nil {
		return nil, fail(CodeBadBackup, "authentication failed: the file was altered")
	}
	defer clear(plain)
	return decodeBackupPayload(plain)
}

// decodeBackupPayload parses the decrypted payload and checks that its
// keys fit together and that the link is theirs and signed by them.
func decodeBackupPayload(plain []byte) (*BackupKeys, error) {
	bad := func(err error, what string) error { return failWrap(CodeBadBackup, err, "%s", what) }
	var p backupPayload
	if _, err := decodeStrict(plain, &p); err != nil {
		return nil, bad(err, "payload")
	}
	if p.Version != backupVersion {
		return nil, fail(CodeBadBackup, "payload version %d, want %d", p.Version, backupVersion)
	}
	b := &BackupKeys{}
	seed, err := parseHex(p.InboxSeed, ed25519.SeedSize)
	if err != nil {
		return nil, bad(err, "inboxSeed")
	}
	if b.inbox, err = NewInboxKeyFromSeed(seed); err != nil {
		return nil, bad(err, "inboxSeed")
	}
	if b.storage, err = age.ParseX25519Identity(p.StorageIdentity); err != nil {
		return nil, bad(err, "storageIdentity")
	}
	d, err := parseHex(p.EVMKey, 32)
	if err != nil {
		return nil, bad(err, "evmKey")
	}
	priv, err := crypto.ToECDSA(d)
	if err != nil {
		return nil, bad(err, "evmKey")
	}
	if b.evm, err = NewEVMKey(priv); err != nil {
		return nil, bad(err, "evmKey")
	}
	if len(p.EncryptionKeys) == 0 {
		return nil, fail(CodeBadBackup, "no encryption key")
	}
	seen := map[KeyID]bool{}
	for i, f := range p.EncryptionKeys {
		raw, err := parseHexAny(f.PrivateKey)
		if err != nil {
			return nil, bad(err, fmt.Sprintf("encryptionKeys[%d]", i))
		}
		if f.NotAfter > maxSafeInteger {
			return nil, fail(CodeBadBackup, "encryptionKeys[%d]: notAfter above 2^53-1", i)
		}
		ek, err := NewEncryptionKey(KEM(f.KEM), raw, time.Unix(int64(f.NotAfter), 0))
		if err != nil {
			return nil, bad(err, fmt.Sprintf("encryptionKeys[%d]", i))
		}
		if seen[ek.ID] {
			return nil, fail(CodeBadBackup, "encryptionKeys[%d] repeats key %s", i, ek.ID)
		}
		seen[ek.ID] = true
		b.enc = append(b.enc, ek)
	}
	if b.link, err = ParseLink(p.Link); err != nil {
		return nil, bad(err, "link")
	}
	if b.link.EVMAddress != b.evm.Address() || !b.link.InboxKey.Equal(b.inbox.PublicKey()) {
		return nil, fail(CodeBadBackup, "the link is not for the backed-up keys")
	}
	// Signatures and form only: an expired link is still the node's last
	// link, and the restored node issues a new one.
	if err := b.link.Verify(b.link.IssuedAt); err != nil {
		return nil, bad(err, "link")
	}
	return b, nil
}

// Restore writes the keys of a key backup into cfg.Dir/keys, encrypted at
// rest under passphrase with cfg's costs, and returns the keyring. The
// restored node has the backup's inbox key (so its peer id), EVM key,
// storage key, encryption keys and link. Like Create, it writes into a
// fresh temporary directory and renames it into place, so either all keys
// exist afterwards or none do; it returns ErrKeyExists when cfg.Dir/keys
// exists. It changes nothing on disk when the backup does not open.
func Restore(cfg Config, backup *BackupKeys, passphrase []byte) (*Keyring, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if backup == nil {
		return nil, fail(CodeBadBackup, "nil backup")
	}
	if len(passphrase) == 0 {
		return nil, fail(CodeNoPassphrase, "empty passphrase")
	}
	final, tmp, err := newKeyDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	k := &Keyring{cfg: cfg, dir: tmp, inbox: backup.inbox, evm: backup.evm, storage: backup.storage}
	k.enc = append([]*EncryptionKey(nil), backup.enc...)
	if err := k.writeKeys(passphrase); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(tmp, LinkFileName), backup.link.Bytes()); err != nil {
		return nil, err
	}
	k.link = backup.link
	if err := k.install(final); err != nil {
		return nil, err
	}
	return k, nil
}
