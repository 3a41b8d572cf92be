package negotiation

// MessageType names one of the fourteen envelope types.
type MessageType string

// The message types of the XMTP negotiation seed, plus AcceptDelivery.
const (
	TypeTaskProposal        MessageType = "TaskProposal"
	TypeTaskCounterOffer    MessageType = "TaskCounterOffer"
	TypeTaskAcceptance      MessageType = "TaskAcceptance"
	TypeMilestoneDefinition MessageType = "MilestoneDefinition"
	TypeRevisionRequest     MessageType = "RevisionRequest"
	TypeDeliveryNotice      MessageType = "DeliveryNotice"
	TypePaymentRequest      MessageType = "PaymentRequest"
	TypeCapabilityProof     MessageType = "CapabilityProof"
	TypeDisputeEvidence     MessageType = "DisputeEvidence"
	TypeArbitratorProposal  MessageType = "ArbitratorProposal"
	TypeMutualCancel        MessageType = "MutualCancel"
	TypeReplacementContext  MessageType = "ReplacementContext"
	TypeSupervisorVeto      MessageType = "SupervisorVeto"
	TypeAcceptDelivery      MessageType = "AcceptDelivery"
)

// MessageTypes lists every type in a fixed order.
var MessageTypes = []MessageType{
	TypeTaskProposal, TypeTaskCounterOffer, TypeTaskAcceptance, TypeMilestoneDefinition,
	TypeRevisionRequest, TypeDeliveryNotice, TypePaymentRequest, TypeCapabilityProof,
	TypeDisputeEvidence, TypeArbitratorProposal, TypeMutualCancel, TypeReplacementContext,
	TypeSupervisorVeto, TypeAcceptDelivery,
}

// Payload is the decoded payload of one message type.
type Payload interface {
	// MessageType returns the envelope type this payload belongs to.
	MessageType() MessageType
	// Proxy returns the PXP fields the payload carries.
	Proxy() *PXP
}

func newPayload(t MessageType) Payload {
	switch t {
	case TypeTaskProposal:
		return new(TaskProposal)
	case TypeTaskCounterOffer:
		return new(TaskCounterOffer)
	case TypeTaskAcceptance:
		return new(TaskAcceptance)
	case TypeMilestoneDefinition:
		return new(MilestoneDefinition)
	case TypeRevisionRequest:
		return new(RevisionRequest)
	case TypeDeliveryNotice:
		return new(DeliveryNotice)
	case TypePaymentRequest:
		return new(PaymentRequest)
	case TypeCapabilityProof:
		return new(CapabilityProof)
	case TypeDisputeEvidence:
		return new(DisputeEvidence)
	case TypeArbitratorProposal:
		return new(ArbitratorProposal)
	case TypeMutualCancel:
		return new(MutualCancel)
	case TypeReplacementContext:
		return new(ReplacementContext)
	case TypeSupervisorVeto:
		return new(SupervisorVeto)
	case TypeAcceptDelivery:
		return new(AcceptDelivery)
	}
	return nil
}

// Origin tags where a claim comes from (PXP section 3).
type Origin string

// The three PXP origins.
const (
	OriginStated  Origin = "stated"
	OriginSourced Origin = "sourced"
	OriginAssumed Origin = "assumed"
)

// Verdict is a review of another party's claim (PXP section 4).
type Verdict string

// The three PXP review verdicts.
const (
	VerdictAccept    Verdict = "accept"
	VerdictChallenge Verdict = "challenge"
	VerdictConflict  Verdict = "conflict"
)

// Status is a proxy message's PXP status.
type Status string

// The three PXP statuses.
const (
	StatusContinue Status = "continue"
	StatusAgree    Status = "agree"
	StatusEscalate Status = "escalate"
)

// Claim is a factual statement a proxy relies on, with its origin.
type Claim struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Origin Origin `json:"origin"`
	Ref    string `json:"ref,omitempty"`
}

// Review is the receiving side's judgement of one claim.
type Review struct {
	ClaimID string  `json:"claimId"`
	Verdict Verdict `json:"verdict"`
	Note    string  `json:"note,omitempty"`
}

// Escalation is the one concrete question a paused proxy asks its principal.
type Escalation struct {
	Question string `json:"question"`
	Reason   string `json:"reason,omitempty"`
}

