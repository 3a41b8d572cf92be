package negotiation

import (
	"math/big"
	"slices"
)

// judge decides the effect of an authentic envelope. It changes nothing: it
// returns either a refusal or a function that applies the effect.
func (t *Thread) judge(e *Envelope) (commitFn, *Error) {
	if err := t.judgePXP(e); err != nil {
		return nil, err
	}
	if t.state.Terminal() {
		return nil, reject(CodeStateForbidden, "/type", "%s in a %s thread", e.Type, t.state)
	}
	switch p := e.Payload.(type) {
	case *TaskProposal:
		return t.judgeProposal(e, p)
	case *TaskCounterOffer:
		return t.judgeCounter(e, p)
	case *TaskAcceptance:
		return t.judgeAcceptance(e, p)
	case *MilestoneDefinition:
		return t.judgeAmendment(e, p)
	case *RevisionRequest:
		return t.judgeRevisionRequest(e, p)
	case *DeliveryNotice:
		return t.judgeDelivery(e, p)
	case *PaymentRequest:
		return t.judgePaymentRequest(e, p)
	case *CapabilityProof:
		return t.judgeCapability(e, p)
	case *DisputeEvidence:
		return t.judgeEvidence(e, p)
	case *ArbitratorProposal:
		return t.judgeArbitratorProposal(e, p)
	case *MutualCancel:
		return t.judgeCancel(e, p)
	case *ReplacementContext:
		return t.judgeReplacement(e, p)
	case *SupervisorVeto:
		return t.judgeVeto(e, p)
	case *AcceptDelivery:
		return t.judgeAcceptDelivery(e, p)
	}
	return nil, reject(CodeUnknownType, "/type", "%s", e.Type)
}

// isParty reports whether a is the poster or the worker, treating the first
// counterparty of an announcement as the worker-to-be.
func (t *Thread) isParty(a Address) bool {
	return a != (Address{}) && (a == t.poster || a == t.worker)
}

// requireSender checks the sender's role against the row of the act that
// sends e's type (the act table).
func (t *Thread) requireSender(e *Envelope) *Error {
	r := t.RoleOf(e.Sender.EVMAddress)
	if row := senderRow(e.Type); row != nil && row.allows(r) {
		return nil
	}
	return reject(CodeRoleForbidden, "/sender", "%s (role %q) may not send %s", e.Sender.EVMAddress, r, e.Type)
}

// requireSendState checks the thread's state against the states in which
// the act table takes e's type.
func (t *Thread) requireSendState(e *Envelope) *Error {
	if row := senderRow(e.Type); row != nil && slices.Contains(row.envelopeStates(), t.state) {
		return nil
	}
	return reject(CodeStateForbidden, "/type", "%s in state %s", e.Type, t.state)
}

// requireCoSigner checks what every co-signed act after funding needs: a
// party as sender, a funded task, and its taskId on the envelope.
func (t *Thread) requireCoSigner(e *Envelope) *Error {
	if err := t.requireSender(e); err != nil {
		return err
	}
	if err := t.requireSendState(e); err != nil {
		return err
	}
	return t.requireTask(e)
}

// requireTask checks that a post-funding envelope names the funded task.
func (t *Thread) requireTask(e *Envelope) *Error {
	if t.taskID == nil || e.TaskID == nil || e.TaskID.Cmp(&t.taskID.Int) != 0 {
		return reject(CodeTaskMismatch, "/taskId", "must name the funded task")
	}
	return nil
}

// checkTaskID refuses a taskId on an envelope that does not match the task.
func (t *Thread) checkTaskID(e *Envelope) *Error {
	if e.TaskID == nil {
		return nil
	}
	if t.taskID == nil || e.TaskID.Cmp(&t.taskID.Int) != 0 {
		return reject(CodeTaskMismatch, "/taskId", "this negotiation has no such task")
	}
	return nil
}

func (t *Thread) nameSupervisor(party Address, s *Address) {
	if s != nil {
		t.supervisors[party] = *s
	}
}

