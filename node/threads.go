package node

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// thread is one negotiation as this node holds it (engine.Thread).
type thread = engine.Thread

// unknownErr is the engine's error for a negotiation it does not hold:
// the quarantine's when the ledger's record of it is damaged, else
// unknown_negotiation.
func (n *Node) unknownErr(nid string) error {
	if err := n.check.quarantineErr(nid); err != nil {
		return err
	}
	return fail(CodeUnknownNegotiation, "no negotiation %s", nid)
}

// load rebuilds the node's memory from its ledger: the principal's cards,
// the task board's announcements and every thread (Engine.Load, each
// thread's PXP state rebuilt with it; a thread whose record is damaged
// is quarantined).
func (n *Node) load(ctx context.Context) error {
	if err := n.px.load(ctx); err != nil {
		return err
	}
	return n.eng.Load(ctx, engine.LoadHooks{Entry: n.loadAnnouncement, Quarantine: n.check.quarantine, Thread: n.eng.ReplayPXP})
}

// loadAnnouncement adds the announcement an envelope entry stored to the
// board (Engine.Load's Entry hook: other entries, and envelopes of other
// types after reading their type, are skipped).
func (n *Node) loadAnnouncement(ctx context.Context, e ledger.Entry) error {
	if e.Kind != ledger.KindEnvelopeSent && e.Kind != ledger.KindEnvelopeReceived {
		return nil
	}
	var b struct {
		Type negotiation.MessageType `json:"type"`
	}
	if err := json.Unmarshal(e.Body, &b); err != nil || b.Type != negotiation.TypeTaskProposal || !e.CID.Defined() {
		return nil
	}
	raw, err := n.led.Object(ctx, e.CID)
	if err != nil {
		return nil // pruned
	}
	env, err := negotiation.Decode(raw, negotiation.DecodeOptions{MaxBytes: len(raw)})
	if err != nil {
		return fmt.Errorf("node: load entry %d: %w", e.Seq, err)
	}
	if env.IsAnnouncement() {
		n.board.put(&boardEntry{env: env, seen: e.At, own: env.Sender.EVMAddress == n.self})
	}
	return nil
}
