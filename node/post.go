package node

import (
	"context"
	"crypto/rand"
	"math/big"
	"strings"
	"time"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/p2p"
)

// MilestoneSpec is one milestone of a task: its amount in the token's
// smallest unit (wei for ETH) and what it pays for.
type MilestoneSpec struct {
	Amount      *big.Int `json:"amount"`
	Description string   `json:"description"`
}

// TaskSpec describes a task a poster offers. The node fills in the chain
// id, the registry, the token (ETH unless set) and a fresh 128-bit nonce.
type TaskSpec struct {
	Title       string              `json:"title"`
	Description string              `json:"description,omitempty"`
	Category    string              `json:"category,omitempty"`
	Milestones  []MilestoneSpec     `json:"milestones"`
	Deadline    time.Time           `json:"deadline"`
	Token       negotiation.Address `json:"token,omitempty"`
	Limits      *negotiation.Limits `json:"limits,omitempty"`
	// Supervisor is the supervisor the poster's principal names (a third
	// party's address): its node gets the thread and may veto the task
	// for the poster (node/veto.go).
	Supervisor *negotiation.Address `json:"supervisor,omitempty"`
	// ScopeHash, when set, is the hash of the task's scope document; the
	// terms carry it (terms.scopeHash).
	ScopeHash *negotiation.Hash `json:"scopeHash,omitempty"`
	// PublishScope publishes ScopeHash on chain under the announcement's
	// hash (PostTask only; a gated act: scope.go).
	PublishScope bool `json:"publishScope,omitempty"`
}

// newTerms builds the offer's terms from spec: its deadline must be after
// now(), and the chain id and registry are the chain client's, or c's on
// a node without a chain (client nil; domain).
func newTerms(ctx context.Context, spec TaskSpec, now func() time.Time, c ChainConfig, client *chain.Client) (negotiation.Terms, error) {
	if strings.TrimSpace(spec.Title) == "" {
		return negotiation.Terms{}, fail(CodeBadArgument, "title is empty")
	}
	if len(spec.Milestones) == 0 {
		return negotiation.Terms{}, fail(CodeBadArgument, "no milestones")
	}
	if !spec.Deadline.After(now()) {
		return negotiation.Terms{}, fail(CodeBadArgument, "deadline %s is not in the future", spec.Deadline.Format(time.RFC3339))
	}
	ms, err := milestones(spec.Milestones)
	if err != nil {
		return negotiation.Terms{}, err
	}
	chainID, registry, err := domain(ctx, c, client)
	if err != nil {
		return negotiation.Terms{}, err
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return negotiation.Terms{}, err
	}
	return negotiation.Terms{
		Title: spec.Title, Description: spec.Description, Category: spec.Category,
		ChainID: negotiation.NewUint256(chainID), Registry: registry, Token: spec.Token,
		Milestones: ms, Deadline: uint64(spec.Deadline.Unix()),
		Nonce: negotiation.NewUint256(new(big.Int).SetBytes(nonce[:])), Limits: spec.Limits,
		ScopeHash: spec.ScopeHash,
	}, nil
}

func milestones(specs []MilestoneSpec) ([]negotiation.Milestone, error) {
	out := make([]negotiation.Milestone, len(specs))
	for i, m := range specs {
		if m.Amount == nil || m.Amount.Sign() <= 0 || m.Amount.BitLen() > 255 {
			return nil, fail(CodeBadArgument, "milestone %d: amount must be positive", i)
		}
		out[i] = negotiation.Milestone{Amount: negotiation.NewUint256(m.Amount), Description: m.Description}
	}
	return out, nil
}