// judgeProposal: a direct TaskProposal opens a thread, naming exactly one
// recipient, the worker.
func (t *Thread) judgeProposal(e *Envelope, p *TaskProposal) (commitFn, *Error) {
	if !slices.Contains(senderRow(TypeTaskProposal).envelopeStates(), t.state) {
		return nil, reject(CodeStateForbidden, "/type", "a negotiation has one proposal; counter instead")
	}
	if len(e.Recipients) != 1 || e.Recipients[0] == e.Sender.EVMAddress {
		return nil, reject(CodeRoleForbidden, "/recipients", "a direct proposal names exactly one worker")
	}
	if err := t.checkTaskID(e); err != nil {
		return nil, err
	}
	th, _ := e.TermsHash()
	return func(*Outcome) {
		o := &Offer{Envelope: e, Revision: 1, By: e.Sender.EVMAddress, Terms: &p.Terms, TermsHash: th}
		t.poster, t.worker = e.Sender.EVMAddress, e.Recipients[0]
		t.offers[e.Hash()], t.first, t.current = o, o, o
		t.milestones = p.Terms.Milestones
		t.nameSupervisor(t.poster, p.Supervisor)
		t.state = StateProposed
	}, nil
}

// joining reports whether e is the first envelope of the worker-to-be in a
// thread opened from an announcement.
func (t *Thread) joining(e *Envelope) bool {
	return t.p.Announcement != nil && t.worker == (Address{}) && e.Sender.EVMAddress != t.poster
}

// knowledge returns the highest offer revision the sender of e had seen when
// it sent e: its own offers, and every offer its envelopes named, up to and
// including e. Staleness is judged from this, not from arrival order.
func (t *Thread) knowledge(e *Envelope) int {
	sender := e.Sender.EVMAddress
	k := 0
	note := func(h Hash) {
		if o := t.offers[h]; o != nil && o.Revision > k {
			k = o.Revision
		}
		if a := t.byHash[h]; a != nil {
			if ta, ok := a.Payload.(*TaskAcceptance); ok {
				if o := t.offers[ta.AcceptedOfferHash]; o != nil && o.Revision > k {
					k = o.Revision
				}
			}
		}
	}
	for _, r := range t.log {
		if r.Sender != sender {
			continue
		}
		note(r.Hash)
		for _, h := range refs(t.byHash[r.Hash]) {
			note(h)
		}
	}
	for _, h := range refs(e) {
		note(h)
	}
	return k
}

// boundBy returns the highest revision the sender has effectively accepted
// at or above rev, or nil. A party that accepted an offer may counter only an
// offer with a higher revision, which the other party made after it: judged
// from the sender's own chain, so arrival order does not matter.
func (t *Thread) boundBy(a Address, rev int) *Offer {
	var b *Offer
	for _, r := range t.log {
		if r.Sender != a || r.Type != TypeTaskAcceptance || r.Code != "" {
			continue
		}
		o := t.offers[t.byHash[r.Hash].Payload.(*TaskAcceptance).AcceptedOfferHash]
		if o != nil && o.Revision >= rev && (b == nil || o.Revision > b.Revision) {
			b = o
		}
	}
	return b
}

// accepted reports whether a already effectively accepted offer o.
func (t *Thread) accepted(a Address, o *Offer) bool {
	b := t.boundBy(a, o.Revision)
	return b != nil && b == o
}

// judgeCounter: a counter-offer is a new revision in reply to the current
// offer by the other party, or a revision of one's own offer in reply to the
// other party's acceptance of it. Counters strictly follow one another, so
// no two revisions share a number.
func (t *Thread) judgeCounter(e *Envelope, p *TaskCounterOffer) (commitFn, *Error) {
	sender := e.Sender.EVMAddress
	joining := t.joining(e)
	if !joining {
		if err := t.requireSender(e); err != nil {
			return nil, err
		}
	}
	if err := t.checkTaskID(e); err != nil {
		return nil, err
	}
	if t.first == nil {
		return nil, reject(CodeStateForbidden, "/type", "no offer to counter")
	}
	var replied *Offer
	if o := t.offers[p.InReplyTo]; o != nil {
		if o.By == sender {
			return nil, reject(CodeBadReference, "/payload/inReplyTo", "revise your own offer only in reply to the other party's acceptance of it")
		}
		replied = o
	} else if a := t.byHash[p.InReplyTo]; a != nil && a.Type == TypeTaskAcceptance && a.Sender.EVMAddress != sender {
		o := t.offers[a.Payload.(*TaskAcceptance).AcceptedOfferHash]
		if o == nil || o.By != sender {
			return nil, reject(CodeBadReference, "/payload/inReplyTo", "the acceptance replied to is not of your offer")
		}
		replied = o
	} else {
		return nil, reject(CodeBadReference, "/payload/inReplyTo", "names neither an offer nor an acceptance of yours")
	}
	if joining && replied != t.first {
		return nil, reject(CodeBadReference, "/payload/inReplyTo", "the first counter answers the announcement")
	}
	if b := t.boundBy(sender, replied.Revision); b != nil {
		return nil, reject(CodeBoundByAcceptance, "/type", "you accepted revision %d; wait for the other party to counter", b.Revision)
	}
	// Rules judged from the sender's own chain come before the thread's
	// state, so a refusal's code does not depend on arrival order.
	if err := t.requireSendState(e); err != nil {
		return nil, err
	}
	if replied != t.current {
		return nil, reject(CodeTermsChanged, "/payload/inReplyTo", "revision %d is superseded by revision %d", replied.Revision, t.current.Revision)
	}
	if e.Timestamp.After(t.expiry(replied)) {
		return nil, reject(CodeOfferExpired, "/timestamp", "revision %d expired at %s", replied.Revision, FormatTime(t.expiry(replied)))
	}
	maxRev, _, _ := t.Limits()
	rev := replied.Revision + 1
	if rev-1 > maxRev {
		return nil, reject(CodeRevisionLimit, "/type", "at most %d counter-offers", maxRev)
	}
	th, _ := e.TermsHash()
	return func(*Outcome) {
		if joining {
			t.worker = sender
		}
		o := &Offer{Envelope: e, Revision: rev, By: sender, Terms: &p.Terms, TermsHash: th}
		t.offers[e.Hash()], t.current = o, o
		t.nameSupervisor(sender, p.Supervisor)
		t.state = StateCountered
	}, nil
}

