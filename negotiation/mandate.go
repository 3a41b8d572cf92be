package negotiation

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SpeakerPrincipal marks a claim the principal made in person (PXP section 2).
const SpeakerPrincipal = "principal"

// TriggerKind names why a proxy must escalate (PXP section 5). The first
// three are the seed's first trigger (an agreement outside authority), then
// one each for the other three; TriggerDispute is the agreement rule of PXP
// section 7 (an offer resting on a claim this side disputed).
type TriggerKind string

// The escalation triggers.
const (
	TriggerMustNever    TriggerKind = "must_never"    // the terms cross a must_never rule
	TriggerMayAgreeTo   TriggerKind = "may_agree_to"  // the terms leave a may_agree_to rule
	TriggerMustHave     TriggerKind = "must_have"     // the terms give up a must_haves rule
	TriggerEscalateWhen TriggerKind = "escalate_when" // an escalate_when rule matches
	TriggerConflict     TriggerKind = "conflict"      // a conflict review not resolved by the principal
	TriggerAssumption   TriggerKind = "assumption"    // the agreement depends on an assumed claim touching a must_have
	TriggerDispute      TriggerKind = "dispute"       // the accepted offer rests on a claim this side disputed
)

// Trigger is one reason to escalate.
type Trigger struct {
	Kind TriggerKind `json:"kind"`
	// Clause is the card clause involved ("must_never[0]"), if any.
	Clause string `json:"clause,omitempty"`
	// ClaimID is the claim involved, if any.
	ClaimID string `json:"claimId,omitempty"`
	// Terms is the local hash of the terms judged (zero when none).
	Terms Hash `json:"terms,omitzero"`
	// Detail says what happened, for people.
	Detail string `json:"detail"`
}

func (t Trigger) key() string {
	switch t.Kind {
	case TriggerConflict, TriggerAssumption, TriggerDispute:
		return string(t.Kind) + "|" + t.ClaimID
	}
	return string(t.Kind) + "|" + t.Clause + "|" + t.Terms.String()
}

// EscalationError refuses an outgoing payload that needs the principal
// first. Its code is CodeEscalationRequired or CodeDependsOnDisputed;
// Question is one concrete question to ask.
type EscalationError struct {
	Code     Code
	Question string
	Triggers []Trigger
}

// Error returns "negotiation: <code>: <question>".
func (e *EscalationError) Error() string {
	return "negotiation: " + string(e.Code) + ": " + e.Question
}

// Unwrap returns the *Error with the same code, so CodeOf and errors.Is work.
func (e *EscalationError) Unwrap() error { return &Error{Code: e.Code, Msg: e.Question} }

// Class returns the class of its code (conflict: the principal decides first).
func (e *EscalationError) Class() string { return e.Code.Class() }

// ClaimRecord is a mandate's account of one claim, ours or the other side's.
type ClaimRecord struct {
	Claim
	// Ours is true for claims this side made (including the principal's
	// answers); false for claims received from another node, which are never
	// stated for us whatever their origin.
	Ours bool `json:"ours"`
	// By is the sender's address (the zero address for ours before sending).
	By Address `json:"by"`
	// Speaker is "principal" for a principal's answer, else "proxy".
	Speaker string `json:"speaker"`
	// Via says how a principal's answer arrived.
	Via Via `json:"via,omitempty"`
	// VerifiedBy names what verified an assumed claim: "source: <ref>" or
	// the amendment that confirmed it. Empty while unverified.
	VerifiedBy string `json:"verifiedBy,omitempty"`
	// Reviews are the reviews of this claim: ours of theirs, or theirs of ours.
	Reviews []ReviewRecord `json:"reviews,omitempty"`

	seq     int
	confirm int // answer index that confirmed it, or -1
}

// ReviewRecord is one review with its place in the mandate's history.
type ReviewRecord struct {
	Review
	// Auto is true when a rule of the card decided the verdict.
	Auto bool `json:"auto,omitempty"`
	seq  int
}

// EscalationRecord is one question put to the principal.
type EscalationRecord struct {
	Escalation
	At       time.Time `json:"at"`
	Triggers []Trigger `json:"triggers,omitempty"`
	// Answer is the index of the answer in Answers, or -1 while pending.
	Answer int `json:"answer"`
	seq    int
}

// PrincipalAnswer is a principal's answer: sealed into the card as an
// amendment and recorded as a stated claim with speaker principal.
type PrincipalAnswer struct {
	// Index is the amendment's index in the card's amendments.
	Index     int           `json:"index"`
	Amendment CardAmendment `json:"amendment"`
	// Claim is the stated claim that records the answer (ref amendments[i]).
	Claim   Claim  `json:"claim"`
	Speaker string `json:"speaker"`
	Via     Via    `json:"via"`
	// Confirmed is true for an answer given on the principal's own page, and
	// for a relayed one after the principal confirmed it with a passkey.
	Confirmed bool `json:"confirmed"`
	// CardHash is the card's hash once the amendment is sealed.
	CardHash Hash `json:"cardHash"`
	seq      int
}

type offerRecord struct {
	hash      Hash
	terms     *Terms
	dependsOn []string
	ours      bool
}

