package identity

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDamagedKeyFileIsNotAWrongPassphrase: an evm.json that does not parse
// as a keystore, or that parses but does not decrypt with the passphrase
// that opens inbox.age, is reported as damaged (corrupt_key_file naming
// the file), not as a wrong passphrase, and never panics; an inbox.age
// that does not open with the passphrase that opens evm.json is damaged
// too. A wrong passphrase is still a wrong passphrase.
func TestDamagedKeyFileIsNotAWrongPassphrase(t *testing.T) {
	sub := func(re, repl string) func([]byte) []byte {
		return func(b []byte) []byte { return regexp.MustCompile(re).ReplaceAll(b, []byte(repl)) }
	}
	flipHex := func(member string) func([]byte) []byte {
		return func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"`+member+`":"`)) + len(member) + 4 + 10
			c := bytes.Clone(b)
			if c[i] == 'a' {
				c[i] = 'b'
			} else {
				c[i] = 'a'
			}
			return c
		}
	}
	for _, tc := range []struct {
		name string
		file string
		edit func([]byte) []byte
	}{
		{"truncated", EVMFileName, func(b []byte) []byte { return b[:len(b)/2] }},
		{"empty", EVMFileName, func([]byte) []byte { return nil }},
		{"not JSON", EVMFileName, func([]byte) []byte { return []byte("\x00\x01garbage") }},
		{"a flipped hex digit in the ciphertext", EVMFileName, flipHex("ciphertext")},
		{"a flipped hex digit in the MAC", EVMFileName, flipHex("mac")},
		{"a flipped hex digit in the salt", EVMFileName, flipHex("salt")},
		{"a flipped hex digit in the IV", EVMFileName, flipHex("iv")},
		{"another address", EVMFileName, sub(`"address":"[0-9a-f]{40}"`, `"address":"0000000000000000000000000000000000000000"`)},
		{"a short derived key", EVMFileName, sub(`"dklen":32`, `"dklen":16`)}, // go-ethereum panics on it
		{"no salt", EVMFileName, sub(`,"salt":"[0-9a-f]+"`, ``)},              // go-ethereum panics on it
		{"scrypt n not a power of two", EVMFileName, sub(`"n":256`, `"n":300`)},
		{"another cipher", EVMFileName, sub(`aes-128-ctr`, `aes-128-cbc`)},
		{"an unknown member", EVMFileName, sub(`"version":3`, `"version":3,"x":1`)},
		{"version", EVMFileName, sub(`"version":3`, `"version":4`)},
		{"inbox.age's scrypt stanza", InboxFileName, func(b []byte) []byte {
			c := bytes.Clone(b)
			i := bytes.Index(c, []byte("\n-> scrypt ")) + len("\n-> scrypt ") + 3
			c[i] ^= 0x01 // the salt: the wrapped file key no longer opens, or the salt no longer parses
			return c
		}},
		{"inbox.age's scrypt salt not base64", InboxFileName, func(b []byte) []byte {
			c := bytes.Clone(b)
			i := bytes.Index(c, []byte("\n-> scrypt ")) + len("\n-> scrypt ") + 3
			c[i] = '!' // age fails to parse the stanza before any key is tried
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t)
			if _, err := Create(cfg, testPass, t0); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(KeysDir(cfg.Dir), tc.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.edit(b), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = Open(cfg, testPass)
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeCorruptKeyFile || e.File != path || !strings.Contains(err.Error(), tc.file+" is damaged") {
				t.Fatalf("Open with the right passphrase: %v", err)
			}
			if errors.Is(err, ErrWrongPassphrase) {
				t.Fatal("damage reported as a wrong passphrase")
			}
		})
	}
	cfg := testConfig(t)
	if _, err := Create(cfg, testPass, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(cfg, []byte("not the passphrase")); !errors.Is(err, ErrWrongPassphrase) {
		t.Fatalf("a wrong passphrase: %v", err)
	}
}
