package node

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/gate"
)

// What the node offers VXP's HTTP side (node/vxp): the principal's grant
// of authority to an outside agent, the read-back of an envelope's
// delivery, and the inbox key's attestation of the VXP issuer's key.

// The grant of authority to an outside agent (gate.ActVXPGrant).
const (
	ActVXPGrant  = gate.ActVXPGrant
	ToolVXPGrant = gate.ToolVXPGrant
)

// AskGrant makes the principal's approval request of a VXP grant to the
// agent clientID (its target) with args as its exact arguments (user_code,
// authorization_details, resource, dpop_jkt, grant_ttl_seconds), and
// returns it once it waits. decided runs once it is decided, with true
// when a passkey approved it and the gate consumed the receipt; then runs
// next, on a goroutine the node owns. Nothing is granted by a denial or
// an expired window.
func (n *Node) AskGrant(clientID string, args map[string]any, reason string, then func(ctx context.Context) error, decided func(approved bool)) (PendingApproval, error) {
	if err := n.running(); err != nil {
		decided(false)
		return PendingApproval{}, err
	}
	p, err := n.gt.AskDecided(ActVXPGrant, clientID, args, reason, "high", then, decided)
	return p, fromGate(err)
}

// Delivery is what the ledger says of one envelope this node sent:
// Queued once it is in the outbox, then Status "delivered" (the recipient
// acknowledged it), "held" (a store node holds it for the recipient) or
// "refused" (delivery was given up with Code). InThread is set when the
// envelope is in the negotiation's thread.
type Delivery struct {
	Queued   bool   `json:"queued"`
	Status   string `json:"status,omitempty"`
	Code     string `json:"code,omitempty"`
	InThread bool   `json:"inThread"`
}

// EnvelopeDelivery reads back the delivery of the envelope ref (as an
// act's result names it) in negotiation nid: the outbox's entries of it in
// the ledger, and whether the thread holds it with its effect taken. A
// recipient's acknowledgement outranks a store node's hold; a final
// refusal is kept only when no recipient acknowledged it.
func (n *Node) EnvelopeDelivery(ctx context.Context, nid string, ref EnvelopeRef) (Delivery, error) {
	if err := n.running(); err != nil {
		return Delivery{}, err
	}
	want, err := cid.Decode(ref.CID)
	if err != nil {
		return Delivery{}, fail(CodeBadArgument, "envelope cid %q: %v", ref.CID, err)
	}
	var d Delivery
	err = n.eng.With(nid, func(t *thread) error {
		for _, r := range t.Th.Log() {
			if r.Hash == ref.Hash && r.Code == "" {
				d.InThread = true
			}
		}
		return nil
	})
	if err != nil {
		return Delivery{}, err
	}
	for e, err := range n.led.ByNegotiation(ctx, nid) {
		if err != nil {
			return Delivery{}, err
		}
		switch e.Kind {
		case ledger.KindOutboxQueued, ledger.KindOutboxAcked, ledger.KindOutboxAbandoned:
		default:
			continue
		}
		var b outboxBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return Delivery{}, fmt.Errorf("node: outbox entry %d: %w", e.Seq, err)
		}
		if b.Envelope != want.String() {
			continue
		}
		switch {
		case e.Kind == ledger.KindOutboxQueued:
			d.Queued = true
		case b.Status == "delivered":
			d.Status, d.Code = b.Status, ""
		case b.Status == "held" && d.Status != "delivered":
			d.Status, d.Code = b.Status, ""
		case e.Kind == ledger.KindOutboxAbandoned && d.Status == "":
			d.Status, d.Code = "refused", b.Code
		}
	}
	return d, nil
}

// SentAfter returns the first envelope of type typ that this node sent in
// negotiation nid after the envelope after, in the thread's order, with its
// effect taken; nil when there is none. It reads the thread and the
// ledger's envelope.sent entries (whose bodies name the sender's sequence)
// for the envelope's CID. VXP's request manager reads an act's effect back
// with it when the act's result named none.
func (n *Node) SentAfter(ctx context.Context, nid string, after negotiation.Hash, typ negotiation.MessageType) (*EnvelopeRef, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	var found *negotiation.Record
	err := n.eng.With(nid, func(t *thread) error {
		seen := false
		for _, r := range t.Th.Log() {
			if r.Hash == after {
				seen = true
				continue
			}
			if seen && r.Type == typ && r.Sender == n.self && r.Code == "" {
				found = &r
				return nil
			}
		}
		return nil
	})
	if err != nil || found == nil {
		return nil, err
	}
	for e, err := range n.led.ByNegotiation(ctx, nid) {
		if err != nil {
			return nil, err
		}
		if e.Kind != ledger.KindEnvelopeSent {
			continue
		}
		var b struct {
			Sender   string `json:"sender"`
			Sequence uint64 `json:"sequence"`
			Type     string `json:"type"`
		}
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return nil, fmt.Errorf("node: envelope entry %d: %w", e.Seq, err)
		}
		if b.Sequence == found.Seq && b.Type == string(typ) && strings.EqualFold(b.Sender, n.self.String()) {
			return &EnvelopeRef{Type: typ, Hash: found.Hash, CID: e.CID.String()}, nil
		}
	}
	return nil, fmt.Errorf("node: the thread holds envelope %s, which the ledger does not", found.Hash)
}

