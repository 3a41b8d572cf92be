package negotiation

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"
)

// Act is a local act: something a node does in a thread for its
// principal. Each act has one row in the act table (ActRows): the roles
// that may do it, the states it may start in, the envelope it sends or
// the chain fact it expects, and the checks its arguments need. The
// thread answers from the table before the act (Thread.May); the same
// rows decide who may send each message type and in which states the
// thread takes each chain fact, so every role and state rule is written
// once. An act's name is the label the node counts it under.
type Act string

// The local acts, in the order of the act table.
const (
	ActPropose           Act = "propose_task"       // a direct TaskProposal to one worker, opening the thread
	ActCounter           Act = "counter"            // a TaskCounterOffer to the current offer
	ActAccept            Act = "accept"             // a TaskAcceptance of the current offer, with the settlement signature
	ActFund              Act = "fund"               // createTask: the agreed escrow into the registry
	ActDeliver           Act = "deliver"            // a DeliveryNotice for a milestone and its proof on chain
	ActRequestPayment    Act = "request_payment"    // a PaymentRequest for a milestone
	ActReleasePart       Act = "release_part"       // releasePart on chain: the pending PaymentRequest's amount of its milestone
	ActRequestRevision   Act = "request_revision"   // a RevisionRequest sending a delivered milestone back to work
	ActAcceptDelivery    Act = "accept_delivery"    // an AcceptDelivery and the milestone's release on chain
	ActCapability        Act = "capability"         // a CapabilityProof: a file by CID, an attestation (the node also carries an escalation in one)
	ActCancel            Act = "cancel"             // a MutualCancel: the intent before funding, the signed Cancel after
	ActAmend             Act = "amend"              // a MilestoneDefinition signing the Amendment
	ActReplace           Act = "replace"            // a ReplacementContext signing the Replacement
	ActSubmitCoSigned    Act = "submit_cosigned"    // a complete co-signed pair submitted on chain
	ActOpenDispute       Act = "open_dispute"       // openDispute, posting the bond
	ActProposeArbitrator Act = "propose_arbitrator" // an ArbitratorProposal and proposeArbitrator on chain
	ActSubmitEvidence    Act = "evidence"           // a DisputeEvidence and its CID on chain
	ActRule              Act = "rule"               // the arbitrator's ruling on chain
	ActVeto              Act = "veto"               // a SupervisorVeto halting the thread
	ActJoinDispute       Act = "join_dispute"       // the assigned arbitrator's import of a party's proof bundle
	ActSealCard          Act = "seal_card"          // an intent card sealed for this thread only (PXP)
	ActAnswerEscalation  Act = "answer_escalation"  // the principal's answer to the thread's pending question (PXP)
	ActBrief             Act = "brief"              // the decision brief of the thread (PXP)
	ActClaimUnanswered   Act = "claim_unanswered"   // claimUnanswered: a delivery the poster left unanswered for the review period
	ActReclaimExpired    Act = "reclaim_expired"    // reclaimExpired: after the deadline, the milestones never delivered back to the poster
	ActResolveTimedOut   Act = "resolve_timed_out"  // resolveTimedOut: a stalled dispute split evenly
)

// The act of a dispute whose arbitrator is an ERC-792 arbitrator contract
// (issue 14).
const (
	ActRaiseArbitrator Act = "raise_with_arbitrator" // raiseWithArbitrator: the dispute raised with the arbitrator contract, paying its fee
)

// Act codes. A local act the table refuses carries one of these, or
// CodeStateForbidden, CodeMilestoneInvalid or CodeTermsChanged. They are
// never on the wire: nothing was built, signed or sent.
const (
	CodeNotParty    Code = "not_party"    // the actor's role in the thread may not do the act
	CodeBadArgument Code = "bad_argument" // an argument of the act is missing or out of range
)

// Sentinels for errors.Is: each matches every *Error with its code, so a
// caller can tell May's refusals apart without comparing strings.
var (
	// ErrNotParty matches an act the actor's role may not do.
	ErrNotParty = &Error{Code: CodeNotParty}
	// ErrStateForbidden matches an act (or an input) the thread's state
	// does not allow.
	ErrStateForbidden = &Error{Code: CodeStateForbidden}
	// ErrBadArgument matches an act with a missing or out-of-range
	// argument.
	ErrBadArgument = &Error{Code: CodeBadArgument}
)

