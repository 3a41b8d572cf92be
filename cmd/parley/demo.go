package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/node/demo"
	"github.com/parleynet/parley/node/testbed"
	"github.com/parleynet/parley/strictjson"
)

func newDemoCmd() *cobra.Command {
	var (
		dir   string
		keep  bool
		light bool
		wait  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Play Parley's whole story on a devnet (chain, contracts, three node processes) and check every step",
		Long: "Starts `parley devnet` (the embedded EVM dev chain with Parley's contracts,\n" +
			"and a poster, a worker and an arbitrator node, each a separate process on loopback) and plays\n" +
			"two tasks through the nodes' HTTP APIs. First the poster's and the worker's principals seal their\n" +
			"intent cards (node/demo/cards). Task 1: the poster posts a task on the board, the worker finds it\n" +
			"and counters at 0.6 ETH, which crosses the poster's card (never more than 0.55 ETH): the poster's\n" +
			"node refuses to sign, pauses the negotiation and asks its principal, who answers through the API\n" +
			"as `parley escalations answer` does; the answer is sealed into the card and the exchange resumes;\n" +
			"both sign one EIP-712 settlement digest, the poster funds escrow, the\n" +
			"worker delivers two files (their CIDs on chain) which the poster fetches over the blob protocol\n" +
			"and checks, the poster releases each milestone (part of the second one first: the worker asks for\n" +
			"two hours of work, the poster releases them with releasePart) and the worker withdraws. Task 2: a dispute; both\n" +
			"parties propose the same arbitrator, which joins from a version-2 proof bundle (the demo prints\n" +
			"`parley bundle verify --rpc` of it: its inclusion proofs, the signed tree head and the anchored\n" +
			"head on chain) and refuses to rule (the\n" +
			"contract unassigns it); the parties name it again, it reads the evidence (also on the dispute's\n" +
			"topic) and rules 70/30; everyone withdraws. Task 3: an outside AI agent that runs no Parley code\n" +
			"(scripts/vxp-agent.mjs: Node.js with npm oauth4webapi and jose, from the RFCs) answers the poster's\n" +
			"offer for the worker's principal through the worker's VXP endpoint: discovery, a DPoP-bound token,\n" +
			"202 authorization_required, a device authorization the principal approves with its passkey\n" +
			"(offer.respond on that negotiation only), a counter the poster then holds, a stale accept refused\n" +
			"(terms_changed), the request's signed proof verified with the issuer's keys, the worker's\n" +
			"settlement waiting for its passkey, and the relationship revoked; the poster signs the same digest\n" +
			"(without Node.js or the npm packages, `make npm`, task 3 is skipped and the demo says why).\n" +
			"Every gated act waits in its node's\n" +
			"approval gate until the demo approves it through the API with the node's software key (a passkey\n" +
			"of its principal the devnet registered): the request's WebAuthn options, the key's assertion over\n" +
			"its intent hash, the receipt the act then consumes, as `parley approvals approve --software-key`\n" +
			"does. Balances, transactions and ledger heads are printed; a proof bundle\n" +
			"is exported and verified; the story ends with each side's decision brief of task 1. Exits non-zero if any step did not really happen; the devnet's log is\n" +
			"then printed.",
		Example: "  make demo\n  parley demo --dir /tmp/parley-demo --keep",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				tmp, err := os.MkdirTemp("", "parley-demo-")
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				if !keep {
					defer os.RemoveAll(tmp)
				}
				dir = tmp
			}
			return runDemo(cmd.Context(), cmd.OutOrStdout(), dir, wait, light)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "devnet directory (default: a temporary directory, removed afterwards)")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary directory (chain, ledgers, logs) afterwards")
	cmd.Flags().DurationVar(&wait, "wait", time.Minute, "how long one step may wait for something to happen at a node")
	cmd.Flags().BoolVar(&light, "insecure-light-keys", false, "encrypt the devnet's new keys with test-strength scrypt (tests only)")
	_ = cmd.Flags().MarkHidden("insecure-light-keys")
	return cmd
}

