package loadtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// Report is the outcome of a run.
type Report struct {
	Machine        Machine `json:"machine"`
	Counterparties int     `json:"counterparties"`
	Fund           bool    `json:"fund"`
	WarmupSeconds  float64 `json:"warmupSeconds"`
	// SetupSeconds is the time to start the nodes (and the chain) and
	// connect them.
	SetupSeconds float64 `json:"setupSeconds"`
	// Baseline is the loop with one counterparty, when measured.
	Baseline *Phase `json:"baseline,omitempty"`
	// Load is the loop with Counterparties counterparties.
	Load Phase `json:"load"`
	// Ratio is Load.PerSecond over Baseline.PerSecond (0 without a
	// baseline).
	Ratio float64 `json:"ratio,omitempty"`
}

// Machine describes where the run ran.
type Machine struct {
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	GoVersion  string `json:"goVersion"`
	NumCPU     int    `json:"numCpu"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	// LoadBefore and LoadAfter are the 1, 5 and 15 minute load averages
	// at the start and the end of the run: work of other processes shows
	// here.
	LoadBefore [3]float64 `json:"loadBefore"`
	LoadAfter  [3]float64 `json:"loadAfter"`
}

// Phase is one measured window. Counts and latencies cover the
// negotiations that completed inside the window; CPU and memory are the
// whole process's, so they include the counterparty nodes (and the chain
// with Fund): a CPU profile (Config.CPUProfile) splits them by node.
type Phase struct {
	Counterparties int     `json:"counterparties"`
	Seconds        float64 `json:"seconds"`
	// Agreed counts negotiations agreed at both nodes (both settlement
	// signatures held by the worker and the counterparty).
	Agreed int `json:"agreed"`
	// Funded counts agreed negotiations whose escrow was funded (Fund).
	Funded int `json:"funded,omitempty"`
	// Failed counts negotiations that ended with an error in the window.
	Failed int `json:"failed"`
	// Nudges counts waits that timed out on the event stream and went on
	// by reading the thread (an event the node dropped for a slow reader,
	// or a slow step).
	Nudges int `json:"nudges"`
	// PerSecond is the throughput: Agreed (Funded with Fund) per second.
	PerSecond float64 `json:"perSecond"`
	// Latency is from the proposal to the agreement at both nodes.
	Latency Latency `json:"latencyMs"`
	// FundLatency is from the proposal to the funded escrow (Fund).
	FundLatency *Latency `json:"fundLatencyMs,omitempty"`
	// CPUSeconds is the process's user plus system CPU time in the window.
	CPUSeconds float64 `json:"cpuSeconds"`
	// CPUPerNegotiationMS is CPUSeconds per completed negotiation, in ms.
	CPUPerNegotiationMS float64 `json:"cpuMsPerNegotiation"`
	// CoresBusy is CPUSeconds over the window: how many cores were used.
	CoresBusy float64 `json:"coresBusy"`
	// PeakRSSBytes is VmHWM at the end of the window; PeakRSSWindowOnly
	// says it was reset at the window's start (else it is the peak since
	// the process started).
	PeakRSSBytes      uint64 `json:"peakRssBytes"`
	PeakRSSWindowOnly bool   `json:"peakRssWindowOnly"`
	// PeakHeapInuseBytes is the largest Go HeapInuse sampled in the
	// window (every 250 ms); Goroutines the most goroutines sampled.
	PeakHeapInuseBytes uint64 `json:"peakHeapInuseBytes"`
	Goroutines         int    `json:"goroutines"`
	// Errors are the first distinct errors of failed negotiations.
	Errors []string `json:"errors,omitempty"`
}

// runner is one run: its directory, chain, worker, driver and
// counterparties, and the results the counterparties record.
type runner struct {
	cfg  Config
	root string
	log  *slog.Logger
	dev  *chain.Devchain

	worker *node.Node
	driver *driver

	nmu   sync.Mutex
	nodes []*node.Node

	rmu     sync.Mutex
	results []result
}

type counterparty struct {
	r      *runner
	name   string
	n      *node.Node
	events <-chan node.Event
	stop   func()
}

type result struct {
	start, agreed, funded, end time.Time
	nudges                     int
	err                        error
}

// Run builds the nodes in a temporary directory, measures the baseline
// (when configured) and the load, and closes every node and the chain
// before it returns. It returns an error when the nodes cannot be set up;
// negotiations that fail during a window are counted in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp(cfg.Dir, "parley-bench-*")
	if err != nil {
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	defer os.RemoveAll(root)
	r := &runner{cfg: cfg, root: root, log: cfg.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	defer r.close()
	return r.run(ctx)
}

func (r *runner) progress(format string, args ...any) {
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, format+"\n", args...)
	}
}

func (r *runner) track(n *node.Node) {
	r.nmu.Lock()
	defer r.nmu.Unlock()
	r.nodes = append(r.nodes, n)
}

// close stops the driver, every node (counterparties, eight at a time,
// then the worker) and the chain.
func (r *runner) close() {
	if r.driver != nil {
		r.driver.close()
	}
	r.nmu.Lock()
	nodes := r.nodes
	r.nodes = nil
	r.nmu.Unlock()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, n := range nodes {
		if n == r.worker {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_ = n.Close()
		}()
	}
	wg.Wait()
	if r.worker != nil {
		_ = r.worker.Close()
	}
	if r.dev != nil {
		_ = r.dev.Close()
	}
}

// labelled runs f with the pprof label node=who, which every goroutine f
// starts inherits, so a CPU profile splits the process's time by node.
func labelled(ctx context.Context, who string, f func(context.Context) error) error {
	var err error
	pprof.Do(ctx, pprof.Labels("node", who), func(ctx context.Context) { err = f(ctx) })
	return err
}

func (r *runner) run(ctx context.Context) (*Report, error) {
	rep := &Report{
		Machine: Machine{
			GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(),
			NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), LoadBefore: loadAverage(),
		},
		Counterparties: r.cfg.Counterparties,
		Fund:           r.cfg.Fund,
		WarmupSeconds:  r.cfg.Warmup.Seconds(),
	}
	setup := time.Now()
	if r.cfg.Fund {
		r.progress("starting the embedded dev chain")
		err := labelled(ctx, "chain", func(ctx context.Context) error {
			ccfg := chain.DefaultDevchainConfig()
			ccfg.Accounts = fundLanes
			ccfg.Logger = r.log.With("who", "chain")
			dev, err := chain.StartDevchain(ctx, ccfg)
			r.dev = dev
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("loadtest: dev chain: %w", err)
		}
	}
	r.progress("starting the worker")
	err := labelled(ctx, "worker", func(ctx context.Context) error {
		w, err := r.startNode(ctx, "worker", true)
		if err != nil {
			return err
		}
		r.worker = w
		r.driver = newDriver(w)
		r.driver.start(ctx)
		return nil
	})
	if err != nil {
		return nil, err
	}
	first, err := r.startCounterparties(ctx, 0, 1)
	if err != nil {
		return nil, err
	}
	cps := first
	if r.cfg.Baseline {
		rep.SetupSeconds = time.Since(setup).Seconds()
		r.progress("baseline: 1 counterparty, warm-up %v, measuring %v", r.cfg.Warmup, r.cfg.BaselineDuration)
		b, err := r.phase(ctx, cps, r.cfg.BaselineDuration, false)
		if err != nil {
			return nil, err
		}
		rep.Baseline = &b
		r.progress("baseline: %d agreed, %.1f/s, p50 %.1f ms", b.Agreed, b.PerSecond, b.Latency.P50)
		setup = time.Now()
	}
	if r.cfg.Counterparties > 1 {
		r.progress("starting %d more counterparties", r.cfg.Counterparties-1)
		more, err := r.startCounterparties(ctx, 1, r.cfg.Counterparties)
		if err != nil {
			return nil, err
		}
		cps = append(cps, more...)
	}
	rep.SetupSeconds += time.Since(setup).Seconds()
	r.progress("load: %d counterparties, warm-up %v, measuring %v", len(cps), r.cfg.Warmup, r.cfg.Duration)
	rep.Load, err = r.phase(ctx, cps, r.cfg.Duration, true)
	if err != nil {
		return nil, err
	}
	r.progress("load: %d agreed, %.1f/s, p50 %.1f ms", rep.Load.Agreed, rep.Load.PerSecond, rep.Load.Latency.P50)
	if rep.Baseline != nil && rep.Baseline.PerSecond > 0 {
		rep.Ratio = rep.Load.PerSecond / rep.Baseline.PerSecond
	}
	rep.Machine.LoadAfter = loadAverage()
	return rep, nil
}

// startCounterparties starts counterparties from..to-1 (four at a time),
// funds their accounts when the run funds escrows, and waits until each
// and the worker know each other's link.
func (r *runner) startCounterparties(ctx context.Context, from, to int) ([]*counterparty, error) {
	cps := make([]*counterparty, to-from)
	errs := make([]error, to-from)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	_ = labelled(ctx, "counterparty", func(ctx context.Context) error {
		for i := from; i < to; i++ {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				name := fmt.Sprintf("counterparty-%03d", i)
				n, err := r.startNode(ctx, name, false)
				if err != nil {
					errs[i-from] = err
					return
				}
				cp := &counterparty{r: r, name: name, n: n}
				cp.events, cp.stop = n.Subscribe(4096)
				cps[i-from] = cp
			}()
		}
		wg.Wait()
		return nil
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if r.dev != nil {
		addrs := make([]negotiation.Address, len(cps))
		for i, cp := range cps {
			addrs[i] = cp.n.Address()
		}
		if err := labelled(ctx, "chain", func(ctx context.Context) error { return r.fundAccounts(ctx, addrs) }); err != nil {
			return nil, err
		}
	}
	if err := r.connect(ctx, cps); err != nil {
		return nil, err
	}
	return cps, nil
}

func (r *runner) record(res result) {
	r.rmu.Lock()
	defer r.rmu.Unlock()
	r.results = append(r.results, res)
}

// phase runs every counterparty's loop, waits out the warm-up, measures
// one window of length d, then stops the loops and summarises the
// negotiations that ended inside the window.
func (r *runner) phase(ctx context.Context, cps []*counterparty, d time.Duration, profile bool) (Phase, error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	_ = labelled(pctx, "counterparty", func(pctx context.Context) error {
		for _, cp := range cps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cp.loop(pctx)
			}()
		}
		return nil
	})
	stopLoops := func() {
		cancel()
		wg.Wait()
	}
	if err := sleep(ctx, r.cfg.Warmup); err != nil {
		stopLoops()
		return Phase{}, err
	}
	p := Phase{Counterparties: len(cps)}
	p.PeakRSSWindowOnly = resetPeakRSS()
	start, cpu0 := time.Now(), cpuTime()
	if profile && r.cfg.CPUProfile != nil {
		if err := pprof.StartCPUProfile(r.cfg.CPUProfile); err != nil {
			stopLoops()
			return Phase{}, fmt.Errorf("loadtest: cpu profile: %w", err)
		}
	}
	end := start.Add(d)
	tick := time.NewTicker(250 * time.Millisecond)
	var ms runtime.MemStats
	for now := time.Now(); now.Before(end); now = time.Now() {
		runtime.ReadMemStats(&ms)
		p.PeakHeapInuseBytes = max(p.PeakHeapInuseBytes, ms.HeapInuse)
		p.Goroutines = max(p.Goroutines, runtime.NumGoroutine())
		select {
		case <-ctx.Done():
		case <-tick.C:
		case <-time.After(end.Sub(now)):
		}
		if ctx.Err() != nil {
			break
		}
	}
	tick.Stop()
	stop, cpu1 := time.Now(), cpuTime()
	if profile && r.cfg.CPUProfile != nil {
		pprof.StopCPUProfile()
	}
	p.PeakRSSBytes = peakRSS()
	stopLoops()
	if err := ctx.Err(); err != nil {
		return Phase{}, err
	}

	r.rmu.Lock()
	results := r.results
	r.results = nil
	r.rmu.Unlock()
	var lat, fundLat []time.Duration
	seen := map[string]bool{}
	for _, res := range results {
		if res.end.Before(start) || res.end.After(stop) {
			continue
		}
		p.Nudges += res.nudges
		if res.err != nil {
			p.Failed++
			if msg := res.err.Error(); !seen[msg] && len(p.Errors) < 5 {
				seen[msg] = true
				p.Errors = append(p.Errors, msg)
			}
			continue
		}
		p.Agreed++
		lat = append(lat, res.agreed.Sub(res.start))
		if r.cfg.Fund {
			p.Funded++
			fundLat = append(fundLat, res.funded.Sub(res.start))
		}
	}
	p.Seconds = stop.Sub(start).Seconds()
	p.CPUSeconds = (cpu1 - cpu0).Seconds()
	done := p.Agreed
	if r.cfg.Fund {
		done = p.Funded
		fl := summarise(fundLat)
		p.FundLatency = &fl
	}
	p.PerSecond = float64(done) / p.Seconds
	if done > 0 {
		p.CPUPerNegotiationMS = p.CPUSeconds * 1000 / float64(done)
	}
	p.CoresBusy = p.CPUSeconds / p.Seconds
	p.Latency = summarise(lat)
	return p, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// loop negotiates with the worker, one negotiation after another, until
// ctx ends; each outcome is recorded.
func (cp *counterparty) loop(ctx context.Context) {
	for ctx.Err() == nil {
		res := cp.once(ctx)
		res.end = time.Now()
		if ctx.Err() != nil {
			return // cut short by the end of the phase: not an outcome
		}
		cp.r.record(res)
	}
}

// taskAmount is what each task escrows: 0.01 ETH.
var taskAmount = new(big.Int).Div(big.NewInt(params.Ether), big.NewInt(100))

// once runs one negotiation: propose, wait for the worker's acceptance,
// accept, wait until the worker holds the agreement, and fund it when
// the run funds escrows.
func (cp *counterparty) once(ctx context.Context) (res result) {
	r := cp.r
	res.start = time.Now()
	spec := node.TaskSpec{
		Title:      "Translate a page",
		Category:   "translation",
		Deadline:   res.start.Add(72 * time.Hour),
		Milestones: []node.MilestoneSpec{{Amount: taskAmount, Description: "the page"}},
	}
	prop, err := cp.n.ProposeTask(ctx, r.worker.Address(), spec)
	if err != nil {
		res.err = fmt.Errorf("propose: %w", err)
		return res
	}
	nid := prop.Thread.NegotiationID
	agreed := r.driver.watch(nid)
	defer r.driver.forget(nid)
	n, err := cp.waitAcceptance(ctx, nid)
	res.nudges += n
	if err != nil {
		res.err = err
		return res
	}
	if _, err := cp.n.Accept(ctx, nid); err != nil {
		res.err = fmt.Errorf("accept: %w", err)
		return res
	}
	n, err = cp.waitWorkerAgreed(ctx, nid, agreed)
	res.nudges += n
	if err != nil {
		res.err = err
		return res
	}
	res.agreed = time.Now()
	if r.cfg.Fund {
		if _, err := cp.n.Fund(ctx, nid); err != nil {
			res.err = fmt.Errorf("fund: %w", err)
			return res
		}
		res.funded = time.Now()
	}
	return res
}

// nudgeAfter is how long a wait trusts the event stream before it also
// reads the thread.
const nudgeAfter = 10 * time.Second

// waitAcceptance waits for the worker's TaskAcceptance of nid at this
// counterparty. When no event comes for nudgeAfter it reads the thread,
// and if the worker has not accepted yet it asks the driver to accept
// again (its event may have been dropped).
func (cp *counterparty) waitAcceptance(ctx context.Context, nid string) (nudges int, err error) {
	worker := cp.r.worker.Address()
	deadline := time.NewTimer(cp.r.cfg.StepTimeout)
	defer deadline.Stop()
	nudge := time.NewTicker(nudgeAfter)
	defer nudge.Stop()
	for {
		select {
		case <-ctx.Done():
			return nudges, ctx.Err()
		case <-deadline.C:
			return nudges, fmt.Errorf("the worker's acceptance did not arrive within %v", cp.r.cfg.StepTimeout)
		case ev, ok := <-cp.events:
			if !ok {
				return nudges, errors.New("the counterparty's event stream closed")
			}
			if ev.NegotiationID == nid && ev.Kind == node.EventEnvelope && ev.Direction == "received" && ev.Type == negotiation.TypeTaskAcceptance {
				return nudges, nil
			}
		case <-nudge.C:
			nudges++
			if cp.hasAcceptanceFrom(nid, worker) {
				return nudges, nil
			}
			cp.r.driver.accept(nid)
		}
	}
}

func (cp *counterparty) hasAcceptanceFrom(nid string, a negotiation.Address) bool {
	v, err := cp.n.Thread(nid)
	if err != nil {
		return false
	}
	for _, rec := range v.Log {
		if rec.Type == negotiation.TypeTaskAcceptance && rec.Sender == a {
			return true
		}
	}
	return false
}

// waitWorkerAgreed waits until the worker holds the agreement of nid,
// reading the worker's thread when no signal comes for nudgeAfter.
func (cp *counterparty) waitWorkerAgreed(ctx context.Context, nid string, agreed <-chan struct{}) (nudges int, err error) {
	deadline := time.NewTimer(cp.r.cfg.StepTimeout)
	defer deadline.Stop()
	nudge := time.NewTicker(nudgeAfter)
	defer nudge.Stop()
	for {
		select {
		case <-ctx.Done():
			return nudges, ctx.Err()
		case <-deadline.C:
			return nudges, fmt.Errorf("the worker did not reach agreed within %v", cp.r.cfg.StepTimeout)
		case <-agreed:
			return nudges, nil
		case <-nudge.C:
			nudges++
			if v, err := cp.r.worker.Thread(nid); err == nil && v.Agreement != nil {
				return nudges, nil
			}
		}
	}
}
