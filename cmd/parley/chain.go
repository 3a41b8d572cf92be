package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

func newSettlementCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "settlement",
		Short: "Work with EIP-712 settlements",
	}
	cmd.AddCommand(newSettlementDigestCmd())
	return cmd
}

func newSettlementDigestCmd() *cobra.Command {
	var (
		chainID     string
		contract    string
		digestOnly  bool
		compactJSON bool
	)
	cmd := &cobra.Command{
		Use:   "digest FILE|-",
		Short: "Print a settlement's full EIP-712 typed data and its digest",
		Long: "Reads {\"domain\": {\"chainId\", \"verifyingContract\"}, \"settlement\": {...}} as JSON and prints\n" +
			"{\"typedData\": {types, primaryType, domain, message}, \"digest\"}: the typed data exactly as a wallet\n" +
			"(eth_signTypedData_v4) or a library takes it, and the digest both parties sign, which is also\n" +
			"the task id on chain. --chain-id and --verifying-contract replace the input's domain.\n" +
			"Bad input prints its rejection code and exits 1.",
		Example: "  parley settlement digest settlement.json\n" +
			"  parley settlement digest --chain-id 1337 --verifying-contract 0x... - < settlement.json",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(cmd, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			var override *negotiation.Domain
			if chainID != "" || contract != "" {
				override, err = domainFlags(chainID, contract)
				if err != nil {
					fmt.Fprintf(cmd.OutOrStdout(), "%s\n", negotiation.CodeOf(err))
					return &exitError{code: 1, err: err}
				}
			}
			d, s, err := chain.ParseSettlementInput(b, override)
			if err != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\n", negotiation.CodeOf(err))
				return &exitError{code: 1, err: err}
			}
			out, err := chain.SettlementDigest(d, s)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if digestOnly {
				fmt.Fprintln(cmd.OutOrStdout(), out.Digest)
				return nil
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			if !compactJSON {
				enc.SetIndent("", "  ")
			}
			return enc.Encode(out)
		},
	}
	cmd.Flags().StringVar(&chainID, "chain-id", "", "chain id of the domain (decimal)")
	cmd.Flags().StringVar(&contract, "verifying-contract", "", "TaskRegistry address of the domain (EIP-55)")
	cmd.Flags().BoolVar(&digestOnly, "digest-only", false, "print only the digest")
	cmd.Flags().BoolVar(&compactJSON, "compact", false, "print the JSON on one line")
	return cmd
}

func domainFlags(chainID, contract string) (*negotiation.Domain, error) {
	if chainID == "" || contract == "" {
		return nil, &negotiation.Error{Code: negotiation.CodeSchemaInvalid, Field: "domain", Msg: "--chain-id and --verifying-contract go together"}
	}
	var id negotiation.Uint256
	if err := id.UnmarshalText([]byte(chainID)); err != nil {
		return nil, err
	}
	addr, err := negotiation.ParseAddress(contract)
	if err != nil {
		return nil, err
	}
	return &negotiation.Domain{ChainID: id.Big(), VerifyingContract: [20]byte(addr)}, nil
}

// devchainInfo is what `parley devchain --json` prints once the chain runs.
type devchainInfo struct {
	RPCURL    string            `json:"rpcUrl"`
	ChainID   string            `json:"chainId"`
	DataDir   string            `json:"dataDir,omitempty"`
	Contracts chain.Addresses   `json:"contracts"`
	Accounts  []devchainAccount `json:"accounts"`
}

type devchainAccount struct {
	Address    string `json:"address"`
	PrivateKey string `json:"privateKey"`
	Balance    string `json:"balance"`
}

