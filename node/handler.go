package node

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/p2p"
)

var _ p2p.Handler = (*Node)(nil)

// receiver is the node's one path in: it takes the transport's
// deliveries and events to the board, the consent book, the hand-over,
// the engine and the rejection evidence. It owns one lock (mu, which
// makes threadFor's look-up and claim of a thread one step) and is given
// what it uses in New, and the address, the ledger and the logger at
// Start, never the Node.
type receiver struct {
	mu sync.Mutex // makes threadFor's look-up and claim of a thread one step

	eng      *engine.Engine
	now      func() time.Time
	events   *broadcaster
	received *prometheus.CounterVec
	rejected *prometheus.CounterVec
	board    *board
	cs       *ConsentBook
	check    *ledgerCheck
	hand     *handover
	rej      *rejectionLog
	out      *refusals
	blobs    *blobStore
	// announce takes an announcement from the task board (Node.takeAnnouncement).
	announce func(ctx context.Context, d p2p.Delivery) negotiation.Code
	// coSigned is the chain side's hook for a co-signed pair an envelope
	// completes (chainActs.onCoSigned; t.mu held).
	coSigned func(t *thread, cs *negotiation.CoSigned)
	// tookIn runs after an envelope took effect in t
	// (Node.keepSupervisor; t.mu held).
	tookIn func(t *thread)

	// Set at Start.
	self negotiation.Address
	led  *ledger.Ledger
	log  *slog.Logger
}

// HandleEnvelope is the transport's handler: it stores a received
// envelope durably and applies it to its thread, and answers the code the
// sender acts on (p2p.Handler). An announcement on the task board goes on
// the board. An authentic envelope is stored whole with its outcome ("ok"
// or the code with which the state machine refused its effect); input
// that is not authentic is recorded by hash and code only; an envelope
// the thread cannot take yet (a gap, a reference not seen, a thread this
// node joins later) gets a retryable code and nothing is stored.
func (n *Node) HandleEnvelope(ctx context.Context, d p2p.Delivery) negotiation.Code {
	return n.rcv.handle(ctx, d)
}

// handle is HandleEnvelope.
func (r *receiver) handle(ctx context.Context, d p2p.Delivery) negotiation.Code {
	env := d.Envelope
	if d.Topic == p2p.TopicTaskBoard {
		return r.announce(ctx, d)
	}
	if env.IsAnnouncement() {
		return r.reject(ctx, env, negotiation.CodeNotAddressed)
	}
	if d.Topic != "" {
		r.events.publish(Event{Kind: EventTopic, NegotiationID: env.NegotiationID, Type: env.Type, Hash: env.Hash().String(), Detail: d.Topic, At: r.now()})
	}
	if code, ok := r.hand.supervision(d); ok {
		return code // a supervision notice is no envelope of the thread (veto.go)
	}
	for {
		t, fresh, code := r.threadFor(ctx, d)
		if t == nil {
			r.received.WithLabelValues(string(env.Type), string(code)).Inc()
			if code.Retryable() || code == negotiation.Code(p2p.CodeBusy) || p2p.Code(code).Declined() {
				return code // a consent refusal writes nothing
			}
			return r.reject(ctx, env, code)
		}
		if fresh { // claimed, its lock held
			code = r.applyReceived(ctx, t, d, true)
			t.Unlock()
		} else if err := r.eng.With(t.ID, func(t *thread) error {
			code = r.applyReceived(ctx, t, d, false)
			return nil
		}); err != nil {
			continue // dropped meanwhile: look the negotiation up again
		}
		r.received.WithLabelValues(string(env.Type), string(code)).Inc()
		return code
	}
}

