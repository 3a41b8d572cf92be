package vxp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/parleynet/parley/negotiation"
	pure "github.com/parleynet/parley/vxp"
)

// checkProof fetches request id's proof, verifies it with the issuer's
// key, checks its members against the request done, and checks that the
// negotiation's proof bundle holds the effect's CID and nothing of the
// agent (client id, grant, agent name).
func checkProof(t *testing.T, w *world, id, nid string, done *Request) {
	t.Helper()
	a := w.call("GET", "/requests/"+id+"/proof", agentA, "", nil)
	if a.status != 200 || a.header.Get("Content-Type") != "application/jose" {
		t.Fatalf("proof: %d %s", a.status, a.raw)
	}
	jws, err := jose.ParseSignedCompact(string(a.raw), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	if typ, _ := jws.Signatures[0].Protected.ExtraHeaders["typ"].(string); typ != TypProof {
		t.Fatalf("typ %q", typ)
	}
	payload, err := jws.Verify(proofKey(t, w))
	if err != nil {
		t.Fatalf("the proof does not verify: %v", err)
	}
	var p struct {
		Iss       string `json:"iss"`
		Request   string `json:"request"`
		Proposals []struct {
			ID        string          `json:"id"`
			Revision  int             `json:"revision"`
			Terms     json.RawMessage `json:"terms"`
			TermsHash string          `json:"terms_hash"`
		} `json:"proposals"`
		Acceptance struct {
			ProposalID      string `json:"proposal_id"`
			Revision        int    `json:"revision"`
			ApprovedBy      string `json:"approved_by"`
			ApprovedByClass string `json:"approved_by_class"`
		} `json:"acceptance"`
		Refused []struct {
			ProposalID string `json:"proposal_id"`
			Code       string `json:"code"`
		} `json:"refused_acceptances"`
		Grant struct {
			ClientID string        `json:"client_id"`
			Details  []pure.Detail `json:"authorization_details"`
		} `json:"grant"`
		Effects []struct {
			Kind, Type, CID string
			Acknowledged    bool
		} `json:"effects"`
		Approvals []struct {
			IntentHash string `json:"intent_hash"`
		} `json:"approvals"`
		Ledger struct {
			Seq  uint64 `json:"seq"`
			Head string `json:"head"`
		} `json:"ledger"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	if p.Iss != w.srv.Issuer() || p.Request != id || len(p.Proposals) != len(done.Proposals.Revisions) {
		t.Fatalf("proof: %s", payload)
	}
	for i, pp := range p.Proposals {
		jcs, err := negotiation.Canonicalize(pp.Terms)
		if err != nil || pure.TermsHash(jcs) != pp.TermsHash || pp.TermsHash != done.Proposals.Revisions[i].TermsHash {
			t.Fatalf("proposal %d: terms_hash %s does not hash its terms", i, pp.TermsHash)
		}
	}
	if p.Acceptance.ProposalID != done.Proposals.Accepted.ProposalID || p.Acceptance.ApprovedByClass != "agent_asserted" || p.Acceptance.ApprovedBy != "user" {
		t.Fatalf("acceptance: %s", payload)
	}
	if len(p.Refused) != len(done.Proposals.Refused) || p.Grant.ClientID != agentA || len(p.Grant.Details) == 0 || !pure.Covers(p.Grant.Details, "offer.respond", nid) {
		t.Fatalf("refused or grant: %s", payload)
	}
	if len(p.Effects) != 1 || p.Effects[0].CID != done.Effects[0].CID || !p.Effects[0].Acknowledged || p.Effects[0].Kind != "envelope" {
		t.Fatalf("effects: %s", payload)
	}
	if len(p.Approvals) != len(done.Approvals) || (len(done.Approvals) > 0 && p.Approvals[0].IntentHash != done.Approvals[0]) {
		t.Fatalf("approvals: %s", payload)
	}
	cur, _ := w.srv.Store().Request(id)
	if p.Ledger.Seq != cur.Seq || p.Ledger.Head != cur.Head.String() {
		t.Fatalf("ledger %+v, the request's newest entry is %d %s", p.Ledger, cur.Seq, cur.Head)
	}

	// The negotiation's proof bundle holds the effect and nothing of the
	// agent.
	var bundle bytes.Buffer
	if _, err := w.worker.Export(t.Context(), nid, &bundle); err != nil {
		t.Fatal(err)
	}
	bs := bundle.String()
	if !strings.Contains(bs, done.Effects[0].CID) {
		t.Fatal("the effect's CID is not in the negotiation's bundle")
	}
	g, _ := w.srv.Store().Grant(done.GrantID)
	for _, s := range []string{agentA, "agent-a.example", g.ID, g.ClientName, id, done.OperationID, "vxp.grant", "vxp.request"} {
		if s != "" && strings.Contains(bs, s) {
			t.Fatalf("the negotiation's bundle holds %q", s)
		}
	}
}
