package node_test

import (
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// simWorld is a world whose nodes share go-ethereum's simulated chain in
// process, whose clock the test moves (AdjustTime): the contracts'
// timeouts run out in a test without waiting for them.
type simWorld struct {
	*world
	sim    *chain.Simulated
	client *chain.Client // the funder's: reads the chain and funds the nodes
	addrs  chain.Addresses
}

func newSimWorld(t *testing.T) *simWorld {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	funder := crypto.PubkeyToAddress(key.PublicKey)
	sim := chain.StartSimulated(types.GenesisAlloc{funder: {Balance: new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))}})
	t.Cleanup(sim.Close)
	cfg := chain.DefaultConfig()
	cfg.PollInterval = 5 * time.Millisecond
	addrs, err := chain.Deploy(t.Context(), sim, chain.NewKeySigner(key), cfg, chain.DefaultDeployConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Contracts = addrs
	c, err := chain.New(sim, chain.NewKeySigner(key), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &simWorld{world: newWorld(t, false), sim: sim, client: c, addrs: addrs}
}

// withAuto sets the node's timeouts.auto policy.
func withAuto(acts ...negotiation.Act) nodeOpt {
	return func(n *tnode) {
		for _, a := range acts {
			n.cfg.Timeouts.Auto = append(n.cfg.Timeouts.Auto, string(a))
		}
	}
}

// add starts a node on the simulated chain, funded with 100 ETH, that
// scans its timeout exits every 50ms.
func (s *simWorld) add(name string, opts ...nodeOpt) *tnode {
	t := s.t
	t.Helper()
	dir := nodetest.Keys(t)
	cfg := nodetest.Config(dir, name)
	cfg.FetchTimeout = 10 * time.Second
	cfg.Chain.ChainID, cfg.Chain.Contracts = 1337, s.addrs
	cfg.Timeouts.Scan = 50 * time.Millisecond
	n := &tnode{w: s.world, name: name, dir: dir, gate: node.AutoApprove("test driver"), cfg: cfg, extra: []node.Option{node.WithChainBackend(s.sim)}}
	for _, o := range opts {
		o(n)
	}
	n.start()
	to := common.Address(n.Address())
	if _, err := s.client.Transact(t.Context(), &to, eth(100_000), nil); err != nil {
		t.Fatal(err)
	}
	return n
}

// later moves the chain's clock on by d.
func (s *simWorld) later(d time.Duration) {
	s.t.Helper()
	if err := s.sim.AdjustTime(d); err != nil {
		s.t.Fatal(err)
	}
}

// owed returns what the registry owes n in ETH.
func owed(t *testing.T, n *tnode) *big.Int {
	t.Helper()
	o, err := n.Owed(t.Context(), negotiation.Address{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// waitTimeout waits for the EventTimeout of act on ch.
func waitTimeout(t *testing.T, ch <-chan node.Event, nid string, act negotiation.Act) node.Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-ch:
			if ev.Kind == node.EventTimeout && ev.NegotiationID == nid && ev.Fact == string(act) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event for %s", act, nid)
		}
	}
}

// TestTimeoutExitsOfATask: the worker delivers milestone 0 of two and the
// poster never answers. Before the review period is over the worker's
// claim is refused with timeout_not_due, before the gate is asked; so is
// the poster's reclaim before the deadline. Once the chain's clock passed
// both, the worker's node tells it the claim is due (an event and a line
// of its status), the claim pays milestone 0 to the worker, and the
// poster reclaims milestone 1, which was never delivered: both threads
// end cancelled (nothing left in escrow), each party owed its part to the
// wei.
func TestTimeoutExitsOfATask(t *testing.T) {
	s := newSimWorld(t)
	pg, wg := &recGate{}, &recGate{}
	poster := s.add("poster", withGate(pg))
	worker := s.add("worker", withGate(wg), withBootstrap(poster))
	connect(t, poster, worker)
	nid := agree(t, poster, worker, eth(300), eth(200))
	deliver(t, poster, worker, nid, 0, []byte("chapter one"))

	if _, err := worker.ClaimUnanswered(t.Context(), nid, 0); node.CodeOf(err) != node.CodeTimeoutNotDue {
		t.Fatalf("a claim during the review period: %v", err)
	}
	if _, err := poster.ReclaimExpired(t.Context(), nid); node.CodeOf(err) != node.CodeTimeoutNotDue {
		t.Fatalf("a reclaim before the deadline: %v", err)
	}
	if _, err := worker.ClaimUnanswered(t.Context(), nid, 1); node.CodeOf(err) != node.Code(negotiation.CodeMilestoneInvalid) {
		t.Fatalf("a claim of an undelivered milestone: %v", err)
	}
	if _, err := poster.ClaimUnanswered(t.Context(), nid, 0); node.CodeOf(err) != node.CodeNotParty {
		t.Fatalf("the poster claiming: %v", err)
	}
	if len(wg.asked(node.ActClaimUnanswered)) != 0 || len(pg.asked(node.ActReclaimExpired)) != 0 {
		t.Fatal("an exit not due asked for an approval")
	}
	if st, _ := worker.Status(); len(st.Timeouts) != 0 {
		t.Fatalf("the worker's status lists exits not due: %+v", st.Timeouts)
	}

	events, stop := worker.Subscribe(256)
	defer stop()
	s.later(7*24*time.Hour + time.Minute) // the review period, and the 72-hour deadline with it
	ev := waitTimeout(t, events, nid, negotiation.ActClaimUnanswered)
	if ev.Detail != "0" || ev.Code != "due" {
		t.Fatalf("the timeout event: %+v", ev)
	}
	eventually(t, "the worker's status to list the claim", func() bool {
		st, err := worker.Status()
		return err == nil && slices.ContainsFunc(st.Timeouts, func(x node.TimeoutExit) bool {
			return x.NegotiationID == nid && x.Act == negotiation.ActClaimUnanswered && x.Milestone == 0 && x.Due && x.Amount == eth(300).String()
		})
	})
	exits, err := poster.Timeouts(t.Context())
	if err != nil || len(exits) != 1 || exits[0].Act != negotiation.ActReclaimExpired || !exits[0].Due || exits[0].Amount != eth(200).String() {
		t.Fatalf("the poster's exits: %+v, %v", exits, err)
	}

	claim, err := worker.ClaimUnanswered(t.Context(), nid, 0)
	if err != nil {
		t.Fatal(err)
	}
	if claim.Tx == nil || claim.Thread.State != negotiation.StateFunded {
		t.Fatalf("ClaimUnanswered = %+v", claim)
	}
	if r := wg.asked(node.ActClaimUnanswered); len(r) != 1 {
		t.Fatalf("the claim asked %d approvals", len(r))
	}
	poster.waitState(nid, negotiation.StateFunded)
	if got := owed(t, worker); got.Cmp(eth(300)) != 0 {
		t.Fatalf("the worker is owed %s, want %s", got, eth(300))
	}
	if _, err := worker.ClaimUnanswered(t.Context(), nid, 0); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("a second claim: %v", err)
	}

	re, err := poster.ReclaimExpired(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	if re.Tx == nil || re.Thread.State != negotiation.StateCancelled || re.Detail["amount"] != eth(200).String() || !slices.Equal(re.Thread.Refunded, []int{1}) {
		t.Fatalf("ReclaimExpired = %+v", re)
	}
	worker.waitState(nid, negotiation.StateCancelled)
	if got := owed(t, poster); got.Cmp(eth(200)) != 0 {
		t.Fatalf("the poster is owed %s, want %s", got, eth(200))
	}
	if got := owed(t, worker); got.Cmp(eth(300)) != 0 {
		t.Fatalf("the worker is owed %s after the reclaim, want %s", got, eth(300))
	}
	if _, err := poster.ReclaimExpired(t.Context(), nid); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("a second reclaim: %v", err)
	}
	withdraw(t, worker, eth(300))
	withdraw(t, poster, eth(200))
}

