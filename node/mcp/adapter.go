package mcp

import (
	"context"
	"encoding/json"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// NodeBackend returns n as the MCP server's Backend: the rooms of node
// are its negotiations (node/rooms.go), converted to this package's
// shapes. n must be started before the server answers a call.
func NodeBackend(n *node.Node) Backend { return nodeRooms{n} }

// nodeRooms adapts *node.Node to Backend.
type nodeRooms struct{ n *node.Node }

var _ Backend = nodeRooms{}

func (b nodeRooms) CreateRoom(ctx context.Context, req CreateRoomRequest) (RoomInfo, error) {
	r, err := b.n.CreateRoom(ctx, node.RoomRequest{
		Topic: req.Topic, Principal: req.Principal, Counterpart: req.Counterpart,
		CounterpartProxy: req.CounterpartProxy, Agent: req.Agent,
	})
	if err != nil {
		return RoomInfo{}, err
	}
	return RoomInfo{ID: r.ID, Role: r.Role, Counterpart: r.Counterpart, CounterpartPeer: r.CounterpartPeer}, nil
}

func (b nodeRooms) Room(ctx context.Context, id string) (RoomView, error) {
	v, err := b.n.Room(ctx, id)
	if err != nil {
		return RoomView{}, err
	}
	return fromNode(v), nil
}

func (b nodeRooms) SealCard(ctx context.Context, id string, card json.RawMessage, via negotiation.Via) (negotiation.Hash, error) {
	return b.n.SealCard(ctx, id, card, via)
}

func (b nodeRooms) Send(ctx context.Context, id, agent string, msg ProxyMessage) (RoomView, error) {
	m := node.ProxyMessage{Message: msg.Message, Status: msg.Status, Claims: msg.Claims, Reviews: msg.Reviews, Escalation: msg.Escalation}
	if p := msg.Proposal; p != nil {
		t := node.ProxyTerms{Title: p.Terms.Title, Description: p.Terms.Description, Category: p.Terms.Category, Deadline: p.Terms.Deadline, Token: p.Terms.Token}
		for _, ms := range p.Terms.Milestones {
			t.Milestones = append(t.Milestones, node.MilestoneSpec{Amount: ms.Amount, Description: ms.Description})
		}
		m.Proposal = &node.ProxyProposal{Terms: t, DependsOn: p.DependsOn}
	}
	v, err := b.n.Send(ctx, id, agent, m)
	if err != nil {
		return RoomView{}, err
	}
	return fromNode(v), nil
}

func (b nodeRooms) Answer(ctx context.Context, id, answer string, via negotiation.Via) (RoomView, error) {
	v, err := b.n.Answer(ctx, id, answer, via)
	if err != nil {
		return RoomView{}, err
	}
	return fromNode(v), nil
}

func (b nodeRooms) Brief(ctx context.Context, id string) (BriefView, error) {
	v, err := b.n.Brief(ctx, id)
	if err != nil {
		return BriefView{}, err
	}
	return BriefView{JSON: v.JSON, Markdown: v.Markdown}, nil
}

func (b nodeRooms) Wait(ctx context.Context, id string, after int) (RoomView, error) {
	v, err := b.n.Wait(ctx, id, after)
	if err != nil {
		return RoomView{}, err
	}
	return fromNode(v), nil
}

// fromNode converts the node's room view.
func fromNode(v node.RoomView) RoomView {
	o := RoomView{
		ID: v.ID, Topic: v.Topic, State: v.State, A2A: v.A2A, Role: v.Role,
		Self: v.Self, Counterpart: v.Counterpart, CounterpartPeer: v.CounterpartPeer,
		Principal: v.Principal, CounterpartPrincipal: v.CounterpartPrincipal, CounterpartProxy: v.CounterpartProxy,
		Agent: v.Agent, Card: v.Card, CardHash: v.CardHash, CounterpartCardHash: v.CounterpartCardHash,
		Envelopes: make([]EnvelopeView, 0, len(v.Envelopes)), YourTurn: v.YourTurn,
		PendingReviews: v.PendingReviews, CounterpartPaused: v.CounterpartPaused,
		Ended: v.Ended, Version: v.Version,
	}
	for _, e := range v.Envelopes {
		o.Envelopes = append(o.Envelopes, EnvelopeView{
			Hash: e.Hash, Type: e.Type, From: e.From, Role: e.Role, Ours: e.Ours, Speaker: e.Speaker,
			Agent: e.Agent, Message: e.Message, Claims: e.Claims, Reviews: e.Reviews, Status: e.Status,
			Escalation: e.Escalation, DependsOn: e.DependsOn, Terms: e.Terms, Accepts: e.Accepts,
			Code: e.Code, At: e.At,
		})
	}
	if c := v.Current; c != nil {
		o.Current = &OfferView{Hash: c.Hash, Revision: c.Revision, By: c.By, Terms: c.Terms}
	}
	for _, c := range v.Unverified {
		o.Unverified = append(o.Unverified, ClaimView{Claim: c.Claim, By: c.By, Ours: c.Ours, Why: c.Why})
	}
	if e := v.Escalation; e != nil {
		o.Escalation = &EscalationView{Question: e.Question, Reason: e.Reason, At: e.At, Triggers: e.Triggers}
	}
	for _, a := range v.Answers {
		o.Answers = append(o.Answers, AnswerView{Question: a.Question, Answer: a.Answer, Via: a.Via, At: a.At, Confirmed: a.Confirmed})
	}
	return o
}
