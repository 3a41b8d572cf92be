package engine

import "github.com/parleynet/parley/negotiation"

// PXP is one negotiation's PXP state (guarded by its thread's lock): the
// mandate of the card it runs under, and what this side's seat did.
type PXP struct {
	Mandate *negotiation.Mandate // nil: the negotiation runs without a card
	Sealed  bool                 // card.sealed of the negotiation is recorded
	CardID  string               // the CID of the card's object

	Room     *RoomMeta
	Agent    string                      // the agent last in this side's seat
	Agents   map[negotiation.Hash]string // the agent per envelope sent
	Messages map[negotiation.Hash]string // messages no payload member carried
	Events   int                         // PXP records, for a room's version
	Asking   map[int]bool                // relayed answers whose confirmation is being asked
}

// NewPXP returns an empty PXP state.
func NewPXP() *PXP {
	return &PXP{Agents: map[negotiation.Hash]string{}, Messages: map[negotiation.Hash]string{}, Asking: map[int]bool{}}
}

// RoomMeta is what create_room named.
type RoomMeta struct {
	Topic            string              `json:"topic"`
	Principal        string              `json:"principal,omitempty"`
	Counterpart      negotiation.Address `json:"counterpart"`
	CounterpartProxy string              `json:"counterpartProxy,omitempty"`
	Agent            string              `json:"agent,omitempty"`
}
