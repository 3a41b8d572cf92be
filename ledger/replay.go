package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/ipfs/go-cid"
	"github.com/parleynet/parley/negotiation"
)

// FactFunc turns a chain.event entry into the chain fact the state machine
// takes, or returns nil to skip it. The ledger stores chain events as the
// chain layer writes them and does not interpret them.
type FactFunc func(Entry) (negotiation.Fact, error)

// ReplayThread rebuilds negotiation p.NegotiationID's thread from the
// ledger alone (see replay).
func (l *Ledger) ReplayThread(ctx context.Context, p negotiation.Params, fact FactFunc) (*negotiation.Thread, error) {
	return replay(p, l.ByNegotiation(ctx, p.NegotiationID), func(c cid.Cid) ([]byte, error) { return l.Object(ctx, c) }, fact)
}

// ReplayThread rebuilds the bundle's negotiation thread from the verified
// bundle alone (see replay).
func (r *BundleReport) ReplayThread(p negotiation.Params, fact FactFunc) (*negotiation.Thread, error) {
	if p.NegotiationID != r.NegotiationID {
		return nil, fmt.Errorf("ledger: replay of %s from a bundle of %s", p.NegotiationID, r.NegotiationID)
	}
	envs := make(map[cid.Cid]*negotiation.Envelope, len(r.Envelopes))
	for _, env := range r.Envelopes {
		envs[env.CID()] = env
	}
	entries := func(yield func(Entry, error) bool) {
		for _, e := range r.Negotiation {
			if !yield(e, nil) {
				return
			}
		}
	}
	return replay(p, entries, func(c cid.Cid) ([]byte, error) {
		if env, ok := envs[c]; ok {
			return env.Bytes(), nil
		}
		return nil, fmt.Errorf("object %s: %w", c, ErrNotFound)
	}, fact)
}

// replay rebuilds a negotiation's thread from its entries alone: every envelope.sent and envelope.received entry is decoded from its
// object and applied at the entry's time (at, which a node sets to the time
// it passed to Apply), and every chain.event entry is applied as the fact
// fact returns. It checks that the state machine takes the same decision
// the entry recorded (body.code: "ok" or the refusal) and returns the
// rebuilt thread, or an error naming the first entry that disagrees.
// Envelopes pruned under the retention rule cannot be replayed.
func replay(p negotiation.Params, entries iter.Seq2[Entry, error], object func(cid.Cid) ([]byte, error), fact FactFunc) (*negotiation.Thread, error) {
	th, err := negotiation.NewThread(p)
	if err != nil {
		return nil, err
	}
	for e, err := range entries {
		if err != nil {
			return nil, err
		}
		if e.NegotiationID != p.NegotiationID {
			continue
		}
		var in negotiation.Input
		var recorded string
		switch e.Kind {
		case KindEnvelopeSent, KindEnvelopeReceived:
			b, err := object(e.CID)
			if err != nil {
				return nil, fmt.Errorf("ledger: replay entry %d: %w", e.Seq, err)
			}
			env, err := negotiation.Decode(b, negotiation.DecodeOptions{MaxBytes: len(b)})
			if err != nil {
				return nil, fmt.Errorf("ledger: replay entry %d: %w", e.Seq, err)
			}
			var body struct {
				Code string `json:"code"`
			}
			if err := json.Unmarshal(e.Body, &body); err != nil {
				return nil, fmt.Errorf("ledger: replay entry %d: %w", e.Seq, err)
			}
			in, recorded = env, body.Code
		case KindChainEvent:
			if fact == nil {
				continue
			}
			f, err := fact(e)
			if err != nil {
				return nil, fmt.Errorf("ledger: replay entry %d: %w", e.Seq, err)
			}
			if f == nil {
				continue
			}
			in = f
		default:
			continue
		}
		out := th.Apply(in, e.At)
		got := string(out.Code)
		if got == "" {
			got = "ok"
		}
		if recorded != "" && got != recorded {
			return nil, fmt.Errorf("ledger: replay entry %d: the state machine answers %s, the ledger recorded %s", e.Seq, got, recorded)
		}
		if recorded == "" && !out.Effective() {
			return nil, fmt.Errorf("ledger: replay entry %d: the chain fact is refused: %v", e.Seq, out.Err)
		}
	}
	return th, nil
}
