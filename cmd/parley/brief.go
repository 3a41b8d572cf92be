package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/negotiation"
)

func newBriefCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "brief NEGOTIATION [--json]",
		Short: "Print a negotiation's decision brief: what was agreed and on whose authority",
		Long: "The decision brief (PXP) of an agreed or finished negotiation, for the principal to read alone:\n" +
			"what was agreed; for each term the clause of the intent card or the principal's answer it rests on;\n" +
			"the unverified assumptions the agreement depends on; the escalations and how they were answered\n" +
			"(and whether a relayed answer was confirmed); the ledger head. Markdown, or its JSON with --json.",
		Example: "  parley brief 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b\n" +
			"  parley brief 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --json | jq .terms",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := negotiation.ParseNegotiationID(args[0]); err != nil {
				return usageErr(fmt.Errorf("negotiation %q: %w", args[0], err))
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			if f.json {
				if _, err := s.c.Brief(s.ctx(), args[0]); err != nil {
					return s.fail(err)
				}
				return s.show(nil)
			}
			md, err := s.c.BriefMarkdown(s.ctx(), args[0])
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				fmt.Fprint(w, md)
				if !strings.HasSuffix(md, "\n") {
					fmt.Fprintln(w)
				}
			})
		},
	}
	f.register(cmd.Flags())
	return cmd
}
