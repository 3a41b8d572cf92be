package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/negotiation"
)

// Bounds of tool arguments (the wire's own where it has them).
const (
	maxTopic      = 200
	maxName       = 200
	maxAgentName  = 100
	maxMessage    = 4096
	maxClaims     = 64
	maxClaimID    = 128
	maxClaimText  = 4096
	maxRef        = 2048
	maxQuestion   = 2048
	maxReason     = 4096
	maxAnswer     = 4096
	maxCard       = 64 << 10
	maxWait       = 25
	defaultWait   = 20
	maxLinkLength = 512
)

// The PXP tools' names.
const (
	ToolCreateRoom       = "create_room"
	ToolJoinRoom         = "join_room"
	ToolSealIntentCard   = "seal_intent_card"
	ToolGetRoom          = "get_room"
	ToolWaitForTurn      = "wait_for_turn"
	ToolSendEnvelope     = "send_envelope"
	ToolAnswerEscalation = "answer_escalation"
	ToolGetBrief         = "get_brief"
)

const linkDesc = "your principal's private seat link (parley://<node>/rooms/<id>#seat=<secret>); keep it secret"

type createRoomArgs struct {
	Topic            string `json:"topic" jsonschema:"what the two sides are aligning on"`
	YourPrincipal    string `json:"your_principal" jsonschema:"your principal's name"`
	Counterpart      string `json:"counterpart" jsonschema:"the EVM address (0x...) of the other side's Parley node"`
	CounterpartProxy string `json:"counterpart_proxy,omitempty" jsonschema:"the agent the other side brings (informational), such as external"`
	Passcode         string `json:"passcode,omitempty" jsonschema:"only if the node requires one"`
}

type createRoomOut struct {
	RoomID           string `json:"room_id"`
	Role             string `json:"role" jsonschema:"your principal's role in the negotiation"`
	YourLink         string `json:"your_link" jsonschema:"your seat link: keep it secret"`
	InviteLink       string `json:"invite_link_for_counterpart" jsonschema:"the room on the other side's node: their agent takes their seat there with join_room"`
	CounterpartProxy string `json:"counterpart_proxy,omitempty"`
	NextAction       string `json:"next_action"`
}

type linkArgs struct {
	Link string `json:"link" jsonschema:"your principal's private seat link"`
}

type joinArgs struct {
	Link      string `json:"link" jsonschema:"your principal's seat link, or the room's link without #seat= to take the seat with your principal's agent key"`
	AgentName string `json:"agent_name,omitempty" jsonschema:"how you are named in the room and its ledger, such as Claude Desktop"`
}

type sealArgs struct {
	Link string          `json:"link"`
	Card json.RawMessage `json:"card"`
}

type waitArgs struct {
	Link           string  `json:"link"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"how long to wait, 1 to 25 seconds (default 20)"`
}

type claimArg struct {
	ID     string `json:"id,omitempty" jsonschema:"the claim's id; the node gives one when absent"`
	Text   string `json:"text"`
	Origin string `json:"origin"`
	Ref    string `json:"ref,omitempty" jsonschema:"required for stated (a clause of your card: must_never[0], amendments[0]) and sourced (the source)"`
}

