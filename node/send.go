package node

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
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

// sendLocked builds this node's next envelope of t with payload p for the
// recipients to, applies it to the thread first, records it, and queues
// it in the transport's durable outbox (t.mu held). When the state machine
// refuses it, the thread is restored from the ledger and nothing is stored
// or sent: the error carries the state machine's code. A fresh thread is
// registered once its first envelope is recorded.
func (n *Node) sendLocked(ctx context.Context, t *thread, p negotiation.Payload, to []negotiation.Address, fresh bool) (*negotiation.Envelope, negotiation.Outcome, error) {
	seq, prev, last := t.th.Head(n.self)
	seq++ // this node's next envelope
	now := n.now()
	ts := now.UTC().Truncate(time.Millisecond)
	if ts.Before(last) {
		ts = last
	}
	// The mandate first: the card's hash, the reviews it decides, and its
	// verdict (an escalation pauses the negotiation).
	if err := n.pxpPrepare(ctx, t, p, ts); err != nil {
		return nil, negotiation.Outcome{}, err
	}
	var pk negotiation.PublicKey
	copy(pk[:], n.keys.Inbox().PublicKey())
	h := negotiation.Header{
		NegotiationID: t.id, TaskID: t.th.TaskID(), Sequence: seq, PreviousHash: prev, Timestamp: ts,
		Sender: negotiation.Sender{EVMAddress: n.self, XMTPPublicKey: pk}, Recipients: to,
	}
	env, err := negotiation.Build(h, p, n.keys.Inbox(), negotiation.DecodeOptions{})
	if err != nil {
		return nil, negotiation.Outcome{}, &Error{Code: CodeOf(err), Msg: "building the envelope", Err: err}
	}
	out := t.th.Apply(env, now)
	if !out.Effective() {
		if rerr := n.rebuild(ctx, t); rerr != nil {
			return nil, out, rerr
		}
		return nil, out, &Error{Code: Code(out.Code), Msg: "the state machine refuses this " + string(env.Type), Err: out.Err}
	}
	if err := n.pxpSent(t, env); err != nil {
		if rerr := n.rebuild(ctx, t); rerr != nil {
			return nil, out, rerr
		}
		return nil, out, err
	}
	var b batch
	n.putSent(&b, t, env, now)
	if err := n.write(ctx, &b, string(env.Type)); err != nil {
		if rerr := n.rebuild(ctx, t); rerr != nil {
			n.log.Error("thread rebuild failed", "negotiation", t.id, "err", rerr)
		}
		return nil, out, err
	}
	if fresh {
		n.register(t)
	} else {
		n.index(t)
	}
	n.retryFacts(ctx, t)
	n.m.sent.WithLabelValues(string(env.Type)).Inc()
	n.events.publish(Event{Kind: EventEnvelope, NegotiationID: t.id, Type: env.Type, Hash: env.Hash().String(), Direction: "sent", Code: "ok", State: t.th.State(), At: now})
	if len(to) > 0 {
		n.queue(ctx, env)
	}
	return env, out, nil
}

// putSent adds the records of sending env in t to b (t.mu held), in the
// order of putReceived: the announcement t answers and thread.opened when
// t is new, card.sealed, this node's identity.link the first time, the
// envelope.sent and the thread.state it caused.
func (n *Node) putSent(b *batch, t *thread, env *negotiation.Envelope, now time.Time) {
	n.putOpened(b, t)
	n.putCard(b, t)
	n.putLink(b, t, n.keys.Link())
	b.putEnvelope(ledger.KindEnvelopeSent, env, "ok", now, nil)
	n.putState(b, t)
}

// batch is the ledger records of one step of a thread, gathered as
// go-ethereum's ethdb.Batch gathers its puts, and the effects in memory
// that follow from them. write appends the records in one AppendAll, in
// the order they were put, and only then runs the effects, in the same
// order: a batch that fails leaves the thread's record of what it wrote
// (opened, links, recorded state, card sealed) as it was.
type batch struct {
	records []ledger.Record
	effects []func()
	err     error // the first record that could not be built
}

