package node_test

import (
	"context"
	"sync"
	"testing"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// supervised starts a dev chain, a poster, a worker and a supervisor on
// loopback, each connected to the others; the supervisor decides through
// gate.
func supervised(t *testing.T, gate *recGate) (w *world, poster, worker, sup *tnode) {
	w = newWorld(t, true)
	poster = w.add("poster")
	worker = w.add("worker", withBootstrap(poster))
	sup = w.add("supervisor", withGate(gate), withBootstrap(poster, worker))
	connect(t, poster, worker)
	connect(t, poster, sup)
	connect(t, worker, sup)
	return w, poster, worker, sup
}

// registryHolds reports whether the registry holds a task with id digest.
func registryHolds(t *testing.T, w *world, digest negotiation.Hash) bool {
	t.Helper()
	b, err := chain.DialRPC(t.Context(), w.dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := chain.New(b, w.dev.Deployer.Signer(), w.dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.TaskStateHash(t.Context(), [32]byte(digest))
	if err != nil {
		t.Fatal(err)
	}
	return h != [32]byte{}
}

// checkVetoed checks that view v holds exactly the veto of sup for party
// with reason, and names sup as party's supervisor.
func checkVetoed(t *testing.T, who string, v node.ThreadView, sup, party negotiation.Address, reason string) {
	t.Helper()
	if len(v.Vetoes) != 1 || v.Vetoes[0].Supervisor != sup || v.Vetoes[0].Party != party || v.Vetoes[0].Reason != reason {
		t.Fatalf("%s's thread holds the vetoes %+v", who, v.Vetoes)
	}
	named := false
	for _, s := range v.Supervisors {
		named = named || s.Party == party && s.Supervisor == sup
	}
	if !named {
		t.Fatalf("%s's thread names the supervisors %+v", who, v.Supervisors)
	}
}

// TestVetoBeforeFunding: the poster names a supervisor in its proposal;
// the supervisor's node gets the thread from the poster's proof bundle and
// is kept current by both parties' envelopes; a veto by a node the poster
// did not name is not_party; the supervisor's veto, once its gate
// approves, ends the negotiation on both parties' threads and its own, and
// nothing is ever on chain: the poster's funding is refused.
func TestVetoBeforeFunding(t *testing.T) {
	gate := &recGate{}
	w, poster, worker, sup := supervised(t, gate)
	s := spec("Build a glossary", eth(300), eth(200))
	sa := sup.Address()
	s.Supervisor = &sa
	res, err := poster.ProposeTask(t.Context(), worker.Address(), s)
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	sv := sup.waitState(nid, negotiation.StateProposed)
	if !sv.Observer || sv.Role != negotiation.RoleSupervisor {
		t.Fatalf("the supervisor's thread: role %s, observer %v", sv.Role, sv.Observer)
	}
	checkMinimalV2(t, "the supervision notice's bundle", joinedBundle(t, sup, nid), nid)
	worker.waitState(nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, 2)
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateAgreed)
	sv = sup.waitState(nid, negotiation.StateAgreed)

	// Nobody but the supervisor the poster named vetoes for it.
	if _, err := worker.Veto(t.Context(), nid, poster.Address(), "no"); node.CodeOf(err) != node.CodeNotParty {
		t.Fatalf("the worker's veto: %v", err)
	}
	if _, err := sup.Veto(t.Context(), nid, worker.Address(), "no"); node.CodeOf(err) != node.CodeNotParty {
		t.Fatalf("a veto for the worker, which named no supervisor: %v", err)
	}
	if _, err := sup.Veto(t.Context(), nid, poster.Address(), " "); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("a veto without a reason: %v", err)
	}
	if n := len(gate.asked(node.ActVeto)); n != 0 {
		t.Fatalf("the refused vetoes asked the gate %d times", n)
	}

	const reason = "over this quarter's budget"
	vr, err := sup.Veto(t.Context(), nid, poster.Address(), reason)
	if err != nil {
		t.Fatal(err)
	}
	if vr.Envelope == nil || vr.Envelope.Type != negotiation.TypeSupervisorVeto || vr.Thread.State != negotiation.StateVetoed || vr.Tx != nil {
		t.Fatalf("Veto = %+v", vr)
	}
	asked := gate.asked(node.ActVeto)
	if len(asked) != 1 || argsOf(t, asked[0])["party"] != poster.Address().String() || argsOf(t, asked[0])["reason"] != reason {
		t.Fatalf("the gate was asked %+v", asked)
	}
	for _, n := range []*tnode{poster, worker, sup} {
		v := n.waitState(nid, negotiation.StateVetoed)
		if v.A2A != negotiation.A2ARejected {
			t.Fatalf("%s: %s", n.name, v.A2A)
		}
		checkVetoed(t, n.name, v, sa, poster.Address(), reason)
	}
	if _, err := poster.Fund(t.Context(), nid); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("funding a vetoed negotiation: %v", err)
	}
	if _, err := sup.Veto(t.Context(), nid, poster.Address(), reason); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("a veto of a vetoed negotiation: %v", err)
	}
	if registryHolds(t, w, sv.Agreement.Digest) {
		t.Fatal("the registry holds the vetoed task")
	}
	if owed, _ := poster.Owed(t.Context(), negotiation.Address{}); owed.Sign() != 0 {
		t.Fatalf("the poster is owed %s", owed)
	}
}

