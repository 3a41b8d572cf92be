package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/node/gate"
	"github.com/parleynet/parley/p2p"
	"github.com/parleynet/parley/storeguard"
)

// LedgerDirName is the ledger's directory inside the data directory.
const LedgerDirName = "ledger"

type lifecycle int

const (
	stateNew lifecycle = iota
	stateStarted
	stateClosed
)

// Node is one Parley node: its keys, ledger, transport, chain client,
// approval gate and the negotiation threads it takes part in. Build it with
// New, run it with Start, stop it with Close. Its methods are the API the
// HTTP layer and the CLI call; all are safe for concurrent use.
type Node struct {
	cfg Config
	o   options
	log *slog.Logger
	m   *metrics
	now func() time.Time
	// mailbox is the store node's mailbox (Config.Store.Enabled), set by
	// startHost.
	mailbox *MailboxStore

	mu    sync.Mutex // lifecycle: Start and Close hold it throughout
	state lifecycle
	// live is set once Start succeeded and cleared as Close begins, so
	// that running() never waits for mu: a goroutine the node spawned may
	// call a public method while Close, which holds mu, waits for it.
	live   atomic.Bool
	ctx    context.Context
	cancel context.CancelFunc

	smu     sync.Mutex // guards closing and wg.Add
	closing bool
	wg      sync.WaitGroup

	keys    *identity.Keyring
	self    negotiation.Address
	led     *ledger.Ledger
	sealer  *identity.Sealer
	host    *p2p.Host
	backend chain.Backend
	ownsBE  bool
	client  *chain.Client
	watcher *chain.Watcher
	cursor  *ledgerCursor
	gt      *gate.Gate // the approval of gated acts (built at Start)

	eng *engine.Engine // the threads and their one write path

	// The node's services: each owns its state and its lock.
	events *broadcaster
	rej    *rejectionLog  // the evidence of rejected input (rejections.go)
	px     *pxpService    // PXP: the principal's cards, escalations and rooms (pxp.go)
	cs     *ConsentBook   // the principal's consent list (consent.go)
	out    *refusals      // this node's envelopes its recipients refused
	board  *board         // the task board (board.go)
	courts *courtFiles    // the ERC-1497 documents served to a court's operator (court.go)
	scopes *scopeChecks   // the last check of each announcement's scope on chain (scope.go)
	links  *registryLinks // the last look-up of each address's IdentityLink record (identity.go)
	check  *ledgerCheck   // the ledger's integrity (damage.go)
	blobs  *blobStore     // the negotiations' files (blobstore.go)
	hand   *handover      // hand-overs and late joins (handover.go)
	stores storeOpener    // opens the stores at Start (stores.go)
	tokens tokenBook      // the metadata of the ERC-20 tokens tasks name (token.go)
	tw     *timeoutWatch  // the timeout exits due and taken (timeouts.go)
	heads  *treeHeads     // the signed tree heads and their anchors on chain (anchor.go)

	onchain *chainActs // the chain side of the acts: co-signed pairs, chain facts (chainacts.go)
	snd     *sender    // the path out: build, judge, record, queue (send.go)
	rcv     *receiver  // the path in: the transport's deliveries and events (handler.go)

	supHanded supervisorsHanded // the threads handed to the supervisors this node named (veto.go)
}

