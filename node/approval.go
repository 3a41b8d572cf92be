package node

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// authorize passes a gated act through the approval gate before the act
// is performed. It builds the Human Intent Protocol request of the act
// (tool per act, target the negotiation, arguments every value the act
// will use, window approval.ttl), records request-created, and waits
// within the window for a decision: from the principal's passkey
// (FinishApproval or DenyApproval), or from the explicit Gate the node was
// given. An approved receipt is then consumed here, in the act's
// goroutine, by the consumption gate (approval.Gate.Consume with the act's
// action: structure, window, integrity, binding, one-shot, signature); the
// consumption is on disk and audited before authorize returns nil, and
// the act is performed only then. A consumed receipt is spent even if the
// act then fails. A denial, an expired window or any refused check
// returns an error and nothing is performed. The audit entries carry the
// intent hash and the act's labels, never its raw arguments (Human Intent
// Protocol, section 9). Every gated act calls it; nothing signs, funds,
// releases, disputes or rules without it.
func (n *Node) authorize(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string) (approval.IntentRequest, error) {
	return n.authorizeNotify(ctx, act, nid, args, reason, risk, nil)
}

// authOpts adjust authorize for the acts that are not a negotiation's.
type authOpts struct {
	// notify is called with the request once it waits for its decision
	// (before the decision), for callers that hand the request to someone
	// else while they wait.
	notify func(approval.IntentRequest)
	// action, when not nil, is the act's action (a revocation's), instead
	// of ActAction(act, nid, args).
	action *approval.Action
	// consume, when not nil, spends an approved receipt instead of the
	// consumption gate for the act's action (a revocation's receipt is
	// consumed by Ceremonies.Revoke).
	consume func(ctx context.Context, receipt []byte) error
	// exclude is a credential that must not approve (the one a
	// revocation revokes).
	exclude []byte
}

// authorizeNotify is authorize that calls notify with the request once
// it waits for its decision.
func (n *Node) authorizeNotify(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string, notify func(approval.IntentRequest)) (approval.IntentRequest, error) {
	return n.authorizeWith(ctx, act, nid, args, reason, risk, authOpts{notify: notify})
}

// authorizeWith is authorize adjusted by o.
func (n *Node) authorizeWith(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string, o authOpts) (approval.IntentRequest, error) {
	if slices.Contains(GatedActs, act) {
		if err := n.pausedErr(nid); err != nil {
			return approval.IntentRequest{}, err
		}
		if err := n.check.restsOn(ctx, n.led, nid, true); err != nil {
			return approval.IntentRequest{}, err
		}
	}
	if p, w := args["poster"], args["worker"]; p != nil && w != nil && args["counterparty"] == nil {
		// A settlement names both parties; the person sees which one
		// this node commits to.
		args["counterparty"] = p
		if p == n.self.String() {
			args["counterparty"] = w
		}
	}
	var action approval.Action
	var err error
	if o.action != nil {
		action = *o.action
	} else if action, err = ActAction(act, nid, args); err != nil {
		return approval.IntentRequest{}, err
	}
	if n.cer == nil {
		return approval.IntentRequest{}, ErrNotStarted
	}
	req, err := approval.NewRequest(approval.RequestSpec{
		Action:  action,
		Context: approval.IntentContext{Reason: reason, Risk: approval.Risk(risk)},
		AgentID: n.self.String(),
		TTL:     n.approvalTTL(),
	}, n.now(), nil)
	if err != nil {
		return req, failWrap(CodeBadArgument, err, "%s: approval request", act)
	}
	if err := n.audit(ctx, approval.RequestEvent(approval.EventRequestCreated, req, n.now())); err != nil {
		return req, err
	}
	// The event says the request is waiting: it is published once a
	// client listing the pending requests sees it.
	created := func() {
		if o.notify != nil {
			o.notify(req)
		}
		n.events.publish(Event{Kind: EventApproval, NegotiationID: nid, Detail: string(act), Code: string(approval.EventRequestCreated), Hash: req.IntentHash, At: n.now()})
	}
	// The window is measured on the node's clock; the wait on the
	// machine's.
	dctx, cancel := context.WithTimeout(ctx, req.ExpiresAt.Sub(n.now()))
	stop := context.AfterFunc(n.ctx, cancel) // Close ends a wait for a decision
	defer func() {
		stop()
		cancel()
	}()
	if n.gate != nil {
		created()
		err = n.decideExplicit(ctx, dctx, act, req)
	} else {
		err = n.decidePasskey(ctx, dctx, act, req, action, created, o)
	}
	if err != nil {
		return req, err
	}
	if slices.Contains(GatedActs, act) {
		// Damage the full check found while the approval was pending: the
		// receipt is spent, the act is not performed.
		if err := n.check.restsOn(ctx, n.led, nid, false); err != nil {
			return req, err
		}
	}
	n.m.approvals.WithLabelValues(string(act), "approved").Inc()
	n.events.publish(Event{Kind: EventApproval, NegotiationID: nid, Detail: string(act), Code: string(approval.EventConsumed), Hash: req.IntentHash, At: n.now()})
	return req, nil
}

