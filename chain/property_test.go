package chain

import (
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/negotiation"
)

// TestPropertyEscrowInvariant drives the contracts with random sequences of
// calls by random parties, legal or not, and checks after every step that
// the registry's balance equals what it owes (escrow of open tasks, escrow
// and bond of open disputes, credited balances), that every account's
// credit is what it was credited minus what it withdrew, and that no task
// ever pays out more than it took in. PARLEY_CHAIN_PROPERTY_STEPS raises the
// number of steps per seed (default 150). Revision requests, partial
// releases and amendments of partly released milestones are among the
// calls.
func TestPropertyEscrowInvariant(t *testing.T) {
	steps := 150
	if v, err := strconv.Atoi(os.Getenv("PARLEY_CHAIN_PROPERTY_STEPS")); err == nil && v > 0 {
		steps = v
	}
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			p := newPropRun(t, seed)
			for i := 0; i < steps; i++ {
				okBefore := p.ok
				name := p.step()
				if p.ok > okBefore {
					p.okBy[name]++
				}
				if err := p.check(); err != nil {
					t.Fatalf("step %d (%s): %v", i, name, err)
				}
			}
			t.Logf("%d steps, %d tasks, %d calls succeeded: %v", steps, len(p.tasks), p.ok, p.okBy)
		})
	}
}

type propTask struct {
	id      [32]byte
	task    Task // latest known state (kept stale on purpose now and then)
	funded  *big.Int
	bond    *big.Int
	settled bool
}

type propRun struct {
	t        *testing.T
	e        *env
	r        *mrand.Rand
	parties  []*party
	tasks    []*propTask
	credited map[common.Address]*big.Int
	withdrew map[common.Address]*big.Int
	byTask   map[[32]byte]*big.Int // credited per task
	ok       int
	okBy     map[string]int
}

func newPropRun(t *testing.T, seed uint64) *propRun {
	e := newEnv(t)
	return &propRun{
		t: t, e: e, r: mrand.New(mrand.NewPCG(seed, seed*7+1)),
		parties:  []*party{e.poster, e.worker, e.arbitrator, e.outsider},
		credited: map[common.Address]*big.Int{},
		withdrew: map[common.Address]*big.Int{},
		byTask:   map[[32]byte]*big.Int{},
		okBy:     map[string]int{},
	}
}

func (p *propRun) pick() *party { return p.parties[p.r.IntN(len(p.parties))] }

// as returns who, most of the time, and anyone now and then.
func (p *propRun) as(who *party) *party {
	if p.r.IntN(4) == 0 {
		return p.pick()
	}
	return who
}

// someTask returns a random task, an open one most of the time.
func (p *propRun) someTask() *propTask {
	if len(p.tasks) == 0 {
		return nil
	}
	var open []*propTask
	for _, pt := range p.tasks {
		if pt.task.Status == TaskActive || pt.task.Status == TaskDisputed && !pt.settled {
			open = append(open, pt)
		}
	}
	if len(open) > 0 && p.r.IntN(5) != 0 {
		return open[p.r.IntN(len(open))]
	}
	return p.tasks[p.r.IntN(len(p.tasks))]
}

// milestone returns a milestone index of pt, out of range now and then.
func (p *propRun) milestone(pt *propTask) uint64 {
	return uint64(p.r.IntN(len(pt.task.Milestones) + 1))
}

// pickMilestone returns, most of the time, a milestone of pt in one of
// states, and otherwise (or when none is) any index, out of range now and
// then.
func (p *propRun) pickMilestone(pt *propTask, states ...uint8) uint64 {
	var in []uint64
	for j, m := range pt.task.Milestones {
		if slices.Contains(states, m.State) {
			in = append(in, uint64(j))
		}
	}
	if len(in) == 0 || p.r.IntN(4) == 0 {
		return p.milestone(pt)
	}
	return in[p.r.IntN(len(in))]
}

func add(m map[common.Address]*big.Int, a common.Address, v *big.Int) {
	if m[a] == nil {
		m[a] = new(big.Int)
	}
	m[a].Add(m[a], v)
}

// record folds a successful receipt's events into the books.
func (p *propRun) record(r *types.Receipt) {
	p.ok++
	for _, ev := range DecodeEvents(p.e.addrs, r.Logs) {
		switch v := ev.Value.(type) {
		case *bindings.TaskRegistryCredited:
			add(p.credited, v.Account, v.Amount)
			if p.byTask[v.TaskId] == nil {
				p.byTask[v.TaskId] = new(big.Int)
			}
			p.byTask[v.TaskId].Add(p.byTask[v.TaskId], v.Amount)
		case *bindings.TaskRegistryWithdrawn:
			add(p.withdrew, v.Account, v.Amount)
		case *bindings.TaskRegistryTaskUpdated:
			for _, pt := range p.tasks {
				if pt.id == v.TaskId {
					pt.task = v.Task
				}
			}
		case *bindings.TaskRegistryDisputeSettled:
			for _, pt := range p.tasks {
				if pt.id == v.TaskId {
					pt.settled = true
				}
			}
		}
	}
}

