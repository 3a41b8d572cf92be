package main

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// TestCardEscalationsBrief drives the PXP commands: card seal (a file and
// standard input's refusal of an empty card) and show, an escalation the
// poster's acceptance raises listed by escalations list, the answer given
// with escalations answer, and the brief in Markdown and JSON.
func TestCardEscalationsBrief(t *testing.T) {
	poster := startAPINode(t, "poster", node.AutoApprove("test"))
	worker := startAPINode(t, "worker", node.AutoApprove("test"), poster)
	P := poster.conn()
	dir := t.TempDir()
	card := filepath.Join(dir, "poster.json")
	if err := os.WriteFile(card, []byte(`{"pxp":"0","principal":{"name":"Dana"},"goal":"Get the guide translated.",
 "must_never":[{"text":"pay more than 0.55 ETH in total","rule":"total > eth(\"0.55\")"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, with(P, "card", "show")...); r.e == nil || !strings.Contains(r.e.Error(), "no_card") {
		t.Fatalf("card show before any card: %v", r.e)
	}
	if r := cli(t, with(P, "card", "seal", card, "--via", "fax")...); r.e == nil || !strings.Contains(r.e.Error(), "--via") {
		t.Fatalf("card seal --via fax: %v", r.e)
	}
	// The CLI talks to the API, whose key is not the principal: it never
	// says the card or an answer is the principal's own word.
	if r := cli(t, with(P, "card", "seal", card, "--via", "web")...); exitCode(r.e) != exitUsage || !strings.Contains(r.e.Error(), "node's pages") {
		t.Fatalf("card seal --via web: %v", r.e)
	}
	if r := cli(t, with(P, "card", "seal", "-")...); r.e == nil || !strings.Contains(r.e.Error(), "empty") {
		t.Fatalf("card seal of an empty standard input: %v", r.e)
	}
	out := ok(t, with(P, "card", "seal", card)...)
	if !strings.Contains(out, "sealed the default card for Dana: 0x") {
		t.Fatalf("card seal:\n%s", out)
	}
	c, err := poster.DefaultCard()
	if err != nil || !strings.Contains(ok(t, with(P, "card", "show")...), c.Hash.String()) {
		t.Fatalf("card show: %v", err)
	}

	res, err := poster.ProposeTask(t.Context(), worker.Address(), node.TaskSpec{Title: "Translate the guide",
		Milestones: []node.MilestoneSpec{{Amount: new(big.Int).Mul(big.NewInt(500), big.NewInt(1e15)), Description: "all"}}, Deadline: time.Now().Add(72 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	eventually(t, "the proposal at the worker", func() bool { _, err := worker.Thread(nid); return err == nil })
	if _, err := worker.Counter(t.Context(), nid, node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: new(big.Int).Mul(big.NewInt(600), big.NewInt(1e15)), Description: "all"}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the counter at the poster", func() bool {
		v, _ := poster.Thread(nid)
		return v.State == negotiation.StateCountered
	})
	if r := cli(t, with(P, "offer", "accept", nid)...); r.e == nil || !strings.Contains(r.e.Error(), "escalation_required") {
		t.Fatalf("offer accept of 0.6 ETH: %v\n%s", r.e, r.out)
	}
	out = ok(t, with(P, "escalations", "list")...)
	if !strings.Contains(out, nid) || !strings.Contains(out, "Translate the guide") || !strings.Contains(out, "must_never:must_never[0]") || !strings.Contains(out, "pay more than 0.55 ETH in total") {
		t.Fatalf("escalations list:\n%s", out)
	}
	if r := cli(t, with(P, "escalations", "answer", nid, "Yes.", "--via", "web")...); exitCode(r.e) != exitUsage {
		t.Fatalf("escalations answer --via web: %v", r.e)
	}
	if r := cli(t, with(P, "escalations", "answer", nid, "  ")...); r.e == nil {
		t.Fatal("an empty answer was taken")
	}
	out = ok(t, with(P, "escalations", "answer", nid, "Yes, up to 0.6 ETH for this task.")...)
	if !strings.Contains(out, "sealed as amendments[0]") || !strings.Contains(out, "confirmed with your passkey; the negotiation resumes") {
		t.Fatalf("escalations answer:\n%s", out)
	}
	if out = ok(t, with(P, "escalations", "list")...); !strings.Contains(out, "no negotiation waits") {
		t.Fatalf("escalations list after the answer:\n%s", out)
	}
	ok(t, with(P, "offer", "accept", nid)...)
	eventually(t, "the acceptance at the worker", func() bool {
		v, _ := worker.Thread(nid)
		return len(v.Log) == 3
	})
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the agreement at the poster", func() bool {
		v, _ := poster.Thread(nid)
		return v.State == negotiation.StateAgreed
	})
	out = ok(t, with(P, "brief", nid)...)
	if !strings.Contains(out, "Yes, up to 0.6 ETH for this task.") || !strings.Contains(out, "amendments[0]") {
		t.Fatalf("brief:\n%s", out)
	}
	var b negotiation.Brief
	if err := json.Unmarshal([]byte(ok(t, with(P, "brief", nid, "--json")...)), &b); err != nil || b.NegotiationID != nid || len(b.Escalations) != 1 {
		t.Fatalf("brief --json: %+v %v", b, err)
	}
	if out = ok(t, with(P, "card", "show", "--negotiation", nid)...); !strings.Contains(out, "Yes, up to 0.6 ETH for this task.") {
		t.Fatalf("card show --negotiation after the answer:\n%s", out)
	}
}
