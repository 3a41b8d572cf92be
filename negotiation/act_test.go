package negotiation

import (
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// stateScripts reach every stored state with real envelopes and facts,
// through the golden transcripts' harness. The poster names the
// supervisor in its proposal; the arbitrator is assigned from arbitrated
// on; the thread is an observer's (it checks no addressing).
var stateScripts = func() map[State][]string {
	proposed := []string{"thread", "send poster propose ms=100,200 supervisor=supervisor as=P1"}
	countered := append(slices.Clone(proposed), "send worker counter reply=P1 ms=150,200 as=W1")
	agreed := append(slices.Clone(countered), "send poster accept offer=W1 as=PA", "send worker accept offer=W1 as=WA")
	funded := append(slices.Clone(agreed), "fact funded")
	delivered := append(slices.Clone(funded), "send worker deliver m=0 as=D0")
	disputed := append(slices.Clone(delivered), "fact dispute id=1")
	arbitrated := append(slices.Clone(disputed),
		"send poster nominate arbitrator=arbitrator", "send worker nominate arbitrator=arbitrator", "fact assigned arbitrator=arbitrator")
	return map[State][]string{
		StateOpen:       {"thread"},
		StateProposed:   proposed,
		StateCountered:  countered,
		StateAgreed:     agreed,
		StateFunded:     funded,
		StateDelivered:  delivered,
		StateDisputed:   disputed,
		StateArbitrated: arbitrated,
		StateResolved:   append(slices.Clone(arbitrated), "fact ruled ruling=5001"),
		StateCompleted: append(slices.Clone(delivered), "send poster acceptdelivery m=0 delivery=D0",
			"send worker deliver m=1 as=D1", "send poster acceptdelivery m=1 delivery=D1"),
		StateCancelled: append(slices.Clone(proposed), "send worker cancel", "send poster cancel"),
		StateVetoed:    append(slices.Clone(proposed), "send supervisor veto party=poster"),
	}
}()

// storedStates are the states a thread can hold (expired is only a
// projection at a time: StateAt).
var storedStates = []State{StateOpen, StateProposed, StateCountered, StateAgreed, StateFunded, StateDelivered,
	StateDisputed, StateArbitrated, StateCompleted, StateResolved, StateCancelled, StateVetoed}

// actors are the parties the exhaustive test acts as.
var actors = []string{"poster", "worker", "arbitrator", "supervisor", "stranger"}

// threadIn runs state's script and checks every input took effect.
func threadIn(t *testing.T, st State) *transcript {
	t.Helper()
	tr := newTranscript(t)
	for _, cmd := range stateScripts[st] {
		for _, line := range tr.run(cmd) {
			if strings.Contains(line, "->") && !strings.Contains(line, "-> ok") {
				t.Fatalf("%s: %s: %s", st, cmd, line)
			}
		}
	}
	if tr.th.State() != st {
		t.Fatalf("the script of %s reached %s", st, tr.th.State())
	}
	return tr
}

// roleIn is, written by hand, the role each actor has in the threads of
// stateScripts: nobody has one before the proposal; the arbitrator only
// once the chain assigned it.
func roleIn(actor string, st State) Role {
	if st == StateOpen {
		return RoleNone
	}
	switch actor {
	case "poster":
		return RolePoster
	case "worker":
		return RoleWorker
	case "supervisor":
		return RoleSupervisor
	case "arbitrator":
		if st == StateArbitrated || st == StateResolved {
			return RoleArbitrator
		}
	}
	return RoleNone
}

// mayExpect is the expectation matrix of TestMayEveryActStateRole, written
// by hand from docs/protocol.md ("Roles" and "Local acts"), not read from
// the act table: who may do each act, in which states. "anyone" includes
// a party with no role yet, which a list of roles names "none".
var mayExpect = map[Act]struct{ roles, states string }{
	ActPropose:           {"anyone", "open"},
	ActCounter:           {"poster worker", "proposed countered"},
	ActAccept:            {"poster worker", "proposed countered"},
	ActFund:              {"poster", "agreed"},
	ActDeliver:           {"worker", "funded delivered"},
	ActRequestPayment:    {"worker", "funded delivered"},
	ActReleasePart:       {"poster", "funded delivered"},
	ActRequestRevision:   {"poster", "delivered"},
	ActAcceptDelivery:    {"poster", "funded delivered completed"},
	ActCapability:        {"worker", "open proposed countered agreed funded delivered disputed arbitrated"},
	ActCancel:            {"poster worker", "proposed countered agreed funded delivered"},
	ActAmend:             {"poster worker", "funded delivered"},
	ActReplace:           {"poster worker", "funded delivered"},
	ActSubmitCoSigned:    {"poster worker", "funded delivered"},
	ActOpenDispute:       {"poster worker", "funded delivered"},
	ActProposeArbitrator: {"poster worker", "disputed"},
	ActSubmitEvidence:    {"poster worker arbitrator", "disputed arbitrated"},
	ActRule:              {"arbitrator", "arbitrated"},
	ActVeto:              {"supervisor", "open proposed countered agreed funded delivered disputed arbitrated"},
	ActJoinDispute:       {"arbitrator", "arbitrated resolved vetoed"},
	ActSealCard:          {"none poster worker supervisor", "open proposed countered agreed funded delivered disputed arbitrated completed resolved cancelled vetoed"},
	ActAnswerEscalation:  {"anyone", "open proposed countered agreed funded delivered disputed arbitrated completed resolved cancelled vetoed"},
	ActBrief:             {"anyone", "proposed countered agreed funded delivered disputed arbitrated completed resolved cancelled vetoed"},
	ActClaimUnanswered:   {"worker", "delivered"},
	ActReclaimExpired:    {"poster", "funded delivered"},
	ActResolveTimedOut:   {"anyone", "disputed arbitrated"},
	ActRaiseArbitrator:   {"poster worker", "arbitrated"},
}

// mayExceptions are, by hand, the refusals the checks of the act table
// give in the threads of stateScripts where roles and states allow the
// act: "act state actor" -> code.
var mayExceptions = map[string]Code{
	// The current offer is the actor's own and the other party has not
	// accepted it.
	"counter proposed poster":  CodeStateForbidden,
	"counter countered worker": CodeStateForbidden,
	// No delivery of milestone 0 yet.
	"accept_delivery funded poster": CodeStateForbidden,
	// No payment request of milestone 0 is pending.
	"release_part funded poster":    CodeStateForbidden,
	"release_part delivered poster": CodeStateForbidden,
	// No co-signed pair is complete.
	"submit_cosigned funded poster":    CodeStateForbidden,
	"submit_cosigned funded worker":    CodeStateForbidden,
	"submit_cosigned delivered poster": CodeStateForbidden,
	"submit_cosigned delivered worker": CodeStateForbidden,
}

// init adds to mayExceptions, by hand from stateScripts, the threads in
// which the actor has spoken: seal_card is refused there. The poster
// proposes in every state after open; the worker counters in countered
// and on, and cancels in cancelled, but says nothing in proposed and
// vetoed; the supervisor speaks only to veto.
func init() {
	spoke := map[string]string{
		"poster":     "proposed countered agreed funded delivered disputed arbitrated completed resolved cancelled vetoed",
		"worker":     "countered agreed funded delivered disputed arbitrated completed resolved cancelled",
		"supervisor": "vetoed",
	}
	for who, sts := range spoke {
		for _, st := range strings.Fields(sts) {
			mayExceptions[fmt.Sprintf("%s %s %s", ActSealCard, st, who)] = CodeStateForbidden
		}
	}
}

// mayArgs are arguments every check passes with in the threads of
// stateScripts, so that TestMayEveryActStateRole sees the roles and states.
func mayArgs(tr *transcript, act Act) ActArgs {
	a := ActArgs{Milestone: 0, Ruling: 5001, Kind: TypeMutualCancel}
	switch act {
	case ActPropose, ActReplace:
		a.Party = tr.parties["newworker"].addr
	case ActProposeArbitrator:
		a.Party = tr.parties["arbitrator"].addr
	case ActVeto:
		a.Party = tr.parties["poster"].addr
	case ActAnswerEscalation:
		a.Mandate = pausedMandate(tr, "poster", "May the price rise?")
	case ActBrief:
		a.At = t0.AddDate(10, 0, 0) // every offer of the scripts expired by then
	}
	return a
}

// pausedMandate returns a mandate of who under the poster's card, paused
// on question.
func pausedMandate(tr *transcript, who, question string) *Mandate {
	tr.t.Helper()
	m, err := NewMandate(mustCard(tr.t, []byte(posterCardJSON)), tr.parties[who].addr)
	if err != nil {
		tr.t.Fatal(err)
	}
	if err := m.Escalate(question, "a test", t0); err != nil {
		tr.t.Fatal(err)
	}
	return m
}

// TestMayEveryActStateRole asks Thread.May about every act, in a thread in
// every stored state, as every kind of party, and compares with the
// expectation matrix above. It is independent of the act table: the
// threads are reached by real envelopes and facts (the golden transcripts'
// harness), the roles each party then holds and the matrix of who may do
// what in which state are written by hand from docs/protocol.md, and the
// refusals the rows' checks give in those threads are listed one by one.
// A row of the table that lost a role or a state, or gained one, fails
// here. The envelope of each act that sends one is then judged by the
// state machine (Check): the act is allowed exactly when the envelope
// would be taken, but for the acts whose states outlive their envelope's.
func TestMayEveryActStateRole(t *testing.T) {
	if got, want := len(Acts()), len(mayExpect); got != want {
		t.Fatalf("%d acts, %d in the expectation matrix", got, want)
	}
	asked, judged := 0, 0
	for _, st := range storedStates {
		tr := threadIn(t, st)
		for _, act := range Acts() {
			exp, ok := mayExpect[act]
			if !ok {
				t.Fatalf("no expectation for %s", act)
			}
			for _, who := range actors {
				want := Code("")
				role := string(roleIn(who, st))
				if role == "" {
					role = "none"
				}
				switch {
				case exp.roles != "anyone" && !slices.Contains(strings.Fields(exp.roles), role):
					want = CodeNotParty
				case !slices.Contains(strings.Fields(exp.states), string(st)):
					want = CodeStateForbidden
				default:
					want = mayExceptions[fmt.Sprintf("%s %s %s", act, st, who)]
				}
				by := tr.parties[who].addr
				err := tr.th.May(act, by, mayArgs(tr, act))
				if got := CodeOf(err); got != want {
					t.Errorf("%s by the %s in %s: %v, want %q", act, who, st, err, want)
				}
				if err != nil && CodeOf(err) == "" {
					t.Errorf("%s by the %s in %s: an uncoded error %v", act, who, st, err)
				}
				asked++
				if checkActEnvelope(t, tr, act, who, st, err) {
					judged++
				}
			}
		}
	}
	if want := len(storedStates) * len(Acts()) * len(actors); asked != want {
		t.Fatalf("asked %d, want %d", asked, want)
	}
	if judged < 700 {
		t.Fatalf("only %d envelopes judged", judged)
	}
}

// actVerbs are the transcript verbs that build each act's envelope, with
// their options ("" for the acts that send none).
var actVerbs = map[Act]string{
	ActPropose: "propose to=newworker", ActCounter: "counter reply=@current", ActAccept: "accept offer=@current",
	ActDeliver: "deliver m=0", ActRequestPayment: "payreq m=0 amount=1", ActRequestRevision: "revise m=0",
	ActAcceptDelivery: "acceptdelivery m=0 delivery=D0", ActCapability: "capability", ActCancel: "cancel nonce=0",
	ActAmend: "amend ms=100,200 nonce=0", ActReplace: "replace new=newworker nonce=0",
	ActProposeArbitrator: "nominate arbitrator=arbitrator", ActSubmitEvidence: "evidence", ActVeto: "veto party=poster",
}

// outlives lists, by hand, the acts allowed in states their envelope is
// not taken in: once the AcceptDelivery went out, the act only releases
// the milestone on chain (a retry after a failed transaction).
var outlives = map[string]bool{"accept_delivery funded": true, "accept_delivery completed": true}

// checkActEnvelope builds the envelope act sends (without delivering it)
// and judges it with Check: when May allowed the act the state machine
// takes the envelope, and when May refused it the state machine refuses
// it too (a role refusal as role_forbidden, unless the state is terminal:
// the state machine says so first).
func checkActEnvelope(t *testing.T, tr *transcript, act Act, who string, st State, mayErr error) bool {
	t.Helper()
	verb := actVerbs[act]
	if verb == "" {
		return false
	}
	f := strings.Fields(verb)
	o := kv(f[1:])
	if o["reply"] == "@current" || o["offer"] == "@current" {
		cur := tr.th.Current()
		if cur == nil {
			return false // nothing to name: May refuses, and no such envelope can be built
		}
		o["reply"], o["offer"] = tr.label(cur.Hash()), tr.label(cur.Hash())
	}
	if (act == ActAcceptDelivery && tr.envs["D0"] == nil) || ((act == ActAmend || act == ActReplace) && tr.th.Agreement() == nil) {
		return false
	}
	e := tr.peek(who, f[0], o)
	out := tr.th.Check(e, e.Timestamp)
	key := fmt.Sprintf("%s %s", act, st)
	switch {
	case mayErr == nil && outlives[key]:
		if out.Effective() {
			t.Errorf("%s by the %s in %s: the envelope is taken, so %s is not an act that outlives it", act, who, st, key)
		}
	case mayErr == nil && !out.Effective():
		t.Errorf("%s by the %s in %s: May allows it, the state machine refuses its %s: %v", act, who, st, e.Type, out.Err)
	case mayErr != nil && out.Effective():
		t.Errorf("%s by the %s in %s: May refuses it (%v), the state machine takes its %s", act, who, st, mayErr, e.Type)
	case CodeOf(mayErr) == CodeNotParty && out.Code != CodeRoleForbidden && !st.Terminal():
		t.Errorf("%s by the %s in %s: May says not_party, the state machine %s", act, who, st, out.Code)
	}
	return true
}

// peek builds who's next envelope for verb with options o at one second
// after the transcript's clock, without delivering it or advancing who's
// chain in the harness.
func (tr *transcript) peek(who, verb string, o map[string]string) *Envelope {
	tr.t.Helper()
	p := tr.parties[who]
	at := tr.clock.Add(time.Second)
	pl := tr.payload(p, verb, o, at)
	to := tr.counterpart(who)
	if v, ok := o["to"]; ok {
		to = []Address{tr.parties[v].addr}
	}
	h := Header{NegotiationID: tr.nid, Sequence: p.seq + 1, PreviousHash: p.prev, Timestamp: at, Sender: p.sender(), Recipients: to, TaskID: tr.th.TaskID()}
	e, err := Build(h, pl, Ed25519Key(p.inbox), DecodeOptions{})
	if err != nil {
		tr.t.Fatalf("build %s %s: %v", who, verb, err)
	}
	return e
}

// TestMayAnnouncement: in a thread opened from an announcement, the first
// party to answer acts as the worker; the poster has nobody to negotiate
// with until one did; once one did, others have no role.
func TestMayAnnouncement(t *testing.T) {
	tr := newTranscript(t)
	tr.run("announce ms=500 as=A")
	tr.run("thread announcement=A")
	poster, worker, stranger := tr.parties["poster"].addr, tr.parties["worker"].addr, tr.parties["stranger"].addr
	for _, tc := range []struct {
		act  Act
		by   Address
		want Code
	}{
		{ActCounter, worker, ""},
		{ActAccept, stranger, ""},
		{ActCounter, poster, CodeNotParty},
		{ActAccept, poster, CodeNotParty},
		{ActCancel, stranger, CodeNotParty}, // only the first answer joins
		{ActCapability, worker, CodeNotParty},
		{ActPropose, worker, CodeStateForbidden},
	} {
		if got := CodeOf(tr.th.May(tc.act, tc.by, ActArgs{Party: tr.parties["newworker"].addr})); got != tc.want {
			t.Errorf("before an answer, %s by %s: %q, want %q", tc.act, tr.names[tc.by], got, tc.want)
		}
	}
	tr.run("send worker counter reply=A ms=400 to=poster as=W1")
	for _, tc := range []struct {
		act  Act
		by   Address
		want Code
	}{
		{ActCounter, poster, ""},
		{ActAccept, poster, ""},
		{ActCounter, stranger, CodeNotParty},
		{ActAccept, worker, ""},
		{ActCounter, worker, CodeStateForbidden}, // its own offer, not accepted by the poster
	} {
		if got := CodeOf(tr.th.May(tc.act, tc.by, ActArgs{})); got != tc.want {
			t.Errorf("after the worker's counter, %s by %s: %q, want %q", tc.act, tr.names[tc.by], got, tc.want)
		}
	}
}

// TestMayChecks covers each check of the act table with the argument or
// the thread that fails it, and the one that passes.
func TestMayChecks(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	type step struct {
		act  Act
		who  string
		args func(tr *transcript) ActArgs
		want Code
	}
	none := func(*transcript) ActArgs { return ActArgs{} }
	pay := func(basis string, amount int64, units uint64) func(*transcript) ActArgs {
		return func(*transcript) ActArgs {
			return ActArgs{Milestone: 0, Amount: big.NewInt(amount), Basis: basis, Units: units}
		}
	}
	party := func(name string) func(*transcript) ActArgs {
		return func(tr *transcript) ActArgs { return ActArgs{Party: tr.parties[name].addr} }
	}
	for _, tc := range []struct {
		name  string
		state State
		more  []string
		steps []step
	}{
		{"propose names another party", StateOpen, nil, []step{
			{ActPropose, "poster", none, CodeBadArgument},
			{ActPropose, "poster", party("poster"), CodeBadArgument},
			{ActPropose, "poster", party("worker"), ""},
		}},
		{"accept the current offer once", StateCountered, []string{"send poster accept offer=W1"}, []step{
			{ActAccept, "poster", none, CodeStateForbidden},
			{ActAccept, "worker", none, ""},
			{ActAccept, "worker", func(tr *transcript) ActArgs { return ActArgs{Offer: tr.env("P1").Hash()} }, CodeTermsChanged},
			{ActAccept, "worker", func(tr *transcript) ActArgs { return ActArgs{Offer: tr.env("W1").Hash()} }, ""},
			// The poster accepted the worker's offer: the worker may revise it.
			{ActCounter, "worker", none, ""},
		}},
		{"deliver an existing milestone not released", StateDelivered, []string{"send poster acceptdelivery m=0 delivery=D0"}, []step{
			{ActDeliver, "worker", func(*transcript) ActArgs { return ActArgs{Milestone: 2} }, CodeBadArgument},
			{ActDeliver, "worker", func(*transcript) ActArgs { return ActArgs{Milestone: -1} }, CodeBadArgument},
			{ActDeliver, "worker", func(*transcript) ActArgs { return ActArgs{Milestone: 0} }, CodeMilestoneInvalid},
			{ActDeliver, "worker", func(*transcript) ActArgs { return ActArgs{Milestone: 1} }, ""},
			{ActRequestPayment, "worker", func(*transcript) ActArgs { return ActArgs{Milestone: 0} }, CodeMilestoneInvalid},
			// Released by the envelope: the act may still release it on chain.
			{ActAcceptDelivery, "poster", func(*transcript) ActArgs { return ActArgs{Milestone: 0} }, ""},
			{ActAcceptDelivery, "poster", func(*transcript) ActArgs { return ActArgs{Milestone: 1} }, CodeStateForbidden},
		}},
		{"request payment within the milestone's running total", StateFunded, []string{"send worker payreq m=0 amount=60 as=Q1", "send worker payreq m=0 amount=40 as=Q2", "fact part_released m=0 amount=60 released=60"}, []step{
			// Milestone 0 holds 150: 60 released, 40 requested and pending.
			{ActRequestPayment, "worker", pay(BasisHourly, 51, 1), CodePaymentExceeds},
			{ActRequestPayment, "worker", pay(BasisHourly, 50, 1), ""},
			{ActRequestPayment, "worker", pay(BasisHourly, 0, 1), CodeBadArgument},
			{ActRequestPayment, "worker", pay(BasisStream, 10, 0), CodeBadArgument},
			{ActRequestPayment, "worker", pay(BasisMilestone, 49, 0), CodeBadArgument},
			{ActRequestPayment, "worker", pay(BasisMilestone, 50, 0), ""},
			{ActRequestPayment, "worker", pay(BasisMilestone, 50, 2), CodeBadArgument},
			{ActRequestPayment, "worker", pay("weekly", 50, 2), CodeBadArgument},
			// Requests are paid in order: Q1 is paid, Q2 is next.
			{ActReleasePart, "poster", func(*transcript) ActArgs { return ActArgs{Milestone: 0} }, ""},
			{ActReleasePart, "poster", func(tr *transcript) ActArgs { return ActArgs{Milestone: 0, Request: tr.env("Q2").Hash()} }, ""},
			{ActReleasePart, "poster", func(tr *transcript) ActArgs { return ActArgs{Milestone: 0, Request: tr.env("Q1").Hash()} }, CodeStateForbidden},
			{ActReleasePart, "poster", func(*transcript) ActArgs { return ActArgs{Milestone: 1} }, CodeStateForbidden},
			{ActReleasePart, "poster", func(*transcript) ActArgs { return ActArgs{Milestone: 2} }, CodeBadArgument},
			{ActReleasePart, "worker", func(*transcript) ActArgs { return ActArgs{Milestone: 0} }, CodeNotParty},
		}},
		{"revise a pending delivery", StateDelivered, []string{"send worker deliver m=1 as=D1", "send poster revise m=1", "fact revision_requested m=1"}, []step{
			{ActRequestRevision, "poster", func(*transcript) ActArgs { return ActArgs{Milestone: 1} }, CodeMilestoneInvalid},
			{ActRequestRevision, "poster", func(*transcript) ActArgs { return ActArgs{Milestone: 0} }, ""},
			{ActRequestRevision, "poster", func(*transcript) ActArgs { return ActArgs{Milestone: 7} }, CodeBadArgument},
		}},
		{"cancel once before funding", StateProposed, []string{"send worker cancel"}, []step{
			{ActCancel, "worker", none, CodeStateForbidden},
			{ActCancel, "poster", none, ""},
		}},
		{"cancel after funding, not twice at a nonce", StateFunded, []string{"send poster cancel nonce=0"}, []step{
			{ActCancel, "poster", none, ""}, // the nonce is not known yet
			{ActCancel, "poster", func(*transcript) ActArgs { return ActArgs{Nonce: u(0)} }, CodeStateForbidden},
			{ActCancel, "poster", func(*transcript) ActArgs { return ActArgs{Nonce: u(1)} }, ""},
			{ActCancel, "worker", func(*transcript) ActArgs { return ActArgs{Nonce: u(0)} }, ""},
			{ActSubmitCoSigned, "poster", func(*transcript) ActArgs { return ActArgs{Kind: TypeMutualCancel} }, CodeStateForbidden},
		}},
		{"a complete cancel is submitted, not signed again", StateFunded, []string{"send poster cancel nonce=0", "send worker cancel nonce=0"}, []step{
			{ActCancel, "poster", func(*transcript) ActArgs { return ActArgs{Nonce: u(0)} }, ""},
			{ActSubmitCoSigned, "worker", func(*transcript) ActArgs { return ActArgs{Kind: TypeMutualCancel} }, ""},
			{ActSubmitCoSigned, "worker", func(*transcript) ActArgs { return ActArgs{Kind: TypeMutualCancel, Nonce: u(0)} }, ""},
			{ActSubmitCoSigned, "worker", func(*transcript) ActArgs { return ActArgs{Kind: TypeMutualCancel, Nonce: u(1)} }, CodeStateForbidden},
			{ActSubmitCoSigned, "worker", func(*transcript) ActArgs { return ActArgs{Kind: TypeTaskAcceptance} }, CodeBadArgument},
			{ActSubmitCoSigned, "worker", func(*transcript) ActArgs { return ActArgs{Kind: TypeMilestoneDefinition} }, CodeStateForbidden},
		}},
		{"amend: co-sign only what the other party sent", StateFunded, nil, []step{
			{ActAmend, "poster", none, ""}, // the nonce is not known yet
			{ActAmend, "poster", func(*transcript) ActArgs { return ActArgs{Nonce: u(0)} }, CodeBadArgument},
			{ActAmend, "poster", func(*transcript) ActArgs { return ActArgs{Nonce: u(0), Digest: new(Hash)} }, ""},
		}},
		{"amend: not the same digest twice", StateFunded, []string{"send worker amend ms=100,300 nonce=0 as=AM"}, []step{
			{ActAmend, "poster", func(*transcript) ActArgs { return ActArgs{Nonce: u(0)} }, ""},
			{ActAmend, "poster", func(*transcript) ActArgs { return ActArgs{Nonce: u(1)} }, CodeBadArgument},
			{ActAmend, "worker", func(*transcript) ActArgs { return ActArgs{Nonce: u(0)} }, CodeBadArgument},
			{ActAmend, "worker", func(tr *transcript) ActArgs { return ActArgs{Nonce: u(0), Digest: amendDigest(tr, "AM")} }, CodeStateForbidden},
			{ActAmend, "worker", func(tr *transcript) ActArgs { return ActArgs{Nonce: u(1), Digest: amendDigest(tr, "AM")} }, ""},
			{ActAmend, "worker", func(tr *transcript) ActArgs { return ActArgs{Nonce: u(0), Digest: new(Hash)} }, ""},
			{ActAmend, "poster", func(tr *transcript) ActArgs { return ActArgs{Nonce: u(0), Digest: amendDigest(tr, "AM")} }, ""},
		}},
		{"replace: a third party, not twice", StateFunded, []string{"send poster replace new=newworker nonce=0"}, []step{
			{ActReplace, "poster", party("worker"), CodeBadArgument},
			{ActReplace, "worker", party("poster"), CodeBadArgument},
			{ActReplace, "worker", none, ""}, // co-signs the poster's
			{ActReplace, "worker", func(*transcript) ActArgs { return ActArgs{Nonce: u(0)} }, ""},
			{ActReplace, "worker", func(*transcript) ActArgs { return ActArgs{Nonce: u(1)} }, CodeBadArgument},
			{ActReplace, "poster", func(*transcript) ActArgs { return ActArgs{Nonce: u(0)} }, CodeBadArgument},
			{ActReplace, "poster", func(tr *transcript) ActArgs { return ActArgs{Party: tr.parties["newworker"].addr, Nonce: u(0)} }, CodeStateForbidden},
			{ActReplace, "poster", func(tr *transcript) ActArgs { return ActArgs{Party: tr.parties["stranger"].addr, Nonce: u(0)} }, ""},
			{ActReplace, "worker", func(tr *transcript) ActArgs { return ActArgs{Party: tr.parties["newworker"].addr, Nonce: u(0)} }, ""},
		}},
		{"an amendment that raises the escrow is the poster's to submit", StateFunded, nil, []step{
			{ActSubmitCoSigned, "worker", func(*transcript) ActArgs { return ActArgs{Kind: TypeMilestoneDefinition, TopUp: true} }, CodeNotParty},
			// The role first; then the pair, which is not complete.
			{ActSubmitCoSigned, "poster", func(*transcript) ActArgs { return ActArgs{Kind: TypeMilestoneDefinition, TopUp: true} }, CodeStateForbidden},
			{ActSubmitCoSigned, "worker", func(*transcript) ActArgs { return ActArgs{Kind: TypeMilestoneDefinition} }, CodeStateForbidden},
			// Only an amendment raises the escrow.
			{ActSubmitCoSigned, "worker", func(*transcript) ActArgs { return ActArgs{Kind: TypeMutualCancel, TopUp: true} }, CodeStateForbidden},
		}},
		{"a complete replacement is submitted, not signed again", StateFunded, []string{"send poster replace new=newworker nonce=0", "send worker replace new=newworker nonce=0"}, []step{
			{ActReplace, "poster", func(tr *transcript) ActArgs { return ActArgs{Party: tr.parties["newworker"].addr, Nonce: u(0)} }, ""},
			{ActSubmitCoSigned, "poster", func(*transcript) ActArgs { return ActArgs{Kind: TypeReplacementContext, Nonce: u(0)} }, ""},
		}},
		{"the arbitrator is a third party", StateDisputed, nil, []step{
			{ActProposeArbitrator, "poster", none, CodeBadArgument},
			{ActProposeArbitrator, "poster", party("worker"), CodeBadArgument},
			{ActProposeArbitrator, "worker", party("worker"), CodeBadArgument},
			{ActProposeArbitrator, "worker", party("stranger"), ""},
		}},
		{"a ruling in range", StateArbitrated, nil, []step{
			{ActRule, "arbitrator", func(*transcript) ActArgs { return ActArgs{Ruling: 0} }, ""},
			{ActRule, "arbitrator", func(*transcript) ActArgs { return ActArgs{Ruling: 1} }, ""},
			{ActRule, "arbitrator", func(*transcript) ActArgs { return ActArgs{Ruling: MaxRuling} }, ""},
			{ActRule, "arbitrator", func(*transcript) ActArgs { return ActArgs{Ruling: MaxRuling + 1} }, CodeBadArgument},
		}},
		{"seal a card: not after speaking or escalating", StateProposed, nil, []step{
			{ActSealCard, "worker", none, ""},
			{ActSealCard, "worker", func(tr *transcript) ActArgs {
				m, err := NewMandate(mustCard(tr.t, []byte(posterCardJSON)), tr.parties["worker"].addr)
				if err != nil {
					tr.t.Fatal(err)
				}
				return ActArgs{Mandate: m}
			}, ""},
			{ActSealCard, "worker", func(tr *transcript) ActArgs { return ActArgs{Mandate: pausedMandate(tr, "worker", "q")} }, CodeStateForbidden},
			{ActSealCard, "poster", none, CodeStateForbidden},
			{ActSealCard, "stranger", none, ""},
			{ActSealCard, "stranger", func(*transcript) ActArgs { return ActArgs{Observer: true} }, CodeNotParty},
			{ActSealCard, "worker", func(*transcript) ActArgs { return ActArgs{Observer: true} }, CodeNotParty},
		}},
		{"seal a card: not the arbitrator", StateArbitrated, nil, []step{
			{ActSealCard, "arbitrator", none, CodeNotParty},
		}},
		{"answer the pending question", StateCountered, nil, []step{
			{ActAnswerEscalation, "poster", none, CodeStateForbidden},
			{ActAnswerEscalation, "poster", func(tr *transcript) ActArgs {
				m, err := NewMandate(mustCard(tr.t, []byte(posterCardJSON)), tr.parties["poster"].addr)
				if err != nil {
					tr.t.Fatal(err)
				}
				return ActArgs{Mandate: m}
			}, CodeStateForbidden},
			{ActAnswerEscalation, "poster", func(tr *transcript) ActArgs { return ActArgs{Mandate: pausedMandate(tr, "poster", "q")} }, ""},
			{ActAnswerEscalation, "poster", func(tr *transcript) ActArgs {
				return ActArgs{Mandate: pausedMandate(tr, "poster", "q"), Question: "q"}
			}, ""},
			{ActAnswerEscalation, "poster", func(tr *transcript) ActArgs {
				return ActArgs{Mandate: pausedMandate(tr, "poster", "q"), Question: "another"}
			}, CodeStateForbidden},
		}},
		{"a brief once agreed or expired", StateCountered, nil, []step{
			{ActBrief, "poster", none, CodeStateForbidden},
			{ActBrief, "worker", func(*transcript) ActArgs { return ActArgs{At: t0} }, CodeStateForbidden},
			{ActBrief, "worker", func(*transcript) ActArgs { return ActArgs{At: t0.AddDate(10, 0, 0)} }, ""},
		}},
		{"the supervisor the party named", StateFunded, nil, []step{
			{ActVeto, "supervisor", party("poster"), ""},
			{ActVeto, "supervisor", party("worker"), CodeNotParty},
			{ActVeto, "supervisor", party("stranger"), CodeBadArgument},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := threadIn(t, tc.state)
			for _, cmd := range tc.more {
				for _, line := range tr.run(cmd) {
					if strings.Contains(line, "->") && !strings.Contains(line, "-> ok") {
						t.Fatalf("%s: %s", cmd, line)
					}
				}
			}
			for _, s := range tc.steps {
				err := tr.th.May(s.act, tr.parties[s.who].addr, s.args(tr))
				if got := CodeOf(err); got != s.want {
					t.Errorf("%s by the %s: %v, want %q", s.act, s.who, err, s.want)
				}
			}
		})
	}
}

func amendDigest(tr *transcript, label string) *Hash {
	d, err := tr.th.amendmentDigest(tr.env(label).Payload.(*MilestoneDefinition))
	if err != nil {
		tr.t.Fatal(err)
	}
	h := Hash(d)
	return &h
}

// TestMayUnknownAct: an act the table does not hold is bad_argument.
func TestMayUnknownAct(t *testing.T) {
	tr := threadIn(t, StateFunded)
	if got := CodeOf(tr.th.May("withdraw", tr.parties["poster"].addr, ActArgs{})); got != CodeBadArgument {
		t.Fatalf("an unknown act: %q", got)
	}
}

// TestActTableComplete: every message type is sent by exactly one act,
// every chain fact but a withdrawal completes exactly one act, every row
// names roles and states, and a row's overrides differ from its states.
func TestActTableComplete(t *testing.T) {
	rows := ActRows()
	for _, typ := range MessageTypes {
		n := 0
		for _, r := range rows {
			if r.Sends == typ {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is sent by %d acts", typ, n)
		}
	}
	for _, f := range []Fact{TaskFunded{}, ProofSubmitted{}, MilestoneReleased{}, DisputeOpened{}, ArbitratorAssigned{},
		Ruled{}, TaskCancelled{}, WorkerReplaced{}, MilestonesAmended{}, PaidOut{}, EscrowReclaimed{}, DisputeTimedOut{}} {
		n := 0
		for _, r := range rows {
			if r.Expects == FactName(f) {
				n++
			}
		}
		if want := map[bool]int{true: 0, false: 1}[FactName(f) == "paid_out"]; n != want {
			t.Errorf("%s completes %d acts, want %d", FactName(f), n, want)
		}
	}
	seen := map[Act]bool{}
	for _, r := range rows {
		if seen[r.Act] {
			t.Errorf("%s has two rows", r.Act)
		}
		seen[r.Act] = true
		if len(r.Roles) == 0 || len(r.States) == 0 || r.Does == "" {
			t.Errorf("%s: a row without roles, states or words", r.Act)
		}
		if r.SendStates != nil && (r.Sends == "" || slices.Equal(r.SendStates, r.States)) {
			t.Errorf("%s: SendStates without an envelope, or equal to States", r.Act)
		}
		if r.FactStates != nil && (r.Expects == "" || slices.Equal(r.FactStates, r.States)) {
			t.Errorf("%s: FactStates without a fact, or equal to States", r.Act)
		}
		if got, ok := r.Act.Row(); !ok || got.Act != r.Act {
			t.Errorf("%s: Row() = %v %v", r.Act, got, ok)
		}
	}
	// The table is handed out as a copy.
	rows[0].States[0] = StateVetoed
	if ActRows()[0].States[0] == StateVetoed {
		t.Fatal("ActRows shares the table")
	}
}

// TestActTableDocumented: docs/protocol.md lists the act table as it is.
func TestActTableDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := actTableMarkdown(); !strings.Contains(string(b), want) {
		t.Fatalf("docs/protocol.md does not hold the act table; its section \"Local acts\" should read:\n%s", want)
	}
}

// TestRulingRange: 0 refuses, 1..MaxRuling gives r-1 basis points, above
// is no ruling, for the fact, the act and WorkerShare alike.
func TestRulingRange(t *testing.T) {
	for _, tc := range []struct {
		r     uint64
		valid bool
		share int64 // -1: no share
	}{{0, true, -1}, {1, true, 0}, {5001, true, 5000}, {MaxRuling, true, 10000}, {MaxRuling + 1, false, -1}, {1 << 40, false, -1}} {
		if ValidRuling(tc.r) != tc.valid {
			t.Errorf("ValidRuling(%d) = %v", tc.r, !tc.valid)
		}
		s, ok := WorkerShare(tc.r)
		if (tc.share < 0) == ok || ok && s.Int64() != tc.share {
			t.Errorf("WorkerShare(%d) = %v %v", tc.r, s, ok)
		}
		tr := threadIn(t, StateArbitrated)
		out := tr.th.Apply(Ruled{DisputeID: U64(1), Ruling: tc.r}, t0)
		if out.Effective() != tc.valid {
			t.Errorf("Ruled{%d}: %v", tc.r, out.Err)
		}
	}
}

// TestPostFunding: funded and delivered, nothing else.
func TestPostFunding(t *testing.T) {
	for _, s := range storedStates {
		if got, want := s.PostFunding(), s == StateFunded || s == StateDelivered; got != want {
			t.Errorf("%s.PostFunding() = %v", s, got)
		}
	}
}

// actTableMarkdown renders the act table as docs/protocol.md lists it.
func actTableMarkdown() string {
	list := func(xs []string) string { return strings.Join(xs, ", ") }
	roles := func(r ActRow) string {
		if slices.Equal(r.Roles, anyone) {
			return "anyone"
		}
		var s []string
		for _, x := range r.Roles {
			if x == RoleNone {
				s = append(s, "a party with no role yet")
				continue
			}
			s = append(s, string(x))
		}
		out := list(s)
		if r.Joins {
			out += " (the first answer to an announcement: the worker)"
		}
		return out
	}
	states := func(ss []State) string {
		if slices.Equal(ss, liveStates) {
			return "any but completed, resolved, cancelled, vetoed"
		}
		if slices.Equal(ss, everyState) {
			return "any"
		}
		var s []string
		for _, x := range ss {
			s = append(s, string(x))
		}
		return list(s)
	}
	var b strings.Builder
	b.WriteString("| act | who | states | sends | completed by the fact | also |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range ActRows() {
		sends, fact, also := "-", "-", "-"
		if r.Sends != "" {
			sends = string(r.Sends)
			if r.SendStates != nil {
				sends += " (taken in " + states(r.SendStates) + ")"
			}
		}
		if r.Expects != "" {
			fact = "`" + r.Expects + "`"
			if r.FactStates != nil {
				fact += " (taken in " + states(r.FactStates) + ")"
			}
		}
		if r.Checks != "" {
			also = r.Checks
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", r.Act, roles(r), states(r.States), sends, fact, also)
	}
	return b.String()
}

// TestMayErrors: a refusal is an *Error naming the act, which the
// sentinels match by code (what a node returns as its own refusal).
func TestMayErrors(t *testing.T) {
	tr := threadIn(t, StateFunded)
	for _, tc := range []struct {
		act      Act
		who      string
		args     ActArgs
		sentinel error
	}{
		{ActFund, "worker", ActArgs{}, ErrNotParty},
		{ActFund, "poster", ActArgs{}, ErrStateForbidden},
		{ActDeliver, "worker", ActArgs{Milestone: 9}, ErrBadArgument},
	} {
		err := tr.th.May(tc.act, tr.parties[tc.who].addr, tc.args)
		var e *Error
		if !errors.As(err, &e) || e.Field != string(tc.act) {
			t.Fatalf("%s by the %s: %#v, want an *Error naming the act", tc.act, tc.who, err)
		}
		if !errors.Is(err, tc.sentinel) {
			t.Errorf("%s by the %s: %v does not match %v", tc.act, tc.who, err, tc.sentinel)
		}
		for _, other := range []error{ErrNotParty, ErrStateForbidden, ErrBadArgument} {
			if other != tc.sentinel && errors.Is(err, other) {
				t.Errorf("%s by the %s: %v matches %v too", tc.act, tc.who, err, other)
			}
		}
	}
	if err := tr.th.May(ActDeliver, tr.parties["worker"].addr, ActArgs{}); err != nil {
		t.Fatalf("an allowed act: %v (a nil error, not a typed nil)", err)
	}
}
