package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/bench/workload"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// The Parley half of the benchmark: real p2p Hosts (the identity
// handshake, the guard, gossipsub with the task board's validator and
// scores, the outbox) with production defaults except what a benchmark on
// one machine must change: TCP on 127.0.0.1 only (no QUIC, so that both
// systems run TCP + Noise + yamux), no DHT, no bootstrap peers (each node
// dials its edges of the plan's topology), mDNS and NAT traversal off (as
// by default).

// memIdentity is one node's keys in memory (no keystore, no scrypt),
// with the production KEM (ML-KEM-768 + X25519): its identity link, which
// every task-board message carries, is the production size.
type memIdentity struct {
	inbox  *identity.InboxKey
	evm    *identity.EVMKey
	enc    *identity.EncryptionKey
	link   *identity.Link
	sealer *identity.Sealer
}

func newMemIdentity(now time.Time) (*memIdentity, error) {
	inbox, err := identity.GenerateInboxKey()
	if err != nil {
		return nil, err
	}
	evm, err := identity.GenerateEVMKey()
	if err != nil {
		return nil, err
	}
	enc, err := identity.GenerateEncryptionKey(identity.KEMMLKEM768X25519, now.Add(30*24*time.Hour))
	if err != nil {
		return nil, err
	}
	link, err := identity.CreateLink(evm, inbox, []*identity.PublicEncryptionKey{enc.PublicKey()}, now.Add(-time.Minute), now.Add(90*24*time.Hour))
	if err != nil {
		return nil, err
	}
	m := &memIdentity{inbox: inbox, evm: evm, enc: enc, link: link}
	if m.sealer, err = identity.NewSealer(identity.DefaultSealerConfig(inbox, link, m)); err != nil {
		return nil, err
	}
	return m, nil
}

// EncryptionKey is the Sealer's KeyLookup.
func (m *memIdentity) EncryptionKey(id identity.KeyID) (*identity.EncryptionKey, bool) {
	if id == m.enc.ID {
		return m.enc, true
	}
	return nil, false
}

func (m *memIdentity) addr() negotiation.Address { return negotiation.Address(m.evm.Address()) }

// parleyConfig is a node's p2p configuration for the benchmark.
func parleyConfig(id *memIdentity, h p2p.Handler, out p2p.OutboxStore, onEvent func(p2p.Event)) p2p.Config {
	cfg := p2p.DefaultConfig()
	cfg.ListenAddrs = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.DHT = false
	cfg.Inbox, cfg.Sealer = id.inbox, id.sealer
	cfg.Link = func() *identity.Link { return id.link }
	cfg.Outbox, cfg.Handler, cfg.OnEvent = out, h, onEvent
	cfg.Logger = slog.New(slog.DiscardHandler)
	return cfg
}

// nonceBase keeps every message's nonce (the message's number in the run)
// the same width, so that every envelope of a run has the same size.
const nonceBase = 1_000_000_000_000

var registry = negotiation.Address{0x5f, 0xbd, 0xb2, 0x31, 0x56, 0x78, 0xaf, 0xec, 0xb3, 0x67, 0xf0, 0x32, 0xd9, 0x3f, 0x64, 0x2f, 0x64, 0x18, 0x0a, 0xa3}

// terms are the terms of message seq, with description as its
// description (the padding that sizes the message).
func terms(seq int, description string) negotiation.Terms {
	return negotiation.Terms{
		Title: fmt.Sprintf("Translate the user guide, part %08d", seq), Description: description,
		ChainID: negotiation.U64(31337), Registry: registry,
		Milestones: []negotiation.Milestone{{Amount: negotiation.U64(1000), Description: "all of it"}},
		Deadline:   uint64(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Unix()), Nonce: negotiation.U64(nonceBase + uint64(seq)),
	}
}

// seqOf is the message number an envelope of this run carries.
func seqOf(env *negotiation.Envelope) int {
	if p, ok := env.Payload.(*negotiation.TaskProposal); ok && p.Terms.Nonce.IsUint64() {
		return int(p.Terms.Nonce.Uint64() - nonceBase)
	}
	return -1
}

