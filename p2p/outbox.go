package p2p

import (
	"bufio"
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// OutboxItem is one envelope queued for one recipient.
type OutboxItem struct {
	// CID is the envelope's content identifier.
	CID cid.Cid
	// To is the recipient's EVM address.
	To negotiation.Address
	// NegotiationID is the envelope's negotiation.
	NegotiationID string
	// Envelope is the envelope's JCS bytes.
	Envelope []byte
	// Queued is when the item was first stored.
	Queued time.Time
	// Held is set once a store node holds the envelope for the recipient
	// (settled StatusHeld): the outbox hands it to no store again and
	// waits only for the recipient's own ack, sending it directly when the
	// recipient is reachable (it answers duplicate if it collected it
	// from the store first), so that the item ends delivered.
	Held bool
}

// OutboxStatus is how an item left the outbox.
type OutboxStatus string

// Outbox statuses.
const (
	// StatusDelivered: the recipient acked the envelope.
	StatusDelivered OutboxStatus = "delivered"
	// StatusHeld: a store node acked the envelope and holds it for the
	// recipient. It is not handed over again; the recipient's direct ack
	// settles it delivered later.
	StatusHeld OutboxStatus = "held"
	// StatusRefused: the recipient rejected the envelope as not authentic.
	StatusRefused OutboxStatus = "refused"
)

// OutboxStore keeps outgoing envelopes durably until they are settled. The
// node implements it over the ledger (node.OutboxStore); p2p never imports
// the ledger. Items come in through Put (Host.Send) or through the
// caller's own write (Host.Outgoing, then Host.Queued): Pending returns
// both.
type OutboxStore interface {
	// Put stores item durably before it returns. Putting the same (CID, To)
	// twice is harmless.
	Put(ctx context.Context, item OutboxItem) error
	// Settle records durably that item left the outbox with status and the
	// ack code.
	Settle(ctx context.Context, item OutboxItem, status OutboxStatus, code Code) error
	// Pending returns every item put and not settled delivered or
	// refused, oldest first; those settled held have Held set.
	Pending(ctx context.Context) ([]OutboxItem, error)
}

// Send queues env for each of its recipients: it stores one outbox item per
// recipient durably (Outgoing's items, each with the store's Put), then
// returns; delivery, retries and re-keys happen in the background until
// each recipient (or a store node) acks. An announcement (no recipients) is
// refused: publish it on the task board. A caller that records env in a
// durable write of its own stores the items in that write instead
// (Outgoing, then Queued): the node does, so that its record of the
// envelope and the outbox items are one synced commit.
func (h *Host) Send(ctx context.Context, env *negotiation.Envelope) error {
	items, err := h.Outgoing(env)
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := h.cfg.Outbox.Put(ctx, it); err != nil {
			return err
		}
	}
	h.Queued(env, items)
	return nil
}

// Outgoing checks env as Send does (it has recipients, fits
// MaxEnvelopeBytes, is this node's and its signature verifies) and returns
// its outbox items, one per recipient other than this node, queued at the
// host's clock. It stores nothing: the caller stores the items durably in
// its own write, where OutboxStore.Pending finds them after a restart (the
// node's OutboxStore: outbox.queued entries in the ledger batch whose
// envelope.sent entry stores env, so both are one synced commit, all or
// none), and only then hands them to Queued.
func (h *Host) Outgoing(env *negotiation.Envelope) ([]OutboxItem, error) {
	if len(env.Recipients) == 0 {
		return nil, fail(Code(negotiation.CodeNotAddressed), "an envelope without recipients goes on the task board")
	}
	if len(env.Bytes()) > h.cfg.MaxEnvelopeBytes {
		return nil, fail(Code(negotiation.CodeTooLarge), "envelope is %d bytes, over %d", len(env.Bytes()), h.cfg.MaxEnvelopeBytes)
	}
	if env.Sender.EVMAddress != h.self {
		return nil, fail(CodeSenderMismatch, "envelope is from %s, this node is %s", env.Sender.EVMAddress, h.self)
	}
	if err := env.Verify(); err != nil {
		return nil, err
	}
	now := h.now()
	items := make([]OutboxItem, 0, len(env.Recipients))
	for _, to := range env.Recipients {
		if to == h.self {
			continue
		}
		items = append(items, OutboxItem{CID: env.CID(), To: to, NegotiationID: env.NegotiationID, Envelope: env.Bytes(), Queued: now})
	}
	return items, nil
}

