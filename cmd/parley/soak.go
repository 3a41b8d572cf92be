package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node/soak"
)

func newSoakCmd() *cobra.Command {
	var (
		dir   string
		keep  bool
		light bool
		phase time.Duration
	)
	cmd := &cobra.Command{
		Use:   "soak",
		Short: "Attack a devnet for a few minutes while honest traffic goes on, and report what each attack cost",
		Long: "Starts `parley devnet` as `parley demo` does, and plays four phases against its worker, each\n" +
			"--phase long with honest traffic beside it (the poster posts a task a second, the worker counters\n" +
			"each one it sees): a baseline without an attack; hostile peers (garbage floods on\n" +
			"/parley/envelope/1 from peers without and with a throw-away identity, and 95 peers that connect\n" +
			"and never identify); a board flood (throw-away identities publishing valid junk announcements\n" +
			"through the poster, and 300 posts asked of the poster's API at once); an MCP session flood\n" +
			"(10,000 openings without a credential, 200 with the agent key). Per phase it prints the attempts,\n" +
			"what the worker accepted, the ledger entries it wrote (by kind, and how many belong to the honest\n" +
			"traffic), the honest messages delivered, lost and delayed, and the worker's RSS and goroutines\n" +
			"before and after; then the same as a Markdown table. Everything stays on loopback.",
		Example: "  make soak\n  parley soak --phase 1m --dir /tmp/parley-soak --keep",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				tmp, err := os.MkdirTemp("", "parley-soak-")
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				if !keep {
					defer os.RemoveAll(tmp)
				}
				dir = tmp
			}
			return runSoak(cmd, dir, phase, light)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "devnet directory (default: a temporary directory, removed afterwards)")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary directory (chain, ledgers, logs) afterwards")
	cmd.Flags().DurationVar(&phase, "phase", 45*time.Second, "how long each phase lasts")
	cmd.Flags().BoolVar(&light, "insecure-light-keys", false, "encrypt the devnet's new keys with test-strength scrypt (tests only)")
	_ = cmd.Flags().MarkHidden("insecure-light-keys")
	return cmd
}

func runSoak(cmd *cobra.Command, dir string, phase time.Duration, light bool) error {
	ctx, out := cmd.Context(), cmd.OutOrStdout()
	start := time.Now()
	dn, err := startDevnetProcess(ctx, out, dir, light)
	if err != nil {
		return err
	}
	st, err := devnetLoadState(dn.dir, nil)
	if err != nil {
		return dn.fail(err)
	}
	nodes := map[string]soak.Node{}
	for _, role := range []string{"poster", "worker"} {
		p := st.Nodes[role]
		key, err := readAPIKey(p.APIKeyFile)
		if err != nil {
			return dn.fail(err)
		}
		nodes[role] = soak.Node{
			Name: role, API: dn.parties[role].API, Key: key,
			MetricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", p.Metrics),
			LedgerDir:  filepath.Join(dn.dir, role, "ledger"),
		}
	}
	fmt.Fprintf(out, "devnet up in %s; soaking the worker, %s a phase\n", time.Since(start).Round(100*time.Millisecond), phase)
	rep, err := soak.Run(ctx, out, soak.Options{Poster: nodes["poster"], Worker: nodes["worker"], Phase: phase})
	if err != nil {
		return dn.fail(err)
	}
	if err := dn.stop(); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("the devnet did not stop cleanly: %w\n%s", err, tail(dn.logPath, 40))}
	}
	if err := soak.CountEntries(ctx, rep, "worker", nodes["worker"].LedgerDir); err != nil {
		return &exitError{code: 1, err: err}
	}
	printSoak(out, rep)
	fmt.Fprintf(out, "soak done in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// printSoak prints the report as the Markdown table docs/benchmarks.md
// keeps, and each phase's ledger entries by kind.
func printSoak(w io.Writer, rep *soak.Report) {
	fmt.Fprintf(w, "\n| phase | attempts | accepted | worker ledger entries (honest / other) | honest delivered / lost (429: waits) | latency p50 / max | worker RSS before -> after (heap in use) | goroutines before -> after |\n")
	fmt.Fprintf(w, "| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, ph := range rep.Phases {
		h := ph.Honest
		total := int(ph.To - ph.From)
		fmt.Fprintf(w, "| %s | %d | %d | %d (%d / %d) | %d / %d (%d) | %s / %s | %.0f -> %.0f MiB (%.0f -> %.0f) | %.0f -> %.0f |\n",
			ph.Name, ph.Attempts, ph.Accepted, total, ph.HonestEntries, total-ph.HonestEntries,
			h.Delivered+h.CounterDelivered, h.Lost+h.CounterLost, h.Throttled,
			h.P50.Round(time.Millisecond), h.Max.Round(time.Millisecond),
			ph.Before.RSS/(1<<20), ph.After.RSS/(1<<20), ph.Before.HeapInUse/(1<<20), ph.After.HeapInUse/(1<<20), ph.Before.Goroutines, ph.After.Goroutines)
	}
	fmt.Fprintln(w)
	for _, ph := range rep.Phases {
		kinds := make([]string, 0, len(ph.Entries))
		for k := range ph.Entries {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, ph.Entries[k])
		}
		fmt.Fprintf(w, "%s: worker ledger entries by kind: %s\n", ph.Name, strings.Join(parts, ", "))
	}
}
