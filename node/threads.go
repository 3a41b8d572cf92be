package node

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// thread is one negotiation as this node holds it: the state machine's
// thread and what the node recorded about it. Every Apply and the ledger
// append that records it happen under mu, so the ledger's order of a
// negotiation's entries is the order the thread took them, and a replay
// of the ledger rebuilds the same thread.
type thread struct {
	mu sync.Mutex
	id string
	p  negotiation.Params
	th *negotiation.Thread

	role     negotiation.Role // this node's role when the thread was opened
	observer bool             // joined late from a proof bundle (an arbitrator)
	opened   bool             // thread.opened is recorded
	dead     bool             // removed from the node's map: look it up again

	links    map[negotiation.Address]bool // identity.link recorded per party
	recorded negotiation.State            // the last thread.state recorded
	proofs   map[int]negotiation.CID      // proof CIDs the chain reported, per milestone
	pending  []pendingFact                // chain facts refused for the thread's state, to retry
	steps    int                          // thread.state records, for RoomView.Version
	pxp      *pxpThread                   // PXP state: the mandate (nil until openPXP or a replay)
}

func newThread(p negotiation.Params, role negotiation.Role, observer bool) (*thread, error) {
	th, err := negotiation.NewThread(p)
	if err != nil {
		return nil, err
	}
	return &thread{
		id: p.NegotiationID, p: p, th: th, role: role, observer: observer,
		links: map[negotiation.Address]bool{}, proofs: map[int]negotiation.CID{},
	}, nil
}

// announcementCID returns the CID of the announcement the thread answers,
// or cid.Undef.
func (t *thread) announcementCID() cid.Cid {
	if t.p.Announcement == nil {
		return cid.Undef
	}
	return t.p.Announcement.CID()
}

// lookup returns the live thread for nid, or nil.
func (n *Node) lookup(nid string) *thread {
	n.tmu.Lock()
	defer n.tmu.Unlock()
	return n.threads[nid]
}

// locked returns the thread for nid with its lock held, or an
// unknown_negotiation error. The caller unlocks.
func (n *Node) locked(nid string) (*thread, error) {
	for {
		t := n.lookup(nid)
		if t == nil {
			if err := n.check.quarantineErr(nid); err != nil {
				return nil, err
			}
			return nil, fail(CodeUnknownNegotiation, "no negotiation %s", nid)
		}
		t.mu.Lock()
		if !t.dead {
			return t, nil
		}
		t.mu.Unlock()
	}
}

// register adds t to the node's threads (t.mu held by the caller or t not
// yet shared).
func (n *Node) register(t *thread) {
	n.tmu.Lock()
	n.threads[t.id] = t
	n.indexLocked(t)
	n.tmu.Unlock()
	n.m.threads.Set(float64(n.threadCount()))
}

func (n *Node) threadCount() int {
	n.tmu.Lock()
	defer n.tmu.Unlock()
	return len(n.threads)
}

// index records the task id of t's agreement, so chain events find t.
func (n *Node) index(t *thread) {
	n.tmu.Lock()
	n.indexLocked(t)
	n.tmu.Unlock()
}

func (n *Node) indexLocked(t *thread) {
	if a := t.th.Agreement(); a != nil {
		n.byTask[[32]byte(a.Digest)] = t.id
	}
}

// byTaskID returns the negotiation of a task id, or "".
func (n *Node) byTaskID(id [32]byte) string {
	n.tmu.Lock()
	defer n.tmu.Unlock()
	return n.byTask[id]
}

// recordOpened appends thread.opened for a new thread (t.mu held), in a
// batch of its own (putOpened).
func (n *Node) recordOpened(ctx context.Context, t *thread) error {
	var b batch
	n.putOpened(&b, t)
	return n.write(ctx, &b, "thread.opened")
}

// putOpened adds thread.opened of a new thread to b (t.mu held; nothing
// when it is recorded), preceded by the announcement the thread answers:
// it is revision 1 of its negotiation, recorded now if the board held it
// in memory only (a stranger's; one already stored writes nothing). Once
// b is written the thread is opened.
func (n *Node) putOpened(b *batch, t *thread) {
	if t.opened {
		return
	}
	body := openedBody{Role: t.role, Observer: t.observer}
	if c := t.announcementCID(); c.Defined() {
		body.Announcement = c.String()
		if ann := t.p.Announcement; ann.Sender.EVMAddress != n.self {
			seen := n.board.seenAt(ann.Hash(), n.now())
			b.putEnvelope(ledger.KindEnvelopeReceived, ann, "ok", seen, nil)
		}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		b.fail(err)
		return
	}
	b.put(ledger.Record{Kind: KindThreadOpened, NegotiationID: t.id, Body: raw, At: n.now()}, func() { t.opened = true })
}

