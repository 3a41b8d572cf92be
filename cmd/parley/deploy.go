package main

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
)

func newContractsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "contracts",
		Short: "Deploy Parley's contracts to an EVM chain",
	}
	cmd.AddCommand(newContractsDeployCmd())
	return cmd
}

func newContractsDeployCmd() *cobra.Command {
	var (
		kf            keysFlags
		rpc           string
		chainID       uint64
		bondWei       string
		review        time.Duration
		assign        time.Duration
		rule          time.Duration
		confirmations uint64
	)
	dc := chain.DefaultDeployConfig()
	cmd := &cobra.Command{
		Use:   "deploy",
		Short: "Deploy and link TaskRegistry, ArbitrationModule, IdentityLink, TaskScopeRegistry and LedgerAnchor",
		Long: "Deploys Parley's five contracts to the chain at --rpc, paid by the EVM key of a data directory\n" +
			"made by `parley init` (fund its address first: `parley keys show`), links them, checks that\n" +
			"each holds code, and prints the `chain:` block every node's parley.yaml needs. Deploy once per\n" +
			"chain; every poster, worker and arbitrator then points at the same addresses.",
		Example: "  parley contracts deploy --rpc https://rpc.example --chain-id 11155111 --data-dir ~/.parley\n" +
			"  parley contracts deploy --rpc http://127.0.0.1:8545 --bond-wei 10000000000000000 --review-period 72h",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rpc == "" {
				return &exitError{code: 2, err: fmt.Errorf("--rpc is required")}
			}
			bond, ok := new(big.Int).SetString(bondWei, 10)
			if !ok || bond.Sign() < 0 {
				return &exitError{code: 2, err: fmt.Errorf("--bond-wei: %q is not a non-negative integer", bondWei)}
			}
			if confirmations == 0 {
				return &exitError{code: 2, err: fmt.Errorf("--confirmations must be at least 1")}
			}
			d := chain.DeployConfig{Bond: bond, ReviewPeriod: review, AssignTimeout: assign, RuleTimeout: rule}
			if err := d.Validate(); err != nil {
				return &exitError{code: 2, err: err}
			}
			dir, err := kf.resolveDataDir()
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			pass, err := kf.passphrase(cmd, false)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			kr, err := identity.Open(identity.DefaultConfig(dir), pass)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			return deployContracts(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), rpc, chainID, confirmations, kr.EVM(), d)
		},
	}
	cmd.Flags().StringVar(&kf.dataDir, "data-dir", "", "data directory whose EVM key pays (default $PARLEY_DATA_DIR, else ~/.parley)")
	kf.registerPassphrase(cmd)
	cmd.Flags().StringVar(&rpc, "rpc", "", "the chain's JSON-RPC endpoint (http, https, ws, wss or an IPC path)")
	cmd.Flags().Uint64Var(&chainID, "chain-id", 0, "refuse to deploy unless the endpoint's chain id is this (0: any)")
	cmd.Flags().StringVar(&bondWei, "bond-wei", dc.Bond.String(), "the bond, in wei, a party posts to open a dispute")
	cmd.Flags().DurationVar(&review, "review-period", dc.ReviewPeriod, "how long a poster has to answer a proof before the worker may claim the milestone")
	cmd.Flags().DurationVar(&assign, "assign-timeout", dc.AssignTimeout, "how long a dispute's parties have to agree on an arbitrator")
	cmd.Flags().DurationVar(&rule, "rule-timeout", dc.RuleTimeout, "how long an assigned arbitrator has to rule")
	cmd.Flags().Uint64Var(&confirmations, "confirmations", 1, "blocks (counting the one that includes a transaction) before it counts")
	return cmd
}

// deployContracts deploys the contracts paid by key and prints the
// configuration block that names them.
func deployContracts(ctx context.Context, out, errOut io.Writer, rpc string, wantChain, confirmations uint64, key chain.Signer, dc chain.DeployConfig) error {
	b, err := chain.DialRPC(ctx, rpc)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("chain.rpc %s: %w", rpc, err)}
	}
	defer b.Close()
	id, err := b.ChainID(ctx)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("chain id of %s: %w", rpc, err)}
	}
	if wantChain != 0 && id.Uint64() != wantChain {
		return &exitError{code: 1, err: fmt.Errorf("%s is chain %s, not --chain-id %d: nothing deployed", rpc, id, wantChain)}
	}
	bal, err := b.BalanceAt(ctx, key.Address(), nil)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if bal.Sign() == 0 {
		return &exitError{code: 1, err: fmt.Errorf("%s has no funds on chain %s: fund it first; nothing deployed", key.Address().Hex(), id)}
	}
	fmt.Fprintf(errOut, "deploying from %s on chain %s (%s)...\n", key.Address().Hex(), id, rpc)
	cfg := chain.DefaultConfig()
	cfg.ChainID, cfg.Confirmations = id, confirmations
	a, err := chain.Deploy(ctx, b, key, cfg, dc, nil)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if err := chain.CheckDeployed(ctx, b, a); err != nil {
		return &exitError{code: 1, err: err}
	}
	hex := func(x common.Address) string { return x.Hex() }
	fmt.Fprintf(out, "# Parley contracts on chain %s; put this in every node's parley.yaml\nchain:\n  rpc: %q\n  chain_id: %s\n  confirmations: %d\n  contracts:\n", id, rpc, id, confirmations)
	fmt.Fprintf(out, "    task_registry: %s\n    arbitration_module: %s\n    identity_link: %s\n    task_scope_registry: %s\n    ledger_anchor: %s\n    deploy_block: %d\n",
		hex(a.TaskRegistry), hex(a.ArbitrationModule), hex(a.IdentityLink), hex(a.TaskScopeRegistry), hex(a.LedgerAnchor), a.DeployBlock)
	return nil
}
