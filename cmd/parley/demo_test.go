package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestDemo runs `parley demo` as `make demo` does: a devnet of separate
// processes (this test binary run as parley) and the whole story over the
// nodes' APIs, every gated act approved through the API.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a devnet of four processes")
	}
	t.Setenv("PARLEY_TEST_AS_MAIN", "1") // the devnet and its nodes are this binary, run as parley
	var out syncBuffer
	err := runChainCmd(t, t.Context(), "", &out, "demo", "--dir", t.TempDir(), "--insecure-light-keys")
	got := out.String()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, got)
	}
	for _, want := range []string{
		"poster posts a task on the board", "worker discovers it on the board",
		"poster fetched it over /parley/blob/1", "-> completed (TASK_STATE_COMPLETED)",
		"worker withdraws 0.6000 ETH", "arbitrator joins from a proof bundle",
		"arbitrator refuses to rule (ruling 0)", "the contract unassigns it: disputed again",
		"arbitrator assigned again", "arbitrator reads it on the evidence topic", "-> resolved (TASK_STATE_COMPLETED)",
		"worker withdraws 0.2800 ETH", "poster withdraws 0.1200 ETH",
		"proof bundle exported and verified offline", "demo passed",
		"the bundle it joined from: parley-proof-bundle/2", "$ parley bundle verify ", " --rpc http://",
		"ok tree head: size ", "anchored head: size ", "ok anchor on chain: ", "ok consistency from the anchored head: ",
		"poster's principal Dana Whitfield seals an intent card", "worker's principal Sam Ortega seals an intent card",
		"poster's node escalates instead of signing", "must_never:must_never[0]",
		"question to the poster's principal: May I go on although the terms cross must_never[0] (\"pay more than 0.55 ETH in total\")?",
		"the negotiation is paused: a counter-offer is refused", `the principal answers through the API: "Yes, up to 0.6 ETH for this task."`,
		"the principal confirms the answer with a passkey", "poster's passkey: confirm_card approved", "poster's passkey: confirm_answer approved",
		"answer sealed as amendments[0]", "Decision brief of task 1, poster's side:", "Decision brief of task 1, worker's side:",
		"worker asks for 0.1000 ETH of milestone 1 (2 hours)", "poster releases part of milestone 1 (releasePart)",
		"milestone 1: 0.1000 ETH released of 0.2500, the rest on acceptance",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
	// Task 3: an outside agent through VXP, when Node.js and the npm
	// packages are there (make demo installs them).
	approvals := 19
	if _, _, err := findAgentScript("."); err != nil {
		if !strings.Contains(got, "Task 3 (an outside agent through VXP) skipped: ") {
			t.Errorf("the demo neither ran nor skipped task 3:\n%s", got)
		}
		t.Logf("task 3 skipped: %v", err)
	} else {
		approvals += 3 // the grant, the worker's and the poster's settlement
		for _, want := range []string{
			"Task 3: an outside AI agent answers an offer through VXP", "agent (Node.js: oauth4webapi, jose) discovers VXP",
			"agent asks to respond to the offer: 202", "worker's passkey: vxp_grant approved (software key",
			"same Idempotency-Key re-evaluated: revision 1", "agent counters: revision 2, a tenth more",
			"agent accepts revision 1 after its counter           409 terms_changed", "succeeded once the poster acknowledged it            TaskCounterOffer",
			"agent verifies the proof with the issuer's keys", "signing the settlement waits for the principal       waiting_human",
			"succeeded once the poster acknowledged it            TaskAcceptance", "agent revokes its relationship: token refused        401 invalid_token",
			"the poster holds the worker's counter-offer of 0.3300 ETH and its signature", "poster signs the same digest",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("the demo's output lacks %q", want)
			}
		}
	}
	// Every gated act, and every card and answer that came through the
	// API (two cards, one answer), was approved through a node's API with
	// its software key's WebAuthn assertion (the refusal to rule, the
	// parties' second proposals and the partial release are four of them).
	if n := len(regexp.MustCompile(`(?m)^    \w+'s passkey: \w+ approved \(software key, intent [0-9a-f]{16}…\)$`).FindAllString(got, -1)); n != approvals {
		t.Errorf("%d approvals given, want %d:\n%s", n, approvals, got)
	}
	if n := strings.Count(got, "ledger verified"); n != 3 {
		t.Errorf("%d ledgers verified, want 3", n)
	}
}
