package node

import (
	"context"
	"crypto/ed25519"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/gate"
)

// The node's economic identity on chain (seed 003: "economic identity
// anchored via IdentityLink"). The IdentityLink contract keeps, per EVM
// address, the inbox key, peer id and identity-link hash of the node
// acting for it; only the address itself writes its record. A node
// publishes its own (RegisterIdentity, RotateIdentity after its link
// changed, RevokeIdentity), each a gated act since it spends gas, and
// looks up a counterparty's (LookupLink), comparing the record with the
// signed identity link it holds for that party (docs/node.md, "Identity
// on chain").

// The acts on the node's own record: they act in no thread, so the act
// table has no row for them.
const (
	actRegisterIdentity negotiation.Act = "register_identity"
	actRotateIdentity   negotiation.Act = "rotate_identity"
	actRevokeIdentity   negotiation.Act = "revoke_identity"
)

// The gated acts of the node's record (node/gate).
const (
	ActRegisterIdentity = gate.ActRegisterIdentity
	ActRotateIdentity   = gate.ActRotateIdentity
	ActRevokeIdentity   = gate.ActRevokeIdentity
)

// LinkState says how an address's IdentityLink record on chain compares
// with the identity link this node holds for the address.
type LinkState string

const (
	// LinkMatching: registered, and the record names the link this node
	// holds (same link hash, inbox key and peer id).
	LinkMatching LinkState = "matching"
	// LinkDifferent: registered, but the record names another link than
	// the one this node holds: the party rotated its keys and has not
	// rotated its record (or this node has not seen its new link yet), or
	// the node this node talks to is not the one the address anchors.
	LinkDifferent LinkState = "different"
	// LinkRegistered: registered; this node holds no link of the address
	// to compare it with.
	LinkRegistered LinkState = "registered"
	// LinkNotRegistered: the address has no record (never registered, or
	// revoked).
	LinkNotRegistered LinkState = "not_registered"
)

// LinkCheck is one look-up of an address's IdentityLink record.
type LinkCheck struct {
	// Address is the EVM address looked up.
	Address negotiation.Address `json:"address"`
	// State compares the record with the link this node holds.
	State LinkState `json:"state"`
	// LinkHash, InboxKey, PeerID and UpdatedAt are the record's (absent
	// when not registered).
	LinkHash  *negotiation.Hash `json:"linkHash,omitempty"`
	InboxKey  *negotiation.Hash `json:"inboxKey,omitempty"`
	PeerID    string            `json:"peerId,omitempty"`
	UpdatedAt uint64            `json:"updatedAt,omitempty"`
	// HeldLinkHash is the hash of the link this node holds for the
	// address, when it holds one.
	HeldLinkHash *negotiation.Hash `json:"heldLinkHash,omitempty"`
	// CheckedAt is when the chain was read.
	CheckedAt time.Time `json:"checkedAt"`
}

// Registered reports whether the address has a record.
func (c LinkCheck) Registered() bool { return c.State != LinkNotRegistered }

// compareLink returns the check of record rec for address a against the
// link held (nil when this node holds none), at now.
func compareLink(a negotiation.Address, rec chain.IdentityRecord, held *identity.Link, now time.Time) LinkCheck {
	c := LinkCheck{Address: a, State: LinkNotRegistered, CheckedAt: now}
	if held != nil {
		h := negotiation.Hash(held.Hash())
		c.HeldLinkHash = &h
	}
	if rec.LinkHash == ([32]byte{}) {
		return c
	}
	lh, ik := negotiation.Hash(rec.LinkHash), negotiation.Hash(rec.InboxKey)
	c.LinkHash, c.InboxKey, c.PeerID, c.UpdatedAt = &lh, &ik, rec.PeerId, rec.UpdatedAt
	switch {
	case held == nil:
		c.State = LinkRegistered
	case held.Hash() == rec.LinkHash && string(held.InboxKey) == string(rec.InboxKey[:]) && held.PeerID.String() == rec.PeerId:
		c.State = LinkMatching
	default:
		c.State = LinkDifferent
	}
	return c
}

