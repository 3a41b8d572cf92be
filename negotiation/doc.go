// Package negotiation is Parley's protocol core: the wire envelope, RFC 8785
// canonical JSON, envelope hashes and content addresses, signatures, the
// payload of every message type, the EIP-712 settlement digest and the
// negotiation state machine.
//
// It is pure. It does no I/O, reads no clock (time is an argument), draws no
// randomness of its own and starts no goroutine, so every rule can be tested
// exhaustively. Callers follow this contract:
//
//  1. Decode bytes from anywhere with Decode (strict: size limit, duplicate
//     keys, unknown members, schema, formats), then Verify the signature.
//     A decoded envelope keeps its JCS bytes; they are what is hashed,
//     stored and forwarded. Nothing is re-encoded from Go structs.
//  2. Feed each envelope, and each chain fact, to Thread.Apply with the
//     current time. Apply returns an Outcome saying whether the input was
//     authentic, whether its effect was taken, the refusal code if not, and
//     the state that follows. Non-authentic input leaves the thread exactly
//     as it was.
//  3. Persist what Apply reports (the envelope, the outcome) before acting
//     on it; the ledger, not this package, is the node's memory.
//
// It imports only the schemas package, go-ethereum's pure encoding and
// crypto packages, and encoding libraries. It must never import identity
// (its sibling), ledger, p2p, chain, approval or node.
package negotiation
