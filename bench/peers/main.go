// Command peers measures Parley's task board and go-waku's relay side by
// side on this machine (make bench-peers; docs/benchmarks.md "Side by side
// with go-waku"), and Parley's direct send against go-waku's lightpush.
//
// Each measurement is one worker process running one system's nodes, all
// on 127.0.0.1: this binary itself with -worker for Parley, and the
// go-waku worker (bench/waku, a module of its own: go-waku v0.10.0 needs
// its own go-libp2p and its fork of go-libp2p-pubsub, which cannot share a
// build with Parley's) for go-waku. The driver runs them in rounds, the
// two systems alternating (which goes first changes every round), each N
// of a round on the same seeded topology, and prints the report.
package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/parleynet/parley/bench/workload"
)

type options struct {
	ns                        []int
	rounds, k                 int
	seed                      uint64
	bytes                     int
	waku                      string
	only                      string
	messages                  int
	interval, step, drain     time.Duration
	settle, idle, overFor     time.Duration
	rates                     []float64
	overRate                  float64
	seq, conc, senders        int
	profile, wakuProfile, out string
}

func main() {
	worker := flag.Bool("worker", false, "run as the Parley worker: a workload.Plan on stdin, a workload.Result on stdout")
	var o options
	ns := flag.String("n", "10,30,100", "node counts, comma-separated")
	rates := flag.String("rates", "25,50,100,200,400,800,1600", "the rate sweep, messages/s network-wide, comma-separated")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds; the systems alternate within each")
	flag.IntVar(&o.k, "k", 4, "each node dials k seeded-random earlier nodes")
	flag.Uint64Var(&o.seed, "seed", 1, "topology and publisher seed")
	flag.IntVar(&o.bytes, "bytes", 5128, "wire message size")
	flag.StringVar(&o.waku, "waku", "", "the go-waku worker binary (default: build it from ./waku, go build -tags gowaku_no_rln)")
	flag.StringVar(&o.only, "only", "", "run one system only: parley or go-waku")
	flag.IntVar(&o.messages, "messages", 30, "messages in the latency phase")
	flag.DurationVar(&o.interval, "interval", 100*time.Millisecond, "between the latency phase's messages")
	flag.DurationVar(&o.step, "step", time.Second, "publishing time of each rate of the sweep")
	flag.DurationVar(&o.drain, "drain", 3*time.Second, "wait for deliveries after a phase's last publish")
	flag.DurationVar(&o.settle, "settle", 2*time.Second, "wait after every node has a topic peer")
	flag.DurationVar(&o.idle, "idle", 2*time.Second, "the idle CPU baseline")
	flag.Float64Var(&o.overRate, "over-rate", 100, "one publisher's rate in the over-limit phase (Parley's default limit is 50/s)")
	flag.DurationVar(&o.overFor, "over-for", 3*time.Second, "the over-limit phase's length")
	flag.IntVar(&o.seq, "direct-seq", 200, "point to point: messages sent one at a time")
	flag.IntVar(&o.conc, "direct-conc", 2000, "point to point: messages sent concurrently")
	flag.IntVar(&o.senders, "senders", 32, "point to point: concurrent senders")
	flag.StringVar(&o.profile, "cpuprofile", "", "after the rounds, run Parley once more at the largest N with a CPU profile written here")
	flag.StringVar(&o.wakuProfile, "waku-cpuprofile", "", "the same for go-waku")
	flag.StringVar(&o.out, "out", "", "write every worker's result here as JSON")
	flag.Parse()
	if *worker {
		os.Exit(runWorker())
	}
	var err error
	if o.ns, err = ints(*ns); err == nil {
		o.rates, err = floats(*rates)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(2)
	}
	if err := drive(o); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

// runWorker is the Parley worker: one plan, one result.
func runWorker() int {
	// The result goes to the real standard output; anything a library
	// prints to "stdout" goes to standard error instead.
	out := os.Stdout
	os.Stdout = os.Stderr
	p, err := workload.ReadPlan(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx := context.Background()
	res := workload.Result{System: p.System, Mode: p.Mode, Round: p.Round, N: p.N}
	if p.Mode == workload.ModeDirect {
		err = runParleyDirect(ctx, p, &res)
	} else {
		err = runParleyBoard(ctx, p, &res)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "parley worker:", err)
		return 1
	}
	if err := workload.WriteResult(out, res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// drive runs the rounds and prints the report.
func drive(o options) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	systems := []string{workload.SystemParley, workload.SystemWaku}
	if o.only != "" {
		systems = []string{o.only}
	}
	if o.waku == "" && o.only != workload.SystemParley {
		if o.waku, err = buildWaku(); err != nil {
			return err
		}
	}
	bin := map[string][]string{
		workload.SystemParley: {self, "-worker"},
		workload.SystemWaku:   {o.waku},
	}
	rep := &report{opts: o}
	began := time.Now()
	for round := 1; round <= o.rounds; round++ {
		order := systems
		if round%2 == 0 && len(systems) == 2 {
			order = []string{systems[1], systems[0]}
		}
		rep.verify = append(rep.verify, verifyCPU(o.bytes))
		rep.load = append(rep.load, loadAverage())
		for _, n := range o.ns {
			for _, sys := range order {
				res, err := runOne(bin[sys], o.boardPlan(sys, round, n, ""))
				if err != nil {
					return fmt.Errorf("round %d, %s, N=%d: %w", round, sys, n, err)
				}
				rep.add(res)
				logf("round %d %-7s N=%-3d start %5.0f ms  reach p50 %6.1f p99 %6.1f ms  cpu/msg/node %5.0f µs (net %5.0f)  heap/node %5.2f MiB  loss-free %s/s  [%v]",
					round, sys, n, res.StartMs, res.Latency.ReachP50, res.Latency.ReachP99, res.Latency.CPUPerMsgNode, res.Latency.NetCPUPerMsgNode,
					res.HeapMiB/float64(n), lossFree(res), time.Since(began).Round(time.Second))
			}
		}
		for _, sys := range order {
			res, err := runOne(bin[sys], o.directPlan(sys, round))
			if err != nil {
				return fmt.Errorf("round %d, %s, point to point: %w", round, sys, err)
			}
			rep.add(res)
			d := res.Direct
			logf("round %d %-7s point to point: p50 %.2f ms p99 %.2f ms, %.0f msg/s, errors %d  [%v]", round, sys, d.SeqP50, d.SeqP99, d.Rate, d.Errors, time.Since(began).Round(time.Second))
		}
	}
	nmax := o.ns[len(o.ns)-1]
	for sys, path := range map[string]string{workload.SystemParley: o.profile, workload.SystemWaku: o.wakuProfile} {
		if path == "" || !contains(systems, sys) {
			continue
		}
		abs, _ := filepath.Abs(path)
		if _, err := runOne(bin[sys], o.boardPlan(sys, 0, nmax, abs)); err != nil {
			return fmt.Errorf("profile run, %s: %w", sys, err)
		}
		logf("%s: CPU profile of N=%d (latency phase and sweep) in %s; go tool pprof -top %s", sys, nmax, abs, abs)
	}
	rep.load = append(rep.load, loadAverage())
	rep.elapsed = time.Since(began)
	if o.out != "" {
		b, _ := json.MarshalIndent(rep.all, "", "  ")
		if err := os.WriteFile(o.out, b, 0o644); err != nil {
			return err
		}
	}
	rep.print(os.Stdout)
	return nil
}

func (o options) boardPlan(sys string, round, n int, profile string) workload.Plan {
	return workload.Plan{
		System: sys, Mode: workload.ModeBoard, Round: round, N: n,
		Edges: workload.Topology(n, o.k, o.seed), Seed: o.seed, MsgBytes: o.bytes,
		Settle: o.settle, Idle: o.idle, Messages: o.messages, Interval: o.interval, Drain: o.drain,
		Rates: o.rates, Step: o.step, OverRate: o.overRate, OverFor: o.overFor, CPUProfile: profile,
	}
}

func (o options) directPlan(sys string, round int) workload.Plan {
	return workload.Plan{System: sys, Mode: workload.ModeDirect, Round: round, N: 2, Seed: o.seed, MsgBytes: o.bytes,
		Sequential: o.seq, Concurrent: o.conc, Senders: o.senders}
}

// runOne runs one worker: the plan on its stdin, its result from its
// stdout; its stderr goes to ours.
func runOne(argv []string, p workload.Plan) (workload.Result, error) {
	var res workload.Result
	in, _ := json.Marshal(p)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, quietStderr{}
	if err := cmd.Run(); err != nil {
		return res, fmt.Errorf("%s: %w", argv[0], err)
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return res, fmt.Errorf("%s printed no result: %w", argv[0], err)
	}
	return res, nil
}

// buildWaku builds the go-waku worker from ./waku (the bench directory's
// go-waku module) into a temporary directory.
func buildWaku() (string, error) {
	dir, err := os.MkdirTemp("", "bench-peers-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "waku-peers")
	cmd := exec.Command("go", "build", "-tags", "gowaku_no_rln", "-o", out, ".")
	cmd.Dir, cmd.Stdout, cmd.Stderr = "waku", os.Stderr, os.Stderr
	logf("building the go-waku worker: (cd waku && go build -tags gowaku_no_rln)")
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build the go-waku worker (run from bench/, or pass -waku): %w", err)
	}
	return out, nil
}

// verifyCPU is the CPU time of one ed25519.Verify of a bytes-long
// message, in µs: the baseline of the CPU target, measured in each round.
func verifyCPU(size int) float64 {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	msg := make([]byte, size)
	_, _ = rand.Read(msg)
	sig := ed25519.Sign(priv, msg)
	const n = 3000
	c0 := workload.CPUTime()
	for range n {
		if !ed25519.Verify(pub, msg, sig) {
			panic("verify")
		}
	}
	return float64(workload.CPUTime()-c0) / float64(time.Microsecond) / n
}

// quietStderr passes a worker's standard error on, less one line that
// go-log prints once per logger when go-waku hands it a no-op logger
// ("failed to IncreaseLevel: ..."): go-waku's logging is off by design.
type quietStderr struct{}

func (quietStderr) Write(b []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line != "" && !strings.HasPrefix(line, "failed to IncreaseLevel") {
			_, _ = os.Stderr.WriteString(line)
		}
	}
	return len(b), nil
}

// loadAverage is the machine's 1-minute load average (0 without /proc):
// other jobs on the machine show in it, and in the figures.
func loadAverage() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	x, _ := strconv.ParseFloat(f[0], 64)
	return x
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "peers: "+format+"\n", args...) }

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return nil, fmt.Errorf("node count %q: want a number of at least 2", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || x <= 0 {
			return nil, fmt.Errorf("rate %q: want messages per second", f)
		}
		out = append(out, x)
	}
	return out, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
