package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNpmClient drives two real nodes' MCP endpoints with a client this
// project did not write: the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in package.json; `make npm`
// installs it), run by testdata/client.mjs under node. It lists the tools
// and plays a negotiation through an escalation, the principal's answer
// and the brief.
func TestNpmClient(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if testing.Short() {
			t.Skip("node is not on PATH")
		}
		t.Fatal("node is not on PATH: this test runs the official TypeScript MCP client (install Node.js, then make npm)")
	}
	if _, err := os.Stat("../../node_modules/@modelcontextprotocol/sdk/package.json"); err != nil {
		t.Fatalf("@modelcontextprotocol/sdk is not installed (%v): run make npm", err)
	}
	alice, bob := livePair(t)
	cmd := exec.CommandContext(t.Context(), "node", "testdata/client.mjs")
	cmd.Env = append(os.Environ(),
		"PARLEY_A_URL="+alice.url, "PARLEY_A_KEY="+alice.key,
		"PARLEY_B_URL="+bob.url, "PARLEY_B_KEY="+bob.key,
		"PARLEY_B_ADDRESS="+bob.Address().String(),
	)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node testdata/client.mjs: %v\n%s", err, stderr.String())
	}
	var out struct {
		Tools             []string            `json:"tools"`
		ReadOnly          []string            `json:"readOnly"`
		Arguments         map[string][]string `json:"arguments"`
		SignInRefusal     string              `json:"signInRefusal"`
		AnonSession       string              `json:"anonSession"`
		SeatRoom          string              `json:"seatRoom"`
		RoomID            string              `json:"roomId"`
		BobReviews        []string            `json:"bobReviews"`
		EscalationRefusal string              `json:"escalationRefusal"`
		StatusPaused      string              `json:"statusPaused"`
		Question          string              `json:"question"`
		AnswerVia         string              `json:"answerVia"`
		StatusA, StatusB  string
		BriefStatus       string `json:"briefStatus"`
		BriefMarkdown     string `json:"briefMarkdown"`
		BriefEscalations  []struct {
			Answer string `json:"answer"`
			Via    string `json:"via"`
		} `json:"briefEscalations"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("client output: %v: %s", err, stdout)
	}
	want := []string{ToolAccept, ToolAnswerEscalation, ToolCounter, ToolCreateRoom, ToolDeliver, ToolGetBrief, ToolGetRoom,
		ToolJoinRoom, ToolListTasks, ToolOpenDispute, ToolPostTask, ToolSealIntentCard, ToolSendEnvelope, ToolWaitForTurn,
		ToolClaimUnanswered, ToolReclaimExpired, ToolResolveTimedOut,
		ToolFund, ToolAcceptDelivery, ToolCancel, ToolAmend, ToolReplace, ToolSubmitEvidence, ToolProposeArbitrator, ToolRule, ToolWithdraw, ToolVeto,
		ToolCapability, ToolRequestRevision, ToolRequestPayment, ToolReleasePart,
		ToolRegisterIdentity, ToolRotateIdentity, ToolRevokeIdentity, ToolLookupIdentity, ToolCheckScope, ToolRaiseArbitrator}
	slices.Sort(want)
	if !slices.Equal(out.Tools, want) {
		t.Errorf("tools %v, want %v", out.Tools, want)
	}
	if ro := []string{ToolCheckScope, ToolGetBrief, ToolGetRoom, ToolListTasks, ToolLookupIdentity, ToolWaitForTurn}; !slices.Equal(out.ReadOnly, ro) {
		t.Errorf("read-only tools %v, want %v", out.ReadOnly, ro)
	}
	if got := out.Arguments[ToolSendEnvelope]; !slices.Equal(got, []string{"claims", "escalation", "link", "message", "proposal", "reviews", "status"}) {
		t.Errorf("send_envelope's arguments %v", got)
	}
	if out.SignInRefusal != SignInRequired {
		t.Errorf("sign-in refusal %q, want the fixed sentence", out.SignInRefusal)
	}
	if !strings.HasPrefix(out.AnonSession, "401 ") || !strings.Contains(out.AnonSession, "Sign-in required: an MCP session opens only") {
		t.Errorf("a session without credentials: %q, want it refused (401)", out.AnonSession)
	}
	if out.SeatRoom != out.RoomID {
		t.Errorf("the seat-only session saw room %q, want %q", out.SeatRoom, out.RoomID)
	}
	if !slices.Equal(out.BobReviews, []string{"p1"}) {
		t.Errorf("claims bob had to review: %v", out.BobReviews)
	}
	if !strings.HasPrefix(out.EscalationRefusal, "escalation_required:") || out.StatusPaused != "paused" || !strings.Contains(out.Question, "must_never[0]") {
		t.Errorf("the escalation: refusal %q, status %q, question %q", out.EscalationRefusal, out.StatusPaused, out.Question)
	}
	if out.AnswerVia != "mcp" || out.StatusA != "agreed" || out.StatusB != "agreed" || out.BriefStatus != "agreed" {
		t.Errorf("answer via %q, statuses %q %q %q", out.AnswerVia, out.StatusA, out.StatusB, out.BriefStatus)
	}
	if !strings.Contains(out.BriefMarkdown, "Yes, up to 0.6 ETH for this task.") || len(out.BriefEscalations) == 0 || out.BriefEscalations[0].Via != "mcp" {
		t.Errorf("the brief: %+v\n%s", out.BriefEscalations, out.BriefMarkdown)
	}
	// The nodes agree with what the client saw.
	for _, n := range []*liveNode{alice, bob} {
		v, err := n.Room(t.Context(), out.RoomID)
		if err != nil || v.State != "agreed" {
			t.Errorf("%s: room %s: %v %v", n.Config().Name, out.RoomID, v.State, err)
		}
	}
}
