package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// newTimeoutCmd is `parley timeout`: the contracts' timeout exits, listed
// and taken.
func newTimeoutCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "timeout",
		Short: "List and take the contracts' timeout exits: claim, reclaim, resolve a stalled dispute",
		Long: "The contracts let the party who gains take an exit once a clock on chain ran out: the worker\n" +
			"claims a delivery the poster left unanswered for the review period, the poster takes back after\n" +
			"the deadline what was never delivered, and anyone resolves a dispute whose stage timed out (the\n" +
			"escrow split evenly). Each needs approval; an exit not due yet is refused (timeout_not_due) before\n" +
			"anything is asked. The node's timeouts.auto policy may take them by itself, still through approval.",
	}
	f.register(cmd.PersistentFlags())
	var milestone int
	list := &cobra.Command{
		Use:   "list",
		Short: "List the timeout exits the node's negotiations offer it, read on chain now",
		Example: "  parley timeout list\n" +
			"  parley timeout list --json | jq '.[] | select(.due)'",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			exits, err := s.c.Timeouts(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				if len(exits) == 0 {
					fmt.Fprintln(w, "no timeout exit is open to this node")
					return
				}
				t := newTable(w)
				t.row("NEGOTIATION", "EXIT", "AMOUNT (WEI)", "DUE")
				for _, x := range exits {
					t.row(x.NegotiationID, exitName(x), x.Amount, dueLine(x))
				}
				t.flush()
			})
		},
	}
	claim := negActCmd(negAct{
		use:   "claim NEGOTIATION --milestone N",
		short: "Claim a milestone the poster left unanswered for the review period, as the worker (needs approval)",
		long: "Calls claimUnanswered: milestone N, delivered and left unanswered by the poster for the review\n" +
			"period, becomes owed to this node (withdraw it with parley withdraw).",
		example: "  parley timeout claim 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0",
		flags: func(cmd *cobra.Command) {
			cmd.Flags().IntVar(&milestone, "milestone", 0, "the milestone claimed (0-based)")
		},
		check: func([]string) error {
			if milestone < 0 {
				return flagErr("milestone", fmt.Sprint(milestone), fmt.Errorf("milestones count from 0"))
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.ClaimUnanswered(ctx, nid, milestone)
		},
	}, &f)
	reclaim := negActCmd(negAct{
		use:   "reclaim NEGOTIATION",
		short: "Take back, after the deadline, the milestones never delivered, as the poster (needs approval)",
		long: "Calls reclaimExpired: every milestone the worker never submitted a proof for goes back to this\n" +
			"node; milestones pending review stay, to be accepted or claimed.",
		example: "  parley timeout reclaim 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.ReclaimExpired(ctx, nid)
		},
	}, &f)
	resolve := negActCmd(negAct{
		use:   "resolve NEGOTIATION",
		short: "Resolve a stalled dispute by its timeout: the escrow split evenly (needs approval)",
		long: "Calls resolveTimedOut once no arbitrator was agreed, or the assigned one did not rule, in time:\n" +
			"half the escrow to each party, the bond back to the dispute's opener.",
		example: "  parley timeout resolve 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.ResolveTimedOut(ctx, nid)
		},
	}, &f)
	cmd.AddCommand(list, claim, reclaim, resolve)
	return cmd
}

// exitName names a timeout exit for a table.
func exitName(x node.TimeoutExit) string {
	if x.Milestone >= 0 {
		return fmt.Sprintf("%s milestone %d", x.Act, x.Milestone)
	}
	return string(x.Act)
}

// dueLine says whether, or from when, an exit is due.
func dueLine(x node.TimeoutExit) string {
	at := x.DueAt.UTC().Format(time.RFC3339)
	if x.Due {
		return "due since " + at
	}
	return "from " + at
}