// Queued hands env's outbox items, which the caller stored durably
// (Outgoing's, once its write returned), to the delivery queues, as Send
// does after its Puts; delivery goes on in the background as for Send.
// Items of a host not started or closing wait in the store: Start resumes
// them (Pending). An item queued twice is delivered once.
func (h *Host) Queued(env *negotiation.Envelope, items []OutboxItem) {
	for _, it := range items {
		h.out.enqueue(it, env)
	}
}

// OutboxLen returns how many items wait for an ack in memory, not
// counting those a store node holds (they wait only for the recipient's
// confirmation).
func (h *Host) OutboxLen() int {
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	n := 0
	for _, q := range h.out.queues {
		for _, p := range q.items {
			if !p.item.Held {
				n++
			}
		}
	}
	return n
}

// outbox delivers queued items: one queue (and goroutine, while it has
// items) per recipient address.
type outbox struct {
	h      *Host
	mu     sync.Mutex
	queues map[negotiation.Address]*queue
	qwg    sync.WaitGroup

	smu     sync.Mutex
	settles []settlement
	skick   chan struct{}
}

// streamIdle is how long a queue keeps its stream open after it emptied.
const streamIdle = time.Minute

type queue struct {
	o     *outbox
	addr  negotiation.Address
	items []*pending
	keys  map[cid.Cid]bool
	wakeC chan struct{}
	alive bool
	st    *sendStream
	// looked is when the recipient's DHT record was last read because no
	// stream could be opened to it (refresh).
	looked time.Time
}

type pending struct {
	item     OutboxItem
	env      *negotiation.Envelope
	negID    [16]byte
	attempts int
	next     time.Time
}

func newOutbox(h *Host) *outbox {
	return &outbox{h: h, queues: make(map[negotiation.Address]*queue), skick: make(chan struct{}, 1)}
}

// resume starts the settler and loads every unsettled item from the
// store.
func (o *outbox) resume(ctx context.Context) error {
	o.qwg.Add(1)
	go func() {
		defer o.qwg.Done()
		o.settler(o.h.ctx)
	}()
	items, err := o.h.cfg.Outbox.Pending(ctx)
	if err != nil {
		return err
	}
	for _, it := range items {
		o.enqueue(it, nil)
	}
	return nil
}

func (o *outbox) enqueue(it OutboxItem, env *negotiation.Envelope) {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := o.queues[it.To]
	if q == nil {
		q = &queue{o: o, addr: it.To, keys: make(map[cid.Cid]bool), wakeC: make(chan struct{}, 1)}
		o.queues[it.To] = q
	}
	if q.keys[it.CID] {
		return
	}
	nid, _ := negotiation.ParseNegotiationID(it.NegotiationID)
	q.keys[it.CID] = true
	q.items = append(q.items, &pending{item: it, env: env, negID: nid})
	o.startLocked(q)
	q.signal()
}

func (o *outbox) startLocked(q *queue) {
	if q.alive {
		return
	}
	o.h.gmu.Lock()
	defer o.h.gmu.Unlock()
	if o.h.closing || o.h.ctx == nil {
		return
	}
	q.alive = true
	o.qwg.Add(1)
	go func() {
		defer o.qwg.Done()
		q.run(o.h.ctx)
	}()
}

// wake makes every item for addr due now (a peer just identified itself).
func (o *outbox) wake(addr negotiation.Address) {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := o.queues[addr]
	if q == nil {
		return
	}
	for _, p := range q.items {
		p.next = time.Time{}
	}
	q.signal()
}

func (o *outbox) wait() { o.qwg.Wait() }

func (q *queue) signal() {
	select {
	case q.wakeC <- struct{}{}:
	default:
	}
}

// run delivers the queue's items until it is empty or the host closes.
func (q *queue) run(ctx context.Context) {
	o := q.o
	defer q.closeStream()
	// One timer, Reset before each wait: since Go 1.23 Reset discards a
	// value that fired and was not received, so no drain is needed.
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		if ctx.Err() != nil {
			return
		}
		now := o.h.now()
		o.mu.Lock()
		if len(q.items) == 0 {
			o.mu.Unlock()
			if !q.idle(ctx, timer) {
				return
			}
			continue
		}
		var due []*pending
		var soonest time.Time
		for _, p := range q.items {
			if !p.next.After(now) {
				if len(due) < o.h.cfg.Window {
					due = append(due, p)
				}
			} else if soonest.IsZero() || p.next.Before(soonest) {
				soonest = p.next
			}
		}
		o.mu.Unlock()
		if len(due) > 0 {
			q.attempt(ctx, due)
			continue
		}
		timer.Reset(soonest.Sub(now))
		select {
		case <-ctx.Done():
			return
		case <-q.wakeC:
		case <-timer.C:
		}
	}
}

