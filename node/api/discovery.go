package api

import (
	"net/http"
	"slices"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// Discovery document values.
const (
	DiscoveryProtocol = "parley"
	DiscoveryVersion  = "0.1"
	DiscoveryStatus   = "experimental"
)

// Discovery returns the node's discovery document for a server reached at
// base (the scheme and host, without a path).
func (s *Server) Discovery(base string) (Discovery, error) {
	st, err := s.n.Status()
	if err != nil {
		return Discovery{}, err
	}
	org := s.o.Organization
	if org == "" {
		org = st.Name
	}
	d := Discovery{
		Protocol: DiscoveryProtocol, Version: DiscoveryVersion,
		Organization: DiscoveryOrg{Name: org},
		Endpoint:     base + "/v1",
		PeerID:       st.PeerID,
		Addresses:    st.Addrs,
		EVMAddress:   st.Address,
		IdentityLink: DiscoveryLink{Hash: st.LinkHash, URL: base + "/.well-known/parley-link.json"},
		Capabilities: []DiscoveryCap{},
		Limits: map[string]int{
			"max_revisions":        negotiation.DefaultMaxRevisions,
			"proposal_ttl_seconds": negotiation.DefaultProposalTTLSeconds,
			"max_accept_attempts":  negotiation.DefaultMaxAcceptAttempts,
		},
		Status:    DiscoveryStatus,
		UpdatedAt: s.o.Now().UTC().Truncate(time.Millisecond),
	}
	if d.Addresses == nil {
		d.Addresses = []string{}
	}
	if s.n.Config().P2P.DHT {
		d.IdentityLink.DHT = p2p.RecordKey(st.Address)
	}
	for _, c := range st.Capabilities {
		effect := "take"
		if slices.Contains(s.o.Offers, c) {
			effect = "offer"
		}
		d.Capabilities = append(d.Capabilities, DiscoveryCap{ID: c, Effect: effect})
	}
	return d, nil
}

// base returns the URL the server is reached at: Options.BaseURL, else
// the request's host over http.
func (s *Server) base(r *http.Request) string {
	if s.o.BaseURL != "" {
		return s.o.BaseURL
	}
	return "http://" + r.Host
}

func (s *Server) discovery(w http.ResponseWriter, r *http.Request) {
	d, err := s.Discovery(s.base(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// link serves the node's signed identity link: the exact bytes whose
// SHA-256 the discovery document names.
func (s *Server) link(w http.ResponseWriter, r *http.Request) {
	l := s.n.Link()
	if l == nil {
		s.fail(w, r, node.ErrNotStarted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(l.Bytes())
}