// Mandate is one side's PXP state in one negotiation: the sealed card it
// acts under, the claims of both sides, the reviews it owes, its
// escalations and its principal's answers. It decides what its proxy may
// send (Outgoing) and records what was sent and received (Sent, Received).
// Like Thread it is pure and not safe for concurrent use.
//
// The caller's contract:
//
//  1. Received every effective envelope of the other side (Thread.Apply
//     said so), in thread order.
//  2. Before sending, AutoReviews for the reviews the card's rules decide,
//     then Outgoing with the payload; on an *EscalationError, escalate
//     (send an envelope with status escalate, or call Escalate) and wait.
//  3. After building the envelope, Sent records it (it checks again and
//     refuses what Outgoing would).
//  4. Answer records the principal's answer; ConfirmAnswer a relayed
//     answer's passkey confirmation.
type Mandate struct {
	card         *IntentCard
	self         Address
	counterparty Address

	seq     int
	claims  map[string]*ClaimRecord
	order   []string
	pending map[string]bool // the other side's claims we have not reviewed

	offers    map[Hash]*offerRecord
	lastOffer *offerRecord // the other side's offer we have not answered

	escalations []*EscalationRecord
	paused      *EscalationRecord
	answers     []*PrincipalAnswer
	cleared     map[string]int // trigger key -> answer index
	lastRefusal []Trigger

	theirCard   *Hash
	theirEscals []Escalation
}

// NewMandate returns the mandate of the side with address self, acting
// under card (parsed and sealed).
func NewMandate(card *IntentCard, self Address) (*Mandate, error) {
	if card == nil || card.raw == nil {
		return nil, reject(CodeSchemaInvalid, "card", "a mandate needs a parsed, sealed card")
	}
	if self == (Address{}) {
		return nil, reject(CodeBadAddress, "self", "a mandate acts for a party")
	}
	return &Mandate{
		card: card, self: self,
		claims: map[string]*ClaimRecord{}, pending: map[string]bool{},
		offers: map[Hash]*offerRecord{}, cleared: map[string]int{},
	}, nil
}

// Card returns the card in force (with every amendment so far).
func (m *Mandate) Card() *IntentCard { return m.card }

// CardHash returns the intentCardHash every envelope sent now must carry.
func (m *Mandate) CardHash() Hash { return m.card.Seal() }

// Self returns the address the mandate acts for.
func (m *Mandate) Self() Address { return m.self }

// Counterparty returns the other side's address once it has sent something.
func (m *Mandate) Counterparty() Address { return m.counterparty }

// Stamp sets p's intentCardHash to the card in force and its principal
// to the card's principal's display name: what other parties see of the
// card (PXP section 1).
func (m *Mandate) Stamp(p Payload) {
	pub := m.card.Public()
	p.Proxy().IntentCardHash = &pub.IntentCardHash
	p.Proxy().Principal = pub.Principal
}

// Paused returns the pending question, if the negotiation is paused.
func (m *Mandate) Paused() (Escalation, bool) {
	if m.paused == nil {
		return Escalation{}, false
	}
	return m.paused.Escalation, true
}

// Claims returns every claim record in the order first seen.
func (m *Mandate) Claims() []ClaimRecord {
	out := make([]ClaimRecord, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, *m.claims[id])
	}
	return out
}

// Claim returns the record of one claim.
func (m *Mandate) Claim(id string) (ClaimRecord, bool) {
	c, ok := m.claims[id]
	if !ok {
		return ClaimRecord{}, false
	}
	return *c, true
}

// Verified reports whether a claim is verified for this side: stated by our
// own principal, sourced, or an assumption a source was attached to or our
// principal confirmed (by a confirmed answer). A claim this side challenged
// or flagged as a conflict stays unverified.
func (m *Mandate) Verified(id string) bool {
	c, ok := m.claims[id]
	if !ok {
		return false
	}
	return m.verified(c)
}

func (m *Mandate) verified(c *ClaimRecord) bool {
	if !c.Ours && m.disputedEver(c) {
		return false
	}
	if c.confirm >= 0 {
		return m.answers[c.confirm].Confirmed
	}
	switch c.Origin {
	case OriginSourced:
		return true
	case OriginStated:
		return true
	}
	return false
}

func (m *Mandate) disputedEver(c *ClaimRecord) bool {
	for _, r := range c.Reviews {
		if r.Verdict != VerdictAccept {
			return true
		}
	}
	return false
}

// Pending returns the ids of the other side's claims still to review.
func (m *Mandate) Pending() []string {
	var out []string
	for _, id := range m.order {
		if m.pending[id] {
			out = append(out, id)
		}
	}
	return out
}

// Escalations returns every question put to the principal, in order.
func (m *Mandate) Escalations() []EscalationRecord {
	out := make([]EscalationRecord, len(m.escalations))
	for i, e := range m.escalations {
		out[i] = *e
	}
	return out
}

// Answers returns every answer of the principal, in order.
func (m *Mandate) Answers() []PrincipalAnswer {
	out := make([]PrincipalAnswer, len(m.answers))
	for i, a := range m.answers {
		out[i] = *a
	}
	return out
}

// TheirCardHash returns the last intentCardHash the other side sent.
func (m *Mandate) TheirCardHash() (Hash, bool) {
	if m.theirCard == nil {
		return Hash{}, false
	}
	return *m.theirCard, true
}

// TermsKey returns the local hash a mandate keys decisions on terms by:
// SHA-256 of the canonical JSON of t.
func TermsKey(t *Terms) Hash {
	if t == nil {
		return Hash{}
	}
	b, err := json.Marshal(t)
	if err != nil {
		return Hash{}
	}
	c, err := Canonicalize(b)
	if err != nil {
		return Hash{}
	}
	return sha256.Sum256(c)
}