// sizer finds the description that makes a message want bytes long: it
// builds the message with a one-character description, then with the
// difference added (the description is ASCII, one byte a character).
func sizer(want int, build func(description string) (int, error)) (string, error) {
	n, err := build("x")
	if err != nil {
		return "", err
	}
	pad := strings.Repeat("x", 1+want-n)
	if want-n < 0 {
		return "", fmt.Errorf("a message is %d bytes with the shortest description, over %d", n, want)
	}
	if n, err = build(pad); err != nil || n != want {
		return "", fmt.Errorf("padded message is %d bytes, want %d (%v)", n, want, err)
	}
	return pad, nil
}

// --- the task board --------------------------------------------------------

type parleyBoard struct {
	nodes    []*parleyNode
	t        *workload.Tracker
	pad      string // the description that makes a board message msgBytes
	msgBytes int

	mu       sync.Mutex
	counters map[string]int64 // input rejected on the board, by code
}

type parleyNode struct {
	id   *memIdentity
	host *p2p.Host
	// envelope and link sizes of this node's messages, for the notes
	envBytes, linkBytes int
}

// announcement builds node n's announcement number seq.
func (n *parleyNode) announcement(seq int, description string) (*negotiation.Envelope, error) {
	var pk negotiation.PublicKey
	copy(pk[:], n.id.inbox.PublicKey())
	h := negotiation.Header{
		NegotiationID: uuid.NewString(), Sequence: 1, Timestamp: time.Now(),
		Sender: negotiation.Sender{EVMAddress: n.id.addr(), XMTPPublicKey: pk},
	}
	return negotiation.Build(h, &negotiation.TaskProposal{Terms: terms(seq, description)}, n.id.inbox, negotiation.DecodeOptions{})
}

// wireSize is the size of the gossipsub message that carries env: the
// bundle of the publisher's link and the envelope (p2p.bundle).
func (n *parleyNode) wireSize(env *negotiation.Envelope) int {
	l := len(n.id.link.Bytes())
	return len(binary.AppendUvarint(nil, uint64(l))) + l + len(env.Bytes())
}

func runParleyBoard(ctx context.Context, p workload.Plan, res *workload.Result) error {
	if err := negotiation.Warm(); err != nil { // as the node does at start
		return err
	}
	t := workload.NewTracker(p.N, workload.MaxMessages(p))
	b := &parleyBoard{t: t, msgBytes: p.MsgBytes, counters: map[string]int64{}}
	res.BaseHeapMiB = workload.HeapMiB()
	t0 := time.Now()
	b.nodes = make([]*parleyNode, p.N)
	err := parallel(p.N, 8, func(i int) error {
		id, err := newMemIdentity(time.Now())
		if err != nil {
			return err
		}
		handler := p2p.HandlerFunc(func(_ context.Context, d p2p.Delivery) negotiation.Code {
			t.Got(i, seqOf(d.Envelope))
			return "ok"
		})
		host, err := p2p.New(parleyConfig(id, handler, &memOutbox{}, b.event))
		if err != nil {
			return err
		}
		if err := host.Start(ctx); err != nil {
			return err
		}
		b.nodes[i] = &parleyNode{id: id, host: host}
		return nil
	})
	defer b.close()
	if err != nil {
		return err
	}
	if err := parallel(len(p.Edges), 16, func(k int) error {
		from, to := b.nodes[p.Edges[k][0]], b.nodes[p.Edges[k][1]].host
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return from.host.Connect(cctx, peer.AddrInfo{ID: to.ID(), Addrs: to.Libp2p().Addrs()})
	}); err != nil {
		return err
	}
	res.StartMs = float64(time.Since(t0)) / float64(time.Millisecond)

	n0 := b.nodes[0]
	if b.pad, err = sizer(p.MsgBytes, func(d string) (int, error) {
		env, err := n0.announcement(0, d)
		if err != nil {
			return 0, err
		}
		n0.envBytes, n0.linkBytes = len(env.Bytes()), len(n0.id.link.Bytes())
		return n0.wireSize(env), nil
	}); err != nil {
		return err
	}
	res.WireBytes = p.MsgBytes
	cfg := p2p.DefaultConfig()
	res.Notes = map[string]string{
		"envelope":   fmt.Sprintf("%d bytes (a TaskProposal announcement, JCS)", n0.envBytes),
		"link":       fmt.Sprintf("%d bytes (identity link, ML-KEM-768+X25519 key)", n0.linkBytes),
		"topic rate": fmt.Sprintf("%g/s per publisher, burst %d (p2p.DefaultConfig TopicRate, TopicBurst)", cfg.TopicRate, cfg.TopicBurst),
	}
	return workload.RunBoard(ctx, p, b, t, res)
}