// runDemo starts a devnet process in dir, plays the story over its nodes'
// APIs and stops the devnet.
func runDemo(ctx context.Context, out io.Writer, dir string, wait time.Duration, lightKeys bool) error {
	start := time.Now()
	dn, err := startDevnetProcess(ctx, out, dir, lightKeys)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "devnet up in %s: dev chain, contracts, poster, worker and arbitrator nodes\n\n", time.Since(start).Round(100*time.Millisecond))
	played := time.Now()
	opts := demo.Options{
		Poster: dn.parties["poster"], Worker: dn.parties["worker"], Arbitrator: dn.parties["arbitrator"], Wait: wait,
		VerifyOnChain: dn.verifyOnChain,
	}
	if script, nodeBin, err := agentScriptFor(); err != nil {
		opts.OutsideAgentSkipped = err.Error()
	} else {
		opts.OutsideAgent = demoOutsideAgent(dn, script, nodeBin, wait)
	}
	if err := demo.Run(ctx, out, opts); err != nil {
		return dn.fail(err)
	}
	fmt.Fprintf(out, "\nstory played in %s; stopping the devnet\n", time.Since(played).Round(100*time.Millisecond))
	if err := dn.stop(); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("the devnet did not stop cleanly: %w\n%s", err, tail(dn.logPath, 40))}
	}
	fmt.Fprintf(out, "demo passed in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

// devnetProcess is a `parley devnet` child process that the demo and the
// soak drive: its directory, log, and each node's API client and key.
type devnetProcess struct {
	dir, logPath string
	out          io.Writer
	cmd          *exec.Cmd
	exited       chan error
	stopped      bool
	logf         *os.File
	parties      map[string]demo.Party
}

// startDevnetProcess starts `parley devnet` in dir/devnet (chain port 0,
// approval mode passkey), its output in dir/devnet.log, and waits until
// every node answers with a chain, its peers and a registered software
// key.
func startDevnetProcess(ctx context.Context, out io.Writer, dir string, lightKeys bool) (*devnetProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, &exitError{code: 1, err: err}
	}
	d := &devnetProcess{dir: filepath.Join(dir, "devnet"), logPath: filepath.Join(dir, "devnet.log"), out: out, exited: make(chan error, 1)}
	if d.logf, err = os.OpenFile(d.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
		return nil, &exitError{code: 1, err: err}
	}
	args := []string{"devnet", "--dir", d.dir, "--chain-port", "0", "--approval", ApprovalPasskey}
	if lightKeys {
		args = append(args, "--insecure-light-keys")
	}
	d.cmd = exec.Command(exe, args...)
	d.cmd.Stdout, d.cmd.Stderr = d.logf, d.logf
	d.cmd.Env = os.Environ()
	stopWithParent(d.cmd)
	if err := d.cmd.Start(); err != nil {
		d.logf.Close()
		return nil, &exitError{code: 1, err: fmt.Errorf("starting the devnet: %w", err)}
	}
	go func() { d.exited <- d.cmd.Wait() }()
	fmt.Fprintf(out, "starting the devnet in %s (log: %s)\n", d.dir, d.logPath)
	if d.parties, err = demoParties(ctx, d.dir, d.exited, 2*time.Minute); err != nil {
		return nil, d.fail(err)
	}
	return d, nil
}

// stop interrupts the devnet and waits for it (45 s, then it is killed).
func (d *devnetProcess) stop() error {
	if d.stopped {
		return nil
	}
	d.stopped = true
	defer d.logf.Close()
	_ = d.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-d.exited:
		return err
	case <-time.After(45 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.exited
		return errors.New("the devnet did not stop within 45 s and was killed")
	}
}

// fail stops the devnet, prints err and the end of the devnet's log, and
// returns the exit error.
func (d *devnetProcess) fail(err error) error {
	_ = d.stop()
	fmt.Fprintf(d.out, "\nFAILED: %v\nlast lines of the devnet's log (%s):\n%s", err, d.logPath, tail(d.logPath, 40))
	return &exitError{code: 1, err: err}
}

// demoParties waits until devnet.json names every node's API and its
// registered software key and each API answers, and returns a client and
// the key of each.
func demoParties(ctx context.Context, dir string, exited <-chan error, limit time.Duration) (map[string]demo.Party, error) {
	deadline := time.Now().Add(limit)
	parties := map[string]demo.Party{}
	for len(parties) < len(devnetRoles) {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("the devnet exited while starting: %v", err)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the devnet's nodes did not answer within %s", limit)
		}
		b, err := os.ReadFile(filepath.Join(dir, "devnet.json"))
		if err != nil {
			continue
		}
		var st devnetState
		if err := strictjson.Unmarshal(b, &st); err != nil {
			continue // being written
		}
		for _, role := range devnetRoles {
			p := st.Nodes[role]
			if _, ok := parties[role]; ok || p.APIURL == "" || p.APIKeyFile == "" || p.SoftwareKeyFile == "" {
				continue
			}
			sk, err := loadSoftwareKey(p.SoftwareKeyFile)
			if err != nil {
				return nil, err
			}
			key, err := readAPIKey(p.APIKeyFile)
			if err != nil {
				continue
			}
			c, err := api.NewClient(p.APIURL, key)
			if err != nil {
				return nil, err
			}
			sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			st, err := c.Status(sctx)
			cancel()
			// A node is ready once it has a chain and its peers.
			if err != nil || !st.Chain {
				continue
			}
			peers, err := c.Peers(ctx)
			if err != nil || len(peers) < len(devnetRoles)-1 {
				continue
			}
			path := p.SoftwareKeyFile
			parties[role] = demo.Party{Name: role, API: c, Key: sk, Saved: func() error { return saveSoftwareKey(path, sk) }}
		}
	}
	return parties, nil
}

// verifyOnChain writes bundle beside the devnet and runs `parley bundle
// verify --rpc` of it, in this process, against the devnet's chain with
// the arbitrator's configuration (its contracts): the command a person
// would type, and what it printed.
func (d *devnetProcess) verifyOnChain(ctx context.Context, bundle []byte) (string, string, error) {
	dataDir := filepath.Join(d.dir, "arbitrator")
	fs := pflag.NewFlagSet("demo", pflag.ContinueOnError)
	fs.String("data-dir", "", "")
	if err := fs.Set("data-dir", dataDir); err != nil {
		return "", "", err
	}
	s, err := loadSettings(fs, func(string) string { return "" })
	if err != nil {
		return "", "", err
	}
	file := filepath.Join(filepath.Dir(d.dir), "arbitrator.bundle.json")
	if err := os.WriteFile(file, bundle, 0o600); err != nil {
		return "", "", err
	}
	args := []string{"bundle", "verify", file, "--rpc", s.Node.Chain.RPC, "--data-dir", dataDir}
	var out bytes.Buffer
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	err = root.ExecuteContext(ctx)
	return "parley " + strings.Join(args, " "), out.String(), err
}

// tail returns the last n lines of a file, indented (testbed.Tail).
func tail(path string, n int) string { return testbed.Tail(path, n) }
