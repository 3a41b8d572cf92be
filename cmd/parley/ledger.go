package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/storeguard"
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
		if _, rerr := os.Stat(storeguard.RecordFile(dir)); rerr != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("no ledger at %s: %w", dir, err)}
		} // a record without its ledger: the open below refuses it
	}
	cfg := ledger.DefaultConfig()
	cfg.Dir = dir
	cfg.ReadOnly = readOnly
	// The ledger's record beside it: a ledger emptier than or different
	// from it fails like a damaged one. The owner is the node's peer id
	// when its public keys are there.
	cfg.RecordFile = storeguard.RecordFile(dir)
	if pub, _, err := identity.ReadPublic(filepath.Dir(dir)); err == nil {
		cfg.Owner = pub.PeerID
	}
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
	var se *storeguard.Error
	if errors.As(err, &se) {
		// A directory without its MANIFEST, or emptier than its record:
		// not intact, and never "ok, 0 entries".
		fmt.Fprintf(cmd.OutOrStdout(), "FAIL %s: %s\n", se.Code, se.Msg)
		return &exitError{code: 1, err: err}
	}
	return &exitError{code: 2, err: err}
}

func newLedgerCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Verify the node's ledger or export a negotiation from it as a proof bundle",
		Long: "Works on the ledger of a data directory when no node runs on it, or asks the running node's\n" +
			"API: with --api (or $PARLEY_API), or when the data directory's ledger is held by a running node\n" +
			"(then its parley.yaml and api.key say where the node's API is).",
	}
	f.register(cmd.PersistentFlags())
	cmd.AddCommand(newLedgerVerifyCmd(&f), newLedgerExportCmd(&f))
	cmd.AddCommand(newLedgerAnchorCmd(&f), newLedgerHeadsCmd(&f), newLedgerAuditCmd(&f))
	return cmd
}

// ledgerOrNode opens the data directory's ledger, or, with --api or
// when a running node holds the ledger, connects to that node's API:
// exactly one of the two results is set.
func (f *clientFlags) ledgerOrNode(cmd *cobra.Command) (*ledger.Ledger, *session, error) {
	if f.ledgerViaAPI() {
		s, err := f.connect(cmd)
		return nil, s, err
	}
	l, err := openLedger(cmd, f.dataDir)
	if isLocked(err) {
		s, err := f.runningNode(cmd, err)
		return nil, s, err
	}
	return l, nil, err
}

// ledgerViaAPI reports whether a ledger command asks a node's API: when
// --api or $PARLEY_API names one.
func (f *clientFlags) ledgerViaAPI() bool {
	return f.api != "" || os.Getenv("PARLEY_API") != ""
}

// isLocked reports whether err is Badger's refusal to open a directory
// another process (a running node) holds.
func isLocked(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Another process is using this Badger database")
}

// runningNode connects to the node holding the ledger of f's data
// directory, or explains why it cannot and how to ask it.
func (f *clientFlags) runningNode(cmd *cobra.Command, lockErr error) (*session, error) {
	dir, _ := ledgerDir(f.dataDir)
	s, err := f.connect(cmd)
	if err != nil {
		return nil, usageErr(fmt.Errorf("the ledger at %s is in use by a running node (%v); ask the node instead: --api URL --api-key-file FILE (%v)", dir, lockErr, err))
	}
	if !f.quiet && !f.json {
		fmt.Fprintf(cmd.ErrOrStderr(), "parley: the ledger at %s is in use by a running node; asking its API at %s\n", dir, s.url)
	}
	return s, nil
}

// lockedFail explains a running node's API that does not answer.
func (s *session) lockedFail(err error) error {
	if errors.Is(err, api.ErrUnreachable) {
		dir, _ := ledgerDir(s.f.dataDir)
		return &exitError{code: exitUnreachable, err: fmt.Errorf("the ledger at %s is in use by a running node, and its API at %s does not answer (%v); give the node's --api", dir, s.url, err)}
	}
	return s.fail(err)
}

