package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/parleynet/parley/identity"
)

// backupPassFlags say where the backup passphrase comes from: a file, the
// environment, or a prompt.
type backupPassFlags struct {
	file string
}

func (f *backupPassFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.file, "backup-passphrase-file", "", "read the backup passphrase from this file (else $"+identity.BackupPassphraseEnv+", else a prompt)")
}

// read returns the backup passphrase: from --backup-passphrase-file (one
// trailing newline dropped), else $PARLEY_BACKUP_PASSPHRASE, else a prompt
// on the terminal, asked twice when confirm is set.
func (f *backupPassFlags) read(cmd *cobra.Command, confirm bool) ([]byte, error) {
	if f.file != "" {
		b, err := os.ReadFile(f.file)
		if err != nil {
			return nil, fmt.Errorf("backup passphrase file: %w", err)
		}
		b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
		if len(b) == 0 {
			return nil, fmt.Errorf("backup passphrase file %s is empty", f.file)
		}
		return b, nil
	}
	if v := os.Getenv(identity.BackupPassphraseEnv); v != "" {
		return []byte(v), nil
	}
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return nil, fmt.Errorf("no backup passphrase: give --backup-passphrase-file, set %s, or run on a terminal", identity.BackupPassphraseEnv)
	}
	ask := func(prompt string) ([]byte, error) {
		fmt.Fprint(cmd.ErrOrStderr(), prompt)
		p, err := term.ReadPassword(int(in.Fd()))
		fmt.Fprintln(cmd.ErrOrStderr())
		if err != nil {
			return nil, fmt.Errorf("read backup passphrase: %w", err)
		}
		if len(p) == 0 {
			return nil, errors.New("empty backup passphrase")
		}
		return p, nil
	}
	p, err := ask("Backup passphrase: ")
	if err != nil || !confirm {
		return p, err
	}
	again, err := ask("Repeat backup passphrase: ")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(p, again) {
		return nil, errors.New("the backup passphrases differ")
	}
	return p, nil
}

func newKeysExportCmd(tune func(*identity.Config)) *cobra.Command {
	var (
		f   keysFlags
		bp  backupPassFlags
		out string
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write an encrypted backup of every key and the identity link to a new file",
		Long: "Writes one file holding every key of the node (inbox, EVM, encryption and storage keys) and its\n" +
			"signed identity link, encrypted under a backup passphrase (scrypt, XChaCha20-Poly1305). The\n" +
			"keys are opened with the node's passphrase (--passphrase-file, $" + identity.PassphraseEnv + " or a prompt);\n" +
			"the backup passphrase comes from --backup-passphrase-file, $" + identity.BackupPassphraseEnv + " or a\n" +
			"prompt asked twice. The file is created with mode 0600 and never overwritten. Restore it with\n" +
			"`parley keys import`.",
		Example: "  parley keys export --data-dir ~/.parley --out parley-keys.backup",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := f.resolveDataDir()
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if out == "" {
				return &exitError{code: 2, err: errors.New("--out FILE is required")}
			}
			if _, err := os.Lstat(out); err == nil {
				return &exitError{code: 1, err: fmt.Errorf("%s exists; refusing to overwrite it", out)}
			}
			cfg := identity.DefaultConfig(dir)
			if tune != nil {
				tune(&cfg)
			}
			if _, _, err := identity.ReadPublic(dir); err != nil {
				return &exitError{code: 1, err: err}
			}
			pass, err := f.passphrase(cmd, false)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			k, err := identity.Open(cfg, pass)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			bpass, err := bp.read(cmd, true)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			b, err := k.Backup(bpass)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if err := writeNew(out, b, 0o600); err != nil {
				return &exitError{code: 1, err: err}
			}
			h := k.Link().Hash()
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "wrote %s (%d bytes, mode 0600)\n", out, len(b))
			fmt.Fprintf(w, "  peer id:      %s\n", k.Inbox().PeerID())
			fmt.Fprintf(w, "  evm address:  %s\n", k.EVM().Address().Hex())
			fmt.Fprintf(w, "  keys:         inbox, EVM, storage, %d encryption\n", len(k.EncryptionKeys()))
			fmt.Fprintf(w, "  link:         0x%x\n", h)
			return nil
		},
	}
	f.register(cmd)
	f.registerPassphrase(cmd)
	bp.register(cmd)
	cmd.Flags().StringVarP(&out, "out", "o", "", "the backup file to create (must not exist)")
	return cmd
}

func newKeysImportCmd(tune func(*identity.Config)) *cobra.Command {
	var (
		f  keysFlags
		bp backupPassFlags
		in string
	)
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Restore the keys and identity link of a backup into a new data directory",
		Long: "Restores a file written by `parley keys export` into a data directory that has no keys yet,\n" +
			"encrypting the keys at rest under the node passphrase (--passphrase-file, $" + identity.PassphraseEnv + " or a\n" +
			"prompt asked twice; it may differ from the old node's). The restored node has the same peer id,\n" +
			"EVM address, encryption keys and identity link. A wrong backup passphrase, a truncated or\n" +
			"altered file, or a data directory that already has keys is refused and nothing is written.\n" +
			"The backup holds keys only: copy " + ConfigFileName + " from the old node or write a new one.",
		Example: "  parley keys import --data-dir /srv/parley --in parley-keys.backup",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := f.resolveDataDir()
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if in == "" {
				return &exitError{code: 2, err: errors.New("--in FILE is required")}
			}
			cfg := identity.DefaultConfig(dir)
			if tune != nil {
				tune(&cfg)
			}
			if err := cfg.Validate(); err != nil {
				return &exitError{code: 2, err: err}
			}
			if _, err := os.Lstat(identity.KeysDir(dir)); err == nil {
				return &exitError{code: 1, err: fmt.Errorf("%s exists; import restores into a data directory without keys", identity.KeysDir(dir))}
			}
			data, err := os.ReadFile(in)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			bpass, err := bp.read(cmd, false)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			bk, err := identity.OpenBackup(data, bpass)
			if err != nil {
				return &exitError{code: 1, err: fmt.Errorf("%s: %w", in, err)}
			}
			pass, err := f.passphrase(cmd, true)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			k, err := identity.Restore(cfg, bk, pass)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "restored keys in %s\n", k.Dir())
			pub, link, err := identity.ReadPublic(dir)
			if err != nil {
				return err
			}
			return printPublic(cmd.OutOrStdout(), pub, link, false)
		},
	}
	f.register(cmd)
	f.registerPassphrase(cmd)
	bp.register(cmd)
	cmd.Flags().StringVarP(&in, "in", "i", "", "the backup file to restore")
	return cmd
}
