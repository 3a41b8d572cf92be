package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func newPeersCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "List the peers the node is connected to",
		Example: "  parley peers\n" +
			"  parley peers --json",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			peers, err := s.c.Peers(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				if len(peers) == 0 {
					fmt.Fprintln(w, "no peers connected")
					return
				}
				t := newTable(w)
				t.row("PEER", "EVM ADDRESS", "ADDRESSES")
				for _, p := range peers {
					evm := "(no identity link yet)"
					if p.EVMAddress != nil {
						evm = p.EVMAddress.String()
					}
					t.row(p.PeerID, evm, strings.Join(p.Addrs, " "))
				}
				t.flush()
			})
		},
	}
	f.register(cmd.Flags())
	return cmd
}
