package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// Acts are Parley's own acts the MCP server offers beside the PXP tools:
// the task board and the acts on a negotiation that the node's HTTP API
// offers too. *node.Node implements it; every act goes through the node's
// own checks and its approval gate.
type Acts interface {
	// PostTask announces a task on the board.
	PostTask(ctx context.Context, spec node.TaskSpec) (node.Announcement, error)
	// Board returns the task board, newest first.
	Board() []node.Announcement
	// Counter counters the current offer of negotiation nid.
	Counter(ctx context.Context, nid string, spec node.CounterSpec) (node.ActResult, error)
	// CounterAnnouncement opens a negotiation on an announcement with a
	// counter-offer.
	CounterAnnouncement(ctx context.Context, ann negotiation.Hash, spec node.CounterSpec) (node.ActResult, error)
	// AcceptWith accepts the current offer of negotiation nid with the
	// acceptance's PXP fields (a gated act: it signs the settlement).
	AcceptWith(ctx context.Context, nid string, spec node.AcceptSpec) (node.ActResult, error)
	// AcceptAnnouncementWith opens a negotiation accepting an
	// announcement's terms.
	AcceptAnnouncementWith(ctx context.Context, ann negotiation.Hash, spec node.AcceptSpec) (node.ActResult, error)
	// Deliver delivers a milestone as the worker.
	Deliver(ctx context.Context, nid string, spec node.DeliverySpec) (node.ActResult, error)
	// OpenDispute opens a dispute on a funded task (a gated act).
	OpenDispute(ctx context.Context, nid string) (node.ActResult, error)
	// TaskActs are the other acts on a funded task and its dispute
	// (tasktools.go).
	TaskActs
	// ClaimUnanswered, ReclaimExpired and ResolveTimedOut take the
	// contracts' timeout exits (gated acts; refused with timeout_not_due
	// before they are due).
	ClaimUnanswered(ctx context.Context, nid string, milestone int) (node.ActResult, error)
	ReclaimExpired(ctx context.Context, nid string) (node.ActResult, error)
	ResolveTimedOut(ctx context.Context, nid string) (node.ActResult, error)
	// Veto vetoes negotiation nid's task for party, as the supervisor
	// party named (a gated act).
	Veto(ctx context.Context, nid string, party negotiation.Address, reason string) (node.ActResult, error)
	// Capability attaches a capability proof as the worker (revision.go
	// has the tools of issue 14's acts).
	Capability(ctx context.Context, nid string, spec node.CapabilitySpec) (node.ActResult, error)
	// RequestRevision sends a delivered milestone back to work as the
	// poster (a gated act).
	RequestRevision(ctx context.Context, nid string, spec node.RevisionSpec) (node.ActResult, error)
	// RequestPayment asks for part of a milestone as the worker.
	RequestPayment(ctx context.Context, nid string, spec node.PaymentSpec) (node.ActResult, error)
	// ReleasePart releases a pending payment request as the poster (a
	// gated act).
	ReleasePart(ctx context.Context, nid string, spec node.ReleasePartSpec) (node.ActResult, error)
}

var _ Acts = (*node.Node)(nil)

// Parley's own tools' names.
const (
	ToolListTasks   = "list_tasks"
	ToolPostTask    = "post_task"
	ToolCounter     = "counter"
	ToolAccept      = "accept"
	ToolDeliver     = "deliver"
	ToolOpenDispute = "open_dispute"
	// The timeout exits (node/timeouts.go).
	ToolClaimUnanswered = "claim_unanswered"
	ToolReclaimExpired  = "reclaim_expired"
	ToolResolveTimedOut = "resolve_timed_out"
	ToolVeto            = "veto"
)

// maxFile bounds a delivered file's decoded size.
const maxFile = 4 << 20

type listTasksArgs struct{}