// idle keeps an emptied queue, and its stream, for streamIdle: the next
// envelope to this peer should not pay for a new stream, and the
// connection manager keeps protecting the peer meanwhile. A wake with
// nothing queued (the peer identified again, a link learnt) does not end
// the wait. It reports whether the queue goes on (something was queued);
// false means it ended and was removed.
func (q *queue) idle(ctx context.Context, timer *time.Timer) bool {
	o := q.o
	timer.Reset(streamIdle)
	for {
		select {
		case <-ctx.Done():
			return false
		case <-q.wakeC:
		case <-timer.C:
			o.mu.Lock()
			defer o.mu.Unlock()
			if len(q.items) > 0 {
				return true
			}
			q.alive = false
			delete(o.queues, q.addr)
			return false
		}
		o.mu.Lock()
		n := len(q.items)
		o.mu.Unlock()
		if n > 0 {
			return true
		}
	}
}

// attempt sends due items on the recipient's stream and applies the acks.
func (q *queue) attempt(ctx context.Context, due []*pending) {
	h := q.o.h
	link := h.book.byAddress(q.addr)
	if link == nil && h.kad != nil {
		if l, err := h.Lookup(ctx, q.addr); err == nil {
			link = l
		}
	}
	if link == nil {
		q.unreachable(ctx, due, CodeUnknownLink)
		return
	}
	st, err := q.stream(ctx, link.PeerID)
	if err != nil && q.refresh(ctx) {
		// The recipient may have moved: its DHT record has its addresses now.
		st, err = q.stream(ctx, link.PeerID)
	}
	if err == nil {
		q.looked = time.Time{}
	}
	if err != nil {
		h.log.Debug("no stream to recipient", "to", q.addr, "peer", link.PeerID, "err", err)
		q.unreachable(ctx, due, CodeBusy)
		return
	}
	now := h.now()
	key, err := link.CurrentKey(now)
	if err != nil {
		q.backoff(due, Code(identity.CodeNoCurrentKey))
		return
	}
	sent := make(map[uint64]*pending, len(due))
	buf := make([]byte, 0, 64<<10)
	for _, p := range due {
		sealed, err := h.cfg.Sealer.Seal(now, p.negID, []*identity.Link{link}, p.item.Envelope)
		if err != nil {
			h.log.Info("seal failed", "to", q.addr, "cid", p.item.CID, "err", err)
			q.backoff([]*pending{p}, CodeOf(err))
			continue
		}
		st.nextID++
		sent[st.nextID] = p
		buf = append(buf, encodeFrame(st.nextID, sealed)...)
	}
	if len(sent) == 0 {
		return
	}
	if _, err := st.s.Write(buf); err != nil {
		q.resetStream()
		q.backoff(due, CodeBusy)
		// A frame that carried a session init may be lost with the
		// stream: start a new session so the resend carries one.
		h.cfg.Sealer.ResetSession(key.ID)
		return
	}
	timeout := time.NewTimer(h.cfg.AckTimeout)
	defer timeout.Stop()
	for len(sent) > 0 {
		select {
		case a := <-st.acks:
			p, ok := sent[a.id]
			if !ok {
				continue
			}
			delete(sent, a.id)
			if a.cid.Defined() && !a.cid.Equals(p.item.CID) {
				h.log.Info("ack names another envelope", "to", q.addr, "want", p.item.CID, "got", a.cid)
				q.backoff([]*pending{p}, CodeBusy)
				continue
			}
			q.settle(ctx, p, a.code, key.ID, connPath(st.s.Conn()))
		case <-st.done:
			q.resetStream()
			h.cfg.Sealer.ResetSession(key.ID)
			for _, p := range sent {
				q.backoff([]*pending{p}, CodeBusy)
			}
			return
		case <-timeout.C:
			q.resetStream()
			h.cfg.Sealer.ResetSession(key.ID)
			// The recipient went silent (its link cut, its host gone):
			// leave what it did not ack with a store node now rather than
			// after the next failed dial. Had it taken one, its ack was
			// lost and the copy it collects is answered duplicate.
			unacked := make([]*pending, 0, len(sent))
			for _, p := range sent {
				unacked = append(unacked, p)
			}
			q.unreachable(ctx, unacked, CodeBusy)
			return
		case <-ctx.Done():
			return
		}
	}
}

