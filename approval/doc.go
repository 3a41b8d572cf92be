// Package approval implements the Human Intent Protocol (seed
// 001_223b3d822178127d, "dsh-human-intent/0.1") for Parley's gated acts:
// intent requests whose hash binds one exact act, WebAuthn ceremonies whose
// challenge is that hash, receipts, the consumption gate with its error
// codes, enrolment of the principal's passkeys, software keys for
// automation, and audit events that never carry raw argument values.
//
// Callers follow this contract (docs/approval.md has the details):
//
//  1. Build an Action with NewAction (tool, operation, target and the exact
//     arguments) and an IntentRequest with NewRequest, passing the time and
//     the randomness: the request gets a 256-bit nonce, a 5-600 s window
//     and its intentHash, lowerhex(SHA-256(JCS(hashing payload))).
//  2. Build Ceremonies with New(cfg, store, audit): it validates and does
//     no I/O. The first passkey is registered with a one-time enrolment
//     token (IssueEnrolToken); every further one needs an approved receipt,
//     by an existing credential, of the act RegisterAction(session). A
//     credential is revoked (Revoke) with an approved receipt of
//     RevokeAction(credential) by ANOTHER credential, or, when it is the
//     last usable one, with the host's local authority (Parley: a token
//     only the data directory holds); a revoked credential approves
//     nothing and its receipts are not consumed.
//  3. Ask the principal: BeginApproval gives WebAuthn request options whose
//     challenge is the 32 bytes of the intentHash; FinishApproval verifies
//     the assertion (origin, RP ID, signature, user verification, counter),
//     records the approval in the Store and returns an approved
//     IntentReceipt. Deny returns a denied receipt, which never authorises.
//  4. Before performing the act, the consumer calls Gate.Consume with the
//     receipt and the action it is about to run. The gate runs the seed's
//     checks in order and marks the receipt consumed durably; only a nil
//     error authorises the act, once. A consumed receipt stays spent even
//     if the act then fails.
//
// The package is pure protocol plus the Store interface it needs: it reads
// the clock only through Config.Now, starts no goroutine and does no I/O
// but through Store and AuditSink. It imports the standard library,
// go-webauthn, descope/virtualwebauthn (software keys), jsontext (RFC 8785) and
// the project's leaf strictjson (every request, receipt and key file is
// decoded with it), and must not import node, p2p, chain or ledger.
package approval