type taskOut struct {
	Announcement string   `json:"announcement" jsonschema:"the announcement's hash: counter or accept name it"`
	Poster       string   `json:"poster"`
	Own          bool     `json:"own" jsonschema:"this node posted it"`
	Terms        termsOut `json:"terms"`
	At           string   `json:"at"`
}

type listTasksOut struct {
	Tasks []taskOut `json:"tasks"`
}

type postTaskArgs struct {
	Title       string            `json:"title"`
	Description string            `json:"description,omitempty"`
	Category    string            `json:"category,omitempty"`
	Milestones  []milestoneObject `json:"milestones"`
	Deadline    string            `json:"deadline" jsonschema:"RFC 3339 (2026-07-01T12:00:00Z) or a date (2026-07-01, midnight UTC)"`
	Token       string            `json:"token,omitempty" jsonschema:"the payment token's address; absent: native ETH"`
	Supervisor  string            `json:"supervisor,omitempty" jsonschema:"the address of the supervisor your principal names: its node gets the negotiation and may veto it for your side"`
}

type counterArgs struct {
	Link         string          `json:"link,omitempty" jsonschema:"your seat link, to counter in that negotiation"`
	Announcement string          `json:"announcement,omitempty" jsonschema:"an announcement's hash (from list_tasks), to open a negotiation on it (needs your principal's agent key)"`
	Terms        json.RawMessage `json:"terms"`
	Reason       string          `json:"reason,omitempty" jsonschema:"why, for the other side"`
	Claims       []claimArg      `json:"claims,omitempty"`
	Reviews      []reviewArg     `json:"reviews,omitempty"`
	DependsOn    []string        `json:"depends_on,omitempty" jsonschema:"ids of the claims the terms rest on; new1, new2 name this call's claims"`
}

type acceptArgs struct {
	Link         string      `json:"link,omitempty" jsonschema:"your seat link: accepts that negotiation's current offer"`
	Announcement string      `json:"announcement,omitempty" jsonschema:"an announcement's hash: accepts its terms as announced (needs your principal's agent key)"`
	Message      string      `json:"message,omitempty" jsonschema:"what the other side and both people read"`
	Claims       []claimArg  `json:"claims,omitempty"`
	Reviews      []reviewArg `json:"reviews,omitempty"`
	DependsOn    []string    `json:"depends_on,omitempty" jsonschema:"ids of the claims the agreement rests on; new1, new2 name this call's claims"`
	Supervisor   string      `json:"supervisor,omitempty" jsonschema:"the address of the supervisor your principal names: its node gets the negotiation and may veto it for your side"`
}

type vetoArgs struct {
	Negotiation string `json:"negotiation" jsonschema:"the negotiation's id (a UUID) this node holds as the supervisor a party named"`
	Party       string `json:"party" jsonschema:"the address of the party (poster or worker) that named this node its supervisor"`
	Reason      string `json:"reason" jsonschema:"why, for both parties"`
}

type deliverArgs struct {
	Link      string `json:"link"`
	Milestone int    `json:"milestone" jsonschema:"the milestone's index, from 0"`
	Name      string `json:"name" jsonschema:"the file's name"`
	Data      string `json:"data" jsonschema:"the file, base64"`
	MediaType string `json:"media_type,omitempty"`
	Note      string `json:"note,omitempty"`
}

type actOut struct {
	RoomID   string `json:"room_id"`
	State    string `json:"state"`
	A2A      string `json:"a2a"`
	Envelope string `json:"envelope,omitempty" jsonschema:"the hash of the envelope sent"`
	Type     string `json:"type,omitempty" jsonschema:"its message type"`
	Tx       string `json:"tx,omitempty" jsonschema:"the transaction sent"`
	YourLink string `json:"your_link,omitempty" jsonschema:"the seat link of a negotiation this call opened: keep it secret"`
}

