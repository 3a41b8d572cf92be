package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/parleynet/parley/ledger"
	"github.com/spf13/cobra"
)

// ledgerDir resolves <data-dir>/ledger: the flag, else $PARLEY_DATA_DIR,
// else ~/.parley.
func ledgerDir(dataDir string) (string, error) {
	if dataDir == "" {
		dataDir = os.Getenv("PARLEY_DATA_DIR")
	}
	if dataDir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no --data-dir and no home directory: %w", err)
		}
		dataDir = filepath.Join(home, ".parley")
	}
	return filepath.Join(dataDir, "ledger"), nil
}

// openLedger opens the ledger under dataDir read-only (a running node holds
// it exclusively: stop it first). A ledger left by a node that did not close
// cleanly is opened read-write once, which replays its write-ahead log as a
// node start would (nothing acknowledged is lost), and is said so on stderr.
func openLedger(cmd *cobra.Command, dataDir string) (*ledger.Ledger, error) {
	l, err := openLedgerMode(cmd, dataDir, true)
	if errors.Is(err, ledger.ErrNeedsRecovery) {
		fmt.Fprintln(cmd.ErrOrStderr(), "parley: the ledger was not closed cleanly; recovering its write-ahead log")
		l, err = openLedgerMode(cmd, dataDir, false)
	}
	return l, err
}

func openLedgerMode(cmd *cobra.Command, dataDir string, readOnly bool) (*ledger.Ledger, error) {
	dir, err := ledgerDir(dataDir)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("no ledger at %s: %w", dir, err)}
	}
	cfg := ledger.DefaultConfig()
	cfg.Dir = dir
	cfg.ReadOnly = readOnly
	cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	l, err := ledger.New(cfg)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	if err := l.Start(cmd.Context()); err != nil {
		if errors.Is(err, ledger.ErrNeedsRecovery) {
			return nil, err
		}
		return nil, verifyExit(cmd, err)
	}
	return l, nil
}

// verifyExit prints a verification failure's code and position and maps it
// to exit status 1; other errors are status 2.
func verifyExit(cmd *cobra.Command, err error) error {
	var ve *ledger.VerifyError
	if errors.As(err, &ve) {
		fmt.Fprintf(cmd.OutOrStdout(), "FAIL %s at entry %d: %s\n", ve.Code, ve.Seq, ve.Msg)
		return &exitError{code: 1, err: err}
	}
	return &exitError{code: 2, err: err}
}

func newLedgerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Verify the node's ledger or export a negotiation from it as a proof bundle",
	}
	cmd.AddCommand(newLedgerVerifyCmd(), newLedgerExportCmd())
	return cmd
}

func newLedgerVerifyCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Recompute the whole hash chain from the stored bytes",
		Long: "Recompute every entry's hash from the stored bytes, check every stored object against its CID,\n" +
			"and report the first bad entry. Exit status 0: intact; 1: the first failure is printed; 2: cannot read.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := openLedger(cmd, dataDir)
			if err != nil {
				return err
			}
			defer l.Close()
			head, err := l.Verify(cmd.Context())
			if err != nil {
				return verifyExit(cmd, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ok %d entries, head %s\n", head.Seq, head.Hash)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "data directory holding ledger/ (default $PARLEY_DATA_DIR, else ~/.parley)")
	return cmd
}

func newLedgerExportCmd() *cobra.Command {
	var dataDir, negotiationID, out string
	cmd := &cobra.Command{
		Use:   "export --negotiation ID -o FILE",
		Short: "Write a negotiation's proof bundle (docs/ledger.md) to FILE",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := openLedger(cmd, dataDir)
			if err != nil {
				return err
			}
			defer l.Close()
			var w io.Writer = cmd.OutOrStdout()
			var tmp *os.File
			if out != "-" {
				tmp, err = os.CreateTemp(filepath.Dir(out), ".bundle-*")
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				defer os.Remove(tmp.Name())
				defer tmp.Close()
				w = tmp
			}
			head, err := l.Export(cmd.Context(), negotiationID, w)
			if err != nil {
				if errors.Is(err, ledger.ErrNotFound) || ledger.CodeOf(err) == ledger.CodeBadNegotiationID {
					return &exitError{code: 1, err: err}
				}
				return verifyExit(cmd, err)
			}
			if tmp != nil {
				if err := tmp.Sync(); err != nil {
					return &exitError{code: 2, err: err}
				}
				if err := tmp.Close(); err != nil {
					return &exitError{code: 2, err: err}
				}
				if err := os.Rename(tmp.Name(), out); err != nil {
					return &exitError{code: 2, err: err}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "exported negotiation %s to %s (head %d %s)\n", negotiationID, out, head.Seq, head.Hash)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "data directory holding ledger/ (default $PARLEY_DATA_DIR, else ~/.parley)")
	cmd.Flags().StringVar(&negotiationID, "negotiation", "", "negotiation id (lowercase UUID)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "bundle file to write (- for standard output)")
	_ = cmd.MarkFlagRequired("negotiation")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func newBundleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: "Work with proof bundles",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "verify FILE",
		Short: "Check a proof bundle offline: chain, head, objects, envelope signatures, anchors",
		Long: "Check a proof bundle with nothing but its bytes. Exit status 0: it proves what it says;\n" +
			"1: the first failure is printed; 2: cannot read the file.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			defer f.Close()
			rep, err := ledger.VerifyBundle(f, ledger.BundleOptions{})
			if err != nil {
				return verifyExit(cmd, err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "ok negotiation %s\n", rep.NegotiationID)
			fmt.Fprintf(w, "head %d %s\n", rep.Head.Seq, rep.Head.Hash)
			fmt.Fprintf(w, "entries %d (from %d), of the negotiation %d, envelopes %d (signatures verified), pruned objects %d\n",
				rep.Entries, rep.From, len(rep.Negotiation), len(rep.Envelopes), rep.Pruned)
			for _, a := range rep.Anchors {
				fmt.Fprintf(w, "anchor entry %d: %s\n", a.Seq, a.Body)
			}
			return nil
		},
	})
	return cmd
}
