package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/node"
)

// APIKeyFileName is the bearer key of the node's local HTTP API, in its
// data directory.
const APIKeyFileName = "api.key"

// devchainContracts are the contracts `parley devchain` and `parley devnet`
// deploy on a fresh chain: the deployer and its nonces are fixed, so the
// addresses are too (TestDevnetContractsAreDeterministic checks them).
var devchainContracts = chain.Addresses{
	TaskRegistry:      common.HexToAddress("0x1227Ff8B8eB13fEA21b67f59F1EF948620c2869D"),
	ArbitrationModule: common.HexToAddress("0x2D98F383e973909209ded391EC7c7190eB8306a5"),
	IdentityLink:      common.HexToAddress("0x2BB8282a489f8Deec89c0564183cA8f4244EB767"),
	TaskScopeRegistry: common.HexToAddress("0xec7f0563767eE1fD209f65E1c1C319700d546b38"),
	LedgerAnchor:      common.HexToAddress("0x8Be973d1f256E5292e6EaE289abFe24AB784e57D"),
	DeployBlock:       1,
}

// roleSettings returns the settings parley init writes for a role: the
// role's name, loopback ports of its own, passkey approval and the local
// dev chain (`parley devchain`), which a real deployment replaces.
func roleSettings(role string) (settings, error) {
	s := defaultSettings()
	ports := map[string]int{"poster": 4001, "worker": 4002, "arbitrator": 4003, "node": 4000}
	port, ok := ports[role]
	if !ok {
		return s, fmt.Errorf("role %q is not poster, worker, arbitrator or node", role)
	}
	s.Node.Name = role
	s.Node.P2P.Listen = []string{fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", port), fmt.Sprintf("/ip4/127.0.0.1/udp/%d/quic-v1", port)}
	s.MetricsListen = fmt.Sprintf("127.0.0.1:%d", 9464+port-4000)
	s.APIListen = fmt.Sprintf("127.0.0.1:%d", 7464+port-4000)
	s.WebListen = fmt.Sprintf("localhost:%d", 7480+port-4000)
	deriveOrigins(&s)
	// VXP stays off until its public URL is set (docs/node.md, "VXP").
	s.VXP.Listen = fmt.Sprintf("127.0.0.1:%d", 7500+port-4000)
	s.Node.Chain.RPC = "http://127.0.0.1:8545"
	s.Node.Chain.ChainID = 1337
	s.Node.Chain.Contracts = devchainContracts
	s.Node.Ledger.AnchorEvery = node.DevAnchorEvery // the dev chain's gas is free: anchor by default
	switch role {
	case "poster":
		s.Node.Capabilities = []string{"translation"}
		s.APIOffers = []string{"translation"}
	case "worker":
		s.Node.Capabilities = []string{"translation", "proofreading"}
	case "arbitrator":
		s.Node.Capabilities = []string{"arbitration"}
	}
	return s, nil
}

func newInitCmd() *cobra.Command { return initCmd(nil) }

// initCmd builds the init command; tune, when not nil, adjusts the key
// configuration (tests lower the scrypt costs with it).
func initCmd(tune func(*identity.Config)) *cobra.Command {
	var (
		f    keysFlags
		role string
		kem  string
	)
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create a node's data directory: keys, identity link, configuration file, API key",
		Long: "Creates a data directory for a new node: the inbox, EVM and encryption keys encrypted under a\n" +
			"passphrase (from --passphrase-file, $PARLEY_PASSPHRASE or a prompt), the signed identity link\n" +
			"that binds them, a configuration file (" + ConfigFileName + ") for the role, the bearer key of\n" +
			"the node's local HTTP API (" + APIKeyFileName + ") and a one-time token that enrols the first\n" +
			"passkey of the node's principal, printed and written to " + node.EnrolTokenFileName + " (mode 0600): only\n" +
			"the data directory holds it, the API never issues one, so its key cannot enrol a passkey.\n" +
			"Once the node runs, open its pages (web.listen, http://localhost:<port>), register a passkey\n" +
			"with the token, and approve each gated act there. It refuses to overwrite anything that exists and prints what it made. The\n" +
			"configuration points at a local `parley devchain`; edit chain.rpc, chain.contracts and\n" +
			"p2p.bootstrap for a real chain and real peers.",
		Example: "  parley init --data-dir ~/.parley-worker --role worker\n" +
			"  PARLEY_PASSPHRASE=... parley init --data-dir /srv/parley --role poster",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := f.resolveDataDir()
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			s, err := roleSettings(role)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			kcfg := identity.DefaultConfig(dir)
			kcfg.KEM = identity.KEM(kem)
			if tune != nil {
				tune(&kcfg)
			}
			if err := kcfg.Validate(); err != nil {
				return &exitError{code: 2, err: err}
			}
			cfgPath := filepath.Join(dir, ConfigFileName)
			keyPath := filepath.Join(dir, APIKeyFileName)
			for _, p := range []string{identity.KeysDir(dir), cfgPath, keyPath, filepath.Join(dir, node.ApprovalsDirName), filepath.Join(dir, node.TokensFileName)} {
				if _, err := os.Stat(p); err == nil {
					return &exitError{code: 1, err: fmt.Errorf("%s exists; refusing to overwrite it", p)}
				} else if !errors.Is(err, os.ErrNotExist) {
					return &exitError{code: 1, err: err}
				}
			}
			pass, err := f.passphrase(cmd, true)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return &exitError{code: 1, err: err}
			}
			k, err := identity.Create(kcfg, pass, time.Now())
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if err := writeNew(cfgPath, renderConfig(s, "Parley node configuration ("+role+"), made by parley init."), 0o600); err != nil {
				return &exitError{code: 1, err: err}
			}
			var key [32]byte
			if _, err := rand.Read(key[:]); err != nil {
				return err
			}
			if err := writeNew(keyPath, []byte(hex.EncodeToString(key[:])+"\n"), 0o600); err != nil {
				return &exitError{code: 1, err: err}
			}
			now := time.Now()
			token, err := node.IssueEnrolToken(cmd.Context(), dir, now, approval.DefaultEnrolTokenTTL)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			w := cmd.OutOrStdout()
			h := k.Link().Hash()
			fmt.Fprintf(w, "created a %s node in %s\n", role, dir)
			fmt.Fprintf(w, "  keys:          %s (inbox, EVM, encryption; encrypted under the passphrase)\n", k.Dir())
			fmt.Fprintf(w, "  identity link: %s (0x%x, expires %s)\n", filepath.Join(k.Dir(), identity.LinkFileName), h, k.Link().ExpiresAt.Format(time.RFC3339))
			fmt.Fprintf(w, "  config:        %s\n", cfgPath)
			fmt.Fprintf(w, "  API key:       %s\n", keyPath)
			fmt.Fprintf(w, "  peer id:       %s\n", k.Inbox().PeerID())
			fmt.Fprintf(w, "  EVM address:   %s (fund it before posting or accepting tasks)\n", k.EVM().Address().Hex())
			fmt.Fprintf(w, "  passkey token: %s\n", token)
			fmt.Fprintf(w, "                 (one-time; it enrols the first passkey of this node's principal until %s;\n", now.Add(approval.DefaultEnrolTokenTTL).UTC().Format(time.RFC3339))
			fmt.Fprintf(w, "                 also in %s, mode 0600: only the data directory holds it, the API issues none)\n", filepath.Join(dir, node.EnrolTokenFileName))
			fmt.Fprintf(w, "next: parley node run --data-dir %s\n", dir)
			if _, port, err := net.SplitHostPort(s.WebListen); err == nil {
				page := "http://localhost:" + port
				fmt.Fprintf(w, "then: open %s/passkeys, register your first passkey with the token,\n      and approve each pending act at %s\n", page, page)
			}
			return nil
		},
	}
	f.register(cmd)
	f.registerPassphrase(cmd)
	cmd.Flags().StringVar(&role, "role", "node", "role the configuration is made for: poster, worker, arbitrator or node")
	cmd.Flags().StringVar(&kem, "kem", string(identity.KEMMLKEM768X25519), "KEM of the encryption key: MLKEM768-X25519 or X25519")
	return cmd
}

// writeNew creates path with data, failing if it exists.
func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
