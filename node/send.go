package node

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/p2p"
)

// EnvelopeRef names an envelope the node sent.
type EnvelopeRef struct {
	Type negotiation.MessageType `json:"type"`
	Hash negotiation.Hash        `json:"hash"`
	CID  string                  `json:"cid"`
}

// TxRef names a transaction the node sent.
type TxRef struct {
	Hash    string `json:"hash"`
	Block   uint64 `json:"block"`
	GasUsed uint64 `json:"gasUsed"`
}

func txRef(r *types.Receipt) *TxRef {
	if r == nil {
		return nil
	}
	return &TxRef{Hash: r.TxHash.Hex(), Block: r.BlockNumber.Uint64(), GasUsed: r.GasUsed}
}

func envRef(e *negotiation.Envelope) *EnvelopeRef {
	if e == nil {
		return nil
	}
	return &EnvelopeRef{Type: e.Type, Hash: e.Hash(), CID: e.CID().String()}
}

// sender is the node's one path out: it builds this node's envelopes,
// has the engine and the mandate judge and record them, and queues them
// in the transport's durable outbox. It owns no lock (the thread's is
// held by its callers) and is given the engine, the PXP service's mandate,
// the metric and the event stream in New, and the keys, the ledger, the
// logger (Start) and the outbox (startHost), never the Node.
type sender struct {
	eng    *engine.Engine
	px     *pxpService
	now    func() time.Time
	spawn  func(func(ctx context.Context))
	sent   *prometheus.CounterVec
	events *broadcaster
	// sentIn runs after this node's envelope in t was recorded and queued
	// (Node.keepSupervisor; t.mu held).
	sentIn func(t *thread)

	// Set at Start (host by startHost).
	self negotiation.Address
	keys *identity.Keyring
	led  *ledger.Ledger
	log  *slog.Logger
	host outbox
}

// outbox is what the sender needs of the transport (p2p.Host): the
// outbox items of an envelope, for the step's batch, and their queueing
// once the batch is written (Outgoing, Queued); Send stores and queues
// an envelope no step records (a supervision notice, an envelope recorded
// before a stop and never queued).
type outbox interface {
	Send(ctx context.Context, env *negotiation.Envelope) error
	Outgoing(env *negotiation.Envelope) ([]p2p.OutboxItem, error)
	Queued(env *negotiation.Envelope, items []p2p.OutboxItem)
}

// sendErr is send for the services that want only its error (PXP, the
// hand-over): an envelope to an existing thread.
func (s *sender) sendErr(ctx context.Context, t *thread, p negotiation.Payload, to []negotiation.Address) error {
	_, _, err := s.send(ctx, t, p, to, false)
	return err
}

