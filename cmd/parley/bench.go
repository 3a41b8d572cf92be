package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node/loadtest"
)

func newBenchCmd() *cobra.Command {
	cfg := loadtest.DefaultConfig()
	var (
		asJSON     bool
		noBaseline bool
		cpuProfile string
		verbose    bool
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Load: one worker node against many counterparty nodes on loopback; throughput, latency, CPU, memory",
		Long: "Starts one worker node and --counterparties counterparty nodes in this process, each a real node\n" +
			"(own keys and Badger ledger in a temporary directory, libp2p on 127.0.0.1, automatic approval).\n" +
			"Each counterparty loops: propose a task directly to the worker, wait for the worker's acceptance,\n" +
			"accept, and wait until the worker holds the agreement (with --fund, then fund the escrow on an\n" +
			"embedded dev chain). The worker accepts every proposal it receives. After --warmup it measures\n" +
			"--duration: negotiations per second, latency p50/p95/p99, the process's CPU time per\n" +
			"negotiation (user+sys), peak RSS (VmHWM) and Go heap. First the same with one counterparty\n" +
			"as a baseline (--no-baseline skips it); the report gives the ratio. CPU and memory are the\n" +
			"whole process's, counterparties included: --cpuprofile writes a profile of the load window whose\n" +
			"samples carry the label node=worker|counterparty|chain (go tool pprof -tags FILE).",
		Example: "  parley bench\n" +
			"  parley bench --counterparties 10 --duration 10s --json\n" +
			"  parley bench --fund --cpuprofile /tmp/bench.prof",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.Baseline = !noBaseline
			if !cmd.Flags().Changed("baseline-duration") {
				cfg.BaselineDuration = cfg.Duration
			}
			if err := cfg.Validate(); err != nil {
				return &exitError{code: 2, err: err}
			}
			if !asJSON {
				cfg.Progress = cmd.ErrOrStderr()
			}
			if verbose {
				cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			}
			if cpuProfile != "" {
				f, err := os.OpenFile(cpuProfile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				defer f.Close()
				cfg.CPUProfile = f
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			rep, err := loadtest.Run(ctx, cfg)
			if err != nil {
				if errors.Is(err, ctx.Err()) {
					return &exitError{code: 1, err: errors.New("interrupted")}
				}
				return &exitError{code: 1, err: err}
			}
			if asJSON {
				b, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(cmd.OutOrStdout(), string(b))
				return err
			}
			printBench(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&cfg.Counterparties, "counterparties", cfg.Counterparties, "counterparty nodes driving the worker at once")
	fl.DurationVar(&cfg.Duration, "duration", cfg.Duration, "measured window of the load phase")
	fl.DurationVar(&cfg.Warmup, "warmup", cfg.Warmup, "unmeasured time before each window")
	fl.BoolVar(&noBaseline, "no-baseline", false, "skip the one-counterparty baseline")
	fl.DurationVar(&cfg.BaselineDuration, "baseline-duration", cfg.BaselineDuration, "measured window of the baseline (default: --duration)")
	fl.BoolVar(&cfg.Fund, "fund", false, "also fund each agreed task on an embedded dev chain (proposal to funded escrow)")
	fl.DurationVar(&cfg.PollInterval, "poll", cfg.PollInterval, "how often each node polls the chain (with --fund)")
	fl.DurationVar(&cfg.StepTimeout, "step-timeout", cfg.StepTimeout, "bound on each wait within one negotiation; beyond it the negotiation counts as failed")
	fl.StringVar(&cfg.Dir, "dir", "", "where to make the run's temporary directory (default the system's)")
	fl.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the load window to this new file")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON (no progress lines)")
	fl.BoolVar(&verbose, "verbose", false, "print the nodes' warnings and errors to stderr")
	return cmd
}

func printBench(w io.Writer, rep *loadtest.Report) {
	m := rep.Machine
	fmt.Fprintf(w, "machine:  %s/%s, %d CPUs (GOMAXPROCS %d), %s; load average %.2f before, %.2f after\n",
		m.GOOS, m.GOARCH, m.NumCPU, m.GOMAXPROCS, m.GoVersion, m.LoadBefore[0], m.LoadAfter[0])
	what := "proposal to agreement at both nodes"
	if rep.Fund {
		what = "proposal to funded escrow on the embedded chain"
	}
	fmt.Fprintf(w, "loop:     %s; warm-up %.0fs; setup %.1fs\n", what, rep.WarmupSeconds, rep.SetupSeconds)
	fmt.Fprintf(w, "%-13s %6s %8s %8s %9s %9s %9s %9s %10s %6s %9s %9s %7s\n",
		"phase", "n", "done", "/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "cpu ms/op", "cores", "peak RSS", "heap", "failed")
	row := func(name string, p *loadtest.Phase) {
		done := p.Agreed
		lat := p.Latency
		if p.FundLatency != nil {
			done, lat = p.Funded, *p.FundLatency
		}
		fmt.Fprintf(w, "%-13s %6d %8d %8.1f %9.1f %9.1f %9.1f %9.1f %10.2f %6.2f %9s %9s %7d\n",
			name, p.Counterparties, done, p.PerSecond, lat.P50, lat.P95, lat.P99, lat.Max,
			p.CPUPerNegotiationMS, p.CoresBusy, mib(p.PeakRSSBytes), mib(p.PeakHeapInuseBytes), p.Failed)
	}
	if rep.Baseline != nil {
		row("baseline", rep.Baseline)
	}
	row("load", &rep.Load)
	if rep.Fund {
		fmt.Fprintf(w, "agreement latency under load (before funding): p50 %.1f ms, p95 %.1f ms, p99 %.1f ms\n",
			rep.Load.Latency.P50, rep.Load.Latency.P95, rep.Load.Latency.P99)
	}
	if rep.Baseline != nil {
		fmt.Fprintf(w, "ratio:    %.2fx the throughput of one counterparty\n", rep.Ratio)
	}
	if !rep.Load.PeakRSSWindowOnly {
		fmt.Fprintln(w, "note:     peak RSS is since the process started (VmHWM could not be reset)")
	}
	for _, p := range []*loadtest.Phase{rep.Baseline, &rep.Load} {
		if p == nil {
			continue
		}
		if p.Nudges > 0 {
			fmt.Fprintf(w, "note:     %d waits with %d counterparties went on by reading the thread (an event missed or a slow step)\n", p.Nudges, p.Counterparties)
		}
		for _, e := range p.Errors {
			fmt.Fprintf(w, "error:    %s\n", e)
		}
	}
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
