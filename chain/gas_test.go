package chain

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/negotiation"
)

// createTaskGasTarget is the ceiling for createTask of a
// one-milestone ETH task with two signatures, on mainnet rules.
const createTaskGasTarget = 80_000

// anchorGasTarget bounds a tree-head anchor: node.DefaultAnchorGasPerDay
// (5,000,000) is sized for one every ten minutes at about 29,000 gas.
const anchorGasTarget = 50_000

// TestGasReport measures the gas of every state-changing function on
// mainnet (Osaka) rules and prints a table (go test -run TestGasReport -v
// ./chain/); it writes nothing. It fails if createTask for a one-milestone
// ETH task exceeds the target.
func TestGasReport(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	var rows [][2]string
	note := func(name string, r *types.Receipt) {
		t.Helper()
		rows = append(rows, [2]string{name, fmt.Sprint(r.GasUsed)})
	}
	must := func(r *TaskResult, err error) *TaskResult {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	mustR := func(r *types.Receipt, err error) *types.Receipt {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	one := e.fund(e.settlement(eths(1)))
	note("createTask, ETH, 1 milestone, 2 signatures", one.Receipt)
	if one.Receipt.GasUsed > createTaskGasTarget {
		t.Errorf("createTask used %d gas, target %d", one.Receipt.GasUsed, createTaskGasTarget)
	}
	three := e.fund(e.settlement(eths(1), eths(1), eths(1)))
	note("createTask, ETH, 3 milestones", three.Receipt)

	token := e.deployToken(t)
	mustR(e.poster.c.ApproveToken(ctx, token, big.NewInt(1_000_000)))
	ts := e.settlement(big.NewInt(1000))
	ts.Token = token
	td := e.digest(ts)
	tok := must(e.poster.c.CreateTask(ctx, ts, e.sign(e.poster, td), e.sign(e.worker, td)))
	note("createTask, ERC-20, 1 milestone", tok.Receipt)

	r := must(e.worker.c.SubmitProof(ctx, three.TaskID, three.Task, 0, "bafkreigasproofcid0000000000000000000000000000000000000"))
	note("submitProof (CIDv1 string)", r.Receipt)
	r = must(e.poster.c.ReleaseMilestone(ctx, three.TaskID, r.Task, 0))
	note("releaseMilestone / acceptance (worker's first credit)", r.Receipt)
	r = must(e.poster.c.ReleaseMilestone(ctx, three.TaskID, r.Task, 1))
	note("releaseMilestone (worker already owed)", r.Receipt)
	note("withdraw ETH (all owed)", mustR(e.worker.c.Withdraw(ctx, ethToken, eths(2))))
	rt := must(e.poster.c.ReleaseMilestone(ctx, tok.TaskID, tok.Task, 0))
	note("releaseMilestone, ERC-20", rt.Receipt)
	note("withdraw ERC-20 (all owed)", mustR(e.worker.c.Withdraw(ctx, token, big.NewInt(1000))))

	// Amendment, replacement, cancel on a fresh task.
	am := e.fund(e.settlement(eths(1), eths(1)))
	a := negotiation.Amendment{TaskID: am.TaskID, MilestoneAmounts: []*big.Int{eths(1), eths(2)}, Deadline: am.Task.Deadline + 3600, TermsHash: rand32(), Nonce: big.NewInt(0)}
	ad, _ := a.Digest(e.domain)
	ar := must(e.poster.c.Amend(ctx, am.TaskID, a, am.Task, e.sign(e.poster, ad), e.sign(e.worker, ad), eths(1)))
	note("amend (2 signatures, top-up)", ar.Receipt)
	rp := negotiation.Replacement{TaskID: am.TaskID, NewWorker: e.newWorker.addr, HandoffHash: rand32(), Nonce: big.NewInt(1)}
	rd, _ := rp.Digest(e.domain)
	rr := must(e.poster.c.ReplaceWorker(ctx, am.TaskID, rp, ar.Task, e.sign(e.poster, rd), e.sign(e.worker, rd)))
	note("replaceWorker (2 signatures)", rr.Receipt)
	cd, _ := negotiation.Cancel{TaskID: am.TaskID, Nonce: big.NewInt(2)}.Digest(e.domain)
	cr := must(e.outsider.c.MutualCancel(ctx, am.TaskID, rr.Task, e.sign(e.poster, cd), e.sign(e.newWorker, cd)))
	note("mutualCancel (2 signatures)", cr.Receipt)

	// Timeouts.
	late := e.fund(e.settlement(eths(1), eths(1)))
	lr := must(e.worker.c.SubmitProof(ctx, late.TaskID, late.Task, 0, "bafkreiproof"))
	e.advance(8 * 24 * time.Hour)
	lr = must(e.worker.c.ClaimUnanswered(ctx, late.TaskID, lr.Task, 0))
	note("claimUnanswered", lr.Receipt)
	lr = must(e.poster.c.ReclaimExpired(ctx, late.TaskID, lr.Task))
	note("reclaimExpired", lr.Receipt)

	// Revision requests and partial releases (the worker is owed already).
	rv := e.fund(e.settlement(eths(1), eths(1)))
	vr := must(e.worker.c.SubmitProof(ctx, rv.TaskID, rv.Task, 0, "bafkreigasproofcid0000000000000000000000000000000000000"))
	vr = must(e.poster.c.RequestRevision(ctx, rv.TaskID, vr.Task, 0))
	note("requestRevision", vr.Receipt)
	vr = must(e.worker.c.SubmitProof(ctx, rv.TaskID, vr.Task, 0, "bafkreigasproofcid0000000000000000000000000000000000001"))
	note("submitProof after a revision request", vr.Receipt)
	vr = must(e.poster.c.ReleasePart(ctx, rv.TaskID, vr.Task, 0, big.NewInt(250_000_000_000_000_000)))
	note("releasePart, a part", vr.Receipt)
	vr = must(e.poster.c.ReleasePart(ctx, rv.TaskID, vr.Task, 0, big.NewInt(750_000_000_000_000_000)))
	note("releasePart, the last part (releases the milestone)", vr.Receipt)
	vr = must(e.poster.c.ReleasePart(ctx, rv.TaskID, vr.Task, 1, big.NewInt(250_000_000_000_000_000)))
	vr = must(e.poster.c.ReleaseMilestone(ctx, rv.TaskID, vr.Task, 1))
	note("releaseMilestone after a part", vr.Receipt)

	// Disputes.
	d := e.fund(e.settlement(eths(1)))
	dr := must(e.poster.c.OpenDispute(ctx, d.TaskID, d.Task))
	note("openDispute (bond)", dr.Receipt)
	note("submitEvidence", mustR(e.poster.c.SubmitEvidence(ctx, d.TaskID, "bafkreievidence")))
	note("proposeArbitrator (first party)", mustR(e.poster.c.ProposeArbitrator(ctx, d.TaskID, e.arbitrator.addr)))
	note("proposeArbitrator (second party, assigns)", mustR(e.worker.c.ProposeArbitrator(ctx, d.TaskID, e.arbitrator.addr)))
	note("rule (split, pays out)", mustR(e.arbitrator.c.Rule(ctx, d.TaskID, 5001)))
	d2 := e.fund(e.settlement(eths(1)))
	must(e.worker.c.OpenDispute(ctx, d2.TaskID, d2.Task))
	e.advance(15 * 24 * time.Hour)
	note("resolveTimedOut", mustR(e.outsider.c.ResolveTimedOut(ctx, d2.TaskID)))

	// Identity, scope, anchors.
	note("IdentityLink.register", mustR(e.poster.c.RegisterLink(ctx, rand32(), "12D3KooWGzBmmPaWHDiZgHFFS6E7TPzvWCiQvA7DTyrrrYEuwbwz", rand32())))
	note("IdentityLink.rotate", mustR(e.poster.c.RotateLink(ctx, rand32(), "12D3KooWGzBmmPaWHDiZgHFFS6E7TPzvWCiQvA7DTyrrrYEuwbwz", rand32())))
	note("IdentityLink.revoke", mustR(e.poster.c.RevokeLink(ctx)))
	note("TaskScopeRegistry.publish", mustR(e.poster.c.PublishScope(ctx, rand32(), rand32())))
	note("LedgerAnchor.anchor (first)", mustR(e.poster.c.Anchor(ctx, rand32(), 1)))
	note("LedgerAnchor.anchor (next)", mustR(e.poster.c.Anchor(ctx, rand32(), 2)))
	// A node's tree-head anchors (node/anchor.go): the Merkle root of its
	// ledger and the size, the first from a fresh address, then the next.
	tree := e.worker.c
	first := mustR(tree.Anchor(ctx, rand32(), 1_000))
	note("LedgerAnchor.anchor, tree head (first, size 1,000)", first)
	next := mustR(tree.Anchor(ctx, rand32(), 100_000))
	note("LedgerAnchor.anchor, tree head (next, size 100,000)", next)
	for _, r := range []*types.Receipt{first, next} {
		if r.GasUsed > anchorGasTarget {
			t.Errorf("a tree-head anchor used %d gas, over %d", r.GasUsed, anchorGasTarget)
		}
	}

	var b strings.Builder
	b.WriteString("\n| call | gas |\n| --- | ---: |\n")
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], row[1])
	}
	t.Log(b.String())
}
