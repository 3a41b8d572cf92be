package node

import (
	"context"
	"strings"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// CounterSpec changes the current offer's terms: every member left empty
// keeps the current value; the chain, registry, token and nonce are kept.
type CounterSpec struct {
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Milestones  []MilestoneSpec `json:"milestones,omitempty"`
	Deadline    time.Time       `json:"deadline,omitempty"`
	// Reason says why (it travels in the counter-offer).
	Reason string `json:"reason,omitempty"`
	// PXPFields are the PXP members of the counter-offer (a message
	// travels as its reason when Reason is empty).
	PXPFields
}

// AcceptSpec are the PXP members of an acceptance (its message, which no
// member of a TaskAcceptance carries, is kept in this node's ledger).
type AcceptSpec struct {
	PXPFields
}

// counterOffer builds the counter-offer of spec.
func counterOffer(inReplyTo negotiation.Hash, terms negotiation.Terms, spec CounterSpec) (*negotiation.TaskCounterOffer, string) {
	p := &negotiation.TaskCounterOffer{InReplyTo: inReplyTo, Terms: terms, Reason: spec.Reason}
	spec.apply(p)
	msg := spec.Message
	if p.Reason == "" {
		p.Reason, msg = spec.Message, ""
	}
	return p, msg
}

// counterTerms applies spec to the current terms.
func counterTerms(cur negotiation.Terms, spec CounterSpec) (negotiation.Terms, error) {
	t := cur
	if strings.TrimSpace(spec.Title) != "" {
		t.Title = spec.Title
	}
	if spec.Description != "" {
		t.Description = spec.Description
	}
	if len(spec.Milestones) > 0 {
		ms, err := milestones(spec.Milestones)
		if err != nil {
			return t, err
		}
		t.Milestones = ms
	} else {
		t.Milestones = append([]negotiation.Milestone(nil), cur.Milestones...)
	}
	if !spec.Deadline.IsZero() {
		t.Deadline = uint64(spec.Deadline.Unix())
	}
	return t, nil
}

// Counter answers the thread's current offer with new terms. A party
// counters the other party's current offer, or revises its own offer once
// the other party has accepted it (docs/protocol.md); anything else is
// refused with the state machine's code and nothing is sent.
func (n *Node) Counter(ctx context.Context, nid string, spec CounterSpec) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone("counter", err)
	}
	defer t.Unlock()
	cur := t.Th.Current()
	if cur == nil {
		return ActResult{}, n.actDone("counter", fail(CodeStateForbidden, "no offer to counter"))
	}
	inReplyTo := cur.Hash()
	if cur.By == n.self {
		// Revising one's own offer answers the other party's acceptance.
		acc, ok := n.acceptanceOf(t, n.otherParty(t), cur.Hash())
		if !ok {
			return ActResult{}, n.actDone("counter", fail(CodeStateForbidden, "the current offer is this node's own: wait for the other party"))
		}
		inReplyTo = acc
	}
	terms, err := counterTerms(*cur.Terms, spec)
	if err != nil {
		return ActResult{}, n.actDone("counter", err)
	}
	p, msg := counterOffer(inReplyTo, terms, spec)
	env, _, err := n.sendLocked(ctx, t, p, n.recipients(t, false), false)
	if err != nil {
		return ActResult{}, n.actDone("counter", err)
	}
	n.recordSeat(ctx, t, spec.agent, env.Hash(), msg)
	return ActResult{Thread: n.viewLocked(t), Envelope: envRef(env)}, n.actDone("counter", nil)
}

// acceptanceOf returns the hash of a's effective acceptance of offer o in
// t (t.mu held).
func (n *Node) acceptanceOf(t *thread, a negotiation.Address, o negotiation.Hash) (negotiation.Hash, bool) {
	log := t.Th.Log()
	for i := len(log) - 1; i >= 0; i-- {
		r := log[i]
		if r.Sender != a || r.Type != negotiation.TypeTaskAcceptance || r.Code != "" {
			continue
		}
		if e := t.Th.Envelope(r.Hash); e != nil {
			if p, ok := e.Payload.(*negotiation.TaskAcceptance); ok && p.AcceptedOfferHash == o {
				return r.Hash, true
			}
		}
	}
	return negotiation.Hash{}, false
}

