package vxp

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
	pure "github.com/parleynet/parley/vxp"
)

// The operations this package runs, one row each (docs/vxp.md, "The
// catalogue of operations"): a static operation runs at once when its
// grant covers it (check decides whether it can, result is what GET shows
// of it); a dynamic one proposes a revision for the negotiation's current
// offer (draft) and runs the accepted revision's act (act).
type opRow struct {
	// check refuses a static operation that cannot run (an unknown
	// negotiation); nil runs it.
	check func(s *Server, r *Request) error
	// result is a succeeded static operation's result, read when shown:
	// reads are static, so the result is what the node holds now.
	result func(s *Server, r *Request) (any, error)
	// draft is a dynamic operation's revision for the thread th as it
	// stands, and the hash of the offer it answers (the request's Basis).
	draft func(s *Server, th node.ThreadView) (pure.Draft, negotiation.Hash, error)
	// counter is a dynamic operation's revision for the agent's counter
	// with the parameters params, answering the offer basis.
	counter func(s *Server, th node.ThreadView, basis negotiation.Hash, params []byte) (pure.Draft, error)
	// act runs the accepted revision rev of r through the node.
	act func(ctx context.Context, s *Server, r *Request, rev *pure.Revision) (node.ActResult, error)
}

// operations is the table of the operations this package runs; an
// operation of vxp's catalogue without a row is not offered here
// (unknown_operation).
var operations = map[string]opRow{
	"board.read": {
		check:  func(*Server, *Request) error { return nil },
		result: func(s *Server, _ *Request) (any, error) { return boardOf(s), nil },
	},
	"negotiation.read": {
		check: func(s *Server, r *Request) error {
			_, err := threadOf(s, r.NegotiationID)
			return err
		},
		result: func(s *Server, r *Request) (any, error) { return threadOf(s, r.NegotiationID) },
	},
	"offer.respond": {
		draft:   acceptDraft,
		counter: counterDraft,
		act:     respond,
	},
}

// boardOf returns the node's board, never null.
func boardOf(s *Server) []node.Announcement {
	b := s.b.Board()
	if b == nil {
		b = []node.Announcement{}
	}
	return b
}

// threadOf returns the node's view of negotiation nid, as the node's API
// returns it; unknown_negotiation when the node holds none.
func threadOf(s *Server, nid string) (node.ThreadView, error) {
	v, err := s.b.Thread(nid)
	if err != nil {
		if node.CodeOf(err) == node.CodeUnknownNegotiation {
			return v, &pure.Error{Code: pure.CodeUnknownNegotiation, Field: "target/negotiation_id", Msg: fmt.Sprintf("%q names no negotiation of this node", nid), Err: err}
		}
		return v, err
	}
	return v, nil
}

// Terms actions of offer.respond's revisions.
const (
	actionAccept  = "accept"
	actionCounter = "counter"
)

// respondTerms are the terms of an offer.respond revision: accept the
// negotiation's current offer (by names who made it), or counter it with
// the milestones and reason. Amounts are wei as decimal strings; token is
// the offer's token (the zero address for ETH).
type respondTerms struct {
	Action        string           `json:"action"`
	NegotiationID string           `json:"negotiation_id"`
	Offer         negotiation.Hash `json:"offer"`
	Milestones    []termsMilestone `json:"milestones"`
	Total         string           `json:"total"`
	Token         string           `json:"token"`
	By            string           `json:"by"`
	Reason        string           `json:"reason,omitempty"`
}

type termsMilestone struct {
	Amount      string `json:"amount"`
	Description string `json:"description"`
}

// acceptDraft is revision 1 of offer.respond (and a revision after the
// negotiation moved): accept the current offer. Signing the settlement is
// a gated act, so the revision says user_approval_required.
func acceptDraft(s *Server, th node.ThreadView) (pure.Draft, negotiation.Hash, error) {
	cur := th.Current
	if cur == nil {
		return pure.Draft{}, negotiation.Hash{}, &pure.Error{Code: pure.CodeNoOffer, Field: "target/negotiation_id", Msg: fmt.Sprintf("negotiation %s has no offer to respond to", th.NegotiationID)}
	}
	t := respondTerms{Action: actionAccept, NegotiationID: th.NegotiationID, Offer: cur.Hash, Token: cur.Terms.Token.String(), By: cur.By.String()}
	total := new(big.Int)
	for _, m := range cur.Terms.Milestones {
		t.Milestones = append(t.Milestones, termsMilestone{Amount: m.Amount.String(), Description: m.Description})
		total.Add(total, m.Amount.Big())
	}
	t.Total = total.String()
	b, err := json.Marshal(t)
	if err != nil {
		return pure.Draft{}, negotiation.Hash{}, err
	}
	sum := fmt.Sprintf("Accept the offer of %s in negotiation %s (%q, revision %d): %s wei in %d milestones; this signs the settlement.",
		cur.By, th.NegotiationID, cur.Terms.Title, cur.Revision, t.Total, len(t.Milestones))
	return pure.Draft{Summary: sum, Terms: b, Commitment: pure.Commitment{Mode: pure.CommitmentFirm}, UserApprovalRequired: true}, cur.Hash, nil
}

