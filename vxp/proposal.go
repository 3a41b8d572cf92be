package vxp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/strictjson"
)

// Limits are the seed's limits of an operation's proposals (vxp.json
// limits). MaxRevisions counts revisions, revision 1 included, not
// counters: with 3, an agent may counter twice. MaxAcceptAttempts counts
// acceptances, the refused ones and the one that succeeds.
type Limits struct {
	MaxRevisions       int `json:"max_revisions"`
	ProposalTTLSeconds int `json:"proposal_ttl_seconds"`
	MaxAcceptAttempts  int `json:"max_accept_attempts"`
}

// DefaultLimits returns the seed's limits: 3 revisions, 900 seconds, 3
// accept attempts.
func DefaultLimits() Limits {
	return Limits{MaxRevisions: 3, ProposalTTLSeconds: 900, MaxAcceptAttempts: 3}
}

// Validate returns a bad_limits *Error naming the first limit below 1.
func (l Limits) Validate() error {
	switch {
	case l.MaxRevisions < 1:
		return coded(CodeBadLimits, "max_revisions", "%d is below 1", l.MaxRevisions)
	case l.ProposalTTLSeconds < 1:
		return coded(CodeBadLimits, "proposal_ttl_seconds", "%d is below 1", l.ProposalTTLSeconds)
	case l.MaxAcceptAttempts < 1:
		return coded(CodeBadLimits, "max_accept_attempts", "%d is below 1", l.MaxAcceptAttempts)
	}
	return nil
}

// SaltBytes is the size of a revision's vxp_salt: 128 bits, written as
// unpadded base64url (22 characters), as the seed's example is.
const SaltBytes = 16

// Commitment modes (vxp.json's commitment_modes).
const (
	CommitmentFirm        = "firm"
	CommitmentConditional = "conditional"
)

// Commitment is a revision's commitment: its mode and what a conditional
// commitment requires (the names of its conditions; empty when firm).
type Commitment struct {
	Mode     string   `json:"mode"`
	Requires []string `json:"requires"`
}

// Draft is what the node proposes in a revision, before the salt: a
// summary for people, the terms (a JSON object without vxp_salt), the
// commitment and whether the act needs the principal's approval.
type Draft struct {
	Summary              string
	Terms                []byte
	Commitment           Commitment
	UserApprovalRequired bool
}

// ProposalState is a revision's state.
type ProposalState string

// A revision is proposed until a newer one supersedes it, it is accepted,
// or its expires_at passes.
const (
	ProposalProposed   ProposalState = "proposed"
	ProposalSuperseded ProposalState = "superseded"
	ProposalAccepted   ProposalState = "accepted"
	ProposalExpired    ProposalState = "expired"
)

// Revision is one revision of an operation's proposal.
// It marshals (with Proposals) for the node's store, not for the wire:
// View and ProofProposals are the wire's shapes.
type Revision struct {
	ID                   string          `json:"id"`
	Number               int             `json:"revision"`
	Summary              string          `json:"summary"`
	Terms                json.RawMessage `json:"-"`          // JCS bytes, vxp_salt included (stored as a string: MarshalJSON)
	TermsHash            string          `json:"terms_hash"` // lowercase hex SHA-256 of Terms, no 0x
	Salt                 string          `json:"vxp_salt"`
	Commitment           Commitment      `json:"commitment"`
	CreatedAt            time.Time       `json:"created_at"`
	ExpiresAt            time.Time       `json:"expires_at"`
	UserApprovalRequired bool            `json:"user_approval_required"`
	// Superseded is set on every revision but the newest, and on the
	// newest when Supersede left it without a successor.
	Superseded bool `json:"superseded"`
}

// revisionJSON is Revision's stored shape: the terms as a JSON string of
// their JCS text, so that encoding/json's HTML escaping (which rewrites
// <, > and & inside raw JSON) cannot change the bytes that were hashed.
type revisionJSON struct {
	revisionFields
	TermsJCS string `json:"terms_jcs"`
}

type revisionFields Revision

