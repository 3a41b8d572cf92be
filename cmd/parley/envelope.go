package main

import (
	"fmt"
	"io"
	"os"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/spf13/cobra"
)

func newEnvelopeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "envelope",
		Short: "Validate, hash and sign wire envelopes (azzle-xmtp-v1)",
	}
	cmd.AddCommand(newEnvelopeValidateCmd(), newEnvelopeHashCmd(), newEnvelopeSignCmd())
	return cmd
}

// readInput reads FILE, or standard input for "-".
func readInput(cmd *cobra.Command, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(cmd.InOrStdin())
	}
	return os.ReadFile(name)
}

func newEnvelopeValidateCmd() *cobra.Command {
	var maxBytes int
	cmd := &cobra.Command{
		Use:   "validate FILE|-",
		Short: "Check an envelope strictly and print ok with its hash and CID, or the code of the first problem",
		Long: "Decodes the envelope as a receiving node does (size limit, duplicate keys, unknown fields,\n" +
			"JSON Schema, formats) and verifies its ed25519 signature. Prints `ok <hash> <cid>` and\n" +
			"exits 0 only for a valid envelope; otherwise prints the rejection code and a message and exits 1.",
		Example: "  parley envelope validate schemas/fixtures/valid/TaskProposal.json\n  cat env.json | parley envelope validate -",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(cmd, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			e, err := negotiation.Decode(b, negotiation.DecodeOptions{MaxBytes: maxBytes})
			if err == nil {
				err = e.Verify()
			}
			if err != nil {
				code := negotiation.CodeOf(err)
				fmt.Fprintf(cmd.OutOrStdout(), "%s\n", code)
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ok %s %s\n", e.Hash(), e.CID())
			return nil
		},
	}
	cmd.Flags().IntVar(&maxBytes, "max-bytes", negotiation.DefaultMaxEnvelopeBytes, "size limit in bytes")
	return cmd
}

func newEnvelopeHashCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "hash FILE|-",
		Short:   "Print the envelope hash (SHA-256 of its JCS bytes) and CID, without validating it",
		Example: "  parley envelope hash env.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(cmd, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			c, err := negotiation.Canonicalize(b)
			if err != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\n", negotiation.CodeOf(err))
				return &exitError{code: 1, err: err}
			}
			h := negotiation.HashOf(c)
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", h, negotiation.CIDFromHash(h))
			return nil
		},
	}
}

func newEnvelopeSignCmd() *cobra.Command {
	var f keysFlags
	var keyDir string
	cmd := &cobra.Command{
		Use:   "sign FILE|-",
		Short: "Sign an envelope with the node's inbox key and print its canonical bytes",
		Long: "Replaces any signature with an ed25519 signature by the inbox key over JCS(envelope\n" +
			"without signature) and prints the canonical signed envelope. The envelope's\n" +
			"sender.xmtpPublicKey must be the key's public key. --key names the data directory\n" +
			"whose keys/ hold the encrypted inbox key.",
		Example: "  PARLEY_PASSPHRASE=... parley envelope sign --key ~/.parley unsigned.json > signed.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(cmd, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if keyDir != "" {
				f.dataDir = keyDir
			}
			dir, err := f.resolveDataDir()
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			pass, err := f.passphrase(cmd, false)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			kr, err := identity.Open(identity.DefaultConfig(dir), pass)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			out, err := negotiation.Sign(b, kr.Inbox())
			if err == nil {
				// Refuse to hand out a signed envelope a peer would reject.
				var e *negotiation.Envelope
				if e, err = negotiation.Decode(out, negotiation.DecodeOptions{}); err == nil {
					err = e.Verify()
				}
			}
			if err != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\n", negotiation.CodeOf(err))
				return &exitError{code: 1, err: err}
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", out)
			return err
		},
	}
	f.register(cmd)
	f.registerPassphrase(cmd)
	cmd.Flags().StringVar(&keyDir, "key", "", "data directory holding the inbox key (same as --data-dir)")
	return cmd
}
