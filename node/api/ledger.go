package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/parleynet/parley/node"
)

// AuditRequest names the node an audit asks (its EVM address or peer id)
// and, optionally, the JSON-RPC endpoint its anchors are read from (else
// this node's chain).
type AuditRequest struct {
	Peer string `json:"peer"`
	RPC  string `json:"rpc,omitempty"`
}

// registerLedger puts the ledger's routes on the mux (register calls it).
func (s *Server) registerLedger(get func(string, http.HandlerFunc), post func(string, actFunc)) {
	post(RouteLedgerAnchor, s.ledgerAnchor)
	get(RouteLedgerHeads, s.ledgerHeads)
	get(RouteLedgerConsistency, s.ledgerConsistency)
	post(RouteLedgerAudit, s.ledgerAudit)
}

func (s *Server) ledgerAnchor(r *http.Request, body []byte) answer {
	if e := decode(body, &Empty{}); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) { return s.n.AnchorLedger(r.Context()) })
}

func (s *Server) ledgerHeads(w http.ResponseWriter, r *http.Request) {
	h, err := s.n.LedgerHeads(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h)
}

// sizeQuery reads a tree size from the query (0 when absent).
func sizeQuery(r *http.Request, name string) (uint64, *httpError) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, badRequest("query: %s %q is not a tree size", name, v)
	}
	return n, nil
}

func (s *Server) ledgerConsistency(w http.ResponseWriter, r *http.Request) {
	from, e := sizeQuery(r, "from")
	if e == nil {
		var to uint64
		if to, e = sizeQuery(r, "to"); e == nil {
			c, err := s.n.LedgerConsistency(r.Context(), from, to)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			writeJSON(w, http.StatusOK, c)
			return
		}
	}
	s.fail(w, r, e)
}

func (s *Server) ledgerAudit(r *http.Request, body []byte) answer {
	var req AuditRequest
	if e := decode(body, &req, "peer"); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) { return s.n.AuditLedger(r.Context(), req.Peer, req.RPC) })
}

// AnchorLedger anchors the node's tree head on chain now and returns the
// anchor it recorded (429 anchor_budget over ledger.anchor_gas_per_day,
// 409 anchor_unchanged when nothing is new).
func (c *Client) AnchorLedger(ctx context.Context) (node.TreeAnchorView, error) {
	var a node.TreeAnchorView
	return a, c.call(ctx, RouteLedgerAnchor, nil, nil, Empty{}, &a)
}

// LedgerHeads returns the node's latest signed tree head and anchor and
// the day's gas budget.
func (c *Client) LedgerHeads(ctx context.Context) (node.LedgerHeads, error) {
	var h node.LedgerHeads
	return h, c.call(ctx, RouteLedgerHeads, nil, nil, nil, &h)
}

// LedgerConsistency returns the consistency proof from size from to size
// to of the node's tree (to 0: its latest signed head).
func (c *Client) LedgerConsistency(ctx context.Context, from, to uint64) (node.Consistency, error) {
	var out node.Consistency
	q := url.Values{"from": {strconv.FormatUint(from, 10)}}
	if to != 0 {
		q.Set("to", strconv.FormatUint(to, 10))
	}
	return out, c.call(ctx, RouteLedgerConsistency, nil, q, nil, &out)
}

// AuditLedger audits the node peer (an EVM address or a peer id) against
// its anchors on chain, read through rpc when not empty.
func (c *Client) AuditLedger(ctx context.Context, peer, rpc string) (node.AuditReport, error) {
	var rep node.AuditReport
	return rep, c.call(ctx, RouteLedgerAudit, nil, nil, AuditRequest{Peer: peer, RPC: rpc}, &rep)
}