// refusedAccepts counts the sender's refused acceptances from the thread's
// own record.
func (t *Thread) refusedAccepts(a Address) int {
	n := 0
	for _, r := range t.log {
		if r.Sender == a && r.Type == TypeTaskAcceptance && r.Code != "" && r.Code != CodeStateForbidden && r.Code != CodeRoleForbidden {
			n++
		}
	}
	return n
}

// judgeAcceptance: agreement needs both parties' acceptances of the same
// offer with the same settlement digest, which must be that offer's.
func (t *Thread) judgeAcceptance(e *Envelope, p *TaskAcceptance) (commitFn, *Error) {
	sender := e.Sender.EVMAddress
	joining := t.joining(e)
	if !joining {
		if err := t.requireSender(e); err != nil {
			return nil, err
		}
	}
	if err := t.checkTaskID(e); err != nil {
		return nil, err
	}
	o := t.offers[p.AcceptedOfferHash]
	if o == nil {
		return nil, reject(CodeBadReference, "/payload/acceptedOfferHash", "not an offer of this negotiation")
	}
	if joining && o != t.first {
		return nil, reject(CodeBadReference, "/payload/acceptedOfferHash", "the first acceptance accepts the announcement")
	}
	if t.accepted(sender, o) {
		return nil, reject(CodeStateForbidden, "/payload/acceptedOfferHash", "revision %d is already accepted by you", o.Revision)
	}
	_, _, maxAccepts := t.Limits()
	if t.refusedAccepts(sender) >= maxAccepts {
		return nil, reject(CodeAcceptAttemptsExhausted, "/type", "%d acceptances already refused", maxAccepts)
	}
	if k := t.knowledge(e); o.Revision < k {
		return nil, reject(CodeTermsChanged, "/payload/acceptedOfferHash", "revision %d is superseded by revision %d, which you had seen", o.Revision, k)
	}
	if err := t.requireSendState(e); err != nil {
		return nil, err
	}
	if e.Timestamp.After(t.expiry(o)) {
		return nil, reject(CodeOfferExpired, "/timestamp", "revision %d expired at %s", o.Revision, FormatTime(t.expiry(o)))
	}
	worker := t.worker
	if joining {
		worker = sender
	}
	s, d, err := t.settlementFor(o, worker)
	if err != nil {
		return nil, reject(CodeDigestMismatch, "/payload/settlementDigest", "%v", err)
	}
	digest, derr := s.Digest(d)
	if derr != nil {
		return nil, reject(CodeDigestMismatch, "/payload/settlementDigest", "%v", derr)
	}
	if Hash(digest) != p.SettlementDigest {
		return nil, reject(CodeDigestMismatch, "/payload/settlementDigest", "the digest of revision %d is %s", o.Revision, Hash(digest))
	}
	if err := checkSigner(digest, p.Signature, sender); err != nil {
		return nil, err
	}
	return func(out *Outcome) {
		if joining {
			t.worker = sender
		}
		t.accepts[sender] = &acceptance{offer: o, digest: Hash(digest), sig: p.Signature}
		t.nameSupervisor(sender, p.Supervisor)
		other := t.accepts[t.other(sender)]
		if other == nil || other.offer != o || other.digest != Hash(digest) {
			return
		}
		a := &Agreement{Offer: o.Hash(), Digest: Hash(digest), Domain: d, Settlement: s}
		a.PosterSignature, a.WorkerSignature = t.accepts[t.poster].sig, t.accepts[t.worker].sig
		t.agreement = a
		t.milestones = o.Terms.Milestones
		t.state = StateAgreed
		out.Agreement = a
	}, nil
}