// MaxRuling is the highest ruling an arbitrator may give. Ruling 0
// refuses to rule; a ruling r in 1..MaxRuling gives the worker r-1 basis
// points of the escrow (ERC-792, as the ArbitrationModule takes it).
const MaxRuling = 10001

// ValidRuling reports whether r is a ruling the ArbitrationModule takes:
// 0 (a refusal to rule) or 1..MaxRuling.
func ValidRuling(r uint64) bool { return r <= MaxRuling }

// CoSignedTypes lists the message types of the co-signed acts after
// funding: each carries one party's EIP-712 signature, and a pair of them
// over one digest is submitted on chain.
var CoSignedTypes = []MessageType{TypeMutualCancel, TypeMilestoneDefinition, TypeReplacementContext}

// ActArgs are the arguments of a local act that the act table checks.
// Each act reads only the members its row names; a check whose argument
// is not given (a nil pointer) is skipped, so an act whose arguments are
// known only later (a nonce read from the chain) asks May again then.
type ActArgs struct {
	// Milestone is the milestone of deliver, request_payment,
	// release_part, request_revision and accept_delivery.
	Milestone int
	// Ruling is the ruling of rule.
	Ruling uint64
	// Party is the address an act names: propose_task's worker,
	// propose_arbitrator's arbitrator, replace's new worker (zero to
	// co-sign the other party's replacement, which with Nonce must exist:
	// bad_argument) and veto's party.
	Party Address
	// Offer is the offer accept signs for (zero: the current one). An
	// offer that is no longer current is terms_changed.
	Offer Hash
	// Nonce is the task's nonce on chain, for cancel, amend and replace
	// after funding and for submit_cosigned: with it, May refuses to sign
	// again what this party signed at that nonce and is still waiting for
	// the other party to sign.
	Nonce *uint64
	// Digest is the EIP-712 digest amend would sign (with Nonce). Nil
	// with Nonce co-signs the other party's amendment at Nonce as it
	// stands, which must exist (bad_argument); nil without Nonce skips the
	// check.
	Digest *Hash
	// Kind is the co-signed type submit_cosigned submits (CoSignedTypes).
	Kind MessageType
	// TopUp is set when the co-signed amendment submit_cosigned submits
	// raises the escrow: only the poster pays the rise (not_party).
	TopUp bool
	// Mandate is the actor's mandate in the thread (its intent card, its
	// escalations and the principal's answers), for seal_card and
	// answer_escalation; nil for a thread run without a card.
	Mandate *Mandate
	// Question is the question answer_escalation answers ("": the pending
	// one, whichever it is).
	Question string
	// Observer is set when the actor holds the thread as an observer,
	// joined late from a proof bundle (an arbitrator, a replacement
	// worker): it acts under no intent card, so seal_card is not_party.
	Observer bool
	// At is the time brief is asked at: a negotiation whose current offer
	// expired by then is over.
	At time.Time
	// Amount, Basis and Units are request_payment's (nil Amount skips
	// their checks).
	Amount *big.Int
	Basis  string
	Units  uint64
	// Request is the PaymentRequest release_part pays (zero: the pending
	// one, whichever it is).
	Request Hash
}

// ActRow is one row of the act table.
type ActRow struct {
	// Act is the act.
	Act Act
	// Does says what the act does, in plain words.
	Does string
	// Roles are the roles that may do the act. RoleNone is a party with no
	// role in the thread yet.
	Roles []Role
	// Joins is set for the first answer to an announcement: a party with no
	// role yet, in a thread opened from an announcement that no worker
	// answered, acts as the worker.
	Joins bool
	// States are the thread states the act may start in.
	States []State
	// Sends is the message type of the envelope the act sends, "" for none.
	// Its sender must have one of Roles (as the act's actor must).
	Sends MessageType
	// SendStates are the states in which the thread takes that envelope,
	// when they are not States.
	SendStates []State
	// Expects is the name (FactName) of the chain fact that completes the
	// act, "" for none.
	Expects string
	// FactStates are the states in which the thread takes that fact, when
	// they are not States.
	FactStates []State
	// Checks says what else the act's arguments and the thread must
	// satisfy, with the codes of the refusals, in plain words.
	Checks string
}

// envelopeStates returns the states in which the thread takes the act's
// envelope.
func (r ActRow) envelopeStates() []State {
	if r.SendStates != nil {
		return r.SendStates
	}
	return r.States
}

