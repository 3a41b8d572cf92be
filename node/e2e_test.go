package node_test

import (
	"bytes"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// threeNodes starts a dev chain and a poster, a worker and an arbitrator
// bootstrapped to each other on loopback, each funded.
func threeNodes(t *testing.T) (w *world, poster, worker, arb *tnode) {
	w = newWorld(t, true)
	poster = w.add("poster")
	worker = w.add("worker", withBootstrap(poster))
	arb = w.add("arbitrator", withBootstrap(poster, worker))
	connect(t, poster, worker)
	connect(t, poster, arb)
	connect(t, worker, arb)
	return w, poster, worker, arb
}

// waitLog waits until n's thread nid holds at least k records.
func (n *tnode) waitLog(nid string, k int) node.ThreadView {
	t := n.w.t
	t.Helper()
	var v node.ThreadView
	eventually(t, n.name+" to hold the other party's envelopes", func() bool {
		var err error
		v, err = n.Thread(nid)
		return err == nil && len(v.Log) >= k
	})
	return v
}

// agree runs a negotiation from a direct proposal to an agreement and
// funds it.
func agree(t *testing.T, poster, worker *tnode, amounts ...*big.Int) string {
	t.Helper()
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Build a glossary", amounts...))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, 2)
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	if _, err := poster.Fund(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateFunded)
	return nid
}

// deliver delivers milestone m and waits until the poster fetched the
// file, checked it against its CID and saw the same CID on chain.
func deliver(t *testing.T, poster, worker *tnode, nid string, m int, file []byte) string {
	t.Helper()
	res, err := worker.Deliver(t.Context(), nid, node.DeliverySpec{Milestone: m, Name: "chapter.md", MediaType: "text/markdown", Data: file})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Detail["cid"]
	if res.Tx == nil || c == "" {
		t.Fatalf("Deliver = %+v", res)
	}
	eventually(t, "the poster to fetch the delivery and see its proof on chain", func() bool {
		v, err := poster.Thread(nid)
		if err != nil {
			return false
		}
		for _, d := range v.Deliveries {
			if d.Milestone == m && string(d.ProofCID) == c && d.Fetched && string(d.ChainProof) == c {
				return true
			}
		}
		return false
	})
	got, err := poster.File(t.Context(), mustCID(t, c))
	if err != nil || !bytes.Equal(got, file) {
		t.Fatalf("the poster's copy of the delivery: %q, %v", got, err)
	}
	return c
}

func withdraw(t *testing.T, n *tnode, want *big.Int) {
	t.Helper()
	owed, err := n.Owed(t.Context(), negotiation.Address{})
	if err != nil {
		t.Fatal(err)
	}
	if want != nil && owed.Cmp(want) != 0 {
		t.Fatalf("%s is owed %s, want %s", n.name, owed, want)
	}
	res, err := n.Withdraw(t.Context(), negotiation.Address{})
	if err != nil || res.Tx == nil || res.Detail["amount"] != owed.String() {
		t.Fatalf("%s withdraws: %+v, %v", n.name, res, err)
	}
	if left, _ := n.Owed(t.Context(), negotiation.Address{}); left.Sign() != 0 {
		t.Fatalf("%s still owed %s", n.name, left)
	}
	if _, err := n.Withdraw(t.Context(), negotiation.Address{}); node.CodeOf(err) != node.CodeNothingOwed {
		t.Fatalf("a second withdrawal: %v", err)
	}
}

// TestTaskFromBoardToPayment is task 1: the worker discovers the poster's
// announcement on the task board and counters, both sign the same digest,
// the poster funds escrow, the worker delivers two real files by blob with
// their CIDs on chain, the poster checks and accepts each, and the worker
// withdraws.
func TestTaskFromBoardToPayment(t *testing.T) {
	_, poster, worker, _ := threeNodes(t)
	eventually(t, "the task board mesh", func() bool { return len(worker.Host().TopicPeers("/parley/taskboard/1")) > 0 })
	ann, err := poster.PostTask(t.Context(), spec("Translate the user guide", eth(300), eth(200)))
	if err != nil {
		t.Fatal(err)
	}
	last := time.Now()
	eventually(t, "the announcement on the worker's board", func() bool {
		if time.Since(last) > 2*time.Second {
			// Gossip keeps no history: publish again in case the mesh
			// was not formed yet (an operator would, too).
			_ = poster.Announce(t.Context(), ann.Hash)
			last = time.Now()
		}
		for _, a := range worker.Board() {
			if a.Hash == ann.Hash {
				return true
			}
		}
		return false
	})
	res, err := worker.CounterAnnouncement(t.Context(), ann.Hash, node.CounterSpec{
		Milestones: []node.MilestoneSpec{{Amount: eth(350), Description: "chapter 1"}, {Amount: eth(250), Description: "chapter 2"}},
		Reason:     "technical glossary",
	})
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	poster.waitState(nid, negotiation.StateCountered)
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitLog(nid, 2)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitState(nid, negotiation.StateAgreed)
	fund, err := poster.Fund(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	if fund.Thread.State != negotiation.StateFunded || fund.Tx == nil || fund.Thread.TaskID == "" {
		t.Fatalf("Fund = %+v", fund)
	}
	if _, err := poster.Fund(t.Context(), nid); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("funding twice: %v", err)
	}
	worker.waitState(nid, negotiation.StateFunded)

	for m, file := range [][]byte{[]byte("Capítulo 1: Instalación\n"), []byte("Capítulo 2: Primeros pasos\n")} {
		if _, err := poster.AcceptDelivery(t.Context(), nid, m); node.CodeOf(err) != node.CodeStateForbidden {
			t.Fatalf("accepting a delivery not made: %v", err)
		}
		deliver(t, poster, worker, nid, m, file)
		acc, err := poster.AcceptDelivery(t.Context(), nid, m)
		if err != nil {
			t.Fatal(err)
		}
		if acc.Tx == nil || acc.Envelope == nil || acc.Envelope.Type != negotiation.TypeAcceptDelivery {
			t.Fatalf("AcceptDelivery = %+v", acc)
		}
	}
	if v, _ := poster.Thread(nid); v.State != negotiation.StateCompleted || v.A2A != negotiation.A2ACompleted {
		t.Fatalf("poster's thread: %s", v.State)
	}
	worker.waitState(nid, negotiation.StateCompleted)
	withdraw(t, worker, eth(600))
}

// TestDisputeToRuling is task 2: a dispute; evidence before the arbitrator
// is assigned; both parties propose the same arbitrator, which is handed a
// proof bundle of the thread so far and fetches the evidence sealed to
// it; evidence after the assignment reaches it directly and on the
// dispute's topic; it rules 70/30 and everyone withdraws.
func TestDisputeToRuling(t *testing.T) {
	_, poster, worker, arb := threeNodes(t)
	nid := agree(t, poster, worker, eth(400))
	delivered := deliver(t, poster, worker, nid, 0, []byte("Glosario técnico (incompleto)"))

	if _, err := arb.Rule(t.Context(), nid, 7001); node.CodeOf(err) != node.CodeUnknownNegotiation {
		t.Fatalf("ruling before joining: %v", err)
	}
	if _, err := poster.OpenDispute(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateDisputed)
	early, err := poster.SubmitEvidence(t.Context(), nid, node.EvidenceSpec{Name: "timeline.txt", Data: []byte("the glossary stops at letter M"), Description: "what was delivered"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := poster.ProposeArbitrator(t.Context(), nid, arb.Address()); err != nil {
		t.Fatal(err)
	}
	worker.waitLog(nid, 6)
	if _, err := worker.ProposeArbitrator(t.Context(), nid, arb.Address()); err != nil {
		t.Fatal(err)
	}
	poster.waitState(nid, negotiation.StateArbitrated)
	worker.waitState(nid, negotiation.StateArbitrated)

	av := arb.waitState(nid, negotiation.StateArbitrated)
	if av.Role != negotiation.RoleArbitrator || !av.Observer || *av.Poster != poster.Address() || *av.Worker != worker.Address() {
		t.Fatalf("the arbitrator's thread: %+v", av)
	}
	eventually(t, "the arbitrator to fetch the early evidence and the delivery", func() bool {
		_, e1 := arb.File(t.Context(), mustCID(t, early.Detail["cid"]))
		_, e2 := arb.File(t.Context(), mustCID(t, delivered))
		return e1 == nil && e2 == nil
	})
	k := kinds(t, arb, nid)
	if k["thread.joined"] != 1 || k["identity.link"] < 2 {
		t.Fatalf("the arbitrator's ledger: %v", k)
	}
	joinedFromV2(t, arb, nid, poster, worker)

	events, stop := arb.Subscribe(256)
	defer stop()
	late, err := worker.SubmitEvidence(t.Context(), nid, node.EvidenceSpec{Name: "letters.txt", Data: []byte("A to M were agreed for the first milestone"), Description: "scope"})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the late evidence at the arbitrator", func() bool {
		v, _ := arb.Thread(nid)
		for _, r := range v.Log {
			if r.Hash == late.Envelope.Hash {
				return true
			}
		}
		return false
	})
	onTopic := false
	for !onTopic {
		select {
		case ev := <-events:
			onTopic = ev.Kind == node.EventTopic && ev.Hash == late.Envelope.Hash.String() && ev.Detail == "/parley/evidence/1/"+av.DisputeID
		case <-time.After(30 * time.Second):
			t.Fatal("the late evidence never arrived on the dispute's evidence topic")
		}
	}
	rule, err := arb.Rule(t.Context(), nid, 7001)
	if err != nil {
		t.Fatal(err)
	}
	if rule.Thread.State != negotiation.StateResolved || *rule.Thread.Ruling != 7001 {
		t.Fatalf("Rule = %+v", rule.Thread)
	}
	poster.waitState(nid, negotiation.StateResolved)
	worker.waitState(nid, negotiation.StateResolved)
	withdraw(t, worker, eth(280))
	withdraw(t, poster, eth(120))
	withdraw(t, arb, nil)

	// A proof bundle of the poster's thread verifies with nothing else,
	// identity links of every signer included.
	var buf bytes.Buffer
	if _, err := poster.Ledger().Export(t.Context(), nid, &buf); err != nil {
		t.Fatal(err)
	}
	rep, err := node.VerifyBundle(bytes.NewReader(buf.Bytes()), ledger.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Envelopes) < 8 {
		t.Fatalf("the bundle holds %d envelopes", len(rep.Envelopes))
	}
}

// TestRestartMidNegotiation stops the worker between its acceptance and
// the poster's, and the poster between the delivery and its acceptance;
// each restarts from its ledger (threads replayed, outbox resumed, chain
// watcher resumed, the delivered file still checked), and the story
// completes with nothing lost.
func TestRestartMidNegotiation(t *testing.T) {
	w := newWorld(t, true)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Index the archive", eth(250), eth(150)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, 2)

	// The worker stops; the poster accepts while it is away: its outbox
	// keeps the acceptance until the worker is back.
	addr := worker.Addrs()[0].String()
	if err := worker.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	if _, err := poster.Fund(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.cfg.P2P.Listen = []string{addr[:strings.Index(addr, "/p2p/")]}
	worker.start()
	if v, _ := worker.Thread(nid); len(v.Log) < 2 {
		t.Fatalf("the worker's thread after the restart: %+v", v)
	}
	worker.waitState(nid, negotiation.StateFunded)

	c := deliver(t, poster, worker, nid, 0, []byte("index, part one"))
	poster.restart()
	if v, _ := poster.Thread(nid); v.State != negotiation.StateDelivered || !v.Deliveries[0].Fetched || string(v.Deliveries[0].ChainProof) != c {
		t.Fatalf("the poster's thread after the restart: %+v", v)
	}
	if _, err := poster.AcceptDelivery(t.Context(), nid, 0); err != nil {
		t.Fatal(err)
	}
	worker.restart()
	deliver(t, poster, worker, nid, 1, []byte("index, part two"))
	if _, err := poster.AcceptDelivery(t.Context(), nid, 1); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateCompleted)
	withdraw(t, worker, eth(400))
	for _, n := range []*tnode{poster, worker} {
		if _, err := n.Ledger().Verify(t.Context()); err != nil {
			t.Fatalf("%s's ledger: %v", n.name, err)
		}
	}
}
