package negotiation

import (
	"maps"
	"slices"
	"time"
)

// Check judges in at time now exactly as Apply would, and returns the
// outcome Apply would return, without changing the thread: a node asks it
// before it records or sends an envelope of its own, so a refused one
// leaves nothing to undo. It runs Apply itself on a copy of the thread,
// so the two cannot disagree.
func (t *Thread) Check(in Input, now time.Time) Outcome { return t.clone().Apply(in, now) }

// clone returns a copy of t that shares nothing Apply changes. Offers,
// envelopes and agreements are never changed once made, so they are
// shared.
func (t *Thread) clone() *Thread {
	c := *t
	c.supervisors = maps.Clone(t.supervisors)
	c.chains = make(map[Address]*senderChain, len(t.chains))
	for a, s := range t.chains {
		cs := *s
		cs.seen = maps.Clone(s.seen)
		c.chains[a] = &cs
	}
	c.byHash = maps.Clone(t.byHash)
	c.log = slices.Clip(t.log)
	c.offers = maps.Clone(t.offers)
	c.accepts = maps.Clone(t.accepts)
	c.delivered = maps.Clone(t.delivered)
	c.released = maps.Clone(t.released)
	c.parts = maps.Clone(t.parts)
	c.refunded = maps.Clone(t.refunded)
	c.revising = slices.Clip(t.revising)
	c.revised = maps.Clone(t.revised)
	c.nominees = maps.Clone(t.nominees)
	c.refused = slices.Clip(t.refused)
	c.cosigns = make(map[MessageType]map[Address]coSign, len(t.cosigns))
	for k, m := range t.cosigns {
		c.cosigns[k] = maps.Clone(m)
	}
	c.ready = maps.Clone(t.ready)
	return &c
}

// PostFunding reports whether s is a funded task not yet settled and not
// in dispute (funded or delivered, and halted by a veto): the states
// cancels after funding and disputes start in, and deliveries, amendments
// and replacements too but in halted (the act table).
func (s State) PostFunding() bool { return slices.Contains(postFundingStates, s) || s == StateHalted }

// The thread's queries: what it holds, so that callers need not scan Log.

// LatestOf returns the latest envelope of type typ that by sent and whose
// effect the thread took, or nil.
func (t *Thread) LatestOf(by Address, typ MessageType) *Envelope {
	for i := len(t.log) - 1; i >= 0; i-- {
		if r := t.log[i]; r.Sender == by && r.Type == typ && r.Code == "" {
			return t.byHash[r.Hash]
		}
	}
	return nil
}

// effective calls f with every envelope of type typ whose effect the
// thread took, latest first, until f returns false.
func (t *Thread) effective(typ MessageType, f func(Record, *Envelope) bool) {
	for i := len(t.log) - 1; i >= 0; i-- {
		if r := t.log[i]; r.Type == typ && r.Code == "" && !f(r, t.byHash[r.Hash]) {
			return
		}
	}
}

// AcceptanceOf returns the hash of by's latest effective acceptance of
// the offer with hash offer, and whether by accepted it.
func (t *Thread) AcceptanceOf(by Address, offer Hash) (Hash, bool) {
	var h Hash
	found := false
	t.effective(TypeTaskAcceptance, func(r Record, e *Envelope) bool {
		if p, ok := e.Payload.(*TaskAcceptance); ok && r.Sender == by && p.AcceptedOfferHash == offer {
			h, found = r.Hash, true
		}
		return !found
	})
	return h, found
}

// DeliveryOf returns the latest DeliveryNotice of milestone m whose effect
// the thread took, pending review or not, or nil.
func (t *Thread) DeliveryOf(m int) *Envelope {
	var out *Envelope
	t.effective(TypeDeliveryNotice, func(_ Record, e *Envelope) bool {
		if p, ok := e.Payload.(*DeliveryNotice); ok && p.Milestone == m {
			out = e
		}
		return out == nil
	})
	return out
}

