package identity

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"filippo.io/age"
)

// Files of the key directory, <data-dir>/keys (docs/identity.md).
const (
	KeysDirName       = "keys"
	PublicFileName    = "public.json"
	InboxFileName     = "inbox.age"
	EVMFileName       = "evm.json"
	LinkFileName      = "link.json"
	encFilePrefix     = "enc-"
	encFileSuffix     = ".age"
	publicFileVersion = 1
)

// EncryptionKeyFileName returns the name of the file that holds the
// private key id: enc-<32 lowercase hex digits>.age.
func EncryptionKeyFileName(id KeyID) string {
	return encFilePrefix + id.String()[2:] + encFileSuffix
}

// Keyring is a node's keys, opened from its data directory with the
// passphrase. It is safe for concurrent use.
type Keyring struct {
	cfg     Config
	dir     string // <data-dir>/keys
	inbox   *InboxKey
	evm     *EVMKey
	storage *age.X25519Identity

	mu   sync.Mutex
	enc  []*EncryptionKey
	link *Link
}

// KeysDir returns the key directory of the data directory dataDir.
func KeysDir(dataDir string) string { return filepath.Join(dataDir, KeysDirName) }

// newKeyDir checks that cfg.Dir holds no keys and makes the private
// temporary directory new keys are written in; the caller renames it to
// final once every key is written, so either all keys exist or none do.
func newKeyDir(cfg Config) (final, tmp string, err error) {
	final = KeysDir(cfg.Dir)
	if _, err := os.Lstat(final); err == nil {
		return "", "", fail(CodeKeyExists, "%s already exists; refusing to overwrite keys", final)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("identity: %w", err)
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return "", "", fmt.Errorf("identity: create data dir: %w", err)
	}
	tmp, err = os.MkdirTemp(cfg.Dir, ".keys-new-*")
	if err != nil {
		return "", "", fmt.Errorf("identity: create key dir: %w", err)
	}
	if err := os.Chmod(tmp, 0o700); err != nil {
		os.RemoveAll(tmp)
		return "", "", fmt.Errorf("identity: create key dir: %w", err)
	}
	return final, tmp, nil
}

// writeKeys writes every key file of a new key directory (k.dir): the
// inbox and EVM keys under passphrase, each of k.enc, and public.json.
func (k *Keyring) writeKeys(passphrase []byte) error {
	if err := k.writeInbox(passphrase); err != nil {
		return err
	}
	if err := k.writeEVM(passphrase); err != nil {
		return err
	}
	for _, ek := range k.enc {
		if err := k.writeEncryptionKey(ek); err != nil {
			return err
		}
	}
	return k.writePublic()
}

// install moves the key directory k was written in (newKeyDir's tmp) to
// final once every file in it is synced, and syncs the data directory:
// either all keys exist or none do. It refuses to replace keys that
// appeared at final meanwhile.
func (k *Keyring) install(final string) error {
	tmp := k.dir
	if err := syncDir(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, serr := os.Lstat(final); serr == nil {
			return fail(CodeKeyExists, "%s already exists; refusing to overwrite keys", final)
		}
		return fmt.Errorf("identity: install key dir: %w", err)
	}
	if err := syncDir(k.cfg.Dir); err != nil {
		return err
	}
	k.dir = final
	return nil
}

