// Package engine holds the negotiation threads of a node and their one
// write path: the map from negotiation id to Thread (the state machine's
// negotiation.Thread and what the node recorded about it, with the
// thread's PXP state), the index from task id to negotiation, the chain
// events recorded, the batch in which every step is written to the
// ledger, and the bodies of the ledger entries it writes (thread.opened,
// identity.link, thread.state, chain.event) with the replay of chain
// facts from them, and the replay of a thread's PXP state (its mandate)
// from the PXP records.
//
// Callers (node) follow this contract:
//
//  1. Build an Engine with New(Config): it does no I/O and starts no
//     goroutine. Give it the ledger with Open once the node has opened
//     it, before the first Write.
//  2. Reach a thread only through the engine: With(nid, f) runs f with
//     the thread's lock held and releases it when f returns, on every
//     path; Each does the same for every thread in negotiation-id order.
//     Thread.With does the same for a thread held by pointer (a fresh
//     one). Nothing is read or changed on a Thread without its lock.
//     (Thread.Lock and Thread.Unlock remain for a fresh thread a caller
//     holds from Claim or NewThread until its first step; Claim returns
//     it locked.)
//  3. A step (an envelope sent or received, a chain fact: Send,
//     Receive, ApplyFact) is judged first with negotiation.Thread.Check,
//     which changes nothing (and, for an own envelope, by the caller's
//     check: the node's mandate); its
//     records go into one Batch in a defined order (the announcement
//     answered and thread.opened when the thread is new, card.sealed, an
//     identity.link the first time, the envelope or chain.event, the
//     thread.state Check reported, and for an own envelope the records
//     that queue it for delivery: the node's outbox items, so that no
//     envelope.sent is ever stored without them, nor they without it)
//     and are written by one Write, one
//     ledger.AppendAll, all or none; only then is the input applied
//     (Thread.Apply, then the thread's mandate: Mandate.Sent or
//     Received) and the batch's effects run. A refused step and a
//     step whose record failed leave the thread as it was: nothing is
//     applied and then undone by replaying the ledger.
//  4. A fresh thread (the first envelope of a negotiation) is Claimed,
//     locked, before its first step, Registered once that step is
//     written and Dropped otherwise; a thread whose agreement names a
//     task is Indexed so that chain events find it (ByTask).
//  5. Chain facts go through ApplyFact: an event recorded before is a
//     duplicate; a fact refused for the thread's state is kept pending
//     and applied again by Retry, which the node calls after every step
//     that changed the thread.
//  6. At start Load replays every thread from the ledger
//     (ledger.ReplayThread with ReplayFact, the chain facts that took
//     effect, in the order they did) and Registers it; LoadHooks let the
//     node see every entry and rebuild what it keeps beside a thread.
//
// Its errors are sentinels that know their class (errors.go: ErrUnknown,
// ErrNoLedger, ErrNotRecorded); the node gives its own codes to what
// reaches its callers.
//
// The engine's own lock guards its maps only: it is never held while a
// thread's lock is taken (except a fresh, unshared one in Claim) or a
// caller's function runs, so it may be taken under any other lock.
//
// engine imports negotiation, identity and ledger of the module (besides
// the standard library, only go-cid): never p2p, chain, node/gate or
// node. What it needs from the node that holds it (the clock, the error
// for a negotiation it does not hold, the thread-count metric, who is
// told of a recorded state and of a chain fact, the board's first-seen
// time of an announcement, the intent card a new thread takes, a logger)
// comes in its Config as small functions (STYLE.md: a container is not a service); the node wires it,
// keeps the transport and the chain, and calls the engine.
package engine
