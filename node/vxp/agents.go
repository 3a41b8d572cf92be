package vxp

import (
	"context"
	"slices"
	"strings"

	"github.com/parleynet/parley/node"
	pure "github.com/parleynet/parley/vxp"
)

var _ node.AgentBook = (*Server)(nil)

// Agents returns every agent that holds or held a grant, or made a
// request, by client_id, with its grants in plain words and its
// requests (node.AgentBook).
func (s *Server) Agents() []node.AgentView {
	if s.store == nil {
		return nil
	}
	now := s.cfg.Now()
	by := map[string]*node.AgentView{}
	get := func(id, name string) *node.AgentView {
		a, ok := by[id]
		if !ok {
			a = &node.AgentView{ClientID: id, Grants: []node.AgentGrantView{}, Requests: []node.AgentRequestView{}}
			by[id] = a
		}
		if a.ClientName == "" {
			a.ClientName = name
		}
		return a
	}
	for _, g := range s.store.Grants("") {
		a := get(g.ClientID, g.ClientName)
		jcs, _ := pure.Canonical(g.Details)
		v := node.AgentGrantView{
			ID: g.ID, Lines: GrantLines(g.Details), Details: string(jcs), RelationshipID: g.RelationshipID,
			GrantedAt: g.GrantedAt, ExpiresAt: g.ExpiresAt, Active: g.Active(now), IntentHash: g.IntentHash,
		}
		if g.Revoked != nil {
			v.RevokedAt = *g.Revoked
		}
		a.Grants = append(a.Grants, v)
	}
	for _, r := range s.store.Requests("") {
		a := get(r.ClientID, "")
		a.Requests = append(a.Requests, node.AgentRequestView{
			ID: r.ID, Operation: r.Operation, NegotiationID: r.NegotiationID, State: string(r.State),
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		})
	}
	out := make([]node.AgentView, 0, len(by))
	for _, a := range by {
		out = append(out, *a)
	}
	slices.SortFunc(out, func(a, b node.AgentView) int { return strings.Compare(a.ClientID, b.ClientID) })
	return out
}

// GrantLines returns authorization details in plain words, one line per
// operation: "offer.respond on negotiation <id>", or the operation alone
// when it takes no target.
func GrantLines(ds []pure.Detail) []string {
	out := []string{}
	for _, d := range ds {
		for _, a := range d.Actions {
			if d.Identifier != "" {
				out = append(out, a+" on negotiation "+d.Identifier)
			} else {
				out = append(out, a)
			}
		}
	}
	return out
}

// RevokeAgent revokes every grant of clientID still in force and returns
// how many it revoked (node.AgentBook).
func (s *Server) RevokeAgent(ctx context.Context, clientID, by string) (int, error) {
	if s.store == nil {
		return 0, &pure.Error{Code: pure.CodeUnavailable, Msg: "VXP is not started"}
	}
	n := 0
	for _, g := range s.store.Grants(clientID) {
		ok, err := s.store.RevokeGrant(ctx, g.ID, by, s.cfg.Now())
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// RevokeGrant revokes grant grantID; false when it was not in force
// (node.AgentBook).
func (s *Server) RevokeGrant(ctx context.Context, grantID, by string) (bool, error) {
	if s.store == nil {
		return false, &pure.Error{Code: pure.CodeUnavailable, Msg: "VXP is not started"}
	}
	return s.store.RevokeGrant(ctx, grantID, by, s.cfg.Now())
}