// Create makes new keys in cfg.Dir/keys: an inbox key, an EVM key, one
// encryption key of cfg.KEM valid from now for cfg.EncryptionKeyLifetime,
// and an identity link valid from now for cfg.LinkLifetime. It writes every
// file into a fresh temporary directory and renames it into place, so
// either all keys exist afterwards or none do. It returns ErrKeyExists
// when cfg.Dir/keys already exists, and ErrNoPassphrase for an empty
// passphrase.
func Create(cfg Config, passphrase []byte, now time.Time) (*Keyring, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(passphrase) == 0 {
		return nil, fail(CodeNoPassphrase, "empty passphrase")
	}
	final, tmp, err := newKeyDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed

	k := &Keyring{cfg: cfg, dir: tmp}
	if k.inbox, err = GenerateInboxKey(); err != nil {
		return nil, err
	}
	if k.evm, err = GenerateEVMKey(); err != nil {
		return nil, err
	}
	if k.storage, err = age.GenerateX25519Identity(); err != nil {
		return nil, fmt.Errorf("identity: storage key: %w", err)
	}
	ek, err := GenerateEncryptionKey(cfg.KEM, now.Add(cfg.EncryptionKeyLifetime))
	if err != nil {
		return nil, err
	}
	k.enc = []*EncryptionKey{ek}
	if err := k.writeKeys(passphrase); err != nil {
		return nil, err
	}
	if _, err := k.issueLinkLocked(now); err != nil {
		return nil, err
	}
	if err := k.install(final); err != nil {
		return nil, err
	}
	return k, nil
}

// Open decrypts the keys in cfg.Dir/keys with passphrase. It returns
// ErrKeyMissing when there are no keys (or a key file is missing),
// ErrWrongPassphrase when the passphrase does not decrypt them, and
// ErrCorruptKeyFile when a file does not parse or does not match
// public.json.
func Open(cfg Config, passphrase []byte) (*Keyring, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(passphrase) == 0 {
		return nil, fail(CodeNoPassphrase, "empty passphrase")
	}
	dir := KeysDir(cfg.Dir)
	pub, err := readPublic(dir)
	if err != nil {
		return nil, err
	}
	k := &Keyring{cfg: cfg, dir: dir}
	if err := k.readInbox(passphrase, pub); err != nil {
		return nil, err
	}
	if err := k.readEVM(passphrase, pub); err != nil {
		return nil, err
	}
	if pub.StorageRecipient != k.storage.Recipient().String() {
		return nil, fail(CodeCorruptKeyFile, "storage recipient does not match %s", PublicFileName)
	}
	for _, pk := range pub.EncryptionKeys {
		ek, err := k.readEncryptionKey(pk)
		if err != nil {
			return nil, err
		}
		k.enc = append(k.enc, ek)
	}
	if b, err := os.ReadFile(filepath.Join(dir, LinkFileName)); err == nil {
		l, err := ParseLink(b)
		if err != nil {
			return nil, failWrap(CodeCorruptKeyFile, err, "%s", LinkFileName)
		}
		if l.EVMAddress != k.evm.Address() || !l.InboxKey.Equal(k.inbox.PublicKey()) {
			return nil, fail(CodeCorruptKeyFile, "%s is not for these keys", LinkFileName)
		}
		k.link = l
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("identity: read link: %w", err)
	}
	return k, nil
}

// Inbox returns the inbox key.
func (k *Keyring) Inbox() *InboxKey { return k.inbox }

// EVM returns the EVM key.
func (k *Keyring) EVM() *EVMKey { return k.evm }

// Dir returns the key directory, <data-dir>/keys.
func (k *Keyring) Dir() string { return k.dir }

// Link returns the last link the keyring issued, or nil if none.
func (k *Keyring) Link() *Link {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.link
}

// EncryptionKeys returns every private encryption key the keyring holds,
// current and retired, oldest first.
func (k *Keyring) EncryptionKeys() []*EncryptionKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.enc)
}

// EncryptionKey returns the private encryption key with id, if the
// keyring still holds it.
func (k *Keyring) EncryptionKey(id KeyID) (*EncryptionKey, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, e := range k.enc {
		if e.ID == id {
			return e, true
		}
	}
	return nil, false
}

