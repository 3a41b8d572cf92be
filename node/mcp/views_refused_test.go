package mcp

import (
	"strings"
	"testing"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// TestRoomShowsRefusal: an envelope of this side the counterpart's node
// refused (consent) is in the agent's room with its code, and the next
// action tells the agent to tell its principal instead of waiting.
func TestRoomShowsRefusal(t *testing.T) {
	h := negotiation.HashOf([]byte("proposal"))
	o := roomView(&RoomView{CardHash: &h, Refused: []node.RefusalView{{Envelope: &h, Code: "consent_limit"}}})
	if len(o.Refused) != 1 || o.Refused[0].Code != "consent_limit" || o.Refused[0].Hash != h.String() {
		t.Fatalf("refused: %+v", o.Refused)
	}
	if !strings.Contains(o.NextAction, "refused your envelope (consent_limit)") || !strings.Contains(o.NextAction, "Tell your principal") {
		t.Fatalf("next action: %q", o.NextAction)
	}
}
