package node

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/p2p"
)

// A room is one negotiation as PXP's MCP binding shows it (seed section 8):
// this node hosts the seat of its own side only, and an agent in that seat
// speaks through the same enforcement as the node's own acts (the intent
// card's mandate, the approval gate for binding acts). node/mcp serves
// the rooms; these are the methods and shapes it reads.

// RoomRequest opens a room: a negotiation with Counterpart, opened by this
// node (its poster) with the first proposal Send makes.
type RoomRequest struct {
	// Topic is what the two sides are aligning on.
	Topic string `json:"topic"`
	// Principal is this side's principal's name (the sealed card's name
	// takes precedence once there is one).
	Principal string `json:"principal"`
	// Counterpart is the EVM address of the other side's node.
	Counterpart negotiation.Address `json:"counterpart"`
	// CounterpartProxy names the agent the other side brings
	// (informational).
	CounterpartProxy string `json:"counterpartProxy,omitempty"`
	// Agent is the agent that asked for the room: it takes this side's
	// seat.
	Agent string `json:"agent"`
}

// RoomInfo is a room just created.
type RoomInfo struct {
	ID              string              `json:"id"`
	Role            negotiation.Role    `json:"role"`
	Counterpart     negotiation.Address `json:"counterpart"`
	CounterpartPeer string              `json:"counterpartPeer,omitempty"`
}

// RoomView is a negotiation as this node's seat sees it.
type RoomView struct {
	ID                   string               `json:"id"`
	Topic                string               `json:"topic"`
	State                negotiation.State    `json:"state"`
	A2A                  negotiation.A2AState `json:"a2a"`
	Role                 negotiation.Role     `json:"role"`
	Self                 negotiation.Address  `json:"self"`
	Counterpart          negotiation.Address  `json:"counterpart"`
	CounterpartPeer      string               `json:"counterpartPeer,omitempty"`
	Principal            string               `json:"principal,omitempty"`
	CounterpartPrincipal string               `json:"counterpartPrincipal,omitempty"`
	CounterpartProxy     string               `json:"counterpartProxy,omitempty"`
	// Agent is the agent last recorded in this side's seat.
	Agent string `json:"agent,omitempty"`
	// Card is this side's sealed card (private to the seat), CardHash its
	// hash; CounterpartCardHash the hash the other side's last envelope
	// carried.
	Card                json.RawMessage   `json:"card,omitempty"`
	CardHash            *negotiation.Hash `json:"cardHash,omitempty"`
	CounterpartCardHash *negotiation.Hash `json:"counterpartCardHash,omitempty"`
	// Envelopes are the negotiation's authentic envelopes in the order
	// this node recorded them.
	Envelopes []RoomEnvelope `json:"envelopes"`
	// Current is the offer on the table.
	Current *OfferView `json:"current,omitempty"`
	// YourTurn is true when this side may send now: the negotiation phase
	// is open, this side is not paused, and the other side spoke last (or
	// this side opens the room).
	YourTurn bool `json:"yourTurn"`
	// PendingReviews are the other side's claims this side has not
	// reviewed; its next envelope reviews each (the node adds the reviews
	// the card decides).
	PendingReviews []negotiation.Claim `json:"pendingReviews,omitempty"`
	// Unverified are the claims of either side that stay unverified.
	Unverified []RoomClaim `json:"unverified,omitempty"`
	// Escalation is the question this side waits on: the room is paused
	// until the principal answers.
	Escalation *RoomEscalation `json:"escalation,omitempty"`
	// CounterpartPaused is true while the other side's last envelope
	// says it waits for its principal.
	CounterpartPaused bool `json:"counterpartPaused,omitempty"`
	// Proofs are the worker's capability proofs and which were checked
	// (capability.go), as the thread view has them.
	Proofs []CapabilityView `json:"proofs,omitempty"`
	// Answers are this side's principal's answers, oldest first.
	Answers []RoomAnswer `json:"answers,omitempty"`
	// Ended is true once the negotiation phase is over: the brief can be
	// read.
	Ended bool `json:"ended"`
	// Refused are this side's envelopes the counterpart's node refused
	// with a final code (consent_denied, consent_limit, ...): never
	// delivered.
	Refused []RefusalView `json:"refused,omitempty"`
	// Version counts the room's changes; Wait waits for a higher one.
	Version int `json:"version"`
}

