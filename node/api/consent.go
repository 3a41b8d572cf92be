package api

import (
	"context"
	"net/http"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// ConsentRequest sets a counterparty's consent state: allowed, unknown or
// denied (docs/node.md, "Consent").
type ConsentRequest struct {
	State node.Consent `json:"state"`
}

// addressParam reads the {address} path value: an EIP-55 address.
func addressParam(r *http.Request) (negotiation.Address, *httpError) {
	a, err := negotiation.ParseAddress(r.PathValue("address"))
	if err != nil {
		return a, badRequest("path: counterparty %q is not an EIP-55 address", r.PathValue("address"))
	}
	return a, nil
}

func (s *Server) consents(w http.ResponseWriter, r *http.Request) {
	list, err := s.n.ConsentBook().List()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	a, e := addressParam(r)
	if e != nil {
		writeError(w, e)
		return
	}
	v, err := s.n.ConsentBook().Of(a)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// setConsent records the principal's consent change (via api: the
// operator's key and the CLI).
func (s *Server) setConsent(r *http.Request, body []byte) answer {
	a, e := addressParam(r)
	if e != nil {
		return errAnswer(e)
	}
	var req ConsentRequest
	if e := decode(body, &req, "state"); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) { return s.n.ConsentBook().Set(r.Context(), a, req.State, node.ConsentViaAPI) })
}

// Consents returns every counterparty with a consent state, a negotiation
// or a refusal since the node started (RouteConsents).
func (c *Client) Consents(ctx context.Context) ([]node.ConsentView, error) {
	var out []node.ConsentView
	return out, c.call(ctx, RouteConsents, nil, nil, nil, &out)
}

// Consent returns one counterparty's consent state (RouteConsent).
func (c *Client) Consent(ctx context.Context, a negotiation.Address) (node.ConsentView, error) {
	var out node.ConsentView
	return out, c.call(ctx, RouteConsent, []string{a.String()}, nil, nil, &out)
}

// SetConsent sets a counterparty's consent state (RouteSetConsent).
func (c *Client) SetConsent(ctx context.Context, a negotiation.Address, state node.Consent) (node.ConsentView, error) {
	var out node.ConsentView
	return out, c.call(ctx, RouteSetConsent, []string{a.String()}, nil, ConsentRequest{State: state}, &out)
}
