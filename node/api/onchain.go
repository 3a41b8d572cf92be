package api

import (
	"context"
	"net/http"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// registerOnchain puts the routes of the chain's registries and of
// contract arbitrators (types.go) on the mux (register calls it).
func (s *Server) registerOnchain(get func(string, http.HandlerFunc), post func(string, actFunc)) {
	post(RouteIdentityRegister, s.identityAct(s.n.RegisterIdentity))
	post(RouteIdentityRotate, s.identityAct(s.n.RotateIdentity))
	post(RouteIdentityRevoke, s.identityAct(s.n.RevokeIdentity))
	get(RouteIdentityLookup, s.identityLookup)
	get(RouteTaskScope, s.taskScope)
	post(RouteRaise, s.raise)
	get(RouteCourtDocuments, s.courtDocuments)
}

// identityAct runs one of the acts on this node's own record.
func (s *Server) identityAct(f func(context.Context) (node.ActResult, error)) actFunc {
	return func(r *http.Request, body []byte) answer {
		if e := decode(body, &Empty{}); e != nil {
			return errAnswer(e)
		}
		return act(http.StatusOK, func() (any, error) { return f(r.Context()) })
	}
}

func (s *Server) identityLookup(w http.ResponseWriter, r *http.Request) {
	a, e := addressParam(r)
	if e != nil {
		writeError(w, e)
		return
	}
	c, err := s.n.LookupLink(r.Context(), a)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

func (s *Server) taskScope(w http.ResponseWriter, r *http.Request) {
	h, e := hashParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	c, err := s.n.CheckScope(r.Context(), h)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

func (s *Server) raise(r *http.Request, body []byte) answer {
	return withNID(nil, func(r *http.Request, nid string, _ Empty) (node.ActResult, error) {
		return s.n.RaiseWithArbitrator(r.Context(), nid)
	})(r, body)
}

func (s *Server) courtDocuments(w http.ResponseWriter, r *http.Request) {
	nid, e := nidParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	d, err := s.n.CourtDocuments(r.Context(), nid)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// RegisterIdentity publishes the node's identity link in IdentityLink
// (gated: register_identity).
func (c *Client) RegisterIdentity(ctx context.Context) (node.ActResult, error) {
	var r node.ActResult
	return r, c.call(ctx, RouteIdentityRegister, nil, nil, Empty{}, &r)
}

// RotateIdentity replaces the node's record with its current link
// (gated: rotate_identity).
func (c *Client) RotateIdentity(ctx context.Context) (node.ActResult, error) {
	var r node.ActResult
	return r, c.call(ctx, RouteIdentityRotate, nil, nil, Empty{}, &r)
}

// RevokeIdentity withdraws the node's record (gated: revoke_identity).
func (c *Client) RevokeIdentity(ctx context.Context) (node.ActResult, error) {
	var r node.ActResult
	return r, c.call(ctx, RouteIdentityRevoke, nil, nil, Empty{}, &r)
}

// LookupIdentity looks up a's IdentityLink record and compares it with
// the link the node holds for a.
func (c *Client) LookupIdentity(ctx context.Context, a negotiation.Address) (node.LinkCheck, error) {
	var l node.LinkCheck
	return l, c.call(ctx, RouteIdentityLookup, []string{a.String()}, nil, nil, &l)
}

// TaskScope checks announcement h's scope on chain (nil: its terms name
// none).
func (c *Client) TaskScope(ctx context.Context, h negotiation.Hash) (*node.ScopeCheck, error) {
	var sc *node.ScopeCheck
	return sc, c.call(ctx, RouteTaskScope, []string{h.String()}, nil, nil, &sc)
}

// Raise raises negotiation id's dispute with its arbitrator contract
// (gated: raise_with_arbitrator).
func (c *Client) Raise(ctx context.Context, id string) (node.ActResult, error) {
	return c.act(ctx, RouteRaise, id, nil)
}

// CourtDocuments returns negotiation id's ERC-1497 documents.
func (c *Client) CourtDocuments(ctx context.Context, id string) (node.CourtDocuments, error) {
	var d node.CourtDocuments
	return d, c.call(ctx, RouteCourtDocuments, []string{id}, nil, nil, &d)
}
