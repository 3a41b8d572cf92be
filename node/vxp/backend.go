package vxp

import (
	"context"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// Backend is what VXP's side needs from its node. *node.Node is one.
type Backend interface {
	// Address is the principal's subject: the node's EVM address.
	Address() negotiation.Address
	// Link is the node's identity link (its inbox key attests the
	// issuer's key).
	Link() *identity.Link
	// Ledger keeps VXP's grants and requests (store.go).
	Ledger() *ledger.Ledger
	// AttestKey signs with the inbox key that a key is the node's.
	AttestKey(purpose, thumbprint string) (node.KeyAttestation, error)
	// AskGrant asks the principal to approve a grant with a passkey.
	AskGrant(clientID string, args map[string]any, reason string, then func(ctx context.Context) error, decided func(approved bool)) (node.PendingApproval, error)
	// PendingApprovals lists what waits for the principal.
	PendingApprovals() []node.PendingApproval

	// Thread and Board are the reads.
	Thread(nid string) (node.ThreadView, error)
	Board() []node.Announcement
	// Counter and AcceptWith are offer.respond's acts.
	Counter(ctx context.Context, nid string, spec node.CounterSpec) (node.ActResult, error)
	AcceptWith(ctx context.Context, nid string, spec node.AcceptSpec) (node.ActResult, error)
	// SentAfter finds the envelope of a type this node sent after an
	// offer (an act's effect no result named).
	SentAfter(ctx context.Context, nid string, after negotiation.Hash, typ negotiation.MessageType) (*node.EnvelopeRef, error)
	// EnvelopeDelivery reads an envelope's delivery back.
	EnvelopeDelivery(ctx context.Context, nid string, ref node.EnvelopeRef) (node.Delivery, error)
	// Subscribe streams the node's events (an envelope arrived, a state
	// changed, an approval is pending).
	Subscribe(buf int) (<-chan node.Event, func())
}

var _ Backend = (*node.Node)(nil)
