package identity

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPassphraseSource(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notTTY, err := os.Open(write("stdin", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer notTTY.Close()
	for _, tc := range []struct {
		name string
		src  PassphraseSource
		want string
		code Code
	}{
		{"file", PassphraseSource{File: write("a", "from file\n")}, "from file", ""},
		{"file with crlf", PassphraseSource{File: write("b", "crlf\r\n")}, "crlf", ""},
		{"file keeps inner newlines and spaces", PassphraseSource{File: write("c", " two\nlines \n")}, " two\nlines ", ""},
		{"file wins over env", PassphraseSource{File: write("d", "file"), Env: "env"}, "file", ""},
		{"env", PassphraseSource{Env: "from env"}, "from env", ""},
		{"empty file", PassphraseSource{File: write("e", "\n"), Env: "env"}, "", CodeNoPassphrase},
		{"missing file", PassphraseSource{File: filepath.Join(dir, "nope")}, "", CodeNoPassphrase},
		{"stdin not a terminal", PassphraseSource{Terminal: notTTY}, "", CodeNoPassphrase},
		{"nothing", PassphraseSource{}, "", CodeNoPassphrase},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.src.Read(true)
			if tc.code != "" {
				wantCode(t, err, tc.code)
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
