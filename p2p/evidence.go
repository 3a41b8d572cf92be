package p2p

import (
	"context"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// JoinEvidence subscribes to the evidence topic of a dispute whose parties
// (poster, worker, arbitrator) are members. Messages on it are sealed to
// every member but their sender; the validator opens each one and accepts
// it only when its envelope is authentic and from a member.
func (h *Host) JoinEvidence(disputeID string, members []negotiation.Address) error {
	if h.ps == nil {
		return fail(CodeClosed, "not started")
	}
	name := EvidenceTopic(disputeID)
	set := make(map[negotiation.Address]bool, len(members))
	for _, m := range members {
		set[m] = true
	}
	t := h.topics
	t.mu.Lock()
	if _, ok := t.joined[name]; ok {
		t.members[name] = set
		t.mu.Unlock()
		return nil
	}
	t.members[name] = set
	t.mu.Unlock()
	if err := h.ps.RegisterTopicValidator(name, func(ctx context.Context, from peer.ID, m *pubsub.Message) pubsub.ValidationResult {
		if from == h.ID() {
			return pubsub.ValidationAccept // sealed by this node, not to it
		}
		// What is in the clear a relaying store checks too: refusing it
		// is the forwarder's fault. What needs opening a store cannot
		// check, so refusing that does not score the forwarder.
		if code := t.checkClear(name, m.Data); code != "" {
			h.in.reject(from, "", m.Data, code, name)
			return verdict(code)
		}
		d, code := t.checkEvidence(name, from, m.Data)
		if code != "" {
			h.in.reject(from, "", m.Data, code, name)
			return pubsub.ValidationIgnore
		}
		m.ValidatorData = d
		return pubsub.ValidationAccept
	}); err != nil {
		return failWrap(CodeBadConfig, err, "validator for %s", name)
	}
	return t.subscribe(name)
}

// PublishEvidence seals env to every other member of the dispute and
// publishes it on the dispute's evidence topic. Each message opens a new
// sealing session (its frame carries the session init), so a member can
// open it whatever it saw before.
func (h *Host) PublishEvidence(ctx context.Context, disputeID string, env *negotiation.Envelope) error {
	name := EvidenceTopic(disputeID)
	tp := h.topics.topic(name)
	if tp == nil {
		return fail(CodeClosed, "not joined to %s", name)
	}
	if env.Sender.EVMAddress != h.self {
		return fail(CodeSenderMismatch, "evidence is from %s, this node is %s", env.Sender.EVMAddress, h.self)
	}
	h.topics.mu.Lock()
	members := h.topics.members[name]
	h.topics.mu.Unlock()
	now := h.now()
	var links []*identity.Link
	var peers []peer.ID
	for m := range members {
		if m == h.self {
			continue
		}
		l := h.book.byAddress(m)
		if l == nil {
			return fail(CodeUnknownLink, "no verified link for member %s", m)
		}
		if k, err := l.CurrentKey(now); err == nil {
			h.cfg.Sealer.ResetSession(k.ID)
		}
		links = append(links, l)
		peers = append(peers, l.PeerID)
	}
	if len(links) == 0 {
		return fail(CodeUnknownLink, "no other member")
	}
	nid, err := negotiation.ParseNegotiationID(env.NegotiationID)
	if err != nil {
		return err
	}
	sealed, err := h.cfg.Sealer.Seal(now, nid, links, env.Bytes())
	if err != nil {
		return err
	}
	return publish(ctx, tp, sealed, peers...)
}

// relayed marks a message a store relays and records without opening it.
type relayed struct{}

// RelayEvidence makes a store node carry and record a dispute's evidence
// topic without being a member: it cannot open the messages, so its
// validator checks what is in the clear (the frame parses, carries its
// sender's valid link for the frame's sender, and the sender is a member)
// and the members' own validators check the rest. CatchUpTopic on a member
// then replays the history.
func (h *Host) RelayEvidence(disputeID string, members []negotiation.Address) error {
	if h.ps == nil {
		return fail(CodeClosed, "not started")
	}
	name := EvidenceTopic(disputeID)
	set := make(map[negotiation.Address]bool, len(members))
	for _, m := range members {
		set[m] = true
	}
	t := h.topics
	t.mu.Lock()
	_, joined := t.joined[name]
	t.members[name] = set
	t.mu.Unlock()
	if joined {
		return nil
	}
	if err := h.ps.RegisterTopicValidator(name, func(ctx context.Context, from peer.ID, m *pubsub.Message) pubsub.ValidationResult {
		if code := t.checkRelay(name, from, m.Data); code != "" {
			h.in.reject(from, "", m.Data, code, name)
			return verdict(code)
		}
		m.ValidatorData = relayed{}
		return pubsub.ValidationAccept
	}); err != nil {
		return failWrap(CodeBadConfig, err, "validator for %s", name)
	}
	return t.subscribe(name)
}

// checkRelay checks what a store relaying an evidence topic can: the
// clear parts, and the sending member's rate (not the relayer's).
func (t *topics) checkRelay(name string, from peer.ID, data []byte) Code {
	h := t.h
	if code := t.checkClear(name, data); code != "" {
		return code
	}
	hdr, _ := identity.ParseFrameHeader(data)
	l, _ := t.link(hdr.Link, h.now())
	if addr := negotiation.Address(l.EVMAddress); from != h.ID() && addr != h.self && !t.allow(addr) {
		return CodeOverRate
	}
	return ""
}

// checkClear checks the clear parts of an evidence message: its size, its
// frame header, and that the header carries the valid link of the member
// that sealed it.
func (t *topics) checkClear(name string, data []byte) Code {
	h := t.h
	if len(data) > h.cfg.MaxFrameBytes {
		return Code(negotiation.CodeTooLarge)
	}
	hdr, err := identity.ParseFrameHeader(data)
	if err != nil {
		return CodeOf(err)
	}
	if len(hdr.Link) == 0 {
		return CodeUnknownLink // evidence messages always open a session
	}
	l, err := t.link(hdr.Link, h.now())
	if err != nil {
		return CodeOf(err)
	}
	t.mu.Lock()
	member := t.members[name][negotiation.Address(l.EVMAddress)]
	t.mu.Unlock()
	if l.PeerID != hdr.Sender || !member {
		return CodeSenderMismatch
	}
	return ""
}

// checkEvidence opens and checks one evidence message.
func (t *topics) checkEvidence(name string, from peer.ID, data []byte) (*Delivery, Code) {
	return t.checkEvidenceAt(name, from, data, true, false)
}

// checkEvidenceAt checks an evidence message; rated spends its sender's
// rate (the member's, not the relayer's), history relaxes the time window
// to "not in the future".
func (t *topics) checkEvidenceAt(name string, from peer.ID, data []byte, rated, history bool) (*Delivery, Code) {
	h := t.h
	if len(data) > h.cfg.MaxFrameBytes {
		return nil, Code(negotiation.CodeTooLarge)
	}
	now := h.now()
	o, err := h.cfg.Sealer.Open(now, data)
	if err != nil {
		return nil, CodeOf(err)
	}
	env, err := negotiation.Decode(o.Plaintext, negotiation.DecodeOptions{MaxBytes: h.cfg.MaxEnvelopeBytes})
	if err != nil {
		return nil, CodeOf(err)
	}
	if code := h.in.checkSender(env, o.Sender); code != "" {
		return nil, code
	}
	if err := env.Verify(); err != nil {
		return nil, CodeOf(err)
	}
	if nid, err := negotiation.ParseNegotiationID(env.NegotiationID); err != nil || nid != o.NegotiationID {
		return nil, Code(negotiation.CodeWrongNegotiation)
	}
	t.mu.Lock()
	member := t.members[name][env.Sender.EVMAddress]
	t.mu.Unlock()
	if !member {
		return nil, CodeSenderMismatch
	}
	if d := env.Timestamp.Sub(now); d > h.cfg.MaxClockSkew || (!history && d < -h.cfg.MaxClockSkew) {
		return nil, CodeBadTimestamp
	}
	if rated && from != h.ID() && env.Sender.EVMAddress != h.self && !t.allow(env.Sender.EVMAddress) {
		return nil, CodeOverRate
	}
	h.learn(o.Sender)
	return &Delivery{Envelope: env, Sender: o.Sender}, ""
}
