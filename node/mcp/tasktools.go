package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// TaskActs are the acts on a funded task and its dispute that the MCP
// server offers beside deliver and open_dispute, one tool each, so that
// every message type of the negotiation seed can be sent through MCP as
// through the HTTP API and the CLI. The gated ones wait for the
// principal's approval on the node, as every gated act does: the agent's
// call asks, the passkey decides.
type TaskActs interface {
	// Fund moves the agreed escrow into the registry (fund_escrow).
	Fund(ctx context.Context, nid string) (node.ActResult, error)
	// AcceptDeliveryWith accepts a delivery and releases its milestone
	// (release_milestone).
	AcceptDeliveryWith(ctx context.Context, nid string, spec node.AcceptDeliverySpec) (node.ActResult, error)
	// Cancel signs a mutual cancel (sign_cancel).
	Cancel(ctx context.Context, nid, reason string) (node.ActResult, error)
	// Amend signs an amendment of the milestones and deadline
	// (sign_amendment).
	Amend(ctx context.Context, nid string, spec node.AmendSpec) (node.ActResult, error)
	// Replace signs the hand-over to a new worker (sign_replacement).
	Replace(ctx context.Context, nid string, spec node.ReplaceSpec) (node.ActResult, error)
	// SubmitEvidence submits an evidence file to the dispute.
	SubmitEvidence(ctx context.Context, nid string, spec node.EvidenceSpec) (node.ActResult, error)
	// ProposeArbitratorWith names the arbitrator this side accepts
	// (propose_arbitrator).
	ProposeArbitratorWith(ctx context.Context, nid string, spec node.ArbitratorSpec) (node.ActResult, error)
	// Rule rules on the dispute, as its arbitrator (rule).
	Rule(ctx context.Context, nid string, ruling uint64) (node.ActResult, error)
	// Withdraw withdraws what the registry owes this node in a token.
	Withdraw(ctx context.Context, token negotiation.Address) (node.ActResult, error)
}

// The task tools' names.
const (
	ToolFund              = "fund"
	ToolAcceptDelivery    = "accept_delivery"
	ToolCancel            = "cancel"
	ToolAmend             = "amend"
	ToolReplace           = "replace"
	ToolSubmitEvidence    = "submit_evidence"
	ToolProposeArbitrator = "propose_arbitrator"
	ToolRule              = "rule"
	ToolWithdraw          = "withdraw"
)

type acceptDeliveryArgs struct {
	Link      string `json:"link"`
	Milestone int    `json:"milestone" jsonschema:"the milestone's index, from 0"`
	Note      string `json:"note,omitempty" jsonschema:"a note to the worker, sent with the acceptance"`
}

type cancelArgs struct {
	Link   string `json:"link"`
	Reason string `json:"reason" jsonschema:"why, for the other side"`
}

type amendArgs struct {
	Link       string            `json:"link"`
	Milestones []milestoneObject `json:"milestones,omitempty" jsonschema:"every milestone after the amendment, released ones unchanged; absent with deadline absent: co-sign the other side's amendment as it stands"`
	Deadline   string            `json:"deadline,omitempty" jsonschema:"RFC 3339 or a date"`
	Reason     string            `json:"reason,omitempty" jsonschema:"why, for the person approving"`
}

type replaceArgs struct {
	Link      string `json:"link"`
	NewWorker string `json:"new_worker,omitempty" jsonschema:"the new worker's EVM address; absent: co-sign the other side's replacement as it stands"`
	Summary   string `json:"summary,omitempty" jsonschema:"what the new worker takes over"`
}

type evidenceArgs struct {
	Link        string `json:"link"`
	Name        string `json:"name" jsonschema:"the file's name"`
	Data        string `json:"data" jsonschema:"the file, base64"`
	MediaType   string `json:"media_type,omitempty"`
	Description string `json:"description" jsonschema:"what the file shows"`
	InReplyTo   string `json:"in_reply_to,omitempty" jsonschema:"the hash of the envelope of the negotiation this evidence answers"`
}

