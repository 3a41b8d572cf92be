package mcp

import (
	"context"
	"encoding/json"
	"math/big"
	"time"

	"github.com/parleynet/parley/negotiation"
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
	// the card's JSON as the agent sent it; via says how the principal
	// confirmed it: negotiation.ViaWeb or negotiation.ViaMCP). Later
	// envelopes carry its hash, which SealCard returns.
	SealCard(ctx context.Context, id string, card json.RawMessage, via negotiation.Via) (negotiation.Hash, error)
	// Send sends one proxy message in negotiation id through the same
	// enforcement as the node's own acts (the mandate's checks, the
	// approval gate for binding acts) and records that agent sat in this
	// side's seat. It returns the room after the message.
	Send(ctx context.Context, id, agent string, msg ProxyMessage) (RoomView, error)
	// Answer records the principal's answer to this side's pending
	// escalation in negotiation id (sealed into the card as an amendment)
	// and returns the room after it.
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

// CreateRoomRequest is create_room's request as the node gets it.
type CreateRoomRequest struct {
	// Topic is what the two sides are aligning on (the task's title until
	// an offer names one).
	Topic string `json:"topic"`
	// Principal is this side's principal's name.
	Principal string `json:"principal"`
	// Counterpart is the EVM address of the other side's node.
	Counterpart negotiation.Address `json:"counterpart"`
	// CounterpartProxy names the agent the other side brings
	// (informational; "" when not said).
	CounterpartProxy string `json:"counterpartProxy,omitempty"`
	// Agent is the agent that asked for the room: it takes this side's
	// seat.
	Agent string `json:"agent"`
}

// RoomInfo is a room just created.
type RoomInfo struct {
	// ID is the negotiation id (a lowercase UUID v4).
	ID string `json:"id"`
	// Role is this side's role in the negotiation.
	Role negotiation.Role `json:"role"`
	// Counterpart is the other side's EVM address.
	Counterpart negotiation.Address `json:"counterpart"`
	// CounterpartPeer is the libp2p peer id of the other side's node when
	// known ("" otherwise): the counterpart's seat link names it.
	CounterpartPeer string `json:"counterpartPeer,omitempty"`
}

// RoomView is a room as this node sees it, from its own side's seat.
type RoomView struct {
	// ID is the negotiation id.
	ID string `json:"id"`
	// Topic is the room's topic: what create_room named, else the current
	// offer's title.
	Topic string `json:"topic"`
	// State is the negotiation's state, A2A its A2A projection.
	State negotiation.State    `json:"state"`
	A2A   negotiation.A2AState `json:"a2a"`
	// Role is this side's role; Self and Counterpart the two addresses.
	Role        negotiation.Role    `json:"role"`
	Self        negotiation.Address `json:"self"`
	Counterpart negotiation.Address `json:"counterpart"`
	// CounterpartPeer is the other side's libp2p peer id when known.
	CounterpartPeer string `json:"counterpartPeer,omitempty"`
	// Principal is this side's principal's display name (from the sealed
	// card, else from create_room); CounterpartPrincipal the other
	// side's, when known.
	Principal            string `json:"principal,omitempty"`
	CounterpartPrincipal string `json:"counterpartPrincipal,omitempty"`
	// CounterpartProxy names the agent the other side brings, when known.
	CounterpartProxy string `json:"counterpartProxy,omitempty"`
	// Agent is the agent last recorded in this side's seat ("" when none
	// sat yet).
	Agent string `json:"agent,omitempty"`
	// Card is this side's sealed card (private to this seat) and CardHash
	// its hash; both absent until a card is sealed.
	Card     json.RawMessage   `json:"card,omitempty"`
	CardHash *negotiation.Hash `json:"cardHash,omitempty"`
	// CounterpartCardHash is the card hash the other side's last envelope
	// carried.
	CounterpartCardHash *negotiation.Hash `json:"counterpartCardHash,omitempty"`
	// Envelopes are the room's authentic envelopes, both sides', in the
	// order this node recorded them.
	Envelopes []EnvelopeView `json:"envelopes"`
	// Current is the offer on the table, if any.
	Current *OfferView `json:"current,omitempty"`
	// YourTurn is true when this side may send now: the negotiation is
	// open, this side is not paused, and it has something to answer (or
	// the room is new and this side opens it).
	YourTurn bool `json:"yourTurn"`
	// PendingReviews are the other side's claims this side has not
	// reviewed yet; its next envelope must review each.
	PendingReviews []negotiation.Claim `json:"pendingReviews,omitempty"`
	// Unverified are the claims of either side that stay unverified.
	Unverified []ClaimView `json:"unverified,omitempty"`
	// Escalation is this side's pending escalation: the room is paused
	// until the principal answers it.
	Escalation *EscalationView `json:"escalation,omitempty"`
	// CounterpartPaused is true while the other side waits for its
	// principal's answer.
	CounterpartPaused bool `json:"counterpartPaused,omitempty"`
	// Answers are this side's principal's answers, oldest first.
	Answers []AnswerView `json:"answers,omitempty"`
	// Ended is true once the negotiation phase is over (agreed, or an
	// exit such as cancelled or expired): the brief can be read.
	Ended bool `json:"ended"`
	// Version counts the room's changes; Wait waits for a higher one.
	Version int `json:"version"`
}

// EnvelopeView is one envelope of a room.
type EnvelopeView struct {
	// Hash is the envelope's hash, Type its message type.
	Hash negotiation.Hash        `json:"hash"`
	Type negotiation.MessageType `json:"type"`
	// From and Role are its sender; Ours is true for this side's.
	From negotiation.Address `json:"from"`
	Role negotiation.Role    `json:"role"`
	Ours bool                `json:"ours"`
	// Speaker is "proxy", or "principal" for a principal's own words.
	Speaker string `json:"speaker"`
	// Agent is the agent that sat in the sender's seat, when this node
	// knows it (its own side's).
	Agent string `json:"agent,omitempty"`
	// Message is the text for people the envelope carries.
	Message string `json:"message,omitempty"`
	// The envelope's PXP fields.
	Claims     []negotiation.Claim     `json:"claims,omitempty"`
	Reviews    []negotiation.Review    `json:"reviews,omitempty"`
	Status     negotiation.Status      `json:"status,omitempty"`
	Escalation *negotiation.Escalation `json:"escalation,omitempty"`
	DependsOn  []string                `json:"dependsOn,omitempty"`
	// Terms are the terms it offers (a proposal or counter-offer).
	Terms *negotiation.Terms `json:"terms,omitempty"`
	// Accepts is the hash of the offer it accepts (an acceptance).
	Accepts *negotiation.Hash `json:"accepts,omitempty"`
	// Code is the state machine's verdict on its effect: "ok", or the
	// code of the refusal (the envelope stays on record).
	Code string `json:"code"`
	// At is its signed timestamp.
	At time.Time `json:"at"`
}

// OfferView is an offer on the table.
type OfferView struct {
	Hash     negotiation.Hash    `json:"hash"`
	Revision int                 `json:"revision"`
	By       negotiation.Address `json:"by"`
	Terms    negotiation.Terms   `json:"terms"`
}

// ClaimView is a claim of either side with who made it.
type ClaimView struct {
	negotiation.Claim
	By   negotiation.Address `json:"by"`
	Ours bool                `json:"ours"`
	// Why says why it stays unverified, when it does.
	Why string `json:"why,omitempty"`
}

// EscalationView is a pending escalation: the one question for the
// principal.
type EscalationView struct {
	Question string    `json:"question"`
	Reason   string    `json:"reason,omitempty"`
	At       time.Time `json:"at"`
	// Triggers name what made the node escalate (clause references and
	// the trigger kinds), when the node decided it.
	Triggers []string `json:"triggers,omitempty"`
}

// AnswerView is one answer of this side's principal.
type AnswerView struct {
	Question string          `json:"question"`
	Answer   string          `json:"answer"`
	Via      negotiation.Via `json:"via"`
	At       time.Time       `json:"at"`
	// Confirmed is false for an answer relayed by an agent that the
	// principal has not confirmed yet.
	Confirmed bool `json:"confirmed"`
}

// ProxyMessage is one envelope an agent sends through send_envelope.
type ProxyMessage struct {
	// Message is the text both sides' people read.
	Message string `json:"message"`
	// Status is continue, agree (accepts the other side's current offer
	// exactly) or escalate.
	Status negotiation.Status `json:"status"`
	// Claims are tagged claims; the server gives each an id when the
	// agent did not.
	Claims []negotiation.Claim `json:"claims,omitempty"`
	// Reviews judge the other side's claims.
	Reviews []negotiation.Review `json:"reviews,omitempty"`
	// Proposal is an offer: the first one opens the negotiation, a later
	// one counters the offer on the table.
	Proposal *Proposal `json:"proposal,omitempty"`
	// Escalation is the one question for this side's principal (status
	// escalate).
	Escalation *negotiation.Escalation `json:"escalation,omitempty"`
}

// Proposal is an offer with the claim ids it rests on.
type Proposal struct {
	Terms TermsSpec `json:"terms"`
	// DependsOn are the ids of the claims the terms rest on.
	DependsOn []string `json:"dependsOn,omitempty"`
}

// TermsSpec are an offer's terms as an agent states them. In a counter a
// zero field keeps the current offer's value; a first offer needs a
// title, milestones and a deadline. The node fills in the chain id, the
// registry and the nonce.
type TermsSpec struct {
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Category    string          `json:"category,omitempty"`
	Milestones  []MilestoneSpec `json:"milestones,omitempty"`
	// Deadline is when the work is due (zero: keep, or none given).
	Deadline time.Time `json:"deadline,omitzero"`
	// Token is the payment token's address; nil means native ETH (or
	// keep, in a counter).
	Token *negotiation.Address `json:"token,omitempty"`
}

// MilestoneSpec is one milestone: its amount in the token's base unit
// (wei for ETH) and what it pays for.
type MilestoneSpec struct {
	Amount      *big.Int `json:"amount"`
	Description string   `json:"description"`
}

// BriefView is a negotiation's decision brief.
type BriefView struct {
	// JSON is the brief as a record (negotiation.Brief's JSON).
	JSON json.RawMessage `json:"json"`
	// Markdown is its reading form.
	Markdown string `json:"markdown"`
}