// New returns a node for cfg. It validates cfg and the options and does no
// I/O: Start opens the keys, the ledger, the transport and the chain.
func New(cfg Config, opts ...Option) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		if opt == nil {
			return nil, fail(CodeBadConfig, "nil option")
		}
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if o.passphrase == nil {
		return nil, fail(CodeBadConfig, "no passphrase: pass WithPassphrase")
	}
	if o.backend != nil && cfg.Chain.RPC != "" {
		return nil, fail(CodeBadConfig, "chain.rpc %q and WithChainBackend conflict: give one", cfg.Chain.RPC)
	}
	if o.backend != nil {
		if err := cfg.Chain.Contracts.Validate(); err != nil {
			return nil, fail(CodeBadConfig, "chain.contracts: %v", err)
		}
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	if o.clock == nil {
		o.clock = time.Now
	}
	n := &Node{
		cfg: cfg, o: o, now: o.clock,
		log:    o.logger.With("component", "node"),
		events: newBroadcaster(),
	}
	if cfg.Name != "" {
		n.log = n.log.With("node", cfg.Name)
	}
	n.onchain = new(chainActs) // the engine's OnFact; wired below, once the engine and the services are built
	n.eng = engine.New(engine.Config{
		Now: n.now, Unknown: func(nid string) error { return n.check.unknownErr(nid) }, Logger: n.log,
		Count: func(c int) { n.m.threads.Set(float64(c)) },
		OnState: func(t *thread, from, to negotiation.State) {
			// The consent book learns a negotiation's recorded state; the
			// event is published (t.mu held).
			n.cs.settled(t.ID, to)
			n.events.publish(Event{Kind: EventState, NegotiationID: t.ID, State: to, From: from, At: n.now()})
		},
		Seen:    func(h negotiation.Hash, now time.Time) time.Time { return n.board.seenAt(h, now) },
		CardFor: func(t *thread) (*negotiation.IntentCard, string) { return n.px.cardFor(t) },
		OnFact:  n.onchain.factApplied,
	})
	reg := o.registerer
	if reg == nil {
		reg = prometheus.NewRegistry() // private: nothing is exported
	}
	m, err := newMetrics(reg, func() float64 { return float64(len(n.Peers())) })
	if err != nil {
		return nil, failWrap(CodeBadConfig, err, "metrics")
	}
	n.m = m
	n.out = newRefusals(n.now, n.events)
	n.snd = &sender{eng: n.eng, now: n.now, spawn: n.spawn, sent: m.sent, events: n.events, log: n.log}
	n.snd.sentIn = n.keepSupervisor
	n.px = newPXPService(pxpConfig{
		eng: n.eng, now: n.now, log: n.log, events: n.events, out: n.out, write: n.snd.write,
		send: n.snd.sendErr, authorize: n.authorize, spawn: n.spawn,
	})
	n.snd.px = n.px
	n.cs = newConsentBook(cfg.Consent, n.now, n.running, n.events, n.parties)
	n.board = newBoard(cfg.Board, n.cs.stateOf)
	n.links = newRegistryLinks()
	n.scopes = newScopeChecks()
	n.courts = newCourtFiles()
	n.check = newLedgerCheck(m)
	n.tw = newTimeoutWatch(cfg.Timeouts)
	n.heads = newTreeHeads(cfg.Ledger, n.now, n.events)
	n.rej = newRejectionLog(m.rejected, n.now, cfg.RejectionWindow)
	n.blobs = newBlobStore(n.now, n.log, m.files, n.events, n.spawn, cfg.FetchTimeout)
	n.hand = &handover{
		eng: n.eng, blobs: n.blobs, events: n.events, now: n.now, spawn: n.spawn, log: n.log, courts: n.courts,
		grace: joinGrace(cfg.P2P.RetryMax),
		send:  n.snd.sendErr,
		apply: func(ctx context.Context, nid string, f negotiation.Fact, l types.Log) error {
			_, err := n.onchain.applyFact(ctx, nid, f, l)
			return err
		},
		joining: map[string]bool{},
	}
	*n.onchain = chainActs{
		eng: n.eng, log: n.log, facts: m.facts, events: n.events, check: n.check,
		authorize: n.authorize, send: n.snd.send, may: n.may, view: n.viewLocked, spawn: n.spawn,
		joinEvidence: n.hand.joinEvidence, handOff: n.hand.handOff, takeOver: n.hand.takeOverLocked,
		disputeOpened: n.heads.disputeOpened,
	}
	n.rcv = &receiver{
		eng: n.eng, now: n.now, events: n.events, received: m.received, rejected: m.rejected,
		board: n.board, cs: n.cs, check: n.check, hand: n.hand, rej: n.rej, out: n.out, blobs: n.blobs,
		announce: n.takeAnnouncement, coSigned: n.onchain.onCoSigned, log: n.log,
		tookIn: n.keepSupervisor,
	}
	return n, nil
}

