package p2p

import (
	"context"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

const ProtocolMailbox protocol.ID = "/parley/mailbox/1"

type MailboxStore interface{}

func (h *Host) startDHT() error                { return nil }
func (h *Host) handleMailbox(s network.Stream) { s.Reset() }
func (h *Host) Lookup(ctx context.Context, a negotiation.Address) (*identity.Link, error) {
	return nil, ErrNotFound
}
func (q *queue) viaStore(ctx context.Context, due []*pending) bool { return false }
