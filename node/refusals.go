package node

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// RefusalView is an envelope this node sent that its recipient refused
// with a final code: a consent refusal (consent_denied, consent_limit) or
// input it found not authentic. The outbox stopped delivering it; its
// outbox.abandoned entry holds the same.
type RefusalView struct {
	// Envelope is the refused envelope's hash, when the thread holds it.
	Envelope *negotiation.Hash   `json:"envelope,omitempty"`
	CID      string              `json:"cid"`
	To       negotiation.Address `json:"to"`
	Code     string              `json:"code"`
	At       time.Time           `json:"at"`
}

// refusals keeps, per negotiation, the refusals of this node's envelopes,
// rebuilt at start from the outbox's abandoned entries. It owns its map
// and its lock (a leaf).
type refusals struct {
	now    func() time.Time
	events *broadcaster

	mu sync.Mutex
	by map[string][]RefusalView
}

func newRefusals(now func() time.Time, events *broadcaster) *refusals {
	return &refusals{now: now, events: events, by: map[string][]RefusalView{}}
}

func (r *refusals) add(nid string, v RefusalView) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.by[nid] {
		if x.CID == v.CID && x.To == v.To {
			return
		}
	}
	r.by[nid] = append(r.by[nid], v)
}

func (r *refusals) of(nid string) []RefusalView {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RefusalView(nil), r.by[nid]...)
}

// note shows a recipient's final refusal of an envelope of this
// node to its principal: in the negotiation's view (ThreadView.Refused)
// and as an EventRefused (the transport's callback: it must not block).
func (r *refusals) note(ev p2p.Event) {
	if !ev.CID.Defined() {
		return
	}
	now := r.now()
	r.add(ev.NegotiationID, RefusalView{CID: ev.CID.String(), To: ev.To, Code: string(ev.Code), At: now})
	r.events.publish(Event{Kind: EventRefused, NegotiationID: ev.NegotiationID, CID: ev.CID.String(),
		Code: string(ev.Code), Detail: ev.To.String(), Direction: "sent", At: now})
}

// load rebuilds the refusals from led's outbox.abandoned entries (at
// start).
func (r *refusals) load(ctx context.Context, led *ledger.Ledger) error {
	for e, err := range led.ByKind(ctx, ledger.KindOutboxAbandoned) {
		if err != nil {
			return fmt.Errorf("node: load refusals: %w", err)
		}
		var b outboxBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return fmt.Errorf("node: load refusals: entry %d: %w", e.Seq, err)
		}
		to, err := negotiation.ParseAddress(b.To)
		if err != nil {
			return fmt.Errorf("node: load refusals: entry %d: %w", e.Seq, err)
		}
		r.add(e.NegotiationID, RefusalView{CID: b.Envelope, To: to, Code: b.Code, At: e.At})
	}
	return nil
}

// ofThread returns t's refusals with the hashes of self's envelopes (t.mu
// held).
func (r *refusals) ofThread(t *thread, self negotiation.Address) []RefusalView {
	rs := r.of(t.id)
	if len(rs) == 0 {
		return nil
	}
	byCID := map[string]negotiation.Hash{}
	for _, rec := range t.th.Log() {
		if e := t.th.Envelope(rec.Hash); e != nil && rec.Sender == self {
			byCID[e.CID().String()] = rec.Hash
		}
	}
	for i := range rs {
		if h, ok := byCID[rs[i].CID]; ok {
			rs[i].Envelope = &h
		}
	}
	return rs
}