// TestResolveTimedOutByPolicy: an arbitrator is assigned and never rules.
// Before the rule timeout anyone's resolve_timed_out is refused with
// timeout_not_due; once the chain's clock passed it, the worker's policy
// (timeouts.auto: resolve_timed_out) takes the exit through its gate, and
// the poster's, the worker's and the arbitrator's threads all end
// resolved as ruling 5001: half the escrow each, the bond back to the
// opener, to the wei.
func TestResolveTimedOutByPolicy(t *testing.T) {
	s := newSimWorld(t)
	wg := &recGate{}
	poster := s.add("poster")
	worker := s.add("worker", withGate(wg), withAuto(negotiation.ActResolveTimedOut), withBootstrap(poster))
	arb := s.add("arbitrator", withBootstrap(poster, worker))
	connect(t, poster, worker)
	connect(t, poster, arb)
	connect(t, worker, arb)
	nid := agree(t, poster, worker, eth(400))
	deliver(t, poster, worker, nid, 0, []byte("glossary"))
	if _, err := poster.OpenDispute(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateDisputed)
	if _, err := poster.ResolveTimedOut(t.Context(), nid); node.CodeOf(err) != node.CodeTimeoutNotDue {
		t.Fatalf("resolving an open dispute before its assign timeout: %v", err)
	}
	if _, err := poster.ProposeArbitrator(t.Context(), nid, arb.Address()); err != nil {
		t.Fatal(err)
	}
	worker.waitLog(nid, 5)
	if _, err := worker.ProposeArbitrator(t.Context(), nid, arb.Address()); err != nil {
		t.Fatal(err)
	}
	poster.waitState(nid, negotiation.StateArbitrated)
	arb.waitState(nid, negotiation.StateArbitrated)
	s.later(14*24*time.Hour + time.Minute) // past the assign timeout, not the rule timeout of the assigned arbitrator
	if _, err := arb.ResolveTimedOut(t.Context(), nid); node.CodeOf(err) != node.CodeTimeoutNotDue {
		t.Fatalf("resolving before the rule timeout: %v", err)
	}
	if len(wg.asked(node.ActResolveTimedOut)) != 0 {
		t.Fatal("the policy asked before the exit was due")
	}
	bond, err := s.client.Bond(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	events, stop := worker.Subscribe(256)
	defer stop()
	s.later(30*24*time.Hour + time.Minute)
	waitTimeout(t, events, nid, negotiation.ActResolveTimedOut)
	for _, n := range []*tnode{worker, poster, arb} {
		v := n.waitState(nid, negotiation.StateResolved)
		if v.Ruling == nil || *v.Ruling != 5001 || !v.TimedOut {
			t.Fatalf("%s's ruling: %v", n.name, v.Ruling)
		}
	}
	if r := wg.asked(node.ActResolveTimedOut); len(r) != 1 {
		t.Fatalf("the policy asked %d approvals", len(r))
	}
	if got := owed(t, worker); got.Cmp(eth(200)) != 0 {
		t.Fatalf("the worker is owed %s, want %s", got, eth(200))
	}
	if got, want := owed(t, poster), new(big.Int).Add(eth(200), bond); got.Cmp(want) != 0 {
		t.Fatalf("the poster is owed %s, want %s", got, want)
	}
	if got := owed(t, arb); got.Sign() != 0 {
		t.Fatalf("the arbitrator is owed %s", got)
	}
	if _, err := poster.ResolveTimedOut(t.Context(), nid); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("resolving again: %v", err)
	}
}
