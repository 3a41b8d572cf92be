package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// OutboxStore keeps the transport's outbox in the ledger: an item is an
// outbox.queued entry (the envelope stored once under its CID), and its
// settlement an outbox.acked (delivered or held) or outbox.abandoned
// (refused) entry; an item held and later delivered has both acks. Every write is synced before it returns (the ledger's
// group commit), so an item put is never lost and an item settled is never
// sent again after a restart.
type OutboxStore struct {
	l *ledger.Ledger
}

var _ p2p.OutboxStore = (*OutboxStore)(nil)

// NewOutboxStore returns an OutboxStore over a started ledger.
func NewOutboxStore(l *ledger.Ledger) *OutboxStore { return &OutboxStore{l: l} }

// outboxBody is the body of the outbox entries; the envelope is named by
// "envelope" (the ledger reserves "cid" for the object an entry stores).
type outboxBody struct {
	Envelope string `json:"envelope"`
	To       string `json:"to"`
	Status   string `json:"status,omitempty"`
	Code     string `json:"code,omitempty"`
}

// Put records item as outbox.queued, storing the envelope's bytes under
// its CID unless the ledger holds them already.
func (s *OutboxStore) Put(ctx context.Context, item p2p.OutboxItem) error {
	rec, err := queuedRecord(item)
	if err != nil {
		return err
	}
	if _, err := s.l.Object(ctx, item.CID); errors.Is(err, ledger.ErrNotFound) {
		rec.Object, rec.ObjectCodec = item.Envelope, ledger.CodecJSON
	} else if err != nil {
		return fmt.Errorf("node: outbox put: %w", err)
	}
	_, existed, err := s.l.Append(ctx, rec)
	if err != nil {
		return fmt.Errorf("node: outbox put: %w", err)
	}
	if existed {
		// Stored concurrently since the check: record the item without
		// the object.
		rec.Object = nil
		if _, _, err := s.l.Append(ctx, rec); err != nil {
			return fmt.Errorf("node: outbox put: %w", err)
		}
	}
	return nil
}

// queuedRecord returns item's outbox.queued record, naming the envelope
// by its CID only: Put adds the envelope's bytes when the ledger lacks
// them; in a send step the envelope.sent record before it stores them.
func queuedRecord(item p2p.OutboxItem) (ledger.Record, error) {
	body, err := json.Marshal(outboxBody{Envelope: item.CID.String(), To: item.To.String()})
	if err != nil {
		return ledger.Record{}, err
	}
	return ledger.Record{Kind: ledger.KindOutboxQueued, NegotiationID: item.NegotiationID, Body: body, At: item.Queued}, nil
}

