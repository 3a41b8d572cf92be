package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node"
)

// newIdentityCmd is `parley identity`: this node's IdentityLink record on
// chain (register, rotate, revoke: gated, they spend gas) and the look-up
// of another address's record.
func newIdentityCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "identity",
		Short: "Publish this node's identity link on chain, rotate or revoke it, look up another's",
		Long: "The IdentityLink contract anchors an EVM address's economic identity: the inbox key, peer id and\n" +
			"identity-link hash of the node acting for it. register, rotate and revoke write this node's record\n" +
			"(each needs approval: it spends gas); lookup reads an address's record and compares it with the\n" +
			"identity link this node holds for it (matching, different, registered, not_registered).",
	}
	f.register(cmd.PersistentFlags())
	act := func(use, short, long, example string, do func(ctx context.Context, s *session) (node.ActResult, error)) *cobra.Command {
		c := &cobra.Command{
			Use: use, Short: short, Long: long, Example: example,
			Args: usageArgs(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, _ []string) error {
				s, err := f.connect(cmd)
				if err != nil {
					return err
				}
				r, err := s.act("", func(ctx context.Context) (node.ActResult, error) { return do(ctx, s) })
				if err != nil {
					return err
				}
				return s.show(func(w io.Writer) { printAct(w, r) })
			},
		}
		f.registerAct(c.Flags())
		return c
	}
	register := act("register", "Publish this node's identity link in IdentityLink (needs approval)",
		"Registers this node's inbox key, peer id and identity-link hash under its EVM address. Refused\n"+
			"when the address has a record already: rotate it instead.",
		"  parley identity register\n  parley identity register --json",
		func(ctx context.Context, s *session) (node.ActResult, error) { return s.c.RegisterIdentity(ctx) })
	rotate := act("rotate", "Replace this node's record with its current identity link (needs approval)",
		"Rotates the record after the node's keys issued a new identity link. Refused without a record, or\n"+
			"when the record names the current link already.",
		"  parley identity rotate",
		func(ctx context.Context, s *session) (node.ActResult, error) { return s.c.RotateIdentity(ctx) })
	revoke := act("revoke", "Withdraw this node's record from IdentityLink (needs approval)",
		"Deletes the record: counterparties then find none for this address.",
		"  parley identity revoke",
		func(ctx context.Context, s *session) (node.ActResult, error) { return s.c.RevokeIdentity(ctx) })
	lookup := &cobra.Command{
		Use:   "lookup 0xADDRESS",
		Short: "Look up an address's IdentityLink record",
		Long: "Reads the address's record on chain and compares it with the identity link this node holds for\n" +
			"it: matching (registered, the same link), different (registered with another link), registered\n" +
			"(this node holds no link of it) or not_registered.",
		Example: "  parley identity lookup 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC\n" +
			"  parley identity lookup 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC --json",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := parseAddr("address", args[0])
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			c, err := s.c.LookupIdentity(s.ctx(), a)
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) { printLinkCheck(w, c) })
		},
	}
	cmd.AddCommand(register, rotate, revoke, lookup)
	return cmd
}

// printLinkCheck writes one look-up of an IdentityLink record.
func printLinkCheck(w io.Writer, c node.LinkCheck) {
	t := newTable(w)
	t.row("address", c.Address)
	t.row("state", string(c.State))
	if c.LinkHash != nil {
		t.row("link hash", c.LinkHash.String())
		t.row("peer id", c.PeerID)
		t.row("updated", fmt.Sprint(c.UpdatedAt))
	}
	if c.HeldLinkHash != nil {
		t.row("held link", c.HeldLinkHash.String())
	}
	t.flush()
}
