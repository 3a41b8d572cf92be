package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// verifyBundleFile opens path and verifies it offline (node.VerifyBundle);
// a file that cannot be read is status 2, a bundle that does not verify
// status 1 with its code printed (bundleExit), prefixed by label when not
// empty.
func verifyBundleFile(cmd *cobra.Command, path, label string) (*ledger.BundleReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	defer f.Close()
	rep, err := node.VerifyBundle(f, ledger.BundleOptions{})
	if err != nil {
		if label != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ", label)
		}
		return nil, bundleExit(cmd, err)
	}
	return rep, nil
}

func newBundleCompareCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two proof bundles of one negotiation (both parties' exports) envelope by envelope",
		Long: "Verifies both bundles offline (as parley bundle verify does), then compares their envelopes by\n" +
			"CID and prints the comparison as JSON: two different envelopes with the same sender and sequence\n" +
			"are an \"equivocation\" (both CIDs); an envelope one bundle holds that the other lacks, although the\n" +
			"other holds a later envelope of the same sender, is \"omitted\" evidence. Envelopes one bundle holds\n" +
			"after the other's last one of their sender are listed (onlyA, onlyB) but are no evidence.\n" +
			"Exit status 0: the bundles agree; 1: evidence was found, or a bundle does not verify (its failure\n" +
			"is printed); 2: cannot read a file.",
		Example: "  parley bundle compare poster.bundle.json worker.bundle.json",
		Args:    usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := verifyBundleFile(cmd, args[0], "A "+args[0])
			if err != nil {
				return err
			}
			b, err := verifyBundleFile(cmd, args[1], "B "+args[1])
			if err != nil {
				return err
			}
			c, err := node.CompareBundles(a, b)
			if err != nil {
				return bundleExit(cmd, err)
			}
			out, err := json.MarshalIndent(c, "", "  ")
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", out)
			if !c.Agree {
				return &exitError{code: 1, err: fmt.Errorf("the bundles disagree: %d pieces of evidence", len(c.Evidence))}
			}
			return nil
		},
	}
}

func newBundleVerifyCmd() *cobra.Command {
	var rpc, anchorAddr string
	cmd := &cobra.Command{
		Use:   "verify FILE [--rpc URL]",
		Short: "Check a proof bundle: entries, proofs, tree head, envelope signatures, identity links; with --rpc its anchors",
		Long: "Check a proof bundle with nothing but its bytes. A version-2 bundle (parley-proof-bundle/2): every\n" +
			"entry's inclusion proof against the signed tree head, the negotiation's back-links (no entry\n" +
			"omitted), every object against its CID, every envelope's signature and per-sender chain, the\n" +
			"anchor's consistency proof to the head, the tree head's signature by the inbox key of the identity\n" +
			"link it names, and the identity link of every envelope's signer, valid at the envelope's time.\n" +
			"With --rpc URL it also reads LedgerAnchor's Anchored events of the EVM address the signer's link\n" +
			"binds (the contract from --ledger-anchor, else chain.contracts.ledger_anchor of the configuration:\n" +
			"--config, $PARLEY_CONFIG or <data-dir>/parley.yaml): the bundle's anchor must have been posted\n" +
			"by that address, and the newest anchor at or below the head's size must be the one the bundle\n" +
			"proves consistent with its head. Every check passed is printed by name; the first failing one is\n" +
			"printed with its code (forged_head, anchor_foreign, anchor_missing, rewritten_after_anchor, or the\n" +
			"ledger's: bad_inclusion, omitted_entry, ...). A version-1 bundle (parley-proof-bundle/1) is checked\n" +
			"as before: the hash chain to its head, objects, envelopes, identity links.\n" +
			"Exit status 0: it proves what it says; 1: the first failure is printed; 2: cannot read the file\n" +
			"or the chain.",
		Example: "  parley bundle verify task1.bundle.json\n" +
			"  parley bundle verify task1.bundle.json --rpc http://127.0.0.1:8545 --data-dir ~/.parley-arbitrator",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ch node.AnchorChain
			if rpc != "" {
				c, err := anchorClient(cmd, rpc, anchorAddr)
				if err != nil {
					return err
				}
				ch = c
			}
			return verifyBundleCmd(cmd.Context(), cmd, args[0], ch)
		},
	}
	cmd.Flags().String("config", "", "configuration file naming the contracts (default $PARLEY_CONFIG, else <data-dir>/"+ConfigFileName+" when it exists)")
	cmd.Flags().String("data-dir", "", "data directory whose "+ConfigFileName+" names the contracts (default $PARLEY_DATA_DIR, else ~/.parley)")
	cmd.Flags().StringVar(&rpc, "rpc", "", "EVM JSON-RPC endpoint: also check the bundle's anchors on chain")
	cmd.Flags().StringVar(&anchorAddr, "ledger-anchor", "", "LedgerAnchor address (default: chain.contracts.ledger_anchor of the configuration)")
	return cmd
}

