//go:build simnet

package p2p_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/libp2p/go-libp2p/core/routing"
	mocknet "github.com/libp2p/go-libp2p/p2p/net/mock"
	"google.golang.org/protobuf/proto"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// The simulation (make simnet; docs/benchmarks.md "Simulation: 1,000
// nodes over mocknet"): SIMNET_NODES Parley Hosts in this process over
// go-libp2p's mocknet, each the real Host (identity handshake, guard,
// gossipsub with its validators and scores, the DHT with its record
// validator, outbox and mailbox) over a mocknet host instead of TCP/QUIC.
// It prints figures; it asserts only correctness: every announcement
// reaches every node, every lookup finds its record, and every envelope
// left at the store node is delivered and acknowledged exactly once.

type simParams struct {
	nodes      int           // online nodes (bootstrap and store included)
	bootstraps int           // bootstrap nodes
	dials      int           // random earlier peers each node lists beside 2 bootstrap nodes
	announce   int           // announcements, each from a different publisher
	lookups    int           // DHT lookups between random pairs
	offline    int           // recipients offline while their senders send
	latency    time.Duration // per link, one way
	bandwidth  float64       // bytes per second per link
	wave       int           // nodes started at once
	settle     time.Duration // wait after the last start
	maxHeap    uint64        // the run stops when the heap in use passes it
	// The connection manager's watermarks and grace period (production:
	// 64/192, 1 min; here 32/64, 30 s: mocknet has no resource manager,
	// and a node keeps nearly every peer its DHT queried up to them). It
	// protects only the peers a node's outbox has a stream to, as in
	// production (docs/p2p.md "Host").
	connLow, connHigh int
	connGrace         time.Duration
	pause             time.Duration // between waves, for the network to take each in
	// identify is every node's IdentifyTimeout (production's 5 s by
	// default): on a saturated machine a handshake can miss it, and each
	// close and re-dial costs another handshake.
	identify time.Duration
}

func simParamsFromEnv(t *testing.T) simParams {
	p := simParams{nodes: 1000, bootstraps: 8, dials: 3, announce: 8, lookups: 20, offline: 100,
		latency: 50 * time.Millisecond, bandwidth: 1 << 20, wave: 25, settle: 20 * time.Second, maxHeap: 12 << 30,
		connLow: 32, connHigh: 64, connGrace: 30 * time.Second, pause: 2 * time.Second, identify: p2p.DefaultIdentifyTimeout}
	ints := map[string]*int{"SIMNET_NODES": &p.nodes, "SIMNET_BOOTSTRAP": &p.bootstraps, "SIMNET_DIALS": &p.dials,
		"SIMNET_ANNOUNCE": &p.announce, "SIMNET_LOOKUPS": &p.lookups, "SIMNET_OFFLINE": &p.offline, "SIMNET_WAVE": &p.wave,
		"SIMNET_CONN_LOW": &p.connLow, "SIMNET_CONN_HIGH": &p.connHigh}
	for k, v := range ints {
		if s := os.Getenv(k); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				t.Fatalf("%s=%q: want a count", k, s)
			}
			*v = n
		}
	}
	durs := map[string]*time.Duration{"SIMNET_LATENCY": &p.latency, "SIMNET_SETTLE": &p.settle, "SIMNET_CONN_GRACE": &p.connGrace, "SIMNET_PAUSE": &p.pause, "SIMNET_IDENTIFY": &p.identify}
	for k, v := range durs {
		if s := os.Getenv(k); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil {
				t.Fatalf("%s=%q: %v", k, s, err)
			}
			*v = d
		}
	}
	if s := os.Getenv("SIMNET_MAX_HEAP_MB"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SIMNET_MAX_HEAP_MB=%q: want MiB", s)
		}
		p.maxHeap = n << 20
	}
	if s := os.Getenv("SIMNET_BANDWIDTH"); s != "" {
		b, err := strconv.ParseFloat(s, 64)
		if err != nil || b < 0 {
			t.Fatalf("SIMNET_BANDWIDTH=%q: want bytes per second", s)
		}
		p.bandwidth = b
	}
	if p.connLow < 1 || p.connHigh < p.connLow {
		t.Fatalf("SIMNET_CONN_LOW %d / SIMNET_CONN_HIGH %d: want 1 <= low <= high", p.connLow, p.connHigh)
	}
	if p.bootstraps < 1 || p.nodes < p.bootstraps+2+p.offline || p.wave < 1 {
		t.Fatalf("SIMNET_NODES %d is too few for %d bootstrap nodes, a store and %d senders", p.nodes, p.bootstraps, p.offline)
	}
	return p
}