func (t *Thread) settlementFor(o *Offer, worker Address) (Settlement, Domain, error) {
	saved := t.worker
	t.worker = worker
	s, d, err := t.Settlement(o)
	t.worker = saved
	return s, d, err
}

// requireMilestoneAct checks what every act on one milestone of a funded
// task needs: the sender's role, the thread's state, the envelope's taskId
// and a milestone that exists and is not yet released.
func (t *Thread) requireMilestoneAct(e *Envelope, m int) *Error {
	if err := t.requireSender(e); err != nil {
		return err
	}
	if err := t.requireSendState(e); err != nil {
		return err
	}
	if err := t.requireTask(e); err != nil {
		return err
	}
	return t.milestoneIndex(m)
}

func (t *Thread) milestoneIndex(m int) *Error {
	if !t.hasMilestone(m) {
		return reject(CodeMilestoneInvalid, "/payload/milestone", "no milestone %d", m)
	}
	if t.released[m] {
		return reject(CodeMilestoneInvalid, "/payload/milestone", "milestone %d is already released", m)
	}
	if t.refunded[m] {
		return reject(CodeMilestoneInvalid, "/payload/milestone", "milestone %d went back to the poster", m)
	}
	return nil
}

func (t *Thread) judgeDelivery(e *Envelope, p *DeliveryNotice) (commitFn, *Error) {
	if err := t.requireMilestoneAct(e, p.Milestone); err != nil {
		return nil, err
	}
	return func(*Outcome) {
		delete(t.revised, p.Milestone)
		t.delivered[p.Milestone] = e.Hash()
		t.state = StateDelivered
	}, nil
}

func (t *Thread) judgeRevisionRequest(e *Envelope, p *RevisionRequest) (commitFn, *Error) {
	if d, ok := t.revised[p.Milestone]; ok && (p.InReplyTo == nil || *p.InReplyTo == d) {
		// The chain's RevisionRequested took this delivery off review
		// before the envelope arrived: the envelope says why, and changes
		// nothing more.
		if err := t.requireSender(e); err != nil {
			return nil, err
		}
		if err := t.requireTask(e); err != nil {
			return nil, err
		}
		return func(*Outcome) { delete(t.revised, p.Milestone) }, nil
	}
	if err := t.requireMilestoneAct(e, p.Milestone); err != nil {
		return nil, err
	}
	d, ok := t.delivered[p.Milestone]
	if !ok {
		return nil, reject(CodeMilestoneInvalid, "/payload/milestone", "milestone %d has no delivery to revise", p.Milestone)
	}
	if p.InReplyTo != nil && *p.InReplyTo != d {
		return nil, reject(CodeBadReference, "/payload/inReplyTo", "not the pending delivery of milestone %d", p.Milestone)
	}
	// The envelope says why; only the chain's RevisionRequested takes the
	// delivery off review (after funding the chain decides): a
	// RevisionRequest the poster sends without requestRevision on chain
	// must not keep the worker from claiming a delivery the contract still
	// holds under review.
	return func(*Outcome) {}, nil
}

func (t *Thread) settleDeliveredState() {
	switch {
	case len(t.released) == len(t.milestones):
		t.state = StateCompleted
	case len(t.refunded) > 0 && len(t.released)+len(t.refunded) == len(t.milestones):
		// Nothing is left in escrow and the poster took part of it back
		// (reclaimExpired): the task closed without being completed.
		t.state = StateCancelled
	case t.state == StateHalted:
		// A vetoed task stays halted until it is settled (vetoedState).
	case len(t.delivered) > 0:
		t.state = StateDelivered
	default:
		t.state = StateFunded
	}
}

func (t *Thread) judgeAcceptDelivery(e *Envelope, p *AcceptDelivery) (commitFn, *Error) {
	if err := t.requireMilestoneAct(e, p.Milestone); err != nil {
		return nil, err
	}
	if t.delivered[p.Milestone] != p.DeliveryHash {
		return nil, reject(CodeBadReference, "/payload/deliveryHash", "not the pending delivery of milestone %d", p.Milestone)
	}
	return func(*Outcome) {
		delete(t.delivered, p.Milestone)
		t.released[p.Milestone] = true
		t.settleDeliveredState()
	}, nil
}

