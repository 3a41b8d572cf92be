// Package mcp is a node's MCP server: PXP's transport binding (Model
// Context Protocol over Streamable HTTP with JSON responses), so any
// MCP-capable agent can sit in its principal's seat of a Parley
// negotiation. A room is one negotiation as this node sees it; the seat
// link is the credential for everything in that seat, and tools that act
// without a seat (create_room, taking a seat on a negotiation the node
// already has, posting and listing tasks) need the principal's agent key
// as an Authorization: Bearer header, never as an argument. A session
// opens only with that key or a current seat link (the Parley-Seat
// header); sessions are bounded in number (Options.MaxSessions) and idle
// time (Options.SessionTimeout), and request bodies must be strict JSON
// (package strictjson).
//
// The server talks to its node only through Backend (the rooms) and Acts
// (Parley's own acts); NodeBackend adapts a *node.Node. Envelopes an agent
// sends pass through the node's own enforcement: the server checks the
// shape of arguments and the seat, never protocol rules.
//
// Callers build the handler with New and serve it, typically under /mcp
// on the node's API listener (docs/mcp.md). The package imports node,
// negotiation, strictjson and the MCP SDK; node never imports it.
package mcp
