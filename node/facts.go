package node

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// onEvents is the chain watcher's handler: it turns the events of
// Parley's contracts into chain facts (chain.FactOf) for the threads they
// concern. It is idempotent: an event recorded before (same transaction
// and log index) is skipped, and a fact a thread already holds is a
// duplicate.
func (c *chainActs) onEvents(ctx context.Context, events []chain.Event) error {
	for _, ev := range events {
		f, ref, ok := chain.FactOf(ev)
		if !ok {
			continue
		}
		f, ref, err := c.courtRuling(ctx, ev, f, ref) // court.go
		if err != nil {
			return err
		}
		if err := c.onFact(ctx, f, ref, ev.Log); err != nil {
			return err
		}
	}
	if c.cursor != nil {
		c.cursor.delivered()
	}
	return nil
}

// onFact applies the chain fact of one contract event, reported in
// log l, to the thread of this node it concerns, if any.
func (c *chainActs) onFact(ctx context.Context, f negotiation.Fact, ref chain.FactRef, l types.Log) error {
	nid, f := c.factOf(f, ref)
	if f == nil || nid == "" {
		return nil
	}
	_, err := c.applyFact(ctx, nid, f, l)
	return err
}

// applyReceipt applies the facts of one of this node's own transactions
// at once, without waiting for the watcher (which later finds them
// recorded).
func (c *chainActs) applyReceipt(ctx context.Context, r *types.Receipt) error {
	if r == nil {
		return nil
	}
	return c.onEvents(ctx, chain.DecodeEvents(c.client.Contracts(), r.Logs))
}

// factOf returns the negotiation a chain fact concerns (the one a
// TaskCreated names, if this node holds it; else the thread of the task)
// and the fact as the thread takes it: an amendment's milestones come
// from the thread's co-signed MilestoneDefinition (nil without one).
func (c *chainActs) factOf(f negotiation.Fact, ref chain.FactRef) (string, negotiation.Fact) {
	if ref.NegotiationID != "" {
		if c.eng.Lookup(ref.NegotiationID) == nil {
			return "", nil
		}
		return ref.NegotiationID, f
	}
	nid := c.eng.ByTask(ref.TaskID)
	if _, ok := f.(negotiation.MilestonesAmended); ok {
		if f = c.amendedFact(nid, ref); f == nil {
			return "", nil
		}
	}
	return nid, f
}

// amendedFact returns the chain fact of a TaskAmended event of thread nid:
// the milestones (with their descriptions) and the deadline of the
// co-signed MilestoneDefinition whose termsHash and nonce the event names
// (v, from chain.FactOf: the event carries the nonce after the
// amendment). It returns nil when the thread holds no such envelope.
func (c *chainActs) amendedFact(nid string, v chain.FactRef) negotiation.Fact {
	if nid == "" || v.Nonce == 0 {
		return nil
	}
	var found *negotiation.MilestoneDefinition
	if err := c.eng.With(nid, func(t *thread) error {
		found = t.Th.AmendmentOf(negotiation.Hash(v.TermsHash), v.Nonce-1)
		return nil
	}); err != nil {
		return nil
	}
	if found == nil {
		c.log.Warn("amendment on chain without its co-signed envelope", "negotiation", nid, "termsHash", negotiation.Hash(v.TermsHash))
		return nil
	}
	return negotiation.MilestonesAmended{Milestones: append([]negotiation.Milestone(nil), found.Milestones...), Deadline: found.Deadline}
}

// applyFact applies a chain fact, reported in log l, to thread nid
// through the engine (Engine.ApplyFact: an event recorded before is
// skipped; a fact refused for the thread's state is kept pending and
// applied again after the thread's next change). A record that fails is
// CodeStoreFailed.
func (c *chainActs) applyFact(ctx context.Context, nid string, f negotiation.Fact, l types.Log) (negotiation.Outcome, error) {
	out, err := c.eng.ApplyFact(ctx, nid, f, engine.LogRef{Tx: l.TxHash.Hex(), Index: l.Index, Block: l.BlockNumber})
	if err != nil {
		return out, failWrap(CodeStoreFailed, err, "recording the chain event")
	}
	return out, nil
}

// factApplied is the engine's Config.OnFact (t.mu held): the fact is
// counted and published, and one that took effect starts the work it
// calls for: the task index learns the thread, a party joins a dispute's
// evidence topic when the dispute opens and asks for an anchor of its
// ledger's tree head (the record the dispute rests on, fixed on chain),
// and hands the thread over to the arbitrator once the chain assigns one.
func (c *chainActs) factApplied(t *thread, f negotiation.Fact, at engine.LogRef, out negotiation.Outcome, now time.Time) {
	code := "ok"
	if out.Code != "" {
		code = string(out.Code)
	}
	c.facts.WithLabelValues(negotiation.FactName(f), code).Inc()
	c.events.publish(Event{Kind: EventFact, NegotiationID: t.ID, Fact: negotiation.FactName(f), Code: code, State: t.Th.State(), Hash: at.Tx, At: now})
	if code != "ok" {
		c.log.Debug("chain fact not applied", "negotiation", t.ID, "fact", negotiation.FactName(f), "code", code)
		return
	}
	c.eng.Index(t)
	role := t.Th.RoleOf(c.self)
	if role != negotiation.RolePoster && role != negotiation.RoleWorker {
		return
	}
	switch f.(type) {
	case negotiation.DisputeOpened:
		c.joinEvidence(t)
		if c.disputeOpened != nil {
			c.disputeOpened()
		}
	case negotiation.ArbitratorAssigned:
		c.joinEvidence(t)
		nid := t.ID
		c.spawn(func(ctx context.Context) { c.handOff(ctx, nid) })
	}
}

// disputeIDOf returns t's dispute id (the task id) once a dispute is open.
func disputeIDOf(t *thread) string {
	switch t.Th.State() {
	case negotiation.StateDisputed, negotiation.StateArbitrated, negotiation.StateResolved:
		if id := t.Th.TaskID(); id != nil {
			return id.String()
		}
	}
	return ""
}