type arbitratorArgs struct {
	Link       string `json:"link"`
	Arbitrator string `json:"arbitrator" jsonschema:"the arbitrator's EVM address"`
	Reason     string `json:"reason,omitempty" jsonschema:"why this side names it, for the other side"`
}

type ruleArgs struct {
	Link      string `json:"link"`
	WorkerBps *int   `json:"worker_bps,omitempty" jsonschema:"basis points of the escrow to the worker, 0 to 10000 (the rest to the poster)"`
	Refuse    bool   `json:"refuse,omitempty" jsonschema:"refuse to rule: the dispute waits for another arbitrator"`
}

type withdrawArgs struct {
	Token string `json:"token,omitempty" jsonschema:"the token's address; absent: native ETH"`
}

// registerTaskActs adds the task tools.
func (s *Server) registerTaskActs() {
	no, yes := ptr(false), ptr(true)
	gated := func(name, title, desc string, destructive bool, schema *jsonschema.Schema) *sdk.Tool {
		return &sdk.Tool{Name: name, Title: title, Description: desc, InputSchema: schema,
			Annotations: &sdk.ToolAnnotations{Title: title, DestructiveHint: ptr(destructive), OpenWorldHint: yes}}
	}
	sdk.AddTool(s.srv, gated(ToolFund, "Fund the escrow",
		"As the poster of an agreed negotiation, move the agreed escrow into the contract (createTask with both signatures); waits for your principal's approval on the node.",
		false, schemaFor[linkArgs](nil)), s.fundTool)
	sdk.AddTool(s.srv, gated(ToolAcceptDelivery, "Accept a delivery",
		"As the poster, accept a milestone's delivery once its files were fetched and checked, and release the milestone to the worker on chain; waits for your principal's approval on the node.",
		false, schemaFor[acceptDeliveryArgs](func(sc *jsonschema.Schema) {
			sc.Properties["milestone"].Minimum = ptr(0.0)
			sc.Properties["milestone"].Maximum = ptr(float64(maxMilestones - 1))
			bound(sc, "note", 1, maxReason)
		})), s.acceptDeliveryTool)
	sdk.AddTool(s.srv, gated(ToolCancel, "Cancel by mutual consent",
		"Sign a mutual cancel: before funding the negotiation ends once both sides cancelled; after funding the escrow goes back to the poster once both signed. Waits for your principal's approval on the node.",
		true, schemaFor[cancelArgs](func(sc *jsonschema.Schema) { bound(sc, "reason", 1, maxReason) })), s.cancelTool)
	sdk.AddTool(s.srv, gated(ToolAmend, "Amend the milestones",
		"Sign an amendment of a funded task's milestones and deadline (the contract takes it once both sides signed the same one); waits for your principal's approval on the node.",
		false, schemaFor[amendArgs](func(sc *jsonschema.Schema) {
			sc.Properties["milestones"].MaxItems = ptr(maxMilestones)
			bound(sc, "reason", 1, maxReason)
		})), s.amendTool)
	sdk.AddTool(s.srv, gated(ToolReplace, "Hand over to a new worker",
		"Sign the hand-over of a funded task to a new worker (the poster and the current worker both sign); waits for your principal's approval on the node.",
		true, schemaFor[replaceArgs](func(sc *jsonschema.Schema) {
			bound(sc, "new_worker", 42, 42)
			bound(sc, "summary", 1, maxReason)
		})), s.replaceTool)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolSubmitEvidence, Title: "Submit evidence",
		Description: "Submit an evidence file to the negotiation's dispute: stored under its CID, sent sealed to the other side and the arbitrator, and its CID added to the dispute on chain. Not gated: it moves no money.",
		InputSchema: schemaFor[evidenceArgs](func(sc *jsonschema.Schema) {
			bound(sc, "name", 1, 255)
			bound(sc, "data", 1, base64.StdEncoding.EncodedLen(maxFile))
			bound(sc, "media_type", 1, 255)
			bound(sc, "description", 1, maxReason)
			bound(sc, "in_reply_to", 66, 66)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Submit evidence", DestructiveHint: no, OpenWorldHint: yes},
	}, s.submitEvidence)
	sdk.AddTool(s.srv, gated(ToolProposeArbitrator, "Propose an arbitrator",
		"In a dispute, name the arbitrator this side accepts; the contract assigns it once both sides named the same address. Waits for your principal's approval on the node.",
		false, schemaFor[arbitratorArgs](func(sc *jsonschema.Schema) {
			bound(sc, "arbitrator", 42, 42)
			bound(sc, "reason", 1, maxReason)
		})), s.proposeArbitrator)
	sdk.AddTool(s.srv, gated(ToolRule, "Rule on a dispute",
		"As the dispute's arbitrator, give the worker worker_bps basis points of the escrow (the rest to the poster), or refuse to rule; waits for your principal's approval on the node.",
		true, schemaFor[ruleArgs](func(sc *jsonschema.Schema) {
			sc.Properties["worker_bps"].Minimum = ptr(0.0)
			sc.Properties["worker_bps"].Maximum = ptr(10000.0)
		})), s.ruleTool)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolWithdraw, Title: "Withdraw",
		Description: "Withdraw everything the task registry owes this node in a token (native ETH when absent). Needs your principal's agent key; not gated: the money is already this node's.",
		InputSchema: schemaFor[withdrawArgs](func(sc *jsonschema.Schema) { bound(sc, "token", 42, 42) }),
		Annotations: &sdk.ToolAnnotations{Title: "Withdraw", DestructiveHint: no, OpenWorldHint: yes},
	}, s.withdrawTool)
}

