package approval

// The tools of Parley's gated acts (DESIGN.md "Human approval"): one name
// per act, so a receipt for one act can never be consumed for another. The
// target of each is the negotiationId; the arguments are every value the
// act will use, amounts in wei and other big integers as decimal strings,
// hashes and addresses as the wire writes them.
const (
	ToolSettlementSign    = "parley.settlement.sign"    // sign a settlement digest (accept an offer)
	ToolEscrowFund        = "parley.escrow.fund"        // fund the escrow (createTask)
	ToolMilestoneRelease  = "parley.milestone.release"  // accept a delivery and release its milestone
	ToolCancelSign        = "parley.cancel.sign"        // sign a mutual cancel
	ToolAmendmentSign     = "parley.amendment.sign"     // sign an amendment of milestones or deadline
	ToolReplacementSign   = "parley.replacement.sign"   // sign the hand-over to a replacement worker
	ToolDisputeOpen       = "parley.dispute.open"       // open a dispute (posts a bond)
	ToolArbitratorPropose = "parley.arbitrator.propose" // name the arbitrator one accepts
	ToolDisputeRule       = "parley.dispute.rule"       // an arbitrator's ruling
	// ToolSupervisorVeto is a supervisor's veto of the task for the party
	// that named it.
	ToolSupervisorVeto = "parley.supervisor.veto"
	// ToolPasskeyRegister is the act of registering a further credential
	// of the principal; an existing credential must approve it.
	ToolPasskeyRegister = "parley.passkey.register"
	// ToolPasskeyRevoke is the act of revoking a credential of the
	// principal; another credential must approve it (or, for the last
	// one, the host's local token).
	ToolPasskeyRevoke = "parley.passkey.revoke"
)

// The tools of issue 14's gated acts on a milestone.
const (
	ToolRevisionRequest = "parley.revision.request" // send a delivered milestone back to work, stopping its review clock
	ToolPartRelease     = "parley.payment.release"  // release part of a milestone (a payment request) to the worker
)

// SettlementAction returns the action of signing a settlement digest in
// negotiation negotiationID: the digest (0x and 64 hex digits), the total
// amount in the token's smallest unit as a decimal string, the token
// address (the zero address for native ETH) and the counterparty's address.
func SettlementAction(negotiationID, digest, amount, token, counterparty string) (Action, error) {
	return NewAction(ToolSettlementSign, "sign", negotiationID, map[string]any{
		"settlementDigest": digest,
		"amount":           amount,
		"token":            token,
		"counterparty":     counterparty,
	})
}