func newLedgerVerifyCmd(f *clientFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Recompute the whole hash chain from the stored bytes",
		Long: "Recompute every entry's hash from the stored bytes, check every stored object against its CID,\n" +
			"and report the first bad entry: offline on a data directory, or by the running node (GET\n" +
			"/v1/ledger/verify). Exit status 0: intact; 1: the first failure is printed; 2: cannot read;\n" +
			"3: the node does not answer.",
		Example: "  parley ledger verify --data-dir ~/.parley-worker\n" +
			"  parley ledger verify --api http://127.0.0.1:7464 --api-key-file ~/.parley-worker/api.key",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, s, err := f.ledgerOrNode(cmd)
			if err != nil {
				return err
			}
			if l != nil {
				defer l.Close()
				head, err := l.Verify(cmd.Context())
				if err != nil {
					return verifyExit(cmd, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "ok %d entries, head %s\n", head.Seq, head.Hash)
				return nil
			}
			rep, err := s.c.VerifyLedger(s.ctx())
			if err != nil {
				return s.lockedFail(err)
			}
			_ = s.show(func(w io.Writer) {
				if rep.OK {
					fmt.Fprintf(w, "ok %d entries, head %s\n", rep.Seq, rep.Head)
				} else {
					fmt.Fprintf(w, "FAIL %s\n", rep.Error)
				}
			})
			if !rep.OK {
				return &exitError{code: 1, err: fmt.Errorf("the node's ledger failed verification: %s", rep.Error)}
			}
			return nil
		},
	}
	return cmd
}

func newLedgerExportCmd(f *clientFlags) *cobra.Command {
	var negotiationID, out, passFile string
	var format int
	cmd := &cobra.Command{
		Use:   "export NEGOTIATION -o FILE",
		Short: "Write a negotiation's proof bundle (docs/ledger.md) to FILE",
		Long: "Writes the proof bundle of one negotiation: offline from a data directory, or streamed from the\n" +
			"running node (GET /v1/negotiations/{id}/bundle) and verified before FILE is written. The bundle\n" +
			"proves the thread to anyone with nothing but the file (parley bundle verify).\n\n" +
			"The bundle is of version 2 (parley-proof-bundle/2): the negotiation's entries only, each with its\n" +
			"inclusion proof against a tree head the node signed, and the node's identity link. Offline it\n" +
			"uses the ledger's latest signed tree head when that covers the negotiation and names the data\n" +
			"directory's identity link; otherwise it signs a new head with the node's inbox key and records\n" +
			"it in the ledger, which needs the keys' passphrase (--passphrase-file, else $" + identity.PassphraseEnv + ",\n" +
			"else a prompt on a terminal). --format 1 writes a version-1 bundle (every entry from the\n" +
			"negotiation's first to the head; no keys needed), offline only.",
		Example: "  parley ledger export 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b -o task1.bundle.json --data-dir ~/.parley-poster\n" +
			"  parley ledger export 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b -o - --api http://127.0.0.1:7464 --api-key-file api.key\n" +
			"  parley ledger export 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b -o task1.v1.json --format 1 --data-dir ~/.parley-poster",
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != 1 && format != 2 {
				return usageErr(fmt.Errorf("--format is 1 or 2, not %d", format))
			}
			switch {
			case len(args) == 1 && negotiationID != "" && args[0] != negotiationID:
				return usageErr(fmt.Errorf("the negotiation is given twice: %s and --negotiation %s", args[0], negotiationID))
			case len(args) == 1:
				negotiationID = args[0]
			case negotiationID == "":
				return usageErr(fmt.Errorf("name the negotiation: parley ledger export NEGOTIATION -o FILE"))
			}
			if out == "" {
				return usageErr(fmt.Errorf("-o FILE is required (- for standard output)"))
			}
			l, s, err := f.ledgerOrNode(cmd)
			if err != nil {
				return err
			}
			if l != nil {
				x := offlineExport{cmd: cmd, l: l, dataDir: f.dataDir, passFile: passFile}
				defer func() {
					if x.l != nil {
						x.l.Close()
					}
				}()
				if format == 1 {
					return exportOffline(cmd, x.l, negotiationID, out)
				}
				return x.exportV2(negotiationID, out)
			}
			if format == 1 {
				return usageErr(fmt.Errorf("a running node exports version-2 bundles only: --format 1 reads a data directory's ledger (stop the node first)"))
			}
			return exportViaAPI(cmd, s, negotiationID, out)
		},
	}
	cmd.Flags().StringVar(&negotiationID, "negotiation", "", "negotiation id (lowercase UUID), instead of the argument")
	cmd.Flags().StringVarP(&out, "output", "o", "", "bundle file to write (- for standard output)")
	cmd.Flags().IntVar(&format, "format", 2, "bundle version: 2 (the negotiation's entries with inclusion proofs against a signed tree head) or 1 (offline only)")
	cmd.Flags().StringVar(&passFile, "passphrase-file", "", "read the keys' passphrase from this file, when a new tree head must be signed (else $"+identity.PassphraseEnv+", else a prompt)")
	return cmd
}