type reviewArg struct {
	ClaimID string `json:"claim_id"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
}

type proposalArg struct {
	Terms     json.RawMessage `json:"terms"`
	DependsOn []string        `json:"depends_on,omitempty" jsonschema:"ids of the claims the terms rest on; new1, new2 name this envelope's claims"`
}

type escalationArg struct {
	Question string `json:"question"`
	Reason   string `json:"reason,omitempty"`
}

type sendArgs struct {
	Link       string         `json:"link"`
	Message    string         `json:"message" jsonschema:"what the other side and both people read, in short plain sentences"`
	Status     string         `json:"status"`
	Claims     []claimArg     `json:"claims,omitempty"`
	Reviews    []reviewArg    `json:"reviews,omitempty"`
	Proposal   *proposalArg   `json:"proposal,omitempty"`
	Escalation *escalationArg `json:"escalation,omitempty"`
}

type sendOut struct {
	AcceptedEnvelope *envelopeOut `json:"accepted_envelope,omitempty" jsonschema:"the envelope the node sent"`
	Room             roomOut      `json:"room"`
}

type answerArgs struct {
	Link   string `json:"link"`
	Answer string `json:"answer" jsonschema:"your principal's answer, in their words"`
}

type briefArgs struct {
	RoomID string `json:"room_id,omitempty" jsonschema:"the negotiation id (needs your principal's agent key); or give link"`
	Link   string `json:"link,omitempty"`
}

type briefOut struct {
	RoomID   string `json:"room_id"`
	Status   string `json:"status"`
	Brief    any    `json:"brief" jsonschema:"the decision brief (null until the room has ended)"`
	Markdown string `json:"markdown,omitempty" jsonschema:"the brief for people to read"`
	Note     string `json:"note,omitempty"`
}

// schemaFor derives T's input schema and lets adjust refine it.
func schemaFor[T any](adjust func(s *jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
	}})
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %T: %v", *new(T), err))
	}
	if p := s.Properties["link"]; p != nil {
		p.Description = linkDesc
		p.MinLength, p.MaxLength = ptr(1), ptr(maxLinkLength)
	}
	if adjust != nil {
		adjust(s)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// bound sets a string property's length bounds.
func bound(s *jsonschema.Schema, name string, min, max int) {
	p := s.Properties[name]
	p.MinLength, p.MaxLength = ptr(min), ptr(max)
}

// enum restricts a string property to values.
func enum(s *jsonschema.Schema, values ...string) {
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
}

// pxpSchema bounds the claims and reviews properties of sc, and
// depends_on where sc has it.
func pxpSchema(sc *jsonschema.Schema) {
	cl := sc.Properties["claims"]
	cl.MaxItems = ptr(maxClaims)
	bound(cl.Items, "id", 1, maxClaimID)
	bound(cl.Items, "text", 1, maxClaimText)
	bound(cl.Items, "ref", 1, maxRef)
	enum(cl.Items.Properties["origin"], "stated", "sourced", "assumed")
	rv := sc.Properties["reviews"]
	rv.MaxItems = ptr(maxClaims)
	bound(rv.Items, "claim_id", 1, maxClaimID)
	bound(rv.Items, "reason", 1, maxReason)
	enum(rv.Items.Properties["verdict"], "accept", "challenge", "conflict")
	if d := sc.Properties["depends_on"]; d != nil {
		d.MaxItems = ptr(maxClaims)
	}
}

// cardSchema describes the intent card argument; the node checks the card
// strictly against schemas/intent-card.schema.json.
func cardSchema() *jsonschema.Schema {
	list := func(d string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "array", Description: d, MaxItems: ptr(64)}
	}
	return &jsonschema.Schema{
		Type:        "object",
		Description: "Your principal's intent card. Every field must come from your principal, not from you. A clause is a string, or {text, rule} with a CEL rule over the terms (docs/pxp.md); \"pxp\": \"0\" is added when absent.",
		Required:    []string{"principal", "goal"},
		Properties: map[string]*jsonschema.Schema{
			"pxp": {Type: "string", Const: ptr[any]("0")},
			"principal": {Type: "object", Required: []string{"name"}, Properties: map[string]*jsonschema.Schema{
				"name": {Type: "string"}, "role": {Type: "string"}, "org": {Type: "string"},
			}},
			"goal":          {Type: "string", Description: "one sentence: the outcome your principal wants"},
			"must_haves":    list("outcomes you must secure"),
			"may_agree_to":  list("what you may concede or accept without asking"),
			"must_never":    list("hard limits: never crossed, only escalated"),
			"escalate_when": list("conditions where you must stop and ask your principal"),
			"known_facts":   list("facts your principal asserts as true"),
		},
	}
}

// termsSchema describes an offer's terms: lines or an object.
func termsSchema() *jsonschema.Schema {
	obj, err := jsonschema.For[termsObject](nil)
	if err != nil {
		panic(err)
	}
	obj.MinProperties = ptr(1)
	return &jsonschema.Schema{
		Description: "The offer's terms: lines \"key = value\" (title, description, category, deadline, token, and milestone once per milestone: \"milestone = 0.5 ETH: first drafts\"), or an object with the same members. In a counter, what you leave out keeps the current offer's value.",
		OneOf: []*jsonschema.Schema{
			{Type: "array", MinItems: ptr(1), MaxItems: ptr(64), Items: &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(maxDesc)}},
			obj,
		},
	}
}

// register adds every tool.
func (s *Server) register() error {
	no, yes := ptr(false), ptr(true)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolCreateRoom, Title: "Create a room",
		Description: "Open a new negotiation with another Parley node for your principal, who takes this node's seat; you get your seat link and the room's link on the other node for the counterpart's agent. Needs your principal's agent key as an Authorization: Bearer header (never as an argument).",
		InputSchema: schemaFor[createRoomArgs](func(sc *jsonschema.Schema) {
			bound(sc, "topic", 1, maxTopic)
			bound(sc, "your_principal", 1, maxName)
			bound(sc, "counterpart", 42, 42)
			bound(sc, "counterpart_proxy", 0, maxAgentName)
			bound(sc, "passcode", 0, 256)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Create a room", DestructiveHint: no, OpenWorldHint: yes},
	}, s.createRoom)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolJoinRoom, Title: "Join a room as a proxy",
		Description: "Take your principal's seat with their seat link. Returns the room, your principal's card (if sealed) and what to do next. A link without #seat= takes the seat with your principal's agent key (Authorization: Bearer header) and returns a new seat link, which replaces any earlier one.",
		InputSchema: schemaFor[joinArgs](func(sc *jsonschema.Schema) {
			sc.Properties["link"].Description = "your principal's seat link, or the room's link without #seat= (then your principal's agent key is needed)"
			bound(sc, "agent_name", 0, maxAgentName)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Join a room", DestructiveHint: no, IdempotentHint: true, OpenWorldHint: no},
	}, s.joinRoom)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolSealIntentCard, Title: "Seal the intent card",
		Description: "Seal your principal's intent card for this room, only after they confirmed every line. Once sealed it changes only through their answers to escalations; every envelope carries its hash.",
		InputSchema: schemaFor[sealArgs](func(sc *jsonschema.Schema) {
			sc.Properties["card"] = cardSchema()
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Seal the intent card", DestructiveHint: no, OpenWorldHint: no},
	}, s.sealCard)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolGetRoom, Title: "Read the room",
		Description: "The room from your seat: status, whose turn, the transcript, claims you still need to review, unverified assumptions, and the next action.",
		InputSchema: schemaFor[linkArgs](nil),
		Annotations: &sdk.ToolAnnotations{Title: "Read the room", ReadOnlyHint: true, OpenWorldHint: no},
	}, s.getRoom)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolWaitForTurn, Title: "Wait for your turn",
		Description: "Blocks up to timeout_seconds (at most 25) until it is your turn, your principal must answer a question, your card needs sealing, or the room ends. Call it again if it timed out.",
		InputSchema: schemaFor[waitArgs](func(sc *jsonschema.Schema) {
			p := sc.Properties["timeout_seconds"]
			p.Minimum, p.Maximum = ptr(1.0), ptr(float64(maxWait))
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Wait for your turn", ReadOnlyHint: true, OpenWorldHint: no},
	}, s.waitForTurn)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolSendEnvelope, Title: "Take your turn",
		Description: "Send one PXP envelope on your turn. The node enforces the protocol exactly as for its own envelopes: tagged claims, reviews of every new claim of the other side, escalation when your terms leave your principal's authority, agree only on the current offer and never with a conflict. A refused envelope is not sent and the error says why. Returns the envelope sent and the room.",
		InputSchema: schemaFor[sendArgs](func(sc *jsonschema.Schema) {
			bound(sc, "message", 0, maxMessage)
			enum(sc.Properties["status"], "continue", "agree", "escalate")
			sc.Properties["status"].Description = "continue, agree (accepts the other side's current offer exactly) or escalate (with escalation)"
			pxpSchema(sc)
			pr := sc.Properties["proposal"]
			pr.Properties["terms"] = termsSchema()
			pr.Properties["depends_on"].MaxItems = ptr(maxClaims)
			es := sc.Properties["escalation"]
			bound(es, "question", 1, maxQuestion)
			bound(es, "reason", 1, maxReason)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Take your turn", DestructiveHint: no, OpenWorldHint: yes},
	}, s.sendEnvelope)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolAnswerEscalation, Title: "Relay your principal's answer",
		Description: "When the room is paused for your principal, ask them the question verbatim and relay their exact answer. It is sealed into their card as an amendment (recorded as relayed by you: via mcp) and the room resumes. Never answer on their behalf.",
		InputSchema: schemaFor[answerArgs](func(sc *jsonschema.Schema) {
			bound(sc, "answer", 1, maxAnswer)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Relay your principal's answer", DestructiveHint: no, OpenWorldHint: yes},
	}, s.answerEscalation)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolGetBrief, Title: "Read the decision brief",
		Description: "The decision brief once the room has ended: what was agreed, the authority each term rests on, unverified assumptions, escalations and answers, the ledger head. Give link, or room_id with your principal's agent key.",
		InputSchema: schemaFor[briefArgs](func(sc *jsonschema.Schema) {
			bound(sc, "room_id", 36, 36)
			sc.Properties["link"].MinLength, sc.Properties["link"].MaxLength = ptr(1), ptr(maxLinkLength)
			sc.Properties["link"].Description = linkDesc
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Read the decision brief", ReadOnlyHint: true, OpenWorldHint: no},
	}, s.getBrief)

	if s.acts != nil {
		s.registerActs()
		s.registerOnchain() // onchain.go
	}
	return nil
}

// room resolves a seat link to its room id and seat: the link must name
// this node and hold the seat's current secret.
func (s *Server) room(link string) (string, seat, error) {
	l, err := parseLink(link)
	if err != nil {
		return "", seat{}, err
	}
	if err := s.here(l); err != nil {
		return "", seat{}, err
	}
	if l.Secret == "" {
		return "", seat{}, errors.New("this link names the room without its seat secret (#seat=...): take the seat with join_room, which needs your principal's agent key")
	}
	st, ok, err := s.seats.check(l.Room, l.Secret)
	if err != nil {
		return "", seat{}, err
	}
	if !ok {
		return "", seat{}, errors.New("this link does not open a seat on this node (it may have been replaced by a newer link: ask your principal for the current one)")
	}
	return l.Room, st, nil
}

// here checks that a link names this node.
func (s *Server) here(l seatLink) error {
	if !sameNode(l.Node, s.o.PeerID, common.Address(s.o.Address)) {
		return fmt.Errorf("this link is for node %s, not this one (%s): point your MCP client at that node's endpoint", l.Node, s.o.PeerID)
	}
	return nil
}

// link writes this node's seat link for room with secret.
func (s *Server) link(room, secret string) string {
	return seatLink{Node: s.o.PeerID, Room: room, Secret: secret}.String()
}

// agentOf is the name recorded for the agent in a seat.
func agentOf(st seat, req *sdk.CallToolRequest) string {
	if st.Agent != "" {
		return st.Agent
	}
	return clientName(req)
}

func (s *Server) createRoom(ctx context.Context, req *sdk.CallToolRequest, a createRoomArgs) (*sdk.CallToolResult, createRoomOut, error) {
	var out createRoomOut
	if !s.signedIn(req) {
		return nil, out, errSignIn
	}
	if s.o.Passcode != "" && !equalSecret(a.Passcode, s.o.Passcode) {
		return nil, out, errors.New("the passcode is missing or wrong; no room was created")
	}
	topic, principal := strings.TrimSpace(a.Topic), strings.TrimSpace(a.YourPrincipal)
	if topic == "" || principal == "" {
		return nil, out, errors.New("topic and your_principal must not be blank")
	}
	cp, err := parseAddress(a.Counterpart)
	if err != nil {
		return nil, out, fmt.Errorf("counterpart: %v (the address of the other side's Parley node)", err)
	}
	agent := clientName(req)
	info, err := s.b.CreateRoom(ctx, CreateRoomRequest{
		Topic: topic, Principal: principal, Counterpart: cp,
		CounterpartProxy: strings.TrimSpace(a.CounterpartProxy), Agent: agent,
	})
	if err != nil {
		return nil, out, toolError(err)
	}
	secret, err := s.seats.issue(info.ID, agent)
	if err != nil {
		return nil, out, fmt.Errorf("room %s was created but its seat could not be issued (%v): take the seat with join_room on parley://%s/rooms/%s", info.ID, err, s.o.PeerID, info.ID)
	}
	host := info.CounterpartPeer
	if host == "" {
		host = info.Counterpart.String()
	}
	out = createRoomOut{
		RoomID: info.ID, Role: string(info.Role),
		YourLink:         s.link(info.ID, secret),
		InviteLink:       seatLink{Node: host, Room: info.ID}.String(),
		CounterpartProxy: strings.TrimSpace(a.CounterpartProxy),
		NextAction:       "Give invite_link_for_counterpart to the other side: their agent takes their seat on their own node with join_room (and their principal's agent key). Then ask your principal for their intent card and call seal_intent_card with your_link.",
	}
	s.log.Info("room created", "room", info.ID, "counterpart", cp.String(), "agent", agent)
	return nil, out, nil
}

func (s *Server) joinRoom(ctx context.Context, req *sdk.CallToolRequest, a joinArgs) (*sdk.CallToolResult, roomOut, error) {
	var out roomOut
	l, err := parseLink(a.Link)
	if err != nil {
		return nil, out, err
	}
	if err := s.here(l); err != nil {
		return nil, out, err
	}
	agent := clean(a.AgentName, maxAgentName)
	if agent == "" {
		agent = clientName(req)
	}
	if l.Secret == "" {
		if !s.signedIn(req) {
			return nil, out, errSignIn
		}
		v, err := s.b.Room(ctx, l.Room)
		if err != nil {
			return nil, out, toolError(err)
		}
		secret, err := s.seats.issue(l.Room, agent)
		if err != nil {
			return nil, out, err
		}
		out = roomView(&v)
		out.YourLink = s.link(l.Room, secret)
		s.log.Info("seat issued", "room", l.Room, "agent", agent)
		return nil, out, nil
	}
	id, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	v, err := s.b.Room(ctx, id)
	if err != nil {
		return nil, out, toolError(err)
	}
	if err := s.seats.setAgent(id, agent); err != nil {
		return nil, out, err
	}
	return nil, roomView(&v), nil
}

func (s *Server) sealCard(ctx context.Context, req *sdk.CallToolRequest, a sealArgs) (*sdk.CallToolResult, roomOut, error) {
	var out roomOut
	id, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	card, err := withVersion(a.Card)
	if err != nil {
		return nil, out, err
	}
	if _, err := s.b.SealCard(ctx, id, card, negotiation.ViaMCP); err != nil {
		return nil, out, toolError(err)
	}
	v, err := s.b.Room(ctx, id)
	if err != nil {
		return nil, out, toolError(err)
	}
	return nil, roomView(&v), nil
}

// withVersion returns the card with "pxp": "0" added when it has no pxp
// member (the reference implementation's cards have none); anything else
// is left for the node to judge.
func withVersion(card json.RawMessage) (json.RawMessage, error) {
	card = bytes.TrimSpace(card)
	if len(card) > maxCard {
		return nil, fmt.Errorf("card: at most %d bytes", maxCard)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(card, &m); err != nil {
		return nil, fmt.Errorf("card: not a JSON object: %v", err)
	}
	if _, ok := m["pxp"]; ok {
		return card, nil
	}
	out := append([]byte(`{"pxp":"0",`), bytes.TrimSpace(card[1:])...)
	if bytes.Equal(bytes.TrimSpace(card[1:]), []byte("}")) {
		out = []byte(`{"pxp":"0"}`)
	}
	return out, nil
}

func (s *Server) getRoom(ctx context.Context, req *sdk.CallToolRequest, a linkArgs) (*sdk.CallToolResult, roomOut, error) {
	var out roomOut
	id, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	v, err := s.b.Room(ctx, id)
	if err != nil {
		return nil, out, toolError(err)
	}
	return nil, roomView(&v), nil
}

func (s *Server) waitForTurn(ctx context.Context, req *sdk.CallToolRequest, a waitArgs) (*sdk.CallToolResult, roomOut, error) {
	var out roomOut
	id, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	d := time.Duration(defaultWait) * time.Second
	if a.TimeoutSeconds != 0 {
		d = time.Duration(a.TimeoutSeconds * float64(time.Second))
	}
	v, err := s.b.Room(ctx, id)
	if err != nil {
		return nil, out, toolError(err)
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel) // Close ends the wait
	defer stop()
	timedOut := false
	for !actionable(&v) {
		nv, err := s.b.Wait(wctx, id, v.Version)
		if err != nil {
			if ctx.Err() != nil {
				return nil, out, ctx.Err()
			}
			if wctx.Err() == nil {
				return nil, out, toolError(err)
			}
			timedOut = true
			if v, err = s.b.Room(ctx, id); err != nil {
				return nil, out, toolError(err)
			}
			break
		}
		v = nv
	}
	out = roomView(&v)
	out.TimedOut = &timedOut
	return nil, out, nil
}

func (s *Server) sendEnvelope(ctx context.Context, req *sdk.CallToolRequest, a sendArgs) (*sdk.CallToolResult, sendOut, error) {
	var out sendOut
	id, st, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	v, err := s.b.Room(ctx, id)
	if err != nil {
		return nil, out, toolError(err)
	}
	msg, err := proxyMessage(&v, a)
	if err != nil {
		return nil, out, err
	}
	before := len(v.Envelopes)
	nv, err := s.b.Send(ctx, id, agentOf(st, req), msg)
	if err != nil {
		return nil, out, toolError(err)
	}
	out.Room = roomView(&nv)
	for i := len(nv.Envelopes) - 1; i >= before && i >= 0; i-- {
		if nv.Envelopes[i].Ours {
			e := envelopeView(&nv, i)
			out.AcceptedEnvelope = &e
			break
		}
	}
	return nil, out, nil
}

// proxyMessage checks send_envelope's arguments against each other and
// the room, gives claims without an id one, and resolves new1, new2, ...
// in depends_on. Protocol rules are the node's to judge.
func proxyMessage(v *RoomView, a sendArgs) (ProxyMessage, error) {
	m := ProxyMessage{Message: strings.TrimSpace(a.Message), Status: negotiation.Status(a.Status)}
	switch m.Status {
	case negotiation.StatusEscalate:
		if a.Escalation == nil || strings.TrimSpace(a.Escalation.Question) == "" {
			return m, errors.New(`status "escalate" needs escalation {question}: the one concrete question for your principal`)
		}
	case negotiation.StatusContinue, negotiation.StatusAgree:
		if a.Escalation != nil {
			return m, fmt.Errorf(`escalation goes with status "escalate", not %q`, a.Status)
		}
	default:
		return m, fmt.Errorf("status %q: continue, agree or escalate", a.Status)
	}
	if m.Status == negotiation.StatusAgree && a.Proposal != nil {
		return m, errors.New(`status "agree" accepts the current offer exactly and carries no proposal: counter with status "continue" and a proposal instead`)
	}
	if a.Escalation != nil {
		m.Escalation = &negotiation.Escalation{Question: strings.TrimSpace(a.Escalation.Question), Reason: strings.TrimSpace(a.Escalation.Reason)}
	}
	claims, ids, err := assignClaims(v, a.Claims)
	if err != nil {
		return m, err
	}
	m.Claims = claims
	m.Reviews = reviewsOf(a.Reviews)
	if a.Proposal != nil {
		t, err := parseTerms(a.Proposal.Terms)
		if err != nil {
			return m, err
		}
		deps, err := resolveDeps(a.Proposal.DependsOn, ids)
		if err != nil {
			return m, err
		}
		m.Proposal = &Proposal{Terms: t, DependsOn: deps}
	}
	return m, nil
}

// assignClaims converts an envelope's claims, giving each without an id
// the next free one of this side's prefix (p1, p2, ... for a poster, w1,
// ... for a worker) that no claim of room v (nil: none) or of the
// envelope holds. It returns the claims and their ids in order.
func assignClaims(v *RoomView, args []claimArg) ([]negotiation.Claim, []string, error) {
	taken := make(map[string]bool)
	prefix := "c"
	if v != nil {
		for _, e := range v.Envelopes {
			for _, c := range e.Claims {
				taken[c.ID] = true
			}
		}
		switch v.Role {
		case negotiation.RolePoster:
			prefix = "p"
		case negotiation.RoleWorker:
			prefix = "w"
		}
	}
	for _, c := range args {
		if c.ID != "" {
			if isNewRef(c.ID) {
				return nil, nil, fmt.Errorf("claim id %q is reserved for naming this envelope's claims in depends_on", c.ID)
			}
			taken[c.ID] = true
		}
	}
	var claims []negotiation.Claim
	next := 1
	ids := make([]string, len(args))
	for i, c := range args {
		id := c.ID
		if id == "" {
			for taken[prefix+strconv.Itoa(next)] {
				next++
			}
			id = prefix + strconv.Itoa(next)
			taken[id] = true
		}
		ids[i] = id
		claims = append(claims, negotiation.Claim{ID: id, Text: strings.TrimSpace(c.Text), Origin: negotiation.Origin(c.Origin), Ref: strings.TrimSpace(c.Ref)})
	}
	return claims, ids, nil
}

// reviewsOf converts an envelope's reviews.
func reviewsOf(args []reviewArg) []negotiation.Review {
	var out []negotiation.Review
	for _, r := range args {
		out = append(out, negotiation.Review{ClaimID: r.ClaimID, Verdict: negotiation.Verdict(r.Verdict), Note: strings.TrimSpace(r.Reason)})
	}
	return out
}

// resolveDeps replaces new1, new2, ... in deps by the ids of the
// envelope's claims.
func resolveDeps(deps, ids []string) ([]string, error) {
	var out []string
	for _, d := range deps {
		if isNewRef(d) {
			n, _ := strconv.Atoi(d[3:])
			if n < 1 || n > len(ids) {
				return nil, fmt.Errorf("depends_on %q: this envelope has %d claims", d, len(ids))
			}
			d = ids[n-1]
		}
		out = append(out, d)
	}
	return out, nil
}

// isNewRef reports whether id is new1, new2, ...: a claim of the envelope
// being sent.
func isNewRef(id string) bool {
	n, ok := strings.CutPrefix(id, "new")
	if !ok || n == "" {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

func (s *Server) answerEscalation(ctx context.Context, req *sdk.CallToolRequest, a answerArgs) (*sdk.CallToolResult, roomOut, error) {
	var out roomOut
	id, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	answer := strings.TrimSpace(a.Answer)
	if answer == "" {
		return nil, out, errors.New("answer must not be blank: relay your principal's words")
	}
	v, err := s.b.Room(ctx, id)
	if err != nil {
		return nil, out, toolError(err)
	}
	if v.Escalation == nil {
		return nil, out, errors.New("no question is waiting for your principal in this room")
	}
	nv, err := s.b.Answer(ctx, id, answer, negotiation.ViaMCP)
	if err != nil {
		return nil, out, toolError(err)
	}
	return nil, roomView(&nv), nil
}

func (s *Server) getBrief(ctx context.Context, req *sdk.CallToolRequest, a briefArgs) (*sdk.CallToolResult, briefOut, error) {
	var out briefOut
	var id string
	switch {
	case a.Link != "" && a.RoomID != "":
		return nil, out, errors.New("give link or room_id, not both")
	case a.Link != "":
		rid, _, err := s.room(a.Link)
		if err != nil {
			return nil, out, err
		}
		id = rid
	case a.RoomID != "":
		if !uuidRE.MatchString(a.RoomID) {
			return nil, out, fmt.Errorf("room_id %q is not a negotiation id (a lowercase UUID)", a.RoomID)
		}
		if !s.signedIn(req) {
			return nil, out, errSignIn
		}
		id = a.RoomID
	default:
		return nil, out, errors.New("give link (your seat link) or room_id")
	}
	v, err := s.b.Room(ctx, id)
	if err != nil {
		return nil, out, toolError(err)
	}
	out = briefOut{RoomID: id, Status: status(&v)}
	if !v.Ended {
		out.Note = "No brief yet: the room has not ended."
		return nil, out, nil
	}
	b, err := s.b.Brief(ctx, id)
	if err != nil {
		return nil, out, toolError(err)
	}
	if len(b.JSON) > 0 {
		out.Brief = b.JSON
	}
	out.Markdown = b.Markdown
	return nil, out, nil
}

// equalSecret compares two secrets in constant time (over SHA-256
// digests, so their lengths do not leak either).
func equalSecret(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}
