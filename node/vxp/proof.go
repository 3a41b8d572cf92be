package vxp

import (
	"encoding/json"
	"net/http"

	"github.com/parleynet/parley/negotiation"
	pure "github.com/parleynet/parley/vxp"
)

// proofPayload is the proof package of one request (docs/vxp.md, "The
// proof"): the revisions with their terms and terms_hash, the acceptance
// and the refused ones, the grant that covered it, the effects (an
// envelope's CIDv1 as Parley writes it, which the negotiation's proof
// bundle holds), the principal's approvals and the request's newest
// ledger entry.
type proofPayload struct {
	Iss                string                   `json:"iss"`
	Request            string                   `json:"request"`
	Proposals          []pure.ProofProposal     `json:"proposals"`
	Acceptance         *pure.ProofAcceptance    `json:"acceptance"`
	RefusedAcceptances []pure.RefusedAcceptance `json:"refused_acceptances"`
	Grant              proofGrant               `json:"grant"`
	Effects            []proofEffect            `json:"effects"`
	Approvals          []proofApproval          `json:"approvals"`
	Ledger             proofLedger              `json:"ledger"`
	IssuedAt           int64                    `json:"iat"`
}

type proofGrant struct {
	ClientID             string        `json:"client_id"`
	AuthorizationDetails []pure.Detail `json:"authorization_details"`
}

type proofEffect struct {
	Kind         string `json:"kind"`
	Type         string `json:"type"`
	CID          string `json:"cid,omitempty"`
	Tx           string `json:"tx,omitempty"`
	Acknowledged bool   `json:"acknowledged"`
}

type proofApproval struct {
	IntentHash string `json:"intent_hash"`
}

type proofLedger struct {
	Seq  uint64           `json:"seq"`
	Head negotiation.Hash `json:"head"`
}

// proofOf returns r's proof payload as JCS bytes.
func (s *Server) proofOf(r *Request) ([]byte, error) {
	p := proofPayload{
		Iss: s.issuer, Request: r.ID,
		Proposals: []pure.ProofProposal{}, RefusedAcceptances: []pure.RefusedAcceptance{},
		Grant:   proofGrant{ClientID: r.ClientID, AuthorizationDetails: []pure.Detail{}},
		Effects: []proofEffect{}, Approvals: []proofApproval{},
		Ledger:   proofLedger{Seq: r.Seq, Head: r.Head},
		IssuedAt: s.cfg.Now().Unix(),
	}
	if pr := r.Proposals; pr != nil {
		p.Proposals = pr.ProofProposals()
		if pr.Accepted != nil {
			a := pr.Accepted.Proof()
			p.Acceptance = &a
		}
		p.RefusedAcceptances = append(p.RefusedAcceptances, pr.Refused...)
	}
	if g, ok := s.store.Grant(r.GrantID); ok {
		p.Grant.AuthorizationDetails = g.Details
	}
	for _, e := range r.Effects {
		p.Effects = append(p.Effects, proofEffect{Kind: e.Kind, Type: e.Type, CID: e.CID, Tx: e.Tx, Acknowledged: e.Acknowledged})
	}
	for _, h := range r.Approvals {
		p.Approvals = append(p.Approvals, proofApproval{IntentHash: h})
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return negotiation.Canonicalize(b)
}

// getProof is GET /v1/requests/{id}/proof: the proof package as a compact
// JWS (typ vxp-proof+jwt, application/jose) signed with the issuer's key
// of jwks_uri.
func (s *Server) getProof(w http.ResponseWriter, r *http.Request, c *Caller) {
	req, err := s.visibleRequest(r, c)
	if err != nil {
		writeError(w, err)
		return
	}
	payload, err := s.proofOf(req)
	if err != nil {
		writeError(w, err)
		return
	}
	jws, err := s.signJWS(TypProof, payload)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/jose")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(jws))
}