// RotateEncryptionKey creates a new encryption key of the configured KEM,
// valid from now for the configured lifetime, and retires every key whose
// notAfter is later than now by setting its notAfter to now: from then on
// the retired keys only open frames, for the grace period, and Prune
// deletes them after it. Issue a new link afterwards (IssueLink) so that
// senders learn the new key.
func (k *Keyring) RotateEncryptionKey(now time.Time) (*EncryptionKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	ek, err := GenerateEncryptionKey(k.cfg.KEM, now.Add(k.cfg.EncryptionKeyLifetime))
	if err != nil {
		return nil, err
	}
	if err := k.writeEncryptionKey(ek); err != nil {
		return nil, err
	}
	next := make([]*EncryptionKey, 0, len(k.enc)+1)
	cut := unixSeconds(now)
	for _, e := range k.enc {
		if e.NotAfter.After(cut) {
			retired := *e
			retired.NotAfter = cut
			if err := k.writeEncryptionKey(&retired); err != nil {
				return nil, err
			}
			e = &retired
		}
		next = append(next, e)
	}
	next = append(next, ek)
	old := k.enc
	k.enc = next
	if err := k.writePublic(); err != nil {
		k.enc = old
		return nil, err
	}
	return ek, nil
}

// Prune deletes every private encryption key that is past its notAfter
// plus the grace period at now, and any key file public.json no longer
// lists. It returns the ids of the keys it deleted.
func (k *Keyring) Prune(now time.Time) ([]KeyID, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var keep []*EncryptionKey
	var gone []KeyID
	for _, e := range k.enc {
		if e.Usable(now, k.cfg.GracePeriod) {
			keep = append(keep, e)
		} else {
			gone = append(gone, e.ID)
		}
	}
	if len(gone) > 0 {
		old := k.enc
		k.enc = keep
		if err := k.writePublic(); err != nil {
			k.enc = old
			return nil, err
		}
	}
	// public.json no longer lists them: delete the files, and any orphan.
	listed := make(map[string]bool, len(k.enc))
	for _, e := range k.enc {
		listed[EncryptionKeyFileName(e.ID)] = true
	}
	entries, err := os.ReadDir(k.dir)
	if err != nil {
		return gone, fmt.Errorf("identity: prune: %w", err)
	}
	removed := false
	for _, de := range entries {
		name := de.Name()
		if !strings.HasPrefix(name, encFilePrefix) || !strings.HasSuffix(name, encFileSuffix) || listed[name] {
			continue
		}
		if err := os.Remove(filepath.Join(k.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return gone, fmt.Errorf("identity: prune: %w", err)
		}
		removed = true
	}
	if removed {
		if err := syncDir(k.dir); err != nil {
			return gone, err
		}
	}
	return gone, nil
}

// IssueLink signs a new identity link listing every encryption key whose
// notAfter is after now, valid from now for the configured link lifetime,
// stores it in link.json and returns it. It returns ErrNoCurrentKey when
// no key is current.
func (k *Keyring) IssueLink(now time.Time) (*Link, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.issueLinkLocked(now)
}

func (k *Keyring) issueLinkLocked(now time.Time) (*Link, error) {
	var keys []*PublicEncryptionKey
	for _, e := range k.enc {
		if e.NotAfter.After(now) {
			keys = append(keys, e.PublicKey())
		}
	}
	if len(keys) == 0 {
		return nil, fail(CodeNoCurrentKey, "no encryption key is current; rotate first")
	}
	if len(keys) > maxLinkKeys {
		keys = keys[len(keys)-maxLinkKeys:]
	}
	l, err := CreateLink(k.evm, k.inbox, keys, now, now.Add(k.cfg.LinkLifetime))
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(k.dir, LinkFileName), l.Bytes()); err != nil {
		return nil, err
	}
	k.link = l
	return l, nil
}

// Revoke returns a revocation of the keyring's current link, signed by both
// the EVM key and the inbox key, dated at.
func (k *Keyring) Revoke(at time.Time) (*Revocation, error) {
	l := k.Link()
	if l == nil {
		return nil, fail(CodeKeyMissing, "no link to revoke")
	}
	return RevokeLink(l, k.evm, k.inbox, at)
}

// Public returns the public parts of the keyring, as public.json holds them.
func (k *Keyring) Public() *PublicInfo {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.publicLocked()
}
