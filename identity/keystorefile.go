package identity

import (
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/google/uuid"
)

// keystoreFile is the go-ethereum keystore v3 document evm.json holds, as
// keystore.EncryptKey writes it: every member, nothing else.
type keystoreFile struct {
	Address string `json:"address"`
	Crypto  struct {
		Cipher       string `json:"cipher"`
		CipherText   string `json:"ciphertext"`
		CipherParams struct {
			IV string `json:"iv"`
		} `json:"cipherparams"`
		KDF       string `json:"kdf"`
		KDFParams struct {
			DKLen int    `json:"dklen"`
			N     int    `json:"n"`
			P     int    `json:"p"`
			R     int    `json:"r"`
			Salt  string `json:"salt"`
		} `json:"kdfparams"`
		MAC string `json:"mac"`
	} `json:"crypto"`
	ID      string `json:"id"`
	Version int    `json:"version"`
}

// damaged is the error of a key file that is not what this node wrote: it
// does not parse as its format, or does not decrypt with the passphrase
// that opens the node's other key file. It is CodeCorruptKeyFile, names
// the file, and says "damaged", never "wrong passphrase".
func damaged(dir, name string, err error, format string, args ...any) *Error {
	return &Error{Code: CodeCorruptKeyFile, File: filepath.Join(dir, name), Err: err,
		Msg: name + " is damaged: " + fmt.Sprintf(format, args...) + "; restore the keys with `parley keys import` from a backup"}
}

// checkKeystore checks that b is a keystore v3 document of address as
// this node writes it (strict JSON, every member of its form, the
// ciphertext of a 32-byte key, a 16-byte IV, a 32-byte MAC, scrypt with a
// 32-byte derived key), before the passphrase is tried: a file that fails
// is damaged, whatever the passphrase.
func checkKeystore(dir string, b []byte, address string) error {
	var f keystoreFile
	if _, err := decodeStrict(b, &f); err != nil {
		return damaged(dir, EVMFileName, err, "it does not parse as a keystore")
	}
	c := f.Crypto
	hexLen := func(s string, n int) bool {
		v, err := hex.DecodeString(s)
		return err == nil && (n == 0 && len(v) >= 16 || len(v) == n)
	}
	var bad string
	switch {
	case f.Version != 3:
		bad = fmt.Sprintf("version %d, want 3", f.Version)
	case uuid.Validate(f.ID) != nil:
		bad = "its id is not a UUID"
	case !strings.EqualFold("0x"+f.Address, address):
		bad = fmt.Sprintf("it holds the key of %s, public.json names %s", "0x"+f.Address, address)
	case c.Cipher != "aes-128-ctr":
		bad = fmt.Sprintf("cipher %q", c.Cipher)
	case !hexLen(c.CipherText, 32):
		bad = "its ciphertext is not 32 bytes of hex"
	case !hexLen(c.CipherParams.IV, 16):
		bad = "its IV is not 16 bytes of hex"
	case !hexLen(c.MAC, 32):
		bad = "its MAC is not 32 bytes of hex"
	case c.KDF != "scrypt":
		bad = fmt.Sprintf("KDF %q", c.KDF)
	case c.KDFParams.DKLen != 32 || c.KDFParams.N < 2 || c.KDFParams.N&(c.KDFParams.N-1) != 0 || c.KDFParams.N > 1<<22 ||
		c.KDFParams.R < 1 || c.KDFParams.P < 1 || c.KDFParams.R*c.KDFParams.P >= 1<<30:
		bad = fmt.Sprintf("scrypt parameters n=%d r=%d p=%d dklen=%d", c.KDFParams.N, c.KDFParams.R, c.KDFParams.P, c.KDFParams.DKLen)
	case !hexLen(c.KDFParams.Salt, 0):
		bad = "its salt is not hex of at least 16 bytes"
	}
	if bad != "" {
		return damaged(dir, EVMFileName, nil, "it is not a keystore this node wrote (%s)", bad)
	}
	return nil
}

// evmOpens reports whether evm.json, well formed, decrypts with
// passphrase: when it does, a failure of inbox.age with the same
// passphrase is damage, not a wrong passphrase.
func (k *Keyring) evmOpens(passphrase []byte, pub *PublicInfo) bool {
	b, err := readKeyFile(filepath.Join(k.dir, EVMFileName))
	if err != nil || checkKeystore(k.dir, b, pub.EVMAddress) != nil {
		return false
	}
	_, err = keystore.DecryptKey(b, string(passphrase))
	return err == nil
}

// errIsWrongPassphrase reports whether err is a wrong passphrase.
func errIsWrongPassphrase(err error) bool { return errors.Is(err, ErrWrongPassphrase) }