// registryLinks keeps the last look-up of each address's record, for the
// thread views (which read no chain under the thread's lock). It owns its
// map and its lock, a leaf.
type registryLinks struct {
	mu      sync.Mutex
	checks  map[negotiation.Address]LinkCheck
	looking map[negotiation.Address]bool // a background look-up runs
}

func newRegistryLinks() *registryLinks {
	return &registryLinks{checks: map[negotiation.Address]LinkCheck{}, looking: map[negotiation.Address]bool{}}
}

// begin marks a background look-up of a; false when one runs already or
// a check is known.
func (b *registryLinks) begin(a negotiation.Address) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.checks[a]; ok || b.looking[a] {
		return false
	}
	b.looking[a] = true
	return true
}

func (b *registryLinks) end(a negotiation.Address) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.looking, a)
}

func (b *registryLinks) put(c LinkCheck) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.checks[c.Address] = c
}

// get returns the last check of a, if any.
func (b *registryLinks) get(a negotiation.Address) (LinkCheck, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.checks[a]
	return c, ok
}

// LookupLink reads a's IdentityLink record on chain and compares it with
// the identity link this node holds for a (its own for its own address):
// matching, different, registered (no link held) or not_registered. The
// thread views show the last look-up of each counterparty
// (ThreadView.CounterpartyLink).
func (n *Node) LookupLink(ctx context.Context, a negotiation.Address) (LinkCheck, error) {
	if err := n.running(); err != nil {
		return LinkCheck{}, err
	}
	if err := n.needChain(); err != nil {
		return LinkCheck{}, err
	}
	rec, err := n.client.LinkOf(ctx, common.Address(a))
	if err != nil {
		return LinkCheck{}, chainErr("recordOf", err)
	}
	var held *identity.Link
	if a == n.self {
		held = n.keys.Link()
	} else if l, ok := n.host.Link(a); ok {
		held = l
	}
	c := compareLink(a, rec, held, n.now())
	n.links.put(c)
	return c, nil
}

// checkLinkLater looks up a's record in the background, once per address
// until a look-up succeeds (a thread's counterparty, when the thread
// opens).
func (n *Node) checkLinkLater(a negotiation.Address) {
	if n.client == nil || a == (negotiation.Address{}) || a == n.self {
		return
	}
	if !n.links.begin(a) {
		return
	}
	n.spawn(func(ctx context.Context) {
		defer n.links.end(a)
		if _, err := n.LookupLink(ctx, a); err != nil && ctx.Err() == nil {
			n.log.Debug("identity link not looked up", "of", a, "err", err)
		}
	})
}

// RegisterIdentity publishes this node's identity link in the
// IdentityLink contract (its inbox key, peer id and link hash, under its
// EVM address), once the gate approves: it spends gas. An address that
// has a record is refused (state_forbidden: rotate it instead).
func (n *Node) RegisterIdentity(ctx context.Context) (ActResult, error) {
	return n.identityAct(ctx, actCall{act: actRegisterIdentity, chain: chainAlways})
}

// RotateIdentity replaces this node's record with its current identity
// link (after its keys were rotated and a new link issued), once the gate
// approves. It is refused when there is no record, or when the record
// already names the current link (state_forbidden: nothing to rotate).
func (n *Node) RotateIdentity(ctx context.Context) (ActResult, error) {
	return n.identityAct(ctx, actCall{act: actRotateIdentity, chain: chainAlways})
}

// RevokeIdentity withdraws this node's record, once the gate approves;
// refused when there is none (state_forbidden).
func (n *Node) RevokeIdentity(ctx context.Context) (ActResult, error) {
	return n.identityAct(ctx, actCall{act: actRevokeIdentity, chain: chainAlways})
}

