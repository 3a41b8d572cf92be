// Package vxp is VXP's HTTP side and request manager (seed 002, native
// profile; docs/vxp.md): the node is the VXP "company" for its own
// principal, and any outside AI agent that runs no Parley code acts for
// the principal with exactly the authority a passkey granted it.
//
// What is decided without I/O lives in the pure package
// github.com/parleynet/parley/vxp; this package serves it, keeps its
// state in the node's ledger and acts through the node.
//
// Read it in this order:
//
//  1. backend.go: what it needs from the node.
//  2. store.go: grants and requests, kept as ledger entries (vxp.grant,
//     vxp.grant.revoked, vxp.request) and rebuilt from them at start.
//  3. server.go: the configuration, the listener's checks (Host, TLS, body
//     limits, rate limits) and the routes.
//  4. keys.go, tokens.go, nonce.go, clients.go: the issuer's key and its
//     inbox-key attestation, DPoP-bound access tokens, DPoP nonces, the
//     Client ID Metadata Documents of agents.
//  5. oauth.go, device.go: the token endpoint (jwt-bearer, device_code)
//     and the device authorization (RFC 8628) whose grant the principal
//     approves with a passkey.
//  6. requests.go, ops.go, manager.go: the requests resource, the
//     operations and the manager that owns each act's lifetime.
//  7. proof.go, relationships.go, agents.go: the signed proof package,
//     relationships, and the agents as the principal's pages and the
//     node's API show them (node.AgentBook).
//
// It imports node (the acts, the views, the gate's grant act), vxp (the
// pure rules), ledger (its store), negotiation (hashes, JCS), identity
// (the identity link whose inbox key attests the issuer's key) and
// strictjson (the one strict decoder of outside JSON), besides the
// standard library, go-jose v4 and golang.org/x/time/rate. Only cmd
// imports it.
package vxp
