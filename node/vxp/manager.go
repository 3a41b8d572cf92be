package vxp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	pure "github.com/parleynet/parley/vxp"
)

// manager owns each request's act: it runs it, reads its effect back and
// holds it in pending_verification while that is unknown. The request,
// not the HTTP call, owns the act's lifetime: acts run on the server's
// goroutines (Server.spawn) under the server's context, and every change
// of a request's state is one vxp.Transition recorded with Store.Update
// (one vxp.request entry).
//
// After a restart (resume):
//   - executing and pending_verification take the restart event (executing
//     goes to pending_verification: the effect may have left before the
//     stop) and their envelopes are read back again;
//   - accepted and waiting_human run their act again: the node's approval
//     went with the call that asked it, so the principal is asked again
//     for the same act; the negotiation is checked first, and a request
//     whose negotiation moved fails with terms_changed (nothing was
//     signed).
type manager struct {
	s *Server

	// ReadBackMin and ReadBackMax bound the read-back's backoff.
	readBackMin, readBackMax time.Duration

	mu      sync.Mutex
	running map[string]*actRun
}

// actRun is an act that runs: its cancel, and whether the agent asked to
// cancel it (it is cancelled only if it ends without an effect).
type actRun struct {
	cancel      context.CancelFunc
	cancelAsked bool
	// moved is set when the negotiation moved under the accepted
	// revision while the principal was asked: the act is cancelled
	// before anything is signed.
	moved bool
}

func newManager(s *Server) (*manager, error) {
	return &manager{s: s, readBackMin: 20 * time.Millisecond, readBackMax: time.Second, running: map[string]*actRun{}}, nil
}

func (m *manager) now() time.Time { return m.s.cfg.Now().UTC() }

// advance applies event to r at time at (E1) and records the step when
// it moves r to another state.
func advance(r *Request, ev pure.Event, at time.Time) error {
	st, err := pure.Transition(r.State, ev, at)
	if err != nil {
		return err
	}
	if st.Changed() {
		r.Steps = append(r.Steps, st)
		r.State = st.State
	}
	return nil
}

// update runs f on request id under the store's lock and records the
// result (Store.Update), under the server's context: a change outlives
// the HTTP call that asked for it.
func (m *manager) update(id string, f func(r *Request) error) (*Request, error) {
	return m.s.store.Update(m.s.ctx, id, m.now(), f)
}

// refresh applies to a proposed request what time and the negotiation
// did to it since it was last read (r under the store's lock): a current
// revision whose expires_at passed expires the request; a negotiation
// whose current offer is no longer the request's basis (the counterparty
// countered) supersedes the current revision with one for the new offer
// (or without a successor when none can follow).
func (m *manager) refresh(r *Request, at time.Time) error {
	if r.State != pure.StateProposed || r.Proposals == nil {
		return nil
	}
	row := operations[r.Operation]
	if row.draft == nil {
		return nil
	}
	if cur := r.Proposals.Current(); cur != nil && at.After(cur.ExpiresAt) {
		return advance(r, pure.EventExpire, at)
	}
	th, err := m.s.b.Thread(r.NegotiationID)
	if err != nil {
		return nil
	}
	if th.Current != nil && th.Current.Hash == r.Basis {
		return nil
	}
	d, basis, err := row.draft(m.s, th)
	if err == nil {
		if _, err = r.Proposals.Revise(d, at, m.s.cfg.Rand); err == nil {
			r.Basis = basis
			return advance(r, pure.EventRevised, at)
		}
	}
	// No revision can follow (max_revisions made, or the negotiation
	// left nothing to respond to): the current one is superseded, so
	// accepting it is terms_changed, and the request fails.
	if r.Proposals.Current() != nil {
		if serr := r.Proposals.Supersede(); serr != nil {
			return serr
		}
	}
	code, ok := refusal(err)
	if !ok {
		code = pure.CodeNoOffer
	}
	r.Failure = &Failure{Code: string(code), Message: "the negotiation moved under the proposal and no revision can follow: " + err.Error()}
	return advance(r, pure.EventRefused, at)
}