// CounterAnnouncement opens a negotiation with the poster of an
// announcement on the board by countering its terms; this node is the
// worker.
func (n *Node) CounterAnnouncement(ctx context.Context, ann negotiation.Hash, spec CounterSpec) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	b, err := n.board.announcement(ann)
	if err != nil {
		return ActResult{}, n.actDone("counter", err)
	}
	if b.own {
		return ActResult{}, n.actDone("counter", fail(CodeNotParty, "the announcement is this node's own"))
	}
	terms, err := counterTerms(b.env.Payload.(*negotiation.TaskProposal).Terms, spec)
	if err != nil {
		return ActResult{}, n.actDone("counter", err)
	}
	t, err := n.answerThread(b)
	if err != nil {
		return ActResult{}, err
	}
	defer t.Unlock()
	p, msg := counterOffer(ann, terms, spec)
	env, _, err := n.sendLocked(ctx, t, p, []negotiation.Address{b.env.Sender.EVMAddress}, true)
	if err != nil {
		return ActResult{}, n.actDone("counter", err)
	}
	n.recordSeat(ctx, t, spec.agent, env.Hash(), msg)
	return ActResult{Thread: n.viewLocked(t), Envelope: envRef(env)}, n.actDone("counter", nil)
}

// answerThread returns a fresh, locked, unregistered thread answering the
// announcement b, with this node as the worker.
func (n *Node) answerThread(b *boardEntry) (*thread, error) {
	nid, err := newNegotiationID()
	if err != nil {
		return nil, err
	}
	t, err := engine.NewThread(negotiation.Params{NegotiationID: nid, Self: n.self, Announcement: b.env}, negotiation.RoleWorker, false)
	if err != nil {
		return nil, err
	}
	n.board.answer(b) // the board keeps it while this node negotiates on it
	t.Lock()
	return t, nil
}

// settlementOf returns the settlement of t's current offer with this
// node's view of the worker (t.mu held).
func (n *Node) settlementOf(t *thread) (*negotiation.Offer, negotiation.Settlement, negotiation.Domain, [32]byte, error) {
	cur := t.Th.Current()
	if cur == nil {
		return nil, negotiation.Settlement{}, negotiation.Domain{}, [32]byte{}, fail(CodeStateForbidden, "no offer to accept")
	}
	s, d, err := t.Th.Settlement(cur)
	if err != nil {
		return nil, s, d, [32]byte{}, err
	}
	if w := t.Th.Worker(); w == (negotiation.Address{}) {
		s.Worker = [20]byte(n.self) // the worker's first answer to an announcement
	}
	digest, err := s.Digest(d)
	return cur, s, d, digest, err
}

// settlementArgs are the approval arguments of signing a settlement: every
// field of the EIP-712 message and domain, and the digest.
func settlementArgs(s negotiation.Settlement, d negotiation.Domain, digest [32]byte) map[string]any {
	amounts := make([]string, len(s.MilestoneAmounts))
	for i, a := range s.MilestoneAmounts {
		amounts[i] = a.String()
	}
	nid := negotiation.NewNegotiationID(s.NegotiationID)
	return map[string]any{
		"negotiationId": nid, "poster": negotiation.Address(s.Poster).String(), "worker": negotiation.Address(s.Worker).String(),
		"token": negotiation.Address(s.Token).String(), "amount": fmtAmount(s.Amount), "milestoneAmounts": amounts,
		"deadline": time.Unix(int64(s.Deadline), 0).UTC().Format(time.RFC3339), "termsHash": negotiation.Hash(s.TermsHash).String(),
		"acceptedOfferHash": negotiation.Hash(s.AcceptedOfferHash).String(), "nonce": fmtAmount(s.Nonce),
		"chainId": fmtAmount(d.ChainID), "verifyingContract": negotiation.Address(d.VerifyingContract).String(),
		"digest": negotiation.Hash(digest).String(),
	}
}

// Accept accepts the thread's current offer: it computes the settlement
// digest of the offer, asks the gate for approval to sign it (the person
// sees every field of the EIP-712 message), signs it with the EVM key and
// sends the TaskAcceptance. If the offer changed while the approval was
// pending, nothing is signed or sent (terms_changed).
func (n *Node) Accept(ctx context.Context, nid string) (ActResult, error) {
	return n.AcceptWith(ctx, nid, AcceptSpec{})
}

// AcceptWith is Accept with the acceptance's PXP members. The intent card
// judges the acceptance before the approval is asked: an acceptance
// outside the card pauses the negotiation on a question to the principal
// (escalation_required) and nothing is signed.
func (n *Node) AcceptWith(ctx context.Context, nid string, spec AcceptSpec) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	t, err := n.locked(nid)
	if err != nil {
		return ActResult{}, n.actDone("accept", err)
	}
	st := t.Th.State()
	cur, s, d, digest, err := n.settlementOf(t)
	already := false
	if err == nil {
		_, already = n.acceptanceOf(t, n.self, cur.Hash())
	}
	t.Unlock()
	if err != nil {
		return ActResult{}, n.actDone("accept", err)
	}
	if st != negotiation.StateProposed && st != negotiation.StateCountered {
		return ActResult{}, n.actDone("accept", fail(CodeStateForbidden, "nothing to accept in state %s", st))
	}
	if already {
		return ActResult{}, n.actDone("accept", fail(CodeStateForbidden, "this node accepted the current offer already"))
	}
	return n.accept(ctx, nid, nil, cur.Hash(), s, d, digest, spec)
}

