package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// Node is one devnet node the soak drives.
type Node struct {
	// Name is the node's role: poster or worker.
	Name string
	// API is a client of the node's /v1 API.
	API *api.Client
	// Key is the API's bearer key, which is also the MCP agent key.
	Key []byte
	// MetricsURL is the node's Prometheus endpoint (go_goroutines,
	// process_resident_memory_bytes).
	MetricsURL string
	// LedgerDir is the node's ledger directory, read by CountEntries once
	// the node has stopped.
	LedgerDir string

	addr  negotiation.Address
	peer  peer.AddrInfo
	ident string
}

// Options configure a run.
type Options struct {
	Poster, Worker Node
	// Phase is how long each phase (the baseline and every attack) lasts.
	Phase time.Duration
	// Grace is how long an honest message sent in a phase may take to
	// arrive after the phase ended before it counts as lost.
	Grace time.Duration
	// Settle is how long the soak waits after an attack before it takes
	// the attacked node's "after" sample.
	Settle time.Duration
	// Delayed is the latency beyond which a delivered honest message
	// counts as delayed.
	Delayed time.Duration
}

// Sample is a node's memory and goroutines at one moment.
type Sample struct {
	RSS        float64 // bytes
	HeapInUse  float64 // bytes of the Go heap in use (RSS also holds what the runtime kept)
	Goroutines float64
}

// Honest is what became of the honest messages of one phase.
type Honest struct {
	// Posted announcements the poster's API accepted (201); Throttled
	// the posts it refused with 429 rate_limited (a wait, not a loss).
	Posted, Throttled int
	// Delivered of them reached the worker's board; Lost did not within
	// the phase and its grace.
	Delivered, Lost int
	// Countered is how many the worker countered; CounterDelivered of
	// those negotiations the poster holds, CounterLost it does not.
	Countered, CounterDelivered, CounterLost int
	// P50 and Max are the latencies of the delivered announcements and
	// counters together; Delayed counts those over Options.Delayed.
	P50, Max time.Duration
	Delayed  int
}

// Phase is the report of one phase.
type Phase struct {
	Name   string
	Target string // the attacked node
	// Attempts and Accepted say what the attacker tried and what the
	// target took; Notes say it in detail.
	Attempts, Accepted int64
	Notes              []string
	// From and To are the target's ledger head before and after the
	// phase (its grace included): the entries it wrote are From+1..To.
	From, To uint64
	// Entries counts those entries by kind; HonestEntries of them belong
	// to the honest traffic (its announcements and negotiations), the
	// rest are the attack's or the node's own. Filled by CountEntries.
	Entries       map[string]int
	HonestEntries int
	Honest        Honest
	Before, After Sample

	start, end time.Time
}

// Report is the soak's result.
type Report struct {
	Phases []*Phase
	honest *honest
}

// Run plays the baseline and the three attacks against the nodes, one
// after the other, each for opts.Phase with honest traffic beside it, and
// returns the report (CountEntries adds the ledger counts once the nodes
// have stopped). It fails only when the nodes cannot be driven at all;
// what the attacks do is the report.
func Run(ctx context.Context, w io.Writer, opts Options) (*Report, error) {
	if opts.Phase <= 0 {
		opts.Phase = 45 * time.Second
	}
	if opts.Grace <= 0 {
		opts.Grace = 20 * time.Second
	}
	if opts.Settle <= 0 {
		opts.Settle = 10 * time.Second
	}
	if opts.Delayed <= 0 {
		opts.Delayed = 5 * time.Second
	}
	r := &runner{o: opts, w: w}
	for _, n := range []*Node{&r.o.Poster, &r.o.Worker} {
		if err := r.resolve(ctx, n); err != nil {
			return nil, err
		}
	}
	// Each principal allows the other: an honest counterparty the
	// principal knows is not bounded like a stranger.
	for _, p := range [][2]*Node{{&r.o.Poster, &r.o.Worker}, {&r.o.Worker, &r.o.Poster}} {
		if _, err := p[0].API.SetConsent(ctx, p[1].addr, node.ConsentAllowed); err != nil {
			return nil, fmt.Errorf("soak: %s allows %s: %w", p[0].Name, p[1].Name, err)
		}
	}
	rep := &Report{honest: newHonest(r)}
	r.h = rep.honest
	hctx, stopHonest := context.WithCancel(ctx)
	var hwg sync.WaitGroup
	hwg.Add(1)
	go func() { defer hwg.Done(); r.h.watch(hctx) }()
	defer func() { stopHonest(); hwg.Wait() }()

	for _, a := range []struct {
		name   string
		target *Node
		attack func(ctx context.Context, ph *Phase)
	}{
		{"baseline (no attack)", &r.o.Worker, nil},
		{"hostile peers", &r.o.Worker, r.hostilePeers},
		{"board flood", &r.o.Worker, r.boardFlood},
		{"session flood", &r.o.Worker, r.sessionFlood},
	} {
		ph, err := r.phase(ctx, a.name, a.target, a.attack)
		if err != nil {
			return rep, err
		}
		rep.Phases = append(rep.Phases, ph)
		r.printPhase(ph)
	}
	return rep, nil
}