// Start opens the keys with the passphrase, opens and verifies the ledger,
// rebuilds every negotiation thread from it, starts the transport and the
// chain watcher, and resumes what a stop interrupted: envelopes stored but
// not queued, hand-overs to an assigned arbitrator and files not yet
// fetched. On failure it closes what it opened.
func (n *Node) Start(ctx context.Context) (err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch n.state {
	case stateStarted:
		return ErrStarted
	case stateClosed:
		return fail(CodeNotStarted, "closed")
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			n.shutdown()
			n.state = stateClosed
		}
	}()
	if err := negotiation.Warm(); err != nil {
		return fmt.Errorf("node: envelope decoder: %w", err)
	}
	now := n.now()
	kcfg := identity.DefaultConfig(n.cfg.DataDir)
	if n.keys, err = identity.Open(kcfg, n.o.passphrase); err != nil {
		return fmt.Errorf("node: keys: %w", err)
	}
	if l := n.keys.Link(); l == nil || l.Verify(now) != nil || l.ExpiresAt.Sub(now) < kcfg.LinkLifetime/3 {
		if _, err := n.keys.IssueLink(now); err != nil {
			return fmt.Errorf("node: identity link: %w", err)
		}
		n.log.Info("identity link issued", "expires", n.keys.Link().ExpiresAt)
	}
	n.self = negotiation.Address(n.keys.EVM().Address())
	n.log = n.log.With("address", n.self.String())
	n.check.log = n.log // before the ledger opens: its damage is logged from the first read
	n.blobs.log, n.hand.log, n.hand.self = n.log, n.log, n.self
	n.hand.heads = n.heads
	n.snd.log, n.snd.self, n.snd.keys = n.log, n.self, n.keys
	n.rcv.log, n.rcv.self = n.log, n.self
	n.stores = storeOpener{reset: n.o.reset, log: n.log, logger: n.o.logger, now: n.now, owner: n.keys.Inbox().PeerID().String()}

	lcfg := ledger.DefaultConfig()
	lcfg.Dir = filepath.Join(n.cfg.DataDir, LedgerDirName)
	lcfg.Logger = n.o.logger
	lcfg.Clock = n.now
	lcfg.RecordFile = storeguard.RecordFile(lcfg.Dir)
	lcfg.Owner = n.keys.Inbox().PeerID().String()
	lcfg.OnDamage = n.check.note
	if n.o.ledgerTune != nil {
		n.o.ledgerTune(&lcfg)
	}
	if n.led, err = n.stores.ledger(ctx, lcfg); err != nil {
		return err
	}
	n.eng.Open(n.led, n.self)
	n.blobs.led, n.hand.led, n.snd.led, n.rcv.led = n.led, n.led, n.led, n.led
	n.px.start(n.led, n.self, n.log)
	if err = n.startApprovals(); err != nil {
		return err
	}
	if n.sealer, err = identity.NewSealer(identity.DefaultSealerConfig(n.keys.Inbox(), n.keys.Link(), n.keys)); err != nil {
		return fmt.Errorf("node: sealer: %w", err)
	}
	// The node's memory is rebuilt from its ledger: the principal's cards,
	// the task board's announcements and every thread (Engine.Load, each
	// thread's PXP state rebuilt with it; a thread whose record is damaged
	// is quarantined).
	if err = n.px.load(ctx); err != nil {
		return err
	}
	announcements := func(ctx context.Context, e ledger.Entry) error { return n.board.loadEntry(ctx, n.led, n.self, e) }
	if err = n.eng.Load(ctx, engine.LoadHooks{Entry: announcements, Quarantine: n.check.quarantine, Thread: n.eng.ReplayPXP}); err != nil {
		return err
	}
	if err = n.loadServices(ctx); err != nil {
		return err
	}
	if err = n.startChain(ctx); err != nil {
		return err
	}
	n.onchain.open(n.self, n.keys.EVM(), n.client, n.cursor, n.log)
	n.heads.open(n.led, n.keys.Inbox(), n.keys.Link, n.client, n.log)
	if err = checkAutoGate(ctx, n.o.gate, n.client, n.cfg.Chain.ChainID, n.eng, n.self); err != nil {
		return err
	}
	if err = n.startHost(ctx); err != nil {
		return err
	}
	n.spawn(func(ctx context.Context) { n.rej.run(ctx, n.led, n.log) })
	if n.watcher != nil {
		if err = n.watcher.Start(n.ctx); err != nil {
			return fmt.Errorf("node: chain watcher: %w", err)
		}
	}
	n.state = stateStarted
	n.live.Store(true)
	n.spawn(func(ctx context.Context) { n.check.run(ctx, n.led) })
	if n.client != nil {
		n.spawn(n.watchTimeouts)
	}
	n.spawn(n.heads.run)
	n.resume()
	n.px.resumeConfirmations()
	n.log.Info("node started", "peer", n.host.ID(), "threads", n.eng.Len(), "ledger_head", n.led.Head().Seq)
	return nil
}

