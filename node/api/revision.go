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

func (s *Server) revision(r *http.Request, body []byte) answer {
	return withNID([]string{"milestone", "reason"}, func(r *http.Request, nid string, spec node.RevisionSpec) (node.ActResult, error) {
		return s.n.RequestRevision(r.Context(), nid, spec)
	})(r, body)
}

func (s *Server) paymentRequest(r *http.Request, body []byte) answer {
	return withNID([]string{"milestone", "basis", "amount"}, func(r *http.Request, nid string, spec node.PaymentSpec) (node.ActResult, error) {
		return s.n.RequestPayment(r.Context(), nid, spec)
	})(r, body)
}

func (s *Server) releasePart(r *http.Request, body []byte) answer {
	return withNID([]string{"milestone"}, func(r *http.Request, nid string, spec node.ReleasePartSpec) (node.ActResult, error) {
		return s.n.ReleasePart(r.Context(), nid, spec)
	})(r, body)
}

// RequestRevision sends a delivered milestone of negotiation id back to
// work, as the poster.
func (c *Client) RequestRevision(ctx context.Context, id string, spec node.RevisionSpec) (node.ActResult, error) {
	return c.act(ctx, RouteRevision, id, spec)
}

// RequestPayment asks for part of a milestone of negotiation id, as the
// worker.
func (c *Client) RequestPayment(ctx context.Context, id string, spec node.PaymentSpec) (node.ActResult, error) {
	return c.act(ctx, RoutePaymentRequest, id, spec)
}

// ReleasePart releases a milestone's pending payment request of
// negotiation id, as the poster.
func (c *Client) ReleasePart(ctx context.Context, id string, spec node.ReleasePartSpec) (node.ActResult, error) {
	return c.act(ctx, RouteReleasePart, id, spec)
}
