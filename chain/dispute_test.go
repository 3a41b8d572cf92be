package chain

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/contracts/testbindings"
)

func TestDisputeRulingSplitsEscrow(t *testing.T) {
	for _, tc := range []struct {
		ruling         uint64
		worker, poster *big.Int // of a 3 ETH escrow (1 of 4 ETH already released)
	}{
		{ruling: 1, worker: eths(0), poster: eths(3)},
		{ruling: 10001, worker: eths(3), poster: eths(0)},
		{ruling: 5001, worker: big.NewInt(15e17), poster: big.NewInt(15e17)},
		{ruling: 2501, worker: big.NewInt(75e16), poster: big.NewInt(225e16)},
	} {
		t.Run("ruling "+big.NewInt(int64(tc.ruling)).String(), func(t *testing.T) {
			e := newEnv(t)
			ctx := t.Context()
			res := e.fund(e.settlement(eths(1), eths(3)))
			r, err := e.poster.c.ReleaseMilestone(ctx, res.TaskID, res.Task, 0)
			if err != nil {
				t.Fatal(err)
			}
			r, err = e.worker.c.SubmitProof(ctx, res.TaskID, r.Task, 1, "bafkreiwork")
			if err != nil {
				t.Fatal(err)
			}
			// Opening needs the exact bond.
			_, err = e.worker.c.Transact(ctx, &e.addrs.TaskRegistry, big.NewInt(1), bindings.NewTaskRegistry().PackOpenDispute(res.TaskID, r.Task))
			wantRevert(t, err, "bad_value")
			regBefore := e.balance(e.addrs.TaskRegistry)
			r, err = e.worker.c.OpenDispute(ctx, res.TaskID, r.Task)
			if err != nil {
				t.Fatal(err)
			}
			if r.Task.Status != TaskDisputed {
				t.Fatalf("status %d after opening", r.Task.Status)
			}
			if got := new(big.Int).Sub(e.balance(e.addrs.TaskRegistry), regBefore); got.Cmp(testBond) != 0 {
				t.Fatalf("registry took %v, want the bond", got)
			}
			// While disputed, the task takes no other calls.
			_, err = e.poster.c.ReleaseMilestone(ctx, res.TaskID, r.Task, 1)
			wantRevert(t, err, "not_active")
			events := DecodeEvents(e.addrs, r.Receipt.Logs)
			if !hasEvent(events, "ArbitrationModule", "MetaEvidence") || !hasEvent(events, "ArbitrationModule", "DisputeOpened") {
				t.Fatalf("opening emitted %v", names(events))
			}
			if _, err := e.poster.c.SubmitEvidence(ctx, res.TaskID, "bafkreievidence"); err != nil {
				t.Fatal(err)
			}
			for _, p := range []*party{e.poster, e.worker} {
				if _, err := p.c.ProposeArbitrator(ctx, res.TaskID, e.arbitrator.addr); err != nil {
					t.Fatal(err)
				}
			}
			rr, err := e.arbitrator.c.Rule(ctx, res.TaskID, tc.ruling)
			if err != nil {
				t.Fatal(err)
			}
			if e.owed(ethToken, e.worker.addr).Cmp(new(big.Int).Add(tc.worker, eths(1))) != 0 {
				t.Fatalf("worker owed %v, want %v + 1 ETH", e.owed(ethToken, e.worker.addr), tc.worker)
			}
			if e.owed(ethToken, e.poster.addr).Cmp(tc.poster) != 0 {
				t.Fatalf("poster owed %v, want %v", e.owed(ethToken, e.poster.addr), tc.poster)
			}
			if e.owed(ethToken, e.arbitrator.addr).Cmp(testBond) != 0 {
				t.Fatal("the bond did not go to the arbitrator")
			}
			if !hasEvent(DecodeEvents(e.addrs, rr.Logs), "ArbitrationModule", "Ruling") {
				t.Fatal("no ERC-792 Ruling event")
			}
			st, err := e.poster.c.TaskState(ctx, res.TaskID)
			if err != nil || st.Status != TaskClosed {
				t.Fatalf("task after ruling: %+v %v", st, err)
			}
			_, err = e.arbitrator.c.Rule(ctx, res.TaskID, tc.ruling)
			wantRevert(t, err, "wrong_stage")
		})
	}
}

