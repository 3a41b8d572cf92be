package negotiation

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// fixture builds a thread past a counter-offer and returns the parties.
func counteredThread(t testing.TB) (*Thread, *party, *party, *Envelope) {
	t.Helper()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	nid := NewNegotiationID([16]byte{5})
	th, err := NewThread(Params{NegotiationID: nid, Self: worker.addr})
	if err != nil {
		t.Fatal(err)
	}
	p1 := poster.send(t, nid, t0, []Address{worker.addr}, &TaskProposal{Terms: testTerms(100)})
	if out := th.Apply(p1, t0); !out.Effective() {
		t.Fatal(out.Err)
	}
	w1 := worker.send(t, nid, t0.Add(time.Second), []Address{poster.addr}, &TaskCounterOffer{InReplyTo: p1.Hash(), Terms: testTerms(120)})
	if out := th.Apply(w1, t0); !out.Effective() {
		t.Fatal(out.Err)
	}
	return th, poster, worker, w1
}

// TestNonAuthenticChangesNothing applies each kind of non-authentic input to
// a thread and checks, field by field, that the thread is exactly what it
// was: a twin that never saw the input is deep-equal.
func TestNonAuthenticChangesNothing(t *testing.T) {
	nid := NewNegotiationID([16]byte{5})
	cases := map[string]func(t *testing.T, poster, worker *party, w1 *Envelope) (*Envelope, time.Time){
		"bad signature": func(t *testing.T, poster, worker *party, _ *Envelope) (*Envelope, time.Time) {
			e := poster.send(t, nid, t0.Add(time.Minute), []Address{worker.addr}, &CapabilityProof{Capability: "x", Kind: "y", Description: "z"})
			poster.seq--
			e.Signature[0] ^= 1
			e.verified.Store(false)
			return e, t0
		},
		"not addressed": func(t *testing.T, poster, _ *party, _ *Envelope) (*Envelope, time.Time) {
			stranger := newParty(t, "stranger")
			e := poster.send(t, nid, t0.Add(time.Minute), []Address{stranger.addr}, &CapabilityProof{Capability: "x", Kind: "y", Description: "z"})
			return e, t0
		},
		"sequence gap": func(t *testing.T, poster, worker *party, _ *Envelope) (*Envelope, time.Time) {
			poster.seq++
			return poster.send(t, nid, t0.Add(time.Minute), []Address{worker.addr}, &CapabilityProof{Capability: "x", Kind: "y", Description: "z"}), t0
		},
		"previous hash": func(t *testing.T, poster, worker *party, _ *Envelope) (*Envelope, time.Time) {
			poster.prev = Hash{1}
			return poster.send(t, nid, t0.Add(time.Minute), []Address{worker.addr}, &CapabilityProof{Capability: "x", Kind: "y", Description: "z"}), t0
		},
		"equivocation": func(t *testing.T, _, worker *party, w1 *Envelope) (*Envelope, time.Time) {
			worker.seq, worker.prev = 0, Hash{}
			return worker.send(t, nid, t0.Add(2*time.Second), []Address{newParty(t, "poster").addr}, &CapabilityProof{Capability: "x", Kind: "y", Description: "z"}), t0
		},
		"clock skew": func(t *testing.T, poster, worker *party, _ *Envelope) (*Envelope, time.Time) {
			return poster.send(t, nid, t0.Add(time.Hour), []Address{worker.addr}, &CapabilityProof{Capability: "x", Kind: "y", Description: "z"}), t0
		},
		"timestamp regression": func(t *testing.T, poster, worker *party, _ *Envelope) (*Envelope, time.Time) {
			return poster.send(t, nid, t0.Add(-time.Hour), []Address{worker.addr}, &CapabilityProof{Capability: "x", Kind: "y", Description: "z"}), t0
		},
		"missing reference": func(t *testing.T, poster, worker *party, _ *Envelope) (*Envelope, time.Time) {
			return poster.send(t, nid, t0.Add(time.Minute), []Address{worker.addr}, &TaskCounterOffer{InReplyTo: Hash{9}, Terms: testTerms(1)}), t0
		},
		"wrong negotiation": func(t *testing.T, poster, worker *party, _ *Envelope) (*Envelope, time.Time) {
			return poster.send(t, NewNegotiationID([16]byte{6}), t0.Add(time.Minute), []Address{worker.addr}, &CapabilityProof{Capability: "x", Kind: "y", Description: "z"}), t0
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			th, poster, worker, w1 := counteredThread(t)
			twin, _, _, _ := counteredThread(t)
			e, now := mk(t, poster, worker, w1)
			out := th.Apply(e, now)
			if out.Authentic || out.Effective() || out.Code == "" || out.Code.Authentic() {
				t.Fatalf("%s: outcome %+v", name, out)
			}
			var re *Error
			if !errors.As(out.Err, &re) || re.Code != out.Code {
				t.Fatalf("%s: untyped error %v", name, out.Err)
			}
			if !reflect.DeepEqual(th, twin) {
				t.Fatalf("%s: thread changed by non-authentic input", name)
			}
		})
	}
}