// writeAtomic writes a file through a temporary file in its directory:
// write fills it, check (when not nil) checks it, and only then it is
// synced and renamed to path.
func writeAtomic(path string, write func(w io.Writer) error, check func(f *os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bundle-*")
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := write(tmp); err != nil {
		return err
	}
	if check != nil {
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return &exitError{code: 2, err: err}
		}
		if err := check(tmp); err != nil {
			return err
		}
	}
	if err := tmp.Sync(); err != nil {
		return &exitError{code: 2, err: err}
	}
	if err := tmp.Close(); err != nil {
		return &exitError{code: 2, err: err}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return &exitError{code: 2, err: err}
	}
	return nil
}

func exportOffline(cmd *cobra.Command, l *ledger.Ledger, negotiationID, out string) error {
	var head ledger.Head
	export := func(w io.Writer) (err error) {
		head, err = l.Export(cmd.Context(), negotiationID, w)
		if err != nil {
			if errors.Is(err, ledger.ErrNotFound) || ledger.CodeOf(err) == ledger.CodeBadNegotiationID {
				return &exitError{code: 1, err: err}
			}
			return verifyExit(cmd, err)
		}
		return nil
	}
	if out == "-" {
		return export(cmd.OutOrStdout())
	}
	if err := writeAtomic(out, export, nil); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "exported negotiation %s to %s (head %d %s)\n", negotiationID, out, head.Seq, head.Hash)
	return nil
}

// offlineExport is a version-2 export of a data directory's ledger, with
// no node running on it; l is read-only until a new tree head must be
// signed, then read-write.
type offlineExport struct {
	cmd      *cobra.Command
	l        *ledger.Ledger
	dataDir  string // the --data-dir flag ("" for the default)
	passFile string
}

// exportV2 writes the version-2 bundle of negotiationID: against the
// ledger's latest signed tree head when it covers every entry of the
// negotiation and names the data directory's identity link (no key
// needed), else against a head signed now with the keys and recorded
// (node.ExportBundle, the node's own path).
func (x *offlineExport) exportV2(negotiationID, out string) error {
	cmd := x.cmd
	dir, err := ledgerDir(x.dataDir)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	var last uint64
	for e, err := range x.l.ByNegotiation(cmd.Context(), negotiationID) {
		if err != nil {
			return verifyExit(cmd, err)
		}
		last = e.Seq
	}
	if last == 0 {
		return &exitError{code: 1, err: fmt.Errorf("the ledger holds no entry of negotiation %s: %w", negotiationID, ledger.ErrNotFound)}
	}
	dataDir := filepath.Dir(dir)
	_, link, err := identity.ReadPublic(dataDir)
	if err == nil && link == nil {
		err = errors.New("no identity link")
	}
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("a version-2 bundle names the node's identity link, and %s has none (%v): --format 1 writes a version-1 bundle", identity.KeysDir(dataDir), err)}
	}
	var export func(w io.Writer) (ledger.TreeHead, error)
	head, _, err := x.l.LatestTreeHead(cmd.Context())
	switch {
	case err == nil && head.Size >= last && head.Signer == negotiation.Hash(link.Hash()):
		export = func(w io.Writer) (ledger.TreeHead, error) {
			return head, x.l.ExportV2(cmd.Context(), negotiationID, head, link.Bytes(), w)
		}
	case err != nil && !errors.Is(err, ledger.ErrNotFound):
		return verifyExit(cmd, err)
	default:
		// A new head: the keys sign it and the ledger records it.
		kr, err := x.keys(dataDir)
		if err != nil {
			return err
		}
		x.l.Close()
		if x.l, err = openLedgerMode(cmd, x.dataDir, false); err != nil {
			x.l = nil
			return err
		}
		export = func(w io.Writer) (ledger.TreeHead, error) {
			return node.ExportBundle(cmd.Context(), x.l, kr.Inbox(), kr.Link(), negotiationID, w)
		}
	}
	var th ledger.TreeHead
	write := func(w io.Writer) (err error) {
		if th, err = export(w); err != nil {
			if errors.Is(err, ledger.ErrNotFound) {
				return &exitError{code: 1, err: err}
			}
			return bundleExit(cmd, err)
		}
		return nil
	}
	if out == "-" {
		return write(cmd.OutOrStdout())
	}
	if err := writeAtomic(out, write, nil); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "exported negotiation %s to %s (version 2, tree head %d %s)\n", negotiationID, out, th.Size, negotiation.Hash(th.Root))
	return nil
}

