package negotiation

import (
	"math/big"
	"slices"
	"time"
)

// MaxClockSkew is how far in the receiver's future a timestamp may be.
const MaxClockSkew = 5 * time.Minute

// Params fix what a thread is about before its first input.
type Params struct {
	// NegotiationID is the thread's UUID.
	NegotiationID string
	// Self is this node's EVM address. Direct envelopes from others must name
	// it in recipients. The zero address makes the thread an observer (an
	// arbitrator or auditor replaying a proof bundle), which checks no
	// addressing.
	Self Address
	// Announcement is the public TaskProposal this negotiation answers, if
	// any. Its terms are revision 1.
	Announcement *Envelope
}

// Offer is one revision of the terms.
type Offer struct {
	Envelope  *Envelope
	Revision  int
	By        Address
	Terms     *Terms
	TermsHash Hash
}

// Hash returns the offer envelope's hash.
func (o *Offer) Hash() Hash { return o.Envelope.Hash() }

// Record is the thread's account of one authentic envelope.
type Record struct {
	Hash   Hash
	Type   MessageType
	Sender Address
	Seq    uint64
	Code   Code // "" when the effect was taken
	State  State
}

// Equivocation is evidence that a sender signed two different envelopes at
// one sequence: the one the thread holds and the new one. Both are kept.
type Equivocation struct {
	Sender   Address
	Sequence uint64
	First    Hash
	Second   *Envelope
}

// Agreement is an agreed settlement: both parties' EVM signatures over the
// digest of one offer.
type Agreement struct {
	Offer           Hash
	Digest          Hash
	Domain          Domain
	Settlement      Settlement
	PosterSignature EVMSignature
	WorkerSignature EVMSignature
}

// TaskID returns the on-chain task id (the digest as a uint256).
func (a *Agreement) TaskID() Uint256 { return NewUint256(new(big.Int).SetBytes(a.Digest[:])) }

// CoSigned is an act both parties have signed for the contract (a cancel, an
// amendment or a replacement), ready to be submitted on chain.
type CoSigned struct {
	Kind            MessageType
	Digest          Hash
	PosterSignature EVMSignature
	WorkerSignature EVMSignature
	Envelopes       [2]Hash
}

// Outcome is what Apply decided about one input.
type Outcome struct {
	// Code is "" when the input took effect, CodeDuplicate for a repeat, and
	// the refusal code otherwise.
	Code Code
	// Err describes the refusal.
	Err error
	// Authentic is true when the envelope is kept and advanced its sender's
	// chain (whether or not its effect was taken). Chain facts are authentic
	// by definition.
	Authentic bool
	// From and To are the thread states before and after.
	From, To State
	// Equivocation is set when the input proved its sender equivocated.
	Equivocation *Equivocation
	// Agreement is set when this input completed the agreement.
	Agreement *Agreement
	// CoSigned is set when this input completed a co-signed act.
	CoSigned *CoSigned
}

// Effective reports whether the input's effect was taken.
func (o Outcome) Effective() bool { return o.Code == "" }

type senderChain struct {
	seq  uint64
	head Hash
	last time.Time
	key  PublicKey
	seen map[uint64]Hash
}

type acceptance struct {
	offer  *Offer
	digest Hash
	sig    EVMSignature
}

type coSign struct {
	digest Hash
	sig    EVMSignature
	env    Hash
}

// Thread is the state of one negotiation. The zero value is not usable;
// make one with NewThread. A Thread is not safe for concurrent use.
type Thread struct {
	p Params

	state       State
	poster      Address
	worker      Address
	arbitrator  Address
	refused     []Address           // arbitrators that refused to rule, in order
	supervisors map[Address]Address // party -> supervisor

	chains map[Address]*senderChain
	byHash map[Hash]*Envelope
	log    []Record

	offers    map[Hash]*Offer
	current   *Offer
	first     *Offer
	accepts   map[Address]*acceptance
	agreement *Agreement

	taskID     *Uint256
	milestones []Milestone
	delivered  map[int]Hash // milestone -> DeliveryNotice hash (pending review)
	released   map[int]bool
	parts      map[int]*big.Int // milestone -> released in parts so far (never changed in place)
	refunded   map[int]bool     // milestones reclaimed by the poster after the deadline
	revising   []int            // milestones the chain sent back to work (RevisionRequested), in the order of the requests, until resubmitted or settled
	revised    map[int]Hash     // milestone -> the delivery the chain's RevisionRequested took off review, until the poster's RevisionRequest or a new delivery
	disputeID  *Uint256
	nominees   map[Address]Address
	cosigns    map[MessageType]map[Address]coSign
	ready      map[MessageType]*CoSigned
	ruling     *uint64
	timedOut   bool // the dispute was resolved by its timeout
}

// NewThread returns an empty thread for p. When p.Announcement is set, the
// announced terms are revision 1 and the thread starts proposed.
func NewThread(p Params) (*Thread, error) {
	if _, err := ParseNegotiationID(p.NegotiationID); err != nil {
		return nil, err
	}
	t := &Thread{
		p:           p,
		state:       StateOpen,
		supervisors: map[Address]Address{},
		chains:      map[Address]*senderChain{},
		byHash:      map[Hash]*Envelope{},
		offers:      map[Hash]*Offer{},
		accepts:     map[Address]*acceptance{},
		delivered:   map[int]Hash{},
		released:    map[int]bool{},
		parts:       map[int]*big.Int{},
		refunded:    map[int]bool{},
		revised:     map[int]Hash{},
		nominees:    map[Address]Address{},
		cosigns:     map[MessageType]map[Address]coSign{},
		ready:       map[MessageType]*CoSigned{},
	}
	if a := p.Announcement; a != nil {
		if !a.IsAnnouncement() {
			return nil, reject(CodeBadReference, "announcement", "not a TaskProposal without recipients")
		}
		if err := a.Verify(); err != nil {
			return nil, err
		}
		tp := a.Payload.(*TaskProposal)
		th, _ := a.TermsHash()
		o := &Offer{Envelope: a, Revision: 1, By: a.Sender.EVMAddress, Terms: &tp.Terms, TermsHash: th}
		t.poster = a.Sender.EVMAddress
		t.offers[a.Hash()] = o
		t.byHash[a.Hash()] = a
		t.first, t.current = o, o
		t.milestones = tp.Terms.Milestones
		t.state = StateProposed
		if tp.Supervisor != nil {
			t.supervisors[t.poster] = *tp.Supervisor
		}
	}
	return t, nil
}

