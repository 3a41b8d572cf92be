package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// newDisputeRaiseCmd is `parley dispute raise`: the dispute raised with
// its arbitrator contract (ERC-792).
func newDisputeRaiseCmd(f *clientFlags) *cobra.Command {
	return negActCmd(negAct{
		use:   "raise NEGOTIATION",
		short: "Raise the dispute with its arbitrator contract, paying the court's fee (needs approval)",
		long: "When both parties named an ERC-792 arbitrator contract, one of them raises the dispute with it,\n" +
			"paying its arbitrationCost; the court later rules with its own dispute id and the ruling reaches\n" +
			"both threads. Refused for a person's address (it rules itself) and for a dispute raised already.",
		example: "  parley dispute raise 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Raise(ctx, nid)
		},
	}, f)
}

// newDisputeCourtCmd is `parley dispute court`: the ERC-1497 documents of
// a dispute with an arbitrator contract.
func newDisputeCourtCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "court NEGOTIATION",
		Short: "The ERC-1497 MetaEvidence and Evidence documents a court reads, by CID",
		Long: "Builds (again: the same bytes give the same CIDs) the JSON documents the chain's MetaEvidence and\n" +
			"Evidence URIs resolve to, stores them with the files they name, and serves them over the blob\n" +
			"protocol to the court's operator. Prints each URI with its document's CID.",
		Example: "  parley dispute court 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b\n" +
			"  parley dispute court 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --json",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			nid, err := parseNegArg(args[0])
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			d, err := s.c.CourtDocuments(s.ctx(), nid)
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				t := newTable(w)
				t.row("meta-evidence", d.MetaEvidence.URI+" -> "+d.MetaEvidence.CID)
				for _, e := range d.Evidence {
					t.row("evidence", e.URI+" -> "+e.CID)
				}
				t.flush()
			})
		},
	}
}

// newTaskScopeCmd is `parley task scope`: an announcement's scope hash
// checked against the TaskScopeRegistry.
func newTaskScopeCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "scope HASH",
		Short: "Check an announcement's scope hash against the chain",
		Long: "Reads the TaskScopeRegistry for the announcement and compares it with the scope hash its terms\n" +
			"name: published (by its poster, the same hash), unpublished (flagged: a claim only), mismatch or\n" +
			"withdrawn (answers are refused with scope_mismatch).",
		Example: "  parley task scope 0x5c0e9d6a0b5e44b1a3e5c0f1f4f3f0d2c7a9e8b6d5c4b3a2f1e0d9c8b7a6e1a9",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := parseHashArg("announcement", args[0])
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			c, err := s.c.TaskScope(s.ctx(), h)
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				if c == nil {
					fmt.Fprintln(w, "the announcement names no scope")
					return
				}
				t := newTable(w)
				t.row("state", string(c.State))
				t.row("named", c.Named.String())
				if c.OnChain != nil {
					t.row("on chain", c.OnChain.String()+" by "+c.Publisher.String())
				}
				t.flush()
			})
		},
	}
}