// decidePasskey waits for the principal's decision on req and consumes an
// approved receipt for action.
func (n *Node) decidePasskey(ctx, dctx context.Context, act Act, req approval.IntentRequest, action approval.Action, created func(), o authOpts) error {
	p := n.pendingFor(act, req, action)
	w := make(chan decision, 1)
	n.addPending(&pendingEntry{p: p, action: action, deliver: w, exclude: o.exclude})
	created()
	var d decision
	select {
	case d = <-w:
	case <-dctx.Done():
		if !n.removePending(req.RequestID) {
			d = <-w // decided as the window ended: the decision counts
			break
		}
		return n.undecided(ctx, act, req, dctx.Err())
	}
	if d.denied {
		n.m.approvals.WithLabelValues(string(act), "denied").Inc()
		n.events.publish(Event{Kind: EventApproval, NegotiationID: req.Action.Target, Detail: string(act), Code: string(approval.EventDenied), Hash: req.IntentHash, At: n.now()})
		return fail(CodeApprovalDenied, "%s denied by the principal (request %s); nothing was signed or sent", act, req.RequestID)
	}
	if o.consume != nil {
		if err := o.consume(ctx, d.receipt); err != nil {
			n.m.approvals.WithLabelValues(string(act), "refused").Inc()
			return err
		}
		return nil
	}
	if _, err := n.cer.Gate().Consume(ctx, d.receipt, action); err != nil {
		n.m.approvals.WithLabelValues(string(act), "refused").Inc()
		return approvalFailure(err, string(act)+": the receipt was refused; nothing was signed or sent")
	}
	return nil
}

// decideExplicit asks the node's explicit Gate about req and, for an
// approval, records the decision and consumes the request once, durably,
// as the consumption gate would a receipt.
func (n *Node) decideExplicit(ctx, dctx context.Context, act Act, req approval.IntentRequest) error {
	if n.autoApproves() {
		if err := n.autoRefuses(ctx, act, req); err != nil {
			return err
		}
	}
	dec, err := n.gate.Decide(dctx, ApprovalRequest{Act: act, Request: req})
	if err != nil {
		return n.undecided(ctx, act, req, err)
	}
	e := approval.RequestEvent(approval.EventApproved, req, n.now())
	e.Method = dec.Method
	if !dec.Approved {
		e.Event, e.Decision = approval.EventDenied, approval.DecisionDenied
		if err := n.record(ctx, e, dec.By); err != nil {
			return err
		}
		n.m.approvals.WithLabelValues(string(act), "denied").Inc()
		n.events.publish(Event{Kind: EventApproval, NegotiationID: req.Action.Target, Detail: string(act), Code: string(approval.EventDenied), Hash: req.IntentHash, At: n.now()})
		return fail(CodeApprovalDenied, "%s denied by %s %s", act, dec.Method, dec.By)
	}
	e.Decision = approval.DecisionApproved
	if err := n.record(ctx, e, dec.By); err != nil {
		return err
	}
	now := n.now()
	if !now.Before(req.ExpiresAt) {
		return fail(CodeApprovalExpired, "%s: approval %s expired before it was used", act, req.RequestID)
	}
	already, err := n.apStore.MarkConsumed(ctx, approval.ConsumptionRecord{
		RequestID: req.RequestID, IntentHash: req.IntentHash, ConsumedAt: now, ExpiresAt: req.ExpiresAt,
	})
	if err != nil {
		return failWrap(CodeStoreFailed, err, "consume %s", req.RequestID)
	}
	if already {
		return fail(CodeAlreadyConsumed, "approval %s", req.RequestID)
	}
	e.Event, e.At = approval.EventConsumed, now.UTC()
	return n.record(ctx, e, dec.By)
}

