//go:build gowaku_no_rln

// Command waku is the go-waku half of make bench-peers (bench/peers
// drives it; docs/benchmarks.md "Side by side with go-waku"): go-waku
// v0.10.0's relay without RLN (build tag gowaku_no_rln) on the task
// board's workload, and its lightpush point to point. It is a module of
// its own because go-waku needs go-libp2p v0.39 and its fork of
// go-libp2p-pubsub, and Parley v0.52 and the upstream pubsub v0.19: one
// build cannot hold both.
//
// Like the Parley worker it reads a workload.Plan on its standard input
// and writes a workload.Result on its standard output.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	ethcrypto "github.com/ethereum/go-ethereum/crypto"
	"github.com/libp2p/go-libp2p"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/muxer/yamux"
	"github.com/libp2p/go-libp2p/p2p/net/connmgr"
	"github.com/libp2p/go-libp2p/p2p/security/noise"
	"github.com/libp2p/go-libp2p/p2p/transport/tcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/waku-org/go-waku/waku/v2/node"
	"github.com/waku-org/go-waku/waku/v2/protocol"
	"github.com/waku-org/go-waku/waku/v2/protocol/lightpush"
	"github.com/waku-org/go-waku/waku/v2/protocol/pb"
	"github.com/waku-org/go-waku/waku/v2/protocol/relay"
	"go.uber.org/zap"
	"golang.org/x/time/rate"
	"google.golang.org/protobuf/proto"

	"github.com/parleynet/parley/bench/workload"
)

// The topics: go-waku's default pubsub topic, and a content topic of the
// benchmark's own.
var (
	pubsubTopic  = relay.DefaultWakuTopic
	contentTopic = "/parley-bench/1/board/proto"
)