// rxLog is what one node's handler took, with when.
type rxLog struct {
	mu    sync.Mutex
	first map[string]time.Time // CID -> first taken
	calls map[string]int       // CID -> handler calls
}

func newRxLog() *rxLog { return &rxLog{first: map[string]time.Time{}, calls: map[string]int{}} }

// HandleEnvelope takes every envelope once, as the node's ledger does
// (duplicate afterwards).
func (r *rxLog) HandleEnvelope(_ context.Context, d p2p.Delivery) negotiation.Code {
	now := time.Now()
	c := d.Envelope.CID().String()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[c]++
	if _, ok := r.first[c]; ok {
		return negotiation.CodeDuplicate
	}
	r.first[c] = now
	return "ok"
}

func (r *rxLog) got(c string) (time.Time, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first[c], r.calls[c]
}

// meter counts what one node reads on its inbound gossipsub streams: each
// RPC is decoded (uvarint-delimited pb.RPC, as gossipsub writes them) and
// its task-board messages (first copies and duplicates alike), IHAVE and
// IWANT message ids and bytes added up.
type meter struct {
	msgs, ihave, iwant, bytes atomic.Int64
}

func (m *meter) wrap(pid protocol.ID, h network.StreamHandler) network.StreamHandler {
	if !strings.HasPrefix(string(pid), "/meshsub/") {
		return h
	}
	return func(s network.Stream) { h(&meteredStream{Stream: s, m: m}) }
}

type meteredStream struct {
	network.Stream
	m   *meter
	buf []byte
}

func (s *meteredStream) Read(b []byte) (int, error) {
	n, err := s.Stream.Read(b)
	if n > 0 {
		s.m.bytes.Add(int64(n))
		s.buf = append(s.buf, b[:n]...)
		for {
			l, k := binary.Uvarint(s.buf)
			if k <= 0 || uint64(len(s.buf)-k) < l {
				break
			}
			var rpc pb.RPC
			if proto.Unmarshal(s.buf[k:k+int(l)], &rpc) == nil {
				for _, msg := range rpc.Publish {
					if msg.GetTopic() == p2p.TopicTaskBoard {
						s.m.msgs.Add(1)
					}
				}
				for _, ih := range rpc.GetControl().GetIhave() {
					s.m.ihave.Add(int64(len(ih.MessageIDs)))
				}
				for _, iw := range rpc.GetControl().GetIwant() {
					s.m.iwant.Add(int64(len(iw.MessageIDs)))
				}
			}
			s.buf = s.buf[k+int(l):]
		}
		if len(s.buf) == 0 {
			s.buf = nil
		}
	}
	return n, err
}

// memMailbox is a store node's MailboxStore in memory: it holds sealed
// envelopes per recipient, drops them when the recipient's fetch
// acknowledges them, and counts holds and acknowledgements per item.
type memMailbox struct {
	mu      sync.Mutex
	next    uint64
	mail    map[negotiation.Address][]p2p.MailItem
	seen    map[[32]byte]bool
	holds   map[negotiation.Address]int
	owner   map[uint64]negotiation.Address
	acked   map[uint64]int
	ackedAt map[uint64]time.Time
	hist    []p2p.MailItem
}

