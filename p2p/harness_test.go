package p2p_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/google/uuid"
	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

var testPass = []byte("parley p2p test passphrase")

// keyConfig is a keyring configuration with test-only scrypt costs.
func keyConfig(dir string) identity.Config {
	cfg := identity.DefaultConfig(dir)
	cfg.ScryptWorkFactor = 10
	cfg.KeystoreScryptN = keystore.LightScryptN
	cfg.KeystoreScryptP = keystore.LightScryptP
	cfg.KEM = identity.KEMX25519
	return cfg
}

// openKeyring opens the keys in dir, creating them on first use.
func openKeyring(dir string) (*identity.Keyring, error) {
	cfg := keyConfig(dir)
	if _, err := os.Stat(identity.KeysDir(dir)); err == nil {
		return identity.Open(cfg, testPass)
	}
	return identity.Create(cfg, testPass, time.Now())
}

// recorder is a Handler that stores envelopes in a real ledger, as the
// node does: duplicate for a CID stored before, and (when gaps is set)
// sequence_gap for an envelope ahead of its sender's previous one.
type recorder struct {
	l     *ledger.Ledger
	gaps  bool
	delay time.Duration // a slow handler, so that senders' outboxes fill
	busy  int           // answer busy to this many calls first

	mu      sync.Mutex
	last    map[string]uint64
	effects []cid.Cid // envelopes that took effect, in order
	calls   int
}

func (r *recorder) HandleEnvelope(ctx context.Context, d p2p.Delivery) negotiation.Code {
	env := d.Envelope
	r.mu.Lock()
	defer r.mu.Unlock()
	time.Sleep(r.delay)
	r.calls++
	if r.busy > 0 {
		r.busy--
		return "busy"
	}
	k := env.NegotiationID + "/" + env.Sender.EVMAddress.String()
	if r.gaps && env.Sequence > r.last[k]+1 {
		return negotiation.CodeSequenceGap
	}
	_, existed, err := r.l.AppendEnvelope(ctx, ledger.KindEnvelopeReceived, env, "ok", time.Now())
	if err != nil {
		return "busy"
	}
	if existed {
		return negotiation.CodeDuplicate
	}
	r.last[k] = max(r.last[k], env.Sequence)
	r.effects = append(r.effects, env.CID())
	return "ok"
}

func (r *recorder) snapshot() (effects []cid.Cid, calls int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]cid.Cid(nil), r.effects...), r.calls
}

// events collects a host's events.
type events struct {
	mu  sync.Mutex
	all []p2p.Event
}

func (e *events) add(ev p2p.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) of(kind p2p.EventKind) []p2p.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []p2p.Event
	for _, ev := range e.all {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// testNode is one node: keys, ledger, outbox store, recorder and host,
// all in dir so that it can be stopped and started again.
type testNode struct {
	t    testing.TB
	dir  string
	kr   *identity.Keyring
	led  *ledger.Ledger
	rec  *recorder
	ev   *events
	host *p2p.Host
	seq  map[string]uint64
	prev map[string]negotiation.Hash
}

type nodeOpt func(*p2p.Config)

// testConfig is the p2p configuration of every test node: loopback TCP
// only, no DHT unless asked, short retries.
func testConfig() p2p.Config {
	cfg := p2p.DefaultConfig()
	cfg.ListenAddrs = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.DHT = false
	cfg.RetryMin = 20 * time.Millisecond
	cfg.RetryMax = 400 * time.Millisecond
	cfg.DialTimeout = 5 * time.Second
	cfg.AckTimeout = 20 * time.Second
	cfg.ResourceMemory = 64 << 20
	cfg.ResourceFDs = 256
	cfg.Logger = slog.New(slog.DiscardHandler)
	return cfg
}

func newNode(t testing.TB, opts ...nodeOpt) *testNode {
	t.Helper()
	n := &testNode{t: t, dir: t.TempDir(), seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}}
	n.start(opts...)
	return n
}

// start opens the node's keys and ledger and starts its host.
func (n *testNode) start(opts ...nodeOpt) {
	t := n.t
	t.Helper()
	kr, err := openKeyring(n.dir)
	if err != nil {
		t.Fatal(err)
	}
	n.kr = kr
	lcfg := ledger.DefaultConfig()
	lcfg.Dir = filepath.Join(n.dir, "ledger")
	lcfg.MemTableSize = 16 << 20
	lcfg.BlockCacheSize = 8 << 20
	lcfg.ValueLogFileSize = 16 << 20
	lcfg.MaxObjectBytes = 1 << 20
	lcfg.MaxBatchBytes = 2 << 20
	if n.led, err = ledger.New(lcfg); err != nil {
		t.Fatal(err)
	}
	if err := n.led.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	n.rec = &recorder{l: n.led, last: map[string]uint64{}}
	n.ev = &events{}
	sealer, err := identity.NewSealer(identity.DefaultSealerConfig(kr.Inbox(), kr.Link(), kr))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Inbox, cfg.Link, cfg.Sealer = kr.Inbox(), kr.Link, sealer
	cfg.Outbox = node.NewOutboxStore(n.led)
	cfg.Handler = n.rec
	cfg.OnEvent = n.ev.add
	for _, o := range opts {
		o(&cfg)
	}
	if n.host, err = p2p.New(cfg); err != nil {
		t.Fatal(err)
	}
	if err := n.host.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.stop)
}

