package negotiation

import (
	"math/big"
	mrand "math/rand/v2"
	"slices"
	"testing"
)

// TestRevisionAndPartFactsByState: the chain's RevisionRequested and
// PartReleased are taken in funded and delivered only (the registry takes
// neither in a dispute or once the task is over).
func TestRevisionAndPartFactsByState(t *testing.T) {
	for _, st := range storedStates {
		for _, f := range []Fact{RevisionRequested{Milestone: 0}, PartReleased{Milestone: 1, Amount: U64(10), Released: U64(10)}} {
			tr := threadIn(t, st)
			out := tr.th.Apply(f, tr.clock)
			taken := out.Code == "" || out.Code == CodeDuplicate
			if want := st.PostFunding(); taken != want && !(st == StateCompleted && out.Code == CodeDuplicate) {
				t.Errorf("%s in %s: %q, taken %v, want %v", FactName(f), st, out.Code, taken, want)
			}
			if st.PostFunding() && out.Code == "" {
				if _, pending := tr.th.PendingDelivery(0); pending && FactName(f) == "revision_requested" {
					t.Errorf("%s: the delivery of milestone 0 is still pending review", st)
				}
			}
		}
	}
}

// TestPartsNeverExceedTheMilestone applies random PartReleased facts to a
// funded thread: the running total is the last one taken, never above the
// milestone, and the thread releases the milestone when it reaches it.
func TestPartsNeverExceedTheMilestone(t *testing.T) {
	r := mrand.New(mrand.NewPCG(14, 14))
	for run := range 50 {
		tr := threadIn(t, StateFunded)
		amount := tr.th.Milestones()[1].Amount.Big() // 200
		total := new(big.Int)
		for range 20 {
			part := big.NewInt(int64(r.IntN(120)))
			next := new(big.Int).Add(total, part)
			if r.IntN(5) == 0 {
				next.Add(next, big.NewInt(int64(r.IntN(3)))) // a total the parts do not add up to
			}
			out := tr.th.Apply(PartReleased{Milestone: 1, Amount: NewUint256(part), Released: NewUint256(next)}, tr.clock)
			ok := part.Sign() > 0 && part.Cmp(next) <= 0 && next.Cmp(amount) <= 0 && next.Cmp(total) > 0 && total.Cmp(amount) < 0
			switch {
			case ok && out.Code != "":
				t.Fatalf("run %d: a part of %v to %v of %v refused: %v", run, part, next, amount, out.Err)
			case !ok && out.Code == "":
				t.Fatalf("run %d: a part of %v to %v of %v (total %v) taken", run, part, next, amount, total)
			case ok:
				total = next
			}
			if got := tr.th.Released(1); got.Cmp(total) != 0 || got.Cmp(amount) > 0 {
				t.Fatalf("run %d: Released(1) = %v, want %v", run, got, total)
			}
			if done := total.Cmp(amount) == 0; done != slices.Contains(tr.th.releasedMilestones(), 1) {
				t.Fatalf("run %d: total %v of %v, released %v", run, total, amount, tr.th.releasedMilestones())
			}
		}
	}
}

// releasedMilestones lists the milestones the thread holds as released.
func (t *Thread) releasedMilestones() []int {
	var out []int
	for m, ok := range t.released {
		if ok {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}
