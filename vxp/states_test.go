package vxp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

var t0 = time.Date(2026, 10, 22, 22, 30, 29, 356_000_000, time.UTC)

// TestTransition holds every row of the transition table, written out
// again here, and every refusal: removing or changing a row fails its
// case.
func TestTransition(t *testing.T) {
	type tc struct {
		from  State
		event Event
		to    State
		code  Code
	}
	cases := []tc{
		{StateReceived, EventAuthorizationMissing, StateAuthorizationRequired, ""},
		{StateReceived, EventAuthorized, StateExecuting, ""},
		{StateReceived, EventProposed, StateProposed, ""},
		{StateReceived, EventRefused, StateFailed, ""},
		{StateReceived, EventCancel, StateCancelled, ""},
		{StateReceived, EventRestart, StateReceived, ""},
		{StateReceived, EventAccepted, "", CodeInvalidTransition},
		{StateReceived, EventVerified, "", CodeInvalidTransition},

		{StateAuthorizationRequired, EventAuthorizationMissing, StateAuthorizationRequired, ""},
		{StateAuthorizationRequired, EventAuthorized, StateExecuting, ""},
		{StateAuthorizationRequired, EventProposed, StateProposed, ""},
		{StateAuthorizationRequired, EventRefused, StateFailed, ""},
		{StateAuthorizationRequired, EventCancel, StateCancelled, ""},
		{StateAuthorizationRequired, EventExpire, StateExpired, ""},
		{StateAuthorizationRequired, EventRestart, StateAuthorizationRequired, ""},
		{StateAuthorizationRequired, EventAccepted, "", CodeInvalidTransition},

		{StateProposed, EventAuthorizationMissing, StateAuthorizationRequired, ""},
		{StateProposed, EventProposed, StateProposed, ""},
		{StateProposed, EventRevised, StateProposed, ""},
		{StateProposed, EventAccepted, StateAccepted, ""},
		{StateProposed, EventRefused, StateFailed, ""},
		{StateProposed, EventCancel, StateCancelled, ""},
		{StateProposed, EventExpire, StateExpired, ""},
		{StateProposed, EventRestart, StateProposed, ""},
		{StateProposed, EventExecute, "", CodeInvalidTransition},
		{StateProposed, EventVerified, "", CodeInvalidTransition},

		{StateAccepted, EventGated, StateWaitingHuman, ""},
		{StateAccepted, EventExecute, StateExecuting, ""},
		{StateAccepted, EventRefused, StateFailed, ""},
		{StateAccepted, EventCancel, StateCancelled, ""},
		{StateAccepted, EventRestart, StateAccepted, ""},
		{StateAccepted, EventAccepted, "", CodeInvalidTransition}, // a second accept
		{StateAccepted, EventExpire, "", CodeInvalidTransition},   // an acceptance stands

		{StateWaitingHuman, EventApproved, StateExecuting, ""},
		{StateWaitingHuman, EventDenied, StateFailed, ""},
		{StateWaitingHuman, EventRefused, StateFailed, ""},
		{StateWaitingHuman, EventCancel, StateCancelled, ""},
		{StateWaitingHuman, EventExpire, StateExpired, ""},
		{StateWaitingHuman, EventRestart, StateWaitingHuman, ""},
		{StateWaitingHuman, EventExecute, "", CodeInvalidTransition}, // not without the passkey
		{StateWaitingHuman, EventAccepted, "", CodeInvalidTransition},

		{StateExecuting, EventDispatched, StatePendingVerification, ""},
		{StateExecuting, EventTimeout, StatePendingVerification, ""}, // an RPC timeout after broadcast
		{StateExecuting, EventUnconfirmed, StatePendingVerification, ""},
		{StateExecuting, EventRestart, StatePendingVerification, ""},
		{StateExecuting, EventVerified, StateSucceeded, ""},
		{StateExecuting, EventDisproved, StateFailed, ""},
		{StateExecuting, EventRefused, StateFailed, ""},
		{StateExecuting, EventCancel, "", CodeEffectUnknown},
		{StateExecuting, EventExpire, "", CodeEffectUnknown},
		{StateExecuting, EventApproved, "", CodeInvalidTransition},

		{StatePendingVerification, EventDispatched, StatePendingVerification, ""},
		{StatePendingVerification, EventTimeout, StatePendingVerification, ""},
		{StatePendingVerification, EventUnconfirmed, StatePendingVerification, ""}, // an unacknowledged envelope
		{StatePendingVerification, EventRestart, StatePendingVerification, ""},
		{StatePendingVerification, EventVerified, StateSucceeded, ""},
		{StatePendingVerification, EventDisproved, StateFailed, ""},
		{StatePendingVerification, EventRefused, "", CodeEffectUnknown},
		{StatePendingVerification, EventCancel, "", CodeEffectUnknown},
		{StatePendingVerification, EventExpire, "", CodeEffectUnknown},
		{StatePendingVerification, EventDenied, "", CodeInvalidTransition},

		{StateSucceeded, EventVerified, "", CodeRequestFinal},
		{StateFailed, EventRestart, "", CodeRequestFinal},
		{StateCancelled, EventCancel, "", CodeRequestFinal},
		{StateExpired, EventProposed, "", CodeRequestFinal},

		{"done", EventCancel, "", CodeUnknownState},
		{StateProposed, "poke", "", CodeUnknownEvent},
	}
	for _, c := range cases {
		t.Run(string(c.from)+"/"+string(c.event), func(t *testing.T) {
			st, err := Transition(c.from, c.event, t0)
			if c.code != "" {
				if CodeOf(err) != c.code {
					t.Fatalf("got %v, %v; want %s", st, err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.State != c.to || st.From != c.from || st.Event != c.event || !st.At.Equal(t0) {
				t.Fatalf("got %+v, want %s", st, c.to)
			}
		})
	}
	if _, err := Transition(StateProposed, EventAccepted, time.Time{}); CodeOf(err) != CodeBadArgument {
		t.Fatalf("a zero time: %v", err)
	}
	// Every row of the table has its case above.
	for _, r := range transitions {
		found := false
		for _, c := range cases {
			if c.from == r.from && c.event == r.event && c.to == r.to && c.code == r.refuse {
				found = true
			}
		}
		if !found {
			t.Errorf("row %+v has no case", r)
		}
	}
}

// TestNeverFailedWhileUnknown: from executing and pending_verification
// only a read-back (disproved), or a refusal before anything left the
// node (executing only), reaches failed; only verified reaches succeeded
// from anywhere; every state of E1 and every event is known to the table.
func TestNeverFailedWhileUnknown(t *testing.T) {
	for _, s := range States {
		for _, e := range Events {
			st, err := Transition(s, e, t0)
			if err != nil {
				continue
			}
			if st.State == StateSucceeded && e != EventVerified {
				t.Errorf("%s/%s reaches succeeded without a read-back", s, e)
			}
			if st.State == StateFailed && s == StatePendingVerification && e != EventDisproved {
				t.Errorf("%s/%s fails a request whose effect is unknown", s, e)
			}
			if st.State == StateFailed && s == StateExecuting && e != EventDisproved && e != EventRefused {
				t.Errorf("%s/%s fails an executing request", s, e)
			}
			if !st.State.Valid() {
				t.Errorf("%s/%s reaches %q", s, e, st.State)
			}
		}
	}
	for _, s := range []State{StateSucceeded, StateFailed, StateCancelled, StateExpired} {
		if !s.Final() {
			t.Errorf("%s is not final", s)
		}
	}
	for _, s := range []State{StateReceived, StateAuthorizationRequired, StateProposed, StateAccepted, StateWaitingHuman, StateExecuting, StatePendingVerification} {
		if s.Final() {
			t.Errorf("%s is final", s)
		}
	}
}

// TestStories drives requests through the transitions the issue names: an
// RPC timeout after broadcast, an unacknowledged envelope and a restart in
// pending_verification each hold the request in pending_verification
// until the read-back, which alone ends it.
func TestStories(t *testing.T) {
	stories := []struct {
		name   string
		events []Event
		want   State
	}{
		{"a read", []Event{EventAuthorized, EventVerified}, StateSucceeded},
		{"no grant, then a grant", []Event{EventAuthorizationMissing, EventProposed, EventAccepted, EventExecute, EventDispatched, EventVerified}, StateSucceeded},
		{"an RPC timeout after broadcast", []Event{EventProposed, EventAccepted, EventGated, EventApproved, EventDispatched, EventTimeout, EventTimeout, EventVerified}, StateSucceeded},
		{"a timeout, then a reverted receipt", []Event{EventProposed, EventAccepted, EventExecute, EventTimeout, EventDisproved}, StateFailed},
		{"an unacknowledged envelope", []Event{EventProposed, EventAccepted, EventExecute, EventDispatched, EventUnconfirmed, EventUnconfirmed}, StatePendingVerification},
		{"an unacknowledged envelope, acked later", []Event{EventProposed, EventAccepted, EventExecute, EventDispatched, EventUnconfirmed, EventVerified}, StateSucceeded},
		{"a restart in pending_verification", []Event{EventProposed, EventAccepted, EventExecute, EventDispatched, EventRestart, EventRestart}, StatePendingVerification},
		{"a restart in pending_verification, read back", []Event{EventProposed, EventAccepted, EventExecute, EventDispatched, EventRestart, EventVerified}, StateSucceeded},
		{"a crash while executing", []Event{EventProposed, EventAccepted, EventExecute, EventRestart}, StatePendingVerification},
		{"a counter", []Event{EventProposed, EventRevised, EventAccepted, EventExecute, EventDispatched, EventVerified}, StateSucceeded},
		{"the principal denies", []Event{EventProposed, EventAccepted, EventGated, EventDenied}, StateFailed},
		{"cancelled while waiting for the passkey", []Event{EventProposed, EventAccepted, EventGated, EventCancel}, StateCancelled},
		{"the proposal expires", []Event{EventProposed, EventExpire}, StateExpired},
	}
	for _, s := range stories {
		t.Run(s.name, func(t *testing.T) {
			state := StateReceived
			at := t0
			for _, e := range s.events {
				at = at.Add(time.Second)
				st, err := Transition(state, e, at)
				if err != nil {
					t.Fatalf("%s in %s: %v", e, state, err)
				}
				state = st.State
			}
			if state != s.want {
				t.Fatalf("ends %s, want %s", state, s.want)
			}
		})
	}
}

// TestProject holds E2: the seed's two rows, Parley's others, and Poppy's
// null for a request that never had a proposal.
func TestProject(t *testing.T) {
	cases := []struct {
		state    State
		proposed bool
		poppy    string // "" is null
		a2a      negotiation.A2AState
	}{
		{StateReceived, false, "", "TASK_STATE_SUBMITTED"},
		{StateAuthorizationRequired, false, "", "TASK_STATE_AUTH_REQUIRED"}, // the seed
		{StateAuthorizationRequired, true, "", "TASK_STATE_AUTH_REQUIRED"},  // a grant revoked under a proposal
		{StateProposed, true, "proposed", "TASK_STATE_INPUT_REQUIRED"},      // the seed
		{StateAccepted, true, "accepted", "TASK_STATE_WORKING"},
		{StateWaitingHuman, true, "accepted", "TASK_STATE_AUTH_REQUIRED"},
		{StateExecuting, true, "accepted", "TASK_STATE_WORKING"},
		{StateExecuting, false, "", "TASK_STATE_WORKING"}, // a read
		{StatePendingVerification, true, "accepted", "TASK_STATE_WORKING"},
		{StateSucceeded, true, "succeeded", "TASK_STATE_COMPLETED"},
		{StateSucceeded, false, "", "TASK_STATE_COMPLETED"},
		{StateFailed, true, "failed", "TASK_STATE_FAILED"},
		{StateCancelled, true, "cancelled", "TASK_STATE_CANCELED"},
		{StateExpired, true, "expired", "TASK_STATE_FAILED"},
		{"bogus", true, "", "TASK_STATE_FAILED"},
	}
	for _, c := range cases {
		t.Run(string(c.state), func(t *testing.T) {
			p := Project(c.state, c.proposed)
			got := ""
			if p.Poppy != nil {
				got = string(*p.Poppy)
			}
			if got != c.poppy || p.A2A != c.a2a {
				t.Fatalf("got (%q, %s), want (%q, %s)", got, p.A2A, c.poppy, c.a2a)
			}
		})
	}
	for _, s := range States {
		if _, ok := projections[s]; !ok {
			t.Errorf("%s has no projection", s)
		}
	}
	b, _ := json.Marshal(Project(StateAuthorizationRequired, false))
	if string(b) != `{"poppy":null,"a2a":"TASK_STATE_AUTH_REQUIRED"}` {
		t.Fatalf("projections marshal as %s", b)
	}
}

// TestStepJSON: a step marshals as an entry of the events list.
func TestStepJSON(t *testing.T) {
	st, err := Transition(StateProposed, EventAccepted, t0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(st)
	if string(b) != `{"state":"accepted","from":"proposed","at":"2026-10-22T22:30:29.356Z"}` {
		t.Fatalf("%s", b)
	}
	st, _ = Transition(StateProposed, EventAccepted, time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)))
	if b, _ := json.Marshal(st); string(b) != `{"state":"accepted","from":"proposed","at":"2026-01-02T02:04:05.000Z"}` {
		t.Fatalf("three fractional digits, UTC: %s", b)
	}
	if !st.Changed() {
		t.Fatal("not changed")
	}
	if st, _ := Transition(StatePendingVerification, EventRestart, t0); st.Changed() {
		t.Fatal("a restart in pending_verification is no change")
	}
}
