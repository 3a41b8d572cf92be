package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

func newApprovalsCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List, approve and deny the acts waiting for the operator's decision",
		Long: "The operator's gate: every act that moves money or commits the node (signing a settlement,\n" +
			"funding, releasing a milestone, a cancel, an amendment, a replacement, opening a dispute, naming\n" +
			"an arbitrator, a ruling) waits for a person's decision. Each request names the exact act and the\n" +
			"values it will use; its intent hash binds them.",
	}
	f.register(cmd.PersistentFlags())
	list := &cobra.Command{
		Use:   "list",
		Short: "List the pending requests with the exact values of each act",
		Example: "  parley approvals list\n" +
			"  parley approvals list --json | jq -r '.[].requestId'",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			reqs, err := s.c.Approvals(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) { printApprovals(w, reqs) })
		},
	}
	var by, reason string
	decide := func(approve bool) func(cmd *cobra.Command, args []string) error {
		return func(cmd *cobra.Command, args []string) error {
			if !approve && reason == "" {
				return usageErr(fmt.Errorf("--reason is required"))
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			d := api.DecisionRequest{By: by, Reason: reason}
			var r api.Decided
			if approve {
				r, err = s.c.Approve(s.ctx(), args[0], d)
			} else {
				r, err = s.c.Deny(s.ctx(), args[0], d)
			}
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				verb := "denied"
				if r.Approved {
					verb = "approved"
				}
				fmt.Fprintf(w, "%s %s\n", verb, r.RequestID)
			})
		}
	}
	approve := &cobra.Command{
		Use:     "approve REQUEST",
		Short:   "Approve a pending request: the act it names goes ahead",
		Example: "  parley approvals approve req_5f0c9d2e8a7b4c1d9e3f2a1b0c9d8e7f --by alice",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE:    decide(true),
	}
	approve.Flags().StringVar(&by, "by", "", "who decides (default: operator)")
	deny := &cobra.Command{
		Use:     "deny REQUEST --reason R",
		Short:   "Deny a pending request: the act it names is refused",
		Example: "  parley approvals deny req_5f0c9d2e8a7b4c1d9e3f2a1b0c9d8e7f --reason \"too expensive\"",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE:    decide(false),
	}
	deny.Flags().StringVar(&by, "by", "", "who decides (default: operator)")
	deny.Flags().StringVar(&reason, "reason", "", "why (required; recorded in the ledger)")
	cmd.AddCommand(list, approve, deny)
	return cmd
}

// printApprovals writes each pending request with its act's values.
func printApprovals(w io.Writer, reqs []node.ApprovalRequest) {
	if len(reqs) == 0 {
		fmt.Fprintln(w, "no approvals pending")
		return
	}
	for i, r := range reqs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		t := newTable(w)
		t.row("request", r.RequestID)
		t.row("act", r.Action.Operation)
		if r.Action.Target != "" {
			t.row("negotiation", r.Action.Target)
		}
		t.row("reason", r.Context.Reason)
		t.row("risk", r.Context.Risk)
		t.row("expires", r.ExpiresAt.UTC().Format(time.RFC3339))
		t.row("intent hash", r.IntentHash)
		keys := make([]string, 0, len(r.Action.Arguments))
		for k := range r.Action.Arguments {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			t.row("  "+k, fmt.Sprint(r.Action.Arguments[k]))
		}
		t.flush()
	}
}
