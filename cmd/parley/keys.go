package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/spf13/cobra"
)

// keysFlags are the flags shared by the keys subcommands.
type keysFlags struct {
	dataDir        string
	passphraseFile string
}

func (f *keysFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "data directory (default $PARLEY_DATA_DIR, else ~/.parley)")
}

func (f *keysFlags) registerPassphrase(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.passphraseFile, "passphrase-file", "", "read the passphrase from this file (else $"+identity.PassphraseEnv+", else a prompt)")
}

// resolveDataDir applies flags > env > default.
func (f *keysFlags) resolveDataDir() (string, error) {
	if f.dataDir != "" {
		return f.dataDir, nil
	}
	if d := os.Getenv("PARLEY_DATA_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no --data-dir and no home directory: %w", err)
	}
	return filepath.Join(home, ".parley"), nil
}

func (f *keysFlags) passphrase(cmd *cobra.Command, confirm bool) ([]byte, error) {
	src := identity.PassphraseSource{
		File:   f.passphraseFile,
		Env:    os.Getenv(identity.PassphraseEnv),
		Prompt: cmd.ErrOrStderr(),
	}
	if in, ok := cmd.InOrStdin().(*os.File); ok {
		src.Terminal = in
	}
	return src.Read(confirm)
}

func newKeysCmd() *cobra.Command { return keysCmd(nil) }

// keysCmd builds the keys command; tune, when not nil, adjusts the key
// configuration (tests lower the scrypt costs with it).
func keysCmd(tune func(*identity.Config)) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create, show, back up and restore the node's keys (inbox, EVM, encryption) and identity link",
	}
	cmd.AddCommand(newKeysNewCmd(tune), newKeysShowCmd(), newKeysExportCmd(tune), newKeysImportCmd(tune))
	return cmd
}

func newKeysNewCmd(tune func(*identity.Config)) *cobra.Command {
	var f keysFlags
	var kem string
	cmd := &cobra.Command{
		Use:   "new",
		Short: "Create new keys, encrypted under a passphrase (refuses to overwrite existing keys)",
		Example: "  parley keys new --data-dir ~/.parley\n" +
			"  PARLEY_PASSPHRASE=... parley keys new --data-dir /srv/parley --kem X25519",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := f.resolveDataDir()
			if err != nil {
				return err
			}
			cfg := identity.DefaultConfig(dir)
			cfg.KEM = identity.KEM(kem)
			if tune != nil {
				tune(&cfg)
			}
			if err := cfg.Validate(); err != nil {
				return &exitError{code: 2, err: err}
			}
			if _, _, err := identity.ReadPublic(dir); err == nil {
				return &exitError{code: 1, err: fmt.Errorf("keys already exist in %s; refusing to overwrite them", identity.KeysDir(dir))}
			}
			pass, err := f.passphrase(cmd, true)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			k, err := identity.Create(cfg, pass, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created keys in %s\n", k.Dir())
			pub, link, err := identity.ReadPublic(dir)
			if err != nil {
				return err
			}
			return printPublic(cmd.OutOrStdout(), pub, link, false)
		},
	}
	f.register(cmd)
	f.registerPassphrase(cmd)
	cmd.Flags().StringVar(&kem, "kem", string(identity.KEMMLKEM768X25519), "KEM of the encryption key: MLKEM768-X25519 or X25519")
	return cmd
}

func newKeysShowCmd() *cobra.Command {
	var f keysFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show",
		Short:   "Print the public keys, peer id, EVM address and encryption keys (no passphrase needed)",
		Example: "  parley keys show\n  parley keys show --data-dir /srv/parley --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := f.resolveDataDir()
			if err != nil {
				return err
			}
			pub, link, err := identity.ReadPublic(dir)
			if err != nil {
				return err
			}
			return printPublic(cmd.OutOrStdout(), pub, link, asJSON)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print public.json and the identity link as JSON")
	return cmd
}

func printPublic(w io.Writer, pub *identity.PublicInfo, link *identity.Link, asJSON bool) error {
	if asJSON {
		out := struct {
			Public *identity.PublicInfo `json:"public"`
			Link   *identity.Link       `json:"link,omitempty"`
		}{pub, link}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	fmt.Fprintf(w, "inbox key:    %s\n", pub.InboxKey)
	fmt.Fprintf(w, "peer id:      %s\n", pub.PeerID)
	fmt.Fprintf(w, "evm address:  %s\n", pub.EVMAddress)
	for _, k := range pub.EncryptionKeys {
		fmt.Fprintf(w, "encryption:   %s %s notAfter %s\n", k.ID, k.KEM, k.NotAfterTime().Format(time.RFC3339))
	}
	if link != nil {
		h := link.Hash()
		fmt.Fprintf(w, "link:         0x%x issued %s expires %s\n", h, link.IssuedAt.Format(time.RFC3339), link.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}
