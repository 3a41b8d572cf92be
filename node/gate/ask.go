package gate

import (
	"context"
	"sync"

	"github.com/parleynet/parley/approval"
)

// Ask makes the approval request of act on a goroutine the node owns and
// returns it once it waits (or was decided at once by an explicit
// decider); after an approval consumed by the gate, then runs on that
// goroutine. done, when given, runs once the request is decided either
// way (then runs after it). The node's pages use it to seal the
// principal's own words (confirm_answer, confirm_card) once a passkey
// approved them.
func (g *Gate) Ask(act Act, nid string, args map[string]any, reason, risk string, then func(ctx context.Context) error, done ...func()) (PendingApproval, error) {
	if err := g.running(); err != nil {
		for _, f := range done {
			f()
		}
		return PendingApproval{}, err
	}
	return g.ask(act, nid, args, reason, risk, authOpts{}, then, done...)
}

// AskDecided is Ask for a caller that must know how the request was
// decided: decided runs once, before then, with true when an approval was
// consumed (then runs next) and false for a denial, an expired window or
// any refusal.
func (g *Gate) AskDecided(act Act, nid string, args map[string]any, reason, risk string, then func(ctx context.Context) error, decided func(approved bool)) (PendingApproval, error) {
	if err := g.running(); err != nil {
		decided(false)
		return PendingApproval{}, err
	}
	return g.ask(act, nid, args, reason, risk, authOpts{decided: decided}, then)
}

// ask is Ask adjusted by o.
func (g *Gate) ask(act Act, nid string, args map[string]any, reason, risk string, o authOpts, then func(ctx context.Context) error, done ...func()) (PendingApproval, error) {
	var action approval.Action
	var err error
	if o.action != nil {
		action = *o.action
	} else {
		action, err = ActAction(act, nid, args)
	}
	if err != nil {
		for _, f := range done {
			f()
		}
		if o.decided != nil {
			o.decided(false)
		}
		return PendingApproval{}, err
	}
	type started struct {
		req approval.IntentRequest
		err error
	}
	ch := make(chan started, 1)
	var once sync.Once
	send := func(s started) { once.Do(func() { ch <- s }) }
	g.spawn(func(ctx context.Context) {
		o.notify = func(r approval.IntentRequest) { send(started{req: r}) }
		req, err := g.authorizeWith(ctx, act, nid, args, reason, risk, o)
		send(started{req: req, err: err})
		for _, f := range done {
			f()
		}
		if o.decided != nil {
			o.decided(err == nil)
		}
		if err != nil {
			g.log.Info("the principal's words were not sealed", "act", act, "negotiation", nid, "request", req.RequestID, "err", err)
			return
		}
		if err := then(ctx); err != nil {
			g.log.Warn("the principal's confirmed words could not be sealed", "act", act, "negotiation", nid, "request", req.RequestID, "err", err)
		}
	})
	select {
	case s := <-ch:
		if s.err != nil {
			return PendingApproval{}, s.err
		}
		if p, err := g.PendingApproval(s.req.RequestID); err == nil {
			return p, nil
		}
		return withExpiry(g.pendingFor(act, s.req, action), g.now()), nil // decided already
	case <-g.ctx.Done():
		return PendingApproval{}, ErrNotStarted
	}
}

// spawn runs f through the node's Spawn, or on a plain goroutine.
func (g *Gate) spawn(f func(ctx context.Context)) {
	if g.cfg.Spawn != nil {
		g.cfg.Spawn(f)
		return
	}
	go f(g.ctx)
}