// begin moves an accepted request on (accepted -> waiting_human for a
// revision that needs the principal's approval, else -> executing) and
// starts its act.
func (m *manager) begin(id string) (*Request, error) {
	r, err := m.update(id, func(r *Request) error {
		if r.State != pure.StateAccepted {
			return nil
		}
		ev := pure.EventExecute
		if r.Proposals.Accepted.NeedsHuman {
			ev = pure.EventGated
		}
		return advance(r, ev, m.now())
	})
	if err != nil {
		return nil, err
	}
	m.start(id)
	return r, nil
}

// start runs request id's accepted act on a goroutine the server owns,
// unless it runs already.
func (m *manager) start(id string) {
	m.mu.Lock()
	if _, ok := m.running[id]; ok {
		m.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(m.s.ctx)
	run := &actRun{cancel: cancel}
	m.running[id] = run
	m.mu.Unlock()
	m.s.spawn(func(context.Context) {
		defer func() {
			m.mu.Lock()
			delete(m.running, id)
			m.mu.Unlock()
			cancel()
		}()
		if m.runAct(ctx, id, run) {
			m.readBack(m.s.ctx, id)
		}
	})
}

// askCancel asks the running act of request id to stop; false when none
// runs. The act is cancelled only if it ends without an effect.
func (m *manager) askCancel(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	run, ok := m.running[id]
	if !ok {
		return false
	}
	run.cancelAsked = true
	run.cancel()
	return true
}

func (m *manager) cancelAsked(run *actRun) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return run.cancelAsked
}

// actOut is what an act returned.
type actOut struct {
	res node.ActResult
	err error
}

// runAct runs request id's act and records what came of it; it reports
// whether the request waits in pending_verification for a read-back.
func (m *manager) runAct(ctx context.Context, id string, run *actRun) bool {
	r, ok := m.s.store.Request(id)
	if !ok || r.Proposals == nil || r.Proposals.Accepted == nil {
		return false
	}
	switch r.State {
	case pure.StateWaitingHuman, pure.StateExecuting:
	default:
		return false
	}
	row := operations[r.Operation]
	rev := r.Proposals.Find(r.Proposals.Accepted.ProposalID)
	if row.act == nil || rev == nil {
		return false
	}
	// The negotiation must still stand where the revision answered it
	// (a restart may find it moved): nothing is signed or sent otherwise.
	// The node's act names the offer it answers too (Expect: an offer
	// that arrived since is terms_changed there), and for a gated act the
	// offer is checked again when the principal is asked (below).
	if th, err := m.s.b.Thread(r.NegotiationID); err != nil || th.Current == nil || th.Current.Hash != r.Basis {
		_, _ = m.update(id, func(r *Request) error {
			r.Failure = &Failure{Code: string(pure.CodeTermsChanged), Message: "the negotiation moved under the accepted revision: nothing was signed or sent"}
			return advance(r, pure.EventRefused, m.now())
		})
		return false
	}
	// The gate's notices of this negotiation's settlement approvals say
	// when the principal approved (the request goes on to executing) and
	// name the approval's intent hash.
	evs, stop := m.s.b.Subscribe(64)
	defer stop()
	out := make(chan actOut, 1)
	m.s.spawn(func(context.Context) {
		res, err := row.act(ctx, m.s, r, rev)
		out <- actOut{res, err}
	})
	var created string
	for {
		select {
		case e, ok := <-evs:
			if !ok {
				evs = nil
				continue
			}
			if e.Kind != node.EventApproval || e.NegotiationID != r.NegotiationID || e.Detail != string(node.ActSignSettlement) {
				continue
			}
			switch e.Code {
			case "request-created":
				created = e.Hash
				// The node read the offer to sign before it asked: if it
				// is still the basis now, it was then (offers only move
				// on), so what the principal is asked is what the agent
				// accepted; otherwise nothing is signed.
				if th, err := m.s.b.Thread(r.NegotiationID); err == nil && (th.Current == nil || th.Current.Hash != r.Basis) {
					m.mu.Lock()
					run.moved = true
					m.mu.Unlock()
					run.cancel()
				}
			case "consumed":
				m.approved(id, e.Hash)
			}
		case o := <-out:
			return m.finish(id, run, o, created)
		}
	}
}