type runner struct {
	o Options
	w io.Writer
	h *honest

	mu sync.Mutex // guards w
}

func (r *runner) printf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, format, args...)
}

// resolve reads a node's address, peer id and p2p address from its API.
func (r *runner) resolve(ctx context.Context, n *Node) error {
	st, err := n.API.Status(ctx)
	if err != nil {
		return fmt.Errorf("soak: %s: %w", n.Name, err)
	}
	n.addr, n.ident = st.Address, st.PeerID
	for _, s := range st.Addrs {
		a, err := ma.NewMultiaddr(s)
		if err != nil {
			continue
		}
		if ai, err := peer.AddrInfoFromP2pAddr(a); err == nil && strings.Contains(s, "/ip4/127.0.0.1/") {
			n.peer = *ai
			return nil
		}
	}
	return fmt.Errorf("soak: %s has no loopback p2p address in %v", n.Name, st.Addrs)
}

// phase runs one phase: the sample before, the attack (if any) beside
// the honest traffic for opts.Phase, the honest messages' grace, the
// settle time and the sample after.
func (r *runner) phase(ctx context.Context, name string, target *Node, attack func(context.Context, *Phase)) (*Phase, error) {
	ph := &Phase{Name: name, Target: target.Name}
	var err error
	if ph.Before, err = sample(ctx, target.MetricsURL); err != nil {
		return nil, err
	}
	st, err := target.API.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("soak: %s: %w", target.Name, err)
	}
	ph.From = st.Ledger.Seq
	r.printf("\n== %s (%s, %s) ==\n", name, target.Name, r.o.Phase)
	ph.start = time.Now()
	actx, stop := context.WithTimeout(ctx, r.o.Phase)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.h.post(actx) }()
	if attack != nil {
		wg.Add(1)
		go func() { defer wg.Done(); attack(actx, ph) }()
	}
	<-actx.Done()
	stop()
	wg.Wait()
	ph.end = time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The honest messages of the phase get their grace; the attacked
	// node settles.
	wait := max(r.o.Grace, r.o.Settle)
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) && !r.h.settled(ph.start, ph.end) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	if rest := time.Until(ph.end.Add(r.o.Settle)); rest > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(rest):
		}
	}
	ph.Honest = r.h.report(ph.start, ph.end, r.o.Delayed)
	if ph.After, err = sample(ctx, target.MetricsURL); err != nil {
		return nil, err
	}
	if st, err = target.API.Status(ctx); err != nil {
		return nil, fmt.Errorf("soak: %s: %w", target.Name, err)
	}
	ph.To = st.Ledger.Seq
	return ph, nil
}

