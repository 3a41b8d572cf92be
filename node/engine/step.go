package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// Send judges this node's own envelope env against t (negotiation's
// Thread.Check, which changes nothing), then asks check (nil for none:
// the node's mandate), records the step in one batch (PutSent, with
// link, this node's identity link, then queue: the records that queue env
// for delivery, the node's outbox items, so that the envelope.sent entry
// and its outbox items are one synced commit, all or none) and only then
// applies env to t (t's lock held), and to its mandate (the thread's PXP
// state), if it has one. A refusal of the state machine is the returned
// outcome (not Effective) with a nil error; check's refusal is its error;
// a failed record wraps ErrNotRecorded. In all three nothing was recorded
// (not the queue's records either) or applied: nothing is undone by
// replaying the ledger.
func (e *Engine) Send(ctx context.Context, t *Thread, env *negotiation.Envelope, link *identity.Link, now time.Time, check func() error, queue []ledger.Record) (negotiation.Outcome, error) {
	out := t.Th.Check(env, now)
	if !out.Effective() {
		return out, nil
	}
	if check != nil {
		if err := check(); err != nil {
			return out, err
		}
	}
	var b Batch
	e.PutSent(&b, t, env, link, out.To, now)
	for _, r := range queue {
		b.Put(r, nil)
	}
	applied, err := e.commit(ctx, t, env, out, &b, now)
	if err != nil {
		return applied, err
	}
	if px := t.PXP; px != nil && px.Mandate != nil && !env.IsAnnouncement() {
		if err := px.Mandate.Sent(env); err != nil {
			// check asked the mandate first (Mandate.Outgoing, as Sent does).
			e.cfg.Logger.Error("the mandate refused an envelope it checked", "negotiation", t.ID, "hash", env.Hash(), "err", err)
		}
	}
	return applied, nil
}

// Receive judges a received envelope env against t (Thread.Check) and,
// when it is authentic and new, runs before (nil for none: the node opens
// the thread's PXP state), records the step in one batch (PutReceived,
// with link, the sender's identity link) and only then applies env (t's
// lock held), and, when it took effect and comes from the other party,
// to the thread's mandate. An envelope that is a duplicate or not authentic is
// returned with its outcome and nothing recorded; a failed record wraps
// ErrNotRecorded and leaves t as it was.
func (e *Engine) Receive(ctx context.Context, t *Thread, env *negotiation.Envelope, link *identity.Link, now time.Time, before func()) (negotiation.Outcome, error) {
	out := t.Th.Check(env, now)
	if out.Code == negotiation.CodeDuplicate || !out.Authentic {
		return out, nil
	}
	if before != nil {
		before()
	}
	code := negotiation.Code("ok")
	if out.Code != "" {
		code = out.Code
	}
	var b Batch
	e.PutReceived(&b, t, env, link, code, out.To, now)
	applied, err := e.commit(ctx, t, env, out, &b, now)
	if err != nil || !applied.Effective() {
		return applied, err
	}
	if px := t.PXP; px != nil && px.Mandate != nil && e.FromCounterparty(t, env) {
		if err := px.Mandate.Received(env); err != nil {
			// The thread decides and the mandate follows (docs/pxp.md): it
			// refuses only what is not the other party's envelope.
			e.cfg.Logger.Error("the mandate refused an envelope the thread took", "negotiation", t.ID, "hash", env.Hash(), "err", err)
		}
	}
	return applied, nil
}