// factStates returns the states in which the thread takes the act's fact.
func (r ActRow) factStates() []State {
	if r.FactStates != nil {
		return r.FactStates
	}
	return r.States
}

// allows reports whether role may do the act.
func (r ActRow) allows(role Role) bool { return slices.Contains(r.Roles, role) }

// The state sets the table is written in.
var (
	// negotiatingStates are the states in which offers are made and
	// accepted.
	negotiatingStates = []State{StateProposed, StateCountered}
	// postFundingStates are the states of a funded task not yet settled and
	// not in dispute.
	postFundingStates = []State{StateFunded, StateDelivered}
	// liveStates are the states no envelope has ended (every stored state
	// but the terminal ones).
	liveStates = []State{StateOpen, StateProposed, StateCountered, StateAgreed, StateFunded, StateDelivered, StateDisputed, StateArbitrated, StateHalted}
	// anyone is every role, RoleNone included.
	anyone = []Role{RoleNone, RolePoster, RoleWorker, RoleArbitrator, RoleSupervisor}
	// arbitratedStates are the states of a thread whose dispute has an
	// arbitrator: the one it is assigned in and those it can end in from
	// there.
	arbitratedStates = []State{StateArbitrated, StateResolved, StateVetoed}
	// parties are the poster and the worker.
	parties = []Role{RolePoster, RoleWorker}
	// everyState is every stored state.
	everyState = states(liveStates, []State{StateCompleted, StateResolved, StateCancelled, StateVetoed})
	// afterOpen is every stored state but open: an offer was made.
	afterOpen = everyState[1:]
	// heldStates are the states of a funded task neither settled nor in
	// dispute, halted by a veto included: the escrow is in the contract,
	// so the thread takes the chain's facts of a funded task in them.
	heldStates = states(postFundingStates, []State{StateHalted})
)

func states(sets ...[]State) []State { return slices.Concat(sets...) }

// tableRow is a row of the act table with the check of its arguments.
type tableRow struct {
	ActRow
	// check refuses what the row's roles and states allow but the thread
	// or the act's arguments do not (nil: nothing more to check).
	check func(t *Thread, by Address, a ActArgs) *Error
}

