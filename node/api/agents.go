package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/parleynet/parley/node"
)

// revokedVia is who revoked a grant through the API, for the ledger.
const revokedVia = "api"

// AgentRevokeRequest names what to revoke: every grant of the agent
// ClientID, or the one grant GrantID; exactly one of them.
type AgentRevokeRequest struct {
	ClientID string `json:"clientId,omitempty"`
	GrantID  string `json:"grantId,omitempty"`
}

// AgentRevocation is the answer to a revocation: what it named and how
// many grants it revoked (0 when none was in force: revoking again is
// not an error).
type AgentRevocation struct {
	ClientID string `json:"clientId,omitempty"`
	GrantID  string `json:"grantId,omitempty"`
	Revoked  int    `json:"revoked"`
}

// registerAgents puts the routes of VXP's outside agents on the mux
// (register calls it).
func (s *Server) registerAgents(get func(string, http.HandlerFunc), post func(string, actFunc)) {
	get(RouteAgents, s.agents)
	post(RouteAgentRevoke, s.revokeAgent)
}

// vxpOff is the answer of an agents route on a node that serves no VXP.
func vxpOff() *httpError {
	return &httpError{Status: http.StatusNotFound, Code: CodeVXPOff, Message: "this node serves no VXP (vxp.enabled is false): it has no agents"}
}

func (s *Server) agents(w http.ResponseWriter, r *http.Request) {
	if s.o.Agents == nil {
		s.fail(w, r, vxpOff())
		return
	}
	out := s.o.Agents.Agents()
	if out == nil {
		out = []node.AgentView{}
	}
	writeJSON(w, http.StatusOK, out)
}

// revokeAgent revokes an agent's grants or one grant. It is not gated:
// revoking only takes authority away from an agent, and the bearer key
// may do it as it may deny any pending approval.
func (s *Server) revokeAgent(r *http.Request, body []byte) answer {
	var req AgentRevokeRequest
	if e := decode(body, &req); e != nil {
		return errAnswer(e)
	}
	if s.o.Agents == nil {
		return errAnswer(vxpOff())
	}
	req.ClientID, req.GrantID = strings.TrimSpace(req.ClientID), strings.TrimSpace(req.GrantID)
	if (req.ClientID == "") == (req.GrantID == "") {
		return errAnswer(refusal(node.CodeBadArgument, "body: name either clientId (every grant of the agent) or grantId (one grant)"))
	}
	return act(http.StatusOK, func() (any, error) {
		out := AgentRevocation{ClientID: req.ClientID, GrantID: req.GrantID}
		if req.ClientID != "" {
			n, err := s.o.Agents.RevokeAgent(r.Context(), req.ClientID, revokedVia)
			out.Revoked = n
			return out, err
		}
		ok, err := s.o.Agents.RevokeGrant(r.Context(), req.GrantID, revokedVia)
		if ok {
			out.Revoked = 1
		}
		return out, err
	})
}

// Agents returns VXP's outside agents with their grants and requests
// (RouteAgents; 404 vxp_off on a node that serves no VXP).
func (c *Client) Agents(ctx context.Context) ([]node.AgentView, error) {
	var out []node.AgentView
	return out, c.call(ctx, RouteAgents, nil, nil, nil, &out)
}

// RevokeAgent revokes every grant of the agent clientID still in force
// (RouteAgentRevoke): its tokens are refused at once.
func (c *Client) RevokeAgent(ctx context.Context, clientID string) (AgentRevocation, error) {
	var out AgentRevocation
	return out, c.call(ctx, RouteAgentRevoke, nil, nil, AgentRevokeRequest{ClientID: clientID}, &out)
}

// RevokeGrant revokes one grant (RouteAgentRevoke); Revoked is 0 when it
// was not in force.
func (c *Client) RevokeGrant(ctx context.Context, grantID string) (AgentRevocation, error) {
	var out AgentRevocation
	return out, c.call(ctx, RouteAgentRevoke, nil, nil, AgentRevokeRequest{GrantID: grantID}, &out)
}