// putLink adds the identity link of a party of t to b once per
// negotiation (t.mu held; nothing when l is nil or recorded), so the
// negotiation's bundle carries it.
func (n *Node) putLink(b *batch, t *thread, l *identity.Link) {
	if l == nil {
		return
	}
	a := negotiation.Address(l.EVMAddress)
	if t.links[a] {
		return
	}
	raw, err := json.Marshal(linkBody{Address: a, Link: l.Bytes()})
	if err != nil {
		b.fail(err)
		return
	}
	b.put(ledger.Record{Kind: KindIdentityLink, NegotiationID: t.id, Body: raw, At: n.now()}, func() { t.links[a] = true })
}

// recordState appends thread.state when t's state changed since the last
// record (t.mu held), in a batch of its own (putState).
func (n *Node) recordState(ctx context.Context, t *thread) error {
	var b batch
	n.putState(&b, t)
	return n.write(ctx, &b, "thread.state")
}

// putState adds thread.state to b when t's state changed since the last
// record (t.mu held). Once b is written the state counts as recorded, the
// consent book learns it and the event is published.
func (n *Node) putState(b *batch, t *thread) {
	st := t.th.State()
	if st == t.recorded {
		return
	}
	raw, err := json.Marshal(stateBody{State: st, A2A: string(st.A2A())})
	if err != nil {
		b.fail(err)
		return
	}
	at := n.now()
	b.put(ledger.Record{Kind: ledger.KindThreadState, NegotiationID: t.id, Body: raw, At: at}, func() {
		from := t.recorded
		t.recorded = st
		t.steps++
		n.cs.settled(t.id, st)
		n.events.publish(Event{Kind: EventState, NegotiationID: t.id, State: st, From: from, At: n.now()})
	})
}

// rebuild replaces t's state machine with one replayed from the ledger
// (t.mu held). It undoes an Apply whose record failed or whose effect an
// own act must not keep.
func (n *Node) rebuild(ctx context.Context, t *thread) error {
	if !t.opened {
		th, err := negotiation.NewThread(t.p)
		if err != nil {
			return err
		}
		t.th = th
		t.pxp = nil
		return nil
	}
	th, err := n.led.ReplayThread(ctx, t.p, replayFact)
	if err != nil {
		n.log.Error("thread replay failed", "negotiation", t.id, "err", err)
		return fmt.Errorf("node: rebuild %s: %w", t.id, err)
	}
	t.th = th
	return n.rebuildPXP(ctx, t)
}

