package node

import (
	"context"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/gate"
)

// Public tasks' scopes on chain (TaskScopeRegistry). A poster that posts
// an announcement naming a scope hash (TaskSpec.ScopeHash, which the
// terms carry as terms.scopeHash) may publish it on chain, keyed by the
// announcement's envelope hash (TaskSpec.PublishScope; a gated act, since
// it spends gas): the node builds and signs the announcement, publishes
// the scope under its hash once the gate approves, and only then records
// and announces it. A worker's node reads the registry for every
// announcement on its board that names a scope, and again before it
// answers one: an announcement whose scope is on chain with another hash,
// or was published by another address than the announcement's sender, or
// withdrawn, is refused (scope_mismatch); one whose scope is not on chain
// at all is flagged (unpublished: the hash is the poster's claim only)
// and may be answered. A direct proposal's scope stays inside the sealed
// negotiation: it is never published (docs/node.md, "Scopes on chain").

// actPublishScope is not an act of its own in the runner: the post
// counts it (post_task); the gate asks for it under this name.
const ActPublishScope = gate.ActPublishScope

// ScopeState says how an announcement's named scope hash compares with
// the TaskScopeRegistry.
type ScopeState string

const (
	// ScopePublished: on chain under the announcement's hash, by its
	// sender, with the named hash.
	ScopePublished ScopeState = "published"
	// ScopeUnpublished: nothing on chain for the announcement (flagged).
	ScopeUnpublished ScopeState = "unpublished"
	// ScopeMismatch: on chain with another hash, or by another address
	// than the announcement's sender (refused).
	ScopeMismatch ScopeState = "mismatch"
	// ScopeWithdrawn: the poster withdrew the task (refused).
	ScopeWithdrawn ScopeState = "withdrawn"
)

// ScopeCheck is one look-up of an announcement's scope on chain.
type ScopeCheck struct {
	// State compares the chain's record with the announcement.
	State ScopeState `json:"state"`
	// Named is the scope hash the announcement's terms name.
	Named negotiation.Hash `json:"named"`
	// OnChain and Publisher are the chain's record, when there is one.
	OnChain   *negotiation.Hash    `json:"onChain,omitempty"`
	Publisher *negotiation.Address `json:"publisher,omitempty"`
	// CheckedAt is when the chain was read.
	CheckedAt time.Time `json:"checkedAt"`
}

// refused returns the check's refusal of an answer, or nil.
func (c ScopeCheck) refused() error {
	switch c.State {
	case ScopeMismatch:
		return fail(CodeScopeMismatch, "the announcement names scope %s, the chain holds %s by %s", c.Named, c.OnChain, c.Publisher)
	case ScopeWithdrawn:
		return fail(CodeScopeMismatch, "the poster withdrew the announcement's scope on chain")
	}
	return nil
}

// scopeChecks keeps the last check of each announcement, for the board's
// view. It owns its map and its lock, a leaf.
type scopeChecks struct {
	mu sync.Mutex
	m  map[negotiation.Hash]ScopeCheck
}

func newScopeChecks() *scopeChecks { return &scopeChecks{m: map[negotiation.Hash]ScopeCheck{}} }

func (s *scopeChecks) put(h negotiation.Hash, c ScopeCheck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[h] = c
}

func (s *scopeChecks) get(h negotiation.Hash) (ScopeCheck, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[h]
	return c, ok
}

// namedScope returns the scope hash an announcement's terms name, or nil.
func namedScope(env *negotiation.Envelope) *negotiation.Hash {
	if p, ok := env.Payload.(*negotiation.TaskProposal); ok {
		return p.Terms.ScopeHash
	}
	return nil
}

// CheckScope reads the scope of the board's announcement ann on chain
// and compares it with the scope hash its terms name. An announcement
// that names none has nothing to check (nil, nil).
func (n *Node) CheckScope(ctx context.Context, ann negotiation.Hash) (*ScopeCheck, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	b, err := n.board.announcement(ann)
	if err != nil {
		return nil, err
	}
	if err := n.needChain(); err != nil {
		return nil, err
	}
	return n.checkScope(ctx, b.env)
}

// checkScope is CheckScope for the announcement env (nil when it names no
// scope).
func (n *Node) checkScope(ctx context.Context, env *negotiation.Envelope) (*ScopeCheck, error) {
	named := namedScope(env)
	if named == nil {
		return nil, nil
	}
	sc, err := n.client.ScopeOf(ctx, env.Hash())
	if err != nil {
		return nil, chainErr("scopeOf", err)
	}
	c := ScopeCheck{State: ScopeUnpublished, Named: *named, CheckedAt: n.now()}
	if sc.Poster != (common.Address{}) {
		on, by := negotiation.Hash(sc.ScopeHash), negotiation.Address(sc.Poster)
		c.OnChain, c.Publisher = &on, &by
		switch {
		case by != env.Sender.EVMAddress || on != *named:
			c.State = ScopeMismatch
		case sc.Withdrawn:
			c.State = ScopeWithdrawn
		default:
			c.State = ScopePublished
		}
	}
	n.scopes.put(env.Hash(), c)
	return &c, nil
}

// scopeRefusal checks the scope of the announcement b before this node
// answers it and returns the refusal of a contradicted one; on a node
// without a chain there is nothing to read.
func (n *Node) scopeRefusal(ctx context.Context, b *boardEntry) error {
	if n.client == nil || b.own {
		return nil
	}
	c, err := n.checkScope(ctx, b.env)
	if err != nil || c == nil {
		return err
	}
	return c.refused()
}

// checkScopeLater checks a received announcement's scope in the
// background, for the board's view.
func (n *Node) checkScopeLater(env *negotiation.Envelope) {
	if n.client == nil || namedScope(env) == nil {
		return
	}
	n.spawn(func(ctx context.Context) {
		if _, err := n.checkScope(ctx, env); err != nil && ctx.Err() == nil {
			n.log.Debug("announcement scope not checked", "hash", env.Hash(), "err", err)
		}
	})
}

// withScopes returns the board's announcements with their last scope
// check.
func (n *Node) withScopes(list []Announcement) []Announcement {
	for i := range list {
		if c, ok := n.scopes.get(list[i].Hash); ok {
			list[i].Scope = &c
		}
	}
	return list
}

// publishScope publishes the scope hash the announcement env names under
// its hash, once the gate approves (the post's PublishScope), before the
// announcement is recorded or announced: a refusal leaves nothing behind
// but the approval's record.
func (n *Node) publishScope(ctx context.Context, env *negotiation.Envelope) (*TxRef, error) {
	named := namedScope(env)
	if named == nil {
		return nil, fail(CodeBadArgument, "publishing a scope needs a scope hash")
	}
	if err := n.needChain(); err != nil {
		return nil, err
	}
	p := env.Payload.(*negotiation.TaskProposal)
	args := map[string]any{"announcementHash": env.Hash().String(), "scopeHash": named.String(), "title": p.Terms.Title}
	if _, err := n.authorize(ctx, ActPublishScope, env.NegotiationID, args, "publish the task's scope hash on chain, keyed by its announcement, so workers can check it (it spends gas)", "low"); err != nil {
		return nil, err
	}
	rc, err := n.client.PublishScope(ctx, env.Hash(), *named)
	if err != nil {
		return nil, chainErr("publish", err)
	}
	n.scopes.put(env.Hash(), ScopeCheck{State: ScopePublished, Named: *named, OnChain: named, Publisher: &n.self, CheckedAt: n.now()})
	return txRef(rc), nil
}