// applyReceived takes a received envelope into t through the engine
// (Engine.Receive: judged, an authentic one recorded, only then applied;
// t.mu held): a record that fails leaves the thread as it was. A fresh
// thread is registered when its first envelope is authentic and dropped
// otherwise.
func (r *receiver) applyReceived(ctx context.Context, t *thread, d p2p.Delivery, fresh bool) negotiation.Code {
	env := d.Envelope
	now := r.now()
	out, err := r.eng.Receive(ctx, t, env, d.Sender, now, func() { r.eng.OpenPXP(t) })
	drop := func() {
		if fresh {
			r.eng.Drop(t)
		}
	}
	switch {
	case out.Code == negotiation.CodeDuplicate:
		return out.Code
	case out.Authentic:
		code := "ok"
		if out.Code != "" {
			code = string(out.Code)
		}
		if err != nil {
			r.log.Error("received envelope not recorded", "negotiation", t.ID, "cid", env.CID(), "err", err)
			if !t.Opened {
				drop()
			}
			return negotiation.Code(p2p.CodeBusy)
		}
		if fresh {
			r.eng.Register(t)
		} else {
			r.eng.Index(t)
		}
		r.events.publish(Event{Kind: EventEnvelope, NegotiationID: t.ID, Type: env.Type, Hash: env.Hash().String(), Direction: "received", Code: code, State: t.Th.State(), At: now})
		if out.Effective() {
			r.eng.Retry(ctx, t)
		}
		r.afterReceived(t, d, out)
		if out.Code != "" {
			return out.Code
		}
		return negotiation.Code(p2p.CodeOK)
	case out.Code.Retryable():
		drop()
		return out.Code
	default:
		drop()
		if out.Equivocation != nil {
			r.recordEquivocation(ctx, t.ID, out.Equivocation)
			return out.Code
		}
		return r.reject(ctx, env, out.Code)
	}
}

// threadFor returns the thread d belongs to. For a negotiation the node
// does not hold it opens a fresh thread (locked, registered when its first
// envelope is recorded) when d opens one: a direct proposal to this node,
// or an answer to an announcement on the board. Otherwise it returns a
// nil thread and the code to answer.
func (r *receiver) threadFor(ctx context.Context, d p2p.Delivery) (t *thread, fresh bool, code negotiation.Code) {
	env := d.Envelope
	nid := env.NegotiationID
	r.mu.Lock()
	defer r.mu.Unlock()
	// Whether nid is being joined is read first: a join that ends after
	// it has registered its thread, which the look-up then finds.
	joining := r.hand.busy(nid)
	if t := r.eng.Lookup(nid); t != nil {
		return t, false, ""
	}
	if joining || r.check.quarantined(nid) {
		return nil, false, negotiation.CodeMissingReference // the sender retries until the ledger is restored
	}
	var params negotiation.Params
	role := negotiation.RoleNone
	switch p := env.Payload.(type) {
	case *negotiation.TaskProposal:
		params = negotiation.Params{NegotiationID: nid, Self: r.self}
		role = negotiation.RoleWorker
	case *negotiation.TaskCounterOffer:
		ann := r.board.get(p.InReplyTo)
		if ann == nil {
			return nil, false, negotiation.CodeMissingReference
		}
		params = negotiation.Params{NegotiationID: nid, Self: r.self, Announcement: ann.env}
	case *negotiation.TaskAcceptance:
		ann := r.board.get(p.AcceptedOfferHash)
		if ann == nil {
			return nil, false, negotiation.CodeMissingReference
		}
		params = negotiation.Params{NegotiationID: nid, Self: r.self, Announcement: ann.env}
	case *negotiation.DisputeEvidence:
		// A thread this node joins late: the proof bundle of the thread
		// so far comes with the hand-over; until the node has joined,
		// the sender retries.
		if f := bundleFile(p); f != nil {
			r.hand.join(d, *f)
		}
		return nil, false, negotiation.CodeMissingReference
	case *negotiation.ArbitratorProposal:
		return nil, false, negotiation.CodeMissingReference
	case *negotiation.ReplacementContext:
		// A replacement worker joins from the hand-over package it names.
		return nil, false, r.hand.replacementArrived(d, p)
	default:
		if len(env.Recipients) > 1 && env.Addressed(r.self) {
			// Addressed to a third party beside the counterparty: a
			// supervisor whose hand-over (veto.go) is on its way.
			return nil, false, negotiation.CodeMissingReference
		}
		return nil, false, negotiation.CodeWrongNegotiation
	}
	if params.Announcement != nil {
		if params.Announcement.Sender.EVMAddress == r.self {
			role = negotiation.RolePoster
		} else {
			return nil, false, negotiation.CodeNotAddressed
		}
	}
	// The counterparty opens a negotiation: its consent state decides,
	// before any thread or record exists.
	if code := r.cs.admit(nid, env.Sender.EVMAddress, func(id string) bool { return r.eng.Lookup(id) != nil }); code != "" {
		return nil, false, code
	}
	nt, err := engine.NewThread(params, role, false)
	if err != nil {
		return nil, false, negotiation.CodeOf(err)
	}
	t, fresh = r.eng.Claim(nt)
	return t, fresh, ""
}