// domain returns the chain id and registry offers are signed for: the
// chain's (client), or the configured ones (c) on a node without a chain.
func domain(ctx context.Context, c ChainConfig, client *chain.Client) (*big.Int, negotiation.Address, error) {
	registry := negotiation.Address(c.Contracts.TaskRegistry)
	if client != nil {
		id, err := client.ChainID(ctx)
		if err != nil {
			return nil, registry, failWrap(CodeChainFailed, err, "chain id")
		}
		return id, registry, nil
	}
	if c.ChainID == 0 || registry == (negotiation.Address{}) {
		return nil, registry, fail(CodeNoChain, "no chain: set chain.chain_id and chain.contracts.task_registry to offer tasks")
	}
	return new(big.Int).SetUint64(c.ChainID), registry, nil
}

// newNegotiationID returns a fresh UUID v4.
func newNegotiationID() (string, error) {
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	return negotiation.NewNegotiationID(r), nil
}

// PostTask announces a task on the public task board: a TaskProposal
// without recipients, in a negotiation of its own, recorded and published.
// Workers answer it in negotiations they open (CounterAnnouncement,
// AcceptAnnouncement on their nodes).
func (n *Node) PostTask(ctx context.Context, spec TaskSpec) (Announcement, error) {
	var a Announcement
	_, err := n.do(actCall{act: actPostTask}, func() (ActResult, error) {
		terms, err := newTerms(ctx, spec, n.now, n.cfg.Chain, n.client)
		if err != nil {
			return ActResult{}, err
		}
		annID, err := newNegotiationID()
		if err != nil {
			return ActResult{}, err
		}
		now := n.now()
		var pk negotiation.PublicKey
		copy(pk[:], n.keys.Inbox().PublicKey())
		h := negotiation.Header{
			NegotiationID: annID, Sequence: 1, Timestamp: now.UTC().Truncate(time.Millisecond),
			Sender: negotiation.Sender{EVMAddress: n.self, XMTPPublicKey: pk},
		}
		if err := checkSupervisor(spec.Supervisor, n.self, negotiation.Address{}); err != nil {
			return ActResult{}, err
		}
		p := &negotiation.TaskProposal{Terms: terms, Supervisor: spec.Supervisor}
		if err := n.px.announcementCard(p, h.Timestamp); err != nil {
			return ActResult{}, err
		}
		env, err := negotiation.Build(h, p, n.keys.Inbox(), negotiation.DecodeOptions{})
		if err != nil {
			return ActResult{}, &Error{Code: CodeOf(err), Msg: "building the announcement", Err: err}
		}
		// Over the board's rate the post is refused (rate_limited, with the
		// wait) rather than published and dropped by the receivers' limit.
		if err := publishToken(n.host.ReserveAnnouncement); err != nil {
			return ActResult{}, err
		}
		var scopeTx *TxRef
		if spec.PublishScope {
			if scopeTx, err = n.publishScope(ctx, env); err != nil {
				return ActResult{}, err
			}
		}
		if _, _, err := n.led.AppendEnvelope(ctx, ledger.KindEnvelopeSent, env, "ok", now); err != nil {
			return ActResult{}, failWrap(CodeStoreFailed, err, "announcement")
		}
		b := &boardEntry{env: env, seen: now, own: true}
		n.board.put(b)
		n.m.sent.WithLabelValues(string(env.Type)).Inc()
		a = n.withScopes([]Announcement{b.view()})[0]
		a.ScopeTx = scopeTx
		if err := n.host.Announce(ctx, env); err != nil {
			return ActResult{}, failWrap(Code(p2p.CodeOf(err)), err, "announcement recorded but not published")
		}
		n.events.publish(Event{Kind: EventAnnouncement, Hash: env.Hash().String(), Direction: "sent", At: now})
		return ActResult{}, nil
	})
	return a, err
}

// Announce publishes an announcement of this node again (for peers that
// joined the board after it was first published).
func (n *Node) Announce(ctx context.Context, h negotiation.Hash) error {
	if err := n.running(); err != nil {
		return err
	}
	b := n.board.get(h)
	if b == nil || !b.own {
		return fail(CodeUnknownTask, "no announcement %s of this node", h)
	}
	if err := publishToken(n.host.ReserveAnnouncement); err != nil {
		return err
	}
	return n.host.Announce(ctx, b.env)
}

