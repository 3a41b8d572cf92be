package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// newVetoCmd is `parley veto`: a supervisor's veto of a task for the party
// that named it (docs/protocol.md, "Supervisor veto").
func newVetoCmd() *cobra.Command {
	var (
		party  negotiation.Address
		reason string
	)
	return negActCmd(negAct{
		use:   "veto NEGOTIATION 0xPARTY --reason TEXT",
		short: "Veto a task as the supervisor a party named (needs approval)",
		long: "Vetoes the task for the party (poster or worker) that named this node its supervisor; the node\n" +
			"holds the thread from the party's hand-over. Before funding the negotiation ends (vetoed) and\n" +
			"nothing goes on chain; after funding the task is halted: the escrow stays in the contract until\n" +
			"the parties cancel by mutual consent, a dispute rules or the contract's timeouts run.",
		example: "  parley veto 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 \\\n" +
			"      --reason \"over this quarter's budget\"",
		args: 1,
		flags: func(cmd *cobra.Command) {
			cmd.Flags().StringVar(&reason, "reason", "", "why (required; travels in the veto)")
		},
		check: func(args []string) (err error) {
			if party, err = parseAddr("party", args[0]); err != nil {
				return err
			}
			if strings.TrimSpace(reason) == "" {
				return usageErr(fmt.Errorf("--reason is required: a veto says why"))
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Veto(ctx, nid, party, reason)
		},
	}, nil)
}

// supervisorFlag registers --supervisor on fs: the supervisor this side's
// principal names in the offer or acceptance.
func supervisorFlag(fs interface {
	StringVar(p *string, name, value, usage string)
}, s *string) {
	fs.StringVar(s, "supervisor", "", "the supervisor this side names (0x address of a third party's node): it gets the thread and may veto for this side")
}

// parseSupervisor parses a --supervisor value ("": none).
func parseSupervisor(s string) (*negotiation.Address, error) {
	if s == "" {
		return nil, nil
	}
	a, err := parseAddr("--supervisor", s)
	if err != nil {
		return nil, err
	}
	return &a, nil
}