// identityAct runs one of the three acts on the node's own record: it
// reads the record, refuses what the contract would revert (before any
// approval is asked), asks the gate, sends the transaction and returns
// the record as it then stands (Detail: linkHash, state).
func (n *Node) identityAct(ctx context.Context, c actCall) (ActResult, error) {
	act := c.act
	return n.do(c, func() (ActResult, error) {
		link := n.keys.Link()
		lh := link.Hash()
		ik := inboxKeyOf(link.InboxKey)
		rec, err := n.client.LinkOf(ctx, common.Address(n.self))
		if err != nil {
			return ActResult{}, chainErr("recordOf", err)
		}
		registered := rec.LinkHash != [32]byte{}
		args := map[string]any{"address": n.self.String()}
		var gact Act
		reason := ""
		switch act {
		case actRegisterIdentity:
			if registered {
				return ActResult{}, fail(CodeStateForbidden, "%s already has an identity record: rotate it", n.self)
			}
			gact, reason = ActRegisterIdentity, "publish this node's inbox key, peer id and identity-link hash under its address (it spends gas)"
		case actRotateIdentity:
			if !registered {
				return ActResult{}, fail(CodeStateForbidden, "%s has no identity record: register it", n.self)
			}
			if rec.LinkHash == lh {
				return ActResult{}, fail(CodeStateForbidden, "the record already names the current identity link: nothing to rotate")
			}
			args["previousLinkHash"] = negotiation.Hash(rec.LinkHash).String()
			gact, reason = ActRotateIdentity, "replace the published identity record with the node's current link (it spends gas)"
		case actRevokeIdentity:
			if !registered {
				return ActResult{}, fail(CodeStateForbidden, "%s has no identity record to revoke", n.self)
			}
			args["linkHash"] = negotiation.Hash(rec.LinkHash).String()
			gact, reason = ActRevokeIdentity, "withdraw the published identity record: counterparties then find none (it spends gas)"
		}
		if act != actRevokeIdentity {
			args["linkHash"] = negotiation.Hash(lh).String()
			args["inboxKey"] = negotiation.Hash(ik).String()
			args["peerId"] = link.PeerID.String()
		}
		if _, err := n.authorize(ctx, gact, "", args, reason, "low"); err != nil {
			return ActResult{}, err
		}
		var r ActResult
		switch act {
		case actRegisterIdentity:
			rc, err := n.client.RegisterLink(ctx, ik, link.PeerID.String(), lh)
			if err != nil {
				return ActResult{}, chainErr("register", err)
			}
			r.Tx = txRef(rc)
		case actRotateIdentity:
			rc, err := n.client.RotateLink(ctx, ik, link.PeerID.String(), lh)
			if err != nil {
				return ActResult{}, chainErr("rotate", err)
			}
			r.Tx = txRef(rc)
		case actRevokeIdentity:
			rc, err := n.client.RevokeLink(ctx)
			if err != nil {
				return ActResult{}, chainErr("revoke", err)
			}
			r.Tx = txRef(rc)
		}
		c, err := n.LookupLink(ctx, n.self)
		if err != nil {
			return r, err
		}
		r.Detail = map[string]string{"state": string(c.State), "linkHash": negotiation.Hash(lh).String()}
		n.log.Info("identity record written", "act", act, "state", c.State, "tx", r.Tx.Hash)
		return r, nil
	})
}

// KnownLink returns the last look-up of a's IdentityLink record, for the
// pages (which read no chain while they render); without one it starts a
// look-up in the background and reports false.
func (n *Node) KnownLink(a negotiation.Address) (LinkCheck, bool) {
	c, ok := n.links.get(a)
	if !ok {
		n.checkLinkLater(a)
	}
	return c, ok
}

// counterpartyLink returns the last look-up of t's counterparty's record
// (the other party's; for an arbitrator, none), and starts one when there
// is none yet (t.mu held: it reads no chain itself).
func (n *Node) counterpartyLink(t *thread) *LinkCheck {
	if t.Th.RoleOf(n.self) == negotiation.RoleArbitrator {
		return nil
	}
	a := n.eng.OtherParty(t)
	if a == (negotiation.Address{}) {
		return nil
	}
	if c, ok := n.links.get(a); ok {
		return &c
	}
	n.checkLinkLater(a)
	return nil
}

// inboxKeyOf returns an inbox key as the 32 bytes the contract stores.
func inboxKeyOf(k ed25519.PublicKey) (b [32]byte) { copy(b[:], k); return b }