// actTable is the act table. docs/protocol.md ("Local acts") lists it;
// TestActTableDocumented keeps the two the same.
var actTable = []tableRow{
	{ActRow{Act: ActPropose, Does: "offer a task to one worker, opening the negotiation",
		Roles: anyone, States: []State{StateOpen}, Sends: TypeTaskProposal,
		Checks: "the worker is another party (bad_argument); the sender becomes the poster"}, checkPropose},
	{ActRow{Act: ActCounter, Does: "answer the current offer with new terms",
		Roles: parties, Joins: true, States: negotiatingStates, Sends: TypeTaskCounterOffer,
		Checks: "a worker has answered (not_party); one's own current offer only once the other party accepted it (state_forbidden)"}, checkCounter},
	{ActRow{Act: ActAccept, Does: "sign the settlement digest of the current offer",
		Roles: parties, Joins: true, States: negotiatingStates, Sends: TypeTaskAcceptance,
		Checks: "a worker has answered (not_party); the offer is still the current one (terms_changed); not accepted by this party already (state_forbidden)"}, checkAccept},
	{ActRow{Act: ActFund, Does: "move the agreed escrow into the registry (createTask)",
		Roles: []Role{RolePoster}, States: []State{StateAgreed}, Expects: TaskFunded{}.fact(), FactStates: []State{StateAgreed, StateVetoed},
		Checks: "an agreement (state_forbidden); a task funded on chain after a veto halts the thread"}, checkFund},
	{ActRow{Act: ActDeliver, Does: "deliver a milestone and submit its proof on chain",
		Roles: []Role{RoleWorker}, States: postFundingStates, Sends: TypeDeliveryNotice, Expects: ProofSubmitted{}.fact(), FactStates: heldStates,
		Checks: "the milestone exists (bad_argument) and is not released (milestone_invalid)"}, checkMilestone},
	{ActRow{Act: ActRequestPayment, Does: "ask for the release of part of a milestone (hours worked, a stream's units, or the rest of it)",
		Roles: []Role{RoleWorker}, States: postFundingStates, Sends: TypePaymentRequest,
		Checks: "the milestone exists (bad_argument) and is not released (milestone_invalid); its released total and pending requests leave room for the amount (payment_exceeds_milestone); hourly and stream requests give their units, a milestone request asks for all that is left (bad_argument)"}, checkRequestPayment},
	{ActRow{Act: ActReleasePart, Does: "release the amount of the milestone's pending payment request on chain (releasePart)",
		Roles: []Role{RolePoster}, States: postFundingStates, Expects: PartReleased{}.fact(), FactStates: heldStates,
		Checks: "the milestone exists (bad_argument) and is not released (milestone_invalid); it has a pending payment request, and requests are paid in order (state_forbidden)"}, checkReleasePart},
	{ActRow{Act: ActRequestRevision, Does: "send a delivered milestone back to work and stop its review clock on chain (requestRevision)",
		Roles: []Role{RolePoster}, States: []State{StateDelivered}, Sends: TypeRevisionRequest,
		Expects: RevisionRequested{}.fact(), FactStates: heldStates,
		Checks: "the milestone exists (bad_argument), is not released and has a delivery pending review (milestone_invalid)"}, checkRevision},
	{ActRow{Act: ActAcceptDelivery, Does: "accept a milestone's delivery and release it on chain",
		Roles: []Role{RolePoster}, States: states(postFundingStates, []State{StateCompleted}),
		Sends: TypeAcceptDelivery, SendStates: []State{StateDelivered},
		Expects: MilestoneReleased{}.fact(), FactStates: heldStates,
		Checks: "the thread holds a DeliveryNotice of the milestone (state_forbidden); it may start in funded and completed because, once its AcceptDelivery went out, the act only releases the milestone on chain (the retry of a failed transaction)"}, checkAcceptDelivery},
	{ActRow{Act: ActCapability, Does: "attach a capability proof: a file by CID the poster checks, an attestation another address signed (the node also carries an escalation in one)",
		Roles: []Role{RoleWorker}, States: liveStates, Sends: TypeCapabilityProof}, nil},
	{ActRow{Act: ActCancel, Does: "cancel by mutual consent: the intent before funding, the signed Cancel after",
		Roles: parties, States: states(negotiatingStates, []State{StateAgreed}, heldStates), Sends: TypeMutualCancel,
		Expects: TaskCancelled{}.fact(), FactStates: states([]State{StateAgreed}, heldStates),
		Checks: "before funding, once per party (state_forbidden); after funding, not again at a nonce this party signed while the pair is incomplete (state_forbidden)"}, checkCancel},
	{ActRow{Act: ActAmend, Does: "sign an amendment of the remaining milestones and the deadline",
		Roles: parties, States: postFundingStates, Sends: TypeMilestoneDefinition, Expects: MilestonesAmended{}.fact(), FactStates: heldStates,
		Checks: "to co-sign the other party's as it stands, it sent one at the nonce (bad_argument); not the digest this party signed at the nonce while the pair is incomplete (state_forbidden)"}, checkAmend},
	{ActRow{Act: ActReplace, Does: "sign the hand-over of the task to a new worker",
		Roles: parties, States: postFundingStates, Sends: TypeReplacementContext, Expects: WorkerReplaced{}.fact(), FactStates: heldStates,
		Checks: "the new worker is a third party (bad_argument); to co-sign the other party's, it sent one at the nonce (bad_argument); not the replacement this party signed at the nonce while the pair is incomplete (state_forbidden)"}, checkReplace},
	{ActRow{Act: ActSubmitCoSigned, Does: "submit a complete co-signed pair on chain (mutualCancel, amend, replaceWorker)",
		Roles: parties, States: heldStates,
		Checks: "a co-signed type (bad_argument), in halted only the cancel (state_forbidden); an amendment that raises the escrow only by the poster (not_party); both parties signed one digest (state_forbidden), at the task's nonce (state_forbidden); its fact is the co-signed act's"}, checkSubmit},
	{ActRow{Act: ActOpenDispute, Does: "open a dispute, posting the bond",
		Roles: parties, States: heldStates, Expects: DisputeOpened{}.fact()}, nil},
	{ActRow{Act: ActProposeArbitrator, Does: "name the arbitrator this party accepts",
		Roles: parties, States: []State{StateDisputed}, Sends: TypeArbitratorProposal, Expects: ArbitratorAssigned{}.fact(),
		Checks: "the arbitrator is a third party (bad_argument)"}, checkArbitrator},
	{ActRow{Act: ActSubmitEvidence, Does: "submit evidence to the dispute",
		Roles: []Role{RolePoster, RoleWorker, RoleArbitrator}, States: []State{StateDisputed, StateArbitrated}, Sends: TypeDisputeEvidence}, nil},
	{ActRow{Act: ActRule, Does: "rule on the dispute",
		Roles: []Role{RoleArbitrator}, States: []State{StateArbitrated}, Expects: Ruled{}.fact(),
		Checks: fmt.Sprintf("0 refuses to rule, 1..%d gives the worker r-1 basis points (bad_argument otherwise)", MaxRuling)}, checkRuling},
	{ActRow{Act: ActVeto, Does: "halt the thread for the party that named this supervisor (vetoed before funding; halted after, the escrow staying in the contract)",
		Roles: []Role{RoleSupervisor}, States: liveStates, Sends: TypeSupervisorVeto,
		Checks: "the party is a party (bad_argument) that named this supervisor (not_party)"}, checkVeto},
	{ActRow{Act: ActJoinDispute, Does: "join the dispute late, from the proof bundle of the thread a party handed over",
		Roles: []Role{RoleArbitrator}, States: arbitratedStates,
		Checks: "asked of the thread replayed from the bundle: its arbitrator is the actor"}, nil},
	{ActRow{Act: ActSealCard, Does: "seal an intent card for this thread only, in place of the one it opened with",
		Roles: []Role{RoleNone, RolePoster, RoleWorker, RoleSupervisor}, States: everyState,
		Checks: "not an observer's thread, joined late from a proof bundle: it acts under no intent card (not_party); not a thread answering the actor's own announcement, which keeps the announcement's card (state_forbidden); the actor has sent nothing in the thread (state_forbidden) and not escalated (state_forbidden): the card then changes only by the principal's answers"}, checkSealCard},
	{ActRow{Act: ActAnswerEscalation, Does: "answer the question the thread waits on",
		Roles: anyone, States: everyState,
		Checks: "the actor's mandate is paused on a question (state_forbidden), the one answered when one is named (state_forbidden)"}, checkAnswer},
	{ActRow{Act: ActBrief, Does: "make the decision brief of the negotiation",
		Roles: anyone, States: afterOpen,
		Checks: "in proposed or countered only once the current offer expired (state_forbidden): the brief is made once the negotiation is agreed or over"}, checkBrief},
	{ActRow{Act: ActClaimUnanswered, Does: "claim a delivered milestone the poster left unanswered for the review period",
		Roles: []Role{RoleWorker}, States: []State{StateDelivered, StateHalted},
		Checks: "the milestone exists (bad_argument), is not released and has a delivery pending review (milestone_invalid); the node checks on chain that the review period is over; its fact is accept_delivery's (milestone_released, unanswered); in halted too: a veto after funding leaves the contract's timeouts running"}, checkRevision},
	{ActRow{Act: ActReclaimExpired, Does: "take back, after the deadline, every milestone the worker never delivered",
		Roles: []Role{RolePoster}, States: heldStates, Expects: EscrowReclaimed{}.fact(),
		Checks: "a milestone without a delivery, or sent back to work, is left in escrow (milestone_invalid); the node checks on chain that the deadline (for one sent back to work, its resubmission window) passed"}, checkReclaim},
	{ActRow{Act: ActResolveTimedOut, Does: "resolve a stalled dispute by its timeout: the escrow split evenly",
		Roles: anyone, States: []State{StateDisputed, StateArbitrated}, Expects: DisputeTimedOut{}.fact(),
		Checks: "the node checks on chain that the dispute's stage timed out"}, nil},
	{ActRow{Act: ActRaiseArbitrator, Does: "raise the dispute with its arbitrator contract (ERC-792), paying the court's fee",
		Roles: parties, States: []State{StateArbitrated},
		Checks: "the node checks the chain: the arbitrator is a contract and the dispute not raised yet (state_forbidden); the court's ruling comes back as the fact `ruled`"}, nil},
}