// registerActs adds Parley's own tools.
func (s *Server) registerActs() {
	no, yes := ptr(false), ptr(true)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolListTasks, Title: "List tasks",
		Description: "The task board as this node sees it, newest first: each announcement's hash, poster and terms. Needs your principal's agent key (Authorization: Bearer header).",
		InputSchema: schemaFor[listTasksArgs](nil),
		Annotations: &sdk.ToolAnnotations{Title: "List tasks", ReadOnlyHint: true, OpenWorldHint: no},
	}, s.listTasks)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolPostTask, Title: "Post a task",
		Description: "Announce a task on the board with its terms: title, milestones (amounts with their unit, such as 0.5 ETH) and a deadline. Workers answer with their own negotiations. Needs your principal's agent key (Authorization: Bearer header).",
		InputSchema: schemaFor[postTaskArgs](func(sc *jsonschema.Schema) {
			bound(sc, "title", 1, maxTitle)
			bound(sc, "description", 1, maxDesc)
			bound(sc, "category", 1, maxCategory)
			sc.Properties["milestones"].MinItems, sc.Properties["milestones"].MaxItems = ptr(1), ptr(maxMilestones)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Post a task", DestructiveHint: no, OpenWorldHint: yes},
	}, s.postTask)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolCounter, Title: "Counter an offer",
		Description: "Counter the current offer with structured terms (what you leave out keeps its value): in your room (link), or on an announcement (announcement, with your principal's agent key), which opens a negotiation and returns its seat link. The node's mandate checks apply as to send_envelope.",
		InputSchema: schemaFor[counterArgs](func(sc *jsonschema.Schema) {
			sc.Properties["link"].Description = linkDesc
			bound(sc, "announcement", 66, 66)
			sc.Properties["terms"] = termsSchema()
			bound(sc, "reason", 1, maxReason)
			pxpSchema(sc)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Counter an offer", DestructiveHint: no, OpenWorldHint: yes},
	}, s.counter)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolAccept, Title: "Accept an offer",
		Description: "Accept the current offer exactly (link), or an announcement's terms (announcement, with your principal's agent key; returns the new negotiation's seat link). Signing the settlement waits for your principal's approval on the node.",
		InputSchema: schemaFor[acceptArgs](func(sc *jsonschema.Schema) {
			sc.Properties["link"].Description = linkDesc
			bound(sc, "announcement", 66, 66)
			bound(sc, "message", 1, maxMessage)
			pxpSchema(sc)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Accept an offer", DestructiveHint: no, OpenWorldHint: yes},
	}, s.accept)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolDeliver, Title: "Deliver a milestone",
		Description: "As the worker of a funded task, deliver a milestone's file: it is stored under its CID, the poster is notified, and the CID goes on chain.",
		InputSchema: schemaFor[deliverArgs](func(sc *jsonschema.Schema) {
			sc.Properties["milestone"].Minimum = ptr(0.0)
			sc.Properties["milestone"].Maximum = ptr(float64(maxMilestones - 1))
			bound(sc, "name", 1, 255)
			bound(sc, "data", 1, base64.StdEncoding.EncodedLen(maxFile))
			bound(sc, "media_type", 1, 255)
			bound(sc, "note", 1, maxReason)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Deliver a milestone", DestructiveHint: no, OpenWorldHint: yes},
	}, s.deliver)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolOpenDispute, Title: "Open a dispute",
		Description: "Open a dispute on a funded task (it posts a bond on chain); waits for your principal's approval on the node.",
		InputSchema: schemaFor[linkArgs](nil),
		Annotations: &sdk.ToolAnnotations{Title: "Open a dispute", DestructiveHint: yes, OpenWorldHint: yes},
	}, s.openDispute)
	s.registerTaskActs()
	s.registerRevisionActs()

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolVeto, Title: "Veto a task",
		Description: "As the supervisor a party named, veto the task for that party: before funding the negotiation ends; after funding the task is halted and the escrow stays in the contract until the parties cancel or dispute. Waits for your principal's approval on the node. Needs your principal's agent key (Authorization: Bearer header).",
		InputSchema: schemaFor[vetoArgs](func(sc *jsonschema.Schema) {
			bound(sc, "negotiation", 36, 36)
			bound(sc, "party", 42, 42)
			bound(sc, "reason", 1, maxReason)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Veto a task", DestructiveHint: yes, OpenWorldHint: yes},
	}, s.veto)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolClaimUnanswered, Title: "Claim an unanswered delivery",
		Description: "As the worker, claim a delivered milestone the poster left unanswered for the review period: it becomes owed to your principal. Refused (timeout_not_due) while the review period runs on chain; waits for your principal's approval on the node.",
		InputSchema: schemaFor[milestoneArgs](func(sc *jsonschema.Schema) {
			sc.Properties["milestone"].Minimum = ptr(0.0)
			sc.Properties["milestone"].Maximum = ptr(float64(maxMilestones - 1))
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Claim an unanswered delivery", DestructiveHint: no, OpenWorldHint: yes},
	}, s.claimUnanswered)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolReclaimExpired, Title: "Reclaim the undelivered escrow",
		Description: "As the poster, after the task's deadline, take back every milestone the worker never delivered. Refused (timeout_not_due) until the deadline passed on chain; waits for your principal's approval on the node.",
		InputSchema: schemaFor[linkArgs](nil),
		Annotations: &sdk.ToolAnnotations{Title: "Reclaim the undelivered escrow", DestructiveHint: no, OpenWorldHint: yes},
	}, s.reclaimExpired)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolResolveTimedOut, Title: "Resolve a stalled dispute",
		Description: "Resolve a dispute whose stage timed out (no arbitrator agreed, or no ruling, in time): the escrow is split evenly and the bond returns to the opener. Refused (timeout_not_due) before; waits for your principal's approval on the node.",
		InputSchema: schemaFor[linkArgs](nil),
		Annotations: &sdk.ToolAnnotations{Title: "Resolve a stalled dispute", DestructiveHint: yes, OpenWorldHint: yes},
	}, s.resolveTimedOut)
}

