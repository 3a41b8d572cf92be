// Package web owns the principal's pages: the HTML pages a node serves to
// the person whose passkeys authorise its acts. They list the approval
// requests waiting for a decision, show one act in plain words (amount,
// token, counterparty, task, what signing means, when it expires) with an
// Approve button that runs a WebAuthn assertion whose challenge is the
// request's intent hash and a Deny button that takes a reason, register
// passkeys (the first with the one-time enrolment token of the data
// directory, every further one after an existing passkey approved it),
// revoke them (approved by another passkey) and show the audit trail.
// They are also where the principal's own words come from, and the only
// place: a paused negotiation's question is answered, and an intent card
// pasted, as an approval request holding exactly that text (or the
// card's hash while the request shows every clause), which the principal
// approves with a passkey; the node then seals it via web. Cards and
// answers that arrive through the node's API or MCP are via api or mcp
// and wait for the same passkey confirmation.
//
// VXP's outside agents (docs/vxp.md) have two pages. /device is where the
// principal enters the user code an agent showed (RFC 8628's
// verification_uri) and reads the grant it waits for in plain words: the
// agent's client_id, each operation on each negotiation, how long, the
// agent key's thumbprint; it is approved or denied like every other
// pending request, with the passkey. /agents lists each agent of
// Options.Agents with its grants and requests and revokes grants: that
// only takes authority away, so it needs no passkey.
//
// The pages are server-rendered with html/template; the only script is
// one small file served by the node for the WebAuthn calls and the
// refresh of the pending list, and nothing loads from anywhere else (the
// Content-Security-Policy says so). The browser talks to the node only
// through same-origin JSON endpoints.
//
// Callers follow this contract:
//
//  1. Build the handler with New(n, opts): it validates the options, parses
//     the embedded templates, does no I/O and starts no goroutine.
//  2. Serve it on its own listener at an origin the node's WebAuthn
//     configuration names, http://localhost:<port> (browsers refuse an IP
//     address as RP ID, so the pages are opened at localhost; a request
//     for 127.0.0.1 or [::1] on that port is redirected there).
//  3. Every request must name an allowed Host (DNS rebinding is refused);
//     every POST must carry Content-Type application/json and an Origin
//     header equal to an allowed origin, which a form or a cross-site
//     page cannot forge (CSRF).
//
// web imports node, approval, negotiation and the leaf strictjson (its JSON
// bodies are read with it) and is imported only by cmd.
package web