// onRoom runs act on the negotiation a seat link opens and answers it.
func (s *Server) onRoom(link string, act func(nid string) (node.ActResult, error)) (*sdk.CallToolResult, actOut, error) {
	nid, _, err := s.room(link)
	if err != nil {
		return nil, actOut{}, err
	}
	r, err := act(nid)
	if err != nil {
		return nil, actOut{}, toolError(err)
	}
	return s.acted(r, false, "")
}

func (s *Server) fundTool(ctx context.Context, _ *sdk.CallToolRequest, a linkArgs) (*sdk.CallToolResult, actOut, error) {
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.Fund(ctx, nid) })
}

func (s *Server) acceptDeliveryTool(ctx context.Context, _ *sdk.CallToolRequest, a acceptDeliveryArgs) (*sdk.CallToolResult, actOut, error) {
	spec := node.AcceptDeliverySpec{Milestone: a.Milestone, Note: strings.TrimSpace(a.Note)}
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.AcceptDeliveryWith(ctx, nid, spec) })
}

func (s *Server) cancelTool(ctx context.Context, _ *sdk.CallToolRequest, a cancelArgs) (*sdk.CallToolResult, actOut, error) {
	if strings.TrimSpace(a.Reason) == "" {
		return nil, actOut{}, errors.New("cancel needs a reason, for the other side")
	}
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.Cancel(ctx, nid, strings.TrimSpace(a.Reason)) })
}

func (s *Server) amendTool(ctx context.Context, _ *sdk.CallToolRequest, a amendArgs) (*sdk.CallToolResult, actOut, error) {
	spec := node.AmendSpec{Reason: strings.TrimSpace(a.Reason)}
	for i, m := range a.Milestones {
		amount, err := parseAmount(m.Amount)
		if err != nil {
			return nil, actOut{}, fmt.Errorf("milestones[%d]: %v", i, err)
		}
		spec.Milestones = append(spec.Milestones, node.MilestoneSpec{Amount: amount, Description: m.Description})
	}
	if a.Deadline != "" {
		d, err := parseDeadline(a.Deadline)
		if err != nil {
			return nil, actOut{}, err
		}
		spec.Deadline = d
	}
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.Amend(ctx, nid, spec) })
}