// PXP holds the Proxy Exchange Protocol fields any payload may carry.
type PXP struct {
	IntentCardHash *Hash       `json:"intentCardHash,omitempty"`
	Principal      string      `json:"principal,omitempty"`
	Claims         []Claim     `json:"claims,omitempty"`
	Reviews        []Review    `json:"reviews,omitempty"`
	Status         Status      `json:"status,omitempty"`
	Escalation     *Escalation `json:"escalation,omitempty"`
	DependsOn      []string    `json:"dependsOn,omitempty"`
}

// Proxy returns p itself.
func (p *PXP) Proxy() *PXP { return p }

// Milestone is one paid step of a task.
type Milestone struct {
	Amount      Uint256 `json:"amount"`
	Description string  `json:"description"`
}

// Limits are the negotiation limits that travel in the terms, so both
// parties apply the same ones. Absent fields take the defaults.
type Limits struct {
	MaxRevisions       *int `json:"max_revisions,omitempty"`
	ProposalTTLSeconds *int `json:"proposal_ttl_seconds,omitempty"`
	MaxAcceptAttempts  *int `json:"max_accept_attempts,omitempty"`
}

// Default limits (DESIGN.md, VXP).
const (
	DefaultMaxRevisions       = 3
	DefaultProposalTTLSeconds = 900
	DefaultMaxAcceptAttempts  = 3
)

// Terms are the exact terms of an offer. termsHash = SHA-256(JCS(terms)).
type Terms struct {
	Title       string      `json:"title"`
	Description string      `json:"description,omitempty"`
	Category    string      `json:"category,omitempty"`
	ScopeHash   *Hash       `json:"scopeHash,omitempty"`
	ChainID     Uint256     `json:"chainId"`
	Registry    Address     `json:"registry"`
	Token       Address     `json:"token"`
	Milestones  []Milestone `json:"milestones"`
	Deadline    uint64      `json:"deadline"`
	Nonce       Uint256     `json:"nonce"`
	Limits      *Limits     `json:"limits,omitempty"`
}

// TaskProposal is the poster's initial offer: either a public announcement
// on the task board (no recipients) or a direct proposal to one worker.
type TaskProposal struct {
	Terms      Terms    `json:"terms"`
	Supervisor *Address `json:"supervisor,omitempty"`
	PXP
}

// TaskCounterOffer proposes new terms in reply to the current offer.
type TaskCounterOffer struct {
	InReplyTo  Hash     `json:"inReplyTo"`
	Terms      Terms    `json:"terms"`
	Reason     string   `json:"reason,omitempty"`
	Supervisor *Address `json:"supervisor,omitempty"`
	PXP
}

// TaskAcceptance accepts one offer by hash and carries the sender's EVM
// signature over the settlement digest of that offer.
type TaskAcceptance struct {
	AcceptedOfferHash Hash         `json:"acceptedOfferHash"`
	InReplyTo         *Hash        `json:"inReplyTo,omitempty"`
	SettlementDigest  Hash         `json:"settlementDigest"`
	Signature         EVMSignature `json:"signature"`
	Supervisor        *Address     `json:"supervisor,omitempty"`
	PXP
}

// MilestoneDefinition amends the milestones of a funded task; it carries the
// sender's EVM signature over the EIP-712 Amendment.
type MilestoneDefinition struct {
	Milestones []Milestone  `json:"milestones"`
	Deadline   uint64       `json:"deadline"`
	TermsHash  Hash         `json:"termsHash"`
	Nonce      Uint256      `json:"nonce"`
	Signature  EVMSignature `json:"signature"`
	InReplyTo  *Hash        `json:"inReplyTo,omitempty"`
	PXP
}

// RevisionRequest is the poster asking for changes to a delivered milestone.
type RevisionRequest struct {
	Milestone int    `json:"milestone"`
	InReplyTo *Hash  `json:"inReplyTo,omitempty"`
	Reason    string `json:"reason"`
	PXP
}

// FileRef names one file of a deliverable or of evidence by CID.
type FileRef struct {
	Name      string `json:"name"`
	CID       CID    `json:"cid"`
	Size      uint64 `json:"size"`
	MediaType string `json:"mediaType,omitempty"`
}

// DeliveryNotice is the worker delivering a milestone: the proof's CID is
// what goes on chain with submitProof.
type DeliveryNotice struct {
	Milestone int       `json:"milestone"`
	ProofCID  CID       `json:"proofCid"`
	Files     []FileRef `json:"files,omitempty"`
	Note      string    `json:"note,omitempty"`
	PXP
}

