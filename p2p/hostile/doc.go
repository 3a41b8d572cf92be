// Package hostile is a misbehaving Parley peer, for the transport's tests
// and the soak: a raw go-libp2p host on loopback that speaks Parley's
// protocols badly. It owns
//
//   - Identity, a throw-away Parley identity (inbox, EVM and encryption
//     keys and the link that binds them), which anyone can make in a few
//     milliseconds: envelopes, sealed frames and task-board bundles from it
//     are valid;
//   - Peer, a libp2p host that connects, optionally completes the identity
//     handshake with a throw-away identity, floods /parley/envelope/1 with
//     whatever frames it is given without waiting for acks (counting the
//     acks by code), and publishes whatever bytes it is given on the task
//     board through a gossipsub router without Parley's validators.
//
// Callers (tests, the soak) bound every attack in count and time; the peer
// listens on 127.0.0.1 only and dials only what it is given. A Peer is
// started with Start and stopped with Close, which waits for the
// goroutines it started.
//
// hostile imports p2p (protocol ids and codes), identity and negotiation;
// nothing but tests and the soak import it.
package hostile