// MarshalJSON stores r with its terms as a string of their JCS bytes.
func (r Revision) MarshalJSON() ([]byte, error) {
	return json.Marshal(revisionJSON{revisionFields: revisionFields(r), TermsJCS: string(r.Terms)})
}

// UnmarshalJSON restores what MarshalJSON stored.
func (r *Revision) UnmarshalJSON(b []byte) error {
	var v revisionJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Revision(v.revisionFields)
	r.Terms = json.RawMessage(v.TermsJCS)
	return nil
}

// ApprovedBy's values and classes. An agent's body can say only "user",
// which is recorded as agent_asserted: the agent states the person
// approved. No class of approved_by approves a gated act; only the
// principal's passkey does, recorded apart (the proof's approvals).
const (
	ApprovedByUser = "user"

	ApprovedByClassAgentAsserted = "agent_asserted"
	ApprovedByClassNone          = "none"
)

// Acceptance is the accepted revision, as the node stores it.
type Acceptance struct {
	ProposalID      string    `json:"proposal_id"`
	Revision        int       `json:"revision"`
	ApprovedBy      string    `json:"approved_by,omitempty"`
	ApprovedByClass string    `json:"approved_by_class"`
	At              time.Time `json:"at"`
	// NeedsHuman is the revision's user_approval_required: whatever
	// approved_by says, a gated act waits for the passkey.
	NeedsHuman bool `json:"needs_human"`
}

// ProofAcceptance is the proof payload's acceptance.
type ProofAcceptance struct {
	ProposalID      string `json:"proposal_id"`
	Revision        int    `json:"revision"`
	ApprovedBy      string `json:"approved_by,omitempty"`
	ApprovedByClass string `json:"approved_by_class"`
}

// Proof returns a as the proof payload records it.
func (a Acceptance) Proof() ProofAcceptance {
	return ProofAcceptance{ProposalID: a.ProposalID, Revision: a.Revision, ApprovedBy: a.ApprovedBy, ApprovedByClass: a.ApprovedByClass}
}

// RefusedAcceptance is an acceptance refused with a counted code, as the
// proof records it.
type RefusedAcceptance struct {
	ProposalID string `json:"proposal_id"`
	Code       Code   `json:"code"`
}

// Proposals are the revisions of one operation's proposal, with its
// limits, its acceptance and its refused acceptances. It is a value the
// node keeps under the request's lock; every method takes the time, and
// the random source where a salt is drawn.
//
// It marshals for the node's store (time in RFC 3339, the acceptance with
// its time and NeedsHuman); a restored value decides as the stored one
// did.
type Proposals struct {
	OperationID string              `json:"operation_id"`
	Limits      Limits              `json:"limits"`
	Revisions   []*Revision         `json:"revisions"`
	Accepted    *Acceptance         `json:"accepted,omitempty"`
	Refused     []RefusedAcceptance `json:"refused,omitempty"`
}

// ProposalID returns the id of an operation's revision n, as the seed
// writes it: prop_<operation id>_r<n>.
func ProposalID(operationID string, n int) string {
	return "prop_" + operationID + "_r" + strconv.Itoa(n)
}

// NewProposals returns an operation's proposals with revision 1 made from
// d at time at, its salt drawn from rand.
func NewProposals(operationID string, limits Limits, d Draft, at time.Time, rand io.Reader) (*Proposals, error) {
	if operationID == "" {
		return nil, coded(CodeBadArgument, "operation_id", "empty")
	}
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	p := &Proposals{OperationID: operationID, Limits: limits}
	if _, err := p.add(d, at, rand); err != nil {
		return nil, err
	}
	return p, nil
}

// Current returns the newest revision, or nil when it was superseded
// without a successor (Supersede).
func (p *Proposals) Current() *Revision {
	if len(p.Revisions) == 0 {
		return nil
	}
	r := p.Revisions[len(p.Revisions)-1]
	if r.Superseded {
		return nil
	}
	return r
}