func (r *runner) printPhase(ph *Phase) {
	h := ph.Honest
	r.printf("attempts %d, accepted %d\n", ph.Attempts, ph.Accepted)
	for _, n := range ph.Notes {
		r.printf("  %s\n", n)
	}
	r.printf("ledger of the %s: %d entries written (seq %d..%d)\n", ph.Target, ph.To-ph.From, ph.From+1, ph.To)
	r.printf("honest: %d announcements posted (%d refused with 429), %d delivered, %d lost; %d countered, %d delivered, %d lost; latency p50 %s, max %s, %d over %s\n",
		h.Posted, h.Throttled, h.Delivered, h.Lost, h.Countered, h.CounterDelivered, h.CounterLost,
		h.P50.Round(time.Millisecond), h.Max.Round(time.Millisecond), h.Delayed, r.o.Delayed)
	r.printf("%s: RSS %s -> %s (Go heap in use %s -> %s), goroutines %.0f -> %.0f\n", ph.Target, mib(ph.Before.RSS), mib(ph.After.RSS),
		mib(ph.Before.HeapInUse), mib(ph.After.HeapInUse), ph.Before.Goroutines, ph.After.Goroutines)
}

func mib(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }

// sample reads go_goroutines and process_resident_memory_bytes from a
// node's metrics.
func sample(ctx context.Context, url string) (Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Sample{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Sample{}, fmt.Errorf("soak: metrics %s: %w", url, err)
	}
	defer resp.Body.Close()
	var s Sample
	found := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for name, dst := range map[string]*float64{"go_goroutines ": &s.Goroutines, "process_resident_memory_bytes ": &s.RSS, "go_memstats_heap_inuse_bytes ": &s.HeapInUse} {
			if strings.HasPrefix(line, name) {
				if v, err := strconv.ParseFloat(strings.TrimSpace(line[len(name):]), 64); err == nil {
					*dst = v
					found++
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Sample{}, err
	}
	if found < 3 {
		return Sample{}, fmt.Errorf("soak: metrics %s: no go_goroutines, process_resident_memory_bytes or go_memstats_heap_inuse_bytes", url)
	}
	return s, nil
}

// honest is the honest traffic: the poster posts a task a second; the
// worker counters every one it sees on its board.
type honest struct {
	r *runner

	mu          sync.Mutex
	posted      map[negotiation.Hash]time.Time // announcement -> when its post was answered
	cids        map[string]bool                // the announcements' CIDs
	seen        map[negotiation.Hash]time.Time // -> when the worker's board had it
	counterAt   map[string]time.Time           // negotiation -> when the worker countered
	counterSeen map[string]time.Time           // -> when the poster held it
	throttled   []time.Time
	n           int
}

func newHonest(r *runner) *honest {
	return &honest{
		r: r, posted: map[negotiation.Hash]time.Time{}, cids: map[string]bool{}, seen: map[negotiation.Hash]time.Time{},
		counterAt: map[string]time.Time{}, counterSeen: map[string]time.Time{},
	}
}

// post posts a task a second through the poster's API until ctx ends.
func (h *honest) post(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		h.postOne(ctx)
	}
}

// postOne posts one task and records the answer; it reports whether the
// node refused it over the board's rate.
func (h *honest) postOne(ctx context.Context) (throttled bool) {
	h.mu.Lock()
	h.n++
	i := h.n
	h.mu.Unlock()
	spec := node.TaskSpec{
		Title:      fmt.Sprintf("Honest task %d", i),
		Milestones: []node.MilestoneSpec{{Amount: big.NewInt(1e15), Description: "all of it"}},
		Deadline:   time.Now().Add(72 * time.Hour).Truncate(time.Second),
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	a, err := h.r.o.Poster.API.PostTask(pctx, spec)
	var ae *api.Error
	switch {
	case errors.As(err, &ae) && ae.Code == string(node.CodeRateLimited):
		h.mu.Lock()
		h.throttled = append(h.throttled, time.Now())
		h.mu.Unlock()
		return true
	case err != nil:
		h.r.printf("  honest post %d failed: %v\n", i, err)
		return false
	}
	h.mu.Lock()
	h.posted[a.Hash] = time.Now()
	h.cids[a.CID] = true
	h.mu.Unlock()
	return false
}

// watch follows the worker's board and the poster's negotiations until
// ctx ends: the first time the worker's board holds an honest
// announcement, the worker counters it; the first time the poster holds
// the negotiation, the counter arrived.
func (h *honest) watch(ctx context.Context) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		h.watchBoard(ctx)
		h.watchCounters(ctx)
	}
}

