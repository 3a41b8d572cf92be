package identity

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// PublicInfo is the public part of a keyring, kept in the clear in
// public.json beside the encrypted private parts so that it can be shown
// without the passphrase. Open checks it against the decrypted keys.
type PublicInfo struct {
	Version          int             `json:"version"`
	InboxKey         string          `json:"inboxKey"`
	PeerID           string          `json:"peerId"`
	EVMAddress       string          `json:"evmAddress"`
	StorageRecipient string          `json:"storageRecipient"`
	EncryptionKeys   []PublicKeyInfo `json:"encryptionKeys"`
}

// PublicKeyInfo is one encryption key as public.json lists it; NotAfter
// is in Unix seconds.
type PublicKeyInfo struct {
	ID        KeyID  `json:"id"`
	KEM       string `json:"kem"`
	PublicKey string `json:"publicKey"`
	NotAfter  uint64 `json:"notAfter"`
}

// NotAfterTime returns NotAfter as a time.
func (k PublicKeyInfo) NotAfterTime() time.Time { return time.Unix(int64(k.NotAfter), 0).UTC() }

// ReadPublic reads the public parts of the keys in dataDir/keys without
// the passphrase: public.json and, when present, the last issued link
// (parsed, not verified; nil when absent). It returns ErrKeyMissing when
// there are no keys.
func ReadPublic(dataDir string) (*PublicInfo, *Link, error) {
	dir := KeysDir(dataDir)
	pub, err := readPublic(dir)
	if err != nil {
		return nil, nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, LinkFileName))
	if errors.Is(err, os.ErrNotExist) {
		return pub, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("identity: read link: %w", err)
	}
	l, err := ParseLink(b)
	if err != nil {
		return nil, nil, failWrap(CodeCorruptKeyFile, err, "%s", LinkFileName)
	}
	return pub, l, nil
}

func readPublic(dir string) (*PublicInfo, error) {
	path := filepath.Join(dir, PublicFileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fail(CodeKeyMissing, "no keys in %s (run parley keys new)", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("identity: read %s: %w", path, err)
	}
	var p PublicInfo
	if _, err := decodeStrict(b, &p); err != nil {
		return nil, failWrap(CodeCorruptKeyFile, err, "%s", PublicFileName)
	}
	if p.Version != publicFileVersion {
		return nil, fail(CodeCorruptKeyFile, "%s version %d, want %d", PublicFileName, p.Version, publicFileVersion)
	}
	return &p, nil
}

func (k *Keyring) publicLocked() *PublicInfo {
	p := &PublicInfo{
		Version:          publicFileVersion,
		InboxKey:         k.inbox.PublicHex(),
		PeerID:           k.inbox.PeerID().String(),
		EVMAddress:       k.evm.Address().Hex(),
		StorageRecipient: k.storage.Recipient().String(),
		EncryptionKeys:   make([]PublicKeyInfo, len(k.enc)),
	}
	for i, e := range k.enc {
		p.EncryptionKeys[i] = PublicKeyInfo{ID: e.ID, KEM: string(e.KEM), PublicKey: hex0x(e.Bytes()), NotAfter: uint64(e.NotAfter.Unix())}
	}
	return p
}

func (k *Keyring) writePublic() error {
	b, err := marshalCanonical(k.publicLocked())
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(k.dir, PublicFileName), b)
}