// RoomEnvelope is one envelope of a room.
type RoomEnvelope struct {
	Hash       negotiation.Hash        `json:"hash"`
	Type       negotiation.MessageType `json:"type"`
	From       negotiation.Address     `json:"from"`
	Role       negotiation.Role        `json:"role"`
	Ours       bool                    `json:"ours"`
	Speaker    string                  `json:"speaker"`
	Agent      string                  `json:"agent,omitempty"`
	Message    string                  `json:"message,omitempty"`
	Claims     []negotiation.Claim     `json:"claims,omitempty"`
	Reviews    []negotiation.Review    `json:"reviews,omitempty"`
	Status     negotiation.Status      `json:"status,omitempty"`
	Escalation *negotiation.Escalation `json:"escalation,omitempty"`
	DependsOn  []string                `json:"dependsOn,omitempty"`
	Terms      *negotiation.Terms      `json:"terms,omitempty"`
	Accepts    *negotiation.Hash       `json:"accepts,omitempty"`
	// Code is "ok", or the code with which the state machine refused the
	// envelope's effect.
	Code string    `json:"code"`
	At   time.Time `json:"at"`
}

// RoomClaim is a claim of either side with who made it and why it stays
// unverified.
type RoomClaim struct {
	negotiation.Claim
	By   negotiation.Address `json:"by"`
	Ours bool                `json:"ours"`
	Why  string              `json:"why,omitempty"`
}

// RoomEscalation is a pending question to the principal.
type RoomEscalation struct {
	Question string    `json:"question"`
	Reason   string    `json:"reason,omitempty"`
	At       time.Time `json:"at"`
	Triggers []string  `json:"triggers,omitempty"`
}

// RoomAnswer is one answer of this side's principal.
type RoomAnswer struct {
	Question  string          `json:"question"`
	Answer    string          `json:"answer"`
	Via       negotiation.Via `json:"via"`
	At        time.Time       `json:"at"`
	Confirmed bool            `json:"confirmed"`
}

// ProxyMessage is one message an agent sends from its seat: an offer
// (Proposal: the first opens the room, a later one counters), an
// agreement (Status agree: accepts the other side's current offer exactly)
// or an escalation (Status escalate with Escalation's one question), with
// tagged claims, reviews and the claims an offer depends on.
type ProxyMessage struct {
	Message    string                  `json:"message"`
	Status     negotiation.Status      `json:"status"`
	Claims     []negotiation.Claim     `json:"claims,omitempty"`
	Reviews    []negotiation.Review    `json:"reviews,omitempty"`
	Proposal   *ProxyProposal          `json:"proposal,omitempty"`
	Escalation *negotiation.Escalation `json:"escalation,omitempty"`
}

// ProxyProposal is an offer and the claim ids it rests on.
type ProxyProposal struct {
	Terms     ProxyTerms `json:"terms"`
	DependsOn []string   `json:"dependsOn,omitempty"`
}

// ProxyTerms are an offer's terms as an agent states them: in a counter a
// zero member keeps the current offer's value; a first offer needs a
// title, milestones and a deadline. The node fills in the chain id, the
// registry and the nonce.
type ProxyTerms struct {
	Title       string               `json:"title,omitempty"`
	Description string               `json:"description,omitempty"`
	Category    string               `json:"category,omitempty"`
	Milestones  []MilestoneSpec      `json:"milestones,omitempty"`
	Deadline    time.Time            `json:"deadline,omitzero"`
	Token       *negotiation.Address `json:"token,omitempty"`
	// Supervisor is the supervisor this side names (node/veto.go).
	Supervisor *negotiation.Address `json:"supervisor,omitempty"`
}

