package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/parleynet/parley/bench/workload"
)

// report gathers every worker's result and prints the tables of
// docs/benchmarks.md: medians over the rounds, with their range.
type report struct {
	opts    options
	all     []workload.Result
	verify  []float64 // µs of CPU per ed25519.Verify, one per round
	load    []float64 // the load average at each round's start and at the end
	elapsed time.Duration
}

func (r *report) add(res workload.Result) { r.all = append(r.all, res) }

// of returns the results of one system, mode and N, in round order.
func (r *report) of(sys, mode string, n int) []workload.Result {
	var out []workload.Result
	for _, res := range r.all {
		if res.System == sys && res.Mode == mode && (n == 0 || res.N == n) && res.Round > 0 {
			out = append(out, res)
		}
	}
	return out
}

// med is the median of f over rs, and its range.
func med(rs []workload.Result, f func(workload.Result) float64) (m, lo, hi float64) {
	var xs []float64
	for _, r := range rs {
		xs = append(xs, f(r))
	}
	if len(xs) == 0 {
		return 0, 0, 0
	}
	return workload.Median(xs), slices.Min(xs), slices.Max(xs)
}

func fmtMed(rs []workload.Result, digits int, f func(workload.Result) float64) string {
	m, lo, hi := med(rs, f)
	if len(rs) < 2 {
		return fmt.Sprintf("%.*f", digits, m)
	}
	return fmt.Sprintf("%.*f (%.*f-%.*f)", digits, m, digits, lo, digits, hi)
}

func reachP50(r workload.Result) float64  { return r.Latency.ReachP50 }
func reachP99(r workload.Result) float64  { return r.Latency.ReachP99 }
func netCPU(r workload.Result) float64    { return r.Latency.NetCPUPerMsgNode }
func heapNode(r workload.Result) float64  { return r.HeapMiB / float64(r.N) }
func heapAdded(r workload.Result) float64 { return (r.HeapMiB - r.BaseHeapMiB) / float64(r.N) }
func written(r workload.Result) float64   { return r.Latency.WrittenPerMsgNode / 1024 }

// carried is the sweep's last step that was published at 80% of its
// rate or more and lost no delivery (nil: none).
func carried(res workload.Result) *workload.Phase {
	var best *workload.Phase
	for i, ph := range res.Sweep {
		if ph.Lost == 0 && ph.PublishErrors == 0 && ph.Achieved >= 0.8*ph.Target {
			best = &res.Sweep[i]
		}
	}
	return best
}

// lossFree is the rate carried's published rate, as text.
func lossFree(res workload.Result) string {
	if ph := carried(res); ph != nil {
		return fmt.Sprintf("%.0f", ph.Achieved)
	}
	return "none"
}

// firstLossy describes the sweep's first step that was not carried.

func firstLossy(res workload.Result) string {
	for _, ph := range res.Sweep {
		if ph.Lost > 0 || ph.PublishErrors > 0 || ph.Achieved < 0.8*ph.Target {
			s := fmt.Sprintf("%.0f/s (%.0f published): %d of %d lost", ph.Target, ph.Achieved, ph.Lost, ph.Expected)
			if ph.LostAtEnd != ph.Lost {
				s += fmt.Sprintf(", %d at the end", ph.LostAtEnd)
			}
			if ph.PublishErrors > 0 {
				s += fmt.Sprintf(", %d publishes failed", ph.PublishErrors)
			}
			return s
		}
	}
	return "none up to the last rate"
}

func (r *report) systems() []string {
	if r.opts.only != "" {
		return []string{r.opts.only}
	}
	return []string{workload.SystemParley, workload.SystemWaku}
}

