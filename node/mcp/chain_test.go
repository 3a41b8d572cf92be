package mcp

import (
	"encoding/base64"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// chainParty is a live node on the dev chain with an MCP session under
// its principal's key.
type chainParty struct {
	*liveNode
	cs *sdk.ClientSession
}

// chainTrio starts a poster, a worker and an arbitrator on one dev chain,
// each with 100 ETH, connected to one another.
func chainTrio(t *testing.T) (poster, worker, arb chainParty) {
	t.Helper()
	cfg := chain.DefaultDevchainConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	dev, err := chain.StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	use := func(c *node.Config) { nodetest.UseChain(c, dev) }
	p := startLiveWith(t, "poster", testKey, use)
	w := startLiveWith(t, "worker", "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0", use, p)
	a := startLiveWith(t, "arbitrator", "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0", use, p, w)
	nodetest.Connect(t, p.Node, w.Node)
	nodetest.Connect(t, p.Node, a.Node)
	nodetest.Connect(t, w.Node, a.Node)
	b, err := chain.DialRPC(t.Context(), dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := chain.New(b, dev.Deployer.Signer(), dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []*liveNode{p, w, a} {
		to := common.Address(n.Address())
		if _, err := c.Transact(t.Context(), &to, new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether)), nil); err != nil {
			t.Fatal(err)
		}
	}
	party := func(n *liveNode) chainParty { return chainParty{n, connect(t, n.url, n.key)} }
	return party(p), party(w), party(a)
}

// seat takes n's seat in negotiation nid with its principal's key.
func (p chainParty) seat(t *testing.T, nid string) string {
	t.Helper()
	eventually(t, p.Config().Name+" holds "+nid, func() bool { _, err := p.Thread(nid); return err == nil })
	r := ok[roomOut](t, p.cs, ToolJoinRoom, map[string]any{"link": "parley://" + p.PeerID().String() + "/rooms/" + nid, "agent_name": "agent of " + p.Config().Name})
	if r.YourLink == "" {
		t.Fatalf("%s took no seat in %s: %+v", p.Config().Name, nid, r)
	}
	return r.YourLink
}

func (p chainParty) waitState(t *testing.T, nid string, want negotiation.State) {
	t.Helper()
	eventually(t, p.Config().Name+" in "+string(want), func() bool {
		v, err := p.Thread(nid)
		return err == nil && v.State == want
	})
}

func (p chainParty) owed(t *testing.T) *big.Int {
	t.Helper()
	o, err := p.Owed(t.Context(), negotiation.Address{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func milli(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e15)) }

// agreedTask has the poster propose spec to the worker and both accept,
// through the node's API (the MCP tools take over from there).
func agreedTask(t *testing.T, poster, worker chainParty, amounts ...int64) string {
	t.Helper()
	spec := node.TaskSpec{Title: "Translate the user guide", Category: "translation", Deadline: time.Now().Add(72 * time.Hour)}
	for _, a := range amounts {
		spec.Milestones = append(spec.Milestones, node.MilestoneSpec{Amount: milli(a), Description: "a chapter"})
	}
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec)
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(t, nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the worker's acceptance at the poster", func() bool { v, _ := poster.Thread(nid); return len(v.Log) == 2 })
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitState(t, nid, negotiation.StateAgreed)
	return nid
}

// TestTaskToolsThroughMCP: once a negotiation is agreed, the agents of
// both parties and of the arbitrator take every act after it through the
// MCP tools, on the dev chain: fund, deliver, accept_delivery (with a
// note), open_dispute, submit_evidence (in reply to the delivery),
// propose_arbitrator (with a reason), rule and withdraw, to the wei; a
// second task is amended, then cancelled by both; a third is handed to
// a new worker (replace). Each envelope reaches
// the other nodes and takes its effect there.
func TestTaskToolsThroughMCP(t *testing.T) {
	poster, worker, arb := chainTrio(t)
	nid := agreedTask(t, poster, worker, 300, 200)
	pl, wl := poster.seat(t, nid), worker.seat(t, nid)

	refused(t, worker.cs, ToolFund, map[string]any{"link": wl}, "not_party")
	if f := ok[actOut](t, poster.cs, ToolFund, map[string]any{"link": pl}); f.State != "funded" || f.Tx == "" {
		t.Fatalf("fund: %+v", f)
	}
	worker.waitState(t, nid, negotiation.StateFunded)
	data := base64.StdEncoding.EncodeToString([]byte("Capítulo 1"))
	d := ok[actOut](t, worker.cs, ToolDeliver, map[string]any{"link": wl, "milestone": 0, "name": "chapter1.md", "data": data})
	poster.waitState(t, nid, negotiation.StateDelivered)
	refused(t, poster.cs, ToolRule, map[string]any{"link": pl, "worker_bps": 5000, "refuse": true}, "not both")
	a := ok[actOut](t, poster.cs, ToolAcceptDelivery, map[string]any{"link": pl, "milestone": 0, "note": "chapter 1 reads well"})
	if a.Type != "AcceptDelivery" || a.Tx == "" {
		t.Fatalf("accept_delivery: %+v", a)
	}
	eventually(t, "the note at the worker", func() bool {
		for _, e := range worker.envelopes(t, nid) {
			if p, ok := e.Payload.(*negotiation.AcceptDelivery); ok && p.Note == "chapter 1 reads well" {
				return true
			}
		}
		return false
	})
	ok[actOut](t, worker.cs, ToolDeliver, map[string]any{"link": wl, "milestone": 1, "name": "chapter2.md", "data": data})
	poster.waitState(t, nid, negotiation.StateDelivered)
	ok[actOut](t, poster.cs, ToolOpenDispute, map[string]any{"link": pl})
	worker.waitState(t, nid, negotiation.StateDisputed)
	ev := base64.StdEncoding.EncodeToString([]byte("chapter 2 is complete"))
	refused(t, worker.cs, ToolSubmitEvidence, map[string]any{"link": wl, "name": "scope.txt", "data": ev, "description": "the scope", "in_reply_to": "0x" + common.Bytes2Hex(make([]byte, 32))}, "bad_argument")
	e := ok[actOut](t, worker.cs, ToolSubmitEvidence, map[string]any{"link": wl, "name": "scope.txt", "data": ev, "description": "the scope", "in_reply_to": d.Envelope})
	if e.Type != "DisputeEvidence" {
		t.Fatalf("submit_evidence: %+v", e)
	}
	for _, p := range []struct {
		c    chainParty
		link string
	}{{poster, pl}, {worker, wl}} {
		r := ok[actOut](t, p.c.cs, ToolProposeArbitrator, map[string]any{"link": p.link, "arbitrator": arb.Address().String(), "reason": "both of us know it"})
		if r.Type != "ArbitratorProposal" {
			t.Fatalf("propose_arbitrator: %+v", r)
		}
		if p.c.Address() == poster.Address() {
			worker.holds(t, nid, negotiation.TypeArbitratorProposal, 1)
		}
	}
	arb.waitState(t, nid, negotiation.StateArbitrated)
	al := arb.seat(t, nid)
	refused(t, arb.cs, ToolRule, map[string]any{"link": al}, "worker_bps")
	if r := ok[actOut](t, arb.cs, ToolRule, map[string]any{"link": al, "worker_bps": 7000}); r.State != "resolved" {
		t.Fatalf("rule: %+v", r)
	}
	worker.waitState(t, nid, negotiation.StateResolved)
	want := new(big.Int).Add(milli(300), milli(140)) // milestone 0, and 70% of milestone 1
	if got := worker.owed(t); got.Cmp(want) != 0 {
		t.Fatalf("the worker is owed %s wei, want %s", got, want)
	}
	refused(t, worker.cs, ToolWithdraw, map[string]any{"token": "0x12"}, "token")
	w := ok[withdrawOut](t, worker.cs, ToolWithdraw, map[string]any{})
	if w.Tx == "" || w.Amount != "0.44 ETH" || worker.owed(t).Sign() != 0 {
		t.Fatalf("withdraw: %+v, owed after %s", w, worker.owed(t))
	}
	if got := poster.owed(t); got.Cmp(milli(60)) != 0 {
		t.Fatalf("the poster is owed %s wei, want 0.06 ETH", got)
	}

	// A second task: amended by both, then cancelled by both.
	nid2 := agreedTask(t, poster, worker, 250)
	pl2, wl2 := poster.seat(t, nid2), worker.seat(t, nid2)
	ok[actOut](t, poster.cs, ToolFund, map[string]any{"link": pl2})
	worker.waitState(t, nid2, negotiation.StateFunded)
	deadline := time.Now().Add(96 * time.Hour).UTC().Format(time.RFC3339)
	ok[actOut](t, poster.cs, ToolAmend, map[string]any{"link": pl2, "milestones": []any{map[string]any{"amount": "0.2 ETH", "description": "a shorter chapter"}}, "deadline": deadline, "reason": "one section was dropped"})
	worker.holds(t, nid2, negotiation.TypeMilestoneDefinition, 1)
	ok[actOut](t, worker.cs, ToolAmend, map[string]any{"link": wl2})
	eventually(t, "the amended milestone at both", func() bool {
		pv, _ := poster.Thread(nid2)
		wv, _ := worker.Thread(nid2)
		return len(pv.Milestones) == 1 && pv.Milestones[0].Amount.Big().Cmp(milli(200)) == 0 &&
			len(wv.Milestones) == 1 && wv.Milestones[0].Amount.Big().Cmp(milli(200)) == 0
	})
	ok[actOut](t, worker.cs, ToolCancel, map[string]any{"link": wl2, "reason": "the guide was withdrawn"})
	poster.holds(t, nid2, negotiation.TypeMutualCancel, 1)
	ok[actOut](t, poster.cs, ToolCancel, map[string]any{"link": pl2, "reason": "agreed"})
	poster.waitState(t, nid2, negotiation.StateCancelled)
	worker.waitState(t, nid2, negotiation.StateCancelled)
	// 0.06 ETH from the ruling, 0.05 ETH of the amendment, 0.2 ETH of the cancel.
	if got := poster.owed(t); got.Cmp(milli(310)) != 0 {
		t.Fatalf("the poster is owed %s wei, want 0.31 ETH", got)
	}

	// A third task is handed to the arbitrator's node as the new worker.
	nid3 := agreedTask(t, poster, worker, 150)
	pl3, wl3 := poster.seat(t, nid3), worker.seat(t, nid3)
	ok[actOut](t, poster.cs, ToolFund, map[string]any{"link": pl3})
	worker.waitState(t, nid3, negotiation.StateFunded)
	refused(t, poster.cs, ToolReplace, map[string]any{"link": pl3, "new_worker": "0x1234"}, "new_worker")
	ok[actOut](t, poster.cs, ToolReplace, map[string]any{"link": pl3, "new_worker": arb.Address().String(), "summary": "the worker moved on"})
	worker.holds(t, nid3, negotiation.TypeReplacementContext, 1)
	ok[actOut](t, worker.cs, ToolReplace, map[string]any{"link": wl3})
	eventually(t, "the new worker in every thread", func() bool {
		for _, p := range []chainParty{poster, worker, arb} {
			v, err := p.Thread(nid3)
			if err != nil || v.Worker == nil || *v.Worker != arb.Address() {
				return false
			}
		}
		return true
	})
}

// holds waits until p's thread nid holds n envelopes of type typ.
func (p chainParty) holds(t *testing.T, nid string, typ negotiation.MessageType, n int) {
	t.Helper()
	eventually(t, p.Config().Name+" holds "+string(typ), func() bool {
		v, _ := p.Thread(nid)
		k := 0
		for _, r := range v.Log {
			if r.Type == typ {
				k++
			}
		}
		return k == n
	})
}

// envelopes returns the envelopes of n's thread nid, decoded.
func (p chainParty) envelopes(t *testing.T, nid string) []*negotiation.Envelope {
	t.Helper()
	var out []*negotiation.Envelope
	for e, err := range p.Ledger().ByNegotiation(t.Context(), nid) {
		if err != nil {
			t.Fatal(err)
		}
		raw, err := p.Ledger().Object(t.Context(), e.CID)
		if err != nil {
			continue
		}
		if env, err := negotiation.Decode(raw, negotiation.DecodeOptions{}); err == nil {
			out = append(out, env)
		}
	}
	return out
}