// try records a successful call; a refusal must be a decoded revert.
func (p *propRun) try(r *types.Receipt, err error) {
	if err == nil {
		p.record(r)
		return
	}
	if !errors.Is(err, ErrReverted) || RevertCode(err) == "reverted" {
		p.t.Fatalf("a refusal that is not a decoded revert: %v", err)
	}
}

func (p *propRun) tryTask(res *TaskResult, err error) {
	if err == nil {
		p.try(res.Receipt, nil)
		return
	}
	p.try(nil, err)
}

func (p *propRun) step() string {
	ctx := p.t.Context()
	e := p.e
	pt := p.someTask()
	switch k := p.r.IntN(21); {
	case k < 2 || pt == nil:
		n := 1 + p.r.IntN(3)
		var amounts []*big.Int
		for range n {
			amounts = append(amounts, big.NewInt(int64(1+p.r.IntN(5))*1e15))
		}
		s := e.settlement(amounts...)
		s.Deadline += uint64(p.r.IntN(30)) * 86400
		d := e.digest(s)
		by := e.poster
		if p.r.IntN(5) == 0 {
			by = p.pick()
		}
		res, err := by.c.CreateTask(ctx, s, e.sign(e.poster, d), e.sign(e.worker, d))
		if err == nil {
			p.tasks = append(p.tasks, &propTask{id: res.TaskID, funded: new(big.Int).Set(s.Amount), bond: new(big.Int)})
		}
		p.tryTask(res, err)
		return "create"
	case k < 4:
		p.tryTask(p.as(e.worker).c.SubmitProof(ctx, pt.id, pt.task, p.pickMilestone(pt, MilestoneOpen, MilestoneRevising), "bafkreiproof"))
		return "proof"
	case k < 6:
		p.tryTask(p.as(e.poster).c.ReleaseMilestone(ctx, pt.id, pt.task, p.milestone(pt)))
		return "release"
	case k < 7:
		p.tryTask(p.as(e.worker).c.ClaimUnanswered(ctx, pt.id, pt.task, p.milestone(pt)))
		return "claim"
	case k < 8:
		p.tryTask(p.as(e.poster).c.ReclaimExpired(ctx, pt.id, pt.task))
		return "reclaim"
	case k < 9:
		nonce := new(big.Int).SetUint64(pt.task.Nonce + uint64(p.r.IntN(2)))
		d, err := negotiation.Cancel{TaskID: pt.id, Nonce: nonce}.Digest(e.domain)
		if err != nil {
			p.t.Fatal(err)
		}
		p.tryTask(p.pick().c.MutualCancel(ctx, pt.id, pt.task, e.sign(e.poster, d), e.sign(e.worker, d)))
		return "cancel"
	case k < 10:
		res, err := p.as([]*party{e.poster, e.worker}[p.r.IntN(2)]).c.OpenDispute(ctx, pt.id, pt.task)
		if err == nil {
			pt.bond = new(big.Int).Set(testBond)
		}
		p.tryTask(res, err)
		return "dispute"
	case k < 12:
		arb := []common.Address{e.arbitrator.addr, e.outsider.addr}[p.r.IntN(2)]
		p.try(p.as([]*party{e.poster, e.worker}[p.r.IntN(2)]).c.ProposeArbitrator(ctx, pt.id, arb))
		return "propose"
	case k < 13:
		rulings := []uint64{0, 1, 5001, 10001, uint64(p.r.IntN(10003))}
		p.try(p.as(e.arbitrator).c.Rule(ctx, pt.id, rulings[p.r.IntN(len(rulings))]))
		return "rule"
	case k < 14:
		p.try(p.pick().c.ResolveTimedOut(ctx, pt.id))
		return "timeout"
	case k < 16:
		a := p.pick()
		owed := e.owed(ethToken, a.addr)
		amt := new(big.Int).Mul(owed, big.NewInt(int64(p.r.IntN(14))))
		amt.Div(amt, big.NewInt(10))
		p.try(a.c.Withdraw(ctx, ethToken, amt))
		return "withdraw"
	case k < 17:
		for _, o := range p.tasks { // a task with a delivery under review, most of the time
			if o.task.Status == TaskActive && slices.ContainsFunc(o.task.Milestones, func(m Milestone) bool { return m.State == MilestoneSubmitted }) && p.r.IntN(4) != 0 {
				pt = o
			}
		}
		p.tryTask(p.as(e.poster).c.RequestRevision(ctx, pt.id, pt.task, p.pickMilestone(pt, MilestoneSubmitted)))
		return "revise"
	case k < 19:
		i := p.milestone(pt)
		rem := big.NewInt(1e15)
		if int(i) < len(pt.task.Milestones) {
			rem = Remaining(pt.task.Milestones[i])
		}
		var amt *big.Int
		switch p.r.IntN(5) {
		case 0:
			amt = rem // the rest: releases the milestone
		case 1:
			amt = new(big.Int).Add(rem, big.NewInt(1)) // beyond it
		case 2:
			amt = new(big.Int)
		default:
			amt = new(big.Int).Div(new(big.Int).Mul(rem, big.NewInt(int64(1+p.r.IntN(9)))), big.NewInt(10))
		}
		p.tryTask(p.as(e.poster).c.ReleasePart(ctx, pt.id, pt.task, i, amt))
		return "part"
	case k < 20:
		p.amend(pt)
		return "amend"
	default:
		hours := 1 + p.r.IntN(48)
		if p.r.IntN(4) == 0 {
			hours = 24 * (7 + p.r.IntN(25)) // past review periods and dispute timeouts
		}
		e.advance(time.Duration(hours) * time.Hour)
		return "advance"
	}
}