// KeyAttestationFormat names the statement an inbox key signs to say
// that a key of another kind is this node's.
const KeyAttestationFormat = "parley-key-attestation/1"

// KeyAttestation is the node's inbox key saying that the key with
// Thumbprint (RFC 7638, base64url) serves Purpose for the node Address
// whose identity link has LinkHash. Signature is the inbox key's Ed25519
// signature over SigningBytes; a holder of the identity link checks it
// with the link's inbox key.
type KeyAttestation struct {
	Format     string              `json:"format"`
	Purpose    string              `json:"purpose"`
	Thumbprint string              `json:"thumbprint"`
	Address    negotiation.Address `json:"address"`
	LinkHash   string              `json:"linkHash"`
	Signature  string              `json:"signature,omitempty"`
}

// SigningBytes returns the JCS text of a without its signature.
func (a KeyAttestation) SigningBytes() ([]byte, error) {
	a.Signature = ""
	b, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	return negotiation.Canonicalize(b)
}

// AttestKey signs a KeyAttestation of the key with thumbprint for purpose
// (such as "vxp-issuer") with the node's inbox key.
func (n *Node) AttestKey(purpose, thumbprint string) (KeyAttestation, error) {
	if purpose == "" || thumbprint == "" {
		return KeyAttestation{}, fail(CodeBadArgument, "a key attestation needs a purpose and a thumbprint")
	}
	lh := n.keys.Link().Hash()
	a := KeyAttestation{Format: KeyAttestationFormat, Purpose: purpose, Thumbprint: thumbprint, Address: n.self, LinkHash: "0x" + hex.EncodeToString(lh[:])}
	msg, err := a.SigningBytes()
	if err != nil {
		return KeyAttestation{}, err
	}
	a.Signature = "0x" + hex.EncodeToString(n.keys.Inbox().Sign(msg))
	return a, nil
}

// PendingApprovals returns the requests waiting for the principal's
// passkey (the gate's PendingApprovals).
func (n *Node) PendingApprovals() []PendingApproval {
	if n.gt == nil {
		return nil
	}
	return n.gt.PendingApprovals()
}

// AgentBook is what the principal's pages and the node's API show of the
// outside agents VXP serves (node/vxp's Server is one): each agent, its
// grants and its requests, and the revocation of its grants. cmd/parley
// hands it to node/web and node/api, which do not import node/vxp.
type AgentBook interface {
	// Agents returns every agent that holds or held a grant, or made a
	// request, by client_id.
	Agents() []AgentView
	// RevokeAgent revokes every grant of clientID still in force (by
	// names who revoked, for the ledger) and returns how many it revoked;
	// the grants' tokens are refused at once.
	RevokeAgent(ctx context.Context, clientID, by string) (int, error)
	// RevokeGrant revokes one grant; false when it was not in force.
	RevokeGrant(ctx context.Context, grantID, by string) (bool, error)
}

// AgentView is one outside agent as the pages and the API show it.
type AgentView struct {
	ClientID   string             `json:"clientId"`
	ClientName string             `json:"clientName,omitempty"`
	Grants     []AgentGrantView   `json:"grants"`
	Requests   []AgentRequestView `json:"requests"`
}

// AgentGrantView is one grant: its operations on their targets in plain
// words (Lines) and as authorization details (JCS text).
type AgentGrantView struct {
	ID             string    `json:"id"`
	Lines          []string  `json:"lines"`
	Details        string    `json:"authorizationDetails"`
	RelationshipID string    `json:"relationshipId,omitempty"`
	GrantedAt      time.Time `json:"grantedAt"`
	ExpiresAt      time.Time `json:"expiresAt"`
	RevokedAt      time.Time `json:"revokedAt,omitzero"`
	Active         bool      `json:"active"`
	IntentHash     string    `json:"intentHash"`
}

// AgentRequestView is one request an agent made.
type AgentRequestView struct {
	ID            string    `json:"id"`
	Operation     string    `json:"operation"`
	NegotiationID string    `json:"negotiationId,omitempty"`
	State         string    `json:"state"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}