// reject records input that is not authentic by hash and code only, in
// its sender's bucket of rejection evidence (rejections.go), and returns
// the code.
func (r *receiver) reject(_ context.Context, env *negotiation.Envelope, code negotiation.Code) negotiation.Code {
	// The transport verified the envelope's signature by its sender's
	// inbox key, which is the sender's peer id: it is counted there (a
	// relay on a topic only forwarded it).
	from := "evm:" + env.Sender.EVMAddress.String()
	if id, err := identity.PeerIDFromInboxKey(env.Sender.XMTPPublicKey[:]); err == nil {
		from = id.String()
	}
	r.rej.rejected(rejection{peer: from, code: code, hash: env.Hash(), size: len(env.Bytes()), nid: env.NegotiationID})
	r.log.Debug("envelope rejected", "negotiation", env.NegotiationID, "code", code)
	return code
}

// recordEquivocation keeps the second envelope of an equivocation whole,
// as evidence beside the first.
func (r *receiver) recordEquivocation(ctx context.Context, nid string, eq *negotiation.Equivocation) {
	body, _ := json.Marshal(map[string]any{"sender": eq.Sender, "sequence": eq.Sequence, "first": eq.First})
	_, _, err := r.led.Append(ctx, ledger.Record{Kind: KindEquivocation, NegotiationID: nid, Body: body, Object: eq.Second.Bytes(), At: r.now()})
	if err != nil {
		r.log.Warn("equivocation not recorded", "negotiation", nid, "err", err)
	}
	r.rejected.WithLabelValues(string(negotiation.CodeEquivocation)).Inc()
	r.log.Warn("equivocation", "negotiation", nid, "sender", eq.Sender, "sequence", eq.Sequence)
}

// afterReceived starts the work an envelope calls for (t.mu held): a
// co-signed pair it completes is submitted; files of a delivery or of
// evidence are fetched and checked against their CIDs, a capability
// proof is checked (capability.go), and a payment request is shown to
// the principal (payment.go).
func (r *receiver) afterReceived(t *thread, d p2p.Delivery, out negotiation.Outcome) {
	r.coSigned(t, out.CoSigned)
	if !out.Effective() || d.Sender == nil {
		return
	}
	if r.tookIn != nil {
		r.tookIn(t)
	}
	switch p := d.Envelope.Payload.(type) {
	case *negotiation.DeliveryNotice:
		if t.Th.RoleOf(r.self) == negotiation.RolePoster || t.Observer {
			r.blobs.fetchAll(t.ID, d.Sender.PeerID, deliveryFiles(p))
		}
	case *negotiation.DisputeEvidence:
		if bundleFile(p) == nil {
			r.blobs.fetchAll(t.ID, d.Sender.PeerID, evidenceFiles(p))
		}
	case *negotiation.CapabilityProof:
		if t.Th.RoleOf(r.self) == negotiation.RolePoster && !p.IsEscalationCarrier() {
			r.blobs.checkProof(t.ID, d.Sender.PeerID, d.Envelope)
		}
	case *negotiation.PaymentRequest:
		r.events.publish(Event{Kind: EventPaymentRequest, NegotiationID: t.ID, Hash: d.Envelope.Hash().String(), State: t.Th.State(),
			Detail: fmt.Sprintf("milestone %d: %s wei (%s)", p.Milestone, p.Amount.String(), p.Basis), At: r.now()})
	}
}

// onEvent receives the transport's events; rejections are counted in
// their peer's bucket of rejection evidence (the callback must not block).
func (r *receiver) onEvent(ev p2p.Event) {
	switch ev.Kind {
	case p2p.EventInputRejected:
		r.rej.rejected(transportRejection(ev))
	case p2p.EventRefused:
		r.log.Warn("peer refused an envelope", "to", ev.To, "cid", ev.CID, "code", ev.Code)
		r.out.note(ev)
	}
}
