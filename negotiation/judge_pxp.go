package negotiation

import "slices"

// judgePXP applies the PXP rules every receiver can check from the thread
// alone (docs/pxp.md, "On the wire"). They are judged from the envelope and
// its sender's own chain, never from arrival order, so they come before the
// rules judged from the thread's state.
func (t *Thread) judgePXP(e *Envelope) *Error {
	px := e.Payload.Proxy()
	acc, isAcc := e.Payload.(*TaskAcceptance)
	if px.Status == StatusAgree && !isAcc {
		switch e.Payload.(type) {
		case *TaskProposal, *TaskCounterOffer:
			return reject(CodeAgreeWithCounter, "/payload/status", "agree accepts one offer by hash and carries no counter")
		}
		return reject(CodeBadReference, "/payload/status", "agree accepts an offer: only a TaskAcceptance carries it")
	}
	if isAcc {
		if px.Status == StatusEscalate {
			return reject(CodeStateForbidden, "/payload/status", "an escalating proxy is paused and accepts nothing")
		}
		for _, r := range px.Reviews {
			if r.Verdict == VerdictConflict {
				return reject(CodeAgreeWithConflict, "/payload/reviews", "an agreement carries no conflict review (claim %q)", r.ClaimID)
			}
		}
	}
	if err := t.judgeClaims(e); err != nil {
		return err
	}
	if isAcc {
		return t.judgeDisputes(e, acc)
	}
	return nil
}

// senderEnvelopes returns the envelopes of a sender whose effect was taken,
// in its chain order.
func (t *Thread) senderEnvelopes(a Address) []*Envelope {
	var out []*Envelope
	for _, r := range t.log {
		if r.Sender == a && r.Code == "" {
			out = append(out, t.byHash[r.Hash])
		}
	}
	return out
}

// judgeClaims: claim ids belong to the party that first sent them. A sender
// may send its own claim again unchanged, attach a source to it, or have
// its principal state it, but not change its text or lower its origin; and
// it may not re-use the id of another party's claim it had seen (every
// envelope of that party up to the last one its chain names), which would
// restate that claim as its own.
func (t *Thread) judgeClaims(e *Envelope) *Error {
	claims := e.Payload.Proxy().Claims
	if len(claims) == 0 {
		return nil
	}
	sender := e.Sender.EVMAddress
	own := map[string]Claim{}
	for _, x := range t.senderEnvelopes(sender) {
		for _, c := range x.Payload.Proxy().Claims {
			if _, ok := own[c.ID]; !ok {
				own[c.ID] = c
			}
		}
	}
	// The other parties' envelopes the sender had seen: up to the highest
	// sequence its chain (and this envelope) names, per party.
	seen := map[Address]uint64{}
	note := func(x *Envelope) {
		for _, h := range refs(x) {
			if r := t.byHash[h]; r != nil && r.Sender.EVMAddress != sender && r.Sequence > seen[r.Sender.EVMAddress] {
				seen[r.Sender.EVMAddress] = r.Sequence
			}
		}
	}
	for _, r := range t.log {
		if r.Sender == sender {
			note(t.byHash[r.Hash])
		}
	}
	note(e)
	theirs := map[string]bool{}
	for _, r := range t.log {
		if r.Sender == sender || r.Code != "" || r.Seq > seen[r.Sender] {
			continue
		}
		for _, c := range t.byHash[r.Hash].Payload.Proxy().Claims {
			theirs[c.ID] = true
		}
	}
	if a := t.p.Announcement; a != nil && a.Sender.EVMAddress != sender {
		for _, c := range a.Payload.Proxy().Claims {
			theirs[c.ID] = true
		}
	}
	dup := map[string]bool{}
	for _, c := range claims {
		if dup[c.ID] {
			return reject(CodeClaimRestated, "/payload/claims", "claim %q twice", c.ID)
		}
		dup[c.ID] = true
		if old, ok := own[c.ID]; ok {
			if normText(old.Text) != normText(c.Text) {
				return reject(CodeClaimRestated, "/payload/claims", "claim %q already says %q", c.ID, old.Text)
			}
			if originRank(c.Origin) < originRank(old.Origin) {
				return reject(CodeClaimRestated, "/payload/claims", "claim %q was %s; it cannot become %s", c.ID, old.Origin, c.Origin)
			}
			continue
		}
		if theirs[c.ID] {
			return reject(CodeClaimRestated, "/payload/claims", "claim %q is another party's; restating it does not make it the sender's", c.ID)
		}
	}
	return nil
}

// judgeDisputes: an acceptance may not accept an offer whose dependsOn (or
// its own) names a claim the sender challenged or flagged as a conflict,
// unless its principal answered since: the answer re-seals the sender's
// card, so the acceptance carries another intentCardHash than the envelope
// of the dispute. A dispute in the acceptance itself always blocks.
func (t *Thread) judgeDisputes(e *Envelope, acc *TaskAcceptance) *Error {
	o := t.offers[acc.AcceptedOfferHash]
	if o == nil {
		return nil // the type's own rules refuse it
	}
	px := e.Payload.Proxy()
	deps := append(append([]string(nil), o.Envelope.Payload.Proxy().DependsOn...), px.DependsOn...)
	if len(deps) == 0 {
		return nil
	}
	for _, r := range px.Reviews {
		if r.Verdict != VerdictAccept && slices.Contains(deps, r.ClaimID) {
			return reject(CodeDependsOnDisputed, "/payload/reviews", "the offer rests on claim %q, which this acceptance disputes", r.ClaimID)
		}
	}
	last := map[string]*Envelope{}
	for _, x := range t.senderEnvelopes(e.Sender.EVMAddress) {
		for _, r := range x.Payload.Proxy().Reviews {
			if r.Verdict != VerdictAccept {
				last[r.ClaimID] = x
			}
		}
	}
	for _, id := range deps {
		x, ok := last[id]
		if !ok {
			continue
		}
		then := x.Payload.Proxy().IntentCardHash
		if then == nil || px.IntentCardHash == nil || *then == *px.IntentCardHash {
			return reject(CodeDependsOnDisputed, "/payload/acceptedOfferHash", "the offer rests on claim %q, which the sender disputed and its principal has not answered since", id)
		}
	}
	return nil
}