// unreachable hands the due items not yet held to a store node, then
// backs every due item off: one a store took (or held before) waits for
// the recipient at the slowest pace, or until the recipient identifies
// itself (wake).
func (q *queue) unreachable(ctx context.Context, due []*pending, code Code) {
	var fresh []*pending
	for _, p := range due {
		if !p.item.Held {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) > 0 {
		q.viaStore(ctx, fresh)
	}
	q.backoff(due, code)
}

// settle applies an ack code to p that came over path (PathStore: a
// store node's ack, after which the item waits for the recipient's own).
func (q *queue) settle(ctx context.Context, p *pending, code Code, keyID identity.KeyID, path Path) {
	h := q.o.h
	switch code.Outcome() {
	case Delivered:
		if path == PathStore {
			// A store holds it: it stays in the queue, handed to no store
			// again, for the recipient's own ack (the settlement written
			// in the background as below).
			q.o.mu.Lock()
			p.item.Held = true
			q.o.mu.Unlock()
			q.settleLater(p.item, StatusHeld, code)
			h.emit(Event{Kind: EventHeld, To: q.addr, CID: p.item.CID, NegotiationID: p.item.NegotiationID, Code: code, Path: path})
			h.log.Debug("envelope held by a store node", "to", q.addr, "cid", p.item.CID)
			return
		}
		// The item leaves the queue now; its settlement is written in the
		// background (concurrent settlements share one group commit). A
		// crash before the write only resends it: the receiver answers
		// duplicate.
		q.remove(p)
		q.settleLater(p.item, StatusDelivered, code)
		h.emit(Event{Kind: EventDelivered, To: q.addr, CID: p.item.CID, NegotiationID: p.item.NegotiationID, Code: code, Path: path})
		h.log.Debug("envelope delivered", "to", q.addr, "cid", p.item.CID, "path", path, "code", code)
	case ReKey:
		h.cfg.Sealer.ResetSession(keyID)
		q.o.mu.Lock()
		p.attempts++
		if p.attempts <= 2 {
			p.next = time.Time{}
		} else {
			p.next = h.now().Add(backoff(h.cfg, p.attempts))
		}
		q.o.mu.Unlock()
	case Retry:
		q.backoff([]*pending{p}, code)
	case Rejected:
		q.remove(p)
		q.settleLater(p.item, StatusRefused, code)
		h.log.Info("envelope refused", "to", q.addr, "cid", p.item.CID, "code", code)
		h.emit(Event{Kind: EventRefused, To: q.addr, CID: p.item.CID, NegotiationID: p.item.NegotiationID, Code: code})
	}
}

// settleDelay is how long the settler gathers settlements before writing
// them together: fewer synced writes compete with the outbox's puts.
const settleDelay = 20 * time.Millisecond

type settlement struct {
	item   OutboxItem
	status OutboxStatus
	code   Code
}

// settleLater queues a settlement for the settler.
func (q *queue) settleLater(item OutboxItem, status OutboxStatus, code Code) {
	o := q.o
	o.smu.Lock()
	o.settles = append(o.settles, settlement{item, status, code})
	o.smu.Unlock()
	select {
	case o.skick <- struct{}{}:
	default:
	}
}

// settler writes queued settlements, a batch at a time, concurrently (the
// store group-commits them), and flushes what is left when the host
// closes. A settlement lost in a crash only makes its envelope be sent
// again; the receiver answers duplicate.
func (o *outbox) settler(ctx context.Context) {
	defer o.flushSettles()
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.skick:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(settleDelay):
		}
		o.flushSettles()
	}
}

func (o *outbox) flushSettles() {
	o.smu.Lock()
	batch := o.settles
	o.settles = nil
	o.smu.Unlock()
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, st := range batch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := o.h.cfg.Outbox.Settle(ctx, st.item, st.status, st.code); err != nil {
				o.h.log.Warn("outbox settle failed", "cid", st.item.CID, "err", err)
			}
		}()
	}
	wg.Wait()
}

func (q *queue) remove(p *pending) {
	q.o.mu.Lock()
	defer q.o.mu.Unlock()
	for i, x := range q.items {
		if x == p {
			q.items = append(q.items[:i], q.items[i+1:]...)
			break
		}
	}
	delete(q.keys, p.item.CID)
}

