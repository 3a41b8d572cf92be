package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// LoadHooks are what Load asks of the node that holds the engine; each
// may be nil.
type LoadHooks struct {
	// Entry sees every ledger entry, in order, as Load reads it (the node
	// rebuilds its task board from the announcements).
	Entry func(ctx context.Context, e ledger.Entry) error
	// Quarantine reports whether the error err of negotiation nid's
	// replay (nil for none) quarantines it: the thread is skipped and the
	// load goes on. Nil: every error fails the load.
	Quarantine func(nid string, err error) bool
	// Thread rebuilds what the node keeps of a replayed thread beside the
	// state machine (its PXP state), before the thread is registered.
	Thread func(ctx context.Context, t *Thread) error
}

// Load rebuilds the engine's memory from its ledger (after Open): the
// chain events recorded and every thread opened in it, each replayed
// through the state machine (ledger.ReplayThread with ReplayFact, which
// must take the decisions the ledger recorded), with the links, proofs,
// recorded state and chain facts kept pending that its entries say, and
// registers them.
func (e *Engine) Load(ctx context.Context, h LoadHooks) error {
	quarantine := h.Quarantine
	if quarantine == nil {
		quarantine = func(string, error) bool { return false }
	}
	thread := h.Thread
	if thread == nil {
		thread = func(context.Context, *Thread) error { return nil }
	}
	if e.led == nil {
		return ErrNoLedger
	}
	type pending struct {
		body   OpenedBody
		links  map[negotiation.Address]bool
		proofs map[int]negotiation.CID
		state  negotiation.State
		steps  int
		facts  map[string]ledger.Entry // chain.event entries by transaction/log index, the last one
		keys   []string
		opened bool
	}
	byNID := map[string]*pending{}
	var order []string
	for en, err := range e.led.Entries(ctx, 1) {
		if err != nil {
			return fmt.Errorf("engine: load: %w", err)
		}
		if h.Entry != nil {
			if err := h.Entry(ctx, en); err != nil {
				return err
			}
		}
		// The entries of one step are written in one batch in a defined
		// order (PutSent, PutReceived: the announcement answered, then
		// thread.opened, card, link, envelope, state); ledgers written
		// before batches hold them in any order: a negotiation's record
		// starts with whichever is first.
		p := byNID[en.NegotiationID]
		if p == nil && en.NegotiationID != "" {
			p = &pending{links: map[negotiation.Address]bool{}, proofs: map[int]negotiation.CID{}, facts: map[string]ledger.Entry{}}
			byNID[en.NegotiationID] = p
		}
		switch en.Kind {
		case KindThreadOpened:
			if err := json.Unmarshal(en.Body, &p.body); err != nil {
				return fmt.Errorf("engine: load entry %d: %w", en.Seq, err)
			}
			p.opened = true
			order = append(order, en.NegotiationID)
		case KindIdentityLink:
			var b LinkBody
			if p != nil && json.Unmarshal(en.Body, &b) == nil {
				p.links[b.Address] = true
			}
		case ledger.KindThreadState:
			var b StateBody
			if p != nil && json.Unmarshal(en.Body, &b) == nil {
				p.state = b.State
				p.steps++
			}
		case ledger.KindChainEvent:
			var b FactBody
			if err := json.Unmarshal(en.Body, &b); err != nil {
				return fmt.Errorf("engine: load entry %d: %w", en.Seq, err)
			}
			key := LogKey(b.Tx, b.LogIndex)
			e.MarkSeen(key)
			if p != nil {
				if b.Fact == "proof_submitted" && b.Milestone != nil {
					p.proofs[*b.Milestone] = negotiation.CID(b.ProofCID)
				}
				if _, ok := p.facts[key]; !ok {
					p.keys = append(p.keys, key)
				}
				p.facts[key] = en
			}
		}
	}
	for _, nid := range order {
		p := byNID[nid]
		params := negotiation.Params{NegotiationID: nid, Self: e.self}
		if p.body.Observer {
			params.Self = negotiation.Address{}
		}
		if p.body.Announcement != "" {
			ann, err := e.EnvelopeByCID(ctx, p.body.Announcement)
			if quarantine(nid, err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("engine: load %s: announcement: %w", nid, err)
			}
			params.Announcement = ann
		}
		th, err := e.led.ReplayThread(ctx, params, ReplayFact)
		if quarantine(nid, err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("engine: load %s: %w", nid, err)
		}
		t := &Thread{
			ID: nid, Params: params, Th: th, Role: p.body.Role, Observer: p.body.Observer, Opened: true,
			Links: p.links, Proofs: p.proofs, Recorded: p.state, Steps: p.steps,
		}
		if err := thread(ctx, t); quarantine(nid, err) {
			continue
		} else if err != nil {
			return fmt.Errorf("engine: load %s: %w", nid, err)
		}
		for _, k := range p.keys {
			var b FactBody
			if json.Unmarshal(p.facts[k].Body, &b) != nil || b.Code != string(negotiation.CodeStateForbidden) {
				continue
			}
			f, err := DecodeFact(b)
			if err != nil {
				return fmt.Errorf("engine: load %s: %w", nid, err)
			}
			t.Pending = append(t.Pending, PendingFact{Fact: f, At: LogRef{Tx: b.Tx, Index: b.LogIndex, Block: b.Block}})
		}
		e.Register(t)
	}
	return nil
}

// EnvelopeByCID reads and decodes an envelope the ledger stores.
func (e *Engine) EnvelopeByCID(ctx context.Context, s string) (*negotiation.Envelope, error) {
	c, err := cid.Decode(s)
	if err != nil {
		return nil, err
	}
	raw, err := e.led.Object(ctx, c)
	if err != nil {
		return nil, err
	}
	return negotiation.Decode(raw, negotiation.DecodeOptions{MaxBytes: len(raw)})
}