// approved records the principal's approval of request id's gated act
// (intent hash h): waiting_human -> executing.
func (m *manager) approved(id, h string) {
	_, _ = m.update(id, func(r *Request) error {
		if r.State != pure.StateWaitingHuman {
			return nil
		}
		if h != "" && !contains(r.Approvals, h) {
			r.Approvals = append(r.Approvals, h)
		}
		return advance(r, pure.EventApproved, m.now())
	})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// finish records what request id's act returned; it reports whether the
// request now waits for a read-back.
func (m *manager) finish(id string, run *actRun, o actOut, created string) bool {
	if o.err != nil && m.s.ctx.Err() != nil {
		// The server stops: resume decides at the next start.
		return false
	}
	cancelled := m.cancelAsked(run)
	m.mu.Lock()
	moved := run.moved
	m.mu.Unlock()
	r, err := m.update(id, func(r *Request) error {
		at := m.now()
		if o.err == nil {
			if r.State == pure.StateWaitingHuman {
				// The approval's notice was missed (a slow reader).
				if created != "" && !contains(r.Approvals, created) {
					r.Approvals = append(r.Approvals, created)
				}
				if err := advance(r, pure.EventApproved, at); err != nil {
					return err
				}
			}
			if e := o.res.Envelope; e != nil {
				r.Effects = append(r.Effects, Effect{Kind: "envelope", Type: string(e.Type), CID: e.CID, Hash: e.Hash, NegotiationID: r.NegotiationID})
				return advance(r, pure.EventDispatched, at)
			}
			return advance(r, pure.EventUnconfirmed, at)
		}
		code := node.CodeOf(o.err)
		switch {
		case moved && r.State != pure.StateExecuting:
			r.Failure = &Failure{Code: string(pure.CodeTermsChanged), Message: "the negotiation moved under the accepted revision while the principal was asked: nothing was signed"}
			return advance(r, pure.EventRefused, at)
		case cancelled && r.State != pure.StateExecuting:
			return advance(r, pure.EventCancel, at)
		case r.State == pure.StateWaitingHuman && code == node.CodeApprovalDenied:
			r.Failure = &Failure{Code: string(code), Message: o.err.Error()}
			return advance(r, pure.EventDenied, at)
		case code != "" && !errors.Is(o.err, context.DeadlineExceeded):
			// The node refused the act before anything left it.
			r.Failure = &Failure{Code: string(code), Message: o.err.Error()}
			return advance(r, pure.EventRefused, at)
		case r.State == pure.StateExecuting:
			// Whether anything left is unknown: held until read back.
			return advance(r, pure.EventTimeout, at)
		}
		r.Failure = &Failure{Code: "act_failed", Message: o.err.Error()}
		return advance(r, pure.EventRefused, at)
	})
	if err != nil {
		m.s.log.Warn("request not recorded", "request", id, "err", err)
		return false
	}
	return r.State == pure.StatePendingVerification
}

// unacked returns the newest envelope effect of r not yet acknowledged.
func unacked(r *Request) (int, bool) {
	for i := len(r.Effects) - 1; i >= 0; i-- {
		if r.Effects[i].Kind == "envelope" && !r.Effects[i].Acknowledged {
			return i, true
		}
	}
	return 0, false
}

// readBack reads request id's envelope back until the counterparty
// acknowledged it and the thread holds it with its effect (succeeded), or
// its delivery was given up (failed): never failed while unknown. It
// polls with a bounded backoff and wakes on the node's events of the
// negotiation; it ends with ctx (resume reads back again).
func (m *manager) readBack(ctx context.Context, id string) {
	evs, stop := m.s.b.Subscribe(32)
	defer stop()
	delay := m.readBackMin
	for {
		r, ok := m.s.store.Request(id)
		if !ok || r.State != pure.StatePendingVerification {
			return
		}
		i, ok := unacked(r)
		if !ok {
			// No effect known (the act failed or the node stopped while it
			// ran): the negotiation's thread says whether it sent anything.
			if !m.findEffect(ctx, id) {
				return
			}
			continue
		}
		eff := r.Effects[i]
		ref := node.EnvelopeRef{Type: negotiation.MessageType(eff.Type), Hash: eff.Hash, CID: eff.CID}
		d, err := m.s.b.EnvelopeDelivery(ctx, r.NegotiationID, ref)
		if err == nil {
			switch {
			case d.Status == "delivered" && d.InThread:
				_, _ = m.update(id, func(r *Request) error {
					r.Effects[i].Acknowledged = true
					return advance(r, pure.EventVerified, m.now())
				})
				return
			case d.Status == "refused":
				_, _ = m.update(id, func(r *Request) error {
					r.Failure = &Failure{Code: d.Code, Message: "the counterparty's node refused the envelope for good"}
					return advance(r, pure.EventDisproved, m.now())
				})
				return
			}
		}
		timer := time.NewTimer(delay)
	wait:
		for {
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-timer.C:
				break wait
			case e, ok := <-evs:
				if !ok {
					evs = nil
					continue
				}
				if e.NegotiationID == r.NegotiationID {
					timer.Stop()
					break wait
				}
			}
		}
		delay = min(delay*2, m.readBackMax)
	}
}

