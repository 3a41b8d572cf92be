package chain

import (
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/negotiation"
)

// TestFactOf: every event the watcher decodes maps to its chain fact and
// what the fact is about, or to none; a test case exists for each event
// of the watcher's table.
func TestFactOf(t *testing.T) {
	task := rand32()
	dispute := DisputeID(task)
	var nb [16]byte
	copy(nb[:], randBytes(16))
	nb[6], nb[8] = nb[6]&0x0f|0x40, nb[8]&0x3f|0x80 // a UUID v4
	a1, a2 := common.Address{1}, common.Address{2}
	h := rand32()
	u := negotiation.NewUint256(new(big.Int).SetBytes(task[:]))
	none := FactRef{}
	cases := []struct {
		event string // contract.name
		value any
		fact  negotiation.Fact // nil: the event moves no thread
		ref   FactRef
	}{
		{"TaskRegistry.TaskCreated", &bindings.TaskRegistryTaskCreated{TaskId: task, NegotiationId: nb, AcceptedOfferHash: h},
			negotiation.TaskFunded{TaskID: u}, FactRef{TaskID: task, NegotiationID: negotiation.NewNegotiationID(nb)}},
		{"TaskRegistry.ProofSubmitted", &bindings.TaskRegistryProofSubmitted{TaskId: task, Milestone: big.NewInt(2), ProofCid: "bafkreiproof"},
			negotiation.ProofSubmitted{Milestone: 2, ProofCID: "bafkreiproof"}, FactRef{TaskID: task}},
		{"TaskRegistry.MilestoneReleased", &bindings.TaskRegistryMilestoneReleased{TaskId: task, Milestone: big.NewInt(1), Amount: eths(1), Unanswered: true},
			negotiation.MilestoneReleased{Milestone: 1}, FactRef{TaskID: task}},
		{"TaskRegistry.DisputeOpened", &bindings.TaskRegistryDisputeOpened{TaskId: task, Opener: a1, Escrow: eths(2), Bond: big.NewInt(7)},
			negotiation.DisputeOpened{DisputeID: u, By: negotiation.Address(a1)}, FactRef{TaskID: task}},
		{"ArbitrationModule.ArbitratorAssigned", &bindings.ArbitrationModuleArbitratorAssigned{DisputeId: dispute, Arbitrator: a2},
			negotiation.ArbitratorAssigned{DisputeID: u, Arbitrator: negotiation.Address(a2)}, FactRef{TaskID: task}},
		{"ArbitrationModule.Ruling", &bindings.ArbitrationModuleRuling{Arbitrator: a2, DisputeID: dispute, Ruling: big.NewInt(5001)},
			negotiation.Ruled{DisputeID: u, Ruling: 5001}, FactRef{TaskID: task}},
		{"TaskRegistry.EscrowRefunded", &bindings.TaskRegistryEscrowRefunded{TaskId: task, Amount: eths(1), Cancelled: true},
			negotiation.TaskCancelled{}, FactRef{TaskID: task}},
		{"TaskRegistry.WorkerReplaced", &bindings.TaskRegistryWorkerReplaced{TaskId: task, OldWorker: a1, NewWorker: a2, HandoffHash: h},
			negotiation.WorkerReplaced{NewWorker: negotiation.Address(a2)}, FactRef{TaskID: task, OldWorker: negotiation.Address(a1), Handoff: h}},
		{"TaskRegistry.TaskAmended", &bindings.TaskRegistryTaskAmended{TaskId: task, Nonce: 3, TermsHash: h},
			negotiation.MilestonesAmended{}, FactRef{TaskID: task, TermsHash: h, Nonce: 3}},
		{"TaskRegistry.RevisionRequested", &bindings.TaskRegistryRevisionRequested{TaskId: task, Milestone: big.NewInt(1), Revisions: 2, ResubmitUntil: 9},
			negotiation.RevisionRequested{Milestone: 1}, FactRef{TaskID: task}},
		{"TaskRegistry.PartReleased", &bindings.TaskRegistryPartReleased{TaskId: task, Milestone: big.NewInt(3), Amount: eths(1), Released: eths(2)},
			negotiation.PartReleased{Milestone: 3, Amount: negotiation.NewUint256(eths(1)), Released: negotiation.NewUint256(eths(2))}, FactRef{TaskID: task}},

		{"TaskRegistry.TaskUpdated", &bindings.TaskRegistryTaskUpdated{TaskId: task}, nil, none},
		{"TaskRegistry.MetaEvidence", &bindings.TaskRegistryMetaEvidence{MetaEvidenceID: dispute, Evidence: "parley:terms:0x00"}, nil, none},
		{"TaskRegistry.DisputeSettled", &bindings.TaskRegistryDisputeSettled{TaskId: task, WorkerAmount: eths(1), PosterAmount: eths(1), BondTo: a2}, nil, none},
		{"TaskRegistry.Credited", &bindings.TaskRegistryCredited{TaskId: task, Account: a1, Amount: eths(1)}, nil, none},
		{"TaskRegistry.Withdrawn", &bindings.TaskRegistryWithdrawn{Account: a1, Amount: eths(1)}, nil, none},
		{"ArbitrationModule.DisputeOpened", &bindings.ArbitrationModuleDisputeOpened{DisputeId: dispute, Opener: a1, Escrow: eths(2)}, nil, none},
		{"ArbitrationModule.ArbitratorProposed", &bindings.ArbitrationModuleArbitratorProposed{DisputeId: dispute, Party: a1, Arbitrator: a2}, nil, none},
		{"ArbitrationModule.ArbitrationRefused", &bindings.ArbitrationModuleArbitrationRefused{DisputeId: dispute, Arbitrator: a2}, nil, none},
		{"ArbitrationModule.DisputeResolved", &bindings.ArbitrationModuleDisputeResolved{DisputeId: dispute, WorkerBps: big.NewInt(5000)}, nil, none},
		{"ArbitrationModule.Dispute", &bindings.ArbitrationModuleDispute{Arbitrator: a2, DisputeID: dispute, MetaEvidenceID: dispute, EvidenceGroupID: dispute}, nil, none},
		{"ArbitrationModule.Evidence", &bindings.ArbitrationModuleEvidence{Arbitrator: a2, EvidenceGroupID: dispute, Party: a1, Evidence: "bafkreievidence"}, nil, none},
		{"ArbitrationModule.MetaEvidence", &bindings.ArbitrationModuleMetaEvidence{MetaEvidenceID: dispute, Evidence: "parley:terms:0x00"}, nil, none},
		{"IdentityLink.LinkRegistered", &bindings.IdentityLinkLinkRegistered{Account: a1, PeerId: "12D3KooW", LinkHash: h}, nil, none},
		{"IdentityLink.LinkRotated", &bindings.IdentityLinkLinkRotated{Account: a1, PeerId: "12D3KooW", LinkHash: h}, nil, none},
		{"IdentityLink.LinkRevoked", &bindings.IdentityLinkLinkRevoked{Account: a1, LinkHash: h}, nil, none},
		{"TaskScopeRegistry.ScopePublished", &bindings.TaskScopeRegistryScopePublished{AnnouncementHash: h, Poster: a1, ScopeHash: h}, nil, none},
		{"TaskScopeRegistry.ScopeWithdrawn", &bindings.TaskScopeRegistryScopeWithdrawn{AnnouncementHash: h, Poster: a1}, nil, none},
		{"LedgerAnchor.Anchored", &bindings.LedgerAnchorAnchored{Node: a1, Head: h, Count: 9}, nil, none},

		// Values that move no thread although the event could.
		{"TaskRegistry.EscrowRefunded", &bindings.TaskRegistryEscrowRefunded{TaskId: task, Amount: eths(1)}, nil, none}, // a refund after the deadline
		{"ArbitrationModule.Ruling", &bindings.ArbitrationModuleRuling{DisputeID: dispute, Ruling: new(big.Int).Lsh(big.NewInt(1), 64)}, nil, none},
		{"ArbitrationModule.Ruling", &bindings.ArbitrationModuleRuling{DisputeID: dispute}, nil, none},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.event, func(t *testing.T) {
			if got, want := reflect.TypeOf(c.value).Elem().Name(), removeDot(c.event); got != want {
				t.Fatalf("case %s holds a %s", c.event, got)
			}
			f, ref, ok := FactOf(Event{Value: c.value})
			if ok != (c.fact != nil) || !reflect.DeepEqual(f, c.fact) || ref != c.ref {
				t.Fatalf("FactOf = %#v, %+v, %v; want %#v, %+v", f, ref, ok, c.fact, c.ref)
			}
		})
		covered[c.event] = true
	}
	addrs := Addresses{TaskRegistry: common.Address{1}, ArbitrationModule: common.Address{2}, IdentityLink: common.Address{3}, TaskScopeRegistry: common.Address{4}, LedgerAnchor: common.Address{5}}
	for _, d := range newEventTable(addrs) {
		if !covered[d.contract+"."+d.name] {
			t.Errorf("the watcher decodes %s.%s; FactOf has no test case for it", d.contract, d.name)
		}
	}
	if f, _, ok := FactOf(Event{Value: "not an event"}); ok || f != nil {
		t.Fatalf("FactOf of an unknown value: %v", f)
	}
}

