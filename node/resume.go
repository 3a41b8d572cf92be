package node

import (
	"context"

	"github.com/parleynet/parley/negotiation"
)

// resume restarts, after Start, what a stop interrupted: envelopes
// recorded but never queued are queued, disputes' evidence topics are
// joined again, an arbitrator the chain assigned is handed the thread if
// it was not yet, files not yet fetched are fetched, chain facts kept
// pending are tried again, and co-signed pairs are submitted.
func (n *Node) resume() {
	n.spawn(func(ctx context.Context) {
		if err := n.snd.resendUnqueued(ctx); err != nil && ctx.Err() == nil {
			n.log.Warn("queueing recorded envelopes failed", "err", err)
		}
		n.eng.Each(ctx, func(t *thread) {
			n.eng.Retry(ctx, t)
			n.hand.joinEvidence(t)
			role := t.Th.RoleOf(n.self)
			if (role == negotiation.RolePoster || role == negotiation.RoleWorker) && t.Th.State() == negotiation.StateArbitrated && !n.hand.handedOff(t) {
				nid := t.ID
				n.spawn(func(ctx context.Context) { n.hand.handOff(ctx, nid) })
			}
			n.hand.fetchThreadFiles(t)
			n.onchain.resumeCoSigned(t)
		})
	})
}
