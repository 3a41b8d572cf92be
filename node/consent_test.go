package node_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ipfs/go-cid"
	libpeer "github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

func withConsent(per, total int) nodeOpt {
	return func(n *tnode) { n.cfg.Consent.PerCounterparty, n.cfg.Consent.Total = per, total }
}

// propose sends n direct proposals from p to w and returns their
// negotiation ids.
func propose(t *testing.T, p, w *tnode, n int) []string {
	t.Helper()
	ids := make([]string, 0, n)
	for range n {
		res, err := p.ProposeTask(t.Context(), w.Address(), spec("Proofread", eth(10)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Thread.NegotiationID)
	}
	return ids
}

// settled waits until each proposal in ids is delivered to w or refused,
// and returns the refused ones' codes by negotiation id.
func settled(t *testing.T, p, w *tnode, ids []string) map[string]string {
	t.Helper()
	refused := map[string]string{}
	eventually(t, "every proposal of "+p.name+" taken or refused by "+w.name, func() bool {
		clear(refused)
		for _, id := range ids {
			v, err := p.Thread(id)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.Refused) > 0 {
				refused[id] = v.Refused[0].Code
				continue
			}
			if _, err := w.Thread(id); err != nil {
				return false
			}
		}
		return true
	})
	return refused
}

// ledgerCounts returns how many entries w's ledger holds for each
// negotiation, and its transport and envelope rejections.
func ledgerCounts(t *testing.T, w *tnode) (byNID map[string]int, rejections int) {
	t.Helper()
	byNID = map[string]int{}
	for e, err := range w.Ledger().Entries(t.Context(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		if e.NegotiationID != "" {
			byNID[e.NegotiationID]++
		}
		if e.Kind == node.KindInputRejected || e.Kind == ledger.KindEnvelopeRejected {
			rejections++
		}
	}
	return byNID, rejections
}

// TestConsentBoundsStrangers: a counterparty the worker's principal has
// not allowed opens at most consent.unknown_per_counterparty negotiations
// there, and all such counterparties together consent.unknown_total; a
// denied one opens none, and an allowed one is not bounded. A refused
// proposal writes nothing at the worker (no thread, no ledger entry, no
// rejection record), and the poster's node shows the refusal with its
// code in the negotiation's view and as an event. Consent changes are in
// the ledger and hold after a restart; a denied counterparty's open
// negotiations go on. Before consent, 500 proposals from one new
// identity opened 500 threads.
func TestConsentBoundsStrangers(t *testing.T) {
	w := newWorld(t, false)
	worker := w.add("worker", withConsent(3, 5))
	a := w.add("stranger-a", withBootstrap(worker))
	b := w.add("stranger-b", withBootstrap(worker))
	connect(t, a, worker)
	connect(t, b, worker)
	events, stop := a.Subscribe(256)
	defer stop()

	// A floods: three negotiations open, the rest are refused.
	flood := propose(t, a, worker, 30)
	refused := settled(t, a, worker, flood)
	if len(refused) != 27 {
		t.Fatalf("%d of 30 proposals refused, want 27 (3 open)", len(refused))
	}
	for id, code := range refused {
		if code != string(p2p.CodeConsentLimit) {
			t.Fatalf("%s refused with %q, want consent_limit", id, code)
		}
		if room, err := a.Room(t.Context(), id); err != nil || len(room.Refused) != 1 || room.Refused[0].Code != code || room.Refused[0].Envelope == nil {
			t.Fatalf("the stranger's room of %s does not show the refusal: %+v %v", id, room.Refused, err)
		}
	}
	byNID, rejections := ledgerCounts(t, worker)
	for id := range refused {
		if byNID[id] != 0 {
			t.Fatalf("the worker wrote %d entries for refused negotiation %s", byNID[id], id)
		}
		if _, err := worker.Thread(id); err == nil {
			t.Fatalf("the worker holds refused negotiation %s", id)
		}
	}
	if rejections != 0 {
		t.Fatalf("the worker recorded %d rejections for consent refusals", rejections)
	}
	if n := len(worker.Threads()); n != 3 {
		t.Fatalf("the worker holds %d negotiations, want 3", n)
	}
	seen := 0
	for seen < len(refused) {
		select {
		case ev := <-events:
			if ev.Kind == node.EventRefused && ev.Code == string(p2p.CodeConsentLimit) && ev.Detail == worker.Address().String() {
				seen++
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the stranger's node reported %d of %d refusals as events", seen, len(refused))
		}
	}
	var open []string
	for _, id := range flood {
		if refused[id] == "" {
			open = append(open, id)
		}
	}
	if v, _ := worker.ConsentBook().Of(a.Address()); v.State != node.ConsentUnknown || v.Open != 3 || v.Negotiations != 3 || v.Refused != 27 {
		t.Fatalf("the worker's view of the stranger: %+v", v)
	}

	// B is unknown too: the total bound leaves it two.
	refused = settled(t, b, worker, propose(t, b, worker, 3))
	if len(refused) != 1 {
		t.Fatalf("%d of B's 3 proposals refused, want 1 (the total bound is 5)", len(refused))
	}

	// The worker's principal denies A: nothing new from A, and A's open
	// negotiations no longer take slots of the unknown: B gets one more.
	if _, err := worker.ConsentBook().Set(t.Context(), a.Address(), node.ConsentDenied, node.ConsentViaAPI); err != nil {
		t.Fatal(err)
	}
	for _, c := range settled(t, a, worker, propose(t, a, worker, 1)) {
		if c != string(p2p.CodeConsentDenied) {
			t.Fatalf("a denied counterparty's proposal: %q, want consent_denied", c)
		}
	}
	if got := settled(t, b, worker, propose(t, b, worker, 1)); len(got) != 0 {
		t.Fatalf("B refused although denied A's negotiations no longer count: %v", got)
	}
	// Nor does a denied poster's announcement go on the worker's board:
	// it is answered consent_denied and nothing is recorded.
	ann, err := a.PostTask(t.Context(), spec("Junk", eth(1)))
	if err != nil {
		t.Fatal(err)
	}
	c, err := cid.Decode(ann.CID)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := a.Ledger().Object(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	env, err := negotiation.Decode(raw, negotiation.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	head := worker.Ledger().Head().Seq
	if code := worker.HandleEnvelope(t.Context(), p2p.Delivery{Envelope: env, Topic: p2p.TopicTaskBoard}); code != negotiation.Code(p2p.CodeConsentDenied) {
		t.Fatalf("a denied poster's announcement: %q", code)
	}
	if worker.Ledger().Head().Seq != head || onBoard(worker, ann.Hash) {
		t.Fatal("a denied poster's announcement was recorded or put on the board")
	}
	// A's open negotiation goes on: the worker counters, A answers, the
	// worker takes it.
	if _, err := worker.Counter(t.Context(), open[0], node.CounterSpec{Description: "and the index"}); err != nil {
		t.Fatal(err)
	}
	a.waitState(open[0], negotiation.StateCountered)
	if _, err := a.Counter(t.Context(), open[0], node.CounterSpec{Description: "and the index, by Friday"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the denied counterparty's counter at the worker", func() bool {
		v, _ := worker.Thread(open[0])
		return len(v.Log) == 3 && v.Log[2].Code == "ok"
	})

	// Allowed: B is not bounded.
	if _, err := worker.ConsentBook().Set(t.Context(), b.Address(), node.ConsentAllowed, node.ConsentViaAPI); err != nil {
		t.Fatal(err)
	}
	if got := settled(t, b, worker, propose(t, b, worker, 6)); len(got) != 0 {
		t.Fatalf("an allowed counterparty was refused: %v", got)
	}

	// The ledger holds both changes, and they hold after a restart.
	var changes []string
	for e, err := range worker.Ledger().ByKind(t.Context(), node.KindConsent) {
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, string(e.Body))
	}
	if len(changes) != 2 {
		t.Fatalf("consent entries: %v", changes)
	}
	worker.restart()
	ai, err := libpeer.AddrInfoFromP2pAddr(a.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := worker.Host().Connect(t.Context(), *ai); err != nil {
		t.Fatal(err)
	}
	connect(t, a, worker)
	if got := settled(t, a, worker, propose(t, a, worker, 1)); len(got) != 1 || !slices.Contains(mapValues(got), string(p2p.CodeConsentDenied)) {
		t.Fatalf("after a restart a denied counterparty's proposal: %v", got)
	}
	if v, _ := worker.ConsentBook().Of(b.Address()); v.State != node.ConsentAllowed || v.Via != node.ConsentViaAPI || v.At == nil {
		t.Fatalf("after a restart B: %+v", v)
	}
	// Back to unknown, A still has its three open negotiations: bounded.
	if _, err := worker.ConsentBook().Set(t.Context(), a.Address(), node.ConsentUnknown, node.ConsentViaAPI); err != nil {
		t.Fatal(err)
	}
	if v, _ := worker.ConsentBook().Of(a.Address()); v.Open != 3 {
		t.Fatalf("after a restart the worker counts %d open negotiations of A, want 3", v.Open)
	}
	for _, c := range settled(t, a, worker, propose(t, a, worker, 1)) {
		if c != string(p2p.CodeConsentLimit) {
			t.Fatalf("A unknown again with 3 open: %q, want consent_limit", c)
		}
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestConsentAgreementFreesASlot: a negotiation that leaves the
// negotiation phase (here: agreed) no longer counts as open, so the
// unknown counterparty may open another.
func TestConsentAgreementFreesASlot(t *testing.T) {
	w := newWorld(t, false)
	worker := w.add("worker", withConsent(1, 1))
	a := w.add("stranger", withBootstrap(worker))
	connect(t, a, worker)
	first := propose(t, a, worker, 2)
	if got := settled(t, a, worker, first); len(got) != 1 || got[first[1]] != string(p2p.CodeConsentLimit) {
		t.Fatalf("with a bound of 1: %v", got)
	}
	worker.waitState(first[0], negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), first[0]); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the worker's acceptance at the stranger", func() bool {
		v, _ := a.Thread(first[0])
		return len(v.Log) == 2
	})
	if _, err := a.Accept(t.Context(), first[0]); err != nil {
		t.Fatal(err)
	}
	worker.waitState(first[0], negotiation.StateAgreed)
	if got := settled(t, a, worker, propose(t, a, worker, 1)); len(got) != 0 {
		t.Fatalf("an agreed negotiation still counts as open: %v", got)
	}
}