// CreateRoom opens a room with req.Counterpart for this node's principal:
// a negotiation this node opens as the poster, recorded (with the default
// card in force) before any envelope; the first envelope is the proposal
// Send makes. req.Agent takes this side's seat.
func (n *Node) CreateRoom(ctx context.Context, req RoomRequest) (RoomInfo, error) {
	if err := n.running(); err != nil {
		return RoomInfo{}, err
	}
	info, err := n.px.createRoom(ctx, req)
	if err != nil {
		return RoomInfo{}, err
	}
	info.CounterpartPeer = peerOf(n.host, req.Counterpart)
	return info, nil
}

// createRoom is CreateRoom without the counterpart's peer id.
func (s *pxpService) createRoom(ctx context.Context, req RoomRequest) (RoomInfo, error) {
	if req.Counterpart == (negotiation.Address{}) || req.Counterpart == s.self {
		return RoomInfo{}, fail(CodeBadArgument, "counterpart %s: another node's EVM address", req.Counterpart)
	}
	if strings.TrimSpace(req.Topic) == "" {
		return RoomInfo{}, fail(CodeBadArgument, "a room needs a topic")
	}
	nid, err := newNegotiationID()
	if err != nil {
		return RoomInfo{}, err
	}
	t, err := engine.NewThread(negotiation.Params{NegotiationID: nid, Self: s.self}, negotiation.RolePoster, false)
	if err != nil {
		return RoomInfo{}, err
	}
	t.Lock()
	defer t.Unlock()
	s.eng.OpenPXP(t)
	meta := engine.RoomMeta(req)
	body, err := json.Marshal(meta)
	if err != nil {
		return RoomInfo{}, err
	}
	var b batch
	s.eng.PutOpened(&b, t)
	b.Put(ledger.Record{Kind: KindRoomOpened, NegotiationID: nid, Body: body, At: s.now()}, nil)
	s.eng.PutCard(&b, t)
	if err := s.write(ctx, &b, "room "+nid); err != nil {
		return RoomInfo{}, err
	}
	t.PXP.Room, t.PXP.Agent = &meta, req.Agent
	s.eng.Register(t)
	s.events.publish(Event{Kind: EventState, NegotiationID: nid, State: t.Th.State(), At: s.now()})
	return RoomInfo{ID: nid, Role: negotiation.RolePoster, Counterpart: req.Counterpart}, nil
}

// peerOf returns the libp2p peer id of the node with EVM address a, when
// host (nil before Start) knows its identity link.
func peerOf(host *p2p.Host, a negotiation.Address) string {
	if host == nil {
		return ""
	}
	if l, ok := host.Link(a); ok {
		return l.PeerID.String()
	}
	return ""
}

// Room returns negotiation nid as this node's seat sees it.
func (n *Node) Room(_ context.Context, nid string) (RoomView, error) {
	if err := n.running(); err != nil {
		return RoomView{}, err
	}
	v, err := n.px.room(nid)
	if err != nil {
		return RoomView{}, err
	}
	v.CounterpartPeer = peerOf(n.host, v.Counterpart)
	return v, nil
}

// room returns negotiation nid as this node's seat sees it, without the
// counterpart's peer id.
func (s *pxpService) room(nid string) (RoomView, error) {
	var v RoomView
	err := s.eng.With(nid, func(t *thread) error {
		v = s.roomOf(t)
		return nil
	})
	return v, err
}