func (t *Thread) judgePaymentRequest(e *Envelope, p *PaymentRequest) (commitFn, *Error) {
	if err := t.requireMilestoneAct(e, p.Milestone); err != nil {
		return nil, err
	}
	if p.Amount.Cmp(&t.milestones[p.Milestone].Amount.Int) > 0 {
		return nil, reject(CodeMilestoneInvalid, "/payload/amount", "more than milestone %d holds", p.Milestone)
	}
	if err := t.checkPaymentAmount(p.Milestone, &p.Amount.Int, "/payload/amount"); err != nil {
		return nil, err
	}
	return func(*Outcome) {}, nil
}

func (t *Thread) judgeCapability(e *Envelope, _ *CapabilityProof) (commitFn, *Error) {
	if err := t.requireSender(e); err != nil {
		return nil, err
	}
	if err := t.requireSendState(e); err != nil {
		return nil, err
	}
	if err := t.checkTaskID(e); err != nil {
		return nil, err
	}
	return func(*Outcome) {}, nil
}

func (t *Thread) requireDispute(e *Envelope, id Uint256) *Error {
	if t.disputeID == nil || id.Cmp(&t.disputeID.Int) != 0 {
		return reject(CodeTaskMismatch, "/payload/disputeId", "not this task's dispute")
	}
	return nil
}

func (t *Thread) judgeEvidence(e *Envelope, p *DisputeEvidence) (commitFn, *Error) {
	if err := t.requireSender(e); err != nil {
		return nil, err
	}
	if err := t.requireSendState(e); err != nil {
		return nil, err
	}
	if err := t.requireTask(e); err != nil {
		return nil, err
	}
	if err := t.requireDispute(e, p.DisputeID); err != nil {
		return nil, err
	}
	return func(*Outcome) {}, nil
}

func (t *Thread) judgeArbitratorProposal(e *Envelope, p *ArbitratorProposal) (commitFn, *Error) {
	if err := t.requireSender(e); err != nil {
		return nil, err
	}
	if err := t.requireSendState(e); err != nil {
		return nil, err
	}
	if err := t.requireTask(e); err != nil {
		return nil, err
	}
	if err := t.requireDispute(e, p.DisputeID); err != nil {
		return nil, err
	}
	if t.isParty(p.Arbitrator) {
		return nil, reject(CodeRoleForbidden, "/payload/arbitrator", "a party cannot arbitrate its own dispute")
	}
	return func(*Outcome) { t.nominees[e.Sender.EVMAddress] = p.Arbitrator }, nil
}

// AgreedArbitrator returns the arbitrator both parties named, if they agree.
func (t *Thread) AgreedArbitrator() (Address, bool) {
	a, okA := t.nominees[t.poster]
	b, okB := t.nominees[t.worker]
	return a, okA && okB && a == b
}

// cosign records the sender's signature over a co-signed act and reports the
// act as ready when both parties signed the same digest.
func (t *Thread) cosign(kind MessageType, e *Envelope, digest Hash, sig EVMSignature, out *Outcome) {
	m := t.cosigns[kind]
	if m == nil {
		m = map[Address]coSign{}
		t.cosigns[kind] = m
	}
	m[e.Sender.EVMAddress] = coSign{digest: digest, sig: sig, env: e.Hash()}
	p, okP := m[t.poster]
	w, okW := m[t.worker]
	if okP && okW && p.digest == w.digest {
		c := &CoSigned{Kind: kind, Digest: digest, PosterSignature: p.sig, WorkerSignature: w.sig, Envelopes: [2]Hash{p.env, w.env}}
		t.ready[kind] = c
		out.CoSigned = c
	}
}

func (t *Thread) taskIDBytes() [32]byte {
	var b [32]byte
	if t.taskID != nil {
		t.taskID.FillBytes(b[:])
	}
	return b
}

// checkSigner refuses an EVM signature over digest that is not by sender.
func checkSigner(digest [32]byte, sig EVMSignature, sender Address) *Error {
	signer, err := RecoverSigner(digest, sig)
	if err != nil || Address(signer) != sender {
		return reject(CodeSignerMismatch, "/payload/signature", "not signed by %s", sender)
	}
	return nil
}

