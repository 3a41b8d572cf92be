package negotiation

import (
	"slices"
	"testing"
)

// TestRefusalRemembersTheArbitrator: an arbitrator that refuses to rule is
// unassigned and remembered, once, as a former arbitrator (it holds the
// thread still, so the parties keep sending it the dispute's envelopes);
// the ruling of the next one is effective and leaves the list as it was.
func TestRefusalRemembersTheArbitrator(t *testing.T) {
	tr := threadIn(t, StateArbitrated)
	arb := tr.th.Arbitrator()
	if len(tr.th.FormerArbitrators()) != 0 {
		t.Fatalf("former arbitrators before any refusal: %v", tr.th.FormerArbitrators())
	}
	for range 2 {
		if out := tr.th.Apply(Ruled{DisputeID: U64(1), Ruling: 0}, t0); !out.Effective() {
			t.Fatalf("refusal: %v", out.Err)
		}
		if got := tr.th.FormerArbitrators(); !slices.Equal(got, []Address{arb}) {
			t.Fatalf("former arbitrators = %v, want [%s]", got, arb)
		}
		if tr.th.Arbitrator() != (Address{}) || tr.th.State() != StateDisputed {
			t.Fatalf("after a refusal: arbitrator %s, state %s", tr.th.Arbitrator(), tr.th.State())
		}
		if out := tr.th.Apply(ArbitratorAssigned{DisputeID: U64(1), Arbitrator: arb}, t0); !out.Effective() {
			t.Fatalf("assigned again: %v", out.Err)
		}
	}
	c := tr.th.clone()
	if out := c.Apply(Ruled{DisputeID: U64(1), Ruling: 0}, t0); !out.Effective() || len(tr.th.FormerArbitrators()) != 1 {
		t.Fatalf("a clone's refusal changed the original: %v", tr.th.FormerArbitrators())
	}
	if out := tr.th.Apply(Ruled{DisputeID: U64(1), Ruling: 7001}, t0); !out.Effective() || tr.th.State() != StateResolved {
		t.Fatalf("ruling after the refusals: %v %s", out.Err, tr.th.State())
	}
}
