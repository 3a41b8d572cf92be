package node_test

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parleynet/parley/internal/transcript"

	"github.com/parleynet/parley/internal/codecensus"

	"github.com/parleynet/parley/node"
)

// transcriptAct is a transcript command that performs an act of the
// node's API: the gated act it asks approval for ("" when it is not
// gated) and the methods of node.Node it calls.
type transcriptAct struct {
	gated   node.Act
	methods []string
}

// transcriptActs is the one list of acts the transcripts must cover, by
// command. The coverage test holds it to what node exports: every gated
// act (node.GatedActs) and every method of node.Node that returns an
// ActResult is some command's. When negotiation has a table of every
// local act, this list comes from it.
func transcriptActs() map[string]transcriptAct {
	return map[string]transcriptAct{
		"post":               {"", []string{"PostTask"}},
		"announce":           {"", []string{"Announce"}},
		"propose":            {"", []string{"ProposeTask"}},
		"counter":            {"", []string{"Counter", "CounterAnnouncement"}},
		"accept":             {node.ActSignSettlement, []string{"Accept", "AcceptWith", "AcceptAnnouncement", "AcceptAnnouncementWith"}},
		"fund":               {node.ActFundEscrow, []string{"Fund"}},
		"deliver":            {"", []string{"Deliver"}},
		"release":            {node.ActReleaseMilestone, []string{"AcceptDelivery", "AcceptDeliveryWith"}},
		"dispute":            {node.ActOpenDispute, []string{"OpenDispute"}},
		"evidence":           {"", []string{"SubmitEvidence"}},
		"propose-arbitrator": {node.ActProposeArbitrator, []string{"ProposeArbitrator", "ProposeArbitratorWith"}},
		"rule":               {node.ActRule, []string{"Rule"}},
		"veto":               {node.ActVeto, []string{"Veto"}},
		"cancel":             {node.ActSignCancel, []string{"Cancel"}},
		"amend":              {node.ActSignAmendment, []string{"Amend"}},
		"replace":            {node.ActSignReplacement, []string{"Replace"}},
		"withdraw":           {"", []string{"Withdraw"}},
		"claim":              {node.ActClaimUnanswered, []string{"ClaimUnanswered"}},
		"reclaim":            {node.ActReclaimExpired, []string{"ReclaimExpired"}},
		"resolve-timeout":    {node.ActResolveTimedOut, []string{"ResolveTimedOut"}},
		"capability":         {"", []string{"Capability"}},
		"revise":             {node.ActRequestRevision, []string{"RequestRevision"}},
		"request-payment":    {"", []string{"RequestPayment"}},
		"release-part":       {node.ActReleasePart, []string{"ReleasePart"}},
		"consent":            {"", []string{"ConsentBook"}},
		// The chain's registries and a contract arbitrator (issue 14).
		"identity-register": {node.ActRegisterIdentity, []string{"RegisterIdentity"}},
		"identity-rotate":   {node.ActRotateIdentity, []string{"RotateIdentity"}},
		"identity-revoke":   {node.ActRevokeIdentity, []string{"RevokeIdentity"}},
		"post-scope":        {node.ActPublishScope, []string{"PostTask"}},
		"raise":             {node.ActRaiseArbitrator, []string{"RaiseWithArbitrator"}},
	}
}

// notActRefusals are the node's codes no act refuses with: they refuse a
// configuration or a lifecycle call.
var notActRefusals = map[node.Code]string{
	node.CodeBadConfig:    "a Config field or an option, refused by New and Start",
	node.CodeStarted:      "a second Start",
	node.CodeStoreRefused: "a Start on a store that holds less than its record, or a reset of a store that was not refused",
	// Anchoring the ledger's tree head is not an act of a negotiation
	// (anchor_test.go produces both).
	node.CodeAnchorBudget:    "an anchor over ledger.anchor_gas_per_day (TestAnchorBudget)",
	node.CodeAnchorUnchanged: "an anchor with nothing new since the last (TestAnchorLedger)",
}