func newMemMailbox() *memMailbox {
	return &memMailbox{mail: map[negotiation.Address][]p2p.MailItem{}, seen: map[[32]byte]bool{}, holds: map[negotiation.Address]int{},
		owner: map[uint64]negotiation.Address{}, acked: map[uint64]int{}, ackedAt: map[uint64]time.Time{}}
}

func (m *memMailbox) Hold(_ context.Context, to negotiation.Address, _ peer.ID, sealed []byte) error {
	k := sha256.Sum256(append(to[:], sealed...))
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen[k] {
		return nil
	}
	m.seen[k] = true
	m.next++
	m.mail[to] = append(m.mail[to], p2p.MailItem{Cursor: m.next, Data: slices.Clone(sealed)})
	m.holds[to]++
	m.owner[m.next] = to
	return nil
}

func (m *memMailbox) Mail(_ context.Context, to negotiation.Address, after uint64, limit int) ([]p2p.MailItem, error) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var keep, out []p2p.MailItem
	for _, it := range m.mail[to] {
		if it.Cursor <= after {
			m.acked[it.Cursor]++
			m.ackedAt[it.Cursor] = now
			continue
		}
		keep = append(keep, it)
		if len(out) < limit {
			out = append(out, it)
		}
	}
	if len(keep) == 0 {
		delete(m.mail, to)
	} else {
		m.mail[to] = keep
	}
	return out, nil
}

// Record keeps the last 1024 topic messages (bounded memory).
func (m *memMailbox) Record(_ context.Context, _ string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next++
	m.hist = append(m.hist, p2p.MailItem{Cursor: m.next, Data: slices.Clone(data)})
	if len(m.hist) > 1024 {
		m.hist = slices.Delete(m.hist, 0, len(m.hist)-1024)
	}
	return nil
}

func (m *memMailbox) History(_ context.Context, _ string, after uint64, limit int) ([]p2p.MailItem, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []p2p.MailItem
	for _, it := range m.hist {
		if it.Cursor > after && len(out) < limit {
			out = append(out, it)
		}
	}
	return out, nil
}

// simNode is one node of the simulation.
type simNode struct {
	id    *memIdentity
	host  *p2p.Host
	out   *memOutbox
	rx    *rxLog
	meter *meter
	ev    *events
	// stores: the node has store peers, and catches the board up from
	// their history at each mail poll (Host.CatchUp), so its handler may
	// take an announcement again (and answer duplicate, as the node's
	// ledger does).
	stores bool
}

func (n *simNode) bootstrapAddr() string { return n.host.Addrs()[0].String() }

type sim struct {
	t     *testing.T
	p     simParams
	net   *simNet
	nodes []*simNode // online
	boot  []*simNode
	store *simNode
	mail  *memMailbox
	// board holds the announcements' CIDs: a node with store peers may
	// also take them from the store's history.
	announced map[string]bool
	peak      atomic.Uint64

	cpuAt   time.Time
	cpuUsed time.Duration
}

// newSimNode builds (not starts) a node; opt changes its configuration.
func (s *sim) newSimNode(opt func(*p2p.Config)) *simNode {
	id, err := newMemIdentity(time.Now())
	if err != nil {
		s.t.Fatal(err)
	}
	n := &simNode{id: id, rx: newRxLog(), meter: &meter{}, ev: &events{}}
	cfg, out := simConfig(s.net, id, n.rx, simHostOptions{
		ConnLow: s.p.connLow, ConnHigh: s.p.connHigh, ConnGrace: s.p.connGrace,
		Wrap: n.meter.wrap,
	})
	n.out = out
	cfg.DHTServer = true // every simulated node is publicly reachable
	cfg.IdentifyTimeout = s.p.identify
	cfg.OnEvent = n.ev.add
	if opt != nil {
		opt(&cfg)
	}
	if n.host, err = p2p.New(cfg); err != nil {
		s.t.Fatal(err)
	}
	return n
}

