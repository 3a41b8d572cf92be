package negotiation

import "slices"

// The supervisor veto (docs/protocol.md, "Supervisor veto"). A party names
// a supervisor in its offer or acceptance (the supervisor member of a
// TaskProposal, TaskCounterOffer or TaskAcceptance); that supervisor may
// send a SupervisorVeto for the party. Before funding the veto ends the
// negotiation (vetoed): nothing was committed on chain. After funding the
// escrow is in the contract and a veto cannot take it out, so the thread
// is halted: the parties may only cancel by mutual consent (and submit the
// co-signed Cancel) or open a dispute, and the thread takes every chain
// fact of a funded task, the contract's timeouts' included, until the task
// is settled. A veto in a dispute is recorded and leaves the dispute to
// its ruling.

// vetoedState returns the state a veto moves the thread to.
func (t *Thread) vetoedState() State {
	switch t.state {
	case StateDisputed, StateArbitrated:
		return t.state
	}
	if t.taskID != nil {
		return StateHalted
	}
	return StateVetoed
}

// fundedState returns the state the chain's TaskFunded moves the thread
// to: funded, or halted when a veto arrived before the task was funded on
// chain (the chain decides: the escrow is in the contract all the same).
func (t *Thread) fundedState() State {
	if t.state == StateVetoed {
		return StateHalted
	}
	return StateFunded
}

// checkHaltedSubmit refuses, in a halted thread, a co-signed pair other
// than the cancel: a veto stops amendments and replacements, not the
// return of the escrow.
func (t *Thread) checkHaltedSubmit(kind MessageType) *Error {
	if t.state == StateHalted && kind != TypeMutualCancel {
		return reject(CodeStateForbidden, "", "the task is halted by a veto: only its cancel is submitted, not a %s", kind)
	}
	return nil
}

// SupervisorOf returns the supervisor party named (in its latest offer or
// acceptance that named one), and whether it named one.
func (t *Thread) SupervisorOf(party Address) (Address, bool) {
	s, ok := t.supervisors[party]
	return s, ok
}

// Supervisors returns the supervisors the parties named, the poster's
// first, without duplicates.
func (t *Thread) Supervisors() []Address {
	var out []Address
	for _, p := range []Address{t.poster, t.worker} {
		if s, ok := t.supervisors[p]; ok && p != (Address{}) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Vetoes returns the effective SupervisorVeto envelopes of the thread, in
// arrival order.
func (t *Thread) Vetoes() []*Envelope {
	var out []*Envelope
	for _, r := range t.log {
		if r.Type == TypeSupervisorVeto && r.Code == "" {
			out = append(out, t.byHash[r.Hash])
		}
	}
	return out
}
