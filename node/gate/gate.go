package gate

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"log/slog"
	"slices"
	"time"

	"github.com/parleynet/parley/approval"
)

// Journal is where the gate writes its audit trail and reads it back: the
// node's ledger, as approval entries. Append writes body durably, under
// the negotiation nid when it is not "", before it returns nil; Entries
// yields every approval entry in ledger order.
type Journal interface {
	AppendApproval(ctx context.Context, nid string, body []byte, at time.Time) error
	Approvals(ctx context.Context) iter.Seq2[Entry, error]
}

// Entry is one approval entry of the Journal.
type Entry struct {
	Seq  uint64
	Body []byte
	At   time.Time
}

// Notice is what the gate publishes when a request is made or decided:
// the act, the audit event's name as Code, the intent hash (or, for a
// revocation, the credential's reference).
type Notice struct {
	NegotiationID string
	Act           Act
	Code          string
	Hash          string
	At            time.Time
}

// Config is what a Gate is built from: the ceremonies' configuration, the
// stores it owns, and what it needs from its node, as values and small
// funcs. WebAuthn, Store, DataDir, Agent and Journal are required; a nil
// func does nothing (Running, Guard: allows).
type Config struct {
	// WebAuthn configures the ceremonies (validated by New).
	WebAuthn approval.Config
	// Store is the approval store (OpenStore); the gate closes it.
	Store *Store
	// DataDir holds the data-directory tokens (tokens.json).
	DataDir string
	// Agent is the node's address, the agentId of every request; a
	// settlement's counterparty is the party that is not Agent.
	Agent string
	// TTL is approval.ttl, clamped to the protocol's 5 to 600 s.
	TTL time.Duration
	// Decider, when not nil, decides instead of the principal's passkeys.
	Decider Decider
	// Journal is the audit trail.
	Journal Journal
	// Context is the node's: once it ends, every wait for a decision
	// ends (nil: context.Background(), until Close).
	Context context.Context
	// Now is the node's clock (nil: time.Now).
	Now func() time.Time
	// Log receives the registrations and revocations (nil: discarded).
	Log *slog.Logger
	// Running refuses a call while the node is not running.
	Running func() error
	// Guard checks a gated act's negotiation before its request (before
	// true) and once it is approved (before false): a paused negotiation, a
	// damaged ledger.
	Guard func(ctx context.Context, nid string, before bool) error
	// Publish announces a request made or decided.
	Publish func(Notice)
	// Count counts a decision by act and outcome (approved, denied,
	// refused, expired, cancelled).
	Count func(act Act, outcome string)
	// Spawn runs f on a goroutine the node owns (Ask): Close cancels its
	// context and waits. Nil: a plain goroutine with the gate's context.
	Spawn func(f func(ctx context.Context))
	// Title returns the title of the task negotiation nid is about, for
	// the plain words ("" when unknown).
	Title func(nid string, args map[string]any) string
	// Draft returns the lines of the intent card with hash h waiting for
	// confirmation, or nil.
	Draft func(h string) []PlainLine
}

// Gate is the approval of gated acts: the explicit decider or the
// principal's passkeys, the requests waiting for them, the ceremonies,
// the passkeys and the tokens, and the audit trail. Build it with New once
// the node's keys are open; its methods are safe for concurrent use. A nil
// *Gate refuses every call with ErrNotStarted.
type Gate struct {
	cfg    Config
	now    func() time.Time
	log    *slog.Logger
	ctx    context.Context // ends every wait for a decision (Close)
	cancel context.CancelFunc
	store  *Store
	tokens *dirTokens // the data directory's enrolment and revocation tokens
	cer    *approval.Ceremonies
	pk     *passkeys
}

// New returns the gate of cfg, with its ceremonies and consumption gate
// recording their audit events in cfg.Journal. It refuses an invalid
// WebAuthn configuration with CodeBadConfig.
func New(cfg Config) (*Gate, error) {
	if cfg.Store == nil || cfg.Journal == nil {
		return nil, fail(CodeBadConfig, "a gate needs its store and its journal")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if err := cfg.WebAuthn.Validate(); err != nil {
		return nil, failWrap(CodeBadConfig, err, "web")
	}
	g := &Gate{cfg: cfg, now: cfg.Now, log: cfg.Log, store: cfg.Store, tokens: newDirTokens(cfg.DataDir), pk: newPasskeys()}
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	g.ctx, g.cancel = context.WithCancel(cfg.Context)
	var err error
	if g.cer, err = approval.New(cfg.WebAuthn, tokenStore{g.store, g.tokens}, approval.AuditFunc(g.audit)); err != nil {
		g.cancel()
		return nil, failWrap(CodeBadConfig, err, "web")
	}
	return g, nil
}

// Close ends every wait for a decision and closes the approval store. It
// is safe to call twice.
func (g *Gate) Close() error {
	if g == nil {
		return nil
	}
	g.cancel()
	return g.store.Close()
}

// running refuses a call on a nil gate or while the node is not running.
func (g *Gate) running() error {
	if g == nil {
		return ErrNotStarted
	}
	if g.cfg.Running != nil {
		return g.cfg.Running()
	}
	return nil
}

func (g *Gate) publish(nid string, act Act, code, hash string) {
	if g.cfg.Publish != nil {
		g.cfg.Publish(Notice{NegotiationID: nid, Act: act, Code: code, Hash: hash, At: g.now()})
	}
}

func (g *Gate) count(act Act, outcome string) {
	if g.cfg.Count != nil {
		g.cfg.Count(act, outcome)
	}
}

func (g *Gate) guard(ctx context.Context, nid string, before bool) error {
	if g.cfg.Guard == nil {
		return nil
	}
	return g.cfg.Guard(ctx, nid, before)
}

// authOpts adjust Authorize for the acts that are not a negotiation's.
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
	// decided, when not nil, is told by ask whether the request was
	// approved (AskDecided).
	decided func(approved bool)
}