func isOffer(p Payload) bool {
	switch p.(type) {
	case *TaskProposal, *TaskCounterOffer:
		return true
	}
	return false
}

func offerTerms(p Payload) *Terms {
	switch v := p.(type) {
	case *TaskProposal:
		return &v.Terms
	case *TaskCounterOffer:
		return &v.Terms
	}
	return nil
}

func normText(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func originRank(o Origin) int {
	switch o {
	case OriginAssumed:
		return 1
	case OriginSourced:
		return 2
	case OriginStated:
		return 3
	}
	return 0
}

// checkClaimTag refuses an untagged claim: no id or text, an unknown origin,
// a stated or sourced claim without ref. A stated claim's ref must name a
// clause of card (PXP section 3: stated means the principal said it).
func checkClaimTag(c Claim, card *IntentCard) *Error {
	if c.ID == "" || strings.TrimSpace(c.Text) == "" {
		return reject(CodeClaimUntagged, "/payload/claims", "a claim needs an id and text")
	}
	switch c.Origin {
	case OriginStated, OriginSourced:
		if c.Ref == "" {
			return reject(CodeClaimUntagged, "/payload/claims", "claim %q is %s and must cite ref", c.ID, c.Origin)
		}
	case OriginAssumed:
	default:
		return reject(CodeClaimUntagged, "/payload/claims", "claim %q has no origin (stated, sourced or assumed)", c.ID)
	}
	if c.Origin == OriginStated && card != nil {
		if _, ok := card.Resolve(c.Ref); !ok {
			return reject(CodeClaimUntagged, "/payload/claims", "claim %q is stated but %q names no clause of the principal's card", c.ID, c.Ref)
		}
	}
	return nil
}

// Received records an effective envelope of another party: its claims
// (never stated for us: their origin is theirs), its reviews of our claims,
// its offer and its escalation. Every new claim is owed a review before our
// next envelope.
//
// The thread decides which envelopes take effect, and Received follows it
// (docs/pxp.md, "The thread decides"): the claim rules every receiver can
// check (ownership, restatement, a source attached or the sender's
// principal stating its own claim) are the thread's, judged from the
// sender's own chain so that every interleaving gets the same verdict, and
// Received refuses none of what the thread took. Their claim upgraded to
// sourced or stated takes the new origin and ref; a claim of theirs that
// re-uses an id of ours they had not seen when they sent it (both sides
// chose it at once) stays ours here and theirs is left out of this
// mandate (the thread and the ledger keep it). Received refuses only what
// is not another party's envelope: nil, or one of our own.
func (m *Mandate) Received(e *Envelope) error {
	if e == nil || e.Payload == nil {
		return reject(CodeSchemaInvalid, "", "no envelope")
	}
	from := e.Sender.EVMAddress
	if from == m.self {
		return reject(CodeRoleForbidden, "/sender", "Received is for the other side's envelopes; record ours with Sent")
	}
	px := e.Payload.Proxy()
	if m.counterparty == (Address{}) {
		m.counterparty = from
	}
	if px.IntentCardHash != nil {
		h := *px.IntentCardHash
		m.theirCard = &h
	}
	m.seq++
	for _, c := range px.Claims {
		if old, ok := m.claims[c.ID]; ok {
			if old.Ours {
				continue
			}
			if originRank(c.Origin) > originRank(old.Origin) {
				old.Origin, old.Ref = c.Origin, c.Ref
				switch c.Origin {
				case OriginSourced:
					old.VerifiedBy = "source: " + c.Ref
				case OriginStated:
					old.VerifiedBy = "stated by their principal: " + c.Ref
				}
			}
			continue
		}
		m.claims[c.ID] = &ClaimRecord{Claim: c, By: from, Speaker: "proxy", seq: m.seq, confirm: -1}
		m.order = append(m.order, c.ID)
		m.pending[c.ID] = true
	}
	for _, r := range px.Reviews {
		if c, ok := m.claims[r.ClaimID]; ok && c.Ours {
			c.Reviews = append(c.Reviews, ReviewRecord{Review: r, seq: m.seq})
		}
	}
	if t := offerTerms(e.Payload); t != nil {
		o := &offerRecord{hash: e.Hash(), terms: t, dependsOn: px.DependsOn}
		m.offers[o.hash] = o
		m.lastOffer = o
	}
	if px.Status == StatusEscalate && px.Escalation != nil {
		m.theirEscals = append(m.theirEscals, *px.Escalation)
	}
	return nil
}

// checkRestatement allows one of our claim ids to be sent again only
// unchanged, with a source attached to an assumption (same text, sourced
// with ref), or upgraded by our own principal (stated, checked by the
// caller).
func checkRestatement(old *ClaimRecord, c Claim) *Error {
	if normText(old.Text) != normText(c.Text) {
		return reject(CodeClaimRestated, "/payload/claims", "claim %q already says %q", c.ID, old.Text)
	}
	if originRank(c.Origin) < originRank(old.Origin) {
		return reject(CodeClaimRestated, "/payload/claims", "claim %q was %s; it cannot become %s", c.ID, old.Origin, c.Origin)
	}
	return nil
}

// AutoReviews returns the reviews the card's rules decide for the claims
// still owed a review, with terms the terms at stake (those about to be
// proposed or accepted, else the other side's current offer; nil for none).
// A claim of the form "key = value" is accepted when a known fact with that
// key has that value and is a conflict when it has another; a claim about a
// term variable ("deadline = 2026-07-01T00:00:00Z") is a conflict when that
// value would cross a must_never rule or give up a must_haves rule reading
// it. Other claims are for the agent to review.
func (m *Mandate) AutoReviews(terms *Terms, now time.Time) []Review {
	if terms == nil && m.lastOffer != nil {
		terms = m.lastOffer.terms
	}
	var out []Review
	for _, id := range m.Pending() {
		if r, ok := m.autoReview(m.claims[id].Claim, terms, now); ok {
			out = append(out, r)
		}
	}
	return out
}

func (m *Mandate) autoReview(c Claim, terms *Terms, now time.Time) (Review, bool) {
	key, val, ok := KeyedClaim(c.Text)
	if !ok {
		return Review{}, false
	}
	if f, i, found := m.card.Fact(key); found {
		ref := ClauseRef(ClauseKnownFacts, i)
		if SameFactValue(f.Value, val) {
			return Review{ClaimID: c.ID, Verdict: VerdictAccept, Note: "matches " + ref}, true
		}
		return Review{ClaimID: c.ID, Verdict: VerdictConflict, Note: "contradicts " + ref + ": " + f.Text}, true
	}
	if terms == nil || !slices.Contains(ruleVars, key) || key == RuleVarNow {
		return Review{}, false
	}
	in := RuleInput{Terms: terms, Counterparty: m.counterparty, Now: now}
	act := in.activation()
	v, ok := claimedVar(key, val)
	if !ok {
		return Review{}, false
	}
	act[key] = v
	for i, cl := range m.card.MustNever {
		if r := cl.rule; r != nil && r.Reads(key) {
			if hit, err := r.evalActivation(act); err == nil && hit {
				return Review{ClaimID: c.ID, Verdict: VerdictConflict, Note: "crosses " + ClauseRef(ClauseMustNever, i) + ": " + cl.Text}, true
			}
		}
	}
	for i, cl := range m.card.MustHaves {
		if r := cl.rule; r != nil && r.Reads(key) {
			if held, err := r.evalActivation(act); err == nil && !held {
				return Review{ClaimID: c.ID, Verdict: VerdictConflict, Note: "gives up " + ClauseRef(ClauseMustHaves, i) + ": " + cl.Text}, true
			}
		}
	}
	return Review{}, false
}

// claimedVar parses the value a claim gives a rule variable.
func claimedVar(key, val string) (any, bool) {
	unq := val
	var s string
	if json.Unmarshal([]byte(val), &s) == nil {
		unq = s
	}
	switch key {
	case RuleVarTitle, RuleVarCategory, RuleVarCounterparty:
		return unq, true
	case RuleVarToken:
		a, err := ParseAddress(unq)
		if err != nil {
			return nil, false
		}
		return a.String(), true
	case RuleVarDeadline:
		if t, err := time.Parse(time.RFC3339Nano, unq); err == nil {
			return t.UTC(), true
		}
		if n, err := strconv.ParseInt(unq, 10, 64); err == nil && n >= 0 {
			return time.Unix(n, 0).UTC(), true
		}
	case RuleVarMilestoneCount:
		if n, err := strconv.ParseInt(unq, 10, 64); err == nil {
			return n, true
		}
	case RuleVarTotal:
		if amt, ok := strings.CutSuffix(strings.TrimSpace(unq), "ETH"); ok {
			if w, err := ParseEther(strings.TrimSpace(amt)); err == nil {
				return celU256{v: w}, true
			}
			return nil, false
		}
		if uintRE.MatchString(unq) {
			b, _ := new(big.Int).SetString(unq, 10)
			if b.Cmp(maxUint256) <= 0 {
				return celU256{v: b}, true
			}
		}
	}
	return nil, false
}

// outgoingClaims returns the claim set an outgoing payload is judged with:
// the records so far plus the payload's own new claims (as ours).
func (m *Mandate) outgoingView(px *PXP) map[string]*ClaimRecord {
	v := make(map[string]*ClaimRecord, len(m.claims)+len(px.Claims))
	for k, c := range m.claims {
		v[k] = c
	}
	for _, c := range px.Claims {
		if old, ok := v[c.ID]; ok {
			cp := *old
			cp.Claim = c
			v[c.ID] = &cp
			continue
		}
		v[c.ID] = &ClaimRecord{Claim: c, Ours: true, Speaker: "proxy", seq: m.seq + 1, confirm: -1}
	}
	return v
}

// Outgoing decides whether this side's proxy may send payload p now. terms
// are those p proposes (nil: taken from p) or, for an acceptance, those of
// the accepted offer (nil: the offer as Received or Sent). It checks, in
// order: the pause, the card hash, status against the message type, every
// claim's tag and restatement, every review (and that each claim of the
// other side has one), the agreement rules, and PXP's four escalation
// triggers. It changes nothing but the triggers it remembers for the
// escalation that follows a refusal.
func (m *Mandate) Outgoing(p Payload, terms *Terms, now time.Time) error {
	if err := m.check(p, terms, now); err != nil {
		var ee *EscalationError
		if errors.As(err, &ee) {
			m.lastRefusal = ee.Triggers
		}
		return err
	}
	return nil
}

func (m *Mandate) check(p Payload, terms *Terms, now time.Time) error {
	if p == nil {
		return reject(CodeSchemaInvalid, "/payload", "no payload")
	}
	px := p.Proxy()
	acc, isAcc := p.(*TaskAcceptance)
	binding := isAcc || isOffer(p)
	if m.paused != nil {
		if px.Status != StatusEscalate {
			return reject(CodePaused, "/payload/status", "waiting for the principal's answer to %q", m.paused.Question)
		}
		if px.Escalation == nil || px.Escalation.Question != m.paused.Question {
			return reject(CodePaused, "/payload/escalation", "one question at a time: %q is pending", m.paused.Question)
		}
	}
	if px.IntentCardHash == nil || *px.IntentCardHash != m.card.Seal() {
		return reject(CodeCardMismatch, "/payload/intentCardHash", "every envelope carries the sealed card's hash %s", m.card.Seal())
	}
	if px.Principal != "" && px.Principal != m.card.Principal.Name {
		return reject(CodeCardMismatch, "/payload/principal", "the principal is the sealed card's, %q", m.card.Principal.Name)
	}
	switch px.Status {
	case "", StatusContinue, StatusAgree, StatusEscalate:
	default:
		return reject(CodeSchemaInvalid, "/payload/status", "unknown status %q", px.Status)
	}
	if px.Status == StatusEscalate {
		if px.Escalation == nil || strings.TrimSpace(px.Escalation.Question) == "" {
			return reject(CodeSchemaInvalid, "/payload/escalation", "status escalate carries one concrete question")
		}
		if binding {
			return reject(CodeStateForbidden, "/payload/status", "an escalation pauses: it makes and accepts no offer")
		}
	}
	if px.Status == StatusAgree && !isAcc {
		if isOffer(p) {
			return reject(CodeAgreeWithCounter, "/payload/status", "agree accepts one offer and carries no counter")
		}
		return reject(CodeBadReference, "/payload/status", "agree accepts an offer: only a TaskAcceptance carries it")
	}

	// Claims.
	seen := map[string]bool{}
	for _, c := range px.Claims {
		if err := checkClaimTag(c, m.card); err != nil {
			return err
		}
		if seen[c.ID] {
			return reject(CodeClaimRestated, "/payload/claims", "claim %q twice", c.ID)
		}
		seen[c.ID] = true
		if old, ok := m.claims[c.ID]; ok {
			if !old.Ours {
				return reject(CodeClaimRestated, "/payload/claims", "claim id %q is the other side's; cite it in dependsOn or review it", c.ID)
			}
			if err := checkRestatement(old, c); err != nil {
				return err
			}
		}
		if c.Origin == OriginStated {
			if err := m.checkNotCopied(c); err != nil {
				return err
			}
		}
	}

	// Reviews.
	stakes := terms
	if stakes == nil {
		stakes = offerTerms(p)
	}
	if stakes == nil && m.lastOffer != nil {
		stakes = m.lastOffer.terms
	}
	reviewed := map[string]Verdict{}
	for _, r := range px.Reviews {
		c, ok := m.claims[r.ClaimID]
		if !ok || c.Ours {
			return reject(CodeReviewMismatch, "/payload/reviews", "%q names no claim of the other side", r.ClaimID)
		}
		switch r.Verdict {
		case VerdictAccept, VerdictChallenge, VerdictConflict:
		default:
			return reject(CodeReviewMismatch, "/payload/reviews", "unknown verdict %q", r.Verdict)
		}
		if _, dup := reviewed[r.ClaimID]; dup {
			return reject(CodeReviewMismatch, "/payload/reviews", "claim %q reviewed twice", r.ClaimID)
		}
		if auto, ok := m.autoReview(c.Claim, stakes, now); ok && auto.Verdict != r.Verdict {
			return reject(CodeReviewMismatch, "/payload/reviews", "claim %q: the card decides %s (%s)", r.ClaimID, auto.Verdict, auto.Note)
		}
		reviewed[r.ClaimID] = r.Verdict
	}
	var missing []string
	for _, id := range m.Pending() {
		if _, ok := reviewed[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return reject(CodeReviewMissing, "/payload/reviews", "review %s before sending", strings.Join(missing, ", "))
	}

	view := m.outgoingView(px)
	for _, id := range px.DependsOn {
		if _, ok := view[id]; !ok {
			return reject(CodeBadReference, "/payload/dependsOn", "%q names no claim", id)
		}
	}

	// Agreement.
	deps := slices.Clone(px.DependsOn)
	if isAcc {
		for _, r := range px.Reviews {
			if r.Verdict == VerdictConflict {
				return reject(CodeAgreeWithConflict, "/payload/reviews", "an agreement carries no conflict review (claim %q)", r.ClaimID)
			}
		}
		o := m.offers[acc.AcceptedOfferHash]
		if terms == nil {
			if o == nil {
				return reject(CodeBadReference, "/payload/acceptedOfferHash", "unknown offer: record it with Received or Sent, or pass its terms")
			}
			terms = o.terms
		}
		if o != nil {
			for _, id := range o.dependsOn {
				if !slices.Contains(deps, id) {
					deps = append(deps, id)
				}
			}
		}
		if err := m.checkDisputes(deps, reviewed); err != nil {
			return err
		}
	} else if terms == nil {
		terms = offerTerms(p)
	}
	if px.Status == StatusEscalate {
		return nil
	}

	// Escalation triggers.
	var fired []Trigger
	if binding && terms != nil {
		fired = append(fired, m.authorityTriggers(terms, now)...)
	}
	fired = append(fired, m.escalateWhen(terms, now)...)
	if m.lastOffer != nil && (terms == nil || TermsKey(terms) != TermsKey(m.lastOffer.terms)) {
		fired = append(fired, m.escalateWhen(m.lastOffer.terms, now)...)
	}
	if isAcc {
		fired = append(fired, m.openConflicts()...)
	}
	if binding {
		fired = append(fired, m.assumptions(deps, view)...)
	}
	var open, unconfirmed []Trigger
	for _, t := range fired {
		i, ok := m.cleared[t.key()]
		switch {
		case !ok:
			open = append(open, t)
		case binding && !m.answers[i].Confirmed:
			unconfirmed = append(unconfirmed, t)
		}
	}
	if len(open) > 0 {
		return &EscalationError{Code: CodeEscalationRequired, Question: question(open), Triggers: open}
	}
	if len(unconfirmed) > 0 {
		return reject(CodeAnswerUnconfirmed, "/payload", "this rests on a relayed answer the principal has not confirmed (%s)", unconfirmed[0].Detail)
	}
	return nil
}

// checkNotCopied refuses a stated claim whose text repeats a claim of the
// other side, unless the clause it cites says the same: restating never
// makes the other side's claim stated for us.
func (m *Mandate) checkNotCopied(c Claim) *Error {
	n := normText(c.Text)
	for _, id := range m.order {
		o := m.claims[id]
		if o.Ours || normText(o.Text) != n {
			continue
		}
		txt, _ := m.card.Resolve(c.Ref)
		if list, i, _ := ParseClauseRef(c.Ref); list == ClauseAmendments && i < len(m.card.Amendments) {
			txt = m.card.Amendments[i].Answer
		}
		if normText(txt) == n {
			return nil
		}
		return reject(CodeClaimRestated, "/payload/claims", "claim %q restates the other side's claim %q; it is not stated for us", c.ID, id)
	}
	return nil
}

// clearedAfter reports whether an answer of the principal came after event
// seq, and whether one such answer is confirmed.
func (m *Mandate) clearedAfter(seq int) (cleared, confirmed bool) {
	for _, a := range m.answers {
		if a.seq > seq {
			cleared = true
			confirmed = confirmed || a.Confirmed
		}
	}
	return
}

// lastDispute returns the seq of this side's last challenge or conflict of
// claim c (including one in the outgoing payload: seq after everything).
func (m *Mandate) lastDispute(c *ClaimRecord, outgoing map[string]Verdict) (int, Verdict, bool) {
	if v, ok := outgoing[c.ID]; ok && v != VerdictAccept {
		return m.seq + 1, v, true
	}
	for i := len(c.Reviews) - 1; i >= 0; i-- {
		if r := c.Reviews[i]; r.Verdict != VerdictAccept {
			return r.seq, r.Verdict, true
		}
	}
	return 0, "", false
}

// checkDisputes refuses accepting an offer whose dependsOn names a claim
// this side challenged or flagged as a conflict, until an answer of the
// principal given after the dispute clears it (PXP section 7).
func (m *Mandate) checkDisputes(deps []string, outgoing map[string]Verdict) error {
	var open []Trigger
	unconfirmed := ""
	for _, id := range deps {
		c, ok := m.claims[id]
		if !ok || c.Ours {
			continue
		}
		seq, v, ok := m.lastDispute(c, outgoing)
		if !ok {
			continue
		}
		cleared, confirmed := m.clearedAfter(seq)
		switch {
		case !cleared:
			open = append(open, Trigger{Kind: TriggerDispute, ClaimID: id, Detail: fmt.Sprintf("the offer rests on claim %q (%q), which this side reviewed as %s", id, c.Text, v)})
		case !confirmed:
			unconfirmed = id
		}
	}
	if len(open) > 0 {
		return &EscalationError{Code: CodeDependsOnDisputed, Question: question(open), Triggers: open}
	}
	if unconfirmed != "" {
		return reject(CodeAnswerUnconfirmed, "/payload", "the dispute of claim %q was cleared by a relayed answer the principal has not confirmed", unconfirmed)
	}
	return nil
}

// authorityTriggers evaluates the card's rules on terms this side would
// agree to (by offering or accepting them): a must_never rule that holds,
// a may_agree_to or must_haves rule that does not. A rule that cannot be
// evaluated fails closed.
func (m *Mandate) authorityTriggers(terms *Terms, now time.Time) []Trigger {
	in := RuleInput{Terms: terms, Counterparty: m.counterparty, Now: now}
	key := TermsKey(terms)
	var out []Trigger
	add := func(kind TriggerKind, list string, i int, cl Clause, what string, err error) {
		d := fmt.Sprintf("the terms %s %s (%q)", what, ClauseRef(list, i), cl.Text)
		if err != nil {
			d = fmt.Sprintf("%s could not be checked (%v)", ClauseRef(list, i), err)
		}
		out = append(out, Trigger{Kind: kind, Clause: ClauseRef(list, i), Terms: key, Detail: d})
	}
	for i, cl := range m.card.MustNever {
		if cl.rule == nil {
			continue
		}
		if hit, err := cl.rule.Eval(in); err != nil || hit {
			add(TriggerMustNever, ClauseMustNever, i, cl, "cross", err)
		}
	}
	for i, cl := range m.card.MayAgreeTo {
		if cl.rule == nil {
			continue
		}
		if ok, err := cl.rule.Eval(in); err != nil || !ok {
			add(TriggerMayAgreeTo, ClauseMayAgreeTo, i, cl, "leave", err)
		}
	}
	for i, cl := range m.card.MustHaves {
		if cl.rule == nil {
			continue
		}
		if ok, err := cl.rule.Eval(in); err != nil || !ok {
			add(TriggerMustHave, ClauseMustHaves, i, cl, "give up", err)
		}
	}
	return out
}

func (m *Mandate) escalateWhen(terms *Terms, now time.Time) []Trigger {
	if terms == nil {
		return nil
	}
	in := RuleInput{Terms: terms, Counterparty: m.counterparty, Now: now}
	var out []Trigger
	for i, cl := range m.card.EscalateWhen {
		if cl.rule == nil {
			continue
		}
		hit, err := cl.rule.Eval(in)
		if err != nil || hit {
			d := fmt.Sprintf("%s matches (%q)", ClauseRef(ClauseEscalateWhen, i), cl.Text)
			if err != nil {
				d = fmt.Sprintf("%s could not be checked (%v)", ClauseRef(ClauseEscalateWhen, i), err)
			}
			out = append(out, Trigger{Kind: TriggerEscalateWhen, Clause: ClauseRef(ClauseEscalateWhen, i), Terms: TermsKey(terms), Detail: d})
		}
	}
	return out
}

// openConflicts returns this side's conflict reviews no answer of the
// principal has followed: a conflict cannot be resolved within authority.
func (m *Mandate) openConflicts() []Trigger {
	var out []Trigger
	for _, id := range m.order {
		c := m.claims[id]
		if c.Ours {
			continue
		}
		for _, r := range c.Reviews {
			if r.Verdict != VerdictConflict {
				continue
			}
			if cleared, _ := m.clearedAfter(r.seq); !cleared {
				out = append(out, Trigger{Kind: TriggerConflict, ClaimID: id, Detail: fmt.Sprintf("claim %q (%q) conflicts with the card", id, c.Text)})
				break
			}
		}
	}
	return out
}

// Touches returns the must_haves a claim touches: the clause its ref names,
// or, for a claim "key = value", every must_haves rule that reads key.
func (m *Mandate) Touches(c Claim) []string {
	var out []string
	if list, i, ok := ParseClauseRef(c.Ref); ok && list == ClauseMustHaves && i < len(m.card.MustHaves) {
		out = append(out, c.Ref)
	}
	if key, _, ok := KeyedClaim(c.Text); ok {
		for i, cl := range m.card.MustHaves {
			if ref := ClauseRef(ClauseMustHaves, i); cl.rule != nil && cl.rule.Reads(key) && !slices.Contains(out, ref) {
				out = append(out, ref)
			}
		}
	}
	return out
}

// assumptions returns the claims the agreement depends on that are assumed,
// unverified and touch a must_have.
func (m *Mandate) assumptions(deps []string, view map[string]*ClaimRecord) []Trigger {
	var out []Trigger
	for _, id := range deps {
		c, ok := view[id]
		if !ok || c.Origin != OriginAssumed || m.verified(c) {
			continue
		}
		if t := m.Touches(c.Claim); len(t) > 0 {
			out = append(out, Trigger{Kind: TriggerAssumption, ClaimID: id, Clause: t[0],
				Detail: fmt.Sprintf("the agreement depends on the assumption %q (%q), which touches %s", id, c.Text, strings.Join(t, ", "))})
		}
	}
	return out
}

// question renders one concrete question from the triggers.
func question(ts []Trigger) string {
	q := "May I go on although " + ts[0].Detail + "?"
	if ts[0].Kind == TriggerDispute {
		q = "May I accept although " + ts[0].Detail + "?"
	}
	if len(ts) > 1 {
		q += fmt.Sprintf(" (%d more reasons are listed with this question.)", len(ts)-1)
	}
	return q
}

// Sent records an envelope this side sent. It checks it as Outgoing does
// (with the envelope's timestamp as now) and refuses, changing nothing,
// what Outgoing would refuse. An envelope with status escalate pauses the
// negotiation on its question.
func (m *Mandate) Sent(e *Envelope) error {
	if e == nil || e.Payload == nil {
		return reject(CodeSchemaInvalid, "", "no envelope")
	}
	if e.Sender.EVMAddress != m.self {
		return reject(CodeRoleForbidden, "/sender", "Sent is for this side's envelopes")
	}
	if err := m.Outgoing(e.Payload, nil, e.Timestamp); err != nil {
		return err
	}
	px := e.Payload.Proxy()
	m.seq++
	for _, c := range px.Claims {
		if old, ok := m.claims[c.ID]; ok {
			if originRank(c.Origin) > originRank(old.Origin) {
				old.Origin, old.Ref = c.Origin, c.Ref
				if c.Origin == OriginSourced {
					old.VerifiedBy = "source: " + c.Ref
				}
			}
			old.By = m.self
			continue
		}
		m.claims[c.ID] = &ClaimRecord{Claim: c, Ours: true, By: m.self, Speaker: "proxy", seq: m.seq, confirm: -1}
		m.order = append(m.order, c.ID)
	}
	for _, r := range px.Reviews {
		c := m.claims[r.ClaimID]
		auto, isAuto := m.autoReview(c.Claim, m.stakes(e.Payload), e.Timestamp)
		c.Reviews = append(c.Reviews, ReviewRecord{Review: r, Auto: isAuto && auto.Verdict == r.Verdict, seq: m.seq})
		delete(m.pending, r.ClaimID)
	}
	if t := offerTerms(e.Payload); t != nil {
		m.offers[e.Hash()] = &offerRecord{hash: e.Hash(), terms: t, dependsOn: px.DependsOn, ours: true}
	}
	m.lastOffer = nil
	if px.Status == StatusEscalate && m.paused == nil {
		m.pause(*px.Escalation, e.Timestamp)
	}
	m.lastRefusal = nil
	return nil
}

func (m *Mandate) stakes(p Payload) *Terms {
	if t := offerTerms(p); t != nil {
		return t
	}
	if m.lastOffer != nil {
		return m.lastOffer.terms
	}
	return nil
}

func (m *Mandate) pause(q Escalation, at time.Time) {
	m.seq++
	r := &EscalationRecord{Escalation: q, At: at.UTC(), Triggers: m.lastRefusal, Answer: -1, seq: m.seq}
	m.escalations = append(m.escalations, r)
	m.paused = r
	m.lastRefusal = nil
}

// Escalate pauses the negotiation on question without sending anything:
// for a side that has no envelope to carry status escalate (a poster before
// funding can send only offers, acceptances and cancels). The triggers of
// the last refusal are attached, so the answer clears them.
func (m *Mandate) Escalate(question, reason string, at time.Time) error {
	if m.paused != nil {
		return reject(CodePaused, "", "%q is pending", m.paused.Question)
	}
	if strings.TrimSpace(question) == "" {
		return reject(CodeSchemaInvalid, "question", "one concrete question")
	}
	m.pause(Escalation{Question: question, Reason: reason}, at)
	return nil
}

// Answer records the principal's answer to the pending question: it is
// sealed into the card as an amendment (the card's hash changes), recorded
// as a stated claim with speaker principal and ref amendments[i], clears
// the triggers of the escalation and of every dispute raised before it, and
// resumes the negotiation. An answer relayed by an agent (via api or mcp)
// is unconfirmed until ConfirmAnswer: binding acts that rest on it are refused
// with CodeAnswerUnconfirmed until then.
func (m *Mandate) Answer(question, answer string, via Via, at time.Time) (PrincipalAnswer, error) {
	if m.paused == nil {
		return PrincipalAnswer{}, reject(CodeStateForbidden, "question", "no question is pending")
	}
	if question != m.paused.Question {
		return PrincipalAnswer{}, reject(CodeStateForbidden, "question", "the pending question is %q", m.paused.Question)
	}
	a, err := m.seal(question, answer, via, at)
	if err != nil {
		return PrincipalAnswer{}, err
	}
	for _, t := range m.paused.Triggers {
		m.cleared[t.key()] = len(m.answers) - 1
	}
	m.paused.Answer = len(m.answers) - 1
	m.paused = nil
	return a, nil
}

func (m *Mandate) seal(question, answer string, via Via, at time.Time) (PrincipalAnswer, error) {
	if !via.Valid() {
		return PrincipalAnswer{}, reject(CodeSchemaInvalid, "via", "want web, api or mcp, got %q", via)
	}
	if strings.TrimSpace(answer) == "" {
		return PrincipalAnswer{}, reject(CodeSchemaInvalid, "answer", "an answer needs text")
	}
	amend := CardAmendment{Question: question, Answer: answer, At: FormatTime(at), Via: via}
	card, err := m.card.WithAmendment(amend)
	if err != nil {
		return PrincipalAnswer{}, err
	}
	i := len(card.Amendments) - 1
	id := "amendment-" + strconv.Itoa(i)
	for n := 2; m.claims[id] != nil; n++ {
		id = fmt.Sprintf("amendment-%d-%d", i, n)
	}
	m.seq++
	pa := &PrincipalAnswer{
		Index: i, Amendment: amend, Speaker: SpeakerPrincipal, Via: via, Confirmed: via == ViaWeb,
		Claim:    Claim{ID: id, Text: answer, Origin: OriginStated, Ref: ClauseRef(ClauseAmendments, i)},
		CardHash: card.Seal(), seq: m.seq,
	}
	m.card = card
	m.answers = append(m.answers, pa)
	m.claims[id] = &ClaimRecord{Claim: pa.Claim, Ours: true, Speaker: SpeakerPrincipal, Via: via, seq: m.seq, confirm: -1}
	m.order = append(m.order, id)
	return *pa, nil
}

// ConfirmAnswer marks answer i (its index in Answers) confirmed: the
// principal confirmed a relayed answer with a passkey. The card does not
// change; the brief shows the confirmation.
func (m *Mandate) ConfirmAnswer(i int) error {
	if i < 0 || i >= len(m.answers) {
		return reject(CodeBadReference, "answer", "no answer %d", i)
	}
	m.answers[i].Confirmed = true
	m.claims[m.answers[i].Claim.ID].VerifiedBy = "confirmed"
	return nil
}

// ConfirmClaim records the principal confirming an assumed claim (either
// side's): an amendment "Is it true that ...?" "Yes." is sealed and the
// claim is verified by it (once confirmed, for a relayed answer).
func (m *Mandate) ConfirmClaim(id string, via Via, at time.Time) (PrincipalAnswer, error) {
	c, ok := m.claims[id]
	if !ok {
		return PrincipalAnswer{}, reject(CodeBadReference, "claim", "no claim %q", id)
	}
	if c.Origin != OriginAssumed {
		return PrincipalAnswer{}, reject(CodeStateForbidden, "claim", "claim %q is %s, not an assumption", id, c.Origin)
	}
	a, err := m.seal("Is it true that "+c.Text+"?", "Yes.", via, at)
	if err != nil {
		return PrincipalAnswer{}, err
	}
	c.confirm = len(m.answers) - 1
	c.VerifiedBy = a.Claim.Ref
	return a, nil
}
