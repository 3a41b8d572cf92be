package gate

import (
	"context"
	"encoding/json"

	"github.com/parleynet/parley/approval"
)

// Seams for the node's tests (node/export_test.go): a receipt presented
// to an act other than the one it was made for, and an approval verified
// without handing it over. Nothing but tests calls them.

// PresentForTest hands receipt to the act waiting on requestID, which
// consumes it against its own action.
func (g *Gate) PresentForTest(requestID string, receipt *approval.IntentReceipt) error {
	b, err := json.Marshal(receipt)
	if err != nil {
		return err
	}
	e, err := g.claim(requestID)
	if err != nil {
		return err
	}
	g.hand(e, decision{receipt: b})
	return nil
}

// ApproveOnlyForTest verifies response for the pending request requestID
// and returns the approved receipt without handing it to the act, which
// keeps waiting.
func (g *Gate) ApproveOnlyForTest(ctx context.Context, requestID string, response []byte) (*approval.IntentReceipt, error) {
	r, _, err := g.approve(ctx, requestID, response)
	return r, err
}
