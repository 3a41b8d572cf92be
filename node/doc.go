// Package node is Parley's composition root: it wires the identity keys,
// the ledger, the peer-to-peer transport, the chain client and the approval
// gate, owns their lifecycles, and runs one negotiation thread per
// negotiationId on top of them, held by node/engine (the threads, their
// locks and their one write path: the node calls the engine and keeps
// the transport and the chain). It is the only package that knows all of
// them; the parts behind it never import each other, so node adapts one to
// another's interface (OutboxStore puts the ledger behind p2p.OutboxStore,
// the Node is the transport's Handler and BlobProvider, a ledger cursor
// backs the chain watcher).
//
// The Node is a container, not a service: what is not wiring, lifecycle
// or an act is a small service type the Node holds as a field, each
// owning its state and its lock (a leaf), built in New or given the
// ledger at Start: the task board (board; at Start it takes the
// announcements the ledger holds as the engine loads), the principal's
// consent list (ConsentBook, reached through Node.ConsentBook), the
// ledger's integrity (ledgerCheck; it also gives the engine its error for
// a negotiation not held, quarantined or unknown), the evidence of
// rejected input (rejectionLog), the refusals of this node's envelopes
// (refusals), the negotiations' files, stored and fetched (blobStore), the
// metadata of the ERC-20 tokens tasks name, read once per token
// (tokenBook), the ledger's signed tree heads and their anchors on chain
// (treeHeads, anchor.go: it serialises signing and anchoring and holds the
// day's anchor gas, counted from the ledger's tree.anchor entries; the
// engine's DisputeOpened fact wakes it through chainActs), the
// hand-over of a thread to an arbitrator, a replacement worker or a
// supervisor, the late join from its proof bundle and the dispute's
// evidence topic (handover; the supervisor's side, its supervision notice
// and the veto, are in veto.go; it also gets the address, the keys (which
// sign the tree head of the version-2 bundles it hands over: every bundle
// the node makes, the API's export too, is of version 2, through
// treeHeads.export), the chain and the transport's
// links and topics at Start, and the node's send and fact paths as
// functions), the verification of proof bundles (bundle.go: VerifyBundle,
// and VerifyBundleWith, which names each check and with a chain holds a
// bundle's tree head to the anchors its signer posted; compare.go:
// CompareBundles, both parties' bundles envelope by envelope), the event stream (broadcaster), the stores' opener
// (storeOpener), the chain side of the acts (chainActs: the co-signed
// pairs it signs, submits and submits again, the task's state on chain,
// and the chain facts of contract events and of the node's own receipts,
// applied through the engine, an amendment's read from the thread's
// co-signed envelope; it owns no lock and is given the engine,
// the chain client and the few node functions it calls back, not the
// Node) and PXP (pxpService: the principal's intent cards, the mandate
// before every send, the escalations and answers, the rooms; it gets the
// engine and the node's write, send, approval and spawn functions, and
// the ledger, the address and the logger at Start, never the Node; it
// also judges an acceptance against the card before its approval is
// asked), and the node's two transport paths: the way out (sender: builds
// this node's envelopes, has the engine and the mandate judge and record
// them, and queues them in the transport's outbox; the acts, chainActs,
// handover and pxpService send through its method) and the way in
// (receiver: the transport's deliveries and events, to the board, the
// consent book, the hand-over, the engine and the rejection evidence; it
// owns the lock that makes a thread's look-up and claim one step, and
// Node.HandleEnvelope is a thin call into it). Both get the engine and the
// services they use in New, and the address, the keys or the ledger, the
// logger and the outbox at Start, never the Node. The watch over the
// contracts' timeout exits (timeoutWatch, timeouts.go) holds the exits
// due at the last scan and those its policy took; the scan and the three
// exits are the Node's (they read the engine and the chain, and run the
// acts through the runner). What reads no more than
// these services and the node's address, clock or configuration is a
// plain function of what it reads, not a method of the Node (the
// auto-gate start check, an offer's terms, a gated act's task title, the
// fresh thread answering an announcement, the settlement an acceptance
// signs). The chain's registries and contract arbitrators (identity.go,
// scope.go, court.go) keep three small leaves: the last look-up of each
// address's IdentityLink record (registryLinks), the last scope check of
// each announcement (scopeChecks) and the ERC-1497 documents served to a
// court's operator (courtFiles).
//
// Callers follow this contract (docs/node.md has the details):
//
//  1. Build a Node with New(cfg, opts...): it validates and does no I/O;
//     options reject nil and conflicting values. WithPassphrase is required.
//  2. Start opens the keys, the ledger and the approval store (each
//     checked against its record beside it: a store that reset silently
//     refuses the start with CodeStoreRefused unless WithReset asks to
//     archive it), rebuilds every thread from the ledger through the state
//     machine, opens the chain client and the transport, starts the full
//     verification of the ledger in the background, and resumes interrupted
//     work. Close stops everything in reverse order and waits for every
//     goroutine; it is safe to call twice.
//  3. Acts (PostTask, ProposeTask, Counter, Accept, Fund, Deliver,
//     AcceptDelivery, OpenDispute, ProposeArbitrator, SubmitEvidence, Rule,
//     Withdraw...) run through one runner that checks that the node runs,
//     the chain when the act needs it and the act table (negotiation's
//     Thread.May: role, state, arguments; the node writes no role or state
//     rule of its own) and counts the result once. They pass every gated
//     act through the one node/gate Gate (recording request, decision and
//     consumption in the ledger first), build envelopes with the inbox
//     key, have the engine judge them first (Engine.Send: Thread.Check
//     and the mandate), record them and only then apply them, and only
//     then queue them in the durable outbox; nothing is applied and then
//     undone. A refused
//     act returns an *Error with a stable Code and changes nothing; an act
//     that rests on a damaged ledger entry is refused with
//     CodeLedgerDamaged.
//  4. Received envelopes and chain events are recorded before they take
//     effect (Engine.Receive, Engine.Fact). The records of one step (an envelope sent or received or a
//     chain event, with the thread's opening, card, identity link and
//     state it causes) are written by one ledger.AppendAll, all or none,
//     in a defined order, and what the node keeps in memory about them
//     changes only once it is written; every thread is always what the
//     ledger replays to.
//
// node imports p2p, ledger, chain, approval, negotiation, identity,
// storeguard and strictjson, node/gate (the approval of gated acts: the
// node builds one at Start and hands it to the pages and the API through
// Gate) and node/engine (the threads and their one write path, which the
// node wires with small functions: the clock, the consent book and the
// event stream told of a recorded state, the board's first-seen time, the
// card a new thread takes); never contracts/bindings
// (contract events reach it as facts, chain.FactOf), cmd or a package
// above it. The packages above it
// (node/api, node/web, node/mcp, node/demo, node/soak, node/loadtest) are
// imported only by cmd (node/demo and node/soak use node/api's client), and
// node/nodetest only by tests.
package node