func (s *sim) start(n *simNode) {
	if err := n.host.Start(context.Background()); err != nil {
		s.t.Fatal(err)
	}
}

// batch runs f on each of items, at most wave at a time.
func batch[T any](wave int, items []T, f func(T)) {
	sem := make(chan struct{}, wave)
	var wg sync.WaitGroup
	for _, it := range items {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(it)
		}()
	}
	wg.Wait()
}

func pct(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func intPct(xs []int, q float64) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[max(0, min(len(s)-1, int(q*float64(len(s))+0.5)-1))]
}

func (s *sim) printf(format string, args ...any) {
	fmt.Printf("simnet: "+format+"\n", args...)
}

func (s *sim) memory(label string, nodes int) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	g := runtime.NumGoroutine()
	s.printf("memory %s: heap in use %.0f MiB (%.2f MiB per node), sys %.0f MiB, %d goroutines (%d per node)",
		label, float64(m.HeapInuse)/(1<<20), float64(m.HeapInuse)/(1<<20)/float64(nodes), float64(m.Sys)/(1<<20), g, g/nodes)
}

// cpu prints the process's CPU time since the last call, as a share of
// the machine's cores: near 100% the figures measure the scheduler's
// queue as much as the simulated network.
func (s *sim) cpu(label string) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	now := time.Now()
	if label != "" && !s.cpuAt.IsZero() {
		wall := now.Sub(s.cpuAt)
		s.printf("cpu %s: %.0f%% of %d cores over %v", label,
			100*float64(used-s.cpuUsed)/float64(wall)/float64(runtime.NumCPU()), runtime.NumCPU(), wall.Round(time.Second))
	}
	s.cpuAt, s.cpuUsed = now, used
}

func TestSimnet(t *testing.T) {
	p := simParamsFromEnv(t)
	s := &sim{t: t, p: p, announced: map[string]bool{}, net: newSimNet(mocknet.LinkOptions{Latency: p.latency, Bandwidth: p.bandwidth})}
	s.printf("%d nodes (%d bootstrap, 1 store), each listing 2 bootstrap nodes and %d random earlier peers; links %v one way, %.0f KiB/s each; %d offline recipients",
		p.nodes, p.bootstraps, p.dials, p.latency, p.bandwidth/1024, p.offline)
	s.printf("connection manager: low %d, high %d, grace %v; identify timeout %v", p.connLow, p.connHigh, p.connGrace, p.identify)
	began := time.Now()
	s.cpu("")
	stopWatch := s.watchHeap()
	defer stopWatch()
	defer s.closeAll()

	// Bootstrap nodes, each listing the ones before it; then the store.
	for range p.bootstraps {
		var boot []string
		for _, b := range s.boot {
			boot = append(boot, b.bootstrapAddr())
		}
		n := s.newSimNode(func(c *p2p.Config) { c.Bootstrap = boot })
		s.start(n)
		s.boot = append(s.boot, n)
		s.nodes = append(s.nodes, n)
	}
	s.mail = newMemMailbox()
	s.store = s.newSimNode(func(c *p2p.Config) {
		c.Bootstrap = s.bootList(nil)
		c.Mailbox = s.mail
	})
	s.start(s.store)
	s.nodes = append(s.nodes, s.store)
	storeAddr := s.store.bootstrapAddr()

	// Everyone else, in waves; the first p.offline of them send to the
	// offline recipients through the store.
	rest := p.nodes - len(s.nodes)
	for len(s.nodes) < p.nodes {
		k := min(p.wave, p.nodes-len(s.nodes))
		wave := make([]*simNode, k)
		for j := range wave {
			sender := len(s.nodes)+j-p.bootstraps-1 < p.offline
			wave[j] = s.newSimNode(func(c *p2p.Config) {
				c.Bootstrap = s.bootList(s.nodes)
				if sender {
					c.StorePeers = []string{storeAddr}
				}
			})
			wave[j].stores = sender
		}
		batch(p.wave, wave, s.start)
		s.nodes = append(s.nodes, wave...)
		if len(s.nodes)%200 < p.wave {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			s.printf("  %d started after %v, heap in use %d MiB, %d goroutines", len(s.nodes), time.Since(began).Round(time.Second), m.HeapInuse>>20, runtime.NumGoroutine())
		}
		time.Sleep(p.pause)
	}
	s.cpu("starting")
	s.printf("started %d nodes in %v (%d in waves of %d, %v apart)", len(s.nodes), time.Since(began).Round(time.Millisecond), rest, p.wave, p.pause)

	// The board's mesh: every node must have heard of topic peers.
	// (Polled once a second with a deadline of its own: each TopicPeers
	// waits for that node's pubsub loop, slow on a loaded machine.)
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(time.Second) {
		lonely := 0
		for _, n := range s.nodes {
			if len(n.host.TopicPeers(p2p.TopicTaskBoard)) == 0 {
				lonely++
			}
		}
		if lonely == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d nodes have no task-board peer after 5 minutes", lonely)
		}
	}
	time.Sleep(p.settle)
	s.printf("network formed %v after the first start (settle %v)", time.Since(began).Round(time.Millisecond), p.settle)
	s.cpu("forming")
	s.shape()
	s.memory("idle", len(s.nodes))
	s.cpu("")
	time.Sleep(10 * time.Second)
	s.cpu("idle, 10 s")

	s.board()
	s.cpu("task board")
	s.lookups()
	s.cpu("lookups")
	s.offlineDelivery()
	s.cpu("store-node delivery")
	s.shape()
	s.memory("end", len(s.nodes))
	s.printf("total %v", time.Since(began).Round(time.Second))
}