// NegotiationID returns the thread's id.
func (t *Thread) NegotiationID() string { return t.p.NegotiationID }

// State returns the thread's state as recorded, without expiry.
func (t *Thread) State() State { return t.state }

// StateAt returns the state at now: a negotiation whose current offer's TTL
// has passed without agreement is expired. Expiry is judged from signed
// timestamps, so a counter-offer sent in time and delivered late revives it.
func (t *Thread) StateAt(now time.Time) State {
	if t.state.negotiating() && t.current != nil && now.After(t.expiry(t.current)) {
		return StateExpired
	}
	return t.state
}

// Poster returns the poster's address (zero before the first offer).
func (t *Thread) Poster() Address { return t.poster }

// Worker returns the worker's address (zero until known).
func (t *Thread) Worker() Address { return t.worker }

// Arbitrator returns the assigned arbitrator (zero until assigned).
func (t *Thread) Arbitrator() Address { return t.arbitrator }

// FormerArbitrators returns the arbitrators that were assigned the dispute
// and refused to rule (ruling 0), in the order they refused, each once.
// They hold the thread still (they may be named again), so the parties
// keep them among the recipients of the dispute's envelopes.
func (t *Thread) FormerArbitrators() []Address { return slices.Clone(t.refused) }

// Current returns the latest offer, or nil.
func (t *Thread) Current() *Offer { return t.current }

// Agreement returns the agreed settlement, or nil.
func (t *Thread) Agreement() *Agreement { return t.agreement }

// TaskID returns the funded task's id, or nil before funding.
func (t *Thread) TaskID() *Uint256 { return t.taskID }

// Milestones returns the task's current milestones.
func (t *Thread) Milestones() []Milestone { return t.milestones }

// Log returns the record of every authentic envelope, in arrival order.
func (t *Thread) Log() []Record { return t.log }

// Ready returns the co-signed act of kind k both parties have signed, or nil.
func (t *Thread) Ready(k MessageType) *CoSigned { return t.ready[k] }

// Envelope returns an envelope of this thread by hash.
func (t *Thread) Envelope(h Hash) *Envelope { return t.byHash[h] }

// RoleOf returns a's role in the thread.
func (t *Thread) RoleOf(a Address) Role {
	switch {
	case a == (Address{}):
		return RoleNone
	case a == t.poster:
		return RolePoster
	case a == t.worker:
		return RoleWorker
	case a == t.arbitrator:
		return RoleArbitrator
	}
	for _, s := range t.supervisors {
		if s == a {
			return RoleSupervisor
		}
	}
	return RoleNone
}

// Limits returns the limits in force: those of revision 1's terms, with
// defaults for absent fields.
func (t *Thread) Limits() (maxRevisions, ttlSeconds, maxAccepts int) {
	maxRevisions, ttlSeconds, maxAccepts = DefaultMaxRevisions, DefaultProposalTTLSeconds, DefaultMaxAcceptAttempts
	if t.first == nil || t.first.Terms.Limits == nil {
		return
	}
	l := t.first.Terms.Limits
	if l.MaxRevisions != nil {
		maxRevisions = *l.MaxRevisions
	}
	if l.ProposalTTLSeconds != nil {
		ttlSeconds = *l.ProposalTTLSeconds
	}
	if l.MaxAcceptAttempts != nil {
		maxAccepts = *l.MaxAcceptAttempts
	}
	return
}

func (t *Thread) expiry(o *Offer) time.Time {
	_, ttl, _ := t.Limits()
	return o.Envelope.Timestamp.Add(time.Duration(ttl) * time.Second)
}

// other returns the counterparty of a party.
func (t *Thread) other(a Address) Address {
	if a == t.poster {
		return t.worker
	}
	return t.poster
}

// Settlement returns the settlement of offer o between the thread's poster
// and worker, with its EIP-712 domain from o's terms.
func (t *Thread) Settlement(o *Offer) (Settlement, Domain, error) {
	nid, err := ParseNegotiationID(t.p.NegotiationID)
	if err != nil {
		return Settlement{}, Domain{}, err
	}
	amounts := make([]*big.Int, len(o.Terms.Milestones))
	sum := new(big.Int)
	for i, m := range o.Terms.Milestones {
		amounts[i] = m.Amount.Big()
		sum.Add(sum, amounts[i])
	}
	s := Settlement{
		NegotiationID:     nid,
		Poster:            [20]byte(t.poster),
		Worker:            [20]byte(t.worker),
		Token:             [20]byte(o.Terms.Token),
		Amount:            sum,
		MilestoneAmounts:  amounts,
		Deadline:          o.Terms.Deadline,
		TermsHash:         o.TermsHash,
		AcceptedOfferHash: o.Hash(),
		Nonce:             o.Terms.Nonce.Big(),
	}
	d := Domain{ChainID: o.Terms.ChainID.Big(), VerifyingContract: [20]byte(o.Terms.Registry)}
	return s, d, nil
}