// stop closes the host and the ledger (safe to call twice).
func (n *testNode) stop() {
	if n.host != nil {
		if err := n.host.Close(); err != nil {
			n.t.Logf("close host: %v", err)
		}
		if err := n.host.Close(); err != nil {
			n.t.Errorf("second Close: %v", err)
		}
		n.host = nil
	}
	if n.led != nil {
		_ = n.led.Close()
		n.led = nil
	}
}

func (n *testNode) addr() negotiation.Address { return negotiation.Address(n.kr.EVM().Address()) }

func (n *testNode) info() peer.AddrInfo {
	return peer.AddrInfo{ID: n.host.ID(), Addrs: n.host.Libp2p().Addrs()}
}

func (n *testNode) bootstrapAddr() string { return n.host.Addrs()[0].String() }

func withBootstrap(addrs ...string) nodeOpt {
	return func(c *p2p.Config) { c.Bootstrap = addrs }
}

// envelope builds the node's next envelope in negotiation nid (a direct
// TaskProposal) addressed to to.
func (n *testNode) envelope(nid string, to ...negotiation.Address) *negotiation.Envelope {
	n.t.Helper()
	env, err := n.build(nid, time.Now(), to)
	if err != nil {
		n.t.Fatal(err)
	}
	return env
}

func (n *testNode) build(nid string, at time.Time, to []negotiation.Address) (*negotiation.Envelope, error) {
	var pk negotiation.PublicKey
	copy(pk[:], n.kr.Inbox().PublicKey())
	h := negotiation.Header{
		NegotiationID: nid, Sequence: n.seq[nid] + 1, PreviousHash: n.prev[nid], Timestamp: at,
		Sender: negotiation.Sender{EVMAddress: n.addr(), XMTPPublicKey: pk}, Recipients: to,
	}
	env, err := negotiation.Build(h, proposal(n.seq[nid]), n.kr.Inbox(), negotiation.DecodeOptions{})
	if err != nil {
		return nil, err
	}
	n.seq[nid], n.prev[nid] = env.Sequence, env.Hash()
	return env, nil
}

var testRegistry = negotiation.Address{0x5f, 0xbd, 0xb2, 0x31, 0x56, 0x78, 0xaf, 0xec, 0xb3, 0x67, 0xf0, 0x32, 0xd9, 0x3f, 0x64, 0x2f, 0x64, 0x18, 0x0a, 0xa3}

func proposal(i uint64) *negotiation.TaskProposal {
	return &negotiation.TaskProposal{Terms: negotiation.Terms{
		Title: fmt.Sprintf("Translate the user guide, part %d", i), ChainID: negotiation.U64(31337), Registry: testRegistry,
		Milestones: []negotiation.Milestone{{Amount: negotiation.U64(1000), Description: "all of it"}},
		Deadline:   uint64(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Unix()), Nonce: negotiation.U64(7),
	}}
}

func newNID() string { return uuid.NewString() }

// eventually polls cond every 10 ms until it holds or the generous
// deadline passes (the machine is shared; never a sleep as an assertion).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// connect dials b from a and waits until each knows the other's link.
func connect(t testing.TB, a, b *testNode) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.host.Connect(ctx, b.info()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b to learn a's link", func() bool { _, ok := b.host.Link(a.addr()); return ok })
}

// pending returns the node's unsettled outbox items from its ledger (not
// counting those a store node holds: see held).
func (n *testNode) pending() int {
	n.t.Helper()
	items, err := node.NewOutboxStore(n.led).Pending(context.Background())
	if err != nil {
		n.t.Fatal(err)
	}
	c := 0
	for _, it := range items {
		if !it.Held {
			c++
		}
	}
	return c
}

// held returns how many of the node's outbox items a store node holds
// and the recipient has not acked yet.
func (n *testNode) held() int {
	n.t.Helper()
	items, err := node.NewOutboxStore(n.led).Pending(context.Background())
	if err != nil {
		n.t.Fatal(err)
	}
	return len(items) - n.pending()
}