// keys opens the data directory's keyring for a new tree head; a
// passphrase that cannot be read is exit status 2, naming --format 1.
func (x *offlineExport) keys(dataDir string) (*identity.Keyring, error) {
	src := identity.PassphraseSource{File: x.passFile, Env: os.Getenv(identity.PassphraseEnv), Prompt: x.cmd.ErrOrStderr()}
	if in, ok := x.cmd.InOrStdin().(*os.File); ok {
		src.Terminal = in
	}
	pass, err := src.Read(false)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("the ledger's latest signed tree head does not cover the negotiation, and signing a new one needs the keys' passphrase (--passphrase-file or $%s): %w; --format 1 writes a version-1 bundle without keys", identity.PassphraseEnv, err)}
	}
	kr, err := identity.Open(identity.DefaultConfig(dataDir), pass)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("opening the keys to sign a tree head: %w", err)}
	}
	if kr.Link() == nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("the keys in %s have no identity link: --format 1 writes a version-1 bundle", identity.KeysDir(dataDir))}
	}
	return kr, nil
}

func exportViaAPI(cmd *cobra.Command, s *session, negotiationID, out string) error {
	nid, err := parseNegArg(negotiationID)
	if err != nil {
		return err
	}
	fetch := func(w io.Writer) error {
		if err := s.c.Bundle(s.ctx(), nid, w); err != nil {
			return s.lockedFail(err)
		}
		return nil
	}
	if out == "-" {
		return fetch(cmd.OutOrStdout())
	}
	var rep *ledger.BundleReport
	err = writeAtomic(out, fetch, func(f *os.File) (err error) {
		rep, err = node.VerifyBundle(f, ledger.BundleOptions{})
		if err != nil {
			return bundleExit(cmd, fmt.Errorf("the bundle the node sent: %w", err))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if th := rep.TreeHead; th != nil {
		fmt.Fprintf(cmd.OutOrStdout(), "exported negotiation %s to %s (version 2, tree head %d %s)\n", nid, out, th.Size, negotiation.Hash(th.Root))
		return nil
	}
	fmt.Fprintf(cmd.OutOrStdout(), "exported negotiation %s to %s (head %d %s)\n", nid, out, rep.Head.Seq, rep.Head.Hash)
	return nil
}

// bundleExit prints a bundle's verification failure (the ledger's code
// and position, or the node's code for a missing or bad identity link)
// and maps it to exit status 1; other errors are status 2.
func bundleExit(cmd *cobra.Command, err error) error {
	var ve *ledger.VerifyError
	var ne *node.Error
	switch {
	case errors.As(err, &ve):
		return verifyExit(cmd, err)
	case errors.As(err, &ne):
		fmt.Fprintf(cmd.OutOrStdout(), "FAIL %s: %s\n", ne.Code, ne.Msg)
		return &exitError{code: 1, err: err}
	}
	return &exitError{code: 2, err: err}
}

func newBundleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: "Work with proof bundles",
	}
	cmd.AddCommand(newBundleVerifyCmd(), newBundleCompareCmd())
	return cmd
}

// The ledger's signed tree heads, their anchors on chain and audits
// (issue 15): each asks the running node's API, which holds the keys and
// the chain.

func newLedgerAnchorCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "anchor",
		Short: "Sign the ledger's tree head and anchor it on chain now",
		Long: "Asks the running node (POST /v1/ledger/anchor) to sign its ledger's Merkle tree head and anchor\n" +
			"it through LedgerAnchor from its own EVM key (the address its identity link binds), then prints the\n" +
			"anchor it recorded. Not gated (it moves no escrow), but it spends gas: refused over\n" +
			"ledger.anchor_gas_per_day (anchor_budget, with the wait until the next UTC day) and when nothing\n" +
			"was added since the last anchor (anchor_unchanged). Exit status 1 when refused, 3 when the node\n" +
			"does not answer.",
		Example: "  parley ledger anchor --data-dir ~/.parley-poster\n" +
			"  parley ledger anchor --api http://127.0.0.1:7464 --api-key-file ~/.parley-poster/api.key --json",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			a, err := s.c.AnchorLedger(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				fmt.Fprintf(w, "anchored size %d root %s\n  tx %s block %d, from %s (LedgerAnchor %s, chain %d); ledger entry %d\n",
					a.Size, a.Root, a.TxHash, a.BlockNumber, a.Address, a.Contract, a.ChainID, a.Seq)
			})
		},
	}
}

func newLedgerHeadsCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "heads",
		Short: "Show the ledger's latest signed tree head, its latest anchor and the day's anchor gas",
		Long: "Asks the running node (GET /v1/ledger/heads) for its ledger's latest signed tree head, its latest\n" +
			"anchor on chain and the gas the day's anchors used of ledger.anchor_gas_per_day. Signs nothing.",
		Example: "  parley ledger heads --data-dir ~/.parley-worker\n" +
			"  parley ledger heads --api http://127.0.0.1:7465 --api-key-file ~/.parley-worker/api.key --json",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			h, err := s.c.LedgerHeads(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				fmt.Fprintf(w, "ledger %d entries\n", h.Entries)
				if h.Head != nil {
					fmt.Fprintf(w, "head   size %d root %s, signed %s (entry %d)\n", h.Head.Size, h.Head.Root, h.Head.Time.Format(time.RFC3339), h.Head.Seq)
				} else {
					fmt.Fprintln(w, "head   none signed yet")
				}
				if h.Anchor != nil {
					fmt.Fprintf(w, "anchor size %d root %s, tx %s block %d (entry %d)\n", h.Anchor.Size, h.Anchor.Root, h.Anchor.TxHash, h.Anchor.BlockNumber, h.Anchor.Seq)
				} else {
					fmt.Fprintln(w, "anchor none yet")
				}
				fmt.Fprintf(w, "gas    %d of %d on %s (UTC)\n", h.Budget.Spent, h.Budget.Limit, h.Budget.Day)
			})
		},
	}
}

func newLedgerAuditCmd(f *clientFlags) *cobra.Command {
	var target, rpc string
	cmd := &cobra.Command{
		Use:   "audit --peer ADDR|PEERID [--rpc URL]",
		Short: "Audit another node's ledger against the tree heads it anchored on chain",
		Long: "Asks the running node (POST /v1/ledger/audit) to audit another node: read the anchors the other\n" +
			"node's EVM address posted to LedgerAnchor (through --rpc, else the node's chain), ask it over p2p\n" +
			"(/parley/ledger-consistency/1) for the consistency proof from each anchored size to its latest\n" +
			"signed tree head, and check each proof, the anchored root and the head's signature. A node that\n" +
			"cannot prove consistency with an anchor is reported: inconsistent_with_anchor (forged_head for a\n" +
			"head its link does not sign), exit status 1. Exit status 0: every anchor checks.",
		Example: "  parley ledger audit --peer 0x5B38Da6a701c568545dCfcB03FcB875f56beddC4 --data-dir ~/.parley-arbitrator\n" +
			"  parley ledger audit --peer 12D3KooWQ... --rpc http://127.0.0.1:8545 --api http://127.0.0.1:7466 --api-key-file api.key",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if target == "" {
				return usageErr(fmt.Errorf("name the node to audit: --peer ADDR|PEERID"))
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			rep, err := s.c.AuditLedger(s.ctx(), target, rpc)
			if err != nil {
				return s.fail(err)
			}
			_ = s.show(func(w io.Writer) {
				fmt.Fprintf(w, "%s %s (%s): %d anchors\n", rep.Code, rep.Address, rep.Peer, len(rep.Anchors))
				if rep.Head != nil {
					fmt.Fprintf(w, "  head size %d root %s, signed %s\n", rep.Head.Size, rep.Head.Root, rep.Head.Time.Format(time.RFC3339))
				}
				for _, a := range rep.Anchors {
					fmt.Fprintf(w, "  %-24s size %d root %s tx %s", a.Code, a.Size, a.Root, a.TxHash)
					if a.Detail != "" {
						fmt.Fprintf(w, ": %s", a.Detail)
					}
					fmt.Fprintln(w)
				}
			})
			if rep.Code != "ok" {
				return &exitError{code: 1, err: fmt.Errorf("the audit of %s failed: %s: %s", rep.Address, rep.Code, rep.Detail)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&target, "peer", "", "the node to audit: its EVM address or peer id")
	cmd.Flags().StringVar(&rpc, "rpc", "", "JSON-RPC endpoint to read the anchors from (default: the node's chain)")
	return cmd
}
