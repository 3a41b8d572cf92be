package negotiation

import (
	"strings"
	"testing"
)

// haltedThread returns a thread of stateScripts' funded task (or
// delivered, with deliver) that the poster's supervisor vetoed.
func haltedThread(t *testing.T, from State) *transcript {
	t.Helper()
	tr := threadIn(t, from)
	mustTake(t, tr, "send supervisor veto party=poster to=poster,worker")
	if st := tr.th.State(); st != StateHalted {
		t.Fatalf("a veto in %s: %s, want halted", from, st)
	}
	return tr
}

// mustTake runs cmd and fails unless every input took effect.
func mustTake(t *testing.T, tr *transcript, cmd string) {
	t.Helper()
	for _, line := range tr.run(cmd) {
		if strings.Contains(line, "->") && !strings.Contains(line, "-> ok") {
			t.Fatalf("%s: %s", cmd, line)
		}
	}
}

// TestVetoStates: a veto before funding ends the negotiation (vetoed,
// terminal); after funding it halts the task (halted, not terminal); in a
// dispute it leaves the dispute to its ruling.
func TestVetoStates(t *testing.T) {
	for _, tc := range []struct {
		from, want State
	}{
		{StateProposed, StateVetoed}, {StateCountered, StateVetoed}, {StateAgreed, StateVetoed},
		{StateFunded, StateHalted}, {StateDelivered, StateHalted},
		{StateDisputed, StateDisputed}, {StateArbitrated, StateArbitrated},
	} {
		tr := threadIn(t, tc.from)
		mustTake(t, tr, "send supervisor veto party=poster to=poster,worker")
		if got := tr.th.State(); got != tc.want {
			t.Errorf("a veto in %s: %s, want %s", tc.from, got, tc.want)
		}
	}
	if StateHalted.Terminal() || !StateVetoed.Terminal() {
		t.Fatal("halted must not be terminal, vetoed must")
	}
	if !StateHalted.PostFunding() {
		t.Fatal("halted is a funded task")
	}
	if StateHalted.A2A() != A2AInputRequired {
		t.Fatalf("halted projects to %s", StateHalted.A2A())
	}
}

// TestMayHalted: in a halted thread the parties may cancel, submit the
// co-signed cancel and open a dispute, and nothing else of a funded task;
// the supervisor may veto again.
func TestMayHalted(t *testing.T) {
	tr := haltedThread(t, StateDelivered)
	poster, worker, sup := tr.parties["poster"].addr, tr.parties["worker"].addr, tr.parties["supervisor"].addr
	for _, tc := range []struct {
		act  Act
		by   Address
		args ActArgs
		want Code
	}{
		{ActCancel, poster, ActArgs{}, ""},
		{ActCancel, worker, ActArgs{}, ""},
		{ActOpenDispute, poster, ActArgs{}, ""},
		{ActOpenDispute, worker, ActArgs{}, ""},
		{ActSubmitCoSigned, poster, ActArgs{Kind: TypeMutualCancel}, CodeStateForbidden}, // no pair yet
		{ActSubmitCoSigned, poster, ActArgs{Kind: TypeMilestoneDefinition}, CodeStateForbidden},
		{ActSubmitCoSigned, worker, ActArgs{Kind: TypeReplacementContext}, CodeStateForbidden},
		{ActDeliver, worker, ActArgs{Milestone: 1}, CodeStateForbidden},
		{ActRequestPayment, worker, ActArgs{}, CodeStateForbidden},
		{ActRequestRevision, poster, ActArgs{}, CodeStateForbidden},
		{ActAcceptDelivery, poster, ActArgs{}, CodeStateForbidden},
		{ActAmend, poster, ActArgs{}, CodeStateForbidden},
		{ActReplace, worker, ActArgs{Party: tr.parties["newworker"].addr}, CodeStateForbidden},
		{ActFund, poster, ActArgs{}, CodeStateForbidden},
		{ActVeto, sup, ActArgs{Party: poster}, ""},
		{ActVeto, tr.parties["stranger"].addr, ActArgs{Party: poster}, CodeNotParty},
	} {
		if got := CodeOf(tr.th.May(tc.act, tc.by, tc.args)); got != tc.want {
			t.Errorf("%s by %s in halted: %q, want %q", tc.act, tr.names[tc.by], got, tc.want)
		}
	}
}

// TestHaltedCancel: in a halted thread both parties' signed Cancels make
// the pair ready, submit_cosigned then allows it, and the chain's
// task_cancelled ends the thread.
func TestHaltedCancel(t *testing.T) {
	tr := haltedThread(t, StateFunded)
	mustTake(t, tr, "send worker cancel nonce=0")
	mustTake(t, tr, "send poster cancel nonce=0")
	if tr.th.Ready(TypeMutualCancel) == nil {
		t.Fatal("no co-signed cancel")
	}
	nonce := uint64(0)
	if err := tr.th.May(ActSubmitCoSigned, tr.parties["poster"].addr, ActArgs{Kind: TypeMutualCancel, Nonce: &nonce}); err != nil {
		t.Fatalf("submitting the cancel of a halted task: %v", err)
	}
	mustTake(t, tr, "fact cancelled")
	if st := tr.th.State(); st != StateCancelled {
		t.Fatalf("after the chain's cancel: %s", st)
	}
}

