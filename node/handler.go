package node

import (
	"context"
	"encoding/json"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/p2p"
)

var _ p2p.Handler = (*Node)(nil)

// HandleEnvelope is the transport's handler: it stores a received
// envelope durably and applies it to its thread, and answers the code the
// sender acts on (p2p.Handler). An announcement on the task board goes on
// the board. An authentic envelope is stored whole with its outcome ("ok"
// or the code with which the state machine refused its effect); input
// that is not authentic is recorded by hash and code only; an envelope
// the thread cannot take yet (a gap, a reference not seen, a thread this
// node joins later) gets a retryable code and nothing is stored.
func (n *Node) HandleEnvelope(ctx context.Context, d p2p.Delivery) negotiation.Code {
	env := d.Envelope
	if d.Topic == p2p.TopicTaskBoard {
		return n.takeAnnouncement(ctx, d)
	}
	if env.IsAnnouncement() {
		return n.reject(ctx, env, negotiation.CodeNotAddressed)
	}
	if d.Topic != "" {
		n.events.publish(Event{Kind: EventTopic, NegotiationID: env.NegotiationID, Type: env.Type, Hash: env.Hash().String(), Detail: d.Topic, At: n.now()})
	}
	for {
		t, fresh, code := n.threadFor(ctx, d)
		if t == nil {
			n.m.received.WithLabelValues(string(env.Type), string(code)).Inc()
			if code.Retryable() || code == negotiation.Code(p2p.CodeBusy) || p2p.Code(code).Declined() {
				return code // a consent refusal writes nothing
			}
			return n.reject(ctx, env, code)
		}
		if fresh { // claimed, its lock held
			code = n.applyReceived(ctx, t, d, true)
			t.Unlock()
		} else if err := n.eng.With(t.ID, func(t *thread) error {
			code = n.applyReceived(ctx, t, d, false)
			return nil
		}); err != nil {
			continue // dropped meanwhile: look the negotiation up again
		}
		n.m.received.WithLabelValues(string(env.Type), string(code)).Inc()
		return code
	}
}

// applyReceived takes a received envelope into t through the engine
// (Engine.Receive: judged, an authentic one recorded, only then applied;
// t.mu held): a record that fails leaves the thread as it was. A fresh
// thread is registered when its first envelope is authentic and dropped
// otherwise.
func (n *Node) applyReceived(ctx context.Context, t *thread, d p2p.Delivery, fresh bool) negotiation.Code {
	env := d.Envelope
	now := n.now()
	out, err := n.eng.Receive(ctx, t, env, d.Sender, now, func() { n.eng.OpenPXP(t) })
	drop := func() {
		if fresh {
			n.eng.Drop(t)
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
			n.log.Error("received envelope not recorded", "negotiation", t.ID, "cid", env.CID(), "err", err)
			if !t.Opened {
				drop()
			}
			return negotiation.Code(p2p.CodeBusy)
		}
		if fresh {
			n.eng.Register(t)
		} else {
			n.eng.Index(t)
		}
		n.events.publish(Event{Kind: EventEnvelope, NegotiationID: t.ID, Type: env.Type, Hash: env.Hash().String(), Direction: "received", Code: code, State: t.Th.State(), At: now})
		if out.Effective() {
			n.eng.Retry(ctx, t)
		}
		n.afterReceived(t, d, out)
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
			n.recordEquivocation(ctx, t.ID, out.Equivocation)
			return out.Code
		}
		return n.reject(ctx, env, out.Code)
	}
}

