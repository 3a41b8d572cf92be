package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// exitError carries an exit status out of a command; only main maps errors
// to exit codes.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "parley",
		Short:         "A peer-to-peer node for agents that negotiate work",
		Long:          "Parley runs a node that negotiates tasks with other agents: signed, end-to-end encrypted,\nhash-chained envelopes, EIP-712 settlements and escrow on an EVM chain, and human approval\nfor every act that moves money.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newVersionCmd(),
		newInitCmd(), newNodeCmd(), newDevnetCmd(),
		newKeysCmd(),
		newEnvelopeCmd(),
		newDemoCmd(),
		newSoakCmd(), newTestbedCmd(),
		newDevchainCmd(), newContractsCmd(), newSettlementCmd(),
		newLedgerCmd(), newBundleCmd(),
		newStatusCmd(), newPeersCmd(), newEventsCmd(), newConsentCmd(),
		newTaskCmd(), newOfferCmd(), newNegotiationCmd(),
		newFundCmd(), newDeliverCmd(), newAcceptDeliveryCmd(), newCancelCmd(), newAmendCmd(), newReplaceCmd(),
		newCapabilityCmd(), newRevisionCmd(), newPaymentCmd(),
		newDisputeCmd(), newTimeoutCmd(), newApprovalsCmd(), newAgentsCmd(), newWithdrawCmd(), newBalanceCmd(),
		newVetoCmd(),
		newCardCmd(), newEscalationsCmd(), newBriefCmd(),
		newIdentityCmd(),
		newBenchCmd(),
	)
	groupCommands(root)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: 2, err: fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
	})
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version of this binary",
		Example: "  parley version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "parley %s (wire azzle-xmtp-v1)\n", version)
			return nil
		},
	}
}

func main() {
	privateFiles()
	err := newRootCmd().Execute()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "parley:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	os.Exit(1)
}
