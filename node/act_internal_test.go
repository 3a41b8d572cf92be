package node

import (
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// runnerNode is a node that is started as far as the runner can tell,
// without a chain, and a count of its acts by act and result.
func runnerNode(t *testing.T) (*Node, func(act negotiation.Act, res string) float64) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg, func() float64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	n := &Node{m: m, check: newLedgerCheck(m), state: stateStarted}
	n.live.Store(true)
	n.eng = engine.New(engine.Config{Unknown: n.check.unknownErr})
	n.self[0] = 1
	count := func(act negotiation.Act, res string) float64 {
		fams, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, f := range fams {
			if f.GetName() != "parley_node_acts_total" {
				continue
			}
			for _, m := range f.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				if (act == "" || labels["act"] == string(act)) && (res == "" || labels["result"] == res) {
					total += m.GetCounter().GetValue()
				}
			}
		}
		return total
	}
	return n, count
}

func freshThread(t *testing.T, self negotiation.Address) *thread {
	t.Helper()
	nid, err := newNegotiationID()
	if err != nil {
		t.Fatal(err)
	}
	th, err := engine.NewThread(negotiation.Params{NegotiationID: nid, Self: self}, negotiation.RolePoster, false)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// TestRunner: the runner refuses a node that is not running without
// counting; otherwise it counts every act once, by its code; it checks
// the arguments, then the chain, then the act table, and runs the body
// only once all allowed it, with the thread's lock held in locked and
// released in the body.
func TestRunner(t *testing.T) {
	n, count := runnerNode(t)
	ran := 0
	body := func() (ActResult, error) { ran++; return ActResult{}, nil }
	other := negotiation.Address{2}

	n.state = stateNew
	n.live.Store(false)
	if _, err := n.do(actCall{act: negotiation.ActPropose, fresh: freshThread(t, n.self)}, body); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("a node not started: %v", err)
	}
	if ran != 0 || count("", "") != 0 {
		t.Fatal("a node not started ran or counted the act")
	}
	n.state = stateStarted
	n.live.Store(true)

	bad := fail(CodeBadArgument, "no")
	for _, tc := range []struct {
		name string
		c    actCall
		code Code
	}{
		{"the argument check comes first", actCall{act: negotiation.ActFund, chain: chainAlways, check: func() error { return bad }}, CodeBadArgument},
		{"then the chain", actCall{act: negotiation.ActFund, chain: chainAlways, fresh: freshThread(t, n.self)}, CodeNoChain},
		{"then the table's role", actCall{act: negotiation.ActFund, fresh: freshThread(t, n.self)}, CodeNotParty},
		{"the table's arguments", actCall{act: negotiation.ActPropose, fresh: freshThread(t, n.self), args: negotiation.ActArgs{Party: n.self}}, CodeBadArgument},
		{"an unknown negotiation", actCall{act: negotiation.ActCounter, nid: "nope"}, CodeUnknownNegotiation},
		{"locked's refusal", actCall{act: negotiation.ActPropose, fresh: freshThread(t, n.self), args: negotiation.ActArgs{Party: other},
			locked: func(*thread) error { return fail(CodeStoreFailed, "x") }}, CodeStoreFailed},
	} {
		before := count(tc.c.act, string(tc.code))
		_, err := n.do(tc.c, body)
		if CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
		if got := count(tc.c.act, string(tc.code)) - before; got != 1 {
			t.Errorf("%s: counted %v times", tc.name, got)
		}
		if ran != 0 {
			t.Fatalf("%s: the body ran", tc.name)
		}
	}
	// The table's refusal is the node's *Error with the table's code, and
	// negotiation's sentinel matches it.
	_, err := n.do(actCall{act: negotiation.ActFund, fresh: freshThread(t, n.self)}, body)
	var ne *Error
	if !errors.As(err, &ne) || ne.Code != CodeNotParty || !errors.Is(err, negotiation.ErrNotParty) {
		t.Fatalf("the table's refusal: %#v", err)
	}

	fresh := freshThread(t, n.self)
	held := false
	c := actCall{act: negotiation.ActPropose, fresh: fresh, args: negotiation.ActArgs{Party: other},
		locked: func(t *thread) error { held = !t.TryLock(); return nil }}
	_, err = n.do(c, func() (ActResult, error) {
		if !fresh.TryLock() {
			t.Error("the body runs with the thread's lock held")
		} else {
			fresh.Unlock()
		}
		return body()
	})
	if err != nil || ran != 1 || !held || count(negotiation.ActPropose, "ok") != 1 {
		t.Fatalf("an allowed act: %v, ran %d, held %v, counted %v", err, ran, held, count(negotiation.ActPropose, "ok"))
	}
	if _, err := n.do(actCall{act: actWithdraw}, body); err != nil || ran != 2 || count(actWithdraw, "ok") != 1 {
		t.Fatalf("an act in no thread: %v", err)
	}
}