func (s *Server) replaceTool(ctx context.Context, _ *sdk.CallToolRequest, a replaceArgs) (*sdk.CallToolResult, actOut, error) {
	spec := node.ReplaceSpec{Summary: strings.TrimSpace(a.Summary)}
	if a.NewWorker != "" {
		w, err := parseAddress(a.NewWorker)
		if err != nil {
			return nil, actOut{}, fmt.Errorf("new_worker: %v", err)
		}
		spec.NewWorker = w
	}
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.Replace(ctx, nid, spec) })
}

func (s *Server) submitEvidence(ctx context.Context, _ *sdk.CallToolRequest, a evidenceArgs) (*sdk.CallToolResult, actOut, error) {
	data, err := base64.StdEncoding.DecodeString(a.Data)
	if err != nil {
		return nil, actOut{}, fmt.Errorf("data is not base64: %v", err)
	}
	if len(data) == 0 || len(data) > maxFile {
		return nil, actOut{}, fmt.Errorf("data: 1 byte to %d bytes", maxFile)
	}
	spec := node.EvidenceSpec{Name: a.Name, MediaType: a.MediaType, Data: data, Description: strings.TrimSpace(a.Description)}
	if a.InReplyTo != "" {
		h, err := negotiation.ParseHash(a.InReplyTo)
		if err != nil {
			return nil, actOut{}, fmt.Errorf("in_reply_to %q is not an envelope hash (0x and 64 lowercase hex digits, from get_room)", a.InReplyTo)
		}
		spec.InReplyTo = &h
	}
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.SubmitEvidence(ctx, nid, spec) })
}

func (s *Server) proposeArbitrator(ctx context.Context, _ *sdk.CallToolRequest, a arbitratorArgs) (*sdk.CallToolResult, actOut, error) {
	arb, err := parseAddress(a.Arbitrator)
	if err != nil {
		return nil, actOut{}, fmt.Errorf("arbitrator: %v", err)
	}
	spec := node.ArbitratorSpec{Arbitrator: arb, Reason: strings.TrimSpace(a.Reason)}
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.ProposeArbitratorWith(ctx, nid, spec) })
}

func (s *Server) ruleTool(ctx context.Context, _ *sdk.CallToolRequest, a ruleArgs) (*sdk.CallToolResult, actOut, error) {
	var ruling uint64
	switch {
	case a.Refuse && a.WorkerBps != nil:
		return nil, actOut{}, errors.New("give worker_bps or refuse, not both")
	case a.Refuse:
		ruling = 0
	case a.WorkerBps == nil || *a.WorkerBps < 0 || *a.WorkerBps > 10000:
		return nil, actOut{}, errors.New("give worker_bps (0 to 10000 basis points of the escrow to the worker) or refuse: true")
	default:
		ruling = uint64(*a.WorkerBps) + 1
	}
	return s.onRoom(a.Link, func(nid string) (node.ActResult, error) { return s.acts.Rule(ctx, nid, ruling) })
}

// withdrawOut is what withdraw did.
type withdrawOut struct {
	Tx     string `json:"tx,omitempty" jsonschema:"the transaction sent"`
	Amount string `json:"amount,omitempty" jsonschema:"what was withdrawn, with its unit"`
}

func (s *Server) withdrawTool(ctx context.Context, req *sdk.CallToolRequest, a withdrawArgs) (*sdk.CallToolResult, withdrawOut, error) {
	var out withdrawOut
	if !s.signedIn(req) {
		return nil, out, errSignIn
	}
	var token negotiation.Address
	if a.Token != "" {
		t, err := parseAddress(a.Token)
		if err != nil {
			return nil, out, fmt.Errorf("token: %v", err)
		}
		token = t
	}
	r, err := s.acts.Withdraw(ctx, token)
	if err != nil {
		return nil, out, toolError(err)
	}
	if r.Tx != nil {
		out.Tx = r.Tx.Hash
	}
	if wei, ok := new(big.Int).SetString(r.Detail["amount"], 10); ok {
		out.Amount = formatAmount(wei, token)
	}
	return nil, out, nil
}
