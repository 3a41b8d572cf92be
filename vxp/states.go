package vxp

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// State is a request's state, named exactly as the seed's E1 names them.
type State string

// The states of E1. Succeeded, failed, cancelled and expired are final.
const (
	StateReceived              State = "received"
	StateAuthorizationRequired State = "authorization_required"
	StateProposed              State = "proposed"
	StateAccepted              State = "accepted"
	StateWaitingHuman          State = "waiting_human"
	StateExecuting             State = "executing"
	StatePendingVerification   State = "pending_verification"
	StateSucceeded             State = "succeeded"
	StateFailed                State = "failed"
	StateCancelled             State = "cancelled"
	StateExpired               State = "expired"
)

// States lists every state of E1 in the seed's order.
var States = []State{
	StateReceived, StateAuthorizationRequired, StateProposed, StateAccepted,
	StateWaitingHuman, StateExecuting, StatePendingVerification,
	StateSucceeded, StateFailed, StateCancelled, StateExpired,
}

// Final reports whether s is one of E1's final states, which no event
// leaves.
func (s State) Final() bool {
	switch s {
	case StateSucceeded, StateFailed, StateCancelled, StateExpired:
		return true
	}
	return false
}

// Valid reports whether s is a state of E1.
func (s State) Valid() bool { return slices.Contains(States, s) }

// Event is what happened to a request: what the node decided, observed or
// was asked. The node's request manager feeds events to Transition.
type Event string

// The events of the transition table.
const (
	// EventAuthorizationMissing: evaluated without a grant covering it.
	EventAuthorizationMissing Event = "authorization_missing"
	// EventAuthorized: a grant covers a statically admitted operation
	// (a read): it runs without a proposal.
	EventAuthorized Event = "authorized"
	// EventProposed: a grant covers a dynamically admitted operation and
	// the node made a proposal (revision 1, or a re-evaluation's).
	EventProposed Event = "proposed"
	// EventRevised: a counter or the negotiation moving under the request
	// made a new revision; the request stays proposed.
	EventRevised Event = "revised"
	// EventAccepted: the agent accepted the current revision (proposal.go
	// decides whether it may).
	EventAccepted Event = "accepted"
	// EventGated: the accepted act is a gated act: it waits for the
	// principal's passkey.
	EventGated Event = "gated"
	// EventApproved: the principal approved the gated act with a passkey.
	EventApproved Event = "approved"
	// EventExecute: the act starts (not gated, or approved).
	EventExecute Event = "execute"
	// EventDispatched: the act's effect left the node (an envelope in the
	// outbox, a transaction broadcast): from now on whether it happened is
	// known only by reading it back.
	EventDispatched Event = "dispatched"
	// EventTimeout: a call timed out (an RPC after broadcast, a peer's
	// ack): whether the effect happened is unknown.
	EventTimeout Event = "timeout"
	// EventUnconfirmed: a read-back that cannot confirm yet (an envelope
	// not acknowledged, a transaction without receipt).
	EventUnconfirmed Event = "unconfirmed"
	// EventRestart: the node restarted while the request was open.
	EventRestart Event = "restart"
	// EventVerified: the read-back shows the effect (an envelope acked and
	// visible in the thread; a chain act's receipt and fact), or a read
	// returned its result. The only way to succeeded.
	EventVerified Event = "verified"
	// EventDisproved: the read-back shows the effect did not happen and
	// cannot happen any more (a reverted receipt, a peer's final
	// rejection of the envelope).
	EventDisproved Event = "disproved"
	// EventRefused: the node refused the request before any effect left
	// it (a precondition, the negotiation's state machine, accept
	// attempts exhausted).
	EventRefused Event = "refused"
	// EventDenied: the principal denied the gated act.
	EventDenied Event = "denied"
	// EventCancel: the agent asked to stop (POST .../cancel).
	EventCancel Event = "cancel"
	// EventExpire: a deadline passed (the proposal's expires_at, the
	// request's wait for a grant or an approval).
	EventExpire Event = "expire"
)

// rule is one row of the transition table: in state from, event goes to
// to, or is refused with refuse.
type rule struct {
	from   State
	event  Event
	to     State
	refuse Code
}