func main() {
	// The result goes to the real standard output; anything a library
	// prints to "stdout" goes to standard error instead.
	out := os.Stdout
	os.Stdout = os.Stderr
	p, err := workload.ReadPlan(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	res := workload.Result{System: p.System, Mode: p.Mode, Round: p.Round, N: p.N, Notes: notes()}
	if p.Mode == workload.ModeDirect {
		err = runDirect(ctx, p, &res)
	} else {
		err = runBoard(ctx, p, &res)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-waku worker:", err)
		os.Exit(1)
	}
	if err := workload.WriteResult(out, res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// notes names the versions this worker was built with.
func notes() map[string]string {
	n := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			switch m.Path {
			case "github.com/waku-org/go-waku", "github.com/libp2p/go-libp2p", "github.com/libp2p/go-libp2p-pubsub":
				v := m.Version
				if m.Replace != nil {
					v += " => " + m.Replace.Path + " " + m.Replace.Version
				}
				n[m.Path] = v
			}
		}
	}
	n["relay"] = "no RLN (gowaku_no_rln), no validator beyond decoding the WakuMessage; gossipsub D=4 (Dlo 4, Dhi 8), flood publish"
	return n
}

// newNode builds and starts one go-waku node on 127.0.0.1 with what a
// benchmark on one machine must set: its own connection manager (go-waku's
// DefaultLibP2POptions share one among every node of a process; the same
// 200/300 watermarks, no grace), TCP + Noise + yamux as Parley's nodes (no
// QUIC, WebTransport, NAT service or hole punching), libp2p's metrics off
// (as Parley's), its own Prometheus registry for go-waku's metrics (the
// default options share one), a per-IP connection limit above the node
// count (every peer is 127.0.0.1; go-waku allows 5 per IP), and 127.0.0.0/8
// exempt from gossipsub's IP colocation penalty, as Parley exempts it.
// No discovery of any kind is on: nodes meet only by the plan's dials.
func newNode(ctx context.Context, n int, opts ...node.WakuNodeOption) (*node.WakuNode, error) {
	key, err := ethcrypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	cm, err := connmgr.NewConnManager(200, 300, connmgr.WithGracePeriod(0))
	if err != nil {
		return nil, err
	}
	base := []node.WakuNodeOption{
		node.WithHostAddress(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 0}),
		node.WithPrivateKey(key),
		node.WithLogger(zap.NewNop()), // and go-log's (libp2p's) loggers with it
		node.WithPrometheusRegisterer(prometheus.NewRegistry()),
		node.WithMaxConnectionsPerIP(n + 16),
		node.WithLibP2POptions(
			libp2p.Transport(tcp.NewTCPTransport),
			libp2p.Security(noise.ID, noise.New),
			libp2p.Muxer(yamux.ID, yamux.DefaultTransport),
			libp2p.UserAgent(node.UserAgent),
			libp2p.ConnectionManager(cm),
			libp2p.DisableMetrics(),
		),
	}
	w, err := node.New(append(base, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := exemptLoopback(w.Relay()); err != nil {
		return nil, err
	}
	if err := w.Start(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// exemptLoopback adds 127.0.0.0/8 to the IP colocation whitelist of the
// relay's peer-score parameters before the relay starts. go-waku penalises
// every peer sharing an IP with more than 5 others (-50 per extra peer,
// squared), which on one machine would push a node with 10 peers below
// its publish threshold and one with 20 below its graylist (where it
// disconnects them); Parley's scores whitelist loopback the same way.
// go-waku takes no option for it, so the field is set by reflection, and
// a renamed field fails loudly rather than run with the penalty.
func exemptLoopback(r *relay.WakuRelay) error {
	f := reflect.ValueOf(r).Elem().FieldByName("peerScoreParams")
	if !f.IsValid() || f.Type() != reflect.TypeOf((*pubsub.PeerScoreParams)(nil)) {
		return errors.New("relay.WakuRelay has no peerScoreParams *pubsub.PeerScoreParams any more")
	}
	params := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(*pubsub.PeerScoreParams)
	if params == nil {
		return errors.New("relay.WakuRelay's peerScoreParams is not set")
	}
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	params.IPColocationFactorWhitelist = append(params.IPColocationFactorWhitelist, loopback)
	return nil
}

// message builds message seq: the payload is seq (8 bytes) and padding,
// sized so that the WakuMessage on the wire is size bytes.
func message(seq, size int) (*pb.WakuMessage, error) {
	build := func(payload int) *pb.WakuMessage {
		p := make([]byte, payload)
		binary.BigEndian.PutUint64(p, uint64(seq))
		for i := 8; i < len(p); i++ {
			p[i] = 'x'
		}
		return &pb.WakuMessage{Payload: p, ContentTopic: contentTopic, Timestamp: proto.Int64(time.Now().UnixNano())}
	}
	payload := size - (proto.Size(build(8)) - 8)
	for range 3 { // the payload's length prefix may take a byte more or less
		m := build(max(8, payload))
		switch s := proto.Size(m); {
		case s == size:
			return m, nil
		case s > size:
			payload--
		default:
			payload++
		}
	}
	return nil, fmt.Errorf("no payload makes a %d-byte WakuMessage", size)
}

func seqOf(m *pb.WakuMessage) int {
	if len(m.Payload) < 8 {
		return -1
	}
	return int(binary.BigEndian.Uint64(m.Payload))
}

// --- relay -------------------------------------------------------------------

type board struct {
	nodes    []*node.WakuNode
	msgBytes int
}

func runBoard(ctx context.Context, p workload.Plan, res *workload.Result) error {
	t := workload.NewTracker(p.N, workload.MaxMessages(p))
	b := &board{nodes: make([]*node.WakuNode, p.N), msgBytes: p.MsgBytes}
	res.BaseHeapMiB = workload.HeapMiB()
	t0 := time.Now()
	err := parallel(p.N, 8, func(i int) error {
		w, err := newNode(ctx, p.N, node.WithWakuRelay())
		if err != nil {
			return err
		}
		b.nodes[i] = w
		subs, err := w.Relay().Subscribe(ctx, protocol.NewContentFilter(pubsubTopic, contentTopic))
		if err != nil {
			return err
		}
		go func() {
			for env := range subs[0].Ch {
				t.Got(i, seqOf(env.Message()))
			}
		}()
		return nil
	})
	defer b.close()
	if err != nil {
		return err
	}
	if err := parallel(len(p.Edges), 16, func(k int) error {
		from, to := b.nodes[p.Edges[k][0]], b.nodes[p.Edges[k][1]].Host()
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return from.DialPeerWithInfo(cctx, peer.AddrInfo{ID: to.ID(), Addrs: to.Addrs()})
	}); err != nil {
		return err
	}
	res.StartMs = float64(time.Since(t0)) / float64(time.Millisecond)
	m, err := message(0, p.MsgBytes)
	if err != nil {
		return err
	}
	res.WireBytes = proto.Size(m)
	res.Notes["message"] = fmt.Sprintf("WakuMessage of %d bytes: %d-byte payload, content topic, timestamp", res.WireBytes, len(m.Payload))
	return workload.RunBoard(ctx, p, b, t, res)
}

func (b *board) Publish(ctx context.Context, from, seq int) error {
	m, err := message(seq, b.msgBytes)
	if err != nil {
		return err
	}
	_, err = b.nodes[from].Relay().Publish(ctx, m, relay.WithPubSubTopic(pubsubTopic))
	return err
}

func (b *board) TopicPeers(i int) int {
	return len(b.nodes[i].Relay().PubSub().ListPeers(pubsubTopic))
}
func (b *board) Peers(i int) int            { return b.nodes[i].PeerCount() }
func (b *board) Reserve(int) bool           { return true } // no per-publisher rate without RLN
func (b *board) Counters() map[string]int64 { return nil }

func (b *board) close() {
	_ = parallel(len(b.nodes), 16, func(i int) error {
		if b.nodes[i] != nil {
			b.nodes[i].Stop()
		}
		return nil
	})
}

// --- lightpush -----------------------------------------------------------------

// pair is A, a light client (no relay), pushing to B, a service node
// (relay and lightpush), whose relay subscription is the receiving
// application. B's lightpush rate limit (go-waku's default: 1 request
// per second per peer, burst 1) is lifted, so that the protocol itself
// is measured; what the default does is measured beside it (Extra).
type pair struct {
	a, b     *node.WakuNode
	msgBytes int
	got      atomic.Int64
}

func runDirect(ctx context.Context, p workload.Plan, res *workload.Result) error {
	pp := &pair{msgBytes: p.MsgBytes}
	var err error
	if pp.b, err = newNode(ctx, 2, node.WithWakuRelay(), node.WithLightPush(lightpush.WithRateLimiter(rate.Inf, 1))); err != nil {
		return err
	}
	defer pp.b.Stop()
	if pp.a, err = newNode(ctx, 2); err != nil {
		return err
	}
	defer pp.a.Stop()
	subs, err := pp.b.Relay().Subscribe(ctx, protocol.NewContentFilter(pubsubTopic, contentTopic))
	if err != nil {
		return err
	}
	go func() {
		for range subs[0].Ch {
			pp.got.Add(1)
		}
	}()
	if err := dial(ctx, pp.a, pp.b); err != nil {
		return err
	}
	m, err := message(0, p.MsgBytes)
	if err != nil {
		return err
	}
	res.WireBytes = proto.Size(m)
	res.Notes["message"] = fmt.Sprintf("WakuMessage of %d bytes in a lightpush PushRequest", res.WireBytes)
	workload.RunDirect(ctx, p, pp, res)

	// go-waku's default limit on the service node: ten pushes back to back.
	def, err := newNode(ctx, 2, node.WithWakuRelay(), node.WithLightPush())
	if err != nil {
		return err
	}
	defer def.Stop()
	if _, err := def.Relay().Subscribe(ctx, protocol.NewContentFilter(pubsubTopic, contentTopic), relay.WithoutConsumer()); err != nil {
		return err
	}
	if err := dial(ctx, pp.a, def); err != nil {
		return err
	}
	refused := 0
	for i := range 10 {
		m, _ := message(i, p.MsgBytes)
		if _, err := pp.a.Lightpush().Publish(ctx, m, lightpush.WithPeer(def.Host().ID()), lightpush.WithPubSubTopic(pubsubTopic)); err != nil {
			refused++
		}
	}
	res.Direct.Extra = map[string]float64{"with the default limit (1/s per peer, burst 1), of 10 pushes back to back, refused": float64(refused)}
	return nil
}

func dial(ctx context.Context, from, to *node.WakuNode) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return from.DialPeerWithInfo(cctx, peer.AddrInfo{ID: to.Host().ID(), Addrs: to.Host().Addrs()})
}

// Send pushes one message to B and returns on B's answer (after B's relay
// published it); a refusal is an error.
func (pp *pair) Send(ctx context.Context, _, i int) error {
	m, err := message(i, pp.msgBytes)
	if err != nil {
		return err
	}
	_, err = pp.a.Lightpush().Publish(ctx, m, lightpush.WithPeer(pp.b.Host().ID()), lightpush.WithPubSubTopic(pubsubTopic))
	return err
}

func (pp *pair) Received() int { return int(pp.got.Load()) }

// parallel runs f(0..n-1), at most width at a time, and returns the
// errors.
func parallel(n, width int, f func(i int) error) error {
	sem := make(chan struct{}, width)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
