package main

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/testbed"
	"github.com/parleynet/parley/p2p"
)

// The scale run (parley testbed --scale N): N hosts on the testbed's
// internet, one `parley node run` each, the first two the others'
// bootstrap peers, and the dev chain on its own host. It measures a task
// announcement's reach to every node (p50, p99, max over several
// announcements from different nodes), each idle node's resident memory
// and the connections each holds (the connection manager's low and high
// water marks are 64 and 192 by default).

// scaleAnnouncements is how many tasks the scale run posts, each from
// another node; scaleBatch how many nodes start at once.
const (
	scaleAnnouncements = 5
	scaleBatch         = 10
	scaleMaxNodes      = 240
)

func runTestbedScale(ctx context.Context, t *tb, s *testbed.Scenario, count int) error {
	if count < 3 || count > scaleMaxNodes {
		return fmt.Errorf("--scale %d: want 3 to 240 nodes (one /24 of the testbed's internet)", count)
	}
	began := time.Now()
	for i := 0; i < count; i++ {
		name := fmt.Sprintf("n%03d", i+1)
		if _, err := t.topo.PublicHost(name, 11+i); err != nil && !strings.Contains(err.Error(), "twice") {
			return err
		}
	}
	if err := t.topo.StaticNeighbours(); err != nil {
		return err
	}
	s.Printf("%d hosts built in %s (each with a static neighbour entry for every other)", count, time.Since(began).Round(100*time.Millisecond))
	var nodes []*tbNode
	for i := 0; i < count; i++ {
		r := tbRole{name: fmt.Sprintf("n%03d", i+1), scale: true}
		r.host = r.name
		n, err := t.newNode(r, "scale")
		if err != nil {
			return err
		}
		t.nodes[r.name] = n
		nodes = append(nodes, n)
	}
	s.Printf("%d identities made", count)
	started := time.Now()
	// Ten at a time: a hundred processes starting at once on two cores
	// starve each other (and the chain's RPC) past their start timeouts.
	for b := 0; b < len(nodes); b += scaleBatch {
		batch := nodes[b:min(b+scaleBatch, len(nodes))]
		for _, n := range batch {
			if err := t.startNode(n, tbNodeOpts{bootstraps: scaleBootstraps(t, nodes, n)}); err != nil {
				return err
			}
		}
		for _, n := range batch {
			if err := t.ready(n); err != nil {
				return err
			}
		}
	}
	s.Printf("%d node processes answering in %s", count, time.Since(started).Round(100*time.Millisecond))
	lastStart := time.Now()
	// Let the DHT and the board's mesh form, then take the idle figures.
	if err := t.until("every node to have peers", func() (bool, error) {
		for _, n := range nodes {
			st, err := n.api.Status(t.ctx)
			if err != nil || st.Network.Direct < 2 {
				return false, err
			}
		}
		return true, nil
	}); err != nil {
		return err
	}
	time.Sleep(10 * time.Second)
	var rss, pss []int64
	for _, n := range nodes {
		b, err := testbed.RSS(n.proc.Pid())
		if err != nil {
			return err
		}
		rss = append(rss, b)
		if b, err = testbed.PSS(n.proc.Pid()); err != nil {
			return err
		}
		pss = append(pss, b)
	}
	slices.Sort(rss)
	slices.Sort(pss)
	s.Printf("idle resident memory per node (RSS): p50 %.1f MB, p99 %.1f MB, max %.1f MB (target under 40 MB)", mb(pick(rss, 0.5)), mb(pick(rss, 0.99)), mb(rss[len(rss)-1]))
	s.Printf("idle proportional memory per node (PSS: the binary's shared text counted once over all): p50 %.1f MB, p99 %.1f MB", mb(pick(pss, 0.5)), mb(pick(pss, 0.99)))
	if err := scaleConns(t, s, nodes, "10 s after every node had two peers"); err != nil {
		return err
	}

	// Every node's event stream, to see each announcement arrive.
	var mu sync.Mutex
	arrivals := map[string][]scaleSeen{}
	ectx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	for _, n := range nodes {
		ch, err := n.api.Events(ectx, "")
		if err != nil {
			return fmt.Errorf("%s's events: %w", n.name, err)
		}
		go func() {
			for ev := range ch {
				if ev.Kind != node.EventAnnouncement {
					continue
				}
				mu.Lock()
				arrivals[ev.Hash] = append(arrivals[ev.Hash], scaleSeen{n.name, time.Now(), ev.At})
				mu.Unlock()
			}
		}()
	}
	var all, allSeen []time.Duration
	for k := 0; k < scaleAnnouncements; k++ {
		from := nodes[(k*len(nodes))/scaleAnnouncements+len(nodes)/(2*scaleAnnouncements)]
		posted := time.Now()
		ann, err := from.api.PostTask(t.ctx, node.TaskSpec{
			Title:      fmt.Sprintf("Scale task %d from %s", k+1, from.name),
			Milestones: []node.MilestoneSpec{{Amount: big.NewInt(1e15), Description: "all of it"}},
			Deadline:   time.Now().Add(72 * time.Hour).Truncate(time.Second),
		})
		if err != nil {
			return fmt.Errorf("%s posts: %w", from.name, err)
		}
		call := time.Since(posted)
		key := ann.Hash.String()
		if err := t.until(fmt.Sprintf("announcement %d to reach every node", k+1), func() (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return reached(arrivals[key], from.name) >= len(nodes)-1, nil
		}); err != nil {
			mu.Lock()
			got := reached(arrivals[key], from.name)
			mu.Unlock()
			return fmt.Errorf("%w: %d of %d nodes", err, got, len(nodes)-1)
		}
		mu.Lock()
		var ds, seen []time.Duration
		for _, a := range arrivals[key] {
			if a.node != from.name {
				ds = append(ds, a.at.Sub(posted))
				seen = append(seen, a.seen.Sub(posted))
			}
		}
		mu.Unlock()
		slices.Sort(ds)
		slices.Sort(seen)
		all = append(all, ds...)
		allSeen = append(allSeen, seen...)
		s.Printf("announcement %d from %s reached %d of %d nodes: p50 %s, p99 %s, max %s", k+1, from.name, len(ds), len(nodes)-1,
			pick(ds, 0.5).Round(time.Millisecond), pick(ds, 0.99).Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond))
		s.Printf("  the post's API call returned in %s; by the nodes' own event times: p50 %s, p99 %s, max %s", call.Round(time.Millisecond),
			pick(seen, 0.5).Round(time.Millisecond), pick(seen, 0.99).Round(time.Millisecond), seen[len(seen)-1].Round(time.Millisecond))
		time.Sleep(time.Second)
	}
	slices.Sort(all)
	s.Printf("reach over %d announcements: p50 %s, p99 %s, max %s (target p99 under 1 s); measured from the post's API call to each node's event", scaleAnnouncements,
		pick(all, 0.5).Round(time.Millisecond), pick(all, 0.99).Round(time.Millisecond), all[len(all)-1].Round(time.Millisecond))
	slices.Sort(allSeen)
	s.Printf("  by the nodes' own event times: p50 %s, p99 %s, max %s", pick(allSeen, 0.5).Round(time.Millisecond), pick(allSeen, 0.99).Round(time.Millisecond), allSeen[len(allSeen)-1].Round(time.Millisecond))
	// Connections are trimmed only once they are older than the
	// connection manager's grace period: read them again past it.
	grace := p2p.DefaultConfig().ConnGrace
	time.Sleep(time.Until(lastStart.Add(grace + 15*time.Second)))
	if err := scaleConns(t, s, nodes, fmt.Sprintf("past the connection manager's grace (%v) after the last start", grace)); err != nil {
		return err
	}
	_ = os.WriteFile(filepath.Join(t.o.dir, "scale.txt"), []byte(strings.Join(s.Lines, "\n")+"\n"), 0o600)
	return nil
}

