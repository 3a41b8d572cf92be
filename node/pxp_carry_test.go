package node_test

import (
	"strings"
	"testing"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// TestPXPWorkerEscalationIsCarried: when the worker's node escalates (after
// its own counter-offer, the poster's of 0.2 ETH crosses the worker's must_haves), it
// tells the poster that its side waits for its principal: a
// CapabilityProof with status escalate, the question and the reason,
// which the poster's node takes into its thread. The worker's node is
// paused; nothing was signed.
func TestPXPWorkerEscalationIsCarried(t *testing.T) {
	p := newPXPPair(t)
	if _, err := p.worker.Counter(t.Context(), p.nid, counter06(node.PXPFields{})); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateCountered)
	counter := node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: eth(200), Description: "both chapters"}}, Reason: "the budget shrank"}
	if _, err := p.poster.Counter(t.Context(), p.nid, counter); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster's counter-offer at the worker", func() bool {
		v, _ := p.worker.Thread(p.nid)
		return len(v.Log) == 3
	})
	_, err := p.worker.Accept(t.Context(), p.nid)
	if node.CodeOf(err) != node.Code(negotiation.CodeEscalationRequired) || !strings.Contains(err.Error(), "must_haves[0]") {
		t.Fatalf("the worker accepting 0.2 ETH = %v, want escalation_required naming must_haves[0]", err)
	}
	esc := p.worker.Escalations()
	if len(esc) != 1 {
		t.Fatalf("the worker's escalations: %+v", esc)
	}
	var carried *negotiation.CapabilityProof
	eventually(t, "the escalation carried to the poster", func() bool {
		for _, e := range envelopes(t, p.poster, p.nid) {
			if c, ok := e.Payload.(*negotiation.CapabilityProof); ok && e.Sender.EVMAddress == p.worker.Address() {
				carried = c
				return true
			}
		}
		return false
	})
	if carried.Status != negotiation.StatusEscalate || carried.Escalation == nil || carried.Escalation.Question != esc[0].Question ||
		carried.Escalation.Reason == "" || carried.Capability == "" || carried.Kind == "" || !strings.Contains(carried.Description, esc[0].Question) {
		t.Fatalf("the carried escalation: %+v (escalation %+v)", carried, carried.Escalation)
	}
	v, _ := p.poster.Thread(p.nid)
	if last := v.Log[len(v.Log)-1]; last.Type != negotiation.TypeCapabilityProof || last.Code != "" && last.Code != "ok" {
		t.Fatalf("the poster's thread took the carrier as %+v", last)
	}
	if v.State != negotiation.StateCountered {
		t.Fatalf("the poster's thread is %s after the carrier, want countered", v.State)
	}
}