// threadFor returns the thread d belongs to. For a negotiation the node
// does not hold it opens a fresh thread (locked, registered when its first
// envelope is recorded) when d opens one: a direct proposal to this node,
// or an answer to an announcement on the board. Otherwise it returns a
// nil thread and the code to answer.
func (n *Node) threadFor(ctx context.Context, d p2p.Delivery) (t *thread, fresh bool, code negotiation.Code) {
	env := d.Envelope
	nid := env.NegotiationID
	n.tmu.Lock()
	defer n.tmu.Unlock()
	// Whether nid is being joined is read first: a join that ends after
	// it has registered its thread, which the look-up then finds.
	joining := n.hand.busy(nid)
	if t := n.eng.Lookup(nid); t != nil {
		return t, false, ""
	}
	if joining || n.check.quarantined(nid) {
		return nil, false, negotiation.CodeMissingReference // the sender retries until the ledger is restored
	}
	var params negotiation.Params
	role := negotiation.RoleNone
	switch p := env.Payload.(type) {
	case *negotiation.TaskProposal:
		params = negotiation.Params{NegotiationID: nid, Self: n.self}
		role = negotiation.RoleWorker
	case *negotiation.TaskCounterOffer:
		ann := n.board.get(p.InReplyTo)
		if ann == nil {
			return nil, false, negotiation.CodeMissingReference
		}
		params = negotiation.Params{NegotiationID: nid, Self: n.self, Announcement: ann.env}
	case *negotiation.TaskAcceptance:
		ann := n.board.get(p.AcceptedOfferHash)
		if ann == nil {
			return nil, false, negotiation.CodeMissingReference
		}
		params = negotiation.Params{NegotiationID: nid, Self: n.self, Announcement: ann.env}
	case *negotiation.DisputeEvidence:
		// A thread this node joins late: the proof bundle of the thread
		// so far comes with the hand-over; until the node has joined,
		// the sender retries.
		if f := bundleFile(p); f != nil {
			n.hand.join(d, *f)
		}
		return nil, false, negotiation.CodeMissingReference
	case *negotiation.ArbitratorProposal:
		return nil, false, negotiation.CodeMissingReference
	case *negotiation.ReplacementContext:
		// A replacement worker joins from the hand-over package it names.
		return nil, false, n.hand.replacementArrived(d, p)
	default:
		return nil, false, negotiation.CodeWrongNegotiation
	}
	if params.Announcement != nil {
		if params.Announcement.Sender.EVMAddress == n.self {
			role = negotiation.RolePoster
		} else {
			return nil, false, negotiation.CodeNotAddressed
		}
	}
	// The counterparty opens a negotiation: its consent state decides,
	// before any thread or record exists.
	if code := n.cs.admit(nid, env.Sender.EVMAddress, func(id string) bool { return n.eng.Lookup(id) != nil }); code != "" {
		return nil, false, code
	}
	nt, err := engine.NewThread(params, role, false)
	if err != nil {
		return nil, false, negotiation.CodeOf(err)
	}
	t, fresh = n.eng.Claim(nt)
	return t, fresh, ""
}

// reject records input that is not authentic by hash and code only, in
// its sender's bucket of rejection evidence (rejections.go), and returns
// the code.
func (n *Node) reject(_ context.Context, env *negotiation.Envelope, code negotiation.Code) negotiation.Code {
	// The transport verified the envelope's signature by its sender's
	// inbox key, which is the sender's peer id: it is counted there (a
	// relay on a topic only forwarded it).
	from := "evm:" + env.Sender.EVMAddress.String()
	if id, err := identity.PeerIDFromInboxKey(env.Sender.XMTPPublicKey[:]); err == nil {
		from = id.String()
	}
	n.rej.rejected(rejection{peer: from, code: code, hash: env.Hash(), size: len(env.Bytes()), nid: env.NegotiationID})
	n.log.Debug("envelope rejected", "negotiation", env.NegotiationID, "code", code)
	return code
}

// recordEquivocation keeps the second envelope of an equivocation whole,
// as evidence beside the first.
func (n *Node) recordEquivocation(ctx context.Context, nid string, eq *negotiation.Equivocation) {
	body, _ := json.Marshal(map[string]any{"sender": eq.Sender, "sequence": eq.Sequence, "first": eq.First})
	_, _, err := n.led.Append(ctx, ledger.Record{Kind: KindEquivocation, NegotiationID: nid, Body: body, Object: eq.Second.Bytes(), At: n.now()})
	if err != nil {
		n.log.Warn("equivocation not recorded", "negotiation", nid, "err", err)
	}
	n.m.rejected.WithLabelValues(string(negotiation.CodeEquivocation)).Inc()
	n.log.Warn("equivocation", "negotiation", nid, "sender", eq.Sender, "sequence", eq.Sequence)
}

// afterReceived starts the work an envelope calls for (t.mu held): a
// co-signed pair it completes is submitted; files of a delivery or of
// evidence are fetched and checked against their CIDs.
func (n *Node) afterReceived(t *thread, d p2p.Delivery, out negotiation.Outcome) {
	n.onchain.onCoSigned(t, out.CoSigned)
	if !out.Effective() || d.Sender == nil {
		return
	}
	switch p := d.Envelope.Payload.(type) {
	case *negotiation.DeliveryNotice:
		if t.Th.RoleOf(n.self) == negotiation.RolePoster || t.Observer {
			n.blobs.fetchAll(t.ID, d.Sender.PeerID, deliveryFiles(p))
		}
	case *negotiation.DisputeEvidence:
		if bundleFile(p) == nil {
			n.blobs.fetchAll(t.ID, d.Sender.PeerID, evidenceFiles(p))
		}
	}
}

// onP2PEvent receives the transport's events; rejections are counted in
// their peer's bucket of rejection evidence (the callback must not block).
func (n *Node) onP2PEvent(ev p2p.Event) {
	switch ev.Kind {
	case p2p.EventInputRejected:
		n.rej.rejected(transportRejection(ev))
	case p2p.EventRefused:
		n.log.Warn("peer refused an envelope", "to", ev.To, "cid", ev.CID, "code", ev.Code)
		n.out.note(ev)
	}
}