// AcceptAnnouncement opens a negotiation with the poster of an
// announcement by accepting its terms as they stand; this node is the
// worker.
func (n *Node) AcceptAnnouncement(ctx context.Context, ann negotiation.Hash) (ActResult, error) {
	return n.AcceptAnnouncementWith(ctx, ann, AcceptSpec{})
}

// AcceptAnnouncementWith is AcceptAnnouncement with the acceptance's PXP
// members.
func (n *Node) AcceptAnnouncementWith(ctx context.Context, ann negotiation.Hash, spec AcceptSpec) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	b, err := n.board.announcement(ann)
	if err != nil {
		return ActResult{}, n.actDone("accept", err)
	}
	if b.own {
		return ActResult{}, n.actDone("accept", fail(CodeNotParty, "the announcement is this node's own"))
	}
	t, err := n.answerThread(b)
	if err != nil {
		return ActResult{}, err
	}
	cur, s, d, digest, err := n.settlementOf(t)
	t.Unlock()
	if err != nil {
		return ActResult{}, n.actDone("accept", err)
	}
	return n.accept(ctx, t.ID, t, cur.Hash(), s, d, digest, spec)
}

// accept asks for approval, then signs and sends the acceptance of offer
// in nid; fresh is the unregistered thread of a new answer to an
// announcement, or nil.
func (n *Node) accept(ctx context.Context, nid string, fresh *thread, offer negotiation.Hash, s negotiation.Settlement, d negotiation.Domain, digest [32]byte, spec AcceptSpec) (ActResult, error) {
	if err := n.precheckAccept(ctx, nid, fresh, offer, digest, spec); err != nil {
		return ActResult{}, n.actDone("accept", err)
	}
	reason := "sign the settlement digest: commits this node to the offer's terms (" + fmtAmount(s.Amount) + " wei in escrow)"
	if _, err := n.authorize(ctx, ActSignSettlement, nid, settlementArgs(s, d, digest), reason, "high"); err != nil {
		return ActResult{}, n.actDone("accept", err)
	}
	t := fresh
	if t == nil {
		var err error
		if t, err = n.locked(nid); err != nil {
			return ActResult{}, n.actDone("accept", err)
		}
	} else {
		t.Lock()
	}
	defer t.Unlock()
	if cur := t.Th.Current(); cur == nil || cur.Hash() != offer {
		return ActResult{}, n.actDone("accept", fail(Code(negotiation.CodeTermsChanged), "the offer changed while the approval was pending; nothing was signed"))
	}
	sig, err := n.keys.EVM().SignDigest(digest)
	if err != nil {
		return ActResult{}, n.actDone("accept", err)
	}
	p := &negotiation.TaskAcceptance{AcceptedOfferHash: offer, SettlementDigest: digest, Signature: sig}
	spec.apply(p)
	to := n.recipients(t, false)
	if fresh != nil {
		to = []negotiation.Address{t.Th.Poster()}
	}
	env, out, err := n.sendLocked(ctx, t, p, to, fresh != nil)
	if err != nil {
		return ActResult{}, n.actDone("accept", err)
	}
	n.recordSeat(ctx, t, spec.agent, env.Hash(), spec.Message)
	res := ActResult{Thread: n.viewLocked(t), Envelope: envRef(env)}
	if out.Agreement != nil {
		res.Detail = map[string]string{"digest": out.Agreement.Digest.String()}
	}
	return res, n.actDone("accept", nil)
}

// precheckAccept asks the intent card about the acceptance of offer
// before the approval is asked (the signature is not judged), so an
// acceptance the card refuses pauses without a signature request.
func (n *Node) precheckAccept(ctx context.Context, nid string, fresh *thread, offer negotiation.Hash, digest [32]byte, spec AcceptSpec) error {
	t := fresh
	if t == nil {
		var err error
		if t, err = n.locked(nid); err != nil {
			return err
		}
	} else {
		t.Lock()
	}
	defer t.Unlock()
	p := &negotiation.TaskAcceptance{AcceptedOfferHash: offer, SettlementDigest: digest}
	spec.apply(p)
	return n.pxpPrepare(ctx, t, p, n.now().UTC().Truncate(time.Millisecond))
}