type milestoneArgs struct {
	Link      string `json:"link"`
	Milestone int    `json:"milestone" jsonschema:"the milestone's index, from 0"`
}

func (s *Server) claimUnanswered(ctx context.Context, _ *sdk.CallToolRequest, a milestoneArgs) (*sdk.CallToolResult, actOut, error) {
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.ClaimUnanswered(ctx, nid, a.Milestone) })
}

func (s *Server) reclaimExpired(ctx context.Context, _ *sdk.CallToolRequest, a linkArgs) (*sdk.CallToolResult, actOut, error) {
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.ReclaimExpired(ctx, nid) })
}

func (s *Server) resolveTimedOut(ctx context.Context, _ *sdk.CallToolRequest, a linkArgs) (*sdk.CallToolResult, actOut, error) {
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.ResolveTimedOut(ctx, nid) })

}

func (s *Server) veto(ctx context.Context, req *sdk.CallToolRequest, a vetoArgs) (*sdk.CallToolResult, actOut, error) {
	var out actOut
	if !s.signedIn(req) {
		return nil, out, errSignIn
	}
	if _, err := negotiation.ParseNegotiationID(a.Negotiation); err != nil {
		return nil, out, fmt.Errorf("negotiation %q is not a negotiation id (a lowercase UUID v4)", a.Negotiation)
	}
	party, err := parseAddress(a.Party)
	if err != nil {
		return nil, out, fmt.Errorf("party: %v", err)
	}
	r, err := s.acts.Veto(ctx, a.Negotiation, party, a.Reason)
	if err != nil {
		return nil, out, toolError(err)
	}
	return s.acted(r, false, "")
}

func (s *Server) listTasks(ctx context.Context, req *sdk.CallToolRequest, _ listTasksArgs) (*sdk.CallToolResult, listTasksOut, error) {
	out := listTasksOut{Tasks: []taskOut{}}
	if !s.signedIn(req) {
		return nil, out, errSignIn
	}
	for _, a := range s.acts.Board() {
		out.Tasks = append(out.Tasks, taskView(a))
	}
	return nil, out, nil
}

