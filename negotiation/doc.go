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
//  4. For a local act (propose, accept, fund, deliver, dispute, rule, ...),
//     ask Thread.May first: the act table (act.go) holds who may do each
//     act, in which states, what it sends or which chain fact completes
//     it, and what its arguments must satisfy; the state machine reads the
//     same rows for every envelope and fact. Judge the node's own envelope
//     with Thread.Check, which answers as Apply would without changing the
//     thread, before recording or sending it; then Apply it.
//  5. Ask the thread what it holds (AcceptanceOf, DeliveryOf,
//     PendingCoSign, ReadyCoSign, Head, ...) rather than scanning Log.
//
// It imports only the schemas package, go-ethereum's pure encoding and
// crypto packages, and encoding libraries. It must never import identity
// (its sibling), ledger, p2p, chain, approval or node.
package negotiation