// takeAnnouncement records an announcement from the task board and puts
// it on the board.
func (n *Node) takeAnnouncement(ctx context.Context, d p2p.Delivery) negotiation.Code {
	env := d.Envelope
	if !env.IsAnnouncement() {
		return negotiation.CodeNotAddressed
	}
	poster := env.Sender.EVMAddress
	if n.cs.stateOf(poster) == ConsentDenied {
		return negotiation.Code(p2p.CodeConsentDenied) // the board takes nothing of it; nothing recorded
	}
	if n.board.has(env.Hash()) {
		return negotiation.CodeDuplicate
	}
	now := n.now()
	// A poster the principal allowed has its announcements recorded at
	// once (they survive a restart); anyone else's stay on the bounded
	// board in memory and reach the ledger only when this node answers
	// one (recordOpened), so strangers' announcements cost the ledger
	// nothing however many there are.
	recorded := n.cs.stateOf(poster) == ConsentAllowed
	if recorded {
		if _, _, err := n.led.AppendEnvelope(ctx, ledger.KindEnvelopeReceived, env, "ok", now); err != nil {
			n.log.Warn("announcement not recorded", "cid", env.CID(), "err", err)
			return negotiation.Code(p2p.CodeBusy)
		}
	}
	n.board.take(env, now) // the board is bounded: the oldest leave first
	n.checkScopeLater(env)
	n.m.received.WithLabelValues(string(env.Type), "ok").Inc()
	n.events.publish(Event{Kind: EventAnnouncement, Hash: env.Hash().String(), Direction: "received", At: now})
	n.log.Debug("announcement on the board", "hash", env.Hash(), "poster", env.Sender.EVMAddress)
	return negotiation.Code(p2p.CodeOK)
}

// Board returns the announcements this node knows, newest first.
func (n *Node) Board() []Announcement { return n.withScopes(n.board.list(n.now())) }

// ProposeTask offers a task to one worker directly: a TaskProposal
// addressed to it, opening a new negotiation in which this node is the
// poster.
func (n *Node) ProposeTask(ctx context.Context, worker negotiation.Address, spec TaskSpec) (ActResult, error) {
	nid, err := newNegotiationID()
	if err != nil {
		return ActResult{}, err
	}
	t, err := engine.NewThread(negotiation.Params{NegotiationID: nid, Self: n.self}, negotiation.RolePoster, false)
	if err != nil {
		return ActResult{}, err
	}
	var r ActResult
	propose := func(t *thread) error {
		if spec.PublishScope {
			return fail(CodeBadArgument, "a direct proposal's scope stays in the sealed negotiation: only an announcement's is published")
		}
		terms, err := newTerms(ctx, spec, n.now, n.cfg.Chain, n.client)
		if err != nil {
			return err
		}
		if err := checkSupervisor(spec.Supervisor, n.self, worker); err != nil {
			return err
		}
		p := &negotiation.TaskProposal{Terms: terms, Supervisor: spec.Supervisor}
		env, _, err := n.snd.send(ctx, t, p, []negotiation.Address{worker}, true)
		if err != nil {
			return err
		}
		r = ActResult{Thread: n.viewLocked(t), Envelope: envRef(env)}
		return nil
	}
	a := actCall{act: negotiation.ActPropose, fresh: t, args: negotiation.ActArgs{Party: worker}, locked: propose}
	return n.do(a, func() (ActResult, error) { return r, nil })
}

// ActResult is what an act returns: the thread as it stands after the
// act, the envelope the node sent and the transaction it made, if any.
type ActResult struct {
	Thread   ThreadView   `json:"thread"`
	Envelope *EnvelopeRef `json:"envelope,omitempty"`
	Tx       *TxRef       `json:"tx,omitempty"`
	// Detail carries act-specific values (amounts withdrawn, the bundle's
	// CID handed to an arbitrator).
	Detail map[string]string `json:"detail,omitempty"`
}

func fmtAmount(x *big.Int) string {
	if x == nil {
		return "0"
	}
	return x.String()
}