// TestVetoAfterFunding: the worker names a supervisor in its counter-offer;
// after funding (and a restart of the supervisor's node) the supervisor
// vetoes for the worker: every thread is
// halted and the escrow stays in the contract (the worker's delivery is
// refused), but the parties still cancel by mutual consent: the poster's
// node submits the co-signed Cancel, the chain returns the escrow to the
// poster to the wei, and every thread (the supervisor's too) is cancelled.
func TestVetoAfterFunding(t *testing.T) {
	gate := &recGate{}
	w, poster, worker, sup := supervised(t, gate)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Build a glossary", eth(300), eth(200)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	// Another negotiation in the worker's ledger, after this one's first
	// entries: the bundle the supervisor joins from carries none of it.
	op, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Index the glossary", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	other := op.Thread.NegotiationID
	worker.waitState(other, negotiation.StateProposed)
	sa := sup.Address()
	cs := node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: eth(350), Description: "part 1"}, {Amount: eth(250), Description: "part 2"}}, Reason: "more work", Supervisor: &sa}
	if _, err := worker.Counter(t.Context(), nid, cs); err != nil {
		t.Fatal(err)
	}
	sup.waitState(nid, negotiation.StateCountered)
	poster.waitState(nid, negotiation.StateCountered)
	checkMinimalV2(t, "the supervision notice's bundle", joinedBundle(t, sup, nid), nid, other)
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitLog(nid, 3)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitState(nid, negotiation.StateAgreed)
	if _, err := poster.Fund(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*tnode{worker, sup} {
		n.waitState(nid, negotiation.StateFunded)
	}
	// The supervisor's node holds the thread across a restart, as an
	// observer in the role supervisor.
	sup.restart()
	connect(t, sup, poster)
	connect(t, sup, worker)
	if v := sup.waitState(nid, negotiation.StateFunded); !v.Observer || v.Role != negotiation.RoleSupervisor {
		t.Fatalf("the supervisor's thread after a restart: role %s, observer %v", v.Role, v.Observer)
	}

	const reason = "the worker's principal withdrew its consent"
	if _, err := sup.Veto(t.Context(), nid, poster.Address(), reason); node.CodeOf(err) != node.CodeNotParty {
		t.Fatalf("a veto for the poster, which named no supervisor: %v", err)
	}
	if _, err := sup.Veto(t.Context(), nid, worker.Address(), reason); err != nil {
		t.Fatal(err)
	}
	var pv node.ThreadView
	for _, n := range []*tnode{poster, worker, sup} {
		v := n.waitState(nid, negotiation.StateHalted)
		checkVetoed(t, n.name, v, sa, worker.Address(), reason)
		pv = v
	}
	task := chainTask(t, w, pv)
	if task.Status != chain.TaskActive || chain.Escrow(task).Cmp(eth(600)) != 0 {
		t.Fatalf("the halted task on chain: %+v", task)
	}
	if _, err := worker.Deliver(t.Context(), nid, node.DeliverySpec{Milestone: 0, Name: "part1.md", Data: []byte("# part 1")}); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("a delivery of a halted task: %v", err)
	}

	if _, err := poster.Cancel(t.Context(), nid, "vetoed"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the worker to hold the poster's cancel", func() bool {
		v, err := worker.Thread(nid)
		return err == nil && v.Log[len(v.Log)-1].Type == negotiation.TypeMutualCancel
	})
	wres, err := worker.Cancel(t.Context(), nid, "vetoed")
	if err != nil {
		t.Fatal(err)
	}
	if wres.Detail["coSigned"] != "true" || wres.Detail["submitBy"] != "poster" {
		t.Fatalf("the worker's Cancel = %+v", wres)
	}
	for _, n := range []*tnode{poster, worker, sup} {
		n.waitState(nid, negotiation.StateCancelled)
	}
	task = chainTask(t, w, pv)
	if task.Status != chain.TaskClosed || task.Milestones[0].State != chain.MilestoneRefunded || task.Milestones[1].State != chain.MilestoneRefunded {
		t.Fatalf("the cancelled task on chain: %+v", task)
	}
	withdraw(t, poster, eth(600))
	if owed, _ := worker.Owed(t.Context(), negotiation.Address{}); owed.Sign() != 0 {
		t.Fatalf("the worker is owed %s", owed)
	}
}