// put adds r, and effect (nil for none) to run once the batch is written.
func (b *batch) put(r ledger.Record, effect func()) {
	b.records = append(b.records, r)
	if effect != nil {
		b.effects = append(b.effects, effect)
	}
}

// putEnvelope adds the record of an authentic envelope
// (ledger.EnvelopeRecord).
func (b *batch) putEnvelope(kind string, env *negotiation.Envelope, effect negotiation.Code, at time.Time, after func()) {
	r, err := ledger.EnvelopeRecord(kind, env, effect, at)
	if err != nil {
		b.fail(err)
		return
	}
	b.put(r, after)
}

// fail records that a record could not be built: write then writes
// nothing and returns err.
func (b *batch) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// write appends b's records in one synced transaction (ledger.AppendAll)
// and then runs b's effects (t.mu held for the thread they touch). A
// failure is CodeStoreFailed naming what was recorded; then no record was
// written and no effect ran.
func (n *Node) write(ctx context.Context, b *batch, what string) error {
	if b.err != nil {
		return failWrap(CodeStoreFailed, b.err, "recording the %s", what)
	}
	if _, err := n.led.AppendAll(ctx, b.records...); err != nil {
		return failWrap(CodeStoreFailed, err, "recording the %s", what)
	}
	for _, f := range b.effects {
		f()
	}
	return nil
}

// queue hands a recorded envelope to the transport's outbox. A failure to
// queue is retried in the background; a restart queues whatever was
// recorded and not queued (resendUnqueued), so nothing recorded is lost.
func (n *Node) queue(ctx context.Context, env *negotiation.Envelope) {
	if err := n.host.Send(ctx, env); err == nil {
		return
	} else {
		n.log.Warn("envelope not queued; retrying", "cid", env.CID(), "err", err)
	}
	n.spawn(func(ctx context.Context) {
		for delay := 100 * time.Millisecond; ; delay = min(2*delay, 10*time.Second) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			if err := n.host.Send(ctx, env); err == nil {
				return
			}
		}
	})
}

// resendUnqueued queues every direct envelope this node recorded as sent
// whose outbox item was never stored (a stop between the two writes).
func (n *Node) resendUnqueued(ctx context.Context) error {
	queued := map[string]bool{}
	for e, err := range n.led.ByKind(ctx, ledger.KindOutboxQueued) {
		if err != nil {
			return err
		}
		var b outboxBody
		if json.Unmarshal(e.Body, &b) == nil {
			queued[b.Envelope] = true
		}
	}
	for e, err := range n.led.ByKind(ctx, ledger.KindEnvelopeSent) {
		if err != nil {
			return err
		}
		if !e.CID.Defined() || queued[e.CID.String()] {
			continue
		}
		raw, err := n.led.Object(ctx, e.CID)
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
		n.log.Info("queueing an envelope recorded before a stop", "negotiation", env.NegotiationID, "cid", env.CID())
		n.queue(ctx, env)
	}
	return nil
}

// otherParty returns the counterparty of this node in t (zero when not
// known yet).
func (n *Node) otherParty(t *thread) negotiation.Address {
	if t.th.Poster() == n.self {
		return t.th.Worker()
	}
	return t.th.Poster()
}

// recipients returns who a direct envelope of t goes to: the counterparty,
// and the arbitrator once one is assigned, for evidence; an arbitrator
// writes to both parties.
func (n *Node) recipients(t *thread, evidence bool) []negotiation.Address {
	var to []negotiation.Address
	add := func(a negotiation.Address) {
		if a != (negotiation.Address{}) && a != n.self {
			to = append(to, a)
		}
	}
	if t.th.RoleOf(n.self) == negotiation.RoleArbitrator {
		add(t.th.Poster())
		add(t.th.Worker())
		return to
	}
	add(n.otherParty(t))
	if evidence {
		add(t.th.Arbitrator())
	}
	return to
}

// objectStored reports whether the ledger holds the object c.
func (n *Node) objectStored(ctx context.Context, c cid.Cid) bool {
	_, err := n.led.Object(ctx, c)
	return err == nil
}
