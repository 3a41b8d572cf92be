package identity

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"filippo.io/age"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/google/uuid"
)

// The private key files of a keyring (docs/identity.md "Storage layout").

type inboxFile struct {
	InboxSeed       string `json:"inboxSeed"`
	StorageIdentity string `json:"storageIdentity"`
}

func (k *Keyring) writeInbox(passphrase []byte) error {
	r, err := age.NewScryptRecipient(string(passphrase))
	if err != nil {
		return fmt.Errorf("identity: passphrase recipient: %w", err)
	}
	r.SetWorkFactor(k.cfg.ScryptWorkFactor)
	plain, err := marshalCanonical(inboxFile{InboxSeed: hex0x(k.inbox.Seed()), StorageIdentity: k.storage.String()})
	if err != nil {
		return err
	}
	ct, err := ageEncrypt(plain, r)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(k.dir, InboxFileName), ct)
}

func (k *Keyring) readInbox(passphrase []byte, pub *PublicInfo) error {
	ct, err := readKeyFile(filepath.Join(k.dir, InboxFileName))
	if err != nil {
		return err
	}
	id, err := age.NewScryptIdentity(string(passphrase))
	if err != nil {
		return fmt.Errorf("identity: passphrase identity: %w", err)
	}
	plain, err := ageDecrypt(k.dir, InboxFileName, ct, id)
	if errIsWrongPassphrase(err) && k.evmOpens(passphrase, pub) {
		// The passphrase opens evm.json, and both files were written
		// with it: inbox.age itself changed.
		return damaged(k.dir, InboxFileName, nil, "it does not open with the passphrase that opens %s", EVMFileName)
	}
	if err != nil {
		return err
	}
	var f inboxFile
	if _, err := decodeStrict(plain, &f); err != nil {
		return failWrap(CodeCorruptKeyFile, err, "%s", InboxFileName)
	}
	seed, err := parseHex(f.InboxSeed, ed25519.SeedSize)
	if err != nil {
		return failWrap(CodeCorruptKeyFile, err, "%s", InboxFileName)
	}
	if k.inbox, err = NewInboxKeyFromSeed(seed); err != nil {
		return failWrap(CodeCorruptKeyFile, err, "%s", InboxFileName)
	}
	if k.inbox.PublicHex() != pub.InboxKey || k.inbox.PeerID().String() != pub.PeerID {
		return fail(CodeCorruptKeyFile, "%s does not match %s", InboxFileName, PublicFileName)
	}
	if k.storage, err = age.ParseX25519Identity(f.StorageIdentity); err != nil {
		return failWrap(CodeCorruptKeyFile, err, "%s", InboxFileName)
	}
	return nil
}

func (k *Keyring) writeEVM(passphrase []byte) error {
	id, err := uuid.NewRandom()
	if err != nil {
		return fmt.Errorf("identity: keystore id: %w", err)
	}
	key := &keystore.Key{Id: id, Address: k.evm.Address(), PrivateKey: k.evm.PrivateKey()}
	b, err := keystore.EncryptKey(key, string(passphrase), k.cfg.KeystoreScryptN, k.cfg.KeystoreScryptP)
	if err != nil {
		return fmt.Errorf("identity: keystore encrypt: %w", err)
	}
	return writeFileAtomic(filepath.Join(k.dir, EVMFileName), b)
}

func (k *Keyring) readEVM(passphrase []byte, pub *PublicInfo) error {
	b, err := readKeyFile(filepath.Join(k.dir, EVMFileName))
	if err != nil {
		return err
	}
	if err := checkKeystore(k.dir, b, pub.EVMAddress); err != nil {
		return err
	}
	key, err := keystore.DecryptKey(b, string(passphrase))
	if errors.Is(err, keystore.ErrDecrypt) {
		// Open reads inbox.age first, with the same passphrase: it is
		// right, so the keystore's ciphertext, MAC or parameters changed.
		return damaged(k.dir, EVMFileName, err, "its MAC does not match with the passphrase that opens %s", InboxFileName)
	}
	if err != nil {
		return damaged(k.dir, EVMFileName, err, "it does not decrypt")
	}
	if k.evm, err = NewEVMKey(key.PrivateKey); err != nil {
		return damaged(k.dir, EVMFileName, err, "it does not hold a secp256k1 key")
	}
	if k.evm.Address().Hex() != pub.EVMAddress {
		// The MAC covers the ciphertext, not the IV: a changed IV
		// decrypts to another key.
		return damaged(k.dir, EVMFileName, nil, "it decrypts to another key than %s names", PublicFileName)
	}
	return nil
}

type encFile struct {
	KEM        string `json:"kem"`
	PrivateKey string `json:"privateKey"`
	NotAfter   uint64 `json:"notAfter"`
}

func (k *Keyring) writeEncryptionKey(ek *EncryptionKey) error {
	priv, err := ek.PrivateBytes()
	if err != nil {
		return fmt.Errorf("identity: encryption key bytes: %w", err)
	}
	plain, err := marshalCanonical(encFile{KEM: string(ek.KEM), PrivateKey: hex0x(priv), NotAfter: uint64(ek.NotAfter.Unix())})
	if err != nil {
		return err
	}
	ct, err := ageEncrypt(plain, k.storage.Recipient())
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(k.dir, EncryptionKeyFileName(ek.ID)), ct)
}

func (k *Keyring) readEncryptionKey(pk PublicKeyInfo) (*EncryptionKey, error) {
	name := EncryptionKeyFileName(pk.ID)
	ct, err := readKeyFile(filepath.Join(k.dir, name))
	if err != nil {
		return nil, err
	}
	plain, err := ageDecrypt(k.dir, name, ct, k.storage)
	if err != nil {
		return nil, err
	}
	var f encFile
	if _, err := decodeStrict(plain, &f); err != nil {
		return nil, failWrap(CodeCorruptKeyFile, err, "%s", name)
	}
	priv, err := parseHexAny(f.PrivateKey)
	if err != nil {
		return nil, failWrap(CodeCorruptKeyFile, err, "%s", name)
	}
	ek, err := NewEncryptionKey(KEM(f.KEM), priv, time.Unix(int64(f.NotAfter), 0))
	if err != nil {
		return nil, failWrap(CodeCorruptKeyFile, err, "%s", name)
	}
	if ek.ID != pk.ID || string(ek.KEM) != pk.KEM {
		return nil, fail(CodeCorruptKeyFile, "%s does not match %s", name, PublicFileName)
	}
	// A rotation interrupted between rewriting a retired key's file and
	// public.json leaves two notAfter values: the earlier one holds.
	if pk.NotAfter < uint64(ek.NotAfter.Unix()) {
		ek.NotAfter = pk.NotAfterTime()
	}
	return ek, nil
}
