package node

import (
	"context"

	"github.com/parleynet/parley/approval"
)

// Seams for the external tests: a gated act without a negotiation around
// it, and a receipt presented to an act other than the one it was made
// for.

// AuthorizeForTest passes act with args through the approval gate as a
// gated act does, and returns nil when the act may be performed.
func (n *Node) AuthorizeForTest(ctx context.Context, act Act, nid string, args map[string]any) error {
	_, err := n.authorize(ctx, act, nid, args, "a test act", "high")
	return err
}

// PresentForTest hands receipt to the act waiting on requestID, which
// consumes it against its own action.
func (n *Node) PresentForTest(requestID string, receipt *approval.IntentReceipt) error {
	return n.gt.PresentForTest(requestID, receipt)
}

// ApproveOnlyForTest verifies response for the pending request requestID
// and returns the approved receipt without handing it to the act, which
// keeps waiting.
func (n *Node) ApproveOnlyForTest(ctx context.Context, requestID string, response []byte) (*approval.IntentReceipt, error) {
	return n.gt.ApproveOnlyForTest(ctx, requestID, response)
}

// FlushRejectionsForTest ends the current window of rejection evidence and
// writes its entries now.
func (n *Node) FlushRejectionsForTest(ctx context.Context) { n.rej.flush(ctx, n.led, n.log) }

// SpawnForTest runs f on a goroutine the node owns once the node's
// context ends (as Close begins), as a background task does.
func SpawnForTest(n *Node, f func()) {
	n.spawn(func(ctx context.Context) {
		<-ctx.Done()
		f()
	})
}

// ChainSubmissionsForTest returns how many co-signed submissions run in
// the background (the transcripts' stabilize waits for none).
func (n *Node) ChainSubmissionsForTest() int { return int(n.onchain.pending.Load()) }