func (t *Thread) judgeCancel(e *Envelope, p *MutualCancel) (commitFn, *Error) {
	if err := t.requireSender(e); err != nil {
		return nil, err
	}
	if err := t.requireSendState(e); err != nil {
		return nil, err
	}
	if !t.state.PostFunding() {
		if err := t.checkTaskID(e); err != nil {
			return nil, err
		}
		// Before funding the signed envelope is the cancel intent; both
		// parties' intents cancel the negotiation.
		return func(out *Outcome) {
			t.cosign(TypeMutualCancel, e, Hash{}, nil, out)
			if out.CoSigned != nil {
				t.state = StateCancelled
			}
		}, nil
	}
	if err := t.requireTask(e); err != nil {
		return nil, err
	}
	if len(p.Signature) == 0 {
		return nil, reject(CodeSignerMismatch, "/payload/signature", "after funding a cancel carries the EIP-712 Cancel signature")
	}
	d := t.agreement.Domain
	digest, err := Cancel{TaskID: t.taskIDBytes(), Nonce: p.Nonce.Big()}.Digest(d)
	if err != nil {
		return nil, reject(CodeDigestMismatch, "/payload", "%v", err)
	}
	if err := checkSigner(digest, p.Signature, e.Sender.EVMAddress); err != nil {
		return nil, err
	}
	return func(out *Outcome) { t.cosign(TypeMutualCancel, e, Hash(digest), p.Signature, out) }, nil
}

func (t *Thread) judgeAmendment(e *Envelope, p *MilestoneDefinition) (commitFn, *Error) {
	if err := t.requireCoSigner(e); err != nil {
		return nil, err
	}
	for i := range t.released {
		if i >= len(p.Milestones) || p.Milestones[i].Amount.Cmp(&t.milestones[i].Amount.Int) != 0 {
			return nil, reject(CodeMilestoneInvalid, "/payload/milestones", "released milestone %d cannot change", i)
		}
	}
	digest, err := t.amendmentDigest(p)
	if err != nil {
		return nil, reject(CodeDigestMismatch, "/payload", "%v", err)
	}
	if err := checkSigner(digest, p.Signature, e.Sender.EVMAddress); err != nil {
		return nil, err
	}
	return func(out *Outcome) { t.cosign(TypeMilestoneDefinition, e, Hash(digest), p.Signature, out) }, nil
}

// amendmentDigest returns the EIP-712 digest of the Amendment p signs for
// the funded task.
func (t *Thread) amendmentDigest(p *MilestoneDefinition) ([32]byte, error) {
	amounts := make([]*big.Int, len(p.Milestones))
	for i, m := range p.Milestones {
		amounts[i] = m.Amount.Big()
	}
	return Amendment{TaskID: t.taskIDBytes(), MilestoneAmounts: amounts, Deadline: p.Deadline, TermsHash: p.TermsHash, Nonce: p.Nonce.Big()}.Digest(t.agreement.Domain)
}

func (t *Thread) judgeReplacement(e *Envelope, p *ReplacementContext) (commitFn, *Error) {
	if err := t.requireCoSigner(e); err != nil {
		return nil, err
	}
	if !t.isThirdParty(p.NewWorker) {
		return nil, reject(CodeRoleForbidden, "/payload/newWorker", "the replacement must be a third party")
	}
	d := t.agreement.Domain
	digest, err := Replacement{TaskID: t.taskIDBytes(), NewWorker: [20]byte(p.NewWorker), HandoffHash: p.HandoffHash, Nonce: p.Nonce.Big()}.Digest(d)
	if err != nil {
		return nil, reject(CodeDigestMismatch, "/payload", "%v", err)
	}
	if err := checkSigner(digest, p.Signature, e.Sender.EVMAddress); err != nil {
		return nil, err
	}
	return func(out *Outcome) { t.cosign(TypeReplacementContext, e, Hash(digest), p.Signature, out) }, nil
}

func (t *Thread) judgeVeto(e *Envelope, p *SupervisorVeto) (commitFn, *Error) {
	if !t.isParty(p.Party) {
		return nil, reject(CodeRoleForbidden, "/payload/party", "%s is not a party", p.Party)
	}
	if s, ok := t.supervisors[p.Party]; !ok || s != e.Sender.EVMAddress {
		return nil, reject(CodeRoleForbidden, "/sender", "not the supervisor %s named", p.Party)
	}
	if err := t.requireSendState(e); err != nil {
		return nil, err
	}
	if err := t.checkTaskID(e); err != nil {
		return nil, err
	}
	return func(*Outcome) { t.state = t.vetoedState() }, nil
}