func (r *report) print(w io.Writer) {
	o := r.opts
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	vm, vlo, vhi := 0.0, 0.0, 0.0
	if len(r.verify) > 0 {
		vm, vlo, vhi = workload.Median(r.verify), slices.Min(r.verify), slices.Max(r.verify)
	}
	p("Side by side: %d rounds, systems alternating, N = %v, each node dialling %d seeded-random earlier nodes (seed %d), %d-byte wire messages, all on 127.0.0.1; %v in all, load average %s at each round's start and at the end.",
		o.rounds, o.ns, o.k, o.seed, o.bytes, r.elapsed.Round(time.Second), fmt.Sprint(r.load))
	p("Publishers: %d nodes of each N (all of them at fewer), in a seeded order. First phase: each publishes once, %v apart. Latency phase: %d messages, %v apart, from publishers drawn at random; sweep %v msg/s network-wide for %v each, the publishers in turn; over the limit: one publisher at %.0f/s for %v. Baseline: one ed25519.Verify of %d bytes = %.1f µs CPU (%.1f-%.1f).",
		workload.Publishers, o.interval, o.messages, o.interval, o.rates, o.step, o.overRate, o.overFor, o.bytes, vm, vlo, vhi)
	p("")
	for _, sys := range r.systems() {
		if rs := r.of(sys, workload.ModeBoard, 0); len(rs) > 0 {
			notes := rs[0].Notes
			for _, k := range slices.Sorted(maps.Keys(notes)) {
				p("- %s, %s: %s", sys, k, notes[k])
			}
		}
	}
	p("")
	p("Board (Parley: the task board; go-waku: relay), medians of the rounds (range). Reach: publish to the last node's application, per message; delivery: publish to one node's, per delivery. CPU: the process's, per message per node, less the idle baseline.")
	p("")
	p("| N | system | reach p50 ms | reach p99 ms | delivery p50 ms | delivery p99 ms | CPU/msg/node µs | gross µs | written/msg/node KiB | heap/node MiB (less the process's own) | idle CPU, cores | peers p50/max | start ms |")
	p("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, n := range o.ns {
		for _, sys := range r.systems() {
			rs := r.of(sys, workload.ModeBoard, n)
			if len(rs) == 0 {
				continue
			}
			p("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s | %d/%d | %s |", n, sys,
				fmtMed(rs, 1, reachP50), fmtMed(rs, 1, reachP99),
				fmtMed(rs, 1, func(r workload.Result) float64 { return r.Latency.DeliveryP50 }),
				fmtMed(rs, 1, func(r workload.Result) float64 { return r.Latency.DeliveryP99 }),
				fmtMed(rs, 0, netCPU), fmtMed(rs, 0, func(r workload.Result) float64 { return r.Latency.CPUPerMsgNode }),
				fmtMed(rs, 1, written),
				fmtMed(rs, 2, heapNode), fmtMed(rs, 2, heapAdded),
				fmtMed(rs, 2, func(r workload.Result) float64 { return r.IdleCPU }),
				rs[0].PeersP50, rs[0].PeersMax, fmtMed(rs, 0, func(r workload.Result) float64 { return r.StartMs }))
		}
	}
	var lost []string
	for _, res := range r.all {
		if res.Mode == workload.ModeBoard && res.Round > 0 && (res.Latency.LostAtEnd > 0 || res.Strays > 0 || res.Dups > 0) {
			lost = append(lost, fmt.Sprintf("%s N=%d round %d: %d lost, %d strays, %d duplicates", res.System, res.N, res.Round, res.Latency.LostAtEnd, res.Strays, res.Dups))
		}
	}
	if len(lost) == 0 {
		p("\nEvery latency-phase message reached every node, once.")
	} else {
		p("\nLatency phase faults: %s.", strings.Join(lost, "; "))
	}

	p("")
	p("The first phase: each message the first its receivers get from its publisher (Parley verifies the publisher's identity link then, once per publisher and node):")
	p("")
	p("| N | system | reach p50 ms | reach p99 ms | CPU/msg/node µs | lost (at the end) |")
	p("| --- | --- | --- | --- | --- | --- |")
	for _, n := range o.ns {
		for _, sys := range r.systems() {
			rs := r.of(sys, workload.ModeBoard, n)
			if len(rs) == 0 || rs[0].First == nil {
				continue
			}
			p("| %d | %s | %s | %s | %s | %s |", n, sys,
				fmtMed(rs, 1, func(r workload.Result) float64 { return r.First.ReachP50 }),
				fmtMed(rs, 1, func(r workload.Result) float64 { return r.First.ReachP99 }),
				fmtMed(rs, 0, func(r workload.Result) float64 { return r.First.NetCPUPerMsgNode }),
				fmtMed(rs, 0, func(r workload.Result) float64 { return float64(r.First.LostAtEnd) }))
		}
	}

	if len(r.systems()) == 2 {
		p("")
		p("Parley / go-waku (ratio of the medians; below 1: Parley lower):")
		p("")
		p("| N | reach p50 | reach p99 | CPU/msg/node | heap/node | written/msg/node | first phase: reach p50 | first phase: CPU/msg/node |")
		p("| --- | --- | --- | --- | --- | --- | --- | --- |")
		for _, n := range o.ns {
			pr, wr := r.of(workload.SystemParley, workload.ModeBoard, n), r.of(workload.SystemWaku, workload.ModeBoard, n)
			if len(pr) == 0 || len(wr) == 0 {
				continue
			}
			ratio := func(f func(workload.Result) float64) string {
				a, _, _ := med(pr, f)
				b, _, _ := med(wr, f)
				return fmt.Sprintf("%.2f", a/b)
			}
			p("| %d | %s | %s | %s | %s | %s | %s | %s |", n, ratio(reachP50), ratio(reachP99), ratio(netCPU), ratio(heapNode), ratio(written),
				ratio(func(r workload.Result) float64 { return r.First.ReachP50 }),
				ratio(func(r workload.Result) float64 { return r.First.NetCPUPerMsgNode }))
		}
	}

	p("")
	p("Rate without losing deliveries (sweep, the publishers in turn). A rate is carried when it was published at 80%% of the rate asked or more and every delivery arrived within %v of the step's last publish; the sweep stops at the first rate that is not.", o.drain)
	p("")
	p("| N | system | highest rate carried, msg/s, each round | there: delivery p99 ms, CPU/msg/node µs | the next rate: asked (published), lost, each round |")
	p("| --- | --- | --- | --- | --- |")
	for _, n := range o.ns {
		for _, sys := range r.systems() {
			var a, b, c []string
			for _, res := range r.of(sys, workload.ModeBoard, n) {
				a, b = append(a, lossFree(res)), append(b, firstLossy(res))
				if ph := carried(res); ph != nil {
					c = append(c, fmt.Sprintf("%.0f, %.0f", ph.DeliveryP99, ph.NetCPUPerMsgNode))
				}
			}
			if len(a) > 0 {
				p("| %d | %s | %s | %s | %s |", n, sys, strings.Join(a, ", "), strings.Join(c, "; "), strings.Join(b, "; "))
			}
		}
	}

	p("")
	p("One publisher at %.0f/s for %v (Parley's default: %.0f/s per publisher, burst 100, at every receiver); medians of the rounds:", o.overRate, o.overFor, 50.0)
	p("")
	p("| N | system | published | at msg/s | its own rate would have refused | deliveries lost (at the end) | receivers' rejections |")
	p("| --- | --- | --- | --- | --- | --- | --- |")
	for _, n := range o.ns {
		for _, sys := range r.systems() {
			rs := r.of(sys, workload.ModeBoard, n)
			if len(rs) == 0 || rs[0].OverRate == nil {
				continue
			}
			var counters []string
			for _, k := range slices.Sorted(maps.Keys(rs[0].OverRate.Counters)) {
				m, _, _ := med(rs, func(r workload.Result) float64 { return float64(r.OverRate.Counters[k]) })
				counters = append(counters, fmt.Sprintf("%s: %.0f", k, m))
			}
			if len(counters) == 0 {
				counters = []string{"none"}
			}
			p("| %d | %s | %s | %s | %s | %s of %s (%s) | %s |", n, sys,
				fmtMed(rs, 0, func(r workload.Result) float64 { return float64(r.OverRate.Messages) }),
				fmtMed(rs, 0, func(r workload.Result) float64 { return r.OverRate.Achieved }),
				fmtMed(rs, 0, func(r workload.Result) float64 { return float64(r.OverRate.Refused) }),
				fmtMed(rs, 0, func(r workload.Result) float64 { return float64(r.OverRate.Lost) }),
				fmtMed(rs, 0, func(r workload.Result) float64 { return float64(r.OverRate.Expected) }),
				fmtMed(rs, 0, func(r workload.Result) float64 { return float64(r.OverRate.LostAtEnd) }),
				strings.Join(counters, ", "))
		}
	}

	p("")
	p("Point to point, %d messages one at a time, then %d from %d senders at once; medians of the rounds:", o.seq, o.conc, o.senders)
	p("")
	p("| system | p50 ms | p99 ms | CPU/msg µs (one at a time) | msg/s | CPU/msg µs (concurrent) | errors | received |")
	p("| --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, sys := range r.systems() {
		rs := r.of(sys, workload.ModeDirect, 0)
		if len(rs) == 0 {
			continue
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s of %d |", sys,
			fmtMed(rs, 2, func(r workload.Result) float64 { return r.Direct.SeqP50 }),
			fmtMed(rs, 2, func(r workload.Result) float64 { return r.Direct.SeqP99 }),
			fmtMed(rs, 0, func(r workload.Result) float64 { return r.Direct.SeqCPU }),
			fmtMed(rs, 0, func(r workload.Result) float64 { return r.Direct.Rate }),
			fmtMed(rs, 0, func(r workload.Result) float64 { return r.Direct.RateCPU }),
			fmtMed(rs, 0, func(r workload.Result) float64 { return float64(r.Direct.Errors) }),
			fmtMed(rs, 0, func(r workload.Result) float64 { return float64(r.Direct.Received) }), rs[0].Direct.Sent)
		for _, k := range slices.Sorted(maps.Keys(rs[0].Direct.Extra)) {
			p("  - %s %s: %s", sys, k, fmtMed(rs, 1, func(r workload.Result) float64 { return r.Direct.Extra[k] }))
		}
	}

	if len(r.systems()) == 2 {
		n := o.ns[len(o.ns)-1]
		pr, wr := r.of(workload.SystemParley, workload.ModeBoard, n), r.of(workload.SystemWaku, workload.ModeBoard, n)
		if len(pr) > 0 && len(wr) > 0 {
			p("")
			p("Targets at N = %d:", n)
			target := func(name string, f func(workload.Result) float64, extra float64, unit string) {
				a, _, _ := med(pr, f)
				b, _, _ := med(wr, f)
				limit := b + extra
				verdict := "met"
				if a > limit {
					verdict = "not met"
				}
				p("- %s: Parley %.1f %s, limit %.1f %s: %s (Parley / limit %.2f)", name, a, unit, limit, unit, verdict, a/limit)
			}
			target("reach p50 at most go-waku's", reachP50, 0, "ms")
			target("reach p99 at most go-waku's", reachP99, 0, "ms")
			target("CPU per message per node at most go-waku's plus one ed25519 verify", netCPU, vm, "µs")
		}
	}
}