// ActRows returns a copy of the act table, in its order.
func ActRows() []ActRow {
	out := make([]ActRow, len(actTable))
	for i, r := range actTable {
		c := r.ActRow
		c.Roles = slices.Clone(c.Roles)
		c.States = slices.Clone(c.States)
		c.SendStates = slices.Clone(c.SendStates)
		c.FactStates = slices.Clone(c.FactStates)
		out[i] = c
	}
	return out
}

// Acts returns every act, in the order of the act table.
func Acts() []Act {
	out := make([]Act, len(actTable))
	for i, r := range actTable {
		out[i] = r.Act
	}
	return out
}

// Row returns a's row of the act table, and whether a is an act.
func (a Act) Row() (ActRow, bool) {
	for _, r := range ActRows() {
		if r.Act == a {
			return r, true
		}
	}
	return ActRow{}, false
}

func rowOf(a Act) *tableRow {
	for i := range actTable {
		if actTable[i].Act == a {
			return &actTable[i]
		}
	}
	return nil
}

// senderRow returns the row of the act that sends typ, or nil.
func senderRow(typ MessageType) *tableRow {
	for i := range actTable {
		if actTable[i].Sends == typ {
			return &actTable[i]
		}
	}
	return nil
}

// factRow returns the row of the act that expects the fact named name, or
// nil.
func factRow(name string) *tableRow {
	for i := range actTable {
		if actTable[i].Expects == name {
			return &actTable[i]
		}
	}
	return nil
}