func TestRefusalToRuleReopensProposals(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	r := e.disputeWith(t, e.arbitrator.addr, eths(2))
	if _, err := e.arbitrator.c.Rule(ctx, r.TaskID, 0); err != nil {
		t.Fatal(err)
	}
	d, err := e.poster.c.Dispute(ctx, r.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != DisputeAwaitingArbitrator || d.Arbitrator != (common.Address{}) || d.PosterChoice != (common.Address{}) {
		t.Fatalf("after refusal: %+v", d)
	}
	if e.owed(ethToken, e.worker.addr).Sign() != 0 || e.owed(ethToken, e.arbitrator.addr).Sign() != 0 {
		t.Fatal("a refusal paid someone")
	}
	// The same arbitrator cannot rule again without being named again.
	_, err = e.arbitrator.c.Rule(ctx, r.TaskID, 10001)
	wantRevert(t, err, "wrong_stage")
	for _, p := range []*party{e.poster, e.worker} {
		if _, err := p.c.ProposeArbitrator(ctx, r.TaskID, e.outsider.addr); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.outsider.c.Rule(ctx, r.TaskID, 10001); err != nil {
		t.Fatal(err)
	}
	if e.owed(ethToken, e.worker.addr).Cmp(eths(2)) != 0 {
		t.Fatal("second arbitrator's ruling did not pay the worker")
	}
}

func TestDisputeTimeouts(t *testing.T) {
	for _, assigned := range []bool{false, true} {
		name := "no arbitrator agreed"
		wait := 14 * 24 * time.Hour
		if assigned {
			name, wait = "arbitrator never rules", 30*24*time.Hour
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			ctx := t.Context()
			var arb common.Address
			if assigned {
				arb = e.arbitrator.addr
			}
			r := e.disputeWith(t, arb, eths(2))
			_, err := e.outsider.c.ResolveTimedOut(ctx, r.TaskID)
			wantRevert(t, err, "not_timed_out")
			assign, rule, err := e.outsider.c.DisputeTimeouts(ctx)
			if err != nil || time.Duration(assign)*time.Second != 14*24*time.Hour || time.Duration(rule)*time.Second != 30*24*time.Hour {
				t.Fatalf("timeouts %d %d %v", assign, rule, err)
			}
			e.advance(wait + time.Second)
			if _, err := e.outsider.c.ResolveTimedOut(ctx, r.TaskID); err != nil {
				t.Fatal(err)
			}
			if e.owed(ethToken, e.worker.addr).Cmp(eths(1)) != 0 || e.owed(ethToken, e.poster.addr).Cmp(new(big.Int).Add(eths(1), testBond)) != 0 {
				t.Fatalf("timeout paid worker %v poster %v", e.owed(ethToken, e.worker.addr), e.owed(ethToken, e.poster.addr))
			}
			_, err = e.arbitrator.c.Rule(ctx, r.TaskID, 10001)
			wantRevert(t, err, "wrong_stage")
		})
	}
}

func TestContractArbitrator(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	court := testbindings.NewTestCourt()
	fee := big.NewInt(12345)
	courtAddr := e.deployFrom(t, e.arbitrator, testbindings.TestCourtMetaData.Bin, court.PackConstructor(fee))
	r := e.disputeWith(t, courtAddr, eths(1))
	_, _, err := e.outsider.c.RaiseWithArbitrator(ctx, r.TaskID, nil, big.NewInt(1))
	wantRevert(t, err, "revert_string") // the court's own "fee" check
	extID, _, err := e.outsider.c.RaiseWithArbitrator(ctx, r.TaskID, nil, fee)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = e.outsider.c.RaiseWithArbitrator(ctx, r.TaskID, nil, fee)
	wantRevert(t, err, "cannot_raise")
	if id, err := e.outsider.c.ExternalDispute(ctx, courtAddr, extID); err != nil || id != r.TaskID {
		t.Fatalf("court's dispute %v maps to %x (%v)", extID, id, err)
	}
	// The court rules with its own dispute id.
	e.exec(t, e.arbitrator, courtAddr, nil, court.PackGiveRuling(extID, big.NewInt(10001)))
	if e.owed(ethToken, e.worker.addr).Cmp(eths(1)) != 0 {
		t.Fatal("the court's ruling did not pay the worker")
	}
	if e.owed(ethToken, courtAddr).Cmp(testBond) != 0 {
		t.Fatal("the bond did not go to the court")
	}
}

func TestEvidenceAndMetaEvidence(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	s := e.settlement(eths(1))
	res := e.fund(s)
	meta := eventValue[*bindings.TaskRegistryMetaEvidence](t, DecodeEvents(e.addrs, res.Receipt.Logs), "TaskRegistry", "MetaEvidence")
	want := "parley:terms:0x" + strings.TrimPrefix(common.Hash(s.TermsHash).Hex(), "0x")
	if meta.Evidence != want || meta.MetaEvidenceID.Cmp(DisputeID(res.TaskID)) != 0 {
		t.Fatalf("MetaEvidence %q id %v, want %q", meta.Evidence, meta.MetaEvidenceID, want)
	}
	_, err := e.poster.c.SubmitEvidence(ctx, res.TaskID, "bafkreiearly")
	wantRevert(t, err, "wrong_stage")
	r, err := e.poster.c.OpenDispute(ctx, res.TaskID, res.Task)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.outsider.c.SubmitEvidence(ctx, r.TaskID, "bafkreioutsider")
	wantRevert(t, err, "not_party")
	_, err = e.worker.c.SubmitEvidence(ctx, r.TaskID, "")
	wantRevert(t, err, "empty_evidence")
	rc, err := e.worker.c.SubmitEvidence(ctx, r.TaskID, "bafkreiworker")
	if err != nil {
		t.Fatal(err)
	}
	ev := eventValue[*bindings.ArbitrationModuleEvidence](t, DecodeEvents(e.addrs, rc.Logs), "ArbitrationModule", "Evidence")
	if ev.Evidence != "bafkreiworker" || ev.Party != e.worker.addr || ev.EvidenceGroupID.Cmp(DisputeID(res.TaskID)) != 0 {
		t.Fatalf("Evidence event %+v", ev)
	}
}

func hasEvent(evs []Event, contract, name string) bool {
	for _, e := range evs {
		if e.Contract == contract && e.Name == name {
			return true
		}
	}
	return false
}

func names(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Contract+"."+e.Name)
	}
	return out
}

func eventValue[T any](t *testing.T, evs []Event, contract, name string) T {
	t.Helper()
	for _, e := range evs {
		if e.Contract == contract && e.Name == name {
			return e.Value.(T)
		}
	}
	t.Fatalf("no %s.%s among %v", contract, name, names(evs))
	var zero T
	return zero
}
