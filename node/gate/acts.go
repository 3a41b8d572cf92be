package gate

import (
	"context"

	"github.com/parleynet/parley/approval"
)

// Act names a gated act: one list everywhere (DESIGN.md "Human approval").
type Act string

// The gated acts. Withdrawing what is already owed to oneself and anchoring
// a ledger head are not gated.
const (
	ActSignSettlement    Act = "sign_settlement"    // sign a settlement digest (accept an offer)
	ActFundEscrow        Act = "fund_escrow"        // createTask: move the escrow into the contract
	ActReleaseMilestone  Act = "release_milestone"  // accept a delivery and release its milestone
	ActSignCancel        Act = "sign_cancel"        // sign a mutual cancel
	ActSignAmendment     Act = "sign_amendment"     // sign an amendment of milestones or deadline
	ActSignReplacement   Act = "sign_replacement"   // sign the hand-over to a replacement worker
	ActOpenDispute       Act = "open_dispute"       // open a dispute (posts a bond)
	ActProposeArbitrator Act = "propose_arbitrator" // name the arbitrator one accepts
	ActRule              Act = "rule"               // an arbitrator's ruling
	ActClaimUnanswered   Act = "claim_unanswered"   // claim a delivery the poster left unanswered
	ActReclaimExpired    Act = "reclaim_expired"    // take back, after the deadline, what was never delivered
	ActResolveTimedOut   Act = "resolve_timed_out"  // resolve a stalled dispute by its timeout
	// ActVeto is a supervisor's veto: it halts the commitment of the
	// principal that named the supervisor (docs/protocol.md, "Supervisor
	// veto").
	ActVeto Act = "veto"
	// Issue 14: a revision request stops the worker's claim on chain; a
	// partial release pays the worker.
	ActRequestRevision Act = "request_revision" // send a delivered milestone back to work (requestRevision)
	ActReleasePart     Act = "release_part"     // release a payment request's part of a milestone (releasePart)
)

// The Human Intent Protocol tools of the timeout exits.
const (
	ToolMilestoneClaim = "parley.milestone.claim" // claim an unanswered milestone (claimUnanswered)
	ToolEscrowReclaim  = "parley.escrow.reclaim"  // reclaim the undelivered escrow (reclaimExpired)
	ToolDisputeTimeout = "parley.dispute.timeout" // resolve a stalled dispute (resolveTimedOut)
)

// The gated acts on the chain's registries that are no negotiation's
// (issue 14): each spends gas. A contract arbitrator's raise acts in a
// dispute and pays the court's fee.
const (
	ActRegisterIdentity Act = "register_identity"     // publish this node's identity link in IdentityLink
	ActRotateIdentity   Act = "rotate_identity"       // replace the published record with the current link
	ActRevokeIdentity   Act = "revoke_identity"       // withdraw the published record
	ActPublishScope     Act = "publish_scope"         // publish a public task's scope hash in TaskScopeRegistry
	ActRaiseArbitrator  Act = "raise_with_arbitrator" // raise a dispute with its ERC-792 arbitrator contract (pays its fee)
)

// The Human Intent Protocol tools of the acts above (approval/acts.go
// names the others).
const (
	ToolIdentityRegister = "parley.identity.register" // publish the identity link on chain
	ToolIdentityRotate   = "parley.identity.rotate"   // replace the published identity link
	ToolIdentityRevoke   = "parley.identity.revoke"   // withdraw the published identity link
	ToolScopePublish     = "parley.scope.publish"     // publish a public task's scope hash
	ToolDisputeRaise     = "parley.dispute.raise"     // raise a dispute with an arbitrator contract
)

// The confirmations of the principal's own words: an intent card or an
// answer that arrived through the node's API or over MCP binds once a
// passkey confirms it (the node's pxp.go). They wait in PendingApprovals
// like the gated acts and are not in GatedActs.
const (
	ActConfirmCard   Act = "confirm_card"   // seal an intent card an agent drafted (via mcp)
	ActConfirmAnswer Act = "confirm_answer" // confirm an answer an agent relayed (via mcp)
)

// The Human Intent Protocol tools of the confirmations (approval/acts.go
// names the others).
const (
	ToolCardConfirm   = "parley.card.confirm"   // confirm an intent card an agent drafted
	ToolAnswerConfirm = "parley.answer.confirm" // confirm an answer an agent relayed
)

// ActVXPGrant is the principal granting an outside agent (a VXP client,
// docs/vxp.md) exactly the operations of a device authorization: its
// target is the agent's client_id and its arguments the user code, the
// authorization details (JCS text), the resource and the DPoP key's
// thumbprint. It is no negotiation's act and not in GatedActs; it waits in
// PendingApprovals like them.
const ActVXPGrant Act = "vxp_grant"

// ToolVXPGrant is the Human Intent Protocol tool of ActVXPGrant.
const ToolVXPGrant = "parley.vxp.grant"

// ActRegisterPasskey is the approval an existing passkey gives before a
// further credential of the principal is registered, and
// ActRevokePasskey the approval another passkey gives before one is
// revoked (the credential revoked never approves it). They are not acts
// of a negotiation and not in GatedActs; they wait in PendingApprovals
// like them.
const (
	ActRegisterPasskey Act = "register_passkey"
	ActRevokePasskey   Act = "revoke_passkey"
)