// loadServices gives the consent book and the task board what they keep
// of the threads the ledger rebuilt (at start, after the threads are
// loaded): the negotiations counterparties opened that are still open,
// and the announcements a negotiation answers; and rebuilds the refusals
// of this node's envelopes.
func (n *Node) loadServices(ctx context.Context) error {
	openers := map[string]negotiation.Address{}
	var answered []negotiation.Hash
	n.eng.Each(ctx, func(t *thread) {
		if by, ok := openerOf(t, n.self); ok && negotiationPhase(t.Th.State()) {
			openers[t.ID] = by
		}
		if a := t.Params.Announcement; a != nil {
			answered = append(answered, a.Hash())
		}
	})
	if err := n.cs.load(ctx, n.led, n.log, n.self, openers); err != nil {
		return err
	}
	n.board.restore(answered, n.now())
	return n.out.load(ctx, n.led)
}

// startChain builds the chain client and the watcher (not yet started).
func (n *Node) startChain(ctx context.Context) error {
	switch {
	case n.o.backend != nil:
		n.backend = n.o.backend
	case n.cfg.Chain.RPC != "":
		b, err := chain.DialRPC(ctx, n.cfg.Chain.RPC)
		if err != nil {
			return failWrap(CodeNoChain, err, "dial %s", n.cfg.Chain.RPC)
		}
		n.backend, n.ownsBE = b, true
	default:
		return nil
	}
	cc := n.cfg.chainConfig()
	var err error
	if n.client, err = chain.New(n.backend, n.keys.EVM(), cc, n.o.logger); err != nil {
		return fmt.Errorf("node: chain client: %w", err)
	}
	n.hand.chain = n.client
	if err := chain.CheckDeployed(ctx, n.backend, cc.Contracts); err != nil {
		return failWrap(CodeNoChain, err, "contracts")
	}
	n.cursor = newLedgerCursor(n.led)
	if err := n.cursor.load(ctx); err != nil {
		return err
	}
	if n.watcher, err = chain.NewWatcher(n.backend, cc, n.cursor, n.onchain.onEvents, n.o.logger); err != nil {
		return fmt.Errorf("node: chain watcher: %w", err)
	}
	return nil
}

// startHost builds and starts the transport with this node as its
// envelope handler and blob provider.
func (n *Node) startHost(ctx context.Context) error {
	pc := p2p.DefaultConfig()
	pc.Inbox, pc.Link, pc.Sealer = n.keys.Inbox(), n.keys.Link, n.sealer
	pc.Outbox = NewOutboxStore(n.led)
	pc.Handler = n
	pc.Blobs = n
	pc.Consistency = n
	pc.OnEvent = func(ev p2p.Event) {
		if ev.Kind == p2p.EventDelivered || ev.Kind == p2p.EventHeld {
			n.m.delivered.WithLabelValues(string(ev.Path)).Inc()
		}
		n.rcv.onEvent(ev)
	}
	pc.ListenAddrs = n.cfg.P2P.Listen
	pc.Bootstrap = n.cfg.P2P.Bootstrap
	pc.StorePeers = n.cfg.P2P.StorePeers
	if n.cfg.Store.Enabled {
		ms := NewMailboxStore(n.led, n.cfg.Store, n.now)
		if err := ms.Load(ctx); err != nil {
			return err
		}
		pc.Mailbox, n.mailbox = ms, ms
		sc := n.cfg.Store
		n.log.Info("store node", "serve", len(sc.Serve), "open", sc.Open, "quota_items", sc.QuotaItems, "quota_per_sender", sc.QuotaPerSender,
			"quota_bytes", sc.QuotaBytes, "retention", sc.Retention)
	}
	pc.DHT, pc.MDNS, pc.NAT = n.cfg.P2P.DHT, n.cfg.P2P.MDNS, n.cfg.P2P.NAT
	pc.Announce, pc.Relays, pc.Reachability = n.cfg.P2P.Announce, n.cfg.P2P.Relays, p2p.Reachability(n.cfg.P2P.Reachability)
	pc.RelayService = n.cfg.P2P.RelayService
	pc.RetryMax = max(n.cfg.P2P.RetryMax, pc.RetryMin)
	pc.MailboxPoll = n.cfg.P2P.MailboxPoll
	pc.AdmitPeers(n.cfg.P2P.MaxPeers)
	if c := n.cfg.P2P; c.IdentifyTimeout > 0 {
		pc.IdentifyTimeout = c.IdentifyTimeout
	}
	if r := n.cfg.P2P.PeerFrameRate; r > 0 {
		pc.PeerFrameRate, pc.PeerFrameBurst = r, max(int(2*r), pc.Window)
	}
	if r := n.cfg.P2P.PeerByteRate; r > 0 {
		pc.PeerByteRate, pc.PeerByteBurst = float64(r), max(int(2*r), pc.MaxFrameBytes+16)
	}
	if d := n.cfg.P2P.BanDuration; d > 0 {
		pc.BanDuration = d
	}
	pc.Registerer = n.o.registerer
	pc.Logger = n.o.logger
	pc.Clock = n.now
	if n.o.p2pTune != nil {
		n.o.p2pTune(&pc)
	}
	h, err := p2p.New(pc)
	if err != nil {
		return fmt.Errorf("node: p2p: %w", err)
	}
	if err := h.Start(ctx); err != nil {
		return fmt.Errorf("node: p2p: %w", err)
	}
	n.host = h
	n.blobs.host, n.hand.links, n.hand.topics, n.snd.host = h, h, h, h
	return nil
}