// May reports whether by may do act in the thread as it stands, with
// args: nil when the act table allows it, otherwise an *Error whose code
// says why (not_party for a role that may not, state_forbidden for a
// state or a thread that does not allow it, and the code its row names
// for an argument). It changes nothing. The envelope the act then builds
// is still judged whole (Check, Apply): May answers who, when and with
// which arguments, not whether the terms, digests and signatures hold.
func (t *Thread) May(act Act, by Address, args ActArgs) error {
	r := rowOf(act)
	if r == nil {
		return reject(CodeBadArgument, "act", "no act %q", act)
	}
	role := t.actorRole(r, by)
	if !r.allows(role) {
		return reject(CodeNotParty, string(act), "%s may not %s (only %s)", describeRole(role), r.Does, roleList(r.Roles))
	}
	if !slices.Contains(r.States, t.state) {
		return reject(CodeStateForbidden, string(act), "no %s in state %s (only in %s)", act, t.state, stateList(r.States))
	}
	if r.check != nil {
		if err := r.check(t, by, args); err != nil {
			if err.Field == "" {
				err.Field = string(act)
			}
			return err
		}
	}
	return nil
}

// actorRole returns the role by acts in under row r: its role in the
// thread, or the worker's for the first answer to an announcement.
func (t *Thread) actorRole(r *tableRow, by Address) Role {
	role := t.RoleOf(by)
	if role == RoleNone && r.Joins && by != (Address{}) && t.p.Announcement != nil && t.worker == (Address{}) {
		return RoleWorker
	}
	return role
}

func describeRole(r Role) string {
	if r == RoleNone {
		return "a party with no role in the thread"
	}
	return "the " + string(r)
}

func roleList(rs []Role) string {
	if slices.Equal(rs, anyone) {
		return "anyone"
	}
	var s []string
	for _, r := range rs {
		if r == RoleNone {
			s = append(s, "a party with no role yet")
			continue
		}
		s = append(s, "the "+string(r))
	}
	return strings.Join(s, ", ")
}

func stateList(ss []State) string {
	if slices.Equal(ss, liveStates) {
		return "any state no envelope has ended"
	}
	if slices.Equal(ss, everyState) {
		return "any state"
	}
	var s []string
	for _, x := range ss {
		s = append(s, string(x))
	}
	return strings.Join(s, ", ")
}

// The checks of the rows. Each runs after the row's roles and states
// allowed the act.

func checkPropose(_ *Thread, by Address, a ActArgs) *Error {
	if a.Party == (Address{}) || a.Party == by {
		return reject(CodeBadArgument, "", "the worker %s must be another party", a.Party)
	}
	return nil
}

// checkCounterparty refuses an act of the poster of an announcement that
// no worker has answered: there is nobody to negotiate with.
func (t *Thread) checkCounterparty(by Address) *Error {
	if by == t.poster && t.worker == (Address{}) {
		return reject(CodeNotParty, "", "no worker has answered the announcement of %s yet", by)
	}
	return nil
}

func checkCounter(t *Thread, by Address, _ ActArgs) *Error {
	if err := t.checkCounterparty(by); err != nil {
		return err
	}
	cur := t.current
	if cur == nil {
		return reject(CodeStateForbidden, "", "no offer to counter")
	}
	if cur.By == by {
		if _, ok := t.AcceptanceOf(t.other(by), cur.Hash()); !ok {
			return reject(CodeStateForbidden, "", "the current offer (revision %d) is this party's own: wait for the other party", cur.Revision)
		}
	}
	return nil
}

