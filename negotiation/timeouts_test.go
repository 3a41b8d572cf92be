package negotiation

import "testing"

// TestTimeoutActs: the rows of the three timeout exits and the facts that
// complete them, beyond the golden transcripts (timeout_*.txt): a worker
// claims only a delivery pending review; the poster reclaims only while a
// milestone without a delivery is left; a stalled dispute resolves by
// timeout from disputed and from arbitrated alike, as ruling WorkerBps+1,
// and a refusal to rule before it does not stop it.
func TestTimeoutActs(t *testing.T) {
	worker := func(tr *transcript) Address { return tr.parties["worker"].addr }
	poster := func(tr *transcript) Address { return tr.parties["poster"].addr }

	t.Run("claim_unanswered", func(t *testing.T) {
		tr := threadIn(t, StateDelivered) // milestone 0 delivered, 1 not
		if err := tr.th.May(ActClaimUnanswered, worker(tr), ActArgs{Milestone: 0}); err != nil {
			t.Fatalf("claiming the delivered milestone: %v", err)
		}
		if err := tr.th.May(ActClaimUnanswered, worker(tr), ActArgs{Milestone: 1}); CodeOf(err) != CodeMilestoneInvalid {
			t.Fatalf("claiming an undelivered milestone: %v", err)
		}
		if err := tr.th.May(ActClaimUnanswered, worker(tr), ActArgs{Milestone: 2}); CodeOf(err) != CodeBadArgument {
			t.Fatalf("claiming a milestone that does not exist: %v", err)
		}
		if err := tr.th.May(ActClaimUnanswered, poster(tr), ActArgs{Milestone: 0}); CodeOf(err) != CodeNotParty {
			t.Fatalf("the poster claiming: %v", err)
		}
	})

	t.Run("reclaim_expired", func(t *testing.T) {
		tr := threadIn(t, StateDelivered)
		if err := tr.th.May(ActReclaimExpired, poster(tr), ActArgs{}); err != nil {
			t.Fatalf("reclaiming the undelivered milestone: %v", err)
		}
		tr.run("fact reclaimed amount=200")
		if !tr.th.Refunded(1) || tr.th.Refunded(0) || tr.th.State() != StateDelivered {
			t.Fatalf("after the reclaim: refunded %v %v, state %s", tr.th.Refunded(0), tr.th.Refunded(1), tr.th.State())
		}
		if err := tr.th.May(ActReclaimExpired, poster(tr), ActArgs{}); CodeOf(err) != CodeMilestoneInvalid {
			t.Fatalf("reclaiming again with only a delivery left: %v", err)
		}
		if err := tr.th.May(ActDeliver, worker(tr), ActArgs{Milestone: 1}); CodeOf(err) != CodeMilestoneInvalid {
			t.Fatalf("delivering a reclaimed milestone: %v", err)
		}
		if got := tr.run("fact released m=0"); got[0] != "fact milestone_released -> ok delivered->cancelled TASK_STATE_CANCELED" {
			t.Fatalf("the claim of the last milestone: %s", got)
		}
	})

	t.Run("resolve_timed_out", func(t *testing.T) {
		for _, st := range []State{StateDisputed, StateArbitrated} {
			tr := threadIn(t, st)
			for _, who := range actors {
				if err := tr.th.May(ActResolveTimedOut, tr.parties[who].addr, ActArgs{}); err != nil {
					t.Fatalf("%s: the %s resolving by timeout: %v", st, who, err)
				}
			}
			if got := tr.run("fact timedout id=1 bps=5000"); got[0] != "fact dispute_timed_out -> ok "+string(st)+"->resolved TASK_STATE_COMPLETED" {
				t.Fatalf("%s: %s", st, got)
			}
			if r, ok := tr.th.Ruling(); !ok || r != 5001 || !tr.th.TimedOut() {
				t.Fatalf("%s: ruling %d %v, timed out %v", st, r, ok, tr.th.TimedOut())
			}
			if got := tr.run("fact ruled ruling=5001"); got[0] != "fact ruled -> duplicate resolved->resolved TASK_STATE_COMPLETED" {
				t.Fatalf("%s: a ruling after the timeout: %s", st, got)
			}
		}
		tr := threadIn(t, StateArbitrated)
		tr.run("fact ruled ruling=0")
		if tr.th.TimedOut() {
			t.Fatal("a refusal to rule is no timeout")
		}
		if got := tr.run("fact timedout id=1 bps=5000"); got[0] != "fact dispute_timed_out -> ok disputed->resolved TASK_STATE_COMPLETED" {
			t.Fatalf("the timeout after a refusal to rule: %s", got)
		}
		if got := tr.run("fact timedout id=1 bps=10001"); got[0] != "fact dispute_timed_out -> duplicate resolved->resolved TASK_STATE_COMPLETED" {
			t.Fatalf("the timeout reported again: %s", got)
		}
	})
}
