package node

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// thread is one negotiation as this node holds it (engine.Thread).
type thread = engine.Thread

// lookup returns the live thread for nid, or nil.
func (n *Node) lookup(nid string) *thread { return n.eng.Lookup(nid) }

// locked returns the thread for nid with its lock held, or an
// unknown_negotiation error. The caller unlocks.
func (n *Node) locked(nid string) (*thread, error) { return n.eng.Locked(nid) }

// unknownErr is the engine's error for a negotiation it does not hold:
// the quarantine's when the ledger's record of it is damaged, else
// unknown_negotiation.
func (n *Node) unknownErr(nid string) error {
	if err := n.check.quarantineErr(nid); err != nil {
		return err
	}
	return fail(CodeUnknownNegotiation, "no negotiation %s", nid)
}

// load rebuilds the node's memory from its ledger: the task board, the
// approvals consumed, the chain events recorded and every thread (each
// replayed through the state machine, which must take the decisions the
// ledger recorded).
func (n *Node) load(ctx context.Context) error {
	type pending struct {
		body   engine.OpenedBody
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
			var b engine.LinkBody
			if p != nil && json.Unmarshal(e.Body, &b) == nil {
				p.links[b.Address] = true
			}
		case ledger.KindThreadState:
			var b engine.StateBody
			if p != nil && json.Unmarshal(e.Body, &b) == nil {
				p.state = b.State
				p.steps++
			}
		case ledger.KindChainEvent:
			var b engine.FactBody
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return fmt.Errorf("node: load entry %d: %w", e.Seq, err)
			}
			key := engine.LogKey(b.Tx, b.LogIndex)
			n.eng.MarkSeen(key)
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
		th, err := n.led.ReplayThread(ctx, params, engine.ReplayFact)
		if n.check.quarantine(nid, err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("node: load %s: %w", nid, err)
		}
		t := &thread{
			ID: nid, Params: params, Th: th, Role: p.body.Role, Observer: p.body.Observer, Opened: true,
			Links: p.links, Proofs: p.proofs, Recorded: p.state, Steps: p.steps,
		}
		if err := n.rebuildPXP(ctx, t); n.check.quarantine(nid, err) {
			continue
		} else if err != nil {
			return fmt.Errorf("node: load %s: %w", nid, err)
		}
		for _, k := range p.keys {
			var b engine.FactBody
			if json.Unmarshal(p.facts[k].Body, &b) != nil || b.Code != string(negotiation.CodeStateForbidden) {
				continue
			}
			f, err := engine.DecodeFact(b)
			if err != nil {
				return fmt.Errorf("node: load %s: %w", nid, err)
			}
			t.Pending = append(t.Pending, engine.PendingFact{Fact: f, At: engine.LogRef{Tx: b.Tx, Index: b.LogIndex, Block: b.Block}})
		}
		n.eng.Register(t)
	}
	n.m.threads.Set(float64(n.eng.Len()))
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

// ownChain returns the sequence, previousHash and last timestamp of this
// node's next envelope in t (t.mu held): the thread's head of this node's
// chain (Thread.Head), one on.
func (n *Node) ownChain(t *thread) (seq uint64, prev negotiation.Hash, last time.Time) {
	seq, prev, last = t.Th.Head(n.self)
	return seq + 1, prev, last
}
