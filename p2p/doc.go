// Package p2p is Parley's peer-to-peer transport: a go-libp2p host that
// moves sealed envelopes between nodes and knows no negotiation rules. It
// owns
//
//   - the host (TCP and QUIC, Noise, yamux, the resource manager with
//     explicit limits, a connection manager; the inbox key is the libp2p
//     identity), with mDNS, NAT traversal and relays off unless configured,
//     and no public bootstrap peers ever;
//   - /parley/identity/1, the handshake in which peers exchange and verify
//     identity links and a peer whose link fails is disconnected;
//   - admission (the guard, the host's connection gater): only a peer that
//     completed the handshake has its envelope frames looked at, one that
//     does not within IdentifyTimeout is disconnected, unidentified peers
//     hold at most MaxUnidentified inbound connections, each identified
//     peer has a budget of frames and bytes, and a peer over it or sending
//     mostly garbage is banned (disconnected, refused, scored down);
//   - /parley/envelope/1, direct delivery on one long-lived stream per peer
//     with acks {cid, code}, and the durable outbox behind it (retries with
//     backoff and jitter across restarts, re-keys on unknown_session, held
//     envelopes re-offered when the gap before them fills);
//   - /parley/blob/1, files by CID, sealed to the requester and checked
//     against the CID;
//   - /parley/ledger-consistency/1, RFC 6962 consistency proofs between
//     two sizes of a node's ledger tree with its latest signed tree head,
//     for auditors (a ConsistencyProvider the node implements answers;
//     bounded requests, a rate per peer);
//   - gossipsub topics (the task board, dispute evidence threads) with
//     validators and peer scoring;
//   - discovery (configured bootstrap peers, a Kademlia DHT under /parley
//     with signed address records, opt-in mDNS);
//   - /parley/mailbox/1, store nodes' mailbox hand-over and topic history.
//
// docs/p2p.md pins every frame format and parameter. Callers follow this
// contract:
//
//  1. Fill a Config from DefaultConfig with the node's keys (Inbox, Link,
//     Sealer) and the components it owns (Outbox, Handler, and optionally
//     Blobs, Mailbox, OnEvent); New checks it and does no I/O.
//  2. Start listens, dials the bootstrap peers and resumes the outbox.
//     Close stops everything and waits for every goroutine it started; it is
//     safe to call twice.
//  3. Send stores an envelope in the outbox and returns (or Outgoing
//     gives its outbox items for the caller to store in its own durable
//     write, and Queued queues them once stored: the node writes them in
//     the ledger batch that records the envelope); the Handler
//     receives envelopes (direct, from topics, from a store's mailbox) and
//     must store them durably before it returns its code, because the ack
//     follows. OnEvent reports what the node records: peers rejected,
//     envelopes delivered, held or refused, and input the transport itself
//     rejected (by hash and code only; the handler records its own).
//  4. Before it posts an announcement, the node asks ReserveAnnouncement
//     whether receivers would accept it now (the per-publisher rate).
//
// p2p imports negotiation (to decode and verify envelopes) and identity
// (links and sealing). It must never import ledger, chain, approval or
// node: the node implements OutboxStore, Handler, BlobProvider and
// MailboxStore over the ledger. Its tests may import ledger, node and
// p2p/hostile (a misbehaving peer for tests and the soak).
package p2p