// load rebuilds the node's memory from its ledger: the task board, the
// approvals consumed, the chain events recorded and every thread (each
// replayed through the state machine, which must take the decisions the
// ledger recorded).
func (n *Node) load(ctx context.Context) error {
	type pending struct {
		body   openedBody
		links  map[negotiation.Address]bool
		proofs map[int]negotiation.CID
		state  negotiation.State
		steps  int
		facts  map[string]ledger.Entry // chain.event entries by transaction/log index, the last one
		keys   []string
		opened bool
	}
	if err := n.loadCards(ctx); err != nil {
		return err
	}
	byNID := map[string]*pending{}
	var order []string
	for e, err := range n.led.Entries(ctx, 1) {
		if err != nil {
			return fmt.Errorf("node: load: %w", err)
		}
		// The entries of one step are written in one batch in a defined
		// order (putSent, putReceived: the announcement answered, then
		// thread.opened, card, link, envelope, state); ledgers written
		// before batches hold them in any order: a negotiation's record
		// starts with whichever is first.
		p := byNID[e.NegotiationID]
		if p == nil && e.NegotiationID != "" {
			p = &pending{links: map[negotiation.Address]bool{}, proofs: map[int]negotiation.CID{}, facts: map[string]ledger.Entry{}}
			byNID[e.NegotiationID] = p
		}
		switch e.Kind {
		case KindThreadOpened:
			if err := json.Unmarshal(e.Body, &p.body); err != nil {
				return fmt.Errorf("node: load entry %d: %w", e.Seq, err)
			}
			p.opened = true
			order = append(order, e.NegotiationID)
		case KindIdentityLink:
			var b linkBody
			if p != nil && json.Unmarshal(e.Body, &b) == nil {
				p.links[b.Address] = true
			}
		case ledger.KindThreadState:
			var b stateBody
			if p != nil && json.Unmarshal(e.Body, &b) == nil {
				p.state = b.State
				p.steps++
			}
		case ledger.KindChainEvent:
			var b factBody
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return fmt.Errorf("node: load entry %d: %w", e.Seq, err)
			}
			key := logKey(b.Tx, b.LogIndex)
			n.seenLogs[key] = true
			if p != nil {
				if b.Fact == "proof_submitted" && b.Milestone != nil {
					p.proofs[*b.Milestone] = negotiation.CID(b.ProofCID)
				}
				if _, ok := p.facts[key]; !ok {
					p.keys = append(p.keys, key)
				}
				p.facts[key] = e
			}
		case ledger.KindEnvelopeSent, ledger.KindEnvelopeReceived:
			if err := n.loadAnnouncement(ctx, e); err != nil {
				return err
			}
		}
	}
	for _, nid := range order {
		p := byNID[nid]
		params := negotiation.Params{NegotiationID: nid, Self: n.self}
		if p.body.Observer {
			params.Self = negotiation.Address{}
		}
		if p.body.Announcement != "" {
			ann, err := n.envelopeByCID(ctx, p.body.Announcement)
			if n.check.quarantine(nid, err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("node: load %s: announcement: %w", nid, err)
			}
			params.Announcement = ann
		}
		th, err := n.led.ReplayThread(ctx, params, replayFact)
		if n.check.quarantine(nid, err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("node: load %s: %w", nid, err)
		}
		t := &thread{
			id: nid, p: params, th: th, role: p.body.Role, observer: p.body.Observer, opened: true,
			links: p.links, proofs: p.proofs, recorded: p.state, steps: p.steps,
		}
		if err := n.rebuildPXP(ctx, t); n.check.quarantine(nid, err) {
			continue
		} else if err != nil {
			return fmt.Errorf("node: load %s: %w", nid, err)
		}
		for _, k := range p.keys {
			var b factBody
			if json.Unmarshal(p.facts[k].Body, &b) != nil || b.Code != string(negotiation.CodeStateForbidden) {
				continue
			}
			f, err := decodeFact(b)
			if err != nil {
				return fmt.Errorf("node: load %s: %w", nid, err)
			}
			t.pending = append(t.pending, pendingFact{f: f, log: types.Log{TxHash: common.HexToHash(b.Tx), Index: b.LogIndex, BlockNumber: b.Block}})
		}
		n.threads[nid] = t
		n.indexLocked(t)
	}
	n.m.threads.Set(float64(len(n.threads)))
	return nil
}

// loadAnnouncement adds the announcement an envelope entry stored to the
// board (other entries are skipped after reading their type).
func (n *Node) loadAnnouncement(ctx context.Context, e ledger.Entry) error {
	var b struct {
		Type negotiation.MessageType `json:"type"`
	}
	if err := json.Unmarshal(e.Body, &b); err != nil || b.Type != negotiation.TypeTaskProposal || !e.CID.Defined() {
		return nil
	}
	raw, err := n.led.Object(ctx, e.CID)
	if err != nil {
		return nil // pruned
	}
	env, err := negotiation.Decode(raw, negotiation.DecodeOptions{MaxBytes: len(raw)})
	if err != nil {
		return fmt.Errorf("node: load entry %d: %w", e.Seq, err)
	}
	if env.IsAnnouncement() {
		n.board.put(&boardEntry{env: env, seen: e.At, own: env.Sender.EVMAddress == n.self})
	}
	return nil
}

// envelopeByCID reads and decodes an envelope the ledger stores.
func (n *Node) envelopeByCID(ctx context.Context, s string) (*negotiation.Envelope, error) {
	c, err := cid.Decode(s)
	if err != nil {
		return nil, err
	}
	raw, err := n.led.Object(ctx, c)
	if err != nil {
		return nil, err
	}
	return negotiation.Decode(raw, negotiation.DecodeOptions{MaxBytes: len(raw)})
}

func logKey(tx string, index uint) string { return fmt.Sprintf("%s/%d", tx, index) }