// findEffect decides a request in pending_verification that names no
// effect: the act returned an error that is no refusal, or the node
// stopped while it ran. The node records an envelope before it leaves (one
// batch, the outbox in the ledger), so the thread holds the revision's
// envelope (its type, sent by this node, after the basis offer) or nothing
// was ever sent: the effect is added and read back (true), or the request
// fails, disproved (false). It also reports false when it cannot read the
// thread now (the next read-back, or resume, tries again).
func (m *manager) findEffect(ctx context.Context, id string) bool {
	r, ok := m.s.store.Request(id)
	if !ok || r.Proposals == nil || r.Proposals.Accepted == nil {
		return false
	}
	rev := r.Proposals.Find(r.Proposals.Accepted.ProposalID)
	if rev == nil {
		return false
	}
	t, err := termsOf(rev)
	if err != nil {
		return false
	}
	typ := negotiation.TypeTaskAcceptance
	if t.Action == actionCounter {
		typ = negotiation.TypeTaskCounterOffer
	}
	ref, err := m.s.b.SentAfter(ctx, r.NegotiationID, r.Basis, typ)
	if err != nil {
		m.s.log.Warn("request's effect not read back", "request", id, "err", err)
		return false
	}
	_, err = m.update(id, func(r *Request) error {
		if r.State != pure.StatePendingVerification {
			return nil
		}
		if _, ok := unacked(r); ok {
			return nil
		}
		if ref == nil {
			r.Failure = &Failure{Code: "not_sent", Message: "the act ended without an envelope, and the negotiation's thread holds none answering the revision's offer: nothing was sent"}
			return advance(r, pure.EventDisproved, m.now())
		}
		r.Effects = append(r.Effects, Effect{Kind: "envelope", Type: string(ref.Type), CID: ref.CID, Hash: ref.Hash, NegotiationID: r.NegotiationID})
		return nil
	})
	return err == nil && ref != nil
}

// resume picks up the requests left open at the last stop (the type's
// comment says how).
func (m *manager) resume(ctx context.Context) error {
	for _, r := range m.s.store.Requests("") {
		switch r.State {
		case pure.StateExecuting, pure.StatePendingVerification:
			got, err := m.update(r.ID, func(r *Request) error { return advance(r, pure.EventRestart, m.now()) })
			if err != nil {
				return err
			}
			if got.State == pure.StatePendingVerification {
				id := got.ID
				m.s.spawn(func(ctx context.Context) { m.readBack(ctx, id) })
			}
		case pure.StateAccepted:
			if _, err := m.begin(r.ID); err != nil {
				return err
			}
		case pure.StateWaitingHuman:
			m.start(r.ID)
		}
	}
	return nil
}