// transitions is the transition table. An event without a row in a state
// that is not final is invalid_transition; every event in a final state is
// request_final. The rows with refuse are the rule that a request never
// gives up on an effect that may have happened: while executing or
// pending_verification nothing but a read-back (verified, disproved) ends
// it, and a timeout, an unconfirmed read-back or a restart holds it in
// pending_verification.
var transitions = []rule{
	{StateReceived, EventAuthorizationMissing, StateAuthorizationRequired, ""},
	{StateReceived, EventAuthorized, StateExecuting, ""},
	{StateReceived, EventProposed, StateProposed, ""},
	{StateReceived, EventRefused, StateFailed, ""},
	{StateReceived, EventCancel, StateCancelled, ""},
	{StateReceived, EventRestart, StateReceived, ""},

	{StateAuthorizationRequired, EventAuthorizationMissing, StateAuthorizationRequired, ""},
	{StateAuthorizationRequired, EventAuthorized, StateExecuting, ""},
	{StateAuthorizationRequired, EventProposed, StateProposed, ""},
	{StateAuthorizationRequired, EventRefused, StateFailed, ""},
	{StateAuthorizationRequired, EventCancel, StateCancelled, ""},
	{StateAuthorizationRequired, EventExpire, StateExpired, ""},
	{StateAuthorizationRequired, EventRestart, StateAuthorizationRequired, ""},

	{StateProposed, EventAuthorizationMissing, StateAuthorizationRequired, ""},
	{StateProposed, EventProposed, StateProposed, ""},
	{StateProposed, EventRevised, StateProposed, ""},
	{StateProposed, EventAccepted, StateAccepted, ""},
	{StateProposed, EventRefused, StateFailed, ""},
	{StateProposed, EventCancel, StateCancelled, ""},
	{StateProposed, EventExpire, StateExpired, ""},
	{StateProposed, EventRestart, StateProposed, ""},

	{StateAccepted, EventGated, StateWaitingHuman, ""},
	{StateAccepted, EventExecute, StateExecuting, ""},
	{StateAccepted, EventRefused, StateFailed, ""},
	{StateAccepted, EventCancel, StateCancelled, ""},
	{StateAccepted, EventRestart, StateAccepted, ""},

	{StateWaitingHuman, EventApproved, StateExecuting, ""},
	{StateWaitingHuman, EventDenied, StateFailed, ""},
	{StateWaitingHuman, EventRefused, StateFailed, ""},
	{StateWaitingHuman, EventCancel, StateCancelled, ""},
	{StateWaitingHuman, EventExpire, StateExpired, ""},
	{StateWaitingHuman, EventRestart, StateWaitingHuman, ""},

	{StateExecuting, EventDispatched, StatePendingVerification, ""},
	{StateExecuting, EventTimeout, StatePendingVerification, ""},
	{StateExecuting, EventUnconfirmed, StatePendingVerification, ""},
	{StateExecuting, EventRestart, StatePendingVerification, ""}, // it may have left before the crash
	{StateExecuting, EventVerified, StateSucceeded, ""},
	{StateExecuting, EventDisproved, StateFailed, ""},
	{StateExecuting, EventRefused, StateFailed, ""}, // refused before anything left the node
	{StateExecuting, EventCancel, "", CodeEffectUnknown},
	{StateExecuting, EventExpire, "", CodeEffectUnknown},

	{StatePendingVerification, EventDispatched, StatePendingVerification, ""},
	{StatePendingVerification, EventTimeout, StatePendingVerification, ""},
	{StatePendingVerification, EventUnconfirmed, StatePendingVerification, ""},
	{StatePendingVerification, EventRestart, StatePendingVerification, ""},
	{StatePendingVerification, EventVerified, StateSucceeded, ""},
	{StatePendingVerification, EventDisproved, StateFailed, ""},
	{StatePendingVerification, EventRefused, "", CodeEffectUnknown},
	{StatePendingVerification, EventCancel, "", CodeEffectUnknown},
	{StatePendingVerification, EventExpire, "", CodeEffectUnknown},
}

// Events lists every event of the transition table.
var Events = []Event{
	EventAuthorizationMissing, EventAuthorized, EventProposed, EventRevised,
	EventAccepted, EventGated, EventApproved, EventExecute, EventDispatched,
	EventTimeout, EventUnconfirmed, EventRestart, EventVerified, EventDisproved,
	EventRefused, EventDenied, EventCancel, EventExpire,
}

// Step is one transition: the state it leaves (From), the one it reaches
// (State), the event and when. It marshals as an entry of GET
// /v1/requests/{id}/events, {state, from, at}; the node records a step
// only when State differs from From.
type Step struct {
	State State     `json:"state"`
	From  State     `json:"from"`
	Event Event     `json:"-"`
	At    time.Time `json:"at"`
}

