package node

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// authorize passes a gated act through the gate: it records the request
// (request-created), asks the gate within the request's window, records
// the decision (approved, denied or expired) and, for an approval, the
// consumption, durably, before it returns nil; the act is then performed.
// A consumed approval is spent even if the act then fails. The records
// carry the intent hash and the act's labels, never its raw arguments
// (Human Intent Protocol, section 9). Every gated act calls it; nothing
// signs, funds, releases, disputes or rules without it.
func (n *Node) authorize(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string) (ApprovalRequest, error) {
	req, err := newRequest(act, nid, n.self.String(), args, reason, risk, n.now(), n.cfg.ApprovalTTL)
	if err != nil {
		return req, err
	}
	if err := n.recordApproval(ctx, req, "request-created", Decision{}); err != nil {
		return req, err
	}
	n.events.publish(Event{Kind: EventApproval, NegotiationID: nid, Detail: string(act), Code: "request-created", Hash: req.IntentHash, At: n.now()})
	dctx, cancel := context.WithDeadline(ctx, req.ExpiresAt)
	stop := context.AfterFunc(n.ctx, cancel) // Close ends a wait for a decision
	dec, err := n.gate.Decide(dctx, req)
	stop()
	cancel()
	if err != nil {
		event := "cancelled"
		if errors.Is(err, context.DeadlineExceeded) {
			event = "expired"
		}
		_ = n.recordApproval(context.WithoutCancel(ctx), req, event, Decision{})
		n.m.approvals.WithLabelValues(string(act), event).Inc()
		return req, failWrap(CodeApprovalExpired, err, "%s: no decision on %s", act, req.RequestID)
	}
	if !dec.Approved {
		if err := n.recordApproval(ctx, req, "denied", dec); err != nil {
			return req, err
		}
		n.m.approvals.WithLabelValues(string(act), "denied").Inc()
		n.events.publish(Event{Kind: EventApproval, NegotiationID: nid, Detail: string(act), Code: "denied", Hash: req.IntentHash, At: n.now()})
		return req, fail(CodeApprovalDenied, "%s denied by %s %s", act, dec.Method, dec.By)
	}
	if err := n.recordApproval(ctx, req, "approved", dec); err != nil {
		return req, err
	}
	n.m.approvals.WithLabelValues(string(act), "approved").Inc()
	// Consumption: the request must still hash to its intent hash (the
	// action was not changed), be inside its window and not be spent.
	if err := req.Verify(); err != nil {
		_ = n.recordApproval(ctx, req, "consumption-rejected", dec)
		return req, err
	}
	if !n.now().Before(req.ExpiresAt) {
		_ = n.recordApproval(ctx, req, "consumption-rejected", dec)
		return req, fail(CodeApprovalExpired, "%s: approval %s expired before it was used", act, req.RequestID)
	}
	n.tmu.Lock()
	spent := n.consumed[req.RequestID]
	n.consumed[req.RequestID] = true
	n.tmu.Unlock()
	if spent {
		return req, fail(CodeAlreadyConsumed, "approval %s", req.RequestID)
	}
	if err := n.recordApproval(ctx, req, "consumed", dec); err != nil {
		return req, err
	}
	n.events.publish(Event{Kind: EventApproval, NegotiationID: nid, Detail: string(act), Code: "consumed", Hash: req.IntentHash, At: n.now()})
	return req, nil
}

// recordApproval appends one audit entry of an approval request.
func (n *Node) recordApproval(ctx context.Context, req ApprovalRequest, event string, dec Decision) error {
	b := approvalBody{
		Event: event, RequestID: req.RequestID, IntentHash: req.IntentHash,
		Operation: req.Action.Operation, Target: req.Action.Target, Method: dec.Method, By: dec.By,
	}
	if event == "request-created" {
		b.ExpiresAt = negotiation.FormatTime(req.ExpiresAt)
	}
	body, err := json.Marshal(b)
	if err != nil {
		return err
	}
	rec := ledger.Record{Kind: ledger.KindApproval, Body: body, At: n.now()}
	if _, err := negotiation.ParseNegotiationID(req.Action.Target); err == nil {
		rec.NegotiationID = req.Action.Target
	}
	if _, _, err := n.led.Append(ctx, rec); err != nil {
		return failWrap(CodeStoreFailed, err, "approval %s %s", req.RequestID, event)
	}
	return nil
}

// Approvals returns the approval requests waiting for the operator, when
// the node uses its operator gate (nil otherwise).
func (n *Node) Approvals() []ApprovalRequest {
	if n.oper == nil {
		return nil
	}
	return n.oper.Pending()
}
