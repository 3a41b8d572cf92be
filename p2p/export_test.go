package p2p

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// PutToStore hands env over to store for its recipient to, sealed as the
// outbox seals a hand-over, and returns the store's answer.
func (h *Host) PutToStore(ctx context.Context, store peer.ID, to negotiation.Address, env *negotiation.Envelope) (Code, error) {
	link := h.book.byAddress(to)
	if link == nil {
		return "", fail(CodeUnknownLink, "no link for %s", to)
	}
	key, err := link.CurrentKey(h.now())
	if err != nil {
		return "", err
	}
	nid, err := negotiation.ParseNegotiationID(env.NegotiationID)
	if err != nil {
		return "", err
	}
	raw := env.Bytes()
	h.cfg.Sealer.ResetSession(key.ID)
	sealed, err := h.cfg.Sealer.Seal(h.now(), nid, []*identity.Link{link}, raw)
	h.cfg.Sealer.ResetSession(key.ID)
	if err != nil {
		return "", err
	}
	s, r, err := h.mailboxRequest(ctx, store, []byte{opPut}, to[:], sealed)
	if err != nil {
		return "", err
	}
	defer s.Close()
	b, err := readMsg(r, 64)
	return Code(b), err
}

// Ban bans p as the guard does a peer over its budget.
func (h *Host) Ban(p peer.ID, reason string) { h.guard.ban(p, reason, 0, 0) }
