package p2p

import (
	"context"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// Delivery is one received envelope, authentic as far as the transport can
// tell: it opened (when sealed), decoded strictly, its signature verified,
// its sender matches the sender's verified identity link, and a direct
// envelope names this node among its recipients.
type Delivery struct {
	// Envelope is the decoded, verified envelope.
	Envelope *negotiation.Envelope
	// Sender is the verified identity link of the envelope's sender.
	Sender *identity.Link
	// From is the peer the bytes came from: the sender itself, a store node
	// handing over its mailbox, or a gossip neighbour.
	From peer.ID
	// Topic is the gossip topic the envelope arrived on; "" for direct
	// delivery and mailbox hand-over.
	Topic string
}

// Handler is the envelope's owner, implemented by the node: it stores the
// envelope durably and applies it. It returns, only after the envelope is
// on disk:
//
//   - "ok" when it stored the envelope (its effect taken), or an effect
//     code of negotiation (Code.Authentic) when it stored the envelope but
//     refused its effect;
//   - "duplicate" when an envelope with this CID was stored before (it must
//     check durably, so that each envelope takes effect once across
//     restarts);
//   - a retryable code ("sequence_gap", "missing_reference",
//     "clock_skew", "busy") when it stored nothing and may accept the same
//     bytes later; the transport holds the envelope and offers it again;
//   - any other code (equivocation, previous_hash_mismatch...) for input
//     that is not authentic: the sender records it and stops retrying.
//
// For topic deliveries the code is only logged. p2p knows no negotiation
// rules: everything beyond authenticity is the handler's to decide.
type Handler interface {
	HandleEnvelope(ctx context.Context, d Delivery) negotiation.Code
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, d Delivery) negotiation.Code

// HandleEnvelope calls f.
func (f HandlerFunc) HandleEnvelope(ctx context.Context, d Delivery) negotiation.Code {
	return f(ctx, d)
}

// EventKind names an Event.
type EventKind string

// Event kinds.
const (
	// EventPeerVerified: a peer's identity link verified on /parley/identity/1.
	EventPeerVerified EventKind = "peer.verified"
	// EventPeerRejected: a peer's link failed (or named another peer id);
	// the peer was disconnected. Code says why.
	EventPeerRejected EventKind = "peer.rejected"
	// EventDelivered: the recipient acked an outgoing envelope (ok or
	// duplicate or an effect code).
	EventDelivered EventKind = "envelope.delivered"
	// EventHeld: a store node acked an outgoing envelope; it holds it for
	// the recipient.
	EventHeld EventKind = "envelope.held"
	// EventRefused: the recipient rejected an outgoing envelope as not
	// authentic; the outbox stops retrying it.
	EventRefused EventKind = "envelope.refused"
	// EventInputRejected: this node rejected received input as not
	// authentic; Hash, Size and Code describe it (record by hash and code
	// only).
	EventInputRejected EventKind = "input.rejected"
)

// Event reports something the node records in its ledger or shows its
// operator.
type Event struct {
	Kind EventKind
	// Peer is the remote peer involved.
	Peer peer.ID
	// To is the EVM address involved: the recipient of an outgoing
	// envelope, or the verified peer's address on EventPeerVerified.
	To negotiation.Address
	// CID names the envelope, when known.
	CID cid.Cid
	// NegotiationID is the envelope's negotiation, when known.
	NegotiationID string
	// Hash and Size describe rejected input (SHA-256 of the bytes as
	// received).
	Hash [32]byte
	Size int
	// Code is the ack or rejection code.
	Code Code
	// Topic is set for input rejected on a topic.
	Topic string
	// Path is how an envelope reached the peer that acked it, on
	// EventDelivered (direct or relayed) and EventHeld (store).
	Path Path
}
