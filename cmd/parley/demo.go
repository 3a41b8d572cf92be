package main

import (
	"os"
	"time"

	"github.com/parleynet/parley/node/demo"
	"github.com/spf13/cobra"
)

func newDemoCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Play Parley's story end to end on an embedded dev chain and check every step",
		Long: "Starts an embedded EVM dev chain with Parley's contracts and plays two tasks between a\n" +
			"poster, a worker and an arbitrator: one from a public announcement through counter-offer,\n" +
			"both signatures on one EIP-712 settlement digest, escrow, delivery, acceptance and\n" +
			"withdrawal; one through a dispute to a 70/30 ruling. Each line shows the signed envelope or\n" +
			"the transaction, the negotiation's state and its A2A projection. Exits non-zero if any step\n" +
			"did not happen.",
		Example: "  make demo\n  parley demo --data-dir /tmp/parley-demo",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := dataDir
			if dir == "" {
				tmp, err := os.MkdirTemp("", "parley-demo-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			}
			return demo.Run(cmd.Context(), cmd.OutOrStdout(), demo.Options{DataDir: dir, Now: time.Now()})
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "directory for the dev chain (default: a temporary directory, removed afterwards)")
	return cmd
}