func checkAccept(t *Thread, by Address, a ActArgs) *Error {
	if err := t.checkCounterparty(by); err != nil {
		return err
	}
	cur := t.current
	if cur == nil {
		return reject(CodeStateForbidden, "", "no offer to accept")
	}
	if a.Offer != (Hash{}) && a.Offer != cur.Hash() {
		return reject(CodeTermsChanged, "", "the offer changed: revision %d is the current one", cur.Revision)
	}
	if _, ok := t.AcceptanceOf(by, cur.Hash()); ok {
		return reject(CodeStateForbidden, "", "this party accepted the current offer (revision %d) already", cur.Revision)
	}
	return nil
}

func checkFund(t *Thread, _ Address, _ ActArgs) *Error {
	if t.agreement == nil {
		return reject(CodeStateForbidden, "", "funding needs an agreement")
	}
	return nil
}

// checkMilestone: the act's milestone exists and is not released.
func checkMilestone(t *Thread, _ Address, a ActArgs) *Error {
	if !t.hasMilestone(a.Milestone) {
		return reject(CodeBadArgument, "", "milestone %d of %d", a.Milestone, len(t.milestones))
	}
	return t.milestoneIndex(a.Milestone)
}

func checkRevision(t *Thread, by Address, a ActArgs) *Error {
	if err := checkMilestone(t, by, a); err != nil {
		return err
	}
	if _, ok := t.delivered[a.Milestone]; !ok {
		return reject(CodeMilestoneInvalid, "", "milestone %d has no delivery to revise", a.Milestone)
	}
	return nil
}

func checkReclaim(t *Thread, _ Address, _ ActArgs) *Error {
	if len(t.openMilestones()) == 0 && len(t.revising) == 0 {
		return reject(CodeMilestoneInvalid, "", "every milestone is released, reclaimed or has a delivery pending review")
	}
	return nil
}

func checkAcceptDelivery(t *Thread, _ Address, a ActArgs) *Error {
	if t.DeliveryOf(a.Milestone) == nil {
		return reject(CodeStateForbidden, "", "no delivery of milestone %d", a.Milestone)
	}
	return nil
}

// waiting refuses to sign again what by signed at the nonce (same says
// which of its envelopes is the same act) while the pair is not complete
// (ready says whether the complete pair is that act: the node then
// submits it again).
func (t *Thread) waiting(kind MessageType, by Address, nonce *uint64, same func(*Envelope) bool, ready func(*CoSigned) bool) *Error {
	if nonce == nil {
		return nil
	}
	mine := t.PendingCoSign(kind, by, *nonce)
	if mine == nil || !same(mine) {
		return nil
	}
	if c := t.ReadyCoSign(kind, *nonce); c != nil && ready(c) {
		return nil
	}
	return reject(CodeStateForbidden, "", "this party signed the %s at nonce %d already; waiting for the other party's", kind, *nonce)
}

func checkCancel(t *Thread, by Address, a ActArgs) *Error {
	if !t.state.PostFunding() {
		if t.LatestOf(by, TypeMutualCancel) != nil {
			return reject(CodeStateForbidden, "", "this party sent its cancel already; the other party's ends the negotiation")
		}
		return nil
	}
	all := func(*Envelope) bool { return true }
	return t.waiting(TypeMutualCancel, by, a.Nonce, all, func(*CoSigned) bool { return true })
}

// checkCoSignOther: to co-sign the other party's envelope of kind as it
// stands, the other party sent one at the nonce.
func (t *Thread) checkCoSignOther(kind MessageType, by Address, nonce uint64) *Error {
	if t.PendingCoSign(kind, t.other(by), nonce) == nil {
		return reject(CodeBadArgument, "", "no %s of the other party at nonce %d to co-sign", kind, nonce)
	}
	return nil
}

func checkAmend(t *Thread, by Address, a ActArgs) *Error {
	if a.Digest == nil {
		if a.Nonce != nil {
			return t.checkCoSignOther(TypeMilestoneDefinition, by, *a.Nonce)
		}
		return nil
	}
	same := func(e *Envelope) bool {
		d, err := t.amendmentDigest(e.Payload.(*MilestoneDefinition))
		return err == nil && Hash(d) == *a.Digest
	}
	return t.waiting(TypeMilestoneDefinition, by, a.Nonce, same, func(c *CoSigned) bool { return c.Digest == *a.Digest })
}