// amend submits a random amendment of pt signed by both parties: paid and
// refunded milestones keep their amounts (now and then not), the others
// take new ones (now and then no more than they released), one milestone
// more or fewer now and then, with the top-up the escrow's rise needs (now
// and then not).
func (p *propRun) amend(pt *propTask) {
	ctx := p.t.Context()
	e := p.e
	old := pt.task.Milestones
	n := max(1, len(old)+p.r.IntN(3)-1)
	var amounts []*big.Int
	newEscrow := new(big.Int)
	for i := range n {
		fresh := big.NewInt(int64(1+p.r.IntN(5)) * 1e15)
		if i >= len(old) {
			amounts = append(amounts, fresh)
			newEscrow.Add(newEscrow, fresh)
			continue
		}
		m := old[i]
		switch {
		case !Live(m) && p.r.IntN(6) != 0:
			amounts = append(amounts, new(big.Int).Set(m.Amount))
			continue
		case m.Released.Sign() > 0 && p.r.IntN(4) == 0:
			fresh = new(big.Int).Set(m.Released) // refused: not above what it released
		}
		amounts = append(amounts, fresh)
		newEscrow.Add(newEscrow, fresh).Sub(newEscrow, m.Released)
	}
	topUp := new(big.Int).Sub(newEscrow, Escrow(pt.task))
	if topUp.Sign() < 0 || p.r.IntN(8) == 0 {
		topUp = new(big.Int)
	}
	a := negotiation.Amendment{TaskID: pt.id, MilestoneAmounts: amounts, Deadline: pt.task.Deadline + uint64(p.r.IntN(3))*86400,
		TermsHash: rand32(), Nonce: new(big.Int).SetUint64(pt.task.Nonce)}
	d, err := a.Digest(e.domain)
	if err != nil {
		p.t.Fatal(err)
	}
	res, err := p.as(e.poster).c.Amend(ctx, pt.id, a, pt.task, e.sign(e.poster, d), e.sign(e.worker, d), topUp)
	if err == nil {
		pt.funded.Add(pt.funded, topUp)
	}
	p.tryTask(res, err)
}

// check verifies the invariants against the chain.
func (p *propRun) check() error {
	ctx := p.t.Context()
	e := p.e
	held := new(big.Int)
	for _, pt := range p.tasks {
		stored, err := e.poster.c.TaskStateHash(ctx, pt.id)
		if err != nil {
			return err
		}
		switch {
		case stored == ClosedByDispute:
		case pt.task.Status == TaskDisputed:
			d, err := e.poster.c.Dispute(ctx, pt.id)
			if err != nil {
				return err
			}
			if d.Status != DisputeResolved {
				held.Add(held, d.Terms.Escrow).Add(held, d.Terms.Bond)
			}
		default:
			st, err := e.poster.c.TaskState(ctx, pt.id)
			if err != nil {
				return err
			}
			held.Add(held, Escrow(st))
			// A milestone's running total never exceeds it, and is it
			// once the milestone is released.
			for i, m := range st.Milestones {
				if m.Released.Cmp(m.Amount) > 0 || m.State == MilestoneReleased && m.Released.Cmp(m.Amount) != 0 {
					return fmt.Errorf("task %x milestone %d released %v of %v (state %d)", pt.id[:4], i, m.Released, m.Amount, m.State)
				}
			}
		}
		// Nothing is paid twice: a task never credits more than it took in.
		limit := new(big.Int).Add(pt.funded, pt.bond)
		if c := p.byTask[pt.id]; c != nil && c.Cmp(limit) > 0 {
			return fmt.Errorf("task %x credited %v, took in %v", pt.id[:4], c, limit)
		}
		if pt.settled || stored != ClosedByDispute && pt.task.Status == TaskClosed {
			if c := p.byTask[pt.id]; c == nil || c.Cmp(limit) != 0 {
				return fmt.Errorf("closed task %x credited %v of %v", pt.id[:4], c, limit)
			}
		}
	}
	for _, a := range p.parties {
		owed := e.owed(ethToken, a.addr)
		want := new(big.Int)
		if c := p.credited[a.addr]; c != nil {
			want.Add(want, c)
		}
		if w := p.withdrew[a.addr]; w != nil {
			want.Sub(want, w)
		}
		if owed.Cmp(want) != 0 {
			return fmt.Errorf("%s owed %v, credited minus withdrawn is %v", a.addr, owed, want)
		}
		held.Add(held, owed)
	}
	if bal := e.balance(e.addrs.TaskRegistry); bal.Cmp(held) != 0 {
		return fmt.Errorf("registry holds %v, owes %v", bal, held)
	}
	return nil
}
