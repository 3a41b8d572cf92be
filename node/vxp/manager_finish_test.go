package vxp

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	pure "github.com/parleynet/parley/vxp"
)

// TestManagerFinish: what an act's end does to its request, one row per
// rule: an envelope is dispatched (pending_verification, unacknowledged);
// a refusal of the node before anything left fails; a denial fails as
// denied; an error whose effect is unknown holds pending_verification,
// never failed; a cancel asked while waiting cancels; a cancel asked
// once executing changes nothing of that rule.
func TestManagerFinish(t *testing.T) {
	w := newWorld(t)
	env := &node.EnvelopeRef{Type: negotiation.TypeTaskCounterOffer, Hash: negotiation.Hash{1}, CID: "bafkreifake"}
	for i, c := range []struct {
		name      string
		from      pure.State
		out       actOut
		cancelled bool
		want      pure.State
		failure   string
		effects   int
	}{
		{"an envelope while executing", pure.StateExecuting, actOut{res: node.ActResult{Envelope: env}}, false, pure.StatePendingVerification, "", 1},
		{"an envelope while waiting (approval notice missed)", pure.StateWaitingHuman, actOut{res: node.ActResult{Envelope: env}}, false, pure.StatePendingVerification, "", 1},
		{"no envelope", pure.StateExecuting, actOut{}, false, pure.StatePendingVerification, "", 0},
		{"the node refused", pure.StateExecuting, actOut{err: &node.Error{Code: node.CodeStateForbidden, Msg: "no"}}, false, pure.StateFailed, "state_forbidden", 0},
		{"the principal denied", pure.StateWaitingHuman, actOut{err: &node.Error{Code: node.CodeApprovalDenied, Msg: "no"}}, false, pure.StateFailed, "approval_denied", 0},
		{"unknown whether it left", pure.StateExecuting, actOut{err: errors.New("connection reset")}, false, pure.StatePendingVerification, "", 0},
		{"a deadline after it may have left", pure.StateExecuting, actOut{err: fmt.Errorf("send: %w", context.DeadlineExceeded)}, false, pure.StatePendingVerification, "", 0},
		{"cancel asked while waiting", pure.StateWaitingHuman, actOut{err: context.Canceled}, true, pure.StateCancelled, "", 0},
		{"cancel asked, but it executed and timed out", pure.StateExecuting, actOut{err: errors.New("timeout")}, true, pure.StatePendingVerification, "", 0},
		{"cancel asked, but it sent", pure.StateWaitingHuman, actOut{res: node.ActResult{Envelope: env}}, true, pure.StatePendingVerification, "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			now := time.Now().UTC()
			r := &Request{ID: fmt.Sprintf("req_finish%d", i), OperationID: "op_f", ClientID: agentA, Idempotency: fmt.Sprint("f", i), BodyHash: "h",
				Operation: "offer.respond", Target: []byte(`{}`), State: c.from, Steps: []pure.Step{}, CreatedAt: now, UpdatedAt: now}
			if _, _, err := w.srv.Store().Create(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			wait := w.srv.mgr.finish(r.ID, &actRun{cancel: func() {}, cancelAsked: c.cancelled}, c.out, "")
			got, _ := w.srv.Store().Request(r.ID)
			if got.State != c.want || wait != (c.want == pure.StatePendingVerification) || len(got.Effects) != c.effects {
				t.Fatalf("%s -> %s (read back %v, effects %d), want %s", c.from, got.State, wait, len(got.Effects), c.want)
			}
			if (got.Failure == nil) != (c.failure == "") || (got.Failure != nil && got.Failure.Code != c.failure) {
				t.Fatalf("failure %+v, want %q", got.Failure, c.failure)
			}
			if c.effects == 1 && (got.Effects[0].Acknowledged || got.Effects[0].CID != env.CID) {
				t.Fatalf("effect %+v", got.Effects[0])
			}
		})
	}
}