// scaleConns prints the connections each node holds, and the connection
// manager's watermarks.
func scaleConns(t *tb, s *testbed.Scenario, nodes []*tbNode, when string) error {
	var conns []int
	for _, n := range nodes {
		st, err := n.api.Status(t.ctx)
		if err != nil {
			return err
		}
		conns = append(conns, st.Network.Direct+st.Network.Relayed)
	}
	slices.Sort(conns)
	d := p2p.DefaultConfig()
	s.Printf("connections per node, %s: min %d, p50 %d, max %d (connection manager: low %d, high %d)", when, conns[0], pick(conns, 0.5), conns[len(conns)-1], d.ConnLow, d.ConnHigh)
	return nil
}

// scaleSeen is an announcement's arrival at a node.
type scaleSeen struct {
	node string
	at   time.Time // when the testbed read the event
	seen time.Time // the event's own time: when the node took the announcement (one clock: one machine)
}

// reached counts the nodes other than from that saw an announcement, each once.
func reached(as []scaleSeen, from string) int {
	n := map[string]bool{}
	for _, a := range as {
		if a.node != from {
			n[a.node] = true
		}
	}
	return len(n)
}

// scaleBootstraps are a scale node's bootstrap peers: the first two.
func scaleBootstraps(t *tb, nodes []*tbNode, n *tbNode) []string {
	var out []string
	for _, b := range nodes[:2] {
		if b != n {
			out = append(out, t.p2pAddr(b))
		}
	}
	return out
}

func pick[T any](sorted []T, q float64) T {
	i := int(q * float64(len(sorted)))
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }
