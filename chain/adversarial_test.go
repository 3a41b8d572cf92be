package chain

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/contracts/testbindings"
	"github.com/parleynet/parley/negotiation"
)

// Each test here is an attack the contracts must refuse; each fails if the
// guard it names is removed.

func TestReplayedSettlementSignature(t *testing.T) {
	e := newEnv(t)
	a := e.settlement(eths(1))
	da := e.digest(a)
	posterSig, workerSig := e.sign(e.poster, da), e.sign(e.worker, da)
	// The same signatures presented with other terms (a fresh nonce, a
	// larger amount) recover to other addresses.
	for name, mutate := range map[string]func(*negotiation.Settlement){
		"new nonce":  func(s *negotiation.Settlement) { s.Nonce = new(big.Int).Add(s.Nonce, big.NewInt(1)) },
		"new amount": func(s *negotiation.Settlement) { s.MilestoneAmounts[0], s.Amount = eths(2), eths(2) },
		"new worker": func(s *negotiation.Settlement) { s.Worker = e.outsider.addr },
	} {
		t.Run(name, func(t *testing.T) {
			b := a
			b.MilestoneAmounts = []*big.Int{new(big.Int).Set(a.MilestoneAmounts[0])}
			mutate(&b)
			_, err := e.poster.c.CreateTask(t.Context(), b, posterSig, workerSig)
			wantRevert(t, err, "wrong_signer")
		})
	}
}

func TestSameDigestTwice(t *testing.T) {
	e := newEnv(t)
	s := e.settlement(eths(1))
	res := e.fund(s)
	d := e.digest(s)
	_, err := e.poster.c.CreateTask(t.Context(), s, e.sign(e.poster, d), e.sign(e.worker, d))
	wantRevert(t, err, "digest_used")
	// Still used once the task is closed.
	if _, err := e.poster.c.ReleaseMilestone(t.Context(), res.TaskID, res.Task, 0); err != nil {
		t.Fatal(err)
	}
	_, err = e.poster.c.CreateTask(t.Context(), s, e.sign(e.poster, d), e.sign(e.worker, d))
	wantRevert(t, err, "digest_used")
}

func TestWrongDomain(t *testing.T) {
	e := newEnv(t)
	s := e.settlement(eths(1))
	for _, tc := range []struct {
		name string
		d    negotiation.Domain
	}{
		{"other chain id", negotiation.Domain{ChainID: big.NewInt(1), VerifyingContract: e.addrs.TaskRegistry}},
		{"other contract", negotiation.Domain{ChainID: e.domain.ChainID, VerifyingContract: e.addrs.LedgerAnchor}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := s.Digest(tc.d)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.poster.c.CreateTask(t.Context(), s, e.sign(e.poster, d), e.sign(e.worker, d))
			wantRevert(t, err, "wrong_signer")
		})
	}
}

// secp256k1N is the order of the curve.
var secp256k1N = crypto.S256().Params().N

func TestMalformedSignatures(t *testing.T) {
	e := newEnv(t)
	s := e.settlement(eths(1))
	d := e.digest(s)
	good := e.sign(e.worker, d)
	highS := func() []byte {
		// (r, n-s, v^1) is the same signer's other valid signature: malleable.
		out := append([]byte(nil), good...)
		sv := new(big.Int).SetBytes(good[32:64])
		new(big.Int).Sub(secp256k1N, sv).FillBytes(out[32:64])
		out[64] = 55 - out[64] // 27 <-> 28
		return out
	}()
	// The ecrecover precompile accepts the variant: only the contract's own
	// low-s check refuses it.
	in := make([]byte, 128)
	copy(in[:32], d[:])
	in[63] = highS[64]
	copy(in[64:128], highS[:64])
	out, err := e.poster.c.Call(t.Context(), common.BytesToAddress([]byte{1}), in)
	if err != nil || common.BytesToAddress(out) != e.worker.addr {
		t.Fatalf("ecrecover of the high-s variant: %x %v", out, err)
	}
	vBad := append([]byte(nil), good...)
	vBad[64] = 29
	for _, tc := range []struct {
		name string
		sig  []byte
	}{
		{"high s", highS},
		{"v not 27 or 28", vBad},
		{"64 bytes", good[:64]},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.poster.c.CreateTask(t.Context(), s, e.sign(e.poster, d), tc.sig)
			wantRevert(t, err, "malformed_signature")
		})
	}
}

func TestSignatureByNonParty(t *testing.T) {
	e := newEnv(t)
	s := e.settlement(eths(1))
	d := e.digest(s)
	_, err := e.poster.c.CreateTask(t.Context(), s, e.sign(e.poster, d), e.sign(e.outsider, d))
	wantRevert(t, err, "wrong_signer")
	_, err = e.poster.c.CreateTask(t.Context(), s, e.sign(e.outsider, d), e.sign(e.worker, d))
	wantRevert(t, err, "wrong_signer")
	// The two signatures swapped.
	_, err = e.poster.c.CreateTask(t.Context(), s, e.sign(e.worker, d), e.sign(e.poster, d))
	wantRevert(t, err, "wrong_signer")
}

func TestFrontRunnerCannotCreate(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	s := e.settlement(eths(1))
	d := e.digest(s)
	ps, ws := e.sign(e.poster, d), e.sign(e.worker, d)
	before := e.balance(e.addrs.TaskRegistry)
	// Someone who saw both signatures (in the mempool or the negotiation)
	// submits them first, paying themselves.
	_, err := e.outsider.c.CreateTask(ctx, s, ps, ws)
	wantRevert(t, err, "not_poster")
	if e.balance(e.addrs.TaskRegistry).Cmp(before) != 0 {
		t.Fatal("funds moved on a front-run")
	}
	// ERC-20: the poster's allowance cannot be spent by someone else's call.
	token := e.deployToken(t)
	ts := e.settlement(big.NewInt(500))
	ts.Token = token
	td := e.digest(ts)
	if _, err := e.poster.c.ApproveToken(ctx, token, big.NewInt(500)); err != nil {
		t.Fatal(err)
	}
	_, err = e.outsider.c.CreateTask(ctx, ts, e.sign(e.poster, td), e.sign(e.worker, td))
	wantRevert(t, err, "not_poster")
	if bal, _ := e.poster.c.TokenBalance(ctx, token, e.poster.addr); bal.Int64() != 1_000_000 {
		t.Fatalf("poster's tokens moved on a front-run: %v", bal)
	}
	// The poster's own call still works: the digest was not burnt.
	if _, err := e.poster.c.CreateTask(ctx, s, ps, ws); err != nil {
		t.Fatal(err)
	}
}

// disputeWith funds a task, opens a dispute as the poster and has both
// parties name arbitrator.
func (e *env) disputeWith(t *testing.T, arbitrator common.Address, amounts ...*big.Int) *TaskResult {
	t.Helper()
	res := e.fund(e.settlement(amounts...))
	r, err := e.poster.c.OpenDispute(t.Context(), res.TaskID, res.Task)
	if err != nil {
		t.Fatal(err)
	}
	if arbitrator == (common.Address{}) {
		return r
	}
	for _, p := range []*party{e.poster, e.worker} {
		if _, err := p.c.ProposeArbitrator(t.Context(), res.TaskID, arbitrator); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func TestReentrantReceiverCannotReenter(t *testing.T) {
	e := newEnv(t)
	rx := testbindings.NewReentrantReceiver()
	arb := bindings.NewArbitrationModule()
	reg := bindings.NewTaskRegistry()
	recv := e.deployFrom(t, e.arbitrator, testbindings.ReentrantReceiverMetaData.Bin, nil)
	// The receiver arbitrates two disputes and is owed both bonds.
	for range 2 {
		r := e.disputeWith(t, recv, eths(1))
		e.exec(t, e.arbitrator, recv, nil, rx.PackExec(e.addrs.ArbitrationModule, arb.PackRule(DisputeID(r.TaskID), big.NewInt(5001))))
	}
	owed := new(big.Int).Mul(testBond, big.NewInt(2))
	if e.owed(ethToken, recv).Cmp(owed) != 0 {
		t.Fatalf("receiver owed %v, want %v", e.owed(ethToken, recv), owed)
	}
	// While receiving one bond it tries to withdraw the other: a call that
	// would succeed on its own.
	withdraw := reg.PackWithdraw(ethToken, testBond)
	e.exec(t, e.arbitrator, recv, nil, rx.PackArm(e.addrs.TaskRegistry, withdraw))
	regBefore := e.balance(e.addrs.TaskRegistry)
	e.exec(t, e.arbitrator, recv, nil, rx.PackExec(e.addrs.TaskRegistry, withdraw))

	out, err := e.poster.c.Call(t.Context(), recv, rx.PackReentries())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := rx.UnpackReentries(out); n.Int64() != 1 {
		t.Fatalf("receiver re-entered %v times, want 1 attempt", n)
	}
	out, _ = e.poster.c.Call(t.Context(), recv, rx.PackReentrySuccesses())
	if n, _ := rx.UnpackReentrySuccesses(out); n.Sign() != 0 {
		t.Fatalf("a re-entrant withdraw succeeded %v times", n)
	}
	if got := e.balance(recv); got.Cmp(testBond) != 0 {
		t.Fatalf("receiver holds %v, want one bond %v", got, testBond)
	}
	if e.owed(ethToken, recv).Cmp(testBond) != 0 {
		t.Fatal("receiver's remaining credit is wrong")
	}
	if new(big.Int).Sub(regBefore, e.balance(e.addrs.TaskRegistry)).Cmp(testBond) != 0 {
		t.Fatal("registry paid out more than one bond")
	}
}

func TestReentrantTokenCannotReenter(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	tok := testbindings.NewReentrantToken()
	reg := bindings.NewTaskRegistry()
	token := e.deployFrom(t, e.poster, testbindings.ReentrantTokenMetaData.Bin, nil)
	e.exec(t, e.poster, token, nil, tok.PackMint(e.poster.addr, big.NewInt(1000)))

	// An active ETH task and valid Cancel signatures for it: a call anyone
	// may make, which the token tries to slip in mid-transfer.
	victim := e.fund(e.settlement(eths(1)))
	cd, err := negotiation.Cancel{TaskID: victim.TaskID, Nonce: big.NewInt(0)}.Digest(e.domain)
	if err != nil {
		t.Fatal(err)
	}
	cancel := reg.PackMutualCancel(victim.TaskID, victim.Task, e.sign(e.poster, cd), e.sign(e.worker, cd))
	e.exec(t, e.poster, token, nil, tok.PackArm(e.addrs.TaskRegistry, cancel))

	s := e.settlement(big.NewInt(1000))
	s.Token = token
	d := e.digest(s)
	if _, err := e.poster.c.ApproveToken(ctx, token, big.NewInt(1000)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.poster.c.CreateTask(ctx, s, e.sign(e.poster, d), e.sign(e.worker, d)); err != nil {
		t.Fatal(err)
	}
	out, _ := e.poster.c.Call(ctx, token, tok.PackAttempted())
	if ok, _ := tok.UnpackAttempted(out); !ok {
		t.Fatal("the token never tried to re-enter")
	}
	out, _ = e.poster.c.Call(ctx, token, tok.PackReentered())
	if ok, _ := tok.UnpackReentered(out); ok {
		t.Fatal("the re-entrant call succeeded")
	}
	out, _ = e.poster.c.Call(ctx, token, tok.PackReentryResult())
	ret, _ := tok.UnpackReentryResult(out)
	if got := RevertCode(e.poster.c.dec.decode(ret)); got != "reentrancy_guard_reentrant_call" {
		t.Fatalf("re-entry failed with %q, want the guard's error", got)
	}
	// The victim task is untouched.
	if st, err := e.poster.c.TaskState(ctx, victim.TaskID); err != nil || st.Status != TaskActive {
		t.Fatalf("victim task: %+v %v", st, err)
	}
}

func TestDoubleRelease(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	res := e.fund(e.settlement(eths(1), eths(1)))
	r, err := e.poster.c.ReleaseMilestone(ctx, res.TaskID, res.Task, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Again with the current state: the milestone is released already.
	_, err = e.poster.c.ReleaseMilestone(ctx, res.TaskID, r.Task, 0)
	wantRevert(t, err, "bad_milestone")
	// Again with the state from before the release: stale.
	_, err = e.poster.c.ReleaseMilestone(ctx, res.TaskID, res.Task, 0)
	wantRevert(t, err, "stale_task")
	// The worker cannot claim it a second way either.
	_, err = e.worker.c.ClaimUnanswered(ctx, res.TaskID, r.Task, 0)
	wantRevert(t, err, "bad_milestone")
	_, err = e.poster.c.ReleaseMilestone(ctx, res.TaskID, r.Task, 2)
	wantRevert(t, err, "no_such_milestone")
	if e.owed(ethToken, e.worker.addr).Cmp(eths(1)) != 0 {
		t.Fatal("worker credited more than once")
	}
}

func TestArbitratorProposedByOnePartyOnly(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	r := e.disputeWith(t, common.Address{}, eths(1))
	if _, err := e.poster.c.ProposeArbitrator(ctx, r.TaskID, e.arbitrator.addr); err != nil {
		t.Fatal(err)
	}
	d, err := e.poster.c.Dispute(ctx, r.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != DisputeAwaitingArbitrator || d.Arbitrator != (common.Address{}) {
		t.Fatalf("assigned on one proposal: %+v", d)
	}
	_, err = e.arbitrator.c.Rule(ctx, r.TaskID, 10001)
	wantRevert(t, err, "wrong_stage")
	// The poster naming it twice does not count as the worker's consent.
	if _, err := e.poster.c.ProposeArbitrator(ctx, r.TaskID, e.arbitrator.addr); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.poster.c.Dispute(ctx, r.TaskID); d.Status != DisputeAwaitingArbitrator {
		t.Fatal("assigned on the same party's second proposal")
	}
}

func TestTwoDifferentArbitrators(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	r := e.disputeWith(t, common.Address{}, eths(1))
	if _, err := e.poster.c.ProposeArbitrator(ctx, r.TaskID, e.arbitrator.addr); err != nil {
		t.Fatal(err)
	}
	if _, err := e.worker.c.ProposeArbitrator(ctx, r.TaskID, e.outsider.addr); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.poster.c.Dispute(ctx, r.TaskID); d.Status != DisputeAwaitingArbitrator {
		t.Fatal("assigned though the parties named different arbitrators")
	}
	for _, p := range []*party{e.arbitrator, e.outsider} {
		_, err := p.c.Rule(ctx, r.TaskID, 1)
		wantRevert(t, err, "wrong_stage")
	}
	// The worker comes round: now both named the same one.
	if _, err := e.worker.c.ProposeArbitrator(ctx, r.TaskID, e.arbitrator.addr); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.poster.c.Dispute(ctx, r.TaskID); d.Status != DisputeAssigned || d.Arbitrator != e.arbitrator.addr {
		t.Fatalf("not assigned after agreement: %+v", d)
	}
}

func TestBadProposals(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	r := e.disputeWith(t, common.Address{}, eths(1))
	_, err := e.outsider.c.ProposeArbitrator(ctx, r.TaskID, e.arbitrator.addr)
	wantRevert(t, err, "not_party")
	for _, a := range []common.Address{{}, e.poster.addr, e.worker.addr} {
		_, err = e.poster.c.ProposeArbitrator(ctx, r.TaskID, a)
		wantRevert(t, err, "bad_arbitrator")
	}
}

func TestRulingByNonArbitrator(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	r := e.disputeWith(t, e.arbitrator.addr, eths(1))
	for _, p := range []*party{e.outsider, e.poster, e.worker} {
		_, err := p.c.Rule(ctx, r.TaskID, 10001)
		wantRevert(t, err, "not_arbitrator")
	}
	_, err := e.arbitrator.c.Rule(ctx, r.TaskID, 10002)
	wantRevert(t, err, "bad_ruling")
	if e.owed(ethToken, e.worker.addr).Sign() != 0 {
		t.Fatal("a refused ruling paid out")
	}
}

func TestWithdrawMoreThanOwed(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	res := e.fund(e.settlement(eths(1)))
	if _, err := e.poster.c.ReleaseMilestone(ctx, res.TaskID, res.Task, 0); err != nil {
		t.Fatal(err)
	}
	_, err := e.worker.c.Withdraw(ctx, ethToken, new(big.Int).Add(eths(1), big.NewInt(1)))
	wantRevert(t, err, "insufficient_balance")
	_, err = e.worker.c.Withdraw(ctx, ethToken, big.NewInt(0))
	wantRevert(t, err, "insufficient_balance")
	_, err = e.outsider.c.Withdraw(ctx, ethToken, big.NewInt(1))
	wantRevert(t, err, "insufficient_balance")
	// Part, then the rest, then nothing more.
	if _, err := e.worker.c.Withdraw(ctx, ethToken, eths(0).Add(eths(0), big.NewInt(4e17))); err != nil {
		t.Fatal(err)
	}
	if _, err := e.worker.c.Withdraw(ctx, ethToken, big.NewInt(6e17)); err != nil {
		t.Fatal(err)
	}
	_, err = e.worker.c.Withdraw(ctx, ethToken, big.NewInt(1))
	wantRevert(t, err, "insufficient_balance")
}

func TestOnlyTheRightPartyActs(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	res := e.fund(e.settlement(eths(1)))
	_, err := e.poster.c.SubmitProof(ctx, res.TaskID, res.Task, 0, "bafkrei")
	wantRevert(t, err, "not_worker")
	_, err = e.worker.c.SubmitProof(ctx, res.TaskID, res.Task, 0, "")
	wantRevert(t, err, "empty_proof")
	_, err = e.worker.c.ReleaseMilestone(ctx, res.TaskID, res.Task, 0)
	wantRevert(t, err, "not_poster")
	_, err = e.outsider.c.OpenDispute(ctx, res.TaskID, res.Task)
	wantRevert(t, err, "not_party")
	_, err = e.worker.c.ReclaimExpired(ctx, res.TaskID, res.Task)
	wantRevert(t, err, "not_poster")
}

// TestRevisionRequestRefusals: only the poster sends a delivery back, only
// a submitted one, only while its review period runs, and at most
// MaxRevisions times: after them the review clock cannot be stopped again,
// so a poster cannot keep a worker's delivery from ever being claimable.
func TestRevisionRequestRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	must := musts(t)
	res := e.fund(e.settlement(eths(1), eths(1)))
	_, err := e.poster.c.RequestRevision(ctx, res.TaskID, res.Task, 0)
	wantRevert(t, err, "bad_milestone") // nothing delivered
	r := must(e.worker.c.SubmitProof(ctx, res.TaskID, res.Task, 0, "bafkreiproof"))
	r = must(e.worker.c.SubmitProof(ctx, res.TaskID, r.Task, 1, "bafkreiproof1"))
	for _, p := range []*party{e.worker, e.outsider, e.arbitrator} {
		_, err = p.c.RequestRevision(ctx, res.TaskID, r.Task, 0)
		wantRevert(t, err, "not_poster")
	}
	_, err = e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 2)
	wantRevert(t, err, "no_such_milestone")
	_, err = e.poster.c.RequestRevision(ctx, res.TaskID, res.Task, 0)
	wantRevert(t, err, "stale_task")
	_, err = e.poster.c.RequestRevision(ctx, rand32(), r.Task, 0)
	wantRevert(t, err, "unknown_task")
	for i := 1; i <= MaxRevisions; i++ {
		r = must(e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 0))
		if r.Task.Milestones[0].Revisions != uint8(i) {
			t.Fatalf("revision %d counted as %d", i, r.Task.Milestones[0].Revisions)
		}
		_, err = e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 0)
		wantRevert(t, err, "bad_milestone") // already back at work
		r = must(e.worker.c.SubmitProof(ctx, res.TaskID, r.Task, 0, "bafkreirevised"))
	}
	_, err = e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 0)
	wantRevert(t, err, "too_many_revisions")
	// Once a proof's review period ran out the worker may claim it: no
	// revision then.
	e.advance(7*24*time.Hour + time.Second)
	_, err = e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 1)
	wantRevert(t, err, "review_period_over")
	r = must(e.worker.c.ClaimUnanswered(ctx, res.TaskID, r.Task, 0))
	_, err = e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 0)
	wantRevert(t, err, "bad_milestone") // released
	// In a dispute nothing is sent back.
	r = must(e.worker.c.OpenDispute(ctx, res.TaskID, r.Task))
	_, err = e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 1)
	wantRevert(t, err, "not_active")
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 1, big.NewInt(1))
	wantRevert(t, err, "not_active")
}

// TestPartialReleaseRefusals: only the poster releases parts, of a
// milestone that still holds escrow, never zero nor more than remains.
func TestPartialReleaseRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	must := musts(t)
	res := e.fund(e.settlement(big.NewInt(1000), big.NewInt(500)))
	for _, p := range []*party{e.worker, e.outsider} {
		_, err := p.c.ReleasePart(ctx, res.TaskID, res.Task, 0, big.NewInt(1))
		wantRevert(t, err, "not_poster")
	}
	_, err := e.poster.c.ReleasePart(ctx, res.TaskID, res.Task, 2, big.NewInt(1))
	wantRevert(t, err, "no_such_milestone")
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, res.Task, 0, big.NewInt(0))
	wantRevert(t, err, "bad_part")
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, res.Task, 0, big.NewInt(1001))
	wantRevert(t, err, "bad_part")
	r := must(e.poster.c.ReleasePart(ctx, res.TaskID, res.Task, 0, big.NewInt(600)))
	// With the state from before the part: stale, so the part is not paid twice.
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, res.Task, 0, big.NewInt(600))
	wantRevert(t, err, "stale_task")
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 0, big.NewInt(401))
	wantRevert(t, err, "bad_part")
	// A forged running total is a stale state.
	forged := CopyTask(r.Task)
	forged.Milestones[0].Released = big.NewInt(0)
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, forged, 0, big.NewInt(1000))
	wantRevert(t, err, "stale_task")
	// A refunded milestone releases nothing more.
	e.advance(2 * 24 * time.Hour)
	r = must(e.poster.c.ReclaimExpired(ctx, res.TaskID, r.Task))
	_, err = e.poster.c.ReleasePart(ctx, res.TaskID, r.Task, 1, big.NewInt(1))
	wantRevert(t, err, "not_active")
	if e.owed(ethToken, e.worker.addr).Int64() != 600 || e.owed(ethToken, e.poster.addr).Int64() != 900 {
		t.Fatalf("owed worker %v poster %v", e.owed(ethToken, e.worker.addr), e.owed(ethToken, e.poster.addr))
	}
}

// TestReplacementClearsRevisions: a new worker starts with open milestones
// and a fresh count of revision requests.
func TestReplacementClearsRevisions(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	must := musts(t)
	res := e.fund(e.settlement(eths(1)))
	r := must(e.worker.c.SubmitProof(ctx, res.TaskID, res.Task, 0, "bafkreiproof"))
	r = must(e.poster.c.RequestRevision(ctx, res.TaskID, r.Task, 0))
	rp := negotiation.Replacement{TaskID: res.TaskID, NewWorker: e.newWorker.addr, HandoffHash: rand32(), Nonce: big.NewInt(0)}
	d, _ := rp.Digest(e.domain)
	r = must(e.poster.c.ReplaceWorker(ctx, res.TaskID, rp, r.Task, e.sign(e.poster, d), e.sign(e.worker, d)))
	if m := r.Task.Milestones[0]; m.State != MilestoneOpen || m.Revisions != 0 || m.SubmittedAt != 0 {
		t.Fatalf("after the replacement: %+v", m)
	}
}
