package node

import (
	"slices"
	"strings"

	"github.com/parleynet/parley/negotiation"
)

// PeerInfo is one peer the transport is connected to.
type PeerInfo struct {
	// PeerID is the peer's libp2p id.
	PeerID string `json:"peerId"`
	// Addrs are the addresses the peer is known at.
	Addrs []string `json:"addrs"`
	// EVMAddress is the peer's EVM address, from its verified identity
	// link; nil until the identity handshake has verified one.
	EVMAddress *negotiation.Address `json:"evmAddress,omitempty"`
}

// Peers returns the peers the transport is connected to, in the order of
// their ids (empty before Start and after Close).
func (n *Node) Peers() []PeerInfo {
	out := []PeerInfo{}
	if n.running() != nil {
		return out
	}
	h := n.host // set before Start made the node live
	if h == nil || h.Libp2p() == nil {
		return out
	}
	lh := h.Libp2p()
	for _, p := range lh.Network().Peers() {
		pi := PeerInfo{PeerID: p.String(), Addrs: []string{}}
		for _, a := range lh.Peerstore().Addrs(p) {
			pi.Addrs = append(pi.Addrs, a.String())
		}
		slices.Sort(pi.Addrs)
		if l, ok := h.PeerLink(p); ok {
			pi.EVMAddress = addr(negotiation.Address(l.EVMAddress))
		}
		out = append(out, pi)
	}
	slices.SortFunc(out, func(a, b PeerInfo) int { return strings.Compare(a.PeerID, b.PeerID) })
	return out
}
