package p2p_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"golang.org/x/crypto/chacha20poly1305"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// Benchmarks of docs/benchmarks.md ("Transport"): Parley's path (build and
// sign, the sender's one synced commit of the envelope.sent entry and its
// outbox item as the node's send step writes them, seal, send, open,
// decode, verify, receiver's ledger write, ack, outbox settle) against a
// raw hop over the same libp2p hosts that does the same cryptography and
// the same durable writes per envelope without Parley's layers.

// benchHandler stores each envelope in the ledger, concurrently (the
// ledger group-commits concurrent appends).
type benchHandler struct{ l *ledger.Ledger }

func (h benchHandler) HandleEnvelope(ctx context.Context, d p2p.Delivery) negotiation.Code {
	_, existed, err := h.l.AppendEnvelope(ctx, ledger.KindEnvelopeReceived, d.Envelope, "ok", time.Now())
	switch {
	case err != nil:
		return "busy"
	case existed:
		return negotiation.CodeDuplicate
	}
	return "ok"
}

// acks counts A's delivered events and wakes a waiter on each. Waiting
// on its channel, not polling with a short sleep, matters for the
// latency figure: a sleep under a millisecond can last a whole one when
// the process is otherwise idle (the runtime's poller waits in
// milliseconds), which the baseline, waiting on a channel, never pays.
type acks struct {
	n    atomic.Int64
	wake chan struct{}
}

// wait returns once at least n acks came.
func (a *acks) wait(n int64) {
	for a.n.Load() < n {
		<-a.wake
	}
}

// benchPair starts A and B with B's handler writing to B's ledger.
func benchPair(b *testing.B) (a, r *testNode, acked *acks) {
	acked = &acks{wake: make(chan struct{}, 1)}
	count := func(c *p2p.Config) {
		prev := c.OnEvent
		c.OnEvent = func(e p2p.Event) {
			if e.Kind == p2p.EventDelivered {
				acked.n.Add(1)
				select {
				case acked.wake <- struct{}{}:
				default:
				}
			}
			prev(e)
		}
	}
	r = newNode(b)
	r.stop()
	r.start(func(c *p2p.Config) { c.Handler = benchHandler{r.led}; c.OnEvent = func(p2p.Event) {} })
	a = newNode(b, count, func(c *p2p.Config) { c.OnEvent = func(p2p.Event) {} }, count)
	connect(b, a, r)
	return a, r, acked
}

const benchNegotiations = 64

// BenchmarkParleyOneWay sends b.N envelopes A to B from 32 goroutines on
// the node's path (sendRecorded: the envelope.sent entry and the outbox
// item in one commit, group-committed across the goroutines) and reports
// envelopes/s until the last is acked, and the sender's synced commits
// per envelope (settlements included).
func BenchmarkParleyOneWay(b *testing.B) {
	a, r, acked := benchPair(b)
	commits0, _ := a.led.Stats()
	nids := make([]string, benchNegotiations)
	for i := range nids {
		nids[i] = newNID()
	}
	var next atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each sender goroutine keeps its own chains (two negotiations).
			me := &testNode{kr: a.kr, seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}}
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				env, err := me.build(nids[(2*g+int(i%2))%benchNegotiations], time.Now(), []negotiationAddress{r.addr()})
				if err != nil {
					b.Error(err)
					return
				}
				if err := a.sendRecorded(context.Background(), env); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	acked.wait(int64(b.N))
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "env/s")
	commits, _ := a.led.Stats()
	b.ReportMetric(float64(commits-commits0)/float64(b.N), "sender-commits/env")
}

// BenchmarkParleyReqResp sends one envelope at a time on the node's path
// and waits for its ack; it reports p50 and p99.
func BenchmarkParleyReqResp(b *testing.B) {
	a, r, acked := benchPair(b)
	nid := newNID()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		env, err := a.build(nid, t0, []negotiationAddress{r.addr()})
		if err != nil {
			b.Fatal(err)
		}
		if err := a.sendRecorded(context.Background(), env); err != nil {
			b.Fatal(err)
		}
		acked.wait(int64(i + 1))
		lat = append(lat, time.Since(t0))
	}
	reportPercentiles(b, lat)
}

type negotiationAddress = negotiation.Address

func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// --- baseline: a raw hop -------------------------------------------------

const rawProtocol = "/parley-bench/raw/1"

// rawHop is the baseline: ed25519 sign, one XChaCha20-Poly1305 seal with a
// cached key, a length-prefixed write on one reused stream; the receiver
// opens, verifies, writes the bytes to its ledger (group-committed, as
// Parley's path) and acks with the frame id.
type rawHop struct {
	// sent, when set, is the sender's ledger: the hop then also writes each
	// message durably before sending it, as Parley's outbox does.
	sent *ledger.Ledger
	s    network.Stream
	r    *bufio.Reader
	priv ed25519.PrivateKey
	aead interface {
		Seal(dst, nonce, plaintext, additionalData []byte) []byte
	}
	mu    sync.Mutex
	next  uint64
	waits map[uint64]chan struct{}
}

