// Package gate is the approval of a node's gated acts: nothing signs,
// funds, releases, disputes or rules until its principal approved that
// exact act and the approval was consumed, once, durably.
//
// It owns:
//
//   - the decider: an explicit Decider (AutoApprove for tests and dev
//     chains, refused by the gate for an act naming another chain), or the
//     principal's passkeys, through the requests waiting for them
//     (PendingApprovals, in plain words);
//   - the ceremonies: the WebAuthn options and assertion of an approval
//     (ApprovalOptions, FinishApproval, DenyApproval), the registration of
//     a passkey (BeginPasskey, FinishPasskey), and the confirmations of the
//     principal's own words (Ask: confirm_card, confirm_answer);
//   - the passkeys: list, add (the first with the data directory's
//     enrolment token, a further one approved by an existing passkey) and
//     revoke (approved by another passkey, or the last one with the data
//     directory's revocation token);
//   - the stores: the approval store (Store, a Badger of credentials,
//     approvals and consumptions with its record beside it) and the data
//     directory's token record (tokens.json, enrol-token);
//   - the plain words of an act: its title and its lines (amounts in ETH
//     and wei, the ruling, how words arrived, the expiry);
//   - the audit trail: every request, decision and consumption, written to
//     the node's ledger through the Journal and read back (AuditTrail).
//
// The contract: the node builds one Gate with New at Start, once its keys
// are open, from a Config that gives what the gate needs of the node as
// values and small funcs (the Journal for the audit entries, the clock,
// Publish for events, Count for metrics, Guard for a paused or damaged
// negotiation, Spawn for its goroutines, Title and Draft for the plain
// words), and closes it at Close. Every gated act calls Authorize and
// acts only when it returns nil; the request, the decision and the
// consumption are in the Journal before it does. The pages and the API
// reach the gate through the node (node.Node.Gate) and never see its
// wiring. A refusal is an *Error whose Code shares the node's names
// (approval_denied, approval_expired, already_consumed, approval_pending,
// bad_argument, ...) or keeps the approval package's (verification_failed,
// token_used, ...); errors.Is matches the node's sentinels of the same
// code.
//
// gate imports approval and storeguard of the module (plus the standard
// library, go-webauthn and badger); it never imports node, node/engine,
// ledger, p2p, chain or negotiation: the node adapts its ledger and its
// threads to the gate's funcs. Only node imports it (deps_test.go).
package gate