// roomOf builds t's room view (t.mu held), without the counterpart's
// peer id.
func (s *pxpService) roomOf(t *thread) RoomView {
	s.eng.OpenPXP(t)
	th, px := t.Th, t.PXP
	st := th.StateAt(s.now())
	v := RoomView{ID: t.ID, State: st, A2A: st.A2A(), Role: th.RoleOf(s.self), Self: s.self,
		Counterpart: s.eng.OtherParty(t), Agent: px.Agent, Ended: ended(st), Envelopes: []RoomEnvelope{}}
	if v.Role == negotiation.RoleNone {
		v.Role = t.Role
	}
	if px.Room != nil {
		v.Topic, v.Principal, v.CounterpartProxy = px.Room.Topic, px.Room.Principal, px.Room.CounterpartProxy
		if v.Counterpart == (negotiation.Address{}) {
			v.Counterpart = px.Room.Counterpart
		}
	}
	if ann := t.Params.Announcement; ann != nil && ann.Sender.EVMAddress != s.self {
		if v.Counterpart == (negotiation.Address{}) {
			v.Counterpart = ann.Sender.EVMAddress
		}
		v.CounterpartPrincipal = ann.Payload.Proxy().Principal // until the poster's own envelopes name it
	}
	v.Refused = s.out.ofThread(t, s.self)
	v.Proofs = capabilityViews(context.Background(), s.led, t, s.self)
	if c := th.Current(); c != nil {
		v.Current = &OfferView{Hash: c.Hash(), Revision: c.Revision, By: c.By, Terms: *c.Terms}
		if v.Topic == "" {
			v.Topic = c.Terms.Title
		}
	}
	if m := px.Mandate; m != nil {
		c := m.Card()
		h := c.Seal()
		v.Card, v.CardHash, v.Principal = json.RawMessage(c.Bytes()), &h, c.Principal.Name
		if th, ok := m.TheirCardHash(); ok {
			v.CounterpartCardHash = &th
		}
		for _, id := range m.Pending() {
			if c, ok := m.Claim(id); ok {
				v.PendingReviews = append(v.PendingReviews, c.Claim)
			}
		}
		for _, c := range m.Claims() {
			if m.Verified(c.ID) {
				continue
			}
			v.Unverified = append(v.Unverified, RoomClaim{Claim: c.Claim, By: c.By, Ours: c.Ours, Why: whyUnverified(c)})
		}
		if e, ok := pendingEscalation(t); ok {
			v.Escalation = &RoomEscalation{Question: e.Question, Reason: e.Reason, At: e.At, Triggers: e.Triggers}
		}
		for _, a := range m.Answers() {
			at, _ := negotiation.ParseTime(a.Amendment.At)
			v.Answers = append(v.Answers, RoomAnswer{Question: a.Amendment.Question, Answer: a.Amendment.Answer, Via: a.Via, At: at, Confirmed: a.Confirmed})
		}
	}
	var last *negotiation.Envelope
	for _, r := range th.Log() {
		e := th.Envelope(r.Hash)
		if e == nil {
			continue
		}
		re := roomEnvelope(e, r, s.self, th.RoleOf(r.Sender))
		if re.Ours {
			re.Agent = px.Agents[r.Hash]
			if m := px.Messages[r.Hash]; m != "" && re.Message == "" {
				re.Message = m
			}
		}
		v.Envelopes = append(v.Envelopes, re)
		if r.Code == "" && (re.Role == negotiation.RolePoster || re.Role == negotiation.RoleWorker) {
			last = e
			if !re.Ours && v.CounterpartCardHash == nil {
				if h := e.Payload.Proxy().IntentCardHash; h != nil {
					hh := *h
					v.CounterpartCardHash = &hh
				}
			}
			if name := e.Payload.Proxy().Principal; !re.Ours && name != "" {
				v.CounterpartPrincipal = name // the display name its card gives (PXP)
			}
		}
	}
	if last != nil && last.Sender.EVMAddress != s.self {
		v.CounterpartPaused = last.Payload.Proxy().Status == negotiation.StatusEscalate
	}
	paused := v.Escalation != nil
	switch {
	case v.Ended || paused:
	case last == nil:
		// A new room: its creator opens it; a negotiation answering an
		// announcement waits for this side's answer.
		ann := t.Params.Announcement
		v.YourTurn = (px.Room != nil && t.Role == negotiation.RolePoster) || (ann != nil && ann.Sender.EVMAddress != s.self)
	default:
		v.YourTurn = last.Sender.EVMAddress != s.self
	}
	v.Version = len(th.Log()) + t.Steps + px.Events
	return v
}