// Close stops the node in the reverse order of Start: it cancels the
// node's own work (waiting approvals, fetches, hand-overs), stops the
// chain watcher and the transport, waits for every goroutine the node
// started, and closes the chain connection and the ledger. It is safe to
// call twice.
func (n *Node) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.state == stateClosed {
		return nil
	}
	n.state = stateClosed
	n.live.Store(false)
	return n.shutdown()
}

// shutdown releases every part that was opened (n.mu held).
func (n *Node) shutdown() error {
	var errs []error
	if n.cancel != nil {
		n.cancel()
	}
	if n.watcher != nil {
		errs = append(errs, n.watcher.Close())
	}
	if n.host != nil {
		errs = append(errs, n.host.Close())
	}
	n.smu.Lock()
	n.closing = true
	n.smu.Unlock()
	n.wg.Wait()
	if n.host != nil {
		// The last window of rejection evidence, before the ledger closes.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		n.rej.flush(ctx, n.led, n.log)
		cancel()
	}
	if n.backend != nil && n.ownsBE {
		n.backend.Close()
	}
	if n.gt != nil {
		errs = append(errs, n.gt.Close())
	}
	if n.led != nil {
		errs = append(errs, n.led.Close())
	}
	n.events.close()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("node: close: %w", err)
	}
	return nil
}

// spawn runs f on a goroutine the node owns: Close cancels its context and
// waits for it.
func (n *Node) spawn(f func(ctx context.Context)) {
	n.smu.Lock()
	defer n.smu.Unlock()
	if n.closing || n.ctx == nil {
		return
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		f(n.ctx)
	}()
}

// running returns ErrNotStarted unless the node is started.
func (n *Node) running() error {
	if !n.live.Load() {
		return ErrNotStarted
	}
	return nil
}

// Address returns the node's EVM address (zero before Start).
func (n *Node) Address() negotiation.Address { return n.self }

// PeerID returns the node's libp2p peer id ("" before Start).
func (n *Node) PeerID() peer.ID {
	if n.host == nil {
		return ""
	}
	return n.host.ID()
}

// Addrs returns the node's listen addresses with /p2p/<id>, for other
// nodes' bootstrap lists (empty before Start).
func (n *Node) Addrs() []ma.Multiaddr {
	if n.host == nil {
		return nil
	}
	return n.host.Addrs()
}

// Link returns the node's current identity link (nil before Start).
func (n *Node) Link() *identity.Link {
	if n.keys == nil {
		return nil
	}
	return n.keys.Link()
}

// approvalsDir is the approval store's directory in dataDir.
func approvalsDir(dataDir string) string { return filepath.Join(dataDir, ApprovalsDirName) }

// Ledger returns the node's ledger (nil before Start), for read-only use:
// verification, export and inspection.
func (n *Node) Ledger() *ledger.Ledger { return n.led }

// Host returns the node's transport (nil before Start), for inspection.
func (n *Node) Host() *p2p.Host { return n.host }

// Mailbox returns the store node's mailbox, or nil unless store.enabled.
func (n *Node) Mailbox() *MailboxStore { return n.mailbox }

// Chain returns the node's chain client, or nil without a chain.
func (n *Node) Chain() *chain.Client { return n.client }

// Config returns the configuration the node was built with.
func (n *Node) Config() Config { return n.cfg }
