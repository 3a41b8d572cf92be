package hostile

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/transport/tcp"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/p2p"
)

// Config configures a Peer.
type Config struct {
	// Identity, when set, is the peer's libp2p identity and the link
	// Identify presents. nil: a random libp2p key and no link, a peer that
	// can never identify itself.
	Identity *Identity
	// Gossip runs a gossipsub router (no signing, no validators) joined to
	// the task board, so that Publish can send whatever it is given.
	Gossip bool
	// Listen makes the peer listen on 127.0.0.1 (ephemeral TCP port), so
	// that others can dial it; by default it only dials.
	Listen bool
}

// Peer is a hostile libp2p peer on loopback.
type Peer struct {
	cfg   Config
	host  host.Host
	board *pubsub.Topic
	stop  context.CancelFunc
	wg    sync.WaitGroup
}

// Start builds the peer's libp2p host (TCP on loopback, Noise, yamux, no
// relay, no metrics, no resource limits of its own) and, with Gossip, its
// gossipsub router on the task board.
func Start(ctx context.Context, cfg Config) (*Peer, error) {
	opts := []libp2p.Option{
		libp2p.Transport(tcp.NewTCPTransport),
		libp2p.DisableRelay(),
		libp2p.DisableMetrics(),
		libp2p.ResourceManager(&network.NullResourceManager{}),
	}
	if cfg.Listen {
		opts = append(opts, libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	} else {
		opts = append(opts, libp2p.NoListenAddrs)
	}
	if cfg.Identity != nil {
		k, err := cfg.Identity.Inbox.LibP2PKey()
		if err != nil {
			return nil, err
		}
		opts = append(opts, libp2p.Identity(k))
	}
	h, err := libp2p.New(opts...)
	if err != nil {
		return nil, err
	}
	p := &Peer{cfg: cfg, host: h}
	if !cfg.Gossip {
		p.stop = func() {}
		return p, nil
	}
	gctx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	ps, err := pubsub.NewGossipSub(gctx, h,
		pubsub.WithMessageSignaturePolicy(pubsub.StrictNoSign), pubsub.WithNoAuthor(), pubsub.WithFloodPublish(true),
		pubsub.WithMessageIdFn(func(m *pb.Message) string { s := sha256.Sum256(m.Data); return string(s[:]) }))
	if err == nil {
		p.board, err = ps.Join(p2p.TopicTaskBoard)
	}
	var sub *pubsub.Subscription
	if err == nil {
		sub, err = p.board.Subscribe()
	}
	if err != nil {
		cancel()
		_ = h.Close()
		return nil, err
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer sub.Cancel()
		for {
			if _, err := sub.Next(gctx); err != nil {
				return
			}
		}
	}()
	return p, nil
}

// Close stops the peer and waits for its goroutines; safe to call twice.
func (p *Peer) Close() error {
	p.stop()
	err := p.host.Close()
	p.wg.Wait()
	return err
}

// ID returns the peer's libp2p id.
func (p *Peer) ID() peer.ID { return p.host.ID() }

// Host returns the peer's libp2p host.
func (p *Peer) Host() host.Host { return p.host }

// Connect dials ai (and does nothing else: no identity handshake).
func (p *Peer) Connect(ctx context.Context, ai peer.AddrInfo) error { return p.host.Connect(ctx, ai) }

// Connected reports whether the peer holds a connection to to.
func (p *Peer) Connected(to peer.ID) bool {
	return p.host.Network().Connectedness(to) == network.Connected
}

// Identify runs /parley/identity/1 with to as the dialler: it presents the
// peer's link and returns the verified link to answered with.
func (p *Peer) Identify(ctx context.Context, to peer.ID) (*identity.Link, error) {
	if p.cfg.Identity == nil {
		return nil, errors.New("hostile: a peer without an identity cannot identify")
	}
	s, err := p.host.NewStream(ctx, to, p2p.ProtocolIdentity)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	_ = s.SetDeadline(time.Now().Add(30 * time.Second))
	link := p.cfg.Identity.Link.Bytes()
	if _, err := s.Write(append(binary.AppendUvarint(nil, uint64(len(link))), link...)); err != nil {
		return nil, err
	}
	if err := s.CloseWrite(); err != nil {
		return nil, err
	}
	r := bufio.NewReader(s)
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, fmt.Errorf("hostile: no answer to the handshake: %w", err)
	}
	if n > 64<<10 {
		return nil, errors.New("hostile: answer too large")
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return identity.DecodeLink(b, time.Now())
}

// Publish publishes data on the task board as it is (Gossip only).
func (p *Peer) Publish(ctx context.Context, data []byte) error {
	if p.board == nil {
		return errors.New("hostile: no gossip")
	}
	return p.board.Publish(ctx, data)
}

// BoardPeers returns the peers the router knows on the task board.
func (p *Peer) BoardPeers() []peer.ID {
	if p.board == nil {
		return nil
	}
	return p.board.ListPeers()
}

// Result is what one flood did.
type Result struct {
	// Written is how many frames were written; Acked how many acks came,
	// and Acks counts them by code.
	Written, Acked int
	Acks           map[p2p.Code]int
	// Elapsed is from the first write to the end of the flood.
	Elapsed time.Duration
	// Err is why the flood ended before every frame was acked (the stream
	// was reset, the context ended, no ack came for AckIdle); nil when
	// every frame was acked.
	Err error
}

// AckIdle is how long a flood waits for the next ack before it gives up.
const AckIdle = 10 * time.Second

// Flood opens a new /parley/envelope/1 stream to to and writes n frames,
// frame(i) being the sealed bytes of the i-th, as fast as the stream takes
// them and without waiting for acks; it counts the acks until every frame
// is acked, the stream ends, no ack comes for AckIdle, or ctx ends.
func (p *Peer) Flood(ctx context.Context, to peer.ID, n int, frame func(i int) []byte) Result {
	res := Result{Acks: map[p2p.Code]int{}}
	s, err := p.host.NewStream(ctx, to, p2p.ProtocolEnvelope)
	if err != nil {
		res.Err = err
		return res
	}
	defer func() { _ = s.Reset() }()
	if d, ok := ctx.Deadline(); ok {
		_ = s.SetWriteDeadline(d)
	}
	start := time.Now()
	done := make(chan struct{})
	defer close(done)
	acks := make(chan p2p.Code, 1024)
	readErr := make(chan error, 1)
	go func() {
		defer close(acks)
		r := bufio.NewReader(s)
		for {
			_ = s.SetReadDeadline(time.Now().Add(AckIdle))
			code, err := readAck(r)
			if err != nil {
				readErr <- err
				return
			}
			select {
			case acks <- code:
			case <-done:
				return
			}
		}
	}()
	var written atomic.Int64
	wrote := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(s, 64<<10)
		var err error
		for i := range n {
			if ctx.Err() != nil {
				err = ctx.Err()
				break
			}
			body := binary.AppendUvarint(nil, uint64(i+1))
			body = append(body, frame(i)...)
			if _, err = w.Write(append(binary.AppendUvarint(nil, uint64(len(body))), body...)); err != nil {
				break
			}
			written.Add(1)
		}
		if err == nil {
			err = w.Flush()
		}
		wrote <- err
	}()
	finish := func(err error) Result {
		res.Written = int(written.Load())
		res.Elapsed = time.Since(start)
		res.Err = err
		return res
	}
	writing := true
	var werr error
	for {
		select {
		case code, ok := <-acks:
			if !ok {
				if writing {
					_ = s.Reset()
					werr = <-wrote
				}
				return finish(errors.Join(werr, <-readErr))
			}
			res.Acked++
			res.Acks[code]++
			if !writing && res.Acked >= int(written.Load()) {
				return finish(nil)
			}
		case werr = <-wrote:
			writing = false
			if res.Acked >= int(written.Load()) {
				return finish(werr)
			}
		case <-ctx.Done():
			_ = s.Reset()
			if writing {
				<-wrote
			}
			return finish(ctx.Err())
		}
	}
}

// readAck reads one ack and returns its code.
func readAck(r *bufio.Reader) (p2p.Code, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", err
	}
	if n > 1024 {
		return "", errors.New("hostile: ack too large")
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	_, k := binary.Uvarint(b)
	if k <= 0 || len(b) < k+1 || len(b) < k+1+int(b[k]) {
		return "", errors.New("hostile: bad ack")
	}
	return p2p.Code(b[k+1 : k+1+int(b[k])]), nil
}