// unreachableRefusals are the act refusals no transcript can produce
// through the node's public API, and why. The coverage test fails when
// one of them appears in a transcript after all (then it is reachable:
// take it off this list).
var unreachableRefusals = map[node.Code]string{
	node.CodeAlreadyConsumed: "an approval presented twice: the gate consumes each approval once, inside the act",
	node.CodeApprovalPending: "a passkey registration waiting for an existing passkey: not an act of a negotiation",
	node.CodeProofMismatch:   "the chain's proof CID differs from the delivery's: the worker's node submits the CID it delivers",
	node.CodeDeliveryMissing: "a release before the delivered file is fetched: the poster fetches it on receipt, before a transcript can act",
	node.CodeStoreFailed:     "the ledger refuses a write: the ledger works",
	node.CodeBadBundle:       "a hand-over package or proof bundle that fails to verify: the node builds them",
	node.CodeMissingLink:     "a bundle lacking a signer's identity link: the node's bundles carry every link",
	// A bundle's verifier's codes (bundle.go): no act refuses with them.
	node.CodeForgedHead:           "a bundle whose tree head its signer did not sign: the node signs its own",
	node.CodeAnchorForeign:        "a bundle whose anchor another address sent: read on chain by a verifier",
	node.CodeAnchorMissing:        "a bundle whose anchor is not on chain: read on chain by a verifier",
	node.CodeRewrittenAfterAnchor: "a bundle not consistent with its signer's anchor: read on chain by a verifier",
	node.CodeLedgerDamaged:        "an act resting on a damaged ledger entry: needs a data directory damaged on disk",
	node.CodeNoCard:               "sealing or answering without an intent card: PXP acts are not transcript commands yet",
	node.CodeViaWebRefused:        "an API caller claiming the principal's web page: PXP acts are not transcript commands yet",
	node.CodeForeignDomain:        "an offer for another chain or registry: the transcripts' nodes share one chain (domain_test.go refuses one)",
	node.CodeScopeMismatch:        "an announcement's scope published on chain by another address or with another hash: no node does that (TestPublicTaskScopeOnChain sends that transaction itself)",
}

// nodeCodes returns the codes node declares (constants of type Code in
// its non-test files, codecensus), sorted.
func nodeCodes(t *testing.T) []node.Code {
	t.Helper()
	var out []node.Code
	for _, c := range codecensus.Declared(t, ".", "Code").Codes {
		out = append(out, node.Code(c.Value))
	}
	slices.Sort(out)
	return out
}

// TestTranscriptsCoverActs checks that the node transcripts perform every
// act of transcriptActs successfully at least once, that every gated act
// is performed by one of them, and that every refusal code an act can
// give appears in a transcript, so the transcripts stay a complete
// account of what a node does.
func TestTranscriptsCoverActs(t *testing.T) {
	files, _ := filepath.Glob("testdata/transcripts/*.txt")
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	var blocks []transcript.Block
	for _, f := range files {
		blocks = append(blocks, transcript.Parse(t, f)...)
	}
	acts := transcriptActs()
	done := map[string]bool{}
	refused := map[string]bool{}
	for _, b := range blocks {
		if b.Cmd == "" {
			continue
		}
		cmd, _, _ := strings.Cut(b.Cmd, " ")
		if _, ok := acts[cmd]; !ok || len(b.Want) == 0 {
			continue
		}
		switch out := b.Want[0]; {
		case out == "ok" || strings.HasPrefix(out, "ok "):
			done[cmd] = true
		case strings.HasPrefix(out, "refused "):
			refused[strings.TrimPrefix(out, "refused ")] = true
		}
	}
	gated := map[node.Act]bool{}
	methods := map[string]bool{}
	for cmd, act := range acts {
		if !done[cmd] {
			t.Errorf("no transcript performs %s", cmd)
		}
		gated[act.gated] = true
		for _, m := range act.methods {
			methods[m] = true
		}
	}
	for _, a := range node.GatedActs {
		if !gated[a] {
			t.Errorf("no transcript command performs the gated act %s", a)
		}
	}
	result := reflect.TypeFor[node.ActResult]()
	nt := reflect.TypeFor[*node.Node]()
	for i := range nt.NumMethod() {
		m := nt.Method(i)
		if strings.HasSuffix(m.Name, "ForTest") {
			continue
		}
		if m.Type.NumOut() == 2 && m.Type.Out(0) == result && !methods[m.Name] {
			t.Errorf("the act node.Node.%s is no transcript command's", m.Name)
		}
	}
	for m := range methods {
		if _, ok := nt.MethodByName(m); !ok {
			t.Errorf("node.Node has no method %s", m)
		}
	}
	codes := nodeCodes(t)
	if len(codes) < 10 {
		t.Fatalf("found only %d codes in node's sources: %v", len(codes), codes)
	}
	for _, c := range codes {
		if _, ok := notActRefusals[c]; ok {
			continue
		}
		_, unreachable := unreachableRefusals[c]
		switch {
		case unreachable && refused[string(c)]:
			t.Errorf("a transcript produces %s, listed as unreachable", c)
		case !unreachable && !refused[string(c)]:
			t.Errorf("no transcript produces the refusal %s", c)
		}
	}
	for _, m := range []map[node.Code]string{notActRefusals, unreachableRefusals} {
		for c := range m {
			if !slices.Contains(codes, c) {
				t.Errorf("%s is not a code of node", c)
			}
		}
	}
}
