package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

func newWithdrawCmd() *cobra.Command {
	var f clientFlags
	var token string
	cmd := &cobra.Command{
		Use:   "withdraw [--token 0x...]",
		Short: "Withdraw what the TaskRegistry owes this node (ETH, or a token)",
		Long: "Withdraws everything the registry owes this node in ETH, or in the ERC-20 token given: released\n" +
			"milestones, a ruling's share, a returned escrow or bond. Not gated: the money is already the node's.",
		Example: "  parley withdraw\n" +
			"  parley withdraw --token 0x5FbDB2315678afecb367f032d93F642f64180aa3 --json",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			tok, err := tokenArg(token)
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			r, err := s.c.Withdraw(s.ctx(), tok)
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				if in, ok := r.Detail["amountInToken"]; ok {
					fmt.Fprintf(w, "withdrew %s\n", in)
				} else if amt, ok := r.Detail["amount"]; ok {
					fmt.Fprintf(w, "withdrew %s\n", fmtAmountString(amt, tok))
				}
				printAct(w, node.ActResult{Tx: r.Tx, Thread: r.Thread})
			})
		},
	}
	f.register(cmd.Flags())
	f.registerAct(cmd.Flags())
	cmd.Flags().StringVar(&token, "token", "", "the ERC-20 token (default ETH)")
	return cmd
}

func newBalanceCmd() *cobra.Command {
	var f clientFlags
	var token string
	cmd := &cobra.Command{
		Use:   "balance [--token 0x...]",
		Short: "Show the node's balance and what the TaskRegistry owes it",
		Example: "  parley balance\n" +
			"  parley balance --json",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			tok, err := tokenArg(token)
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			b, err := s.c.Balance(s.ctx(), tok)
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				t := newTable(w)
				t.row("address", b.Address)
				t.row("balance", fmtAmountString(b.Balance, negotiation.Address{}))
				t.row("owed", fmtAmountString(b.Owed, b.Token))
				t.flush()
			})
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&token, "token", "", "the ERC-20 token of what is owed (default ETH)")
	return cmd
}

// tokenArg parses --token ("" is ETH, the zero address).
func tokenArg(s string) (negotiation.Address, error) {
	if s == "" {
		return negotiation.Address{}, nil
	}
	return parseAddr("--token", s)
}