// roomEnvelope is the room's view of envelope e, recorded as r.
func roomEnvelope(e *negotiation.Envelope, r negotiation.Record, self negotiation.Address, role negotiation.Role) RoomEnvelope {
	px := e.Payload.Proxy()
	re := RoomEnvelope{Hash: r.Hash, Type: e.Type, From: r.Sender, Role: role, Ours: r.Sender == self, Speaker: "proxy",
		Claims: px.Claims, Reviews: px.Reviews, Status: px.Status, Escalation: px.Escalation, DependsOn: px.DependsOn,
		Code: "ok", At: e.Timestamp}
	if r.Code != "" {
		re.Code = string(r.Code)
	}
	switch p := e.Payload.(type) {
	case *negotiation.TaskProposal:
		re.Terms = &p.Terms
	case *negotiation.TaskCounterOffer:
		re.Terms, re.Message = &p.Terms, p.Reason
	case *negotiation.TaskAcceptance:
		h := p.AcceptedOfferHash
		re.Accepts = &h
	case *negotiation.CapabilityProof:
		re.Message = p.Description
	case *negotiation.DeliveryNotice:
		re.Message = p.Note
	case *negotiation.MutualCancel:
		re.Message = p.Reason
	case *negotiation.RevisionRequest:
		re.Message = p.Reason
	case *negotiation.DisputeEvidence:
		re.Message = p.Description
	case *negotiation.PaymentRequest:
		re.Message = p.Note
	case *negotiation.AcceptDelivery:
		re.Message = p.Note
	case *negotiation.ArbitratorProposal:
		re.Message = p.Reason
	case *negotiation.SupervisorVeto:
		re.Message = p.Reason
	case *negotiation.ReplacementContext:
		re.Message = p.Summary
	}
	return re
}

// whyUnverified says why a claim the mandate holds stays unverified.
func whyUnverified(c negotiation.ClaimRecord) string {
	for i := len(c.Reviews) - 1; i >= 0; i-- {
		if v := c.Reviews[i].Verdict; v != negotiation.VerdictAccept {
			return "reviewed as " + string(v)
		}
	}
	if c.Origin == negotiation.OriginAssumed {
		return "assumed: no source is attached and no principal confirmed it"
	}
	if !c.Ours {
		return "the other side's claim: never stated for this side"
	}
	return "unverified"
}

// Send sends one message from this side's seat in negotiation nid through
// the node's own acts, so the same enforcement applies (the intent card's
// mandate, the approval gate for an acceptance): a proposal opens a room
// this node created or counters the offer on the table; status agree
// accepts the other side's current offer; status escalate pauses the
// negotiation on the agent's question. Parley has no envelope for words
// alone: a message without an offer, an agreement or an escalation is
// refused (state_forbidden). The ledger records agent as the agent in the
// seat. It returns the room after the message.
func (n *Node) Send(ctx context.Context, nid, agent string, msg ProxyMessage) (RoomView, error) {
	if err := n.running(); err != nil {
		return RoomView{}, err
	}
	fields := PXPFields{Claims: msg.Claims, Reviews: msg.Reviews, Message: msg.Message, agent: agent}
	var err error
	switch {
	case msg.Status == negotiation.StatusEscalate:
		err = n.px.agentEscalation(ctx, nid, msg)
	case msg.Proposal != nil:
		fields.DependsOn = msg.Proposal.DependsOn
		fields.status = msg.Status
		err = n.sendProposal(ctx, nid, msg.Proposal.Terms, fields)
	case msg.Status == negotiation.StatusAgree:
		_, err = n.AcceptWith(ctx, nid, AcceptSpec{PXPFields: fields})
	case msg.Status == "" || msg.Status == negotiation.StatusContinue:
		err = fail(CodeStateForbidden, "Parley carries words with an offer, an agreement or an escalation: send a proposal, status agree or status escalate")
	default:
		err = fail(CodeBadArgument, "status %q: want continue, agree or escalate", msg.Status)
	}
	if err != nil {
		return RoomView{}, err
	}
	return n.Room(ctx, nid)
}

