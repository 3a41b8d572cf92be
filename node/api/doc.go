// Package api is a node's local HTTP API, for its operator and the agents
// on its machine (docs/api.md). It owns
//
//   - the routes under /v1 (types.go's route table: the task board, the
//     negotiations and their acts, intent cards and escalations, consent,
//     files, withdrawals, the ledger's verification, approvals, passkeys
//     and the audit trail), JSON bodies read strictly (package strictjson)
//     and refusals as an ErrorBody with a stable code;
//   - the event stream: the node's events as server-sent events
//     (GET /v1/events, optionally for one negotiation);
//   - the discovery document (/.well-known/parley.json, modelled on VXP's
//     vxp.json) and the signed identity link it names, the only routes
//     served without the bearer key, and the OpenAPI document generated
//     from the route table (openapi.json);
//   - idempotency: every POST carries an Idempotency-Key; the first answer
//     is kept and given again to a retry with the same request, and a
//     reused key with another request is refused;
//   - the Go client, Client, which the CLI's client commands, the demo and
//     the soak drive nodes with.
//
// Capability is not authority: the bearer key never acts as the
// principal (no route issues an enrolment token or approves an act).
// Callers follow this contract:
//
//  1. Build the server with New(n, opts) over a node built with node.New:
//     it validates opts (Key of at least MinKeyBytes is required), does
//     no I/O and starts no goroutine. Routes answer 503 not_started until
//     the node has started.
//  2. Serve it (it is an http.Handler) on loopback; every request but the
//     public documents must present "Authorization: Bearer <key>", which
//     is checked before any body is read.
//  3. Send every POST with a fresh Idempotency-Key and repeat it only to
//     retry that act; an act runs to its end once its body is read, even
//     when its client went away, and its answer waits under the key.
//  4. At shutdown, call Close before the node's Close (register it with
//     http.Server.RegisterOnShutdown): it ends the event streams, refuses
//     new acts, gives running acts Options.ActGrace, then cancels them and
//     waits for them. Close is safe to call twice.
//  5. Clients: NewClient(baseURL, key) does no I/O; a refusal is an
//     *Error with the status and code, an unreachable node a
//     *TransportError, and the client's own retries reuse the call's
//     Idempotency-Key.
//
// api imports node, approval, ledger, negotiation, p2p and the leaf
// strictjson; only cmd imports it, and node/demo and node/soak use its
// client. node never imports it.
package api