// heldGate approves every request, but holds those of act until release
// is closed; asked is closed when the first of them arrives.
type heldGate struct {
	act            node.Act
	asked, release chan struct{}
	once           sync.Once
}

func (g *heldGate) Decide(ctx context.Context, r node.ApprovalRequest) (node.Decision, error) {
	if r.Act == g.act {
		g.once.Do(func() { close(g.asked) })
		select {
		case <-g.release:
		case <-ctx.Done():
			return node.Decision{}, ctx.Err()
		}
	}
	return node.Decision{Approved: true, Method: "auto", By: "test"}, nil
}

// TestVetoWhileFundingIsApproved: a veto that arrives while the poster's
// funding waits for its approval halts the commitment: once approved, the
// act asks the act table again and puts nothing on chain. (Both parties
// name the supervisor, the worker in its acceptance.)
func TestVetoWhileFundingIsApproved(t *testing.T) {
	w := newWorld(t, true)
	g := &heldGate{act: node.ActFundEscrow, asked: make(chan struct{}), release: make(chan struct{})}
	poster := w.add("poster", withGate(g))
	worker := w.add("worker", withBootstrap(poster))
	sup := w.add("supervisor", withBootstrap(poster, worker))
	connect(t, poster, worker)
	connect(t, poster, sup)
	connect(t, worker, sup)
	s := spec("Build a glossary", eth(300))
	sa := sup.Address()
	s.Supervisor = &sa
	res, err := poster.ProposeTask(t.Context(), worker.Address(), s)
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	// The worker's principal names the same supervisor in its acceptance.
	if _, err := worker.AcceptWith(t.Context(), nid, node.AcceptSpec{Supervisor: &sa}); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, 2)
	if v, _ := poster.Thread(nid); len(v.Supervisors) != 2 {
		t.Fatalf("the poster's thread names supervisors %+v, want one for each party", v.Supervisors)
	}
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	sv := sup.waitState(nid, negotiation.StateAgreed)
	funded := make(chan error, 1)
	go func() {
		_, err := poster.Fund(t.Context(), nid)
		funded <- err
	}()
	<-g.asked
	if _, err := sup.Veto(t.Context(), nid, poster.Address(), "not now"); err != nil {
		t.Fatal(err)
	}
	poster.waitState(nid, negotiation.StateVetoed)
	close(g.release)
	if err := <-funded; node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("the funding approved after the veto: %v", err)
	}
	if registryHolds(t, w, sv.Agreement.Digest) {
		t.Fatal("the registry holds the task vetoed while its funding was approved")
	}
}

// TestSupervisorIsAThirdParty: a party names neither itself nor the
// counterparty its supervisor (bad_argument), and nothing is sent.
func TestSupervisorIsAThirdParty(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	for _, a := range []negotiation.Address{poster.Address(), worker.Address()} {
		s := spec("Build a glossary", eth(300))
		s.Supervisor = &a
		if _, err := poster.ProposeTask(t.Context(), worker.Address(), s); node.CodeOf(err) != node.CodeBadArgument {
			t.Fatalf("a proposal naming %s its supervisor: %v", a, err)
		}
	}
	if n := len(poster.Threads()); n != 0 {
		t.Fatalf("the refused proposals left %d threads", n)
	}
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Build a glossary", eth(300)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	self := worker.Address()
	cs := node.CounterSpec{Reason: "more", Milestones: []node.MilestoneSpec{{Amount: eth(400), Description: "all"}}, Supervisor: &self}
	if _, err := worker.Counter(t.Context(), nid, cs); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("a counter naming the worker its own supervisor: %v", err)
	}
	p := poster.Address()
	if _, err := worker.AcceptWith(t.Context(), nid, node.AcceptSpec{Supervisor: &p}); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("an acceptance naming the poster the worker's supervisor: %v", err)
	}
	if v, _ := worker.Thread(nid); len(v.Log) != 1 {
		t.Fatalf("the refused acts sent %d envelopes", len(v.Log)-1)
	}
}