// Deliveries returns, for every milestone with one, the latest
// DeliveryNotice whose effect the thread took, by milestone.
func (t *Thread) Deliveries() []*Envelope {
	seen := map[int]bool{}
	var out []*Envelope
	t.effective(TypeDeliveryNotice, func(_ Record, e *Envelope) bool {
		if p, ok := e.Payload.(*DeliveryNotice); ok && !seen[p.Milestone] {
			seen[p.Milestone] = true
			out = append(out, e)
		}
		return true
	})
	slices.SortFunc(out, func(a, b *Envelope) int {
		return a.Payload.(*DeliveryNotice).Milestone - b.Payload.(*DeliveryNotice).Milestone
	})
	return out
}

// PendingDelivery returns the hash of the delivery of milestone m that
// awaits the poster's review, and whether one does. The hash is zero when
// the thread knows the delivery only from the proof on chain.
func (t *Thread) PendingDelivery(m int) (Hash, bool) {
	h, ok := t.delivered[m]
	return h, ok
}

// DeliveryAccepted reports whether the thread took an AcceptDelivery
// naming the DeliveryNotice with hash d.
func (t *Thread) DeliveryAccepted(d Hash) bool {
	found := false
	t.effective(TypeAcceptDelivery, func(_ Record, e *Envelope) bool {
		if p, ok := e.Payload.(*AcceptDelivery); ok && p.DeliveryHash == d {
			found = true
		}
		return !found
	})
	return found
}

// CoSignedNonce returns the task nonce a co-signed envelope (CoSignedTypes)
// signs for, and false for any other envelope, a cancel before funding
// (it names no task) or a nonce beyond 64 bits.
func CoSignedNonce(e *Envelope) (uint64, bool) {
	if e == nil {
		return 0, false
	}
	var n Uint256
	switch p := e.Payload.(type) {
	case *MutualCancel:
		if len(p.Signature) == 0 {
			return 0, false
		}
		n = p.Nonce
	case *MilestoneDefinition:
		n = p.Nonce
	case *ReplacementContext:
		n = p.Nonce
	default:
		return 0, false
	}
	if !n.IsUint64() {
		return 0, false
	}
	return n.Uint64(), true
}

// PendingCoSign returns by's latest effective envelope of the co-signed
// type kind when it signs for the task nonce nonce, or nil: one naming
// another nonce can no longer be submitted.
func (t *Thread) PendingCoSign(kind MessageType, by Address, nonce uint64) *Envelope {
	e := t.LatestOf(by, kind)
	if n, ok := CoSignedNonce(e); !ok || n != nonce {
		return nil
	}
	return e
}

// ReadyCoSign returns the complete pair of the co-signed type kind when it
// signs for the task nonce nonce, or nil.
func (t *Thread) ReadyCoSign(kind MessageType, nonce uint64) *CoSigned {
	c := t.ready[kind]
	if c == nil {
		return nil
	}
	if n, ok := CoSignedNonce(t.byHash[c.Envelopes[0]]); !ok || n != nonce {
		return nil
	}
	return c
}

// AmendmentOf returns the MilestoneDefinition the thread took that names
// termsHash and signs for the task nonce nonce, the poster's when both
// parties sent one, or nil. The chain's TaskAmended event names the two
// (with the nonce after the amendment); the envelope holds the milestones'
// descriptions the event does not carry.
func (t *Thread) AmendmentOf(termsHash Hash, nonce uint64) *MilestoneDefinition {
	var out *MilestoneDefinition
	t.effective(TypeMilestoneDefinition, func(r Record, e *Envelope) bool {
		p, ok := e.Payload.(*MilestoneDefinition)
		if n, nok := CoSignedNonce(e); !ok || !nok || n != nonce || p.TermsHash != termsHash {
			return true
		}
		if out == nil || r.Sender == t.poster {
			out = p
		}
		return r.Sender != t.poster
	})
	return out
}

// Head returns the position of by's chain of envelopes in the thread: the
// sequence (0 before its first), the hash (ZeroHash before its first) and
// the timestamp of its last authentic envelope. The next envelope by sends
// has sequence seq+1 and previousHash head.
func (t *Thread) Head(by Address) (seq uint64, head Hash, at time.Time) {
	c := t.chains[by]
	if c == nil {
		return 0, ZeroHash, time.Time{}
	}
	return c.seq, c.head, c.last
}

// DisputeID returns the id of the task's dispute once the chain opened
// one, or nil.
func (t *Thread) DisputeID() *Uint256 {
	if t.disputeID == nil {
		return nil
	}
	id := NewUint256(&t.disputeID.Int)
	return &id
}