// ApplyFact applies the chain fact f, reported at log at, to the thread
// of negotiation nid, with its lock held (a negotiation the engine does
// not hold is skipped: a zero outcome and no error). An event recorded
// before (Seen) is a duplicate and writes nothing. The fact is judged
// (Thread.Check), recorded as a chain.event entry with the code the
// thread answers ("ok" when it takes effect) and the thread.state it
// causes, in one batch, and only then applied; Config.OnFact is told. A
// fact refused for the thread's state (state_forbidden: funding seen
// before the last acceptance arrived) is kept pending and applied again
// after the thread's next change (Retry); one that takes effect retries
// those pending. A failed record wraps ErrNotRecorded and leaves the
// thread as it was.
func (e *Engine) ApplyFact(ctx context.Context, nid string, f negotiation.Fact, at LogRef) (out negotiation.Outcome, err error) {
	werr := e.With(nid, func(t *Thread) error {
		if e.Seen(at.Key()) {
			out = negotiation.Outcome{Code: negotiation.CodeDuplicate}
			return nil
		}
		if out, err = e.applyFact(ctx, t, f, at); err != nil {
			return nil
		}
		e.MarkSeen(at.Key())
		if out.Code == negotiation.CodeStateForbidden {
			t.Pending = append(t.Pending, PendingFact{Fact: f, At: at})
		} else if out.Effective() {
			e.Retry(ctx, t)
		}
		return nil
	})
	if werr != nil {
		return negotiation.Outcome{}, nil // not a thread of this node
	}
	return out, err
}

// Retry applies t's pending chain facts again, in chain order, until none
// takes effect (t's lock held). The node calls it after each step that
// changed the thread.
func (e *Engine) Retry(ctx context.Context, t *Thread) {
	for progress := true; progress && len(t.Pending) > 0; {
		progress = false
		for i, p := range t.Pending {
			out, err := e.applyFact(ctx, t, p.Fact, p.At)
			if err != nil {
				return
			}
			if out.Code == negotiation.CodeStateForbidden {
				continue
			}
			t.Pending = append(t.Pending[:i:i], t.Pending[i+1:]...)
			progress = true
			break
		}
	}
}

// applyFact is one step of a chain fact in t (t's lock held): judged,
// recorded, applied, and Config.OnFact told.
func (e *Engine) applyFact(ctx context.Context, t *Thread, f negotiation.Fact, at LogRef) (negotiation.Outcome, error) {
	now := e.cfg.Now()
	out := t.Th.Check(f, now)
	code := "ok"
	if out.Code != "" {
		code = string(out.Code)
	}
	body := EncodeFact(f)
	body.Tx, body.LogIndex, body.Block, body.Code = at.Tx, at.Index, at.Block, code
	var b Batch
	if raw, err := json.Marshal(body); err != nil {
		b.Fail(err)
	} else {
		b.Put(ledger.Record{Kind: ledger.KindChainEvent, NegotiationID: t.ID, Body: raw, At: now}, nil)
	}
	e.PutState(&b, t, out.To)
	out, err := e.commit(ctx, t, f, out, &b, now)
	if err != nil {
		return out, err
	}
	if p, ok := f.(negotiation.ProofSubmitted); ok {
		t.Proofs[p.Milestone] = p.ProofCID
	}
	if e.cfg.OnFact != nil {
		e.cfg.OnFact(t, f, at, out, now)
	}
	return out, nil
}

// commit writes b, the records of in as Check judged it (out), and only
// then applies in to t, returning Apply's outcome.
func (e *Engine) commit(ctx context.Context, t *Thread, in negotiation.Input, out negotiation.Outcome, b *Batch, now time.Time) (negotiation.Outcome, error) {
	if err := e.Write(ctx, b); err != nil {
		return out, fmt.Errorf("%w: %w", ErrNotRecorded, err)
	}
	applied := t.Th.Apply(in, now)
	if applied.Code != out.Code {
		// Check runs Apply on a copy: the two cannot disagree.
		e.cfg.Logger.Error("the thread took an input otherwise than it checked", "negotiation", t.ID, "checked", out.Code, "applied", applied.Code)
	}
	return applied, nil
}