func newRawHop(b *testing.B, senderWrites bool) (*rawHop, []byte) {
	a, r := newNode(b), newNode(b)
	key := make([]byte, chacha20poly1305.KeySize)
	_, _ = rand.Read(key)
	aead, _ := chacha20poly1305.NewX(key)
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	led := r.led
	r.host.Libp2p().SetStreamHandler(rawProtocol, func(s network.Stream) {
		defer s.Close()
		br := bufio.NewReaderSize(s, 64<<10)
		var wmu sync.Mutex
		sem := make(chan struct{}, 64)
		var wg sync.WaitGroup
		defer wg.Wait()
		for {
			n, err := binary.ReadUvarint(br)
			if err != nil {
				return
			}
			frame := make([]byte, n)
			if _, err := io.ReadFull(br, frame); err != nil {
				return
			}
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				id := frame[:8]
				nonce := frame[8 : 8+24]
				pt, err := aead.Open(nil, nonce, frame[32:], nil)
				if err != nil {
					return
				}
				msg, sig := pt[:len(pt)-64], pt[len(pt)-64:]
				if !ed25519.Verify(pub, msg, sig) {
					return
				}
				if _, _, err := led.Append(context.Background(), ledger.Record{Kind: "bench.raw", Object: msg, ObjectCodec: ledger.CodecRaw}); err != nil {
					return
				}
				wmu.Lock()
				_, _ = s.Write(id)
				wmu.Unlock()
			}()
		}
	})
	if err := a.host.Libp2p().Connect(context.Background(), r.info()); err != nil {
		b.Fatal(err)
	}
	s, err := a.host.Libp2p().NewStream(context.Background(), r.host.ID(), rawProtocol)
	if err != nil {
		b.Fatal(err)
	}
	h := &rawHop{s: s, r: bufio.NewReader(s), priv: priv, aead: aead, waits: map[uint64]chan struct{}{}}
	if senderWrites {
		h.sent = a.led
	}
	go func() {
		var id [8]byte
		for {
			if _, err := io.ReadFull(h.r, id[:]); err != nil {
				return
			}
			h.mu.Lock()
			c := h.waits[binary.BigEndian.Uint64(id[:])]
			delete(h.waits, binary.BigEndian.Uint64(id[:]))
			h.mu.Unlock()
			if c != nil {
				close(c)
			}
		}
	}()
	env := a.envelope(newNID(), r.addr())
	return h, env.Bytes()
}

// send does the sender's half for one message and returns a channel closed
// on its ack. Each message is made unique so the ledger stores each.
func (h *rawHop) send(msg []byte) chan struct{} {
	m := make([]byte, len(msg)+8)
	copy(m, msg)
	h.mu.Lock()
	h.next++
	id := h.next
	done := make(chan struct{})
	h.waits[id] = done
	h.mu.Unlock()
	binary.BigEndian.PutUint64(m[len(msg):], id)
	if h.sent != nil {
		if _, _, err := h.sent.Append(context.Background(), ledger.Record{Kind: "bench.sent", Object: m, ObjectCodec: ledger.CodecRaw}); err != nil {
			close(done)
			return done
		}
	}
	pt := append(m, ed25519.Sign(h.priv, m)...)
	frame := make([]byte, 32, 32+len(pt)+16)
	binary.BigEndian.PutUint64(frame, id)
	_, _ = rand.Read(frame[8:32])
	frame = h.aead.Seal(frame, frame[8:32], pt, nil)
	out := binary.AppendUvarint(nil, uint64(len(frame)))
	out = append(out, frame...)
	h.mu.Lock()
	_, _ = h.s.Write(out)
	h.mu.Unlock()
	return done
}

// The baselines run twice: with the receiver's durable write only (the raw
// hop of the design notes), and with a durable write on each side as
// Parley's path makes (the sender's outbox, the receiver's ledger).
func BenchmarkBaselineOneWay(b *testing.B) {
	for _, both := range []bool{false, true} {
		b.Run(writesName(both), func(b *testing.B) {
			h, msg := newRawHop(b, both)
			sem := make(chan struct{}, 256)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				sem <- struct{}{}
				done := h.send(msg)
				wg.Add(1)
				go func() { <-done; <-sem; wg.Done() }()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "env/s")
		})
	}
}

func BenchmarkBaselineReqResp(b *testing.B) {
	for _, both := range []bool{false, true} {
		b.Run(writesName(both), func(b *testing.B) {
			h, msg := newRawHop(b, both)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				<-h.send(msg)
				lat = append(lat, time.Since(t0))
			}
			reportPercentiles(b, lat)
		})
	}
}

func writesName(both bool) string {
	if both {
		return "sender-and-receiver-writes"
	}
	return "receiver-write"
}

// BenchmarkIdleNodeMemory reports the heap an idle started node holds
// (host, protocols, gossipsub, an empty ledger), after GC.
func BenchmarkIdleNodeMemory(b *testing.B) {
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n := newNode(b)
		time.Sleep(2 * time.Second) // let it settle (heartbeats, first sweeps)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "heap-MiB")
		n.stop()
	}
}
