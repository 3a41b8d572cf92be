package workload

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"time"
)

// Board is one system's N running nodes on one gossip topic, built and
// connected along Plan.Edges by the worker.
type Board interface {
	// Publish publishes message seq from node from, as a Plan.MsgBytes
	// wire message; every node's application that receives it calls
	// Tracker.Got.
	Publish(ctx context.Context, from, seq int) error
	// TopicPeers is how many peers node i knows on the topic.
	TopicPeers(i int) int
	// Peers is how many peers node i is connected to.
	Peers(i int) int
	// Reserve asks node from's own publishing rate for one message now
	// (Parley's ReserveAnnouncement); a system without one returns true.
	Reserve(from int) bool
	// Counters are the system's own running counts (input rejected, by
	// code), read before and after each phase.
	Counters() map[string]int64
}

// Publishers is how many nodes publish (all of them when there are
// fewer).
const Publishers = 30

// MaxMessages is how many messages RunBoard may publish under plan p,
// for NewTracker.
func MaxMessages(p Plan) int {
	n := p.N + p.Messages + int(p.OverRate*p.OverFor.Seconds()) + 1
	for _, r := range p.Rates {
		n += int(r*p.Step.Seconds()) + 1
	}
	return n
}

// RunBoard measures a started board: it waits until every node has a
// topic peer and the mesh has settled, takes the heap and the idle CPU,
// then runs
//
//   - the first phase: each of the publishers (Publishers nodes in a
//     seeded order) publishes once, Interval apart, so each message is the
//     first its receivers get from its publisher (Parley verifies a
//     publisher's identity link then, and caches it);
//   - the latency phase: Messages from publishers drawn at random among
//     them, Interval apart, every one known to every node by then;
//   - the rate sweep: each rate for Step, from the publishers in turn,
//     stopping after the first rate that lost deliveries or could not be
//     published at 80% of the rate asked;
//   - the over-limit phase: one publisher alone at OverRate for OverFor.
//
// The CPU profile, when asked for, covers the latency phase and the
// sweep. res already holds what the worker measured while starting.
func RunBoard(ctx context.Context, p Plan, b Board, t *Tracker, res *Result) error {
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; i < p.N; i++ {
		for b.TopicPeers(i) == 0 {
			if time.Now().After(deadline) {
				return fmt.Errorf("node %d has no topic peer after 2 minutes", i)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	time.Sleep(p.Settle)
	var peers []float64
	for i := range p.N {
		peers = append(peers, float64(b.Peers(i)))
	}
	res.PeersP50, res.PeersMax = int(Median(peers)), int(Pct(peers, 1))
	res.HeapMiB = HeapMiB()

	m := startMeter()
	time.Sleep(p.Idle)
	wall, cpu := m.stop()
	res.IdleCPU = cpu.Seconds() / wall.Seconds()
	res.IdleWritten = float64(m.bytes()) / wall.Seconds()

	r := rand.New(rand.NewPCG(p.Seed, 7))
	seq := 0
	// run publishes count messages at target per second, message k from
	// node from(k), waits for their deliveries (Drain at most), then tail
	// more for what follows the last first delivery (duplicates, gossip),
	// and measures it all.
	run := func(target float64, count int, from func(k int) int, tail time.Duration) Phase {
		ph := Phase{Target: target}
		c0 := b.Counters()
		a := seq
		m := startMeter()
		start := time.Now()
		for k := range count {
			// Paced from the phase's start, so a slow publish is caught up
			// on rather than stretching the phase.
			if d := time.Until(start.Add(time.Duration(float64(k) / target * float64(time.Second)))); d > 0 {
				time.Sleep(d)
			}
			f := from(k)
			if !b.Reserve(f) {
				ph.Refused++
			}
			t.publishing(seq, f)
			if err := b.Publish(ctx, f, seq); err != nil {
				ph.PublishErrors++
			}
			seq++
		}
		pubWall := time.Since(start)
		ph.Achieved = float64(count) / pubWall.Seconds()
		t.wait(a, seq, time.Now().Add(p.Drain))
		time.Sleep(tail)
		wall, cpu := m.stop()
		written := m.bytes()
		t.stats(&ph, a, seq)
		ph.WallMs = ms(wall)
		mn := float64(count * p.N)
		ph.CPUPerMsgNode = us(cpu) / mn
		ph.NetCPUPerMsgNode = (us(cpu) - res.IdleCPU*us(wall)) / mn
		ph.WrittenPerMsgNode = (float64(written) - res.IdleWritten*wall.Seconds()) / mn
		ph.Counters = diff(c0, b.Counters())
		ph.start, ph.end = a, seq
		return ph
	}

	// The publishers: the first min(N, Publishers) of a seeded order.
	low := float64(time.Second) / float64(p.Interval)
	order := r.Perm(p.N)[:min(p.N, Publishers)]
	first := run(low, len(order), func(k int) int { return order[k] }, time.Second)
	res.First = &first

	if p.CPUProfile != "" {
		f, err := os.Create(p.CPUProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	// The latency phase: a low rate, publishers at random.
	lat := run(low, p.Messages, func(int) int { return order[r.IntN(len(order))] }, time.Second)
	res.Latency = &lat

	// The sweep: the publishers in turn, so that no publisher goes over a
	// per-publisher rate before the network itself is saturated.
	for _, rate := range p.Rates {
		ph := run(rate, max(1, int(rate*p.Step.Seconds())), func(k int) int { return order[k%len(order)] }, 300*time.Millisecond)
		res.Sweep = append(res.Sweep, ph)
		if ph.Lost > 0 || ph.PublishErrors > 0 || ph.Achieved < 0.8*rate {
			break
		}
	}
	if p.CPUProfile != "" {
		pprof.StopCPUProfile()
	}

	// Over the limit: one publisher alone at OverRate.
	if p.OverRate > 0 {
		over := run(p.OverRate, int(p.OverRate*p.OverFor.Seconds()), func(int) int { return order[0] }, 300*time.Millisecond)
		res.OverRate = &over
	}

	// Late deliveries are not lost: count again at the end.
	time.Sleep(2 * time.Second)
	for _, ph := range append([]*Phase{res.First, res.Latency, res.OverRate}, ptrs(res.Sweep)...) {
		if ph != nil {
			ph.LostAtEnd = t.missing(ph.start, ph.end)
		}
	}
	res.Strays, res.Dups = t.stray.Load(), t.dups.Load()
	return nil
}

func ptrs(ps []Phase) []*Phase {
	out := make([]*Phase, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}

// diff is b - a, key by key, without the zeros.
func diff(a, b map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if d := b[k] - a[k]; d != 0 {
			out[k] = d
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