// bootList is two random bootstrap nodes and p.dials random nodes of
// earlier (started ones, not bootstrap).
func (s *sim) bootList(earlier []*simNode) []string {
	var out []string
	for _, i := range rand.Perm(len(s.boot))[:min(2, len(s.boot))] {
		out = append(out, s.boot[i].bootstrapAddr())
	}
	if len(earlier) > len(s.boot)+1 {
		others := earlier[len(s.boot)+1:]
		for _, i := range rand.Perm(len(others))[:min(s.p.dials, len(others))] {
			out = append(out, others[i].bootstrapAddr())
		}
	}
	return out
}

// shape prints connections and board peers per node, and what the guards
// refused.
func (s *sim) shape() {
	var conns, tpeers []int
	var g p2p.GuardStats
	for _, n := range s.nodes {
		conns = append(conns, len(n.host.Libp2p().Network().Peers()))
		tpeers = append(tpeers, len(n.host.TopicPeers(p2p.TopicTaskBoard)))
		st := n.host.GuardStats()
		g.RefusedConns += st.RefusedConns
		g.Evicted += st.Evicted
		g.LateClosed += st.LateClosed
		g.Bans += st.Bans
	}
	bconns := 0
	for _, b := range s.boot {
		bconns = max(bconns, len(b.host.Libp2p().Network().Peers()))
	}
	s.printf("connected peers per node: p50 %d, p99 %d, max %d (a bootstrap node: up to %d); task-board peers per node: min %d, p50 %d",
		intPct(conns, .5), intPct(conns, .99), slices.Max(conns), bconns, slices.Min(tpeers), intPct(tpeers, .5))
	s.printf("guards: %d connections refused, %d unidentified peers evicted, %d late closed, %d bans",
		g.RefusedConns, g.Evicted, g.LateClosed, g.Bans)
}

func (s *sim) meters() (msgs, ihave, iwant, bytes int64, perNode []int64) {
	for _, n := range s.nodes {
		m := n.meter.msgs.Load()
		msgs += m
		ihave += n.meter.ihave.Load()
		iwant += n.meter.iwant.Load()
		bytes += n.meter.bytes.Load()
		perNode = append(perNode, m)
	}
	return
}