// TestHaltedFacts: a halted thread takes every chain fact of a funded
// task and stays halted until the task is settled: a dispute moves it to
// disputed, the last release to completed.
func TestHaltedFacts(t *testing.T) {
	for _, tc := range []struct {
		facts []string
		want  State
	}{
		{[]string{"fact proof m=1"}, StateHalted},
		{[]string{"fact released m=0"}, StateHalted},
		{[]string{"fact released m=0", "fact released m=1"}, StateCompleted},
		{[]string{"fact amended ms=150,300"}, StateHalted},
		{[]string{"fact replaced new=newworker"}, StateHalted},
		{[]string{"fact dispute id=1"}, StateDisputed},
		{[]string{"fact cancelled"}, StateCancelled},
	} {
		tr := haltedThread(t, StateDelivered)
		for _, f := range tc.facts {
			mustTake(t, tr, f)
		}
		if got := tr.th.State(); got != tc.want {
			t.Errorf("%v in halted: %s, want %s", tc.facts, got, tc.want)
		}
	}
}

// TestVetoedBeforeFunding: a vetoed negotiation takes nothing, but the
// chain's TaskFunded (a createTask that raced the veto) halts it, the
// escrow being in the contract; from there its cancel is taken.
func TestVetoedBeforeFunding(t *testing.T) {
	tr := threadIn(t, StateAgreed)
	mustTake(t, tr, "send supervisor veto party=poster to=poster,worker")
	if out := tr.run("send worker cancel"); !strings.Contains(out[0], "state_forbidden") {
		t.Fatalf("a cancel intent in a vetoed negotiation: %v", out)
	}
	if out := tr.run("fact dispute id=1"); !strings.Contains(out[0], "state_forbidden") {
		t.Fatalf("a dispute in a vetoed negotiation: %v", out)
	}
	mustTake(t, tr, "fact funded")
	if st := tr.th.State(); st != StateHalted {
		t.Fatalf("funded after the veto: %s", st)
	}
	mustTake(t, tr, "send worker cancel nonce=0")
}

// TestSupervisorQueries: SupervisorOf and Supervisors name whom the
// parties named, the latest naming winning; Vetoes lists the effective
// vetoes only.
func TestSupervisorQueries(t *testing.T) {
	tr := newTranscript(t)
	tr.run("thread")
	mustTake(t, tr, "send poster propose ms=100 supervisor=supervisor as=P1")
	mustTake(t, tr, "send worker counter reply=P1 ms=120 supervisor=stranger as=W1")
	poster, worker := tr.parties["poster"].addr, tr.parties["worker"].addr
	if s, ok := tr.th.SupervisorOf(poster); !ok || s != tr.parties["supervisor"].addr {
		t.Fatalf("the poster's supervisor: %s %v", s, ok)
	}
	if s, ok := tr.th.SupervisorOf(worker); !ok || s != tr.parties["stranger"].addr {
		t.Fatalf("the worker's supervisor: %s %v", s, ok)
	}
	if got := tr.th.Supervisors(); len(got) != 2 || got[0] != tr.parties["supervisor"].addr {
		t.Fatalf("Supervisors: %v", got)
	}
	mustTake(t, tr, "send poster accept offer=W1 supervisor=newworker")
	if s, _ := tr.th.SupervisorOf(poster); s != tr.parties["newworker"].addr {
		t.Fatalf("the poster named another supervisor in its acceptance: %s", s)
	}
	tr.run("send supervisor veto party=poster to=poster,worker") // no longer the poster's
	if len(tr.th.Vetoes()) != 0 {
		t.Fatal("a refused veto is listed")
	}
	mustTake(t, tr, "send stranger veto party=worker to=poster,worker")
	if v := tr.th.Vetoes(); len(v) != 1 || v[0].Payload.(*SupervisorVeto).Party != worker {
		t.Fatalf("Vetoes: %v", v)
	}
}

// TestHaltedSubmitOnlyCancel: an amendment both parties signed before the
// veto is not submitted once the task is halted; a cancel is.
func TestHaltedSubmitOnlyCancel(t *testing.T) {
	tr := threadIn(t, StateFunded)
	mustTake(t, tr, "send poster amend ms=100,300 nonce=0 at=+1h")
	mustTake(t, tr, "send worker amend ms=100,300 nonce=0 at=+1h")
	poster, nonce := tr.parties["poster"].addr, uint64(0)
	args := ActArgs{Kind: TypeMilestoneDefinition, Nonce: &nonce, TopUp: true}
	if err := tr.th.May(ActSubmitCoSigned, poster, args); err != nil {
		t.Fatalf("the amendment before the veto: %v", err)
	}
	mustTake(t, tr, "send supervisor veto party=poster to=poster,worker")
	if got := CodeOf(tr.th.May(ActSubmitCoSigned, poster, args)); got != CodeStateForbidden {
		t.Fatalf("the amendment of a halted task: %q, want state_forbidden", got)
	}
}
