package mcp

import (
	"context"
	"encoding/json"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// Backend is what the MCP server needs from its node: PXP rooms, one per
// Parley negotiation, as this node sees them. Each node hosts the seat of
// its own side only. NodeBackend puts a *node.Node behind it.
//
// Errors a Backend returns are shown to the agent as tool errors; a
// refusal with a stable code (node.CodeOf) is shown as "<code>: <reason>".
type Backend interface {
	// CreateRoom opens a negotiation with req.Counterpart (an EVM address
	// of a reachable node) for this node's principal and returns the room
	// and this side's role. The first envelope is sent only by Send.
	CreateRoom(ctx context.Context, req CreateRoomRequest) (RoomInfo, error)
	// Room returns negotiation id as this node sees it.
	Room(ctx context.Context, id string) (RoomView, error)
	// SealCard seals this side's intent card for negotiation id (card is
	// the card's JSON as the agent sent it; via is negotiation.ViaMCP:
	// the card is sealed only once the principal confirms it with a
	// passkey, and via web is refused). Later envelopes carry its hash,
	// which SealCard returns.
	SealCard(ctx context.Context, id string, card json.RawMessage, via negotiation.Via) (negotiation.Hash, error)
	// Send sends one proxy message in negotiation id through the same
	// enforcement as the node's own acts (the mandate's checks, the
	// approval gate for binding acts) and records that agent sat in this
	// side's seat. It returns the room after the message.
	Send(ctx context.Context, id, agent string, msg ProxyMessage) (RoomView, error)
	// Answer records the answer an agent relays (via
	// negotiation.ViaMCP) to this side's pending escalation in
	// negotiation id (sealed into the card as an amendment, unconfirmed
	// until the principal's passkey confirms it) and returns the room
	// after it.
	Answer(ctx context.Context, id, answer string, via negotiation.Via) (RoomView, error)
	// Brief returns the decision brief of an agreed or finished
	// negotiation.
	Brief(ctx context.Context, id string) (BriefView, error)
	// Wait blocks until negotiation id's Version exceeds after (an
	// envelope arrived or was sent, the state changed, an escalation or an
	// answer was recorded) and returns the room then; or until ctx ends,
	// returning ctx's error.
	Wait(ctx context.Context, id string, after int) (RoomView, error)
}

// The shapes a Backend speaks are the node's own (node/rooms.go): the
// server reads them and turns them into its tools' answers (views.go).
type (
	// CreateRoomRequest is create_room's request as the node gets it.
	CreateRoomRequest = node.RoomRequest
	// RoomInfo is a room just created.
	RoomInfo = node.RoomInfo
	// RoomView is a room as this node sees it, from its own side's seat.
	RoomView = node.RoomView
	// EnvelopeView is one envelope of a room.
	EnvelopeView = node.RoomEnvelope
	// OfferView is an offer on the table.
	OfferView = node.OfferView
	// ClaimView is a claim of either side with who made it.
	ClaimView = node.RoomClaim
	// EscalationView is a pending escalation: the one question for the
	// principal.
	EscalationView = node.RoomEscalation
	// AnswerView is one answer of this side's principal.
	AnswerView = node.RoomAnswer
	// ProxyMessage is one envelope an agent sends through send_envelope.
	ProxyMessage = node.ProxyMessage
	// Proposal is an offer with the claim ids it rests on.
	Proposal = node.ProxyProposal
	// TermsSpec are an offer's terms as an agent states them.
	TermsSpec = node.ProxyTerms
	// MilestoneSpec is one milestone: its amount in the token's base unit
	// (wei for ETH) and what it pays for.
	MilestoneSpec = node.MilestoneSpec
	// BriefView is a negotiation's decision brief.
	BriefView = node.BriefView
)

// NodeBackend returns n as the MCP server's Backend: the rooms of node
// are its negotiations (node/rooms.go). n must be started before the
// server answers a call.
func NodeBackend(n *node.Node) Backend { return n }

var _ Backend = (*node.Node)(nil)