func taskView(a node.Announcement) taskOut {
	return taskOut{Announcement: a.Hash.String(), Poster: a.Poster.String(), Own: a.Own, Terms: termsView(&a.Terms), At: stamp(a.Timestamp)}
}

func (s *Server) postTask(ctx context.Context, req *sdk.CallToolRequest, a postTaskArgs) (*sdk.CallToolResult, taskOut, error) {
	var out taskOut
	if !s.signedIn(req) {
		return nil, out, errSignIn
	}
	t, err := termsObject(a).spec("post_task")
	if err != nil {
		return nil, out, err
	}
	if t.Title == "" || len(t.Milestones) == 0 || t.Deadline.IsZero() {
		return nil, out, errors.New("post_task needs a title, at least one milestone and a deadline")
	}
	spec := node.TaskSpec{Title: t.Title, Description: t.Description, Category: t.Category, Deadline: t.Deadline, Supervisor: t.Supervisor}
	if t.Token != nil {
		spec.Token = *t.Token
	}
	for _, m := range t.Milestones {
		spec.Milestones = append(spec.Milestones, node.MilestoneSpec{Amount: m.Amount, Description: m.Description})
	}
	ann, err := s.acts.PostTask(ctx, spec)
	if err != nil {
		return nil, out, toolError(err)
	}
	return nil, taskView(ann), nil
}

// target resolves the link or announcement of counter and accept: a link
// to its negotiation and room, an announcement to its hash (as a worker
// opening a negotiation, with an empty room).
func (s *Server) target(ctx context.Context, req *sdk.CallToolRequest, link, ann string) (nid string, h negotiation.Hash, v *RoomView, err error) {
	switch {
	case link != "" && ann != "":
		return "", h, nil, errors.New("give link or announcement, not both")
	case link != "":
		if nid, _, err = s.room(link); err != nil {
			return "", h, nil, err
		}
		r, err := s.b.Room(ctx, nid)
		if err != nil {
			return "", h, nil, toolError(err)
		}
		return nid, h, &r, nil
	case ann != "":
		if h, err = negotiation.ParseHash(ann); err != nil {
			return "", h, nil, fmt.Errorf("announcement %q is not an announcement hash (0x and 64 lowercase hex digits, from list_tasks)", ann)
		}
		if !s.signedIn(req) {
			return "", h, nil, errSignIn
		}
		return "", h, &RoomView{Role: negotiation.RoleWorker}, nil
	}
	return "", h, nil, errors.New("give link (your seat link) or announcement (from list_tasks)")
}

// pxpFields converts the PXP members of counter and accept.
func pxpFields(v *RoomView, claims []claimArg, reviews []reviewArg, deps []string, message string) (node.PXPFields, error) {
	cl, ids, err := assignClaims(v, claims)
	if err != nil {
		return node.PXPFields{}, err
	}
	d, err := resolveDeps(deps, ids)
	if err != nil {
		return node.PXPFields{}, err
	}
	return node.PXPFields{Claims: cl, Reviews: reviewsOf(reviews), DependsOn: d, Message: strings.TrimSpace(message)}, nil
}

func (s *Server) counter(ctx context.Context, req *sdk.CallToolRequest, a counterArgs) (*sdk.CallToolResult, actOut, error) {
	var out actOut
	nid, ann, v, err := s.target(ctx, req, a.Link, a.Announcement)
	if err != nil {
		return nil, out, err
	}
	fields, err := pxpFields(v, a.Claims, a.Reviews, a.DependsOn, a.Reason)
	if err != nil {
		return nil, out, err
	}
	t, err := parseTerms(a.Terms)
	if err != nil {
		return nil, out, err
	}
	if t.Category != "" || t.Token != nil {
		return nil, out, errors.New("a counter-offer keeps the category and token of the offer it answers")
	}
	spec := node.CounterSpec{Title: t.Title, Description: t.Description, Deadline: t.Deadline, Reason: strings.TrimSpace(a.Reason), Supervisor: t.Supervisor, PXPFields: fields}
	for _, m := range t.Milestones {
		spec.Milestones = append(spec.Milestones, node.MilestoneSpec{Amount: m.Amount, Description: m.Description})
	}
	var r node.ActResult
	if nid != "" {
		r, err = s.acts.Counter(ctx, nid, spec)
	} else {
		r, err = s.acts.CounterAnnouncement(ctx, ann, spec)
	}
	if err != nil {
		return nil, out, toolError(err)
	}
	return s.acted(r, nid == "", clientName(req))
}