// sendProposal opens the room with a proposal (this node created it and
// nothing was sent yet) or counters the offer on the table.
func (n *Node) sendProposal(ctx context.Context, nid string, pt ProxyTerms, fields PXPFields) error {
	opening, to, err := n.px.opening(nid)
	if err != nil {
		return err
	}
	if !opening {
		spec := CounterSpec{Title: pt.Title, Description: pt.Description, Milestones: pt.Milestones, Deadline: pt.Deadline, Supervisor: pt.Supervisor, PXPFields: fields}
		if pt.Category != "" || pt.Token != nil {
			return fail(CodeBadArgument, "a counter-offer keeps the category and the token")
		}
		_, err := n.Counter(ctx, nid, spec)
		return err
	}
	spec := TaskSpec{Title: pt.Title, Description: pt.Description, Category: pt.Category, Milestones: pt.Milestones, Deadline: pt.Deadline}
	if pt.Token != nil {
		spec.Token = *pt.Token
	}
	propose := func(t *thread) error {
		terms, err := newTerms(ctx, spec, n.now, n.cfg.Chain, n.client)
		if err != nil {
			return err
		}
		if err := checkSupervisor(pt.Supervisor, n.self, to); err != nil {
			return err
		}
		p := &negotiation.TaskProposal{Terms: terms, Supervisor: pt.Supervisor}
		fields.apply(p)
		env, _, err := n.snd.send(ctx, t, p, []negotiation.Address{to}, false)
		if err != nil {
			return err
		}
		n.px.recordSeat(ctx, t, fields.agent, env.Hash(), fields.Message)
		return nil
	}
	_, err = n.do(actCall{act: negotiation.ActPropose, nid: nid, args: negotiation.ActArgs{Party: to}, locked: propose}, nil)
	return err
}

// opening reports whether negotiation nid is a room this node created
// and sent nothing in yet, and the counterpart its first proposal goes
// to.
func (s *pxpService) opening(nid string) (opening bool, to negotiation.Address, err error) {
	err = s.eng.With(nid, func(t *thread) error {
		s.eng.OpenPXP(t)
		if opening = t.PXP.Room != nil && len(t.Th.Log()) == 0; opening {
			to = t.PXP.Room.Counterpart
		}
		return nil
	})
	return opening, to, err
}

// agentEscalation pauses negotiation nid on the question an agent asks
// its principal, and tells the other party where this side can.
func (s *pxpService) agentEscalation(ctx context.Context, nid string, msg ProxyMessage) error {
	if msg.Proposal != nil {
		return fail(Code(negotiation.CodeStateForbidden), "an escalation pauses: it makes and accepts no offer")
	}
	if msg.Escalation == nil || strings.TrimSpace(msg.Escalation.Question) == "" {
		return fail(CodeBadArgument, "status escalate carries one concrete question (escalation.question)")
	}
	return s.eng.With(nid, func(t *thread) error {
		s.eng.OpenPXP(t)
		if t.PXP.Mandate == nil {
			return fail(CodeNoCard, "negotiation %s runs without an intent card", nid)
		}
		reason := msg.Escalation.Reason
		if reason == "" {
			reason = msg.Message
		}
		return s.escalate(ctx, t, msg.Escalation.Question, reason, nil, s.now())
	})
}

// Answer records the principal's answer to negotiation nid's pending
// question (AnswerEscalation) and returns the room after it.
func (n *Node) Answer(ctx context.Context, nid, answer string, via negotiation.Via) (RoomView, error) {
	if _, err := n.AnswerEscalation(ctx, nid, answer, via); err != nil {
		return RoomView{}, err
	}
	return n.Room(ctx, nid)
}

// Wait blocks until negotiation nid's Version exceeds after, and returns
// the room then; or until ctx ends, returning ctx's error.
func (n *Node) Wait(ctx context.Context, nid string, after int) (RoomView, error) {
	ch, stop := n.Subscribe(64)
	defer stop()
	for {
		v, err := n.Room(ctx, nid)
		if err != nil || v.Version > after {
			return v, err
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return RoomView{}, ctx.Err()
			case e, ok := <-ch:
				if !ok {
					return RoomView{}, ErrNotStarted
				}
				if e.NegotiationID == nid {
					break wait
				}
			case <-time.After(time.Second):
				// A missed event (a slow reader drops them) is caught
				// up on here.
				break wait
			}
		}
	}
}
