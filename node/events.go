package node

import (
	"sync"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// EventKind names what an Event reports.
type EventKind string

// Event kinds.
const (
	// EventEnvelope: an envelope was sent or received and recorded.
	EventEnvelope EventKind = "envelope"
	// EventState: a thread's state changed.
	EventState EventKind = "state"
	// EventFact: a chain fact was applied to a thread.
	EventFact EventKind = "fact"
	// EventAnnouncement: an announcement reached the task board.
	EventAnnouncement EventKind = "announcement"
	// EventApproval: an approval request was made or decided.
	EventApproval EventKind = "approval"
	// EventFile: a delivered or evidence file was fetched and checked
	// against its CID.
	EventFile EventKind = "file"
	// EventJoined: the node joined a thread late from a proof bundle.
	EventJoined EventKind = "joined"
	// EventTopic: an envelope arrived on a dispute's evidence topic
	// (whatever its outcome; Detail names the topic).
	EventTopic EventKind = "topic"
	// EventRefused: a recipient refused an envelope this node sent, with
	// a final code (a consent refusal, or input it found not authentic):
	// the outbox stopped; Detail names the recipient, CID the envelope.
	EventRefused EventKind = "refused"
	// EventConsent: the principal changed a counterparty's consent state
	// (Detail the address, Code the new state).
	EventConsent EventKind = "consent"
	// EventTimeout: a timeout exit became due on chain (Fact the act,
	// Detail claim_unanswered's milestone, Code "due"): the principal may
	// take it (timeouts.go).
	EventTimeout EventKind = "timeout"
	// EventAnchor: the node anchored its tree head on chain (Code "ok",
	// Hash the transaction) or could not (Code anchor_budget, chain_failed,
	// ...); Detail is why it anchored: interval, dispute or demand.
	EventAnchor EventKind = "anchor"
	// EventAudit: an audit of another node's ledger ended (Code "ok",
	// inconsistent_with_anchor or forged_head; Detail the node's address).
	EventAudit EventKind = "audit"
)

// Event is one thing that happened to the node's threads, for the API's
// event stream and for tests that wait on the node.
type Event struct {
	Kind          EventKind               `json:"kind"`
	NegotiationID string                  `json:"negotiationId,omitempty"`
	State         negotiation.State       `json:"state,omitempty"`
	From          negotiation.State       `json:"from,omitempty"`
	Type          negotiation.MessageType `json:"type,omitempty"`
	Hash          string                  `json:"hash,omitempty"`
	Direction     string                  `json:"direction,omitempty"` // sent or received
	Code          string                  `json:"code,omitempty"`
	Fact          string                  `json:"fact,omitempty"`
	CID           string                  `json:"cid,omitempty"`
	Detail        string                  `json:"detail,omitempty"`
	At            time.Time               `json:"at"`
}

// broadcaster fans events out to subscribers without ever blocking the
// node: a subscriber that does not keep up misses events (counted).
type broadcaster struct {
	mu      sync.Mutex
	subs    map[chan Event]struct{}
	closed  bool
	dropped uint64
}

func newBroadcaster() *broadcaster { return &broadcaster{subs: map[chan Event]struct{}{}} }

func (b *broadcaster) publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- e:
		default:
			b.dropped++
		}
	}
}

func (b *broadcaster) subscribe(buf int) (<-chan Event, func()) {
	ch := make(chan Event, buf)
	b.mu.Lock()
	if b.closed {
		close(ch)
		b.mu.Unlock()
		return ch, func() {}
	}
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.subs[ch]; ok {
			delete(b.subs, ch)
			close(ch)
		}
	}
}

func (b *broadcaster) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for ch := range b.subs {
		delete(b.subs, ch)
		close(ch)
	}
}

// Subscribe returns a channel of the node's events, buffered to buf (at
// least 1), and a function that ends the subscription. Events a slow
// reader misses are dropped, never waited for; the channel closes when
// the node closes.
func (n *Node) Subscribe(buf int) (<-chan Event, func()) {
	return n.events.subscribe(max(buf, 1))
}
