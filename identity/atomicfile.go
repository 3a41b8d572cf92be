package identity

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"filippo.io/age"
)

// writeFileAtomic writes data to path through a temporary file in the same
// directory: write, fsync, chmod 0600, rename, fsync the directory. A
// reader sees the old file or the new one, never a torn one.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("identity: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err == nil {
		if _, err = f.Write(data); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("identity: write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("identity: write %s: %w", path, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("identity: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("identity: sync %s: %w", dir, err)
	}
	return nil
}

// readKeyFile reads a key file, mapping a missing file to ErrKeyMissing.
func readKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fail(CodeKeyMissing, "%s does not exist", path)
	}
	if err != nil {
		return nil, fmt.Errorf("identity: read %s: %w", path, err)
	}
	return b, nil
}

// ageEncrypt encrypts plaintext to the age recipient r.
func ageEncrypt(plaintext []byte, r age.Recipient) ([]byte, error) {
	var buf bytes.Buffer
	w, err := age.Encrypt(&buf, r)
	if err != nil {
		return nil, fmt.Errorf("identity: age encrypt: %w", err)
	}
	if _, err := w.Write(plaintext); err != nil {
		return nil, fmt.Errorf("identity: age encrypt: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("identity: age encrypt: %w", err)
	}
	return buf.Bytes(), nil
}

// ageDecrypt decrypts the age file name of the key directory dir with id.
// A file id cannot open is ErrWrongPassphrase (for a passphrase identity);
// any other failure is ErrCorruptKeyFile naming the file.
func ageDecrypt(dir, name string, ciphertext []byte, id age.Identity) ([]byte, error) {
	r, err := age.Decrypt(bytes.NewReader(ciphertext), id)
	if err != nil {
		var noMatch *age.NoIdentityMatchError
		if errors.As(err, &noMatch) {
			if _, ok := id.(*age.ScryptIdentity); ok {
				return nil, fail(CodeWrongPassphrase, "%s: incorrect passphrase", name)
			}
		}
		return nil, damaged(dir, name, err, "%v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, damaged(dir, name, err, "%v", err)
	}
	return out, nil
}
