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
	// Supervisor is the supervisor this party's principal names (a third
	// party's address): its node gets the thread and may veto the task
	// for this party (node/veto.go).
	Supervisor *negotiation.Address `json:"supervisor,omitempty"`
	// PXPFields are the PXP members of the counter-offer (a message
	// travels as its reason when Reason is empty).
	PXPFields
	// Expect, when set, is the offer the counter answers: another current
	// offer is terms_changed and nothing is sent (a caller that decided on
	// one offer, VXP's proposals, never answers a newer one).
	Expect negotiation.Hash `json:"-"`
}

// AcceptSpec are the PXP members of an acceptance (its message, which no
// member of a TaskAcceptance carries, is kept in this node's ledger).
type AcceptSpec struct {
	// Supervisor is the supervisor this party's principal names (as
	// CounterSpec's).
	Supervisor *negotiation.Address `json:"supervisor,omitempty"`
	PXPFields
	// Expect, when set, is the offer the acceptance signs: another current
	// offer is terms_changed, before the approval is asked (as
	// CounterSpec's).
	Expect negotiation.Hash `json:"-"`
}

// expectOffer refuses an act whose caller expected another current offer
// than cur (terms_changed); a zero expect takes any.
func expectOffer(expect, cur negotiation.Hash) error {
	if expect == (negotiation.Hash{}) || expect == cur {
		return nil
	}
	return &Error{Code: Code(negotiation.CodeTermsChanged), Msg: "the current offer is " + cur.String() + ", not the one expected (" + expect.String() + ")"}
}

