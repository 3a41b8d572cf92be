package negotiation

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// actor is one party negotiating from its own view of the thread.
type actor struct {
	*party
	view *Thread
	out  []*Envelope // what it sent, in order
	in   []*Envelope // what the other sent, not yet received
}

// TestNegotiationConverges checks the convergence property of DESIGN.md: for
// the negotiation phase, the outcome does not depend on how the two
// parties' envelopes interleave. Two actors negotiate concurrently with
// random delivery delays, each from its own view; the two per-sender streams
// they produced are then applied to an observer in many interleavings
// (holding an envelope whose reference has not arrived, as a node does),
// and every interleaving must reach the same state, current offer,
// agreement and per-envelope verdicts.
func TestNegotiationConverges(t *testing.T) {
	scenarios, orders := 60, 40
	if testing.Short() {
		scenarios, orders = 15, 20
	}
	seen := map[string]int{}
	for s := 0; s < scenarios; s++ {
		rng := rand.New(rand.NewPCG(uint64(s), 7))
		ps, ws := negotiateConcurrently(t, rng)
		var want string
		for i := 0; i < orders; i++ {
			order := interleave(rng, len(ps), len(ws), i)
			got := replay(t, ps, ws, order, seen)
			if i == 0 {
				want = got
				continue
			}
			if got != want {
				t.Fatalf("scenario %d: interleaving %v diverged:\n got %s\nwant %s", s, order, got, want)
			}
		}
	}
	// The scenarios must exercise what the property is about: agreements,
	// stale and bound envelopes, and envelopes held for a missing reference.
	for _, k := range []string{"agreed", string(CodeTermsChanged), string(CodeBoundByAcceptance), "held"} {
		if seen[k] == 0 {
			t.Errorf("no scenario exercised %s (seen: %v)", k, seen)
		}
	}
	t.Logf("coverage: %v", seen)
}

// interleave returns an order of len a+b picks (true = poster's next). The
// first two orders are all-poster-first and all-worker-first.
func interleave(rng *rand.Rand, a, b, i int) []bool {
	order := make([]bool, 0, a+b)
	switch i {
	case 0:
		for range a {
			order = append(order, true)
		}
		for range b {
			order = append(order, false)
		}
		return order
	case 1:
		for range b {
			order = append(order, false)
		}
		for range a {
			order = append(order, true)
		}
		return order
	}
	for a > 0 || b > 0 {
		if b == 0 || (a > 0 && rng.IntN(2) == 0) {
			order, a = append(order, true), a-1
		} else {
			order, b = append(order, false), b-1
		}
	}
	return order
}

func replay(t *testing.T, ps, ws []*Envelope, order []bool, seen map[string]int) string {
	th, err := NewThread(Params{NegotiationID: ps[0].NegotiationID})
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(24 * time.Hour)
	var held []*Envelope
	try := func(e *Envelope) {
		if out := th.Apply(e, now); out.Code.Retryable() {
			seen["held"]++
			held = append(held, e)
			return
		}
		for progress := true; progress; {
			progress = false
			for i, h := range held {
				if out := th.Apply(h, now); !out.Code.Retryable() {
					held = append(held[:i], held[i+1:]...)
					progress = true
					break
				}
			}
		}
	}
	pi, wi := 0, 0
	for _, p := range order {
		if p {
			try(ps[pi])
			pi++
		} else {
			try(ws[wi])
			wi++
		}
	}
	if len(held) > 0 {
		t.Fatalf("%d envelopes never applied", len(held))
	}
	verdicts := map[Hash]Code{}
	for _, r := range th.Log() {
		verdicts[r.Hash] = r.Code
		seen[string(r.Code)]++
	}
	if th.Agreement() != nil {
		seen["agreed"]++
	}
	s := fmt.Sprintf("state=%s current=%s verdicts=%v", th.State(), th.Current().Hash(), verdicts)
	if a := th.Agreement(); a != nil {
		s += fmt.Sprintf(" agreed=%s digest=%s", a.Offer, a.Digest)
	}
	return s
}

// negotiateConcurrently runs two actors with random delays and returns the
// poster's and the worker's streams.
func negotiateConcurrently(t *testing.T, rng *rand.Rand) (ps, ws []*Envelope) {
	nid := NewNegotiationID([16]byte{byte(rng.IntN(256)), byte(rng.IntN(256)), 9})
	mk := func(name string) *actor {
		p := newParty(t, name)
		v, err := NewThread(Params{NegotiationID: nid, Self: p.addr})
		if err != nil {
			t.Fatal(err)
		}
		return &actor{party: p, view: v}
	}
	poster, worker := mk("poster"), mk("worker")
	clock := t0
	send := func(a, b *actor, pl Payload) {
		clock = clock.Add(time.Second)
		e := a.send(t, nid, clock, []Address{b.addr}, pl)
		a.view.Apply(e, clock)
		a.out = append(a.out, e)
		b.in = append(b.in, e)
	}
	terms := func() Terms {
		tm := testTerms(int64(100 + rng.IntN(50)))
		mr := 6
		tm.Limits = &Limits{MaxRevisions: &mr}
		return tm
	}
	send(poster, worker, &TaskProposal{Terms: terms()})
	for step := 0; step < 14 && poster.view.State() != StateAgreed; step++ {
		for _, a := range []*actor{poster, worker} {
			other := worker
			if a == worker {
				other = poster
			}
			// Receive a random number of pending envelopes.
			for n := rng.IntN(len(a.in) + 1); n > 0; n-- {
				e := a.in[0]
				a.in = a.in[1:]
				a.view.Apply(e, clock)
			}
			cur := a.view.Current()
			if cur == nil || a.view.State() != StateCountered && a.view.State() != StateProposed {
				continue
			}
			switch rng.IntN(5) {
			case 3: // accept an older offer: stale from this actor's own view
				var older []*Offer
				for _, o := range a.view.offers {
					if o.Revision < cur.Revision {
						older = append(older, o)
					}
				}
				if len(older) == 0 {
					continue
				}
				sort.Slice(older, func(i, j int) bool { return older[i].Revision < older[j].Revision })
				cur = older[rng.IntN(len(older))]
				fallthrough
			case 0: // accept the current offer as this actor sees it
				s, dom, err := a.view.settlementFor(cur, worker.addr)
				if err != nil {
					t.Fatal(err)
				}
				dg, err := s.Digest(dom)
				if err != nil {
					t.Fatal(err)
				}
				send(a, other, &TaskAcceptance{AcceptedOfferHash: cur.Hash(), SettlementDigest: dg, Signature: a.signDigest(t, dg)})
			case 1, 2: // counter the other's offer, or revise one's own after its acceptance
				reply := cur.Hash()
				if cur.By == a.addr {
					acc := lastAcceptanceOf(a.view, other.addr, cur)
					if acc == nil {
						continue
					}
					reply = acc.Hash()
				}
				send(a, other, &TaskCounterOffer{InReplyTo: reply, Terms: terms()})
			}
		}
	}
	return poster.out, worker.out
}

func lastAcceptanceOf(th *Thread, by Address, o *Offer) *Envelope {
	var found *Envelope
	for _, r := range th.Log() {
		if r.Sender == by && r.Type == TypeTaskAcceptance && r.Code == "" {
			e := th.Envelope(r.Hash)
			if e.Payload.(*TaskAcceptance).AcceptedOfferHash == o.Hash() {
				found = e
			}
		}
	}
	return found
}