func (b *parleyBoard) Publish(ctx context.Context, from, seq int) error {
	n := b.nodes[from]
	env, err := n.announcement(seq, b.pad)
	if err != nil {
		return err
	}
	if w := n.wireSize(env); w != b.msgBytes {
		return fmt.Errorf("node %d's message %d is %d bytes on the wire, want %d", from, seq, w, b.msgBytes)
	}
	return n.host.Announce(ctx, env)
}

func (b *parleyBoard) TopicPeers(i int) int {
	return len(b.nodes[i].host.TopicPeers(p2p.TopicTaskBoard))
}
func (b *parleyBoard) Peers(i int) int { return len(b.nodes[i].host.Libp2p().Network().Peers()) }
func (b *parleyBoard) Reserve(from int) bool {
	return b.nodes[from].host.ReserveAnnouncement() == 0
}

func (b *parleyBoard) Counters() map[string]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]int64, len(b.counters))
	for k, v := range b.counters {
		out[k] = v
	}
	return out
}

// event counts what the board's validators rejected, by code: a message
// over its publisher's rate is one ("over_rate"), never dropped silently.
func (b *parleyBoard) event(e p2p.Event) {
	if e.Kind != p2p.EventInputRejected || e.Topic != p2p.TopicTaskBoard {
		return
	}
	b.mu.Lock()
	b.counters["rejected "+string(e.Code)]++
	b.mu.Unlock()
}

func (b *parleyBoard) close() {
	_ = parallel(len(b.nodes), 16, func(i int) error {
		if b.nodes[i] != nil {
			_ = b.nodes[i].host.Close()
		}
		return nil
	})
}

// memOutbox is the board nodes' outbox: they send nothing directly.
type memOutbox struct{}

func (*memOutbox) Put(context.Context, p2p.OutboxItem) error { return nil }
func (*memOutbox) Settle(context.Context, p2p.OutboxItem, p2p.OutboxStatus, p2p.Code) error {
	return nil
}
func (*memOutbox) Pending(context.Context) ([]p2p.OutboxItem, error) { return nil, nil }

// --- point to point ----------------------------------------------------------

// parleyPair is A sending to B with everything durable: each node has its
// ledger (Badger, synced group commits, ledger.DefaultConfig) in a
// temporary directory, A's outbox is the node's OutboxStore over it (the
// envelope is on disk before Send returns), and B's handler appends each
// envelope to B's ledger before it answers, so the ack A waits for means
// B has it on disk. Each envelope is signed by A and sealed to B.
type parleyPair struct {
	a, b   *ledgerNode
	pad    string
	chains []*chain // one per sender goroutine

	mu      sync.Mutex
	waits   map[cid.Cid]chan struct{}
	gotB    atomic.Int64
	acked   atomic.Int64
	cleanup []func()
}

type ledgerNode struct {
	id   *memIdentity
	led  *ledger.Ledger
	host *p2p.Host
}

// chain is one negotiation's sender state: a sender goroutine's envelopes
// follow each other in it, as a party's do.
type chain struct {
	nid  string
	seq  uint64
	prev negotiation.Hash
}

func (pp *parleyPair) startNode(ctx context.Context, h p2p.Handler, onEvent func(p2p.Event)) (*ledgerNode, error) {
	dir, err := os.MkdirTemp("", "bench-peers-ledger-")
	if err != nil {
		return nil, err
	}
	pp.cleanup = append(pp.cleanup, func() { _ = os.RemoveAll(dir) })
	id, err := newMemIdentity(time.Now())
	if err != nil {
		return nil, err
	}
	lcfg := ledger.DefaultConfig()
	lcfg.Dir = dir
	led, err := ledger.New(lcfg)
	if err != nil {
		return nil, err
	}
	if err := led.Start(ctx); err != nil {
		return nil, err
	}
	pp.cleanup = append(pp.cleanup, func() { _ = led.Close() })
	n := &ledgerNode{id: id, led: led}
	if h == nil {
		h = p2p.HandlerFunc(func(ctx context.Context, d p2p.Delivery) negotiation.Code {
			_, existed, err := led.AppendEnvelope(ctx, ledger.KindEnvelopeReceived, d.Envelope, "ok", time.Now())
			switch {
			case err != nil:
				return "busy"
			case existed:
				return negotiation.CodeDuplicate
			}
			pp.gotB.Add(1)
			return "ok"
		})
	}
	host, err := p2p.New(parleyConfig(id, h, node.NewOutboxStore(led), onEvent))
	if err != nil {
		return nil, err
	}
	if err := host.Start(ctx); err != nil {
		return nil, err
	}
	// Closed before the ledger (cleanups run last first).
	pp.cleanup = append(pp.cleanup, func() { _ = host.Close() })
	n.host = host
	return n, nil
}