// anchorClient returns a read-only client of the chain at rpc for the
// LedgerAnchor at anchorAddr, else the configuration's.
func anchorClient(cmd *cobra.Command, rpc, anchorAddr string) (*chain.Client, error) {
	s, err := loadSettings(cmd.Flags(), os.Getenv)
	if err != nil {
		return nil, usageErr(err)
	}
	contracts := s.Node.Chain.Contracts
	if anchorAddr != "" {
		if !common.IsHexAddress(anchorAddr) {
			return nil, flagErr("ledger-anchor", anchorAddr, fmt.Errorf("not an address"))
		}
		a := common.HexToAddress(anchorAddr)
		if a != contracts.LedgerAnchor {
			contracts = chain.Addresses{LedgerAnchor: a}
		}
	}
	if contracts.LedgerAnchor == (common.Address{}) {
		return nil, usageErr(fmt.Errorf("--rpc needs the LedgerAnchor contract: --ledger-anchor ADDR, or chain.contracts.ledger_anchor in the configuration"))
	}
	// The verifier reads LedgerAnchor only: the client's other contracts,
	// when the configuration does not name them, are never called.
	for _, p := range []*common.Address{&contracts.TaskRegistry, &contracts.ArbitrationModule, &contracts.IdentityLink, &contracts.TaskScopeRegistry} {
		if *p == (common.Address{}) {
			*p = contracts.LedgerAnchor
		}
	}
	b, err := chain.DialRPC(cmd.Context(), rpc)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("--rpc %s: %w", rpc, err)}
	}
	cfg := chain.DefaultConfig()
	cfg.Contracts = contracts
	// A verifier sends nothing: its client acts as a throwaway key.
	c, err := chain.New(b, chain.NewKeySigner(throwawayKey()), cfg, nil)
	if err != nil {
		b.Close()
		return nil, &exitError{code: 2, err: err}
	}
	return c, nil
}

func throwawayKey() *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		panic(err) // the system's randomness failed
	}
	return k
}

// verifyBundleCmd verifies the bundle at path (with ch, its anchors too)
// and prints every check passed, or the first failure and its check.
func verifyBundleCmd(ctx context.Context, cmd *cobra.Command, path string, ch node.AnchorChain) error {
	f, err := os.Open(path)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer f.Close()
	v, err := node.VerifyBundleWith(ctx, f, node.BundleVerifyOptions{Chain: ch})
	w := cmd.OutOrStdout()
	if v.Report != nil && v.Report.Version >= 2 {
		printV2Checks(w, v)
	}
	if err != nil {
		out := bundleExit(cmd, err)
		if ee, ok := out.(*exitError); ok && ee.code == 1 {
			fmt.Fprintf(w, "failed check: %s\n", failedCheck(v))
		}
		return out
	}
	rep := v.Report
	if rep.Version >= 2 {
		if ch == nil {
			fmt.Fprintf(w, "anchors on chain not checked (no --rpc)\n")
		}
		// The summary, as for version 1.
		fmt.Fprintf(w, "ok negotiation %s\n", rep.NegotiationID)
		fmt.Fprintf(w, "tree head %d %s, entries of the negotiation %d (each included in it), envelopes %d (signatures and signers' identity links verified), pruned objects %d\n",
			rep.TreeHead.Size, negotiation.Hash(rep.TreeHead.Root), len(rep.Negotiation), len(rep.Envelopes), rep.Pruned)
		return nil
	}
	fmt.Fprintf(w, "ok negotiation %s\n", rep.NegotiationID)
	fmt.Fprintf(w, "head %d %s\n", rep.Head.Seq, rep.Head.Hash)
	fmt.Fprintf(w, "entries %d (from %d), of the negotiation %d, envelopes %d (signatures and signers' identity links verified), pruned objects %d\n",
		rep.Entries, rep.From, len(rep.Negotiation), len(rep.Envelopes), rep.Pruned)
	for _, a := range rep.Anchors {
		fmt.Fprintf(w, "anchor entry %d: %s\n", a.Seq, a.Body)
	}
	if ch != nil {
		fmt.Fprintf(w, "a version-1 bundle has no signed tree head: --rpc checks nothing\n")
	}
	return nil
}

// printV2Checks prints a version-2 bundle's header and every check it
// passed.
func printV2Checks(w io.Writer, v *node.BundleVerification) {
	rep := v.Report
	fmt.Fprintf(w, "negotiation %s (%s)\n", rep.NegotiationID, ledger.BundleFormatV2)
	if h := rep.TreeHead; h != nil {
		fmt.Fprintf(w, "tree head: size %d root %s time %s\n", h.Size, negotiation.Hash(h.Root), h.Time.UTC().Format(negotiation.TimeLayout))
	}
	if a := rep.Anchor; a != nil {
		fmt.Fprintf(w, "anchored head: size %d root %s, chain %d, LedgerAnchor %s, tx %s, block %d, sent by %s\n",
			a.Size, negotiation.Hash(a.Root), a.ChainID, a.Contract, a.TxHash, a.BlockNumber, a.Address)
	} else {
		fmt.Fprintf(w, "anchored head: none in the bundle\n")
	}
	for _, c := range v.Checks {
		fmt.Fprintf(w, "ok %s: %s\n", c.Name, c.Detail)
	}
}

// failedCheck names the check after the ones v passed.
func failedCheck(v *node.BundleVerification) string {
	order := []string{node.CheckBundle, node.CheckTreeHead, node.CheckLinks, node.CheckAnchorOnChain, node.CheckAnchorConsistency}
	if v.Report != nil && v.Report.Version < 2 {
		order = []string{node.CheckBundle, node.CheckLinks}
	}
	if n := len(v.Checks); n < len(order) {
		return order[n]
	}
	return order[len(order)-1]
}
