package negotiation

import "slices"

// State is a negotiation thread's state.
type State string

// Thread states. Proposed -> countered* -> agreed -> funded -> delivered ->
// completed, with disputed -> arbitrated -> resolved, and cancelled, vetoed
// and expired as exits. A veto after funding halts the task (halted): the
// escrow stays in the contract until the parties cancel, a dispute rules or
// the contract's timeouts run, so halted is not an exit.
const (
	StateOpen       State = "open" // no offer yet
	StateProposed   State = "proposed"
	StateCountered  State = "countered"
	StateAgreed     State = "agreed"
	StateFunded     State = "funded"
	StateDelivered  State = "delivered"
	StateCompleted  State = "completed"
	StateDisputed   State = "disputed"
	StateArbitrated State = "arbitrated"
	StateResolved   State = "resolved"
	StateCancelled  State = "cancelled"
	StateVetoed     State = "vetoed"
	StateExpired    State = "expired"
)

// StateHalted is a funded task a supervisor vetoed: the parties may only
// cancel it by mutual consent or open a dispute, and the thread takes every
// chain fact of a funded task (docs/protocol.md, "Supervisor veto").
const StateHalted State = "halted"

// A2AState is a task state named as A2A (and VXP's projections) name them.
type A2AState string

// The A2A task states.
const (
	A2ASubmitted     A2AState = "TASK_STATE_SUBMITTED"
	A2AWorking       A2AState = "TASK_STATE_WORKING"
	A2AInputRequired A2AState = "TASK_STATE_INPUT_REQUIRED"
	A2AAuthRequired  A2AState = "TASK_STATE_AUTH_REQUIRED"
	A2ACompleted     A2AState = "TASK_STATE_COMPLETED"
	A2ACanceled      A2AState = "TASK_STATE_CANCELED"
	A2ARejected      A2AState = "TASK_STATE_REJECTED"
	A2AFailed        A2AState = "TASK_STATE_FAILED"
)

// A2A projects s onto A2A's task states (docs/protocol.md has the table).
func (s State) A2A() A2AState {
	switch s {
	case StateOpen:
		return A2ASubmitted
	case StateProposed, StateCountered, StateDelivered, StateHalted:
		return A2AInputRequired
	case StateAgreed:
		return A2AAuthRequired
	case StateFunded, StateDisputed, StateArbitrated:
		return A2AWorking
	case StateCompleted, StateResolved:
		return A2ACompleted
	case StateCancelled:
		return A2ACanceled
	case StateVetoed:
		return A2ARejected
	case StateExpired:
		return A2AFailed
	}
	return A2AFailed
}

// Terminal reports whether no envelope can change s any more.
func (s State) Terminal() bool {
	switch s {
	case StateCompleted, StateResolved, StateCancelled, StateVetoed:
		return true
	}
	return false
}

// negotiating reports whether offers may still be made or accepted.
func (s State) negotiating() bool { return slices.Contains(negotiatingStates, s) }

// Role is a party's role in a thread.
type Role string

// Roles.
const (
	RoleNone       Role = ""
	RolePoster     Role = "poster"
	RoleWorker     Role = "worker"
	RoleArbitrator Role = "arbitrator"
	RoleSupervisor Role = "supervisor"
)
