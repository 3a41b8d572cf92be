package main

import (
	"time"

	"github.com/parleynet/parley/node/demo"
	"github.com/spf13/cobra"
)

func newDemoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Play Parley's story end to end and check every step",
		Long: "Plays a negotiation from a public task announcement through counter-offer, both\n" +
			"signatures on one EIP-712 settlement digest, funding, delivery and acceptance, printing\n" +
			"each signed envelope's type, hash, resulting state and A2A state. Exits non-zero if any\n" +
			"step did not happen as the story says.",
		Example: "  make demo\n  parley demo",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return demo.Walkthrough(cmd.OutOrStdout(), time.Now())
		},
	}
}