// Payment bases a worker may request a release on.
const (
	BasisMilestone = "milestone"
	BasisHourly    = "hourly"
	BasisStream    = "stream"
)

// PaymentRequest is the worker asking for a release of funds.
type PaymentRequest struct {
	Milestone int     `json:"milestone"`
	Basis     string  `json:"basis"`
	Amount    Uint256 `json:"amount"`
	Units     uint64  `json:"units,omitempty"`
	Note      string  `json:"note,omitempty"`
	PXP
}

// CapabilityProof is the worker proving competence in a domain: a file by
// CID the poster fetches and checks, and/or an attestation another address
// signed (Attester and Signature, both or neither: AttestationDigest).
type CapabilityProof struct {
	Capability  string       `json:"capability"`
	Kind        string       `json:"kind"`
	Ref         string       `json:"ref,omitempty"`
	CID         CID          `json:"cid,omitempty"`
	Description string       `json:"description"`
	Attester    *Address     `json:"attester,omitempty"`
	Signature   EVMSignature `json:"signature,omitempty"`
	PXP
}

// DisputeEvidence submits evidence to an open dispute.
type DisputeEvidence struct {
	DisputeID   Uint256   `json:"disputeId"`
	EvidenceCID CID       `json:"evidenceCid"`
	Files       []FileRef `json:"files,omitempty"`
	Description string    `json:"description"`
	InReplyTo   *Hash     `json:"inReplyTo,omitempty"`
	PXP
}

// ArbitratorProposal names the arbitrator a party will propose on chain.
type ArbitratorProposal struct {
	DisputeID  Uint256 `json:"disputeId"`
	Arbitrator Address `json:"arbitrator"`
	Reason     string  `json:"reason,omitempty"`
	PXP
}

// MutualCancel is a party's signed intent to cancel. After funding it
// carries the EVM signature over the EIP-712 Cancel the contract needs.
type MutualCancel struct {
	Reason    string       `json:"reason"`
	Nonce     Uint256      `json:"nonce"`
	Signature EVMSignature `json:"signature,omitempty"`
	PXP
}

// ReplacementContext hands a funded task to a replacement worker: the
// handoff package is referenced by hash and CID, and the sender signs the
// EIP-712 Replacement.
type ReplacementContext struct {
	NewWorker   Address      `json:"newWorker"`
	HandoffHash Hash         `json:"handoffHash"`
	HandoffCID  CID          `json:"handoffCid,omitempty"`
	Nonce       Uint256      `json:"nonce"`
	Signature   EVMSignature `json:"signature"`
	Summary     string       `json:"summary"`
	PXP
}

// SupervisorVeto is a human supervisor, named by a party, blocking the task.
type SupervisorVeto struct {
	Party  Address `json:"party"`
	Reason string  `json:"reason"`
	PXP
}

// AcceptDelivery is the poster accepting a delivered milestone.
type AcceptDelivery struct {
	Milestone    int    `json:"milestone"`
	DeliveryHash Hash   `json:"deliveryHash"`
	Note         string `json:"note,omitempty"`
	PXP
}

// MessageType implementations.
func (*TaskProposal) MessageType() MessageType        { return TypeTaskProposal }
func (*TaskCounterOffer) MessageType() MessageType    { return TypeTaskCounterOffer }
func (*TaskAcceptance) MessageType() MessageType      { return TypeTaskAcceptance }
func (*MilestoneDefinition) MessageType() MessageType { return TypeMilestoneDefinition }
func (*RevisionRequest) MessageType() MessageType     { return TypeRevisionRequest }
func (*DeliveryNotice) MessageType() MessageType      { return TypeDeliveryNotice }
func (*PaymentRequest) MessageType() MessageType      { return TypePaymentRequest }
func (*CapabilityProof) MessageType() MessageType     { return TypeCapabilityProof }
func (*DisputeEvidence) MessageType() MessageType     { return TypeDisputeEvidence }
func (*ArbitratorProposal) MessageType() MessageType  { return TypeArbitratorProposal }
func (*MutualCancel) MessageType() MessageType        { return TypeMutualCancel }
func (*ReplacementContext) MessageType() MessageType  { return TypeReplacementContext }
func (*SupervisorVeto) MessageType() MessageType      { return TypeSupervisorVeto }
func (*AcceptDelivery) MessageType() MessageType      { return TypeAcceptDelivery }