// undecided records that req expired (its window ended) or was cancelled
// (the caller or the node stopped) and returns the act's error.
func (n *Node) undecided(ctx context.Context, act Act, req approval.IntentRequest, cause error) error {
	kind := approval.EventCancelled
	if errors.Is(cause, context.DeadlineExceeded) {
		kind = approval.EventExpired
	}
	_ = n.audit(context.WithoutCancel(ctx), approval.RequestEvent(kind, req, n.now()))
	n.m.approvals.WithLabelValues(string(act), string(kind)).Inc()
	n.events.publish(Event{Kind: EventApproval, NegotiationID: req.Action.Target, Detail: string(act), Code: string(kind), Hash: req.IntentHash, At: n.now()})
	return failWrap(CodeApprovalExpired, cause, "%s: no decision on %s", act, req.RequestID)
}

// approvalTTL is approval.ttl, clamped to the protocol's 5 to 600 s in
// whole milliseconds.
func (n *Node) approvalTTL() time.Duration {
	return min(max(n.cfg.ApprovalTTL, approval.MinTTL), approval.MaxTTL).Truncate(time.Millisecond)
}

// approvalFailure turns a refusal of the approval package into the node's
// error: a denial is approval_denied, an elapsed window approval_expired,
// a replay already_consumed, a malformed value bad_argument; the other
// codes keep the protocol's name (action_mismatch, verification_failed,
// token_used, ...). An error without a code is a store or audit failure.
func approvalFailure(err error, what string) error {
	var c Code
	switch ac := approval.CodeOf(err); ac {
	case "":
		return failWrap(CodeStoreFailed, err, "%s", what)
	case approval.CodeDecisionDenied:
		c = CodeApprovalDenied
	case approval.CodeReceiptExpired, approval.CodeRequestExpired:
		c = CodeApprovalExpired
	case approval.CodeAlreadyConsumed:
		c = CodeAlreadyConsumed
	case approval.CodeInvalidRequest:
		c = CodeBadArgument
	case approval.CodeInvalidConfig:
		c = CodeBadConfig
	default:
		c = Code(ac)
	}
	return failWrap(c, err, "%s", what)
}

// auditRecord is the body of a ledger approval entry: an audit event of
// the Human Intent Protocol (labels, the intent hash, the decision, the
// method, a hashed credential reference, timestamps; never argument
// values) and, for an explicit gate's decision, who decided.
type auditRecord struct {
	approval.AuditEvent
	By string `json:"by,omitempty"`
}

// audit appends the audit event e to the ledger as an approval entry,
// durably, under e's negotiation when its target is one. It is the
// ceremonies' and the consumption gate's approval.AuditSink.
func (n *Node) audit(ctx context.Context, e approval.AuditEvent) error {
	return n.record(ctx, e, "")
}

func (n *Node) record(ctx context.Context, e approval.AuditEvent, by string) error {
	if n.led == nil {
		return ErrNotStarted
	}
	body, err := json.Marshal(auditRecord{AuditEvent: e, By: by})
	if err != nil {
		return err
	}
	rec := ledger.Record{Kind: ledger.KindApproval, Body: body, At: n.now()}
	if _, err := negotiation.ParseNegotiationID(e.Target); err == nil {
		rec.NegotiationID = e.Target
	}
	if _, _, err := n.led.Append(ctx, rec); err != nil {
		return failWrap(CodeStoreFailed, err, "approval %s %s", e.RequestID, e.Event)
	}
	return nil
}

// AuditTrail returns up to limit audit events of the node's approvals,
// newest first, read from the ledger (limit <= 0 means 100). Each holds
// the labels, the intent hash, the decision, the method, a hashed
// credential reference and timestamps, never argument values.
func (n *Node) AuditTrail(ctx context.Context, limit int) ([]approval.AuditEvent, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 100
	}
	ring := make([]approval.AuditEvent, 0, min(limit, 1024))
	next := 0
	for e, err := range n.led.ByKind(ctx, ledger.KindApproval) {
		if err != nil {
			return nil, failWrap(CodeStoreFailed, err, "audit trail")
		}
		var r auditRecord
		if err := json.Unmarshal(e.Body, &r); err != nil {
			return nil, failWrap(CodeStoreFailed, err, "audit entry #%d", e.Seq)
		}
		if r.At.IsZero() {
			r.At = e.At
		}
		if len(ring) < limit {
			ring = append(ring, r.AuditEvent)
			continue
		}
		ring[next] = r.AuditEvent
		next = (next + 1) % limit
	}
	out := make([]approval.AuditEvent, 0, len(ring))
	for i := range ring {
		out = append(out, ring[(next+len(ring)-1-i)%len(ring)])
	}
	return out, nil
}