func checkReplace(t *Thread, by Address, a ActArgs) *Error {
	if a.Party == (Address{}) {
		if a.Nonce != nil {
			return t.checkCoSignOther(TypeReplacementContext, by, *a.Nonce)
		}
		return nil
	}
	if !t.isThirdParty(a.Party) {
		return reject(CodeBadArgument, "", "the new worker %s must be a third party, not the poster or the worker", a.Party)
	}
	names := func(e *Envelope) bool { return e.Payload.(*ReplacementContext).NewWorker == a.Party }
	return t.waiting(TypeReplacementContext, by, a.Nonce, names, func(c *CoSigned) bool { return names(t.byHash[c.Envelopes[0]]) })
}

func checkSubmit(t *Thread, by Address, a ActArgs) *Error {
	if !slices.Contains(CoSignedTypes, a.Kind) {
		return reject(CodeBadArgument, "", "%q is not a co-signed act", a.Kind)
	}
	if err := t.checkHaltedSubmit(a.Kind); err != nil {
		return err
	}
	if a.Kind == TypeMilestoneDefinition && a.TopUp && t.RoleOf(by) != RolePoster {
		return reject(CodeNotParty, "", "the amendment raises the escrow: only the poster pays the rise")
	}
	c := t.ready[a.Kind]
	if c == nil {
		return reject(CodeStateForbidden, "", "no co-signed %s to submit", a.Kind)
	}
	if a.Nonce != nil {
		if n, ok := CoSignedNonce(t.byHash[c.Envelopes[0]]); !ok || n != *a.Nonce {
			return reject(CodeStateForbidden, "", "the %s was signed for another nonce; the task's nonce is %d", a.Kind, *a.Nonce)
		}
	}
	return nil
}

func checkArbitrator(t *Thread, _ Address, a ActArgs) *Error {
	if !t.isThirdParty(a.Party) {
		return reject(CodeBadArgument, "", "the arbitrator %s must be a third party", a.Party)
	}
	return nil
}

func checkRuling(_ *Thread, _ Address, a ActArgs) *Error {
	if !ValidRuling(a.Ruling) {
		return reject(CodeBadArgument, "", "ruling %d is outside 0..%d", a.Ruling, MaxRuling)
	}
	return nil
}

func checkVeto(t *Thread, by Address, a ActArgs) *Error {
	if !t.isParty(a.Party) {
		return reject(CodeBadArgument, "", "%s is not a party", a.Party)
	}
	if s, ok := t.supervisors[a.Party]; !ok || s != by {
		return reject(CodeNotParty, "", "not the supervisor %s named", a.Party)
	}
	return nil
}

func checkSealCard(t *Thread, by Address, a ActArgs) *Error {
	if a.Observer {
		return reject(CodeNotParty, "", "an observer of the thread acts under no intent card")
	}
	if ann := t.p.Announcement; ann != nil && ann.Sender.EVMAddress == by {
		return reject(CodeStateForbidden, "", "the thread answers this party's announcement: it acts under the card the announcement carried")
	}
	if seq, _, _ := t.Head(by); seq > 0 {
		return reject(CodeStateForbidden, "", "this party has spoken in the thread: its card changes only by the principal's answers")
	}
	if a.Mandate != nil && len(a.Mandate.Escalations()) > 0 {
		return reject(CodeStateForbidden, "", "this party escalated in the thread: its card changes only by the principal's answers")
	}
	return nil
}

func checkAnswer(_ *Thread, _ Address, a ActArgs) *Error {
	var q Escalation
	ok := false
	if a.Mandate != nil {
		q, ok = a.Mandate.Paused()
	}
	if !ok {
		return reject(CodeStateForbidden, "", "the negotiation waits for no answer")
	}
	if a.Question != "" && q.Question != a.Question {
		return reject(CodeStateForbidden, "", "the negotiation now asks %q, not the question answered", q.Question)
	}
	return nil
}

func checkBrief(t *Thread, _ Address, a ActArgs) *Error {
	if st := t.StateAt(a.At); st.negotiating() {
		return reject(CodeStateForbidden, "", "the negotiation is %s: its brief is made once it is agreed or over", st)
	}
	return nil
}

// isThirdParty reports whether a is an address other than the thread's
// poster and worker.
func (t *Thread) isThirdParty(a Address) bool { return a != (Address{}) && !t.isParty(a) }

// hasMilestone reports whether the task has a milestone m.
func (t *Thread) hasMilestone(m int) bool { return m >= 0 && m < len(t.milestones) }
