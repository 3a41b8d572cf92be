package p2p

import (
	"context"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/protocol"
)

const ProtocolMailbox protocol.ID = "/parley/mailbox/1"

type MailboxStore interface{}

func (h *Host) handleMailbox(s network.Stream)                     { s.Reset() }
func (q *queue) viaStore(ctx context.Context, due []*pending) bool { return false }