// PutSent adds the records of sending env in t to b (t's lock held), in
// the order of PutReceived: the announcement t answers and thread.opened
// when t is new, the card.sealed of a new thread's card (PutCard), this
// node's identity link the first time, the envelope.sent and the
// thread.state st it causes.
func (e *Engine) PutSent(b *Batch, t *Thread, env *negotiation.Envelope, link *identity.Link, st negotiation.State, now time.Time) {
	e.PutOpened(b, t)
	e.PutCard(b, t)
	e.PutLink(b, t, link)
	b.PutEnvelope(ledger.KindEnvelopeSent, env, "ok", now, nil)
	e.PutState(b, t, st)
}

// PutReceived adds the records of receiving the authentic envelope env,
// whose effect on t is code, to b (t's lock held), in this order: the
// announcement t answers and thread.opened when t is new, the
// card.sealed of a new thread's card (PutCard),
// the sender's identity link the first time, the envelope.received and
// the thread.state st it causes.
func (e *Engine) PutReceived(b *Batch, t *Thread, env *negotiation.Envelope, link *identity.Link, code negotiation.Code, st negotiation.State, now time.Time) {
	e.PutOpened(b, t)
	e.PutCard(b, t)
	e.PutLink(b, t, link)
	b.PutEnvelope(ledger.KindEnvelopeReceived, env, code, now, nil)
	e.PutState(b, t, st)
}

// PutOpened adds thread.opened of a new thread to b (t's lock held;
// nothing when it is recorded), preceded by the announcement the thread
// answers: it is revision 1 of its negotiation, recorded now if the node
// held it in memory only (a stranger's, first seen at Config.Seen's time;
// one already stored writes nothing). Once b is written the thread is
// opened.
func (e *Engine) PutOpened(b *Batch, t *Thread) {
	if t.Opened {
		return
	}
	now := e.cfg.Now()
	body := OpenedBody{Role: t.Role, Observer: t.Observer}
	if c := t.AnnouncementCID(); c.Defined() {
		body.Announcement = c.String()
		if ann := t.Params.Announcement; ann.Sender.EVMAddress != e.self {
			seen := now
			if e.cfg.Seen != nil {
				seen = e.cfg.Seen(ann.Hash(), now)
			}
			b.PutEnvelope(ledger.KindEnvelopeReceived, ann, "ok", seen, nil)
		}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		b.Fail(err)
		return
	}
	b.Put(ledger.Record{Kind: KindThreadOpened, NegotiationID: t.ID, Body: raw, At: now}, func() { t.Opened = true })
}

// PutLink adds the identity link of a party of t to b once per
// negotiation (t's lock held; nothing when l is nil or recorded), so the
// negotiation's bundle carries it.
func (e *Engine) PutLink(b *Batch, t *Thread, l *identity.Link) {
	if l == nil {
		return
	}
	a := negotiation.Address(l.EVMAddress)
	if t.Links[a] {
		return
	}
	raw, err := json.Marshal(LinkBody{Address: a, Link: l.Bytes()})
	if err != nil {
		b.Fail(err)
		return
	}
	b.Put(ledger.Record{Kind: KindIdentityLink, NegotiationID: t.ID, Body: raw, At: e.cfg.Now()}, func() { t.Links[a] = true })
}

// PutState adds thread.state st to b when it differs from the last state
// recorded (t's lock held); st is the thread's state, or the state a step
// Check judged and has not applied yet (Outcome.To). Once b is written
// the state counts as recorded and Config.OnState is told.
func (e *Engine) PutState(b *Batch, t *Thread, st negotiation.State) {
	if st == t.Recorded {
		return
	}
	raw, err := json.Marshal(StateBody{State: st, A2A: string(st.A2A())})
	if err != nil {
		b.Fail(err)
		return
	}
	b.Put(ledger.Record{Kind: ledger.KindThreadState, NegotiationID: t.ID, Body: raw, At: e.cfg.Now()}, func() {
		from := t.Recorded
		t.Recorded = st
		t.Steps++
		if e.cfg.OnState != nil {
			e.cfg.OnState(t, from, st)
		}
	})
}
