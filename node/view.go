package node

import (
	"context"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// ThreadView is a negotiation as the node's API shows it: its state and
// the state's A2A projection, the parties, the current offer, the
// agreement, the task and dispute, the deliveries and every envelope's
// record.
type ThreadView struct {
	NegotiationID string                  `json:"negotiationId"`
	State         negotiation.State       `json:"state"`
	A2A           negotiation.A2AState    `json:"a2a"`
	Role          negotiation.Role        `json:"role"`
	Poster        *negotiation.Address    `json:"poster,omitempty"`
	Worker        *negotiation.Address    `json:"worker,omitempty"`
	Arbitrator    *negotiation.Address    `json:"arbitrator,omitempty"`
	Announcement  *negotiation.Hash       `json:"announcement,omitempty"`
	Current       *OfferView              `json:"current,omitempty"`
	Agreement     *AgreementView          `json:"agreement,omitempty"`
	TaskID        string                  `json:"taskId,omitempty"`
	DisputeID     string                  `json:"disputeId,omitempty"`
	Ruling        *uint64                 `json:"ruling,omitempty"`
	Deliveries    []DeliveryView          `json:"deliveries,omitempty"`
	Log           []RecordView            `json:"log"`
	Limits        map[string]int          `json:"limits"`
	Observer      bool                    `json:"observer,omitempty"`
	Pending       int                     `json:"pendingFacts,omitempty"`
	Milestones    []negotiation.Milestone `json:"milestones,omitempty"`
	// Token is the ERC-20 token the amounts are in (its symbol and
	// decimals where it has them); absent for ETH.
	Token *TokenView `json:"token,omitempty"`
	// Capabilities are the worker's capability proofs and their checks
	// (capability.go).
	Capabilities []CapabilityView `json:"capabilities,omitempty"`
	// Payments are the partial payments of the milestones that have a
	// payment request or a partial release (payment.go).
	Payments []PaymentView `json:"payments,omitempty"`
	// Refused are this node's envelopes of the negotiation that their
	// recipient refused with a final code (consent_denied, consent_limit,
	// or input it found not authentic): they will not be delivered.
	Refused []RefusalView `json:"refused,omitempty"`
	// TimedOut is set when the dispute was resolved by its timeout
	// (Ruling is then the even split's 5001).
	TimedOut bool `json:"timedOut,omitempty"`
	// Refunded are the milestones the poster reclaimed after the
	// deadline.
	Refunded []int `json:"refunded,omitempty"`
	// Supervisors and Vetoes are the supervisors the parties named and
	// the vetoes the thread took (veto.go).
	Supervisors []SupervisorView `json:"supervisors,omitempty"`
	Vetoes      []VetoView       `json:"vetoes,omitempty"`
	// CounterpartyLink is the last look-up of the counterparty's
	// IdentityLink record on chain, compared with the link this node
	// holds for it (identity.go); absent until the first look-up ends.
	CounterpartyLink *LinkCheck `json:"counterpartyLink,omitempty"`
}

// OfferView is one revision of the terms.
type OfferView struct {
	Hash     negotiation.Hash    `json:"hash"`
	Revision int                 `json:"revision"`
	By       negotiation.Address `json:"by"`
	Terms    negotiation.Terms   `json:"terms"`
}

// AgreementView is an agreed settlement.
type AgreementView struct {
	Offer  negotiation.Hash `json:"offer"`
	Digest negotiation.Hash `json:"digest"`
	Amount string           `json:"amount"`
}

// DeliveryView is one milestone's latest delivery.
type DeliveryView struct {
	Milestone  int                   `json:"milestone"`
	Notice     negotiation.Hash      `json:"notice"`
	ProofCID   negotiation.CID       `json:"proofCid"`
	ChainProof negotiation.CID       `json:"chainProofCid,omitempty"`
	Files      []negotiation.FileRef `json:"files,omitempty"`
	Fetched    bool                  `json:"fetched"`
	Accepted   bool                  `json:"accepted"`
}

// RecordView is the thread's record of one authentic envelope.
type RecordView struct {
	Hash   negotiation.Hash        `json:"hash"`
	Type   negotiation.MessageType `json:"type"`
	Sender negotiation.Address     `json:"sender"`
	Seq    uint64                  `json:"sequence"`
	Code   string                  `json:"code"`
	State  negotiation.State       `json:"state"`
}

func addr(a negotiation.Address) *negotiation.Address {
	if a == (negotiation.Address{}) {
		return nil
	}
	return &a
}

// Thread returns the view of negotiation nid.
func (n *Node) Thread(nid string) (ThreadView, error) {
	var v ThreadView
	err := n.eng.With(nid, func(t *thread) error {
		v = n.viewLocked(t)
		return nil
	})
	if err == nil {
		n.withToken(&v)
	}
	return v, err
}

// Threads returns every thread, in the order of their negotiation ids
// (stable across calls).
func (n *Node) Threads() []ThreadView {
	out := make([]ThreadView, 0, n.eng.Len())
	n.eng.Each(context.Background(), func(t *thread) { out = append(out, n.viewLocked(t)) })
	for i := range out {
		n.withToken(&out[i])
	}
	return out
}

// viewLocked builds t's view (t.mu held).
func (n *Node) viewLocked(t *thread) ThreadView {
	th := t.Th
	st := th.StateAt(n.now())
	v := ThreadView{
		NegotiationID: t.ID, State: st, A2A: st.A2A(), Role: th.RoleOf(n.self),
		Poster: addr(th.Poster()), Worker: addr(th.Worker()), Arbitrator: addr(th.Arbitrator()),
		Observer: t.Observer, Pending: len(t.Pending), Milestones: th.Milestones(),
	}
	if v.Role == negotiation.RoleNone {
		v.Role = t.Role
	}
	if a := t.Params.Announcement; a != nil {
		h := a.Hash()
		v.Announcement = &h
	}
	if c := th.Current(); c != nil {
		v.Current = &OfferView{Hash: c.Hash(), Revision: c.Revision, By: c.By, Terms: *c.Terms}
	}
	if tok := termsToken(t); tok != (negotiation.Address{}) {
		tv, ok := n.tokens.cached(tok)
		if !ok {
			tv = TokenView{Address: tok}
		}
		v.Token = &tv
	}
	if a := th.Agreement(); a != nil {
		v.Agreement = &AgreementView{Offer: a.Offer, Digest: a.Digest, Amount: fmtAmount(a.Settlement.Amount)}
	}
	if id := th.TaskID(); id != nil {
		v.TaskID = id.String()
	}
	v.DisputeID = disputeIDOf(t)
	if r, ok := th.Ruling(); ok {
		v.Ruling = &r
	}
	v.TimedOut = th.TimedOut()
	for m := range th.Milestones() {
		if th.Refunded(m) {
			v.Refunded = append(v.Refunded, m)
		}
	}
	v.Refused = n.out.ofThread(t, n.self)
	v.Supervisors, v.Vetoes = supervisionViews(th)
	v.CounterpartyLink = n.counterpartyLink(t)
	maxRev, ttl, maxAcc := th.Limits()
	v.Limits = map[string]int{"max_revisions": maxRev, "proposal_ttl_seconds": ttl, "max_accept_attempts": maxAcc}
	for _, e := range th.Deliveries() {
		p := e.Payload.(*negotiation.DeliveryNotice)
		d := DeliveryView{Milestone: p.Milestone, Notice: e.Hash(), ProofCID: p.ProofCID, ChainProof: t.Proofs[p.Milestone], Files: p.Files, Accepted: th.DeliveryAccepted(e.Hash()), Fetched: true}
		for _, f := range deliveryFiles(p) {
			if !n.eng.Stored(context.Background(), f.c) {
				d.Fetched = false
			}
		}
		v.Deliveries = append(v.Deliveries, d)
	}
	v.Capabilities = capabilityViews(context.Background(), n.led, t, n.self)
	v.Payments = paymentViews(t)
	log := th.Log()
	v.Log = make([]RecordView, len(log))
	for i, r := range log {
		code := "ok"
		if r.Code != "" {
			code = string(r.Code)
		}
		v.Log[i] = RecordView{Hash: r.Hash, Type: r.Type, Sender: r.Sender, Seq: r.Seq, Code: code, State: r.State}
	}
	return v
}

// Status is the node's state at a glance, for the discovery document and
// `parley status`.
type Status struct {
	Name    string              `json:"name,omitempty"`
	Address negotiation.Address `json:"evmAddress"`
	PeerID  string              `json:"peerId"`
	// Addrs are the addresses the node advertises, with /p2p/<peer id>
	// (the same as Network.Announced).
	Addrs        []string         `json:"addrs"`
	LinkHash     negotiation.Hash `json:"linkHash"`
	LinkExpires  time.Time        `json:"linkExpires"`
	Capabilities []string         `json:"capabilities,omitempty"`
	Threads      int              `json:"threads"`
	Board        int              `json:"board"`
	Ledger       ledger.Head      `json:"ledgerHead"`
	Chain        bool             `json:"chain"`
	ChainError   string           `json:"chainError,omitempty"`
	Approvals    int              `json:"pendingApprovals"`
	Outbox       int              `json:"outbox"`
	// LedgerCheck is how far the full verification of the ledger has come
	// since the start, and the damage found.
	LedgerCheck LedgerCheck `json:"ledgerCheck"`
	// Timeouts are the timeout exits due on chain in this node's threads,
	// as the last scan found them (timeouts.go).
	Timeouts []TimeoutExit `json:"timeouts,omitempty"`
	// Network is the transport's reachability (public, private behind
	// NAT, relayed, unknown), its listen and announced addresses, and its
	// connections by path (direct or relayed) and direction.
	Network p2p.NetStatus `json:"network"`
}

// Status returns the node's status.
func (n *Node) Status() (Status, error) {
	if err := n.running(); err != nil {
		return Status{}, err
	}
	s := Status{
		Name: n.cfg.Name, Address: n.self, PeerID: n.host.ID().String(), Capabilities: n.cfg.Capabilities,
		LinkHash: negotiation.Hash(n.keys.Link().Hash()), LinkExpires: n.keys.Link().ExpiresAt,
		Threads: n.eng.Len(), Ledger: n.led.Head(), Chain: n.client != nil,
		Approvals: len(n.gt.PendingApprovals()), Outbox: n.host.OutboxLen(),
		LedgerCheck: n.check.view(),
		Timeouts:    n.tw.list(),
	}
	s.Network = n.host.Net()
	s.Addrs = s.Network.Announced
	s.Board = n.board.len()
	if n.watcher != nil {
		if err := n.watcher.LastError(); err != nil {
			s.ChainError = err.Error()
		}
	}
	return s, nil
}
