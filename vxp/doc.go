// Package vxp is VXP's native profile (seed 002, draft 0.1), the pure part:
// the discovery document (/.well-known/vxp.json) and the issuer's RFC 8414
// metadata, RAR authorization details and their coverage, the request
// states (E1) with their transition table and projections onto Poppy and
// A2A (E2), proposals and their revisions, idempotency decisions, the
// checks of DPoP proofs and client assertions, and the proof payload.
//
// It is pure, as negotiation is: it does no I/O, reads no clock (time is
// an argument), draws no randomness of its own (a random source is an
// argument) and starts no goroutine. What it decides, node/vxp stores,
// serves and acts on; the node owns the request's lifetime (the request,
// not the HTTP call, owns the act's lifetime).
//
// Read it in this order:
//
//  1. errors.go: the codes (as VXP and the OAuth RFCs spell them) and
//     their classes.
//  2. discovery.go: the operations' catalogue, vxp.json and the issuer's
//     metadata, built from the public base URL and the capability list.
//  3. rar.go: authorization details of type
//     https://vxpprotocol.org/rar/capability, what a grant covers and
//     what is missing for authorization_required.
//  4. idempotency.go: the Idempotency-Key rules of POST /v1/requests.
//  5. states.go: E1's states, the transition table (rules in a table),
//     Transition, and the projections E2.
//  6. proposal.go: revisions with the seed's limits, vxp_salt, terms_hash,
//     accept-once, terms_changed, approved_by.
//  7. jwk.go, dpop.go, assertion.go: public JWKs and thumbprints, RFC 9449
//     DPoP proofs, RFC 7523 and private_key_jwt assertions.
//
// It imports only the standard library, go-jose v4 (JWS, JWK,
// thumbprints) and two of the module's packages: strictjson (the one
// strict decoder) and negotiation (RFC 8785 canonical JSON and A2A's state names). It must
// never import identity, ledger, p2p, chain, approval or node.
package vxp