func newDevchainCmd() *cobra.Command {
	var (
		dataDir   string
		ephemeral bool
		port      int
		chainID   uint64
		period    time.Duration
		host      string
		accounts  int
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "devchain",
		Short: "Run the embedded development chain with Parley's contracts deployed",
		Long: "Starts an embedded go-ethereum chain (like geth --dev) serving JSON-RPC on 127.0.0.1,\n" +
			"with funded dev accounts and the contracts deployed on first start. State is kept in\n" +
			"the data directory and survives restarts. Prints the RPC URL, chain id, contract\n" +
			"addresses and dev accounts (their keys are public: dev use only), then runs until Ctrl-C.",
		Example: "  parley devchain\n  parley devchain --ephemeral --http-port 0 --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := chain.DefaultDevchainConfig()
			if !ephemeral {
				if dataDir == "" {
					base := os.Getenv("PARLEY_DATA_DIR")
					if base == "" {
						home, err := os.UserHomeDir()
						if err != nil {
							return &exitError{code: 2, err: err}
						}
						base = filepath.Join(home, ".parley")
					}
					dataDir = filepath.Join(base, "devchain")
				}
				cfg.DataDir = dataDir
			}
			cfg.HTTPPort, cfg.HTTPHost = port, host
			cfg.ChainID = new(big.Int).SetUint64(chainID)
			cfg.Period = period
			cfg.Accounts = accounts
			cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelInfo}))

			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			d, err := chain.StartDevchain(ctx, cfg)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			defer d.Close()
			printDevchain(cmd, d, cfg, asJSON)
			<-ctx.Done()
			if err := d.Close(); err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "devchain stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "chain data directory (default $PARLEY_DATA_DIR/devchain, else ~/.parley/devchain)")
	cmd.Flags().BoolVar(&ephemeral, "ephemeral", false, "keep the chain in memory only")
	cmd.Flags().IntVar(&port, "http-port", 8545, "JSON-RPC port (0 picks a free one)")
	cmd.Flags().StringVar(&host, "http-host", "127.0.0.1", "JSON-RPC address (an IP; beyond loopback only on a network of your own: the dev accounts' keys are public)")
	cmd.Flags().Uint64Var(&chainID, "chain-id", 1337, "chain id")
	cmd.Flags().DurationVar(&period, "period", 0, "seal a block every period (0: as soon as a transaction arrives)")
	cmd.Flags().IntVar(&accounts, "accounts", 4, "number of funded dev accounts")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the chain's details as one JSON line")
	return cmd
}

func printDevchain(cmd *cobra.Command, d *chain.Devchain, cfg chain.DevchainConfig, asJSON bool) {
	info := devchainInfo{RPCURL: d.URL, ChainID: d.ChainID.String(), DataDir: cfg.DataDir, Contracts: d.Contracts}
	for _, a := range d.Accounts {
		info.Accounts = append(info.Accounts, devchainAccount{
			Address:    a.Address.Hex(),
			PrivateKey: "0x" + hex.EncodeToString(crypto.FromECDSA(a.Key)),
			Balance:    cfg.Balance.String(),
		})
	}
	w := cmd.OutOrStdout()
	if asJSON {
		b, _ := json.Marshal(info)
		fmt.Fprintln(w, string(b))
		return
	}
	fmt.Fprintf(w, "RPC URL:            %s\n", info.RPCURL)
	fmt.Fprintf(w, "Chain ID:           %s\n", info.ChainID)
	if info.DataDir != "" {
		fmt.Fprintf(w, "Data directory:     %s\n", info.DataDir)
	} else {
		fmt.Fprintf(w, "Data directory:     (in memory)\n")
	}
	fmt.Fprintf(w, "TaskRegistry:       %s\n", d.Contracts.TaskRegistry.Hex())
	fmt.Fprintf(w, "ArbitrationModule:  %s\n", d.Contracts.ArbitrationModule.Hex())
	fmt.Fprintf(w, "IdentityLink:       %s\n", d.Contracts.IdentityLink.Hex())
	fmt.Fprintf(w, "TaskScopeRegistry:  %s\n", d.Contracts.TaskScopeRegistry.Hex())
	fmt.Fprintf(w, "LedgerAnchor:       %s\n", d.Contracts.LedgerAnchor.Hex())
	fmt.Fprintf(w, "Dev accounts (keys are public, dev use only; %s wei each):\n", cfg.Balance)
	for i, a := range info.Accounts {
		fmt.Fprintf(w, "  (%d) %s  %s\n", i, a.Address, a.PrivateKey)
	}
	fmt.Fprintln(w, "Press Ctrl-C to stop.")
}