// board publishes p.announce announcements from distinct random nodes
// (not bootstrap, not the store) and measures their reach.
func (s *sim) board() {
	t := s.t
	var all []time.Duration
	candidates := s.nodes[len(s.boot)+1:]
	order := rand.Perm(len(candidates))
	for k := range s.p.announce {
		pub := candidates[order[k%len(order)]]
		env, err := pub.id.envelope(newNID(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		c := env.CID().String()
		s.announced[c] = true
		m0, ih0, iw0, b0, per0 := s.meters()
		t0 := time.Now()
		if err := pub.host.Announce(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		var reached int
		for {
			reached = 0
			for _, n := range s.nodes {
				if n == pub {
					continue
				}
				if at, _ := n.rx.got(c); !at.IsZero() {
					reached++
				}
			}
			if reached == len(s.nodes)-1 || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if reached != len(s.nodes)-1 {
			// A failure, but the other phases still run and print.
			t.Errorf("announcement %d reached %d of %d nodes in 60 s", k+1, reached, len(s.nodes)-1)
		}
		// Duplicates and gossip go on for a few heartbeats after the last
		// first delivery: count them too.
		time.Sleep(3 * time.Second)
		m1, ih1, iw1, b1, per1 := s.meters()
		var ds []time.Duration
		again := 0 // handler calls after the first: catch-ups from the store's history
		for _, n := range s.nodes {
			if n == pub {
				continue
			}
			at, calls := n.rx.got(c)
			if calls == 0 {
				continue
			}
			if calls != 1 && !n.stores {
				t.Fatalf("a node's handler was called %d times for announcement %d", calls, k+1)
			}
			again += calls - 1
			ds = append(ds, at.Sub(t0))
		}
		all = append(all, ds...)
		var maxPer int64
		for i := range per1 {
			maxPer = max(maxPer, per1[i]-per0[i])
		}
		nn := float64(len(s.nodes))
		s.printf("announcement %d from node %d: reach %d/%d, p50 %s, p99 %s, max %s; per node: %.2f messages (max %d), %.1f IHAVE ids, %.2f IWANT ids, %.1f KiB gossipsub in",
			k+1, slices.Index(s.nodes, pub), reached, len(s.nodes)-1, ms(pct(ds, .5)), ms(pct(ds, .99)), ms(slices.Max(ds)),
			float64(m1-m0)/nn, maxPer, float64(ih1-ih0)/nn, float64(iw1-iw0)/nn, float64(b1-b0)/nn/1024)
		if again > 0 {
			s.printf("  taken again from the store's history (answered duplicate): %d", again)
		}
	}
	s.printf("task board, all %d announcements: reach p50 %s, p99 %s, max %s", s.p.announce, ms(pct(all, .5)), ms(pct(all, .99)), ms(slices.Max(all)))
}

// lookups looks up random nodes' records from random nodes, counting the
// DHT's query events: peers queried, and hops (the longest chain of
// referrals among the peers queried: a peer from the node's own routing
// table is hop 1, a peer first named by a hop-n peer's answer is hop n+1).
func (s *sim) lookups() {
	t := s.t
	var times []time.Duration
	var queried, hops []int
	var failed []int
	for range s.p.lookups {
		a := s.nodes[rand.IntN(len(s.nodes))]
		bi := rand.IntN(len(s.nodes))
		b := s.nodes[bi]
		for b == a {
			bi = rand.IntN(len(s.nodes))
			b = s.nodes[bi]
		}
		ctx, cancel := context.WithCancel(context.Background())
		ectx, events := routing.RegisterForQueryEvents(ctx)
		done := make(chan [2]int)
		go func() {
			depth := map[peer.ID]int{}
			sent, deepest := 0, 0
			for ev := range events {
				switch ev.Type {
				case routing.SendingQuery:
					sent++
					if depth[ev.ID] == 0 {
						depth[ev.ID] = 1
					}
					deepest = max(deepest, depth[ev.ID])
				case routing.PeerResponse:
					for _, r := range ev.Responses {
						if depth[r.ID] == 0 {
							depth[r.ID] = max(1, depth[ev.ID]) + 1
						}
					}
				}
			}
			done <- [2]int{sent, deepest}
		}()
		t0 := time.Now()
		link, err := a.host.Lookup(ectx, b.id.addr())
		d := time.Since(t0)
		cancel()
		q := <-done
		if err != nil {
			// A failure, but the other phases still run and print. The
			// target's start order tells whether it published its record
			// while the network was still small.
			t.Errorf("lookup of node %d (started %d of %d) from node %d: %v", bi, bi+1, len(s.nodes), slices.Index(s.nodes, a), err)
			failed = append(failed, bi)
			continue
		}
		if link.PeerID != b.host.ID() {
			t.Fatalf("lookup of %s found peer %s, want %s", b.id.addr(), link.PeerID, b.host.ID())
		}
		times = append(times, d)
		queried = append(queried, q[0])
		hops = append(hops, q[1])
	}
	if len(failed) > 0 {
		s.printf("DHT lookups that found nothing: %d, of nodes %v (by start order)", len(failed), failed)
	}
	if len(times) == 0 {
		return
	}
	s.printf("DHT lookup by EVM address, %d random pairs: p50 %s, p99 %s, max %s; peers queried p50 %d, max %d; hops p50 %d, max %d",
		s.p.lookups, ms(pct(times, .5)), ms(pct(times, .99)), ms(slices.Max(times)), intPct(queried, .5), slices.Max(queried), intPct(hops, .5), slices.Max(hops))
}

// offlineDelivery: the senders each send one envelope to an offline
// recipient, which only the store node can take; the recipients come back
// at once and collect. Each must be held once, taken once and acknowledged
// to the store once.
func (s *sim) offlineDelivery() {
	t := s.t
	storeAddr := s.store.bootstrapAddr()
	senders := s.nodes[len(s.boot)+1 : len(s.boot)+1+s.p.offline]
	recips := make([]*simNode, s.p.offline)
	for i := range recips {
		recips[i] = s.newSimNode(func(c *p2p.Config) {
			c.Bootstrap = s.bootList(s.nodes)
			c.StorePeers = []string{storeAddr}
			c.MailboxPoll = time.Second
		})
	}
	want := make([]string, len(recips))
	t0 := time.Now()
	for i, snd := range senders {
		r := recips[i]
		if err := snd.host.AddPeer(r.id.link, nil); err != nil {
			t.Fatal(err)
		}
		env, err := snd.id.envelope(newNID(), time.Now(), r.id.addr())
		if err != nil {
			t.Fatal(err)
		}
		want[i] = env.CID().String()
		if err := snd.host.Send(context.Background(), env); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the store to hold every envelope", func() bool {
		for _, snd := range senders {
			if len(snd.ev.of(p2p.EventHeld)) == 0 {
				return false
			}
		}
		return true
	})
	// The outbox writes its settlements in the background.
	eventually(t, "every sender's outbox to settle", func() bool {
		for _, snd := range senders {
			if st, _ := snd.out.statuses(); len(st) == 0 {
				return false
			}
		}
		return true
	})
	held := time.Since(t0)
	for i, snd := range senders {
		if n := len(snd.ev.of(p2p.EventHeld)); n != 1 {
			t.Fatalf("sender %d: %d held acks, want 1", i, n)
		}
		if n := len(snd.ev.of(p2p.EventDelivered)); n != 0 {
			t.Fatalf("sender %d: delivered to an offline recipient", i)
		}
		if st, twice := snd.out.statuses(); st[p2p.StatusHeld] != 1 || twice != 0 {
			t.Fatalf("sender %d: outbox settled %v (%d twice), want one held", i, st, twice)
		}
	}
	s.mail.mu.Lock()
	for i, r := range recips {
		if n := s.mail.holds[r.id.addr()]; n != 1 {
			s.mail.mu.Unlock()
			t.Fatalf("the store holds %d envelopes for recipient %d, want 1", n, i)
		}
	}
	s.mail.mu.Unlock()
	s.printf("store node: %d envelopes held for %d offline recipients, all held after %s", len(senders), len(recips), ms(held))

	// The recipients come back, all at once.
	g0 := s.store.host.GuardStats()
	back := make([]time.Time, len(recips))
	idx := make([]int, len(recips))
	for i := range idx {
		idx[i] = i
	}
	batch(len(recips), idx, func(i int) {
		back[i] = time.Now()
		s.start(recips[i])
	})
	s.nodes = append(s.nodes, recips...)
	var collected []time.Duration
	eventually(t, "every recipient to collect its envelope", func() bool {
		for i, r := range recips {
			if at, _ := r.rx.got(want[i]); at.IsZero() {
				return false
			}
		}
		return true
	})
	eventually(t, "every recipient to acknowledge its envelope to the store", func() bool {
		s.mail.mu.Lock()
		defer s.mail.mu.Unlock()
		return len(s.mail.mail) == 0
	})
	var acked []time.Duration
	s.mail.mu.Lock()
	byOwner := map[negotiation.Address]uint64{}
	for c, to := range s.mail.owner {
		byOwner[to] = c
		if n := s.mail.acked[c]; n != 1 {
			s.mail.mu.Unlock()
			t.Fatalf("the store's item %d was acknowledged %d times", c, n)
		}
	}
	for i, r := range recips {
		acked = append(acked, s.mail.ackedAt[byOwner[r.id.addr()]].Sub(back[i]))
	}
	s.mail.mu.Unlock()
	for i, r := range recips {
		at, calls := r.rx.got(want[i])
		if calls != 1 {
			t.Fatalf("recipient %d's handler was called %d times for its envelope", i, calls)
		}
		r.rx.mu.Lock()
		others := 0
		for c := range r.rx.first {
			if !s.announced[c] { // the board's announcements come from the store's history
				others++
			}
		}
		r.rx.mu.Unlock()
		if others != 1 {
			t.Fatalf("recipient %d took %d envelopes beside the board's, want its one", i, others)
		}
		collected = append(collected, at.Sub(back[i]))
	}
	g := s.store.host.GuardStats()
	s.printf("store node's guard while they came back: %d connections refused, %d unidentified peers evicted, %d late closed",
		g.RefusedConns-g0.RefusedConns, g.Evicted-g0.Evicted, g.LateClosed-g0.LateClosed)
	s.printf("store-node delivery to %d recipients back online: collected p50 %s, p99 %s, max %s after each came back; acknowledged to the store p50 %s, p99 %s (next poll, MailboxPoll 1 s); each held, taken and acknowledged exactly once, none lost",
		len(recips), ms(pct(collected, .5)), ms(pct(collected, .99)), ms(slices.Max(collected)), ms(pct(acked, .5)), ms(pct(acked, .99)))
}

// watchHeap stops the process when the heap in use passes p.maxHeap (the
// machine is shared: better a failed simulation than another's work
// killed), and records the peak.
func (s *sim) watchHeap() func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			s.peak.Store(max(s.peak.Load(), m.HeapInuse))
			if m.HeapInuse > s.p.maxHeap {
				fmt.Printf("simnet: heap in use %d MiB passed SIMNET_MAX_HEAP_MB %d with %d goroutines: stopping\n", m.HeapInuse>>20, s.p.maxHeap>>20, runtime.NumGoroutine())
				os.Exit(3)
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		s.printf("peak heap in use %.0f MiB", float64(s.peak.Load())/(1<<20))
	}
}

func (s *sim) closeAll() {
	t0 := time.Now()
	all := append([]*simNode{}, s.nodes...)
	batch(32, all, func(n *simNode) { _ = n.host.Close() })
	_ = s.net.mn.Close()
	s.printf("closed %d nodes in %v", len(all), time.Since(t0).Round(time.Millisecond))
}
