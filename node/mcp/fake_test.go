package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// fakeRooms is a test double for the MCP layer only: a Backend that keeps
// rooms in memory and records every call, so the tests of this file can
// check what the server asks of its node (sign-in refusals create no
// room, seat checks come before any call, arguments arrive as the agent
// meant them). It enforces no protocol rule; the end-to-end tests drive
// real nodes.
type fakeRooms struct {
	mu      sync.Mutex
	self    negotiation.Address
	rooms   map[string]*RoomView
	calls   []string
	sent    []ProxyMessage
	agents  []string
	n       int
	changed chan struct{} // closed and replaced on every change
	waiting chan string   // receives the room id when Wait starts blocking (nil: no report)
	sendErr error
}

var _ Backend = (*fakeRooms)(nil)

func newFakeRooms() *fakeRooms {
	return &fakeRooms{
		self:    negotiation.Address{0x11},
		rooms:   make(map[string]*RoomView),
		changed: make(chan struct{}),
	}
}

// call records a call; the caller holds mu.
func (f *fakeRooms) call(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

// bump marks room v changed; the caller holds mu.
func (f *fakeRooms) bump(v *RoomView) {
	v.Version++
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *fakeRooms) get(id string) (*RoomView, error) {
	v, ok := f.rooms[id]
	if !ok {
		return nil, &node.Error{Code: node.CodeUnknownNegotiation, Msg: id}
	}
	return v, nil
}

// snapshot copies v (its slices too).
func snapshot(v *RoomView) RoomView {
	c := *v
	c.Envelopes = append([]EnvelopeView(nil), v.Envelopes...)
	return c
}

func (f *fakeRooms) CreateRoom(ctx context.Context, req CreateRoomRequest) (RoomInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", f.n)
	f.call("CreateRoom %s %s %s %s", req.Topic, req.Principal, req.Counterpart, req.Agent)
	f.rooms[id] = &RoomView{
		ID: id, Topic: req.Topic, State: negotiation.StateOpen, A2A: negotiation.StateOpen.A2A(),
		Role: negotiation.RolePoster, Self: f.self, Counterpart: req.Counterpart,
		Principal: req.Principal, YourTurn: true, Envelopes: []EnvelopeView{},
	}
	return RoomInfo{ID: id, Role: negotiation.RolePoster, Counterpart: req.Counterpart, CounterpartPeer: "12D3KooWCounterpart"}, nil
}

// addRoom adds a room the node learnt of otherwise (the other side
// opened it).
func (f *fakeRooms) addRoom(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rooms[id] = &RoomView{
		ID: id, Topic: "incoming", State: negotiation.StateProposed, Role: negotiation.RoleWorker,
		Self: f.self, Counterpart: negotiation.Address{0x22}, Envelopes: []EnvelopeView{},
	}
}

func (f *fakeRooms) Room(ctx context.Context, id string) (RoomView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("Room %s", id)
	v, err := f.get(id)
	if err != nil {
		return RoomView{}, err
	}
	return snapshot(v), nil
}

func (f *fakeRooms) SealCard(ctx context.Context, id string, card json.RawMessage, via negotiation.Via) (negotiation.Hash, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("SealCard %s %s %s", id, card, via)
	v, err := f.get(id)
	if err != nil {
		return negotiation.Hash{}, err
	}
	h := negotiation.Hash(sha256.Sum256(card))
	v.Card, v.CardHash = append(json.RawMessage(nil), card...), &h
	f.bump(v)
	return h, nil
}

func (f *fakeRooms) Send(ctx context.Context, id, agent string, msg ProxyMessage) (RoomView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("Send %s %s", id, agent)
	if f.sendErr != nil {
		return RoomView{}, f.sendErr
	}
	v, err := f.get(id)
	if err != nil {
		return RoomView{}, err
	}
	f.sent = append(f.sent, msg)
	f.agents = append(f.agents, agent)
	e := EnvelopeView{
		Hash: negotiation.Hash{byte(len(v.Envelopes) + 1)}, Type: negotiation.TypeTaskProposal,
		From: v.Self, Role: v.Role, Ours: true, Speaker: "proxy", Agent: agent,
		Message: msg.Message, Claims: msg.Claims, Reviews: msg.Reviews, Status: msg.Status,
		Escalation: msg.Escalation, Code: "ok", At: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC),
	}
	if msg.Escalation != nil {
		v.Escalation = &EscalationView{Question: msg.Escalation.Question, Reason: msg.Escalation.Reason}
	}
	v.Envelopes = append(v.Envelopes, e)
	v.YourTurn = false
	f.bump(v)
	return snapshot(v), nil
}

func (f *fakeRooms) Answer(ctx context.Context, id, answer string, via negotiation.Via) (RoomView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("Answer %s %s %s", id, answer, via)
	v, err := f.get(id)
	if err != nil {
		return RoomView{}, err
	}
	v.Answers = append(v.Answers, AnswerView{Question: v.Escalation.Question, Answer: answer, Via: via})
	v.Escalation = nil
	f.bump(v)
	return snapshot(v), nil
}

func (f *fakeRooms) Brief(ctx context.Context, id string) (BriefView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("Brief %s", id)
	return BriefView{JSON: json.RawMessage(`{"negotiationId":"` + id + `"}`), Markdown: "# Brief\n"}, nil
}

func (f *fakeRooms) Wait(ctx context.Context, id string, after int) (RoomView, error) {
	for {
		f.mu.Lock()
		v, err := f.get(id)
		if err != nil {
			f.mu.Unlock()
			return RoomView{}, err
		}
		if v.Version > after {
			s := snapshot(v)
			f.mu.Unlock()
			return s, nil
		}
		ch, waiting := f.changed, f.waiting
		f.mu.Unlock()
		if waiting != nil {
			select {
			case waiting <- id:
			default:
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return RoomView{}, ctx.Err()
		}
	}
}

// update changes room id as the other side's envelope would.
func (f *fakeRooms) update(id string, change func(v *RoomView)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := f.rooms[id]
	change(v)
	f.bump(v)
}

// callsOf returns the recorded calls.
func (f *fakeRooms) callsOf() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}
