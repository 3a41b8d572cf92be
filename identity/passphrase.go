package identity

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// PassphraseEnv is the environment variable a passphrase may come from.
const PassphraseEnv = "PARLEY_PASSPHRASE"

// PassphraseSource says where the passphrase that protects the keys comes
// from. Read tries, in order: File, Env, then a prompt on Terminal when it
// is a terminal.
type PassphraseSource struct {
	// File is a file whose content (less one trailing newline) is the
	// passphrase (--passphrase-file).
	File string
	// Env is the value of PARLEY_PASSPHRASE, looked up by the caller.
	Env string
	// Terminal is where to prompt, usually os.Stdin; nil disables prompting.
	Terminal *os.File
	// Prompt receives the prompt text, usually os.Stderr.
	Prompt io.Writer
}

// Read returns the passphrase. With confirm, a terminal prompt asks twice
// and fails when the answers differ (for new keys). It returns
// ErrNoPassphrase when no source gives a non-empty passphrase.
func (s PassphraseSource) Read(confirm bool) ([]byte, error) {
	switch {
	case s.File != "":
		b, err := os.ReadFile(s.File)
		if err != nil {
			return nil, failWrap(CodeNoPassphrase, err, "passphrase file")
		}
		b = bytes.TrimSuffix(b, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
		if len(b) == 0 {
			return nil, fail(CodeNoPassphrase, "passphrase file %s is empty", s.File)
		}
		return b, nil
	case s.Env != "":
		return []byte(s.Env), nil
	case s.Terminal != nil && term.IsTerminal(int(s.Terminal.Fd())):
		p, err := s.prompt("Passphrase: ")
		if err != nil {
			return nil, err
		}
		if confirm {
			again, err := s.prompt("Repeat passphrase: ")
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(p, again) {
				return nil, fail(CodeNoPassphrase, "the passphrases differ")
			}
		}
		return p, nil
	}
	return nil, fail(CodeNoPassphrase, "give --passphrase-file, set %s, or run on a terminal", PassphraseEnv)
}

func (s PassphraseSource) prompt(text string) ([]byte, error) {
	out := s.Prompt
	if out == nil {
		out = io.Discard
	}
	fmt.Fprint(out, text)
	p, err := term.ReadPassword(int(s.Terminal.Fd()))
	fmt.Fprintln(out)
	if err != nil {
		return nil, failWrap(CodeNoPassphrase, err, "read passphrase")
	}
	if len(p) == 0 {
		return nil, fail(CodeNoPassphrase, "empty passphrase")
	}
	return p, nil
}