func (q *queue) backoff(ps []*pending, code Code) {
	h := q.o.h
	q.o.mu.Lock()
	defer q.o.mu.Unlock()
	now := h.now()
	for _, p := range ps {
		p.attempts++
		if p.item.Held {
			// A store holds it: no hurry, RetryMax (or the recipient's
			// identification) before it is sent directly again.
			p.next = now.Add(backoff(h.cfg, heldAttempts))
			continue
		}
		p.next = now.Add(backoff(h.cfg, p.attempts))
	}
	h.log.Debug("delivery retry", "to", q.addr, "items", len(ps), "code", code)
}

// heldAttempts is the attempt count backoff is given for an item a store
// holds: RetryMax.
const heldAttempts = 64

// backoff returns the delay before attempt n+1: RetryMin doubled per
// attempt up to RetryMax, with equal jitter (half fixed, half random).
func backoff(cfg Config, attempts int) time.Duration {
	d := cfg.RetryMin
	for i := 1; i < attempts && d < cfg.RetryMax; i++ {
		d *= 2
	}
	if d > cfg.RetryMax {
		d = cfg.RetryMax
	}
	return d/2 + rand.N(d/2+1)
}

// sendStream is the long-lived /parley/envelope/1 stream to one peer.
type sendStream struct {
	s      network.Stream
	peer   peer.ID
	nextID uint64
	acks   chan ack
	done   chan struct{}
}

// refreshEvery bounds how often a queue reads its recipient's DHT record
// to find it at new addresses: a node that moved is found within it, and
// an unreachable one costs the DHT one lookup per interval.
const refreshEvery = 30 * time.Second

// refresh reads the recipient's DHT record again, adding the addresses
// it names, when no stream could be opened with the addresses known; it
// reports whether it did (at most once per refreshEvery).
func (q *queue) refresh(ctx context.Context) bool {
	h := q.o.h
	if h.kad == nil || (!q.looked.IsZero() && h.now().Sub(q.looked) < refreshEvery) {
		return false
	}
	q.looked = h.now()
	if _, err := h.Lookup(ctx, q.addr); err != nil {
		h.log.Debug("recipient's record not found", "to", q.addr, "err", err)
		return false
	}
	h.log.Debug("recipient's record read again", "to", q.addr)
	return true
}

// stream returns the open stream to p, dialling and opening one if needed.
func (q *queue) stream(ctx context.Context, p peer.ID) (*sendStream, error) {
	if q.st != nil && q.st.peer == p {
		select {
		case <-q.st.done:
			q.resetStream()
		default:
			// A stream over a relay gives way once a direct connection
			// exists (punched, or dialled beside it).
			if connPath(q.st.s.Conn()) == PathDirect || !hasDirect(q.o.h.p2p.Network(), p) {
				return q.st, nil
			}
		}
	}
	q.resetStream()
	h := q.o.h
	dctx, cancel := context.WithTimeout(overRelay(ctx, "envelope"), h.cfg.DialTimeout)
	defer cancel()
	if c := h.p2p.Network().Connectedness(p); c != network.Connected && c != network.Limited {
		if err := h.p2p.Connect(dctx, peer.AddrInfo{ID: p}); err != nil {
			return nil, err
		}
	}
	s, err := h.p2p.NewStream(dctx, p, ProtocolEnvelope)
	if err != nil {
		return nil, err
	}
	st := &sendStream{s: s, peer: p, acks: make(chan ack, 2*h.cfg.Window), done: make(chan struct{})}
	// The recipient is protected from the connection manager while this
	// stream lives: its reader below ends when the stream does.
	h.guard.streamOpened(p)
	q.o.qwg.Add(1)
	go func() {
		defer q.o.qwg.Done()
		defer h.guard.streamClosed(p)
		defer close(st.done)
		r := bufio.NewReader(s)
		for {
			b, err := readMsg(r, 1024)
			if err != nil {
				return
			}
			a, err := decodeAck(b)
			if err != nil {
				_ = s.Reset()
				return
			}
			select {
			case st.acks <- a:
			default:
				// The sender gave up on this batch; a late ack is dropped
				// and its item is retried (the receiver answers duplicate).
			}
		}
	}()
	q.st = st
	return st, nil
}

func (q *queue) resetStream() {
	if q.st != nil {
		_ = q.st.s.Reset()
		q.st = nil
	}
}

func (q *queue) closeStream() {
	if q.st != nil {
		_ = q.st.s.Close()
		q.st = nil
	}
}
