// Package soak attacks a running devnet the way issue 12 of the project
// found it could be attacked, for a few minutes, while honest traffic
// goes on, and reports per attack what the attacker tried, what the nodes
// accepted, what they wrote to their ledgers, what became of the honest
// messages, and the attacked node's memory and goroutines before and
// after. `parley soak` (make soak) runs it; docs/benchmarks.md, "Under
// attack", has its figures.
//
// The attacks:
//
//  1. hostile peers: go-libp2p peers on loopback (p2p/hostile) that flood
//     the worker's /parley/envelope/1 with garbage frames, without and
//     with a throw-away identity, and peers that connect and never
//     identify themselves to hold the worker's inbound slots;
//  2. board flood: throw-away identities publish valid junk announcements
//     through the poster as fast as gossip takes them, while the poster's
//     own API is asked to post far beyond the board's rate;
//  3. session flood: MCP session openings against the worker without a
//     credential, and with the agent key beyond the session bound.
//
// The honest traffic in every phase (the baseline included): the poster
// posts a task a second through its API, the worker counters each one it
// sees on its board; an announcement is delivered when it is on the
// worker's board, a counter when the poster holds its negotiation.
//
// Callers follow this contract: Run(ctx, w, opts) drives the nodes it is
// given through their APIs, their p2p addresses and their MCP endpoints,
// never anything but loopback, and returns the report; CountEntries reads
// a stopped node's ledger to say what each phase wrote. soak imports
// node and node/api (its client), p2p and p2p/hostile, ledger and
// negotiation; only cmd imports it.
package soak