// TimeFormat is how VXP's answers write times: RFC 3339 UTC with exactly
// three fractional digits, as the seed's expires_at and Parley's wire do.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// MarshalJSON writes the step as {state, from, at}, at in TimeFormat.
func (s Step) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		State State  `json:"state"`
		From  State  `json:"from"`
		At    string `json:"at"`
	}{s.State, s.From, s.At.UTC().Format(TimeFormat)})
}

// Changed reports whether the step moves the request to another state.
func (s Step) Changed() bool { return s.State != s.From }

// Transition returns the step that event causes in state s at time at, or
// an *Error: unknown_state, unknown_event or bad_argument (a zero at) for
// bad arguments; request_final in a final state; effect_unknown for an
// event that would give up on an effect that may have happened (cancel,
// expire or refuse while executing or pending_verification);
// invalid_transition for any other event the table has no row for.
func Transition(s State, event Event, at time.Time) (Step, error) {
	if !s.Valid() {
		return Step{}, coded(CodeUnknownState, "state", "%q is not a state of E1", s)
	}
	if !slices.Contains(Events, event) {
		return Step{}, coded(CodeUnknownEvent, "event", "%q is not an event", event)
	}
	if at.IsZero() {
		return Step{}, coded(CodeBadArgument, "at", "no time given")
	}
	if s.Final() {
		return Step{}, coded(CodeRequestFinal, "state", "the request is %s", s)
	}
	for _, r := range transitions {
		if r.from != s || r.event != event {
			continue
		}
		if r.refuse != "" {
			return Step{}, coded(r.refuse, "event", "%s while %s: whether the effect happened is known only by reading it back", event, s)
		}
		return Step{State: r.to, From: s, Event: event, At: at.UTC()}, nil
	}
	return Step{}, coded(CodeInvalidTransition, "event", "%s does not apply to a request that is %s", event, s)
}

// PoppyState is a request's state projected onto Poppy's enum. The seed
// names two of its values (null before a proposal, "proposed"); the rest
// is Parley's choice (docs/vxp.md): the proposal's lifecycle in E1's own
// words.
type PoppyState string

// The Poppy states.
const (
	PoppyProposed  PoppyState = "proposed"
	PoppyAccepted  PoppyState = "accepted"
	PoppySucceeded PoppyState = "succeeded"
	PoppyFailed    PoppyState = "failed"
	PoppyCancelled PoppyState = "cancelled"
	PoppyExpired   PoppyState = "expired"
)

// Projections is the projections member of a request's answer (E2).
// Poppy is null while no proposal exists.
type Projections struct {
	Poppy *PoppyState          `json:"poppy"`
	A2A   negotiation.A2AState `json:"a2a"`
}

// projection is one row of E2: a state's Poppy and A2A names. Poppy ""
// is null.
type projection struct {
	poppy PoppyState
	a2a   negotiation.A2AState
}

// projections is E2: the seed gives authorization_required (null,
// TASK_STATE_AUTH_REQUIRED) and proposed (proposed,
// TASK_STATE_INPUT_REQUIRED); the other rows are Parley's (docs/vxp.md).
var projections = map[State]projection{
	StateReceived:              {"", negotiation.A2ASubmitted},
	StateAuthorizationRequired: {"", negotiation.A2AAuthRequired},
	StateProposed:              {PoppyProposed, negotiation.A2AInputRequired},
	StateAccepted:              {PoppyAccepted, negotiation.A2AWorking},
	StateWaitingHuman:          {PoppyAccepted, negotiation.A2AAuthRequired},
	StateExecuting:             {PoppyAccepted, negotiation.A2AWorking},
	StatePendingVerification:   {PoppyAccepted, negotiation.A2AWorking},
	StateSucceeded:             {PoppySucceeded, negotiation.A2ACompleted},
	StateFailed:                {PoppyFailed, negotiation.A2AFailed},
	StateCancelled:             {PoppyCancelled, negotiation.A2ACanceled},
	StateExpired:               {PoppyExpired, negotiation.A2AFailed},
}

// Project returns s's projections onto Poppy and A2A (E2). proposed says
// whether the request ever had a proposal: Poppy speaks of proposals
// only, so a request without one (a read, or one refused or cancelled
// before its proposal) projects onto Poppy as null in every state. An
// unknown state projects as (null, TASK_STATE_FAILED).
func Project(s State, proposed bool) Projections {
	p, ok := projections[s]
	if !ok {
		return Projections{A2A: negotiation.A2AFailed}
	}
	out := Projections{A2A: p.a2a}
	if proposed && p.poppy != "" {
		v := p.poppy
		out.Poppy = &v
	}
	return out
}
