package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node"
)

func newConsentCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "consent",
		Short: "List and set the principal's consent of counterparties (allowed, unknown, denied)",
		Long: "Consent decides which negotiations other nodes may open with this one. A counterparty (an EVM\n" +
			"address) is unknown until the principal allows or denies it: an unknown one opens at most\n" +
			"consent.unknown_per_counterparty open negotiations (and all unknown ones together\n" +
			"consent.unknown_total), an allowed one opens any number, a denied one none (those already open\n" +
			"go on). Beyond that a proposal is refused and its sender sees consent_limit or consent_denied.\n" +
			"Every change is recorded in the node's ledger.",
	}
	f.register(cmd.PersistentFlags())
	list := &cobra.Command{
		Use:   "list",
		Short: "List the counterparties: state, open negotiations, refusals since the node started",
		Example: "  parley consent list\n" +
			"  parley consent list --json | jq '.[] | select(.state == \"unknown\" and .refusedSinceStart > 0)'",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			vs, err := s.c.Consents(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				if len(vs) == 0 {
					fmt.Fprintln(w, "no counterparties yet")
					return
				}
				t := newTable(w)
				t.row("COUNTERPARTY", "STATE", "OPEN", "NEGOTIATIONS", "REFUSED", "SET")
				for _, v := range vs {
					set := "-"
					if v.At != nil {
						set = fmt.Sprintf("%s via %s", v.At.UTC().Format("2006-01-02 15:04:05Z"), v.Via)
					}
					t.row(v.Address, v.State, v.Open, v.Negotiations, v.Refused, set)
				}
				t.flush()
			})
		},
	}
	set := func(use, short string, state node.Consent) *cobra.Command {
		c := &cobra.Command{
			Use:     use + " ADDRESS",
			Short:   short,
			Example: "  parley consent " + use + " 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
			Args:    usageArgs(cobra.ExactArgs(1)),
			RunE: func(cmd *cobra.Command, args []string) error {
				a, err := parseAddr("counterparty", args[0])
				if err != nil {
					return err
				}
				s, err := f.connect(cmd)
				if err != nil {
					return err
				}
				v, err := s.c.SetConsent(s.ctx(), a, state)
				if err != nil {
					return s.fail(err)
				}
				return s.show(func(w io.Writer) {
					fmt.Fprintf(w, "%s is %s (%d open negotiations it opened, %d negotiations here)\n", v.Address, v.State, v.Open, v.Negotiations)
				})
			},
		}
		f.registerAct(c.Flags())
		return c
	}
	cmd.AddCommand(list,
		set("allow", "Allow a counterparty: it may open any number of negotiations", node.ConsentAllowed),
		set("deny", "Deny a counterparty: it opens no new negotiation (those open go on)", node.ConsentDenied),
		set("reset", "Make a counterparty unknown again: its open negotiations are bounded", node.ConsentUnknown))
	return cmd
}
