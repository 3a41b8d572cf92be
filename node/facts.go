package node

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// onChainEvents is the chain watcher's handler: it turns the events of
// Parley's contracts into chain facts (chain.FactOf) for the threads they
// concern. It is idempotent: an event recorded before (same transaction
// and log index) is skipped, and a fact a thread already holds is a
// duplicate.
func (n *Node) onChainEvents(ctx context.Context, events []chain.Event) error {
	for _, ev := range events {
		f, ref, ok := chain.FactOf(ev)
		if !ok {
			continue
		}
		if err := n.onChainFact(ctx, f, ref, ev.Log); err != nil {
			return err
		}
	}
	if n.cursor != nil {
		n.cursor.delivered()
	}
	return nil
}

// onChainFact applies the chain fact of one contract event, reported in
// log l, to the thread of this node it concerns, if any.
func (n *Node) onChainFact(ctx context.Context, f negotiation.Fact, ref chain.FactRef, l types.Log) error {
	nid, f := n.factOf(f, ref)
	if f == nil || nid == "" {
		return nil
	}
	_, err := n.applyFact(ctx, nid, f, l)
	return err
}

// applyReceipt applies the facts of one of this node's own transactions
// at once, without waiting for the watcher (which later finds them
// recorded).
func (n *Node) applyReceipt(ctx context.Context, r *types.Receipt) error {
	if r == nil {
		return nil
	}
	return n.onChainEvents(ctx, chain.DecodeEvents(n.client.Contracts(), r.Logs))
}

// factOf returns the negotiation a chain fact concerns (the one a
// TaskCreated names, if this node holds it; else the thread of the task)
// and the fact as the thread takes it: an amendment's milestones come
// from the thread's co-signed MilestoneDefinition (nil without one).
func (n *Node) factOf(f negotiation.Fact, ref chain.FactRef) (string, negotiation.Fact) {
	if ref.NegotiationID != "" {
		if n.lookup(ref.NegotiationID) == nil {
			return "", nil
		}
		return ref.NegotiationID, f
	}
	nid := n.byTaskID(ref.TaskID)
	if _, ok := f.(negotiation.MilestonesAmended); ok {
		if f = n.amendedFact(nid, ref); f == nil {
			return "", nil
		}
	}
	return nid, f
}

// applyFact applies a chain fact to thread nid and records it as a
// chain.event entry with the code the thread answered ("ok" when it took
// effect). An event recorded before is skipped. A fact the thread refuses
// for its state (funding seen before the last acceptance arrived) is kept
// pending and applied again after the thread's next change.
func (n *Node) applyFact(ctx context.Context, nid string, f negotiation.Fact, l types.Log) (negotiation.Outcome, error) {
	t, err := n.locked(nid)
	if err != nil {
		return negotiation.Outcome{}, nil // not a thread of this node
	}
	defer t.mu.Unlock()
	key := logKey(l.TxHash.Hex(), l.Index)
	n.tmu.Lock()
	seen := n.seenLogs[key]
	n.tmu.Unlock()
	if seen {
		return negotiation.Outcome{Code: negotiation.CodeDuplicate}, nil
	}
	out, err := n.applyFactLocked(ctx, t, f, l)
	if err != nil {
		return out, err
	}
	n.tmu.Lock()
	n.seenLogs[key] = true
	n.tmu.Unlock()
	if out.Code == negotiation.CodeStateForbidden {
		t.pending = append(t.pending, pendingFact{f: f, log: l})
	} else if out.Effective() {
		n.retryFacts(ctx, t)
	}
	return out, nil
}

// pendingFact is a chain fact a thread refused for its state, to apply
// again after the thread's next change.
type pendingFact struct {
	f   negotiation.Fact
	log types.Log
}

// retryFacts applies the thread's pending facts again, in chain order,
// until none takes effect (t.mu held).
func (n *Node) retryFacts(ctx context.Context, t *thread) {
	for progress := true; progress && len(t.pending) > 0; {
		progress = false
		for i, p := range t.pending {
			out, err := n.applyFactLocked(ctx, t, p.f, p.log)
			if err != nil {
				return
			}
			if out.Code == negotiation.CodeStateForbidden {
				continue
			}
			t.pending = append(t.pending[:i:i], t.pending[i+1:]...)
			progress = true
			break
		}
	}
}

// applyFactLocked applies f to t and records the chain.event (t.mu held).
func (n *Node) applyFactLocked(ctx context.Context, t *thread, f negotiation.Fact, l types.Log) (negotiation.Outcome, error) {
	now := n.now()
	out := t.th.Apply(f, now)
	code := "ok"
	if out.Code != "" {
		code = string(out.Code)
	}
	b := encodeFact(f)
	b.Tx, b.LogIndex, b.Block, b.Code = l.TxHash.Hex(), l.Index, l.BlockNumber, code
	body, err := json.Marshal(b)
	if err != nil {
		return out, err
	}
	var rec batch
	rec.put(ledger.Record{Kind: ledger.KindChainEvent, NegotiationID: t.id, Body: body, At: now}, nil)
	n.putState(&rec, t)
	if err := n.write(ctx, &rec, "chain event"); err != nil {
		if rerr := n.rebuild(ctx, t); rerr != nil {
			n.log.Error("thread rebuild failed", "negotiation", t.id, "err", rerr)
		}
		return out, err
	}
	if p, ok := f.(negotiation.ProofSubmitted); ok {
		t.proofs[p.Milestone] = p.ProofCID
	}
	n.m.facts.WithLabelValues(negotiation.FactName(f), code).Inc()
	n.events.publish(Event{Kind: EventFact, NegotiationID: t.id, Fact: negotiation.FactName(f), Code: code, State: t.th.State(), Hash: l.TxHash.Hex(), At: now})
	if code != "ok" {
		n.log.Debug("chain fact not applied", "negotiation", t.id, "fact", negotiation.FactName(f), "code", code)
		return out, nil
	}
	n.index(t)
	n.afterFact(t, f)
	return out, nil
}

// afterFact starts the work a fact calls for (t.mu held): a party joins a
// dispute's evidence topic when the dispute opens, and hands the thread
// over to the arbitrator once the chain assigns one.
func (n *Node) afterFact(t *thread, f negotiation.Fact) {
	role := t.th.RoleOf(n.self)
	if role != negotiation.RolePoster && role != negotiation.RoleWorker {
		return
	}
	switch f.(type) {
	case negotiation.DisputeOpened:
		n.joinEvidenceLocked(t)
	case negotiation.ArbitratorAssigned:
		n.joinEvidenceLocked(t)
		nid := t.id
		n.spawn(func(ctx context.Context) { n.handOff(ctx, nid) })
	}
}

// joinEvidenceLocked subscribes to the evidence topic of t's dispute with
// its current members (t.mu held).
func (n *Node) joinEvidenceLocked(t *thread) {
	id := disputeIDOf(t)
	if id == "" || n.host == nil {
		return
	}
	members := []negotiation.Address{t.th.Poster(), t.th.Worker()}
	if a := t.th.Arbitrator(); a != (negotiation.Address{}) {
		members = append(members, a)
	}
	if err := n.host.JoinEvidence(id, members); err != nil {
		n.log.Warn("evidence topic not joined", "negotiation", t.id, "err", err)
	}
}

// disputeIDOf returns t's dispute id (the task id) once a dispute is open.
func disputeIDOf(t *thread) string {
	switch t.th.State() {
	case negotiation.StateDisputed, negotiation.StateArbitrated, negotiation.StateResolved:
		if id := t.th.TaskID(); id != nil {
			return id.String()
		}
	}
	return ""
}
