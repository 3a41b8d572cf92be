package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/ledger"
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