// send builds this node's next envelope of t with payload p for the
// recipients to, has the thread and the mandate judge it first
// (Engine.Send: Thread.Check, then pxpService.check's Mandate.Outgoing; neither
// changes anything), records it with its outbox items (the transport's
// Outgoing) in one batch, one synced commit, and only then applies it to
// both (t.mu held) and hands the items to the transport's queues
// (Queued). When either refuses it, the transport refuses its items, or
// its record fails, nothing was applied, stored or sent: the error
// carries the refusal's code. A fresh thread is registered once its
// first envelope is recorded.
func (s *sender) send(ctx context.Context, t *thread, p negotiation.Payload, to []negotiation.Address, fresh bool) (*negotiation.Envelope, negotiation.Outcome, error) {
	seq, prev, last := t.Th.Head(s.self)
	seq++ // this node's next envelope
	now := s.now()
	ts := now.UTC().Truncate(time.Millisecond)
	if ts.Before(last) {
		ts = last
	}
	// The mandate first: the card's hash, the reviews it decides, and its
	// verdict (an escalation pauses the negotiation).
	if err := s.px.prepare(ctx, t, p, ts); err != nil {
		return nil, negotiation.Outcome{}, err
	}
	var pk negotiation.PublicKey
	copy(pk[:], s.keys.Inbox().PublicKey())
	h := negotiation.Header{
		NegotiationID: t.ID, TaskID: t.Th.TaskID(), Sequence: seq, PreviousHash: prev, Timestamp: ts,
		Sender: negotiation.Sender{EVMAddress: s.self, XMTPPublicKey: pk}, Recipients: to,
	}
	env, err := negotiation.Build(h, p, s.keys.Inbox(), negotiation.DecodeOptions{})
	if err != nil {
		return nil, negotiation.Outcome{}, &Error{Code: CodeOf(err), Msg: "building the envelope", Err: err}
	}
	// The outbox items go into the step's batch: the envelope.sent entry
	// and the items are stored together or not at all, and concurrent
	// sends share the ledger's group commit (one fsync).
	var items []p2p.OutboxItem
	var queue []ledger.Record
	if len(to) > 0 {
		if items, err = s.host.Outgoing(env); err != nil {
			return nil, negotiation.Outcome{}, failWrap(Code(p2p.CodeOf(err)), err, "queueing the %s", env.Type)
		}
		if queue, err = queuedRecords(env, items); err != nil {
			return nil, negotiation.Outcome{}, failWrap(CodeStoreFailed, err, "queueing the %s", env.Type)
		}
	}
	out, err := s.eng.Send(ctx, t, env, s.keys.Link(), now, func() error { return s.px.check(t, env) }, queue)
	switch {
	case errors.Is(err, engine.ErrNotRecorded):
		return nil, out, failWrap(CodeStoreFailed, err, "recording the %s", env.Type)
	case err != nil:
		return nil, out, err
	case !out.Effective():
		return nil, out, &Error{Code: Code(out.Code), Msg: "the state machine refuses this " + string(env.Type), Err: out.Err}
	}
	if fresh {
		s.eng.Register(t)
	} else {
		s.eng.Index(t)
	}
	s.eng.Retry(ctx, t)
	s.sent.WithLabelValues(string(env.Type)).Inc()
	s.events.publish(Event{Kind: EventEnvelope, NegotiationID: t.ID, Type: env.Type, Hash: env.Hash().String(), Direction: "sent", Code: "ok", State: t.Th.State(), At: now})
	s.host.Queued(env, items)
	if s.sentIn != nil {
		s.sentIn(t)
	}
	return env, out, nil
}

// batch is the ledger records of one step of a thread (engine.Batch).
type batch = engine.Batch

// write appends b's records in one synced transaction (ledger.AppendAll)
// and then runs b's effects (t.mu held for the thread they touch). A
// failure is CodeStoreFailed naming what was recorded; then no record was
// written and no effect ran.
func (s *sender) write(ctx context.Context, b *batch, what string) error {
	if err := s.eng.Write(ctx, b); err != nil {
		return failWrap(CodeStoreFailed, err, "recording the %s", what)
	}
	return nil
}

// queue hands an envelope recorded without its outbox items (by a node
// before its send steps wrote them in their batch) to the transport's
// outbox. A failure to queue is retried in the background; a restart
// queues whatever was recorded and not queued (resendUnqueued), so
// nothing recorded is lost.
func (s *sender) queue(ctx context.Context, env *negotiation.Envelope) {
	if err := s.host.Send(ctx, env); err == nil {
		return
	} else {
		s.log.Warn("envelope not queued; retrying", "cid", env.CID(), "err", err)
	}
	s.spawn(func(ctx context.Context) {
		for delay := 100 * time.Millisecond; ; delay = min(2*delay, 10*time.Second) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			if err := s.host.Send(ctx, env); err == nil {
				return
			}
		}
	})
}

// resendUnqueued queues every direct envelope this node recorded as sent
// whose outbox item was never stored: a ledger written by a node whose
// send wrote the two in separate commits and stopped between them (a
// send step now writes both in one).
func (s *sender) resendUnqueued(ctx context.Context) error {
	queued := map[string]bool{}
	for e, err := range s.led.ByKind(ctx, ledger.KindOutboxQueued) {
		if err != nil {
			return err
		}
		var b outboxBody
		if json.Unmarshal(e.Body, &b) == nil {
			queued[b.Envelope] = true
		}
	}
	for e, err := range s.led.ByKind(ctx, ledger.KindEnvelopeSent) {
		if err != nil {
			return err
		}
		if !e.CID.Defined() || queued[e.CID.String()] {
			continue
		}
		raw, err := s.led.Object(ctx, e.CID)
		if errors.Is(err, ledger.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		env, err := negotiation.Decode(raw, negotiation.DecodeOptions{MaxBytes: len(raw)})
		if err != nil {
			return err
		}
		if len(env.Recipients) == 0 {
			continue
		}
		s.log.Info("queueing an envelope recorded before a stop", "negotiation", env.NegotiationID, "cid", env.CID())
		s.queue(ctx, env)
	}
	return nil
}