// Authorize passes a gated act through the gate before the act is
// performed. It builds the Human Intent Protocol request of the act (tool
// per act, target the negotiation, arguments every value the act will
// use, window approval.ttl), records request-created, and waits within
// the window for a decision: from the principal's passkey
// (FinishApproval or DenyApproval), or from the explicit Decider. An
// approved receipt is then consumed here, in the act's goroutine, by the
// consumption gate (approval.Gate.Consume with the act's action:
// structure, window, integrity, binding, one-shot, signature); the
// consumption is on disk and audited before Authorize returns nil, and the
// act is performed only then. A consumed receipt is spent even if the act
// then fails. A denial, an expired window or any refused check returns an
// error and nothing is performed. The audit entries carry the intent hash
// and the act's labels, never its raw arguments (Human Intent Protocol,
// section 9). Every gated act calls it; nothing signs, funds, releases,
// disputes or rules without it.
func (g *Gate) Authorize(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string) (approval.IntentRequest, error) {
	if g == nil {
		return approval.IntentRequest{}, ErrNotStarted
	}
	return g.authorizeWith(ctx, act, nid, args, reason, risk, authOpts{})
}

// authorizeWith is Authorize adjusted by o.
func (g *Gate) authorizeWith(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string, o authOpts) (approval.IntentRequest, error) {
	if slices.Contains(GatedActs, act) {
		if err := g.guard(ctx, nid, true); err != nil {
			return approval.IntentRequest{}, err
		}
	}
	if p, w := args["poster"], args["worker"]; p != nil && w != nil && args["counterparty"] == nil {
		// A settlement names both parties; the person sees which one
		// this node commits to.
		args["counterparty"] = p
		if p == g.cfg.Agent {
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
	req, err := approval.NewRequest(approval.RequestSpec{
		Action:  action,
		Context: approval.IntentContext{Reason: reason, Risk: approval.Risk(risk)},
		AgentID: g.cfg.Agent,
		TTL:     g.ttl(),
	}, g.now(), nil)
	if err != nil {
		return req, failWrap(CodeBadArgument, err, "%s: approval request", act)
	}
	if err := g.audit(ctx, approval.RequestEvent(approval.EventRequestCreated, req, g.now())); err != nil {
		return req, err
	}
	// The notice says the request is waiting: it is published once a
	// client listing the pending requests sees it.
	created := func() {
		if o.notify != nil {
			o.notify(req)
		}
		g.publish(nid, act, string(approval.EventRequestCreated), req.IntentHash)
	}
	// The window is measured on the node's clock; the wait on the
	// machine's.
	dctx, cancel := context.WithTimeout(ctx, req.ExpiresAt.Sub(g.now()))
	stop := context.AfterFunc(g.ctx, cancel) // Close ends a wait for a decision
	defer func() {
		stop()
		cancel()
	}()
	if g.cfg.Decider != nil {
		created()
		err = g.decideExplicit(ctx, dctx, act, req)
	} else {
		err = g.decidePasskey(ctx, dctx, act, req, action, created, o)
	}
	if err != nil {
		return req, err
	}
	if slices.Contains(GatedActs, act) {
		// Damage the full check found while the approval was pending: the
		// receipt is spent, the act is not performed.
		if err := g.guard(ctx, nid, false); err != nil {
			return req, err
		}
	}
	g.count(act, "approved")
	g.publish(nid, act, string(approval.EventConsumed), req.IntentHash)
	return req, nil
}

// decidePasskey waits for the principal's decision on req and consumes an
// approved receipt for action.
func (g *Gate) decidePasskey(ctx, dctx context.Context, act Act, req approval.IntentRequest, action approval.Action, created func(), o authOpts) error {
	p := g.pendingFor(act, req, action)
	w := make(chan decision, 1)
	g.addPending(&pendingEntry{p: p, action: action, deliver: w, exclude: o.exclude})
	created()
	var d decision
	select {
	case d = <-w:
	case <-dctx.Done():
		if !g.removePending(req.RequestID) {
			d = <-w // decided as the window ended: the decision counts
			break
		}
		return g.undecided(ctx, act, req, dctx.Err())
	}
	if d.denied {
		g.count(act, "denied")
		g.publish(req.Action.Target, act, string(approval.EventDenied), req.IntentHash)
		return fail(CodeApprovalDenied, "%s denied by the principal (request %s); nothing was signed or sent", act, req.RequestID)
	}
	if o.consume != nil {
		if err := o.consume(ctx, d.receipt); err != nil {
			g.count(act, "refused")
			return err
		}
		return nil
	}
	if _, err := g.cer.Gate().Consume(ctx, d.receipt, action); err != nil {
		g.count(act, "refused")
		return approvalFailure(err, string(act)+": the receipt was refused; nothing was signed or sent")
	}
	return nil
}

// decideExplicit asks the explicit Decider about req and, for an
// approval, records the decision and consumes the request once, durably,
// as the consumption gate would a receipt.
func (g *Gate) decideExplicit(ctx, dctx context.Context, act Act, req approval.IntentRequest) error {
	if IsAuto(g.cfg.Decider) {
		if err := g.autoRefuses(ctx, act, req); err != nil {
			return err
		}
	}
	dec, err := g.cfg.Decider.Decide(dctx, ApprovalRequest{Act: act, Request: req})
	if err != nil {
		return g.undecided(ctx, act, req, err)
	}
	e := approval.RequestEvent(approval.EventApproved, req, g.now())
	e.Method = dec.Method
	if !dec.Approved {
		e.Event, e.Decision = approval.EventDenied, approval.DecisionDenied
		if err := g.record(ctx, e, dec.By); err != nil {
			return err
		}
		g.count(act, "denied")
		g.publish(req.Action.Target, act, string(approval.EventDenied), req.IntentHash)
		return fail(CodeApprovalDenied, "%s denied by %s %s", act, dec.Method, dec.By)
	}
	e.Decision = approval.DecisionApproved
	if err := g.record(ctx, e, dec.By); err != nil {
		return err
	}
	now := g.now()
	if !now.Before(req.ExpiresAt) {
		return fail(CodeApprovalExpired, "%s: approval %s expired before it was used", act, req.RequestID)
	}
	already, err := g.store.MarkConsumed(ctx, approval.ConsumptionRecord{
		RequestID: req.RequestID, IntentHash: req.IntentHash, ConsumedAt: now, ExpiresAt: req.ExpiresAt,
	})
	if err != nil {
		return failWrap(CodeStoreFailed, err, "consume %s", req.RequestID)
	}
	if already {
		return fail(CodeAlreadyConsumed, "approval %s", req.RequestID)
	}
	e.Event, e.At = approval.EventConsumed, now.UTC()
	return g.record(ctx, e, dec.By)
}

// undecided records that req expired (its window ended) or was cancelled
// (the caller or the node stopped) and returns the act's error.
func (g *Gate) undecided(ctx context.Context, act Act, req approval.IntentRequest, cause error) error {
	kind := approval.EventCancelled
	if errors.Is(cause, context.DeadlineExceeded) {
		kind = approval.EventExpired
	}
	_ = g.audit(context.WithoutCancel(ctx), approval.RequestEvent(kind, req, g.now()))
	g.count(act, string(kind))
	g.publish(req.Action.Target, act, string(kind), req.IntentHash)
	return failWrap(CodeApprovalExpired, cause, "%s: no decision on %s", act, req.RequestID)
}

// ttl is approval.ttl, clamped to the protocol's 5 to 600 s in whole
// milliseconds.
func (g *Gate) ttl() time.Duration {
	return min(max(g.cfg.TTL, approval.MinTTL), approval.MaxTTL).Truncate(time.Millisecond)
}

// auditRecord is the body of an approval entry of the Journal: an audit
// event of the Human Intent Protocol (labels, the intent hash, the
// decision, the method, a hashed credential reference, timestamps; never
// argument values) and, for an explicit decider's decision, who decided.
type auditRecord struct {
	approval.AuditEvent
	By string `json:"by,omitempty"`
}

// audit appends the audit event e to the Journal, durably, under e's
// negotiation when its target is one. It is the ceremonies' and the
// consumption gate's approval.AuditSink.
func (g *Gate) audit(ctx context.Context, e approval.AuditEvent) error {
	return g.record(ctx, e, "")
}

func (g *Gate) record(ctx context.Context, e approval.AuditEvent, by string) error {
	body, err := json.Marshal(auditRecord{AuditEvent: e, By: by})
	if err != nil {
		return err
	}
	if err := g.cfg.Journal.AppendApproval(ctx, e.Target, body, g.now()); err != nil {
		return failWrap(CodeStoreFailed, err, "approval %s %s", e.RequestID, e.Event)
	}
	return nil
}

// AuditTrail returns up to limit audit events of the node's approvals,
// newest first, read from the Journal (limit <= 0 means 100). Each holds
// the labels, the intent hash, the decision, the method, a hashed
// credential reference and timestamps, never argument values.
func (g *Gate) AuditTrail(ctx context.Context, limit int) ([]approval.AuditEvent, error) {
	if err := g.running(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 100
	}
	ring := make([]approval.AuditEvent, 0, min(limit, 1024))
	next := 0
	for e, err := range g.cfg.Journal.Approvals(ctx) {
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