func (s *Server) accept(ctx context.Context, req *sdk.CallToolRequest, a acceptArgs) (*sdk.CallToolResult, actOut, error) {
	var out actOut
	nid, ann, v, err := s.target(ctx, req, a.Link, a.Announcement)
	if err != nil {
		return nil, out, err
	}
	fields, err := pxpFields(v, a.Claims, a.Reviews, a.DependsOn, a.Message)
	if err != nil {
		return nil, out, err
	}
	spec := node.AcceptSpec{PXPFields: fields}
	if a.Supervisor != "" {
		sup, err := parseAddress(a.Supervisor)
		if err != nil {
			return nil, out, fmt.Errorf("supervisor: %v", err)
		}
		spec.Supervisor = &sup
	}
	var r node.ActResult
	if nid != "" {
		r, err = s.acts.AcceptWith(ctx, nid, spec)
	} else {
		r, err = s.acts.AcceptAnnouncementWith(ctx, ann, spec)
	}
	if err != nil {
		return nil, out, toolError(err)
	}
	return s.acted(r, nid == "", clientName(req))
}

func (s *Server) deliver(ctx context.Context, req *sdk.CallToolRequest, a deliverArgs) (*sdk.CallToolResult, actOut, error) {
	var out actOut
	nid, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	data, err := base64.StdEncoding.DecodeString(a.Data)
	if err != nil {
		return nil, out, fmt.Errorf("data is not base64: %v", err)
	}
	if len(data) == 0 || len(data) > maxFile {
		return nil, out, fmt.Errorf("data: 1 byte to %d bytes", maxFile)
	}
	r, err := s.acts.Deliver(ctx, nid, node.DeliverySpec{Milestone: a.Milestone, Name: a.Name, MediaType: a.MediaType, Data: data, Note: a.Note})
	if err != nil {
		return nil, out, toolError(err)
	}
	return s.acted(r, false, "")
}

func (s *Server) openDispute(ctx context.Context, req *sdk.CallToolRequest, a linkArgs) (*sdk.CallToolResult, actOut, error) {
	var out actOut
	nid, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	r, err := s.acts.OpenDispute(ctx, nid)
	if err != nil {
		return nil, out, toolError(err)
	}
	return s.acted(r, false, "")
}

// acted answers an act; for a negotiation the call opened it issues the
// seat (to agent).
func (s *Server) acted(r node.ActResult, opened bool, agent string) (*sdk.CallToolResult, actOut, error) {
	out := actOut{RoomID: r.Thread.NegotiationID, State: string(r.Thread.State), A2A: string(r.Thread.A2A)}
	if r.Envelope != nil {
		out.Envelope, out.Type = r.Envelope.Hash.String(), string(r.Envelope.Type)
	}
	if r.Tx != nil {
		out.Tx = r.Tx.Hash
	}
	if opened {
		secret, err := s.seats.issue(out.RoomID, agent)
		if err != nil {
			return nil, out, fmt.Errorf("negotiation %s was opened but its seat could not be issued (%v): take the seat with join_room on parley://%s/rooms/%s", out.RoomID, err, s.o.PeerID, out.RoomID)
		}
		out.YourLink = s.link(out.RoomID, secret)
	}
	return nil, out, nil
}