// queuedRecords returns the outbox.queued records of env's outbox items
// (p2p.Host.Outgoing's), for the ledger batch whose envelope.sent record
// stores env: written in that batch (one ledger.AppendAll, all or none,
// one synced commit shared with concurrent appends), the items are stored
// as Put stores them, and Pending finds them after a restart. An item of
// another envelope is refused: its bytes would not be stored.
func queuedRecords(env *negotiation.Envelope, items []p2p.OutboxItem) ([]ledger.Record, error) {
	recs := make([]ledger.Record, 0, len(items))
	for _, it := range items {
		if !it.CID.Equals(env.CID()) || it.NegotiationID != env.NegotiationID {
			return nil, fmt.Errorf("node: outbox item %s/%s is not of envelope %s", it.CID, it.To, env.CID())
		}
		r, err := queuedRecord(it)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// PutSent records env as sent by this node (envelope.sent, which stores
// its bytes, at at) and its outbox items (p2p.Host.Outgoing's) in one
// ledger batch: one synced commit, shared with concurrent appends and
// batches (the ledger's group commit), after which the entry and the
// items are stored or, when it returns an error, neither is. It is the
// transport's part of the node's send step (whose batch adds the thread's
// records to the same two); hand the items to p2p.Host.Queued once it
// returns nil.
func (s *OutboxStore) PutSent(ctx context.Context, env *negotiation.Envelope, items []p2p.OutboxItem, at time.Time) error {
	sent, err := ledger.EnvelopeRecord(ledger.KindEnvelopeSent, env, "ok", at)
	if err != nil {
		return fmt.Errorf("node: outbox put: %w", err)
	}
	queued, err := queuedRecords(env, items)
	if err != nil {
		return err
	}
	if _, err := s.l.AppendAll(ctx, append([]ledger.Record{sent}, queued...)...); err != nil {
		return fmt.Errorf("node: outbox put: %w", err)
	}
	return nil
}

// Settle records that item left the outbox: outbox.acked for delivered
// and held, outbox.abandoned for refused.
func (s *OutboxStore) Settle(ctx context.Context, item p2p.OutboxItem, status p2p.OutboxStatus, code p2p.Code) error {
	kind := ledger.KindOutboxAcked
	if status == p2p.StatusRefused {
		kind = ledger.KindOutboxAbandoned
	}
	body, err := json.Marshal(outboxBody{Envelope: item.CID.String(), To: item.To.String(), Status: string(status), Code: string(code)})
	if err != nil {
		return err
	}
	if _, _, err := s.l.Append(ctx, ledger.Record{Kind: kind, NegotiationID: item.NegotiationID, Body: body, At: time.Now()}); err != nil {
		return fmt.Errorf("node: outbox settle: %w", err)
	}
	return nil
}

type outboxKey struct {
	cid string
	to  string
}

// Pending returns the items queued and not settled delivered or refused,
// oldest first, with their envelopes read back from the ledger; an item
// settled held (a store node has it) comes back with Held set, waiting
// for the recipient's own ack. It scans the outbox entries once (at
// start).
func (s *OutboxStore) Pending(ctx context.Context) ([]p2p.OutboxItem, error) {
	done := make(map[outboxKey]bool)
	held := make(map[outboxKey]bool)
	for _, kind := range []string{ledger.KindOutboxAcked, ledger.KindOutboxAbandoned} {
		for e, err := range s.l.ByKind(ctx, kind) {
			if err != nil {
				return nil, fmt.Errorf("node: outbox pending: %w", err)
			}
			var b outboxBody
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return nil, fmt.Errorf("node: outbox entry %d: %w", e.Seq, err)
			}
			// delivered and refused end the sender's retries; held (a
			// store node has it) ends its hand-overs, and the recipient's
			// own ack settles it delivered.
			if b.Status == string(p2p.StatusHeld) {
				held[outboxKey{b.Envelope, b.To}] = true
				continue
			}
			done[outboxKey{b.Envelope, b.To}] = true
		}
	}
	var out []p2p.OutboxItem
	seen := make(map[outboxKey]bool)
	for e, err := range s.l.ByKind(ctx, ledger.KindOutboxQueued) {
		if err != nil {
			return nil, fmt.Errorf("node: outbox pending: %w", err)
		}
		var b outboxBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return nil, fmt.Errorf("node: outbox entry %d: %w", e.Seq, err)
		}
		k := outboxKey{b.Envelope, b.To}
		if done[k] || seen[k] {
			continue
		}
		seen[k] = true
		c, err := cid.Decode(b.Envelope)
		if err != nil {
			return nil, fmt.Errorf("node: outbox entry %d: %w", e.Seq, err)
		}
		to, err := negotiation.ParseAddress(b.To)
		if err != nil {
			return nil, fmt.Errorf("node: outbox entry %d: %w", e.Seq, err)
		}
		env, err := s.l.Object(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("node: outbox entry %d: envelope %s: %w", e.Seq, c, err)
		}
		out = append(out, p2p.OutboxItem{CID: c, To: to, NegotiationID: e.NegotiationID, Envelope: env, Queued: e.At, Held: held[k]})
	}
	return out, nil
}
