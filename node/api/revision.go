package api

import (
	"context"
	"net/http"

	"github.com/parleynet/parley/node"
)

// The routes of issue 14's acts: capability proofs, revision requests and
// partial releases of a milestone.

func (s *Server) capability(r *http.Request, body []byte) answer {
	return withNID([]string{"capability", "kind", "description"}, func(r *http.Request, nid string, spec node.CapabilitySpec) (node.ActResult, error) {
		return s.n.Capability(r.Context(), nid, spec)
	})(r, body)
}

// Capability attaches a capability proof to negotiation id, as the
// worker.
func (c *Client) Capability(ctx context.Context, id string, spec node.CapabilitySpec) (node.ActResult, error) {
	return c.act(ctx, RouteCapability, id, spec)
}