// Find returns the revision with id, or nil.
func (p *Proposals) Find(id string) *Revision {
	for _, r := range p.Revisions {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Counter makes the next revision from d as the agent's counter to the
// revision id: revision_limit when max_revisions revisions exist,
// already_accepted once one is accepted, proposal_not_found, terms_changed
// for a counter to a superseded revision, proposal_expired after the
// revision's expires_at. A refused counter changes nothing and counts no
// attempt.
func (p *Proposals) Counter(id string, d Draft, at time.Time, rand io.Reader) (*Revision, error) {
	r := p.Find(id)
	switch {
	case r == nil:
		return nil, coded(CodeProposalNotFound, "proposal_id", "%q is no revision of %s", id, p.OperationID)
	case p.Accepted != nil:
		return nil, coded(CodeAlreadyAccepted, "proposal_id", "revision %d is accepted", p.Accepted.Revision)
	case r != p.Current():
		return nil, coded(CodeTermsChanged, "proposal_id", "revision %d is superseded", r.Number)
	case at.After(r.ExpiresAt):
		return nil, coded(CodeProposalExpired, "proposal_id", "revision %d expired at %s", r.Number, r.ExpiresAt.Format(time.RFC3339Nano))
	}
	return p.add(d, at, rand)
}

// Revise makes the next revision from d because the negotiation moved
// under the current one (the counterparty countered): the current
// revision is superseded, and accepting it is terms_changed. The same
// limits hold as for Counter.
func (p *Proposals) Revise(d Draft, at time.Time, rand io.Reader) (*Revision, error) {
	if p.Accepted != nil {
		return nil, coded(CodeAlreadyAccepted, "proposal_id", "revision %d is accepted", p.Accepted.Revision)
	}
	return p.add(d, at, rand)
}

// Supersede marks the current revision superseded without a successor
// (the negotiation moved and no revision can follow): accepting it is
// terms_changed. It is already_accepted once a revision is accepted.
func (p *Proposals) Supersede() error {
	if p.Accepted != nil {
		return coded(CodeAlreadyAccepted, "proposal_id", "revision %d is accepted", p.Accepted.Revision)
	}
	if len(p.Revisions) == 0 {
		return coded(CodeBadArgument, "revisions", "no revision to supersede")
	}
	p.Revisions[len(p.Revisions)-1].Superseded = true
	return nil
}

// add appends the next revision made from d.
func (p *Proposals) add(d Draft, at time.Time, rand io.Reader) (*Revision, error) {
	if at.IsZero() {
		return nil, coded(CodeBadArgument, "at", "no time given")
	}
	n := len(p.Revisions) + 1
	if n > p.Limits.MaxRevisions {
		return nil, coded(CodeRevisionLimit, "proposal_id", "max_revisions is %d", p.Limits.MaxRevisions)
	}
	if err := d.Commitment.validate(); err != nil {
		return nil, err
	}
	salt, err := drawSalt(rand)
	if err != nil {
		return nil, err
	}
	for _, r := range p.Revisions {
		if r.Salt == salt {
			return nil, coded(CodeSaltReused, "vxp_salt", "revision %d has the same salt: the random source repeats", r.Number)
		}
	}
	terms, hash, err := SaltTerms(d.Terms, salt)
	if err != nil {
		return nil, err
	}
	if len(p.Revisions) > 0 {
		p.Revisions[len(p.Revisions)-1].Superseded = true
	}
	at = at.UTC()
	r := &Revision{
		ID: ProposalID(p.OperationID, n), Number: n, Summary: d.Summary,
		Terms: terms, TermsHash: hash, Salt: salt, Commitment: d.Commitment,
		CreatedAt: at, ExpiresAt: at.Add(time.Duration(p.Limits.ProposalTTLSeconds) * time.Second),
		UserApprovalRequired: d.UserApprovalRequired,
	}
	if r.Commitment.Requires == nil {
		r.Commitment.Requires = []string{}
	}
	p.Revisions = append(p.Revisions, r)
	return r, nil
}

func (c Commitment) validate() error {
	switch c.Mode {
	case CommitmentFirm:
		if len(c.Requires) > 0 {
			return coded(CodeBadCommitment, "commitment/requires", "a firm commitment requires nothing")
		}
	case CommitmentConditional:
	default:
		return coded(CodeBadCommitment, "commitment/mode", "%q is not firm or conditional", c.Mode)
	}
	return nil
}

// drawSalt reads SaltBytes from rand and returns them as unpadded
// base64url.
func drawSalt(rand io.Reader) (string, error) {
	if rand == nil {
		return "", coded(CodeBadArgument, "rand", "no random source")
	}
	b := make([]byte, SaltBytes)
	if _, err := io.ReadFull(rand, b); err != nil {
		return "", &Error{Code: CodeBadArgument, Field: "rand", Msg: "the random source failed", Err: err}
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// SaltTerms returns JCS(terms with vxp_salt = salt) and its terms_hash,
// the lowercase hex SHA-256 of those bytes. terms must be one strict JSON
// object without a vxp_salt member (bad_terms).
func SaltTerms(terms []byte, salt string) (json.RawMessage, string, error) {
	if err := strictjson.Check(terms); err != nil {
		return nil, "", &Error{Code: CodeBadTerms, Field: "terms", Msg: "not strict JSON", Err: err}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(terms, &m); err != nil || m == nil {
		return nil, "", coded(CodeBadTerms, "terms", "not a JSON object")
	}
	if _, ok := m["vxp_salt"]; ok {
		return nil, "", coded(CodeBadTerms, "terms/vxp_salt", "the salt is the node's to draw")
	}
	s, _ := json.Marshal(salt)
	m["vxp_salt"] = s
	b, err := json.Marshal(m)
	if err != nil {
		return nil, "", &Error{Code: CodeBadTerms, Field: "terms", Msg: err.Error(), Err: err}
	}
	out, err := negotiation.Canonicalize(b)
	if err != nil {
		return nil, "", &Error{Code: CodeBadTerms, Field: "terms", Msg: "not canonicalisable", Err: err}
	}
	return out, TermsHash(out), nil
}

// TermsHash returns the lowercase hex SHA-256 (no 0x) of jcs, which must
// already be JCS bytes: the proof's terms_hash.
func TermsHash(jcs []byte) string {
	h := sha256.Sum256(jcs)
	return hex.EncodeToString(h[:])
}

// Accept accepts the revision id at time at, approvedBy being the body's
// approved_by ("" when absent, else "user"). In this order:
//
//   - bad_approved_by for another approved_by; proposal_not_found;
//   - already_accepted (409) for the accepted revision: a second accept
//     counts no attempt and changes nothing;
//   - accept_attempts_exhausted when max_accept_attempts acceptances were
//     refused already;
//   - terms_changed for a superseded revision, proposal_expired after its
//     expires_at: both run nothing, and count an attempt (Refused).
//
// The acceptance records approved_by "user" as agent_asserted; its
// NeedsHuman is the revision's user_approval_required, whatever the body
// says.
func (p *Proposals) Accept(id, approvedBy string, at time.Time) (Acceptance, error) {
	class := ApprovedByClassNone
	switch approvedBy {
	case "":
	case ApprovedByUser:
		class = ApprovedByClassAgentAsserted
	default:
		return Acceptance{}, coded(CodeBadApprovedBy, "approved_by", "%q is not \"user\"", approvedBy)
	}
	if at.IsZero() {
		return Acceptance{}, coded(CodeBadArgument, "at", "no time given")
	}
	r := p.Find(id)
	switch {
	case r == nil:
		return Acceptance{}, coded(CodeProposalNotFound, "proposal_id", "%q is no revision of %s", id, p.OperationID)
	case p.Accepted != nil && p.Accepted.ProposalID == id:
		return Acceptance{}, coded(CodeAlreadyAccepted, "proposal_id", "revision %d is accepted already", p.Accepted.Revision)
	case len(p.Refused) >= p.Limits.MaxAcceptAttempts:
		return Acceptance{}, coded(CodeAcceptAttemptsExhausted, "proposal_id", "%d acceptances refused already", len(p.Refused))
	case r != p.Current():
		p.Refused = append(p.Refused, RefusedAcceptance{ProposalID: id, Code: CodeTermsChanged})
		return Acceptance{}, coded(CodeTermsChanged, "proposal_id", "revision %d is superseded", r.Number)
	case at.After(r.ExpiresAt):
		p.Refused = append(p.Refused, RefusedAcceptance{ProposalID: id, Code: CodeProposalExpired})
		return Acceptance{}, coded(CodeProposalExpired, "proposal_id", "revision %d expired at %s", r.Number, r.ExpiresAt.Format(time.RFC3339Nano))
	}
	a := Acceptance{ProposalID: id, Revision: r.Number, ApprovedBy: approvedBy, ApprovedByClass: class, At: at.UTC(), NeedsHuman: r.UserApprovalRequired}
	p.Accepted = &a
	return a, nil
}

// StateOf returns revision r's state at time at.
func (p *Proposals) StateOf(r *Revision, at time.Time) ProposalState {
	switch {
	case p.Accepted != nil && p.Accepted.ProposalID == r.ID:
		return ProposalAccepted
	case r.Superseded || r != p.Revisions[len(p.Revisions)-1]:
		return ProposalSuperseded
	case at.After(r.ExpiresAt):
		return ProposalExpired
	}
	return ProposalProposed
}

// ProposalLimits is a proposal's limits member: the operation's limits
// and what is left of them.
type ProposalLimits struct {
	MaxRevisions       int `json:"max_revisions"`
	RevisionsLeft      int `json:"revisions_left"`
	MaxAcceptAttempts  int `json:"max_accept_attempts"`
	AcceptAttemptsLeft int `json:"accept_attempts_left"`
}

// ProposalView is a revision as GET /v1/requests/{id} and the proposal
// endpoints show it, in the seed's members.
type ProposalView struct {
	ID                   string          `json:"id"`
	Revision             int             `json:"revision"`
	State                ProposalState   `json:"state"`
	Summary              string          `json:"summary"`
	Terms                json.RawMessage `json:"terms"`
	Commitment           Commitment      `json:"commitment"`
	ExpiresAt            string          `json:"expires_at"`
	UserApprovalRequired bool            `json:"user_approval_required"`
	Limits               ProposalLimits  `json:"limits"`
}

// View returns revision r as shown at time at. revisions_left is
// max_revisions less the revisions made; accept_attempts_left is
// max_accept_attempts less the refused acceptances (0 once accepted).
func (p *Proposals) View(r *Revision, at time.Time) ProposalView {
	left := p.Limits.MaxAcceptAttempts - len(p.Refused)
	if p.Accepted != nil || left < 0 {
		left = 0
	}
	return ProposalView{
		ID: r.ID, Revision: r.Number, State: p.StateOf(r, at), Summary: r.Summary,
		Terms: r.Terms, Commitment: r.Commitment,
		ExpiresAt:            r.ExpiresAt.UTC().Format(TimeFormat),
		UserApprovalRequired: r.UserApprovalRequired,
		Limits: ProposalLimits{
			MaxRevisions: p.Limits.MaxRevisions, RevisionsLeft: max(p.Limits.MaxRevisions-len(p.Revisions), 0),
			MaxAcceptAttempts: p.Limits.MaxAcceptAttempts, AcceptAttemptsLeft: left,
		},
	}
}

// ProofProposal is a revision as the proof payload lists it.
type ProofProposal struct {
	ID        string          `json:"id"`
	Revision  int             `json:"revision"`
	Terms     json.RawMessage `json:"terms"`
	TermsHash string          `json:"terms_hash"`
}

// ProofProposals returns every revision, oldest first, as the proof lists
// them.
func (p *Proposals) ProofProposals() []ProofProposal {
	out := make([]ProofProposal, 0, len(p.Revisions))
	for _, r := range p.Revisions {
		out = append(out, ProofProposal{ID: r.ID, Revision: r.Number, Terms: slices.Clone(r.Terms), TermsHash: r.TermsHash})
	}
	return out
}