// counterParams are the parameters of a counter to an offer.respond
// revision: the milestones the principal's side proposes instead and
// why.
type counterParams struct {
	Milestones []termsMilestone `json:"milestones"`
	Reason     string           `json:"reason"`
}

// MaxMilestones is the most milestones a counter may name.
const MaxMilestones = 32

// parseCounter decodes and checks a counter's parameters: 1 to
// MaxMilestones milestones, each a positive amount of wei in decimal
// without leading zeros and a description.
func parseCounter(b []byte) (counterParams, error) {
	var p counterParams
	if err := strictjson.Unmarshal(b, &p); err != nil {
		return p, badBody(err)
	}
	if len(p.Milestones) == 0 || len(p.Milestones) > MaxMilestones {
		return p, &pure.Error{Code: pure.CodeBadArgument, Field: "milestones", Msg: fmt.Sprintf("1 to %d milestones", MaxMilestones)}
	}
	for i, m := range p.Milestones {
		f := fmt.Sprintf("milestones/%d", i)
		if _, err := weiOf(m.Amount); err != nil {
			return p, &pure.Error{Code: pure.CodeBadArgument, Field: f + "/amount", Msg: err.Error()}
		}
		if strings.TrimSpace(m.Description) == "" {
			return p, &pure.Error{Code: pure.CodeBadArgument, Field: f + "/description", Msg: "empty"}
		}
	}
	return p, nil
}

// weiOf parses a positive amount of wei written in decimal without
// leading zeros or sign, below 2^256.
func weiOf(s string) (*big.Int, error) {
	if s == "" || len(s) > 78 || (len(s) > 1 && s[0] == '0') {
		return nil, fmt.Errorf("%q is not a decimal amount of wei", s)
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return nil, fmt.Errorf("%q is not a decimal amount of wei", s)
		}
	}
	x, _ := new(big.Int).SetString(s, 10)
	if x.Sign() <= 0 || x.BitLen() > 256 {
		return nil, fmt.Errorf("%q is not a positive amount below 2^256", s)
	}
	return x, nil
}

// counterDraft is the agent's counter as a revision: counter the offer
// basis with the parameters' milestones and reason. Sending a counter is
// not gated.
func counterDraft(s *Server, th node.ThreadView, basis negotiation.Hash, params []byte) (pure.Draft, error) {
	p, err := parseCounter(params)
	if err != nil {
		return pure.Draft{}, err
	}
	t := respondTerms{Action: actionCounter, NegotiationID: th.NegotiationID, Offer: basis, Milestones: p.Milestones, Reason: p.Reason, By: s.b.Address().String()}
	if th.Current != nil {
		t.Token = th.Current.Terms.Token.String()
	}
	total := new(big.Int)
	for _, m := range p.Milestones {
		x, _ := weiOf(m.Amount)
		total.Add(total, x)
	}
	t.Total = total.String()
	b, err := json.Marshal(t)
	if err != nil {
		return pure.Draft{}, err
	}
	sum := fmt.Sprintf("Counter the offer in negotiation %s with %s wei in %d milestones", th.NegotiationID, t.Total, len(t.Milestones))
	if p.Reason != "" {
		sum += ": " + p.Reason
	}
	return pure.Draft{Summary: sum + ".", Terms: b, Commitment: pure.Commitment{Mode: pure.CommitmentFirm}}, nil
}

// termsOf decodes an offer.respond revision's terms.
func termsOf(rev *pure.Revision) (respondTerms, error) {
	var t struct {
		respondTerms
		Salt string `json:"vxp_salt"`
	}
	if err := json.Unmarshal(rev.Terms, &t); err != nil {
		return respondTerms{}, fmt.Errorf("vxp: revision %s: %w", rev.ID, err)
	}
	return t.respondTerms, nil
}

// respond runs an accepted offer.respond revision: a counter revision
// sends its TaskCounterOffer (not gated), an accept revision signs and
// sends the TaskAcceptance (gated: the node asks the principal's passkey
// and waits).
func respond(ctx context.Context, s *Server, r *Request, rev *pure.Revision) (node.ActResult, error) {
	t, err := termsOf(rev)
	if err != nil {
		return node.ActResult{}, err
	}
	switch t.Action {
	case actionCounter:
		spec := node.CounterSpec{Reason: t.Reason, Expect: r.Basis} // never a newer offer than the revision's
		for _, m := range t.Milestones {
			x, err := weiOf(m.Amount)
			if err != nil {
				return node.ActResult{}, err
			}
			spec.Milestones = append(spec.Milestones, node.MilestoneSpec{Amount: x, Description: m.Description})
		}
		return s.b.Counter(ctx, r.NegotiationID, spec)
	case actionAccept:
		return s.b.AcceptWith(ctx, r.NegotiationID, node.AcceptSpec{Expect: r.Basis})
	}
	return node.ActResult{}, fmt.Errorf("vxp: revision %s: action %q", rev.ID, t.Action)
}