// counterOffer builds the counter-offer of spec.
func counterOffer(inReplyTo negotiation.Hash, terms negotiation.Terms, spec CounterSpec) (*negotiation.TaskCounterOffer, string) {
	p := &negotiation.TaskCounterOffer{InReplyTo: inReplyTo, Terms: terms, Reason: spec.Reason, Supervisor: spec.Supervisor}
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
// refused with the act table's code and nothing is sent.
func (n *Node) Counter(ctx context.Context, nid string, spec CounterSpec) (ActResult, error) {
	var r ActResult
	counter := func(t *thread) error {
		cur := t.Th.Current()
		inReplyTo := cur.Hash()
		if err := expectOffer(spec.Expect, cur.Hash()); err != nil {
			return err
		}
		if cur.By == n.self {
			// Revising one's own offer answers the other party's
			// acceptance (the table asked for one).
			inReplyTo, _ = t.Th.AcceptanceOf(n.eng.OtherParty(t), cur.Hash())
		}
		terms, err := counterTerms(*cur.Terms, spec)
		if err != nil {
			return err
		}
		if err := checkSupervisor(spec.Supervisor, n.self, n.eng.OtherParty(t)); err != nil {
			return err
		}
		p, msg := counterOffer(inReplyTo, terms, spec)
		env, _, err := n.snd.send(ctx, t, p, n.eng.Recipients(t, false), false)
		if err != nil {
			return err
		}
		n.px.recordSeat(ctx, t, spec.agent, env.Hash(), msg)
		r = ActResult{Thread: n.viewLocked(t), Envelope: envRef(env)}
		return nil
	}
	return n.do(actCall{act: negotiation.ActCounter, nid: nid, locked: counter}, func() (ActResult, error) { return r, nil })
}

// CounterAnnouncement opens a negotiation with the poster of an
// announcement on the board by countering its terms; this node is the
// worker.
func (n *Node) CounterAnnouncement(ctx context.Context, ann negotiation.Hash, spec CounterSpec) (ActResult, error) {
	b, t, err := answerThread(n.board, n.self, ann)
	if err == nil {
		err = n.scopeRefusal(ctx, b) // scope.go
	}
	if err != nil {
		return n.do(actCall{act: negotiation.ActCounter, check: func() error { return err }}, nil)
	}
	var r ActResult
	counter := func(t *thread) error {
		terms, err := counterTerms(b.env.Payload.(*negotiation.TaskProposal).Terms, spec)
		if err != nil {
			return err
		}
		if err := checkSupervisor(spec.Supervisor, n.self, b.env.Sender.EVMAddress); err != nil {
			return err
		}
		n.board.answer(b) // the board keeps it while this node negotiates on it
		p, msg := counterOffer(ann, terms, spec)
		env, _, err := n.snd.send(ctx, t, p, []negotiation.Address{b.env.Sender.EVMAddress}, true)
		if err != nil {
			return err
		}
		n.px.recordSeat(ctx, t, spec.agent, env.Hash(), msg)
		r = ActResult{Thread: n.viewLocked(t), Envelope: envRef(env)}
		return nil
	}
	return n.do(actCall{act: negotiation.ActCounter, fresh: t, locked: counter}, func() (ActResult, error) { return r, nil })
}

// answerThread returns the entry ann of the board bd and a fresh,
// unregistered thread answering it, with self as the worker.
func answerThread(bd *board, self negotiation.Address, ann negotiation.Hash) (*boardEntry, *thread, error) {
	b, err := bd.announcement(ann)
	if err != nil {
		return nil, nil, err
	}
	nid, err := newNegotiationID()
	if err != nil {
		return nil, nil, err
	}
	t, err := engine.NewThread(negotiation.Params{NegotiationID: nid, Self: self, Announcement: b.env}, negotiation.RoleWorker, false)
	if err != nil {
		return nil, nil, err
	}
	return b, t, nil
}

// settlementOf returns the offer to sign of t's current offer, with self
// as the worker when t names none yet (t.mu held; the act table asked for
// an offer).
func settlementOf(t *thread, self negotiation.Address) (offerToSign, error) {
	cur := t.Th.Current()
	s, d, err := t.Th.Settlement(cur)
	if err != nil {
		return offerToSign{}, err
	}
	if w := t.Th.Worker(); w == (negotiation.Address{}) {
		s.Worker = [20]byte(self) // the worker's first answer to an announcement
	}
	digest, err := s.Digest(d)
	return offerToSign{offer: cur.Hash(), s: s, d: d, digest: digest}, err
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
// pending, nothing is signed or sent (terms_changed). An offer whose
// chain id or registry (the EIP-712 domain) is not this node's chain is
// refused with foreign_domain before any approval is asked.
func (n *Node) Accept(ctx context.Context, nid string) (ActResult, error) {
	return n.AcceptWith(ctx, nid, AcceptSpec{})
}

// AcceptWith is Accept with the acceptance's PXP members. The intent card
// judges the acceptance before the approval is asked: an acceptance
// outside the card pauses the negotiation on a question to the principal
// (escalation_required) and nothing is signed.
func (n *Node) AcceptWith(ctx context.Context, nid string, spec AcceptSpec) (ActResult, error) {
	var o offerToSign
	read := func(t *thread) (err error) {
		if o, err = settlementOf(t, n.self); err != nil {
			return err
		}
		return expectOffer(spec.Expect, o.offer)
	}
	return n.do(actCall{act: negotiation.ActAccept, nid: nid, locked: read}, func() (ActResult, error) {
		return n.accept(ctx, nid, nil, o, spec)
	})
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
	b, t, err := answerThread(n.board, n.self, ann)
	if err == nil {
		err = n.scopeRefusal(ctx, b) // scope.go
	}
	if err != nil {
		return n.do(actCall{act: negotiation.ActAccept, check: func() error { return err }}, nil)
	}
	var o offerToSign
	read := func(t *thread) (err error) {
		if o, err = settlementOf(t, n.self); err == nil {
			n.board.answer(b) // the board keeps it while this node negotiates on it
		}
		return err
	}
	return n.do(actCall{act: negotiation.ActAccept, fresh: t, locked: read}, func() (ActResult, error) {
		return n.accept(ctx, t.ID, t, o, spec)
	})
}

// offerToSign is the offer an acceptance signs: its hash, its settlement,
// the domain and the digest.
type offerToSign struct {
	offer  negotiation.Hash
	s      negotiation.Settlement
	d      negotiation.Domain
	digest [32]byte
}

// accept asks for approval, then signs and sends the acceptance of the
// offer o in nid; fresh is the unregistered thread of a new answer to an
// announcement, or nil. If the offer changed while the approval was
// pending, the act table refuses (terms_changed) and nothing is signed.
func (n *Node) accept(ctx context.Context, nid string, fresh *thread, o offerToSign, spec AcceptSpec) (ActResult, error) {
	// An offer for another chain or registry is refused before the card
	// is asked or an approval requested: nothing is signed for it.
	own, err := ownDomain(ctx, n.cfg.Chain, n.client)
	if err != nil {
		return ActResult{}, err
	}
	if err := checkDomain(o.d, own); err != nil {
		return ActResult{}, err
	}
	precheck := func(t *thread) error {
		if err := checkSupervisor(spec.Supervisor, n.self, n.eng.OtherParty(t)); err != nil {
			return err
		}
		return n.px.precheckAccept(ctx, t, o, spec)
	}
	if err := n.onThread(nid, fresh, precheck); err != nil {
		return ActResult{}, err
	}
	args := settlementArgs(o.s, o.d, o.digest)
	token := negotiation.Address(o.s.Token)
	var tv TokenView
	if token != (negotiation.Address{}) {
		// The amounts in the token's terms, where the chain tells them.
		if tv, err = n.tokens.lookup(ctx, n.client, token); err != nil {
			tv = TokenView{Address: token}
		}
		tokenArgs(tv, args)
	}
	reason := "sign the settlement digest: commits this node to the offer's terms (" + amountWords(o.s.Amount, token, tv) + " in escrow)"
	if _, err := n.authorize(ctx, ActSignSettlement, nid, args, reason, "high"); err != nil {
		return ActResult{}, err
	}
	var res ActResult
	err = n.onThread(nid, fresh, func(t *thread) error {
		if err := n.may(t, negotiation.ActAccept, negotiation.ActArgs{Offer: o.offer}); err != nil {
			return err
		}
		sig, err := n.keys.EVM().SignDigest(o.digest)
		if err != nil {
			return err
		}
		p := &negotiation.TaskAcceptance{AcceptedOfferHash: o.offer, SettlementDigest: o.digest, Signature: sig, Supervisor: spec.Supervisor}
		if h, ok := t.Th.AcceptanceOf(n.eng.OtherParty(t), o.offer); ok {
			p.InReplyTo = &h // the second signature answers the first
		}
		spec.apply(p)
		to := n.eng.Recipients(t, false)
		if fresh != nil {
			to = []negotiation.Address{t.Th.Poster()}
		}
		env, out, err := n.snd.send(ctx, t, p, to, fresh != nil)
		if err != nil {
			return err
		}
		n.px.recordSeat(ctx, t, spec.agent, env.Hash(), spec.Message)
		res = ActResult{Thread: n.viewLocked(t), Envelope: envRef(env)}
		if out.Agreement != nil {
			res.Detail = map[string]string{"digest": out.Agreement.Digest.String()}
		}
		return nil
	})
	if err != nil {
		return ActResult{}, err
	}
	return res, nil
}
