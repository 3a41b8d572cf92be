package negotiation

import (
	"testing"
)

// TestReclaimSparesARevisingMilestone: reclaimExpired refunds the open
// milestones and, of those sent back to work, only the ones whose
// resubmission window closed; the chain's refunded amount says which, in
// the order of the revision requests. A milestone still revising stays
// the worker's to deliver; an amount the thread's milestones do not make
// up is refused and changes nothing.
func TestReclaimSparesARevisingMilestone(t *testing.T) {
	tr := threadIn(t, StateDelivered) // milestones 150 and 200; 0 delivered
	if out := tr.th.Apply(RevisionRequested{Milestone: 0}, t0); !out.Effective() {
		t.Fatalf("revision requested: %v", out.Err)
	}
	if !tr.th.Revising(0) || tr.th.State() != StateFunded {
		t.Fatalf("after the revision: revising %v, state %s", tr.th.Revising(0), tr.th.State())
	}
	before := tr.th.clone()
	if out := tr.th.Apply(EscrowReclaimed{Amount: U64(100)}, t0); out.Effective() || out.Code != CodeTaskMismatch {
		t.Fatalf("a reclaim of 100 = %v %s, want task_mismatch", out.Err, out.Code)
	}
	if tr.th.Refunded(0) || tr.th.Refunded(1) || tr.th.State() != before.State() {
		t.Fatal("a refused reclaim changed the thread")
	}
	// The window of milestone 0 is still open: only milestone 1 (200).
	if out := tr.th.Apply(EscrowReclaimed{Amount: U64(200)}, t0); !out.Effective() {
		t.Fatalf("reclaim of 200: %v", out.Err)
	}
	if !tr.th.Refunded(1) || tr.th.Refunded(0) || !tr.th.Revising(0) || tr.th.State() != StateFunded {
		t.Fatalf("after the first reclaim: refunded %v %v, revising %v, state %s", tr.th.Refunded(0), tr.th.Refunded(1), tr.th.Revising(0), tr.th.State())
	}
	worker := tr.parties["worker"].addr
	if err := tr.th.May(ActDeliver, worker, ActArgs{Milestone: 0}); err != nil {
		t.Fatalf("the worker may not deliver the revising milestone: %v", err)
	}
	if err := tr.th.May(ActReclaimExpired, tr.parties["poster"].addr, ActArgs{}); err != nil {
		t.Fatalf("the poster may not reclaim the revising milestone once its window closes: %v", err)
	}
	// Its window closed unused: the second reclaim takes it.
	if out := tr.th.Apply(EscrowReclaimed{Amount: U64(150)}, t0); !out.Effective() {
		t.Fatalf("reclaim of 150: %v", out.Err)
	}
	if !tr.th.Refunded(0) || tr.th.Revising(0) || tr.th.State() != StateCancelled {
		t.Fatalf("after the second reclaim: refunded %v, revising %v, state %s", tr.th.Refunded(0), tr.th.Revising(0), tr.th.State())
	}
}

// TestRevisionEnvelopeAloneStopsNoClock: a RevisionRequest envelope the
// poster sends without requestRevision on chain records why and changes
// nothing: the delivery stays under review in the thread as on chain, so
// the worker may still claim it once the review period is over; the
// chain's RevisionRequested takes it off review.
func TestRevisionEnvelopeAloneStopsNoClock(t *testing.T) {
	tr := threadIn(t, StateDelivered)
	for _, line := range tr.run("send poster revise m=0") {
		if line == "" {
			t.Fatal("no output")
		}
	}
	worker := tr.parties["worker"].addr
	if tr.th.State() != StateDelivered {
		t.Fatalf("the envelope alone moved the thread to %s", tr.th.State())
	}
	if err := tr.th.May(ActClaimUnanswered, worker, ActArgs{Milestone: 0}); err != nil {
		t.Fatalf("the worker may not claim after a revision envelope alone: %v", err)
	}
	if out := tr.th.Apply(RevisionRequested{Milestone: 0}, t0); !out.Effective() || tr.th.State() != StateFunded {
		t.Fatalf("the chain's revision: %v, state %s", out.Err, tr.th.State())
	}
	if err := tr.th.May(ActClaimUnanswered, worker, ActArgs{Milestone: 0}); err == nil {
		t.Fatal("the worker may claim a milestone the chain sent back to work")
	}
}