func (h *honest) watchBoard(ctx context.Context) {
	tasks, err := h.r.o.Worker.API.Tasks(ctx)
	if err != nil {
		return
	}
	now := time.Now()
	var fresh []negotiation.Hash
	h.mu.Lock()
	for _, a := range tasks {
		if _, ok := h.posted[a.Hash]; !ok {
			continue
		}
		if _, ok := h.seen[a.Hash]; !ok {
			h.seen[a.Hash] = now
			fresh = append(fresh, a.Hash)
		}
	}
	h.mu.Unlock()
	for _, a := range fresh {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		res, err := h.r.o.Worker.API.CounterTask(cctx, a, node.CounterSpec{
			Milestones: []node.MilestoneSpec{{Amount: big.NewInt(2e15), Description: "all of it"}},
			Reason:     "soak: honest counter",
		})
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				h.r.printf("  honest counter of %s failed: %v\n", a, err)
			}
			continue
		}
		h.mu.Lock()
		h.counterAt[res.Thread.NegotiationID] = time.Now()
		h.mu.Unlock()
	}
}

func (h *honest) watchCounters(ctx context.Context) {
	h.mu.Lock()
	waiting := len(h.counterAt) > len(h.counterSeen)
	h.mu.Unlock()
	if !waiting {
		return
	}
	threads, err := h.r.o.Poster.API.Negotiations(ctx, "")
	if err != nil {
		return
	}
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range threads {
		if _, ok := h.counterAt[t.NegotiationID]; ok {
			if _, seen := h.counterSeen[t.NegotiationID]; !seen {
				h.counterSeen[t.NegotiationID] = now
			}
		}
	}
}

// settled reports whether every honest message sent between from and to
// has arrived.
func (h *honest) settled(from, to time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for a, at := range h.posted {
		if in(at, from, to) {
			if _, ok := h.seen[a]; !ok {
				return false
			}
		}
	}
	for nid, at := range h.counterAt {
		if in(at, from, to) {
			if _, ok := h.counterSeen[nid]; !ok {
				return false
			}
		}
	}
	return true
}

func in(t, from, to time.Time) bool { return !t.Before(from) && !t.After(to) }

// report counts the honest messages sent between from and to.
func (h *honest) report(from, to time.Time, delayed time.Duration) Honest {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out Honest
	var lat []time.Duration
	add := func(d time.Duration) {
		lat = append(lat, d)
		if d > delayed {
			out.Delayed++
		}
	}
	for a, at := range h.posted {
		if !in(at, from, to) {
			continue
		}
		out.Posted++
		if s, ok := h.seen[a]; ok {
			out.Delivered++
			add(max(0, s.Sub(at)))
		} else {
			out.Lost++
		}
	}
	for _, at := range h.throttled {
		if in(at, from, to) {
			out.Throttled++
		}
	}
	for nid, at := range h.counterAt {
		if !in(at, from, to) {
			continue
		}
		out.Countered++
		if s, ok := h.counterSeen[nid]; ok {
			out.CounterDelivered++
			add(max(0, s.Sub(at)))
		} else {
			out.CounterLost++
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		out.P50, out.Max = lat[len(lat)/2], lat[len(lat)-1]
	}
	return out
}

// honestSets returns the honest announcements' CIDs and the honest
// negotiations, for CountEntries.
func (h *honest) honestSets() (cids map[string]bool, nids map[string]bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cids, nids = map[string]bool{}, map[string]bool{}
	for c := range h.cids {
		cids[c] = true
	}
	for nid := range h.counterAt {
		nids[nid] = true
	}
	return cids, nids
}
