package engine

import (
	"sync"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/negotiation"
)

// Thread is one negotiation as a node holds it: the state machine's
// thread and what the node recorded about it. Every Apply and the ledger
// append that records it happen under the thread's lock (Engine.With),
// so the ledger's order of a negotiation's entries is the order the
// thread took them, and a replay of the ledger rebuilds the same thread.
// Its fields are read and changed only with the lock held.
type Thread struct {
	mu sync.Mutex

	// ID is the negotiation id.
	ID string
	// Params are what the state machine was opened with.
	Params negotiation.Params
	// Th is the state machine.
	Th *negotiation.Thread

	Role     negotiation.Role // this node's role when the thread was opened
	Observer bool             // joined late from a proof bundle (an arbitrator)
	Opened   bool             // thread.opened is recorded
	Dead     bool             // removed from the engine: look it up again

	Links    map[negotiation.Address]bool // identity.link recorded per party
	Recorded negotiation.State            // the last thread.state recorded
	Proofs   map[int]negotiation.CID      // proof CIDs the chain reported, per milestone
	Pending  []PendingFact                // chain facts refused for the thread's state, to retry
	Steps    int                          // thread.state records, for a room's version
	PXP      *PXP                         // PXP state: the mandate (nil until opened or replayed)
}

// NewThread returns a thread not yet recorded, opened with p for a node
// in role (observer: joined late from a proof bundle).
func NewThread(p negotiation.Params, role negotiation.Role, observer bool) (*Thread, error) {
	th, err := negotiation.NewThread(p)
	if err != nil {
		return nil, err
	}
	return &Thread{
		ID: p.NegotiationID, Params: p, Th: th, Role: role, Observer: observer,
		Links: map[negotiation.Address]bool{}, Proofs: map[int]negotiation.CID{},
	}, nil
}

// With runs f with the thread's lock held and returns what f returns: for
// a thread the caller holds by pointer (a fresh one, not registered yet);
// the lock is released when f returns, on every path.
func (t *Thread) With(f func() error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return f()
}

// Lock takes the thread's lock. It is for the callers not yet moved to
// Engine.With, which holds it for a closure; a caller of Lock unlocks on
// every path.
func (t *Thread) Lock() { t.mu.Lock() }

// TryLock takes the thread's lock if it is free and reports whether it
// did (tests ask it whether a lock is held).
func (t *Thread) TryLock() bool { return t.mu.TryLock() }

// Unlock releases the lock Lock or TryLock took.
func (t *Thread) Unlock() { t.mu.Unlock() }

// AnnouncementCID returns the CID of the announcement the thread answers,
// or cid.Undef.
func (t *Thread) AnnouncementCID() cid.Cid {
	if t.Params.Announcement == nil {
		return cid.Undef
	}
	return t.Params.Announcement.CID()
}

// PendingFact is a chain fact a thread refused for its state, to apply
// again after the thread's next change, and where the chain reported it.
type PendingFact struct {
	Fact negotiation.Fact
	At   LogRef
}

// LogRef names the log of a chain event: its transaction, its index in
// the block and the block.
type LogRef struct {
	Tx    string // the transaction hash, hex
	Index uint
	Block uint64
}

// Key returns the key a chain event is known by ("tx/index").
func (l LogRef) Key() string { return LogKey(l.Tx, l.Index) }