// GatedActs lists every gated act in a fixed order.
var GatedActs = []Act{
	ActSignSettlement, ActFundEscrow, ActReleaseMilestone, ActSignCancel, ActSignAmendment,
	ActSignReplacement, ActOpenDispute, ActProposeArbitrator, ActRule,
	ActClaimUnanswered, ActReclaimExpired, ActResolveTimedOut,
	ActVeto,
	ActRequestRevision, ActReleasePart,
	ActRegisterIdentity, ActRotateIdentity, ActRevokeIdentity, ActPublishScope, ActRaiseArbitrator,
}

// actTool is the Human Intent Protocol tool and operation of each act
// (approval/acts.go names the tools): a receipt for one act never
// consumes for another.
var actTool = map[Act]struct{ tool, operation string }{
	ActSignSettlement:    {approval.ToolSettlementSign, "sign"},
	ActFundEscrow:        {approval.ToolEscrowFund, "fund"},
	ActReleaseMilestone:  {approval.ToolMilestoneRelease, "release"},
	ActSignCancel:        {approval.ToolCancelSign, "sign"},
	ActSignAmendment:     {approval.ToolAmendmentSign, "sign"},
	ActSignReplacement:   {approval.ToolReplacementSign, "sign"},
	ActOpenDispute:       {approval.ToolDisputeOpen, "open"},
	ActProposeArbitrator: {approval.ToolArbitratorPropose, "propose"},
	ActRule:              {approval.ToolDisputeRule, "rule"},
	ActVeto:              {approval.ToolSupervisorVeto, "veto"},
	ActRequestRevision:   {approval.ToolRevisionRequest, "request"},
	ActReleasePart:       {approval.ToolPartRelease, "release"},
	ActRegisterPasskey:   {approval.ToolPasskeyRegister, "register"},
	ActRevokePasskey:     {approval.ToolPasskeyRevoke, "revoke"},
	ActConfirmCard:       {ToolCardConfirm, "confirm"},
	ActConfirmAnswer:     {ToolAnswerConfirm, "confirm"},
	ActVXPGrant:          {ToolVXPGrant, "grant"},
	ActClaimUnanswered:   {ToolMilestoneClaim, "claim"},
	ActReclaimExpired:    {ToolEscrowReclaim, "reclaim"},
	ActResolveTimedOut:   {ToolDisputeTimeout, "resolve"},
	ActRegisterIdentity:  {ToolIdentityRegister, "register"},
	ActRotateIdentity:    {ToolIdentityRotate, "rotate"},
	ActRevokeIdentity:    {ToolIdentityRevoke, "revoke"},
	ActPublishScope:      {ToolScopePublish, "publish"},
	ActRaiseArbitrator:   {ToolDisputeRaise, "raise"},
}

// ActAction returns the action a request for act names: the act's tool
// and operation, the negotiation as target and args as the exact
// arguments (every value a string or a list of strings: amounts in wei as
// decimal strings, hashes and addresses as the wire writes them). An
// approval of one action consumes for no other.
func ActAction(act Act, nid string, args map[string]any) (approval.Action, error) {
	t, ok := actTool[act]
	if !ok || act == ActRegisterPasskey || act == ActRevokePasskey {
		return approval.Action{}, fail(CodeBadArgument, "%q is not a gated act", act)
	}
	if args == nil {
		args = map[string]any{}
	}
	a, err := approval.NewAction(t.tool, t.operation, nid, args)
	if err != nil {
		return approval.Action{}, failWrap(CodeBadArgument, err, "%s", act)
	}
	return a, nil
}

// ApprovalRequest is one gated act asking for its principal's approval:
// the act and the Human Intent Protocol request whose intentHash an
// approval signs. Request.Action names the act's tool, the negotiation
// (target) and every value the act will use (arguments).
type ApprovalRequest struct {
	Act     Act                    `json:"act"`
	Request approval.IntentRequest `json:"request"`
}

// Decision is an explicit gate's answer to one request.
type Decision struct {
	// Approved is true for an approval; false is a denial.
	Approved bool `json:"approved"`
	// Method says how the decision was taken, for the audit trail: "auto"
	// for AutoApprove.
	Method string `json:"method"`
	// By names who decided, for the audit trail.
	By string `json:"by,omitempty"`
	// Reason is a denial's reason, if given (not recorded: free text may
	// quote argument values).
	Reason string `json:"reason,omitempty"`
}

// Decider decides gated acts without the principal's passkeys: tests and
// the devnet's approval.mode auto give one (the node's WithGate). A gate
// without one decides through passkeys (PendingApprovals, FinishApproval),
// the only way an act is authorised by a receipt. The gate records each
// request, decision and consumption in the audit trail around the call
// and consumes each approval once, durably, before the act, so no
// implementation can skip the record. Decide blocks until a decision or
// until ctx ends (the request's window).
type Decider interface {
	Decide(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// DeciderFunc adapts a function to Decider.
type DeciderFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Decide calls f.
func (f DeciderFunc) Decide(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}

// AutoApprove returns a Decider that approves every request, for tests
// and the devnet, which configure it explicitly; by names the driver in
// the audit trail's record of each decision. It authorises without a
// person, so a node refuses to start with it except on a dev chain
// (DevChainIDs) and while its ledger holds no signature it made for
// another chain, and the gate refuses any act whose arguments name
// another chain (auto.go).
func AutoApprove(by string) Decider { return autoGate{by: by} }

// IsAuto reports whether d is AutoApprove's.
func IsAuto(d Decider) bool {
	_, ok := d.(autoGate)
	return ok
}

// autoGate is AutoApprove's decider: a type the gate recognises (IsAuto).
type autoGate struct{ by string }

// Decide approves req.
func (g autoGate) Decide(context.Context, ApprovalRequest) (Decision, error) {
	return Decision{Approved: true, Method: "auto", By: g.by}, nil
}