func removeDot(s string) string {
	out := []byte{}
	for i := range len(s) {
		if s[i] != '.' {
			out = append(out, s[i])
		}
	}
	return string(out)
}

// TestFactOfOnChain: the facts of real receipts, decoded as the watcher
// decodes them: a task funded, a proof, a release, a dispute opened, an
// arbitrator named by both parties, a ruling; and on a second task a
// replacement, an amendment and a cancel.
func TestFactOfOnChain(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	var facts []negotiation.Fact
	var refs []FactRef
	take := func(logs any) {
		t.Helper()
		var evs []Event
		switch v := logs.(type) {
		case *TaskResult:
			evs = DecodeEvents(e.addrs, v.Receipt.Logs)
		case []Event:
			evs = v
		}
		for _, ev := range evs {
			if f, ref, ok := FactOf(ev); ok {
				facts, refs = append(facts, f), append(refs, ref)
			}
		}
	}
	s := e.settlement(eths(1), eths(3))
	res := e.fund(s)
	take(res)
	r, err := e.worker.c.SubmitProof(ctx, res.TaskID, res.Task, 0, "bafkreiwork")
	if err != nil {
		t.Fatal(err)
	}
	take(r)
	if r, err = e.poster.c.ReleaseMilestone(ctx, res.TaskID, r.Task, 0); err != nil {
		t.Fatal(err)
	}
	take(r)
	if r, err = e.worker.c.OpenDispute(ctx, res.TaskID, r.Task); err != nil {
		t.Fatal(err)
	}
	take(r)
	for _, p := range []*party{e.poster, e.worker} {
		rc, err := p.c.ProposeArbitrator(ctx, res.TaskID, e.arbitrator.addr)
		if err != nil {
			t.Fatal(err)
		}
		take(DecodeEvents(e.addrs, rc.Logs))
	}
	rc, err := e.arbitrator.c.Rule(ctx, res.TaskID, 2501)
	if err != nil {
		t.Fatal(err)
	}
	take(DecodeEvents(e.addrs, rc.Logs))

	id := negotiation.NewUint256(new(big.Int).SetBytes(res.TaskID[:]))
	want := []negotiation.Fact{
		negotiation.TaskFunded{TaskID: id},
		negotiation.ProofSubmitted{Milestone: 0, ProofCID: "bafkreiwork"},
		negotiation.MilestoneReleased{Milestone: 0},
		negotiation.DisputeOpened{DisputeID: id, By: negotiation.Address(e.worker.addr)},
		negotiation.ArbitratorAssigned{DisputeID: id, Arbitrator: negotiation.Address(e.arbitrator.addr)},
		negotiation.Ruled{DisputeID: id, Ruling: 2501},
	}
	if !reflect.DeepEqual(facts, want) {
		t.Fatalf("facts of the dispute flow:\n got %#v\nwant %#v", facts, want)
	}
	for i, ref := range refs {
		if ref.TaskID != res.TaskID {
			t.Fatalf("fact %d is about task %x, want %x", i, ref.TaskID, res.TaskID)
		}
	}
	if refs[0].NegotiationID != negotiation.NewNegotiationID(s.NegotiationID) {
		t.Fatalf("TaskCreated names negotiation %q, want %q", refs[0].NegotiationID, s.NegotiationID)
	}

	// Replacement, amendment and cancel of a second task.
	facts, refs = nil, nil
	b := e.fund(e.settlement(eths(1), eths(2)))
	handoff := rand32()
	rp := negotiation.Replacement{TaskID: b.TaskID, NewWorker: e.newWorker.addr, HandoffHash: handoff, Nonce: big.NewInt(0)}
	d, err := rp.Digest(e.domain)
	if err != nil {
		t.Fatal(err)
	}
	r, err = e.poster.c.ReplaceWorker(ctx, b.TaskID, rp, b.Task, e.sign(e.poster, d), e.sign(e.worker, d))
	if err != nil {
		t.Fatal(err)
	}
	take(r)
	am := negotiation.Amendment{TaskID: b.TaskID, MilestoneAmounts: []*big.Int{eths(1), eths(1)}, Deadline: r.Task.Deadline + 60, TermsHash: rand32(), Nonce: big.NewInt(1)}
	ad, err := am.Digest(e.domain)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = e.poster.c.Amend(ctx, b.TaskID, am, r.Task, e.sign(e.poster, ad), e.sign(e.newWorker, ad), nil); err != nil {
		t.Fatal(err)
	}
	take(r)
	cd, err := negotiation.Cancel{TaskID: b.TaskID, Nonce: big.NewInt(2)}.Digest(e.domain)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = e.outsider.c.MutualCancel(ctx, b.TaskID, r.Task, e.sign(e.poster, cd), e.sign(e.newWorker, cd)); err != nil {
		t.Fatal(err)
	}
	take(r)
	want = []negotiation.Fact{
		negotiation.WorkerReplaced{NewWorker: negotiation.Address(e.newWorker.addr)},
		negotiation.MilestonesAmended{},
		negotiation.TaskCancelled{},
	}
	if !reflect.DeepEqual(facts, want) {
		t.Fatalf("facts of the replacement, amendment and cancel:\n got %#v\nwant %#v", facts, want)
	}
	if refs[0].OldWorker != negotiation.Address(e.worker.addr) || refs[0].Handoff != handoff {
		t.Fatalf("WorkerReplaced's ref %+v", refs[0])
	}
	if refs[1].TermsHash != am.TermsHash || refs[1].Nonce != 2 {
		t.Fatalf("TaskAmended's ref %+v, want termsHash %x and nonce 2", refs[1], am.TermsHash)
	}
	for i, ref := range refs {
		if ref.TaskID != b.TaskID {
			t.Fatalf("fact %d is about task %x, want %x", i, ref.TaskID, b.TaskID)
		}
	}

	// A revision request, a resubmission and two parts of a third task.
	facts, refs = nil, nil
	must := musts(t)
	c := e.fund(e.settlement(big.NewInt(1000)))
	r = must(e.worker.c.SubmitProof(ctx, c.TaskID, c.Task, 0, "bafkreifirst"))
	take(must(e.poster.c.RequestRevision(ctx, c.TaskID, r.Task, 0)))
	r = must(e.worker.c.SubmitProof(ctx, c.TaskID, refsTask(e, t, c.TaskID), 0, "bafkreisecond"))
	take(r)
	r = must(e.poster.c.ReleasePart(ctx, c.TaskID, r.Task, 0, big.NewInt(400)))
	take(r)
	take(must(e.poster.c.ReleasePart(ctx, c.TaskID, r.Task, 0, big.NewInt(600))))
	u := func(v int64) negotiation.Uint256 { return negotiation.NewUint256(big.NewInt(v)) }
	want = []negotiation.Fact{
		negotiation.RevisionRequested{Milestone: 0},
		negotiation.ProofSubmitted{Milestone: 0, ProofCID: "bafkreisecond"},
		negotiation.PartReleased{Milestone: 0, Amount: u(400), Released: u(400)},
		negotiation.PartReleased{Milestone: 0, Amount: u(600), Released: u(1000)},
		negotiation.MilestoneReleased{Milestone: 0},
	}
	if !reflect.DeepEqual(facts, want) {
		t.Fatalf("facts of the revision and the parts:\n got %#v\nwant %#v", facts, want)
	}
	for i, ref := range refs {
		if ref.TaskID != c.TaskID {
			t.Fatalf("fact %d is about task %x, want %x", i, ref.TaskID, c.TaskID)
		}
	}
}

// refsTask returns the task's state as the chain's logs rebuild it.
func refsTask(e *env, t *testing.T, id [32]byte) Task {
	t.Helper()
	st, err := e.outsider.c.TaskState(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