// TestRefusedEffectChangesOnlyChain: an authentic envelope whose effect is
// refused advances its sender's chain and is recorded, and nothing else.
func TestRefusedEffectChangesOnlyChain(t *testing.T) {
	th, poster, worker, w1 := counteredThread(t)
	nid := th.NegotiationID()
	bad := worker.send(t, nid, t0.Add(2*time.Second), []Address{poster.addr}, &AcceptDelivery{Milestone: 0, DeliveryHash: w1.Hash()})
	beforeState, beforeCurrent, beforeOffers := th.State(), th.Current(), len(th.offers)
	out := th.Apply(bad, t0)
	if !out.Authentic || out.Effective() || out.Code != CodeRoleForbidden {
		t.Fatalf("outcome %+v", out)
	}
	if th.State() != beforeState || th.Current() != beforeCurrent || len(th.offers) != beforeOffers {
		t.Fatal("refused effect changed the thread")
	}
	if c := th.chains[worker.addr]; c.seq != bad.Sequence || c.head != bad.Hash() {
		t.Fatal("sender's chain did not advance")
	}
	if last := th.Log()[len(th.Log())-1]; last.Hash != bad.Hash() || last.Code != CodeRoleForbidden {
		t.Fatalf("refusal not recorded: %+v", last)
	}
	// The next envelope from the worker follows the refused one.
	next := worker.send(t, nid, t0.Add(3*time.Second), []Address{poster.addr}, &CapabilityProof{Capability: "x", Kind: "y", Description: "z"})
	if out := th.Apply(next, t0); !out.Effective() {
		t.Fatalf("next envelope refused: %v", out.Err)
	}
}

// TestStateProjection covers every state's A2A projection.
func TestStateProjection(t *testing.T) {
	want := map[State]A2AState{
		StateOpen: A2ASubmitted, StateProposed: A2AInputRequired, StateCountered: A2AInputRequired,
		StateAgreed: A2AAuthRequired, StateFunded: A2AWorking, StateDelivered: A2AInputRequired,
		StateCompleted: A2ACompleted, StateDisputed: A2AWorking, StateArbitrated: A2AWorking,
		StateResolved: A2ACompleted, StateCancelled: A2ACanceled, StateVetoed: A2ARejected, StateExpired: A2AFailed,
	}
	for s, a := range want {
		if s.A2A() != a {
			t.Errorf("%s projects to %s, want %s", s, s.A2A(), a)
		}
	}
}

// TestAnnouncementIsNotANegotiation: an announcement applied inside a
// negotiation is refused, and a thread cannot be built on a direct proposal.
func TestAnnouncementIsNotANegotiation(t *testing.T) {
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	nid := NewNegotiationID([16]byte{8})
	ann := poster.send(t, nid, t0, nil, &TaskProposal{Terms: testTerms(5)})
	th, _ := NewThread(Params{NegotiationID: nid})
	if out := th.Apply(ann, t0); out.Code != CodeNotAddressed || th.State() != StateOpen {
		t.Fatalf("announcement applied: %+v", out)
	}
	direct := poster.send(t, nid, t0.Add(time.Second), []Address{worker.addr}, &TaskProposal{Terms: testTerms(5)})
	if _, err := NewThread(Params{NegotiationID: NewNegotiationID([16]byte{9}), Announcement: direct}); CodeOf(err) != CodeBadReference {
		t.Fatalf("thread built on a direct proposal: %v", err)
	}
}
