package p2p

import (
	"context"
	"time"

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
	s, r, err := h.mailboxRequest(ctx, peer.AddrInfo{ID: store}, []byte{opPut}, to[:], sealed)
	if err != nil {
		return "", err
	}
	defer s.Close()
	b, err := readMsg(r, 64)
	return Code(b), err
}

// EncodeRecord encodes and signs r under key with no bound on its
// addresses and stores (at most 255 each), for tests of ParseRecord.
func EncodeRecord(key string, r *AddressRecord, inbox *identity.InboxKey) []byte {
	return encodeRecordCapped(key, r, inbox, 255, 255)
}

// RememberStores puts the store nodes (multiaddrs with /p2p/) in the
// cache of recipients' records for a, as if a's record had named them.
func (h *Host) RememberStores(a negotiation.Address, stores ...string) error {
	var infos []peer.AddrInfo
	for _, s := range stores {
		ai, err := peer.AddrInfoFromString(s)
		if err != nil {
			return err
		}
		infos = append(infos, *ai)
	}
	now := h.now()
	h.recs.put(a, infos, now.Add(time.Hour), now)
	return nil
}

// CachedStores returns the store nodes cached for a and whether a is
// cached (nil with true: a lookup failed recently).
func (h *Host) CachedStores(a negotiation.Address) ([]peer.AddrInfo, bool) {
	return h.recs.get(a, h.now())
}

// Ban bans p as the guard does a peer over its budget.
func (h *Host) Ban(p peer.ID, reason string) { h.guard.ban(p, reason, 0, 0) }

// CollectFrom collects this node's mail from one store, as CollectMail
// does for each configured store (the store need not be configured).
func (h *Host) CollectFrom(ctx context.Context, store peer.ID) (int, error) {
	return h.collectFrom(ctx, store)
}

// LookupRecord returns the verified DHT record of a, as Lookup reads it.
func (h *Host) LookupRecord(ctx context.Context, a negotiation.Address) (*AddressRecord, error) {
	return h.lookupRecord(ctx, a, 30*time.Second)
}

// SetRecordCheck sets how often publishRecord looks whether the record is
// due, for hosts started after it; it returns the restore.
func SetRecordCheck(d time.Duration) func() {
	old := recordCheck
	recordCheck = d
	return func() { recordCheck = old }
}

// SetPunching tells h that it runs hole punching, as Config.NAT does,
// without NAT port mapping (whose discovery sends packets off loopback).
func (h *Host) SetPunching(on bool) { h.punching.Store(on) }