func runParleyDirect(ctx context.Context, p workload.Plan, res *workload.Result) error {
	if err := negotiation.Warm(); err != nil {
		return err
	}
	pp := &parleyPair{waits: map[cid.Cid]chan struct{}{}}
	defer func() {
		for i := len(pp.cleanup) - 1; i >= 0; i-- {
			pp.cleanup[i]()
		}
	}()
	var err error
	if pp.b, err = pp.startNode(ctx, nil, func(p2p.Event) {}); err != nil {
		return err
	}
	if pp.a, err = pp.startNode(ctx, p2p.HandlerFunc(func(context.Context, p2p.Delivery) negotiation.Code { return "ok" }), pp.event); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := pp.a.host.Connect(cctx, peer.AddrInfo{ID: pp.b.host.ID(), Addrs: pp.b.host.Libp2p().Addrs()}); err != nil {
		return err
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := pp.b.host.Link(pp.a.id.addr()); ok {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("B did not learn A's link")
		}
	}
	for range p.Senders + 1 {
		pp.chains = append(pp.chains, &chain{nid: uuid.NewString()})
	}
	probe := &chain{nid: uuid.NewString()}
	if pp.pad, err = sizer(p.MsgBytes, func(d string) (int, error) {
		env, err := pp.build(probe, 0, d, false)
		if err != nil {
			return 0, err
		}
		return len(env.Bytes()), nil
	}); err != nil {
		return err
	}
	res.WireBytes = p.MsgBytes
	res.Notes = map[string]string{"message": fmt.Sprintf("%d-byte envelope (a direct TaskProposal), sealed to B", p.MsgBytes)}
	workload.RunDirect(ctx, p, pp, res)
	return nil
}

// build makes the next envelope of chain c, message i, addressed to B;
// advance keeps it as the chain's head (false: a probe).
func (pp *parleyPair) build(c *chain, i int, description string, advance bool) (*negotiation.Envelope, error) {
	var pk negotiation.PublicKey
	copy(pk[:], pp.a.id.inbox.PublicKey())
	h := negotiation.Header{
		NegotiationID: c.nid, Sequence: c.seq + 1, PreviousHash: c.prev, Timestamp: time.Now(),
		Sender: negotiation.Sender{EVMAddress: pp.a.id.addr(), XMTPPublicKey: pk}, Recipients: []negotiation.Address{pp.b.id.addr()},
	}
	env, err := negotiation.Build(h, &negotiation.TaskProposal{Terms: terms(i, description)}, pp.a.id.inbox, negotiation.DecodeOptions{})
	if err == nil && advance {
		c.seq, c.prev = env.Sequence, env.Hash()
	}
	return env, err
}

// Send builds, signs and sends one envelope and waits for B's ack (the
// outbox's EventDelivered for its CID).
func (pp *parleyPair) Send(ctx context.Context, g, i int) error {
	env, err := pp.build(pp.chains[g], i, pp.pad, true)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	pp.mu.Lock()
	pp.waits[env.CID()] = done
	pp.mu.Unlock()
	if err := pp.a.host.Send(ctx, env); err != nil {
		return err
	}
	select {
	case <-done:
		return nil
	case <-time.After(60 * time.Second):
		return errors.New("no ack in 60 s")
	}
}

func (pp *parleyPair) Received() int { return int(pp.gotB.Load()) }

func (pp *parleyPair) event(e p2p.Event) {
	if e.Kind != p2p.EventDelivered {
		return
	}
	pp.acked.Add(1)
	pp.mu.Lock()
	c := pp.waits[e.CID]
	delete(pp.waits, e.CID)
	pp.mu.Unlock()
	if c != nil {
		close(c)
	}
}

// parallel runs f(0..n-1), at most width at a time, and returns the first
// error.
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
