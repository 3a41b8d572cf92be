package vxp

import (
	"fmt"
	"time"

	pure "github.com/parleynet/parley/vxp"
)

// Requests without authority. Anyone can be an OAuth client here (a
// Client ID Metadata Document on any https host) and get a token that
// carries no grant, so a request no grant covers is a stranger's: it is
// held in memory only, bounded per client and in total, and forgotten
// after HeldTTL or at a restart (its Idempotency-Key then names nothing,
// and repeating it makes a new request: nothing was ever done for it). It
// reaches the ledger the first time a grant the principal approved covers
// it.
const (
	// MaxHeldPerClient bounds one client's requests without authority.
	MaxHeldPerClient = 16
	// MaxHeld bounds all clients' requests without authority.
	MaxHeld = 1024
	// HeldTTL is how long a request without authority is kept.
	HeldTTL = time.Hour
)

// admitHeld makes room for one more held request of client at time at,
// forgetting first the held requests that ended (a public read, a
// cancelled or refused request: repeating its key makes a new one) or
// are older than HeldTTL; beyond the
// bounds it is rate_limited. s.mu is held.
func (s *Store) admitHeld(client string, at time.Time) error {
	total, mine := 0, 0
	for id := range s.heldIDs {
		r := s.requests[id]
		if r.State.Final() || at.Sub(r.CreatedAt) > HeldTTL {
			delete(s.requests, id)
			delete(s.idem, idemKey{r.ClientID, r.Idempotency})
			delete(s.heldIDs, id)
			continue
		}
		total++
		if r.ClientID == client {
			mine++
		}
	}
	switch {
	case mine >= MaxHeldPerClient:
		return &pure.Error{Code: pure.CodeRateLimited, Field: "client_id", Msg: fmt.Sprintf("%d requests without a grant held for this client already: get a grant or wait", mine)}
	case total >= MaxHeld:
		return &pure.Error{Code: pure.CodeRateLimited, Msg: fmt.Sprintf("%d requests without a grant held already", total)}
	}
	return nil
}
