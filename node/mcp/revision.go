package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// The tools of issue 14's acts: a worker's capability proofs, the
// poster's revision requests, the worker's payment requests and the
// poster's partial releases.
const (
	ToolCapability      = "attach_capability_proof"
	ToolRequestRevision = "request_revision"
	ToolRequestPayment  = "request_payment"
	ToolReleasePart     = "release_part"
)

type revisionArgs struct {
	Link      string `json:"link"`
	Milestone int    `json:"milestone" jsonschema:"the delivered milestone's index, from 0"`
	Reason    string `json:"reason" jsonschema:"what the worker should change"`
}

type paymentArgs struct {
	Link      string `json:"link"`
	Milestone int    `json:"milestone" jsonschema:"the milestone's index, from 0"`
	Basis     string `json:"basis" jsonschema:"hourly (units: hours), stream (units: stream units) or milestone (all that is left of it)"`
	Amount    string `json:"amount" jsonschema:"the amount in wei, a decimal string"`
	Units     uint64 `json:"units,omitempty" jsonschema:"the hours or stream units the amount is for"`
	Note      string `json:"note,omitempty"`
}

type releasePartArgs struct {
	Link      string `json:"link"`
	Milestone int    `json:"milestone" jsonschema:"the milestone's index, from 0"`
	Request   string `json:"request,omitempty" jsonschema:"the payment request's hash; absent: the one paid next"`
}

type capabilityArgs struct {
	Link        string `json:"link"`
	Capability  string `json:"capability" jsonschema:"the domain proved, such as translation:en-de"`
	Kind        string `json:"kind" jsonschema:"what the proof is: portfolio, certificate, attestation, ..."`
	Description string `json:"description" jsonschema:"what the proof shows; an attestation signs it"`
	Ref         string `json:"ref,omitempty" jsonschema:"a further reference (a URL), shown but not checked"`
	Name        string `json:"name,omitempty" jsonschema:"the attached file's name"`
	Data        string `json:"data,omitempty" jsonschema:"a file, base64: the poster's node fetches it and checks it against its CID"`
	MediaType   string `json:"media_type,omitempty"`
	CID         string `json:"cid,omitempty" jsonschema:"the CID of a file this node holds, instead of data"`
	Attester    string `json:"attester,omitempty" jsonschema:"the attester's EVM address"`
	Signature   string `json:"signature,omitempty" jsonschema:"the attester's EIP-191 signature (0x and 130 hex digits) over: Parley capability attestation\\nsubject: <the worker's address>\\ncapability: <capability>\\nstatement: <description>"`
}

// registerRevisionActs adds the tools of issue 14's acts.
func (s *Server) registerRevisionActs() {
	no, yes := ptr(false), ptr(true)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolCapability, Title: "Attach a capability proof",
		Description: "As the worker, show the poster a capability: a file (its CID is checked by the poster's node), and/or another address's signed attestation (verified before it is sent). The poster's thread and brief say which proofs were checked.",
		InputSchema: schemaFor[capabilityArgs](func(sc *jsonschema.Schema) {
			bound(sc, "capability", 1, 128)
			bound(sc, "kind", 1, 64)
			bound(sc, "description", 0, 8192)
			bound(sc, "ref", 1, 2048)
			bound(sc, "name", 1, 255)
			bound(sc, "data", 1, base64.StdEncoding.EncodedLen(maxFile))
			bound(sc, "media_type", 1, 255)
			bound(sc, "cid", 1, 128)
			bound(sc, "attester", 42, 42)
			bound(sc, "signature", 132, 132)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Attach a capability proof", DestructiveHint: no, OpenWorldHint: yes},
	}, s.capability)

	milestone := func(sc *jsonschema.Schema) {
		sc.Properties["milestone"].Minimum = ptr(0.0)
		sc.Properties["milestone"].Maximum = ptr(float64(maxMilestones - 1))
	}
	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolRequestRevision, Title: "Request a revision",
		Description: "As the poster of a funded task, send a delivered milestone back to work: on chain its review clock stops (the worker can no longer claim the delivery unanswered) and the worker is told what to change. Waits for your principal's approval on the node.",
		InputSchema: schemaFor[revisionArgs](func(sc *jsonschema.Schema) {
			milestone(sc)
			bound(sc, "reason", 1, maxReason)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Request a revision", DestructiveHint: no, OpenWorldHint: yes},
	}, s.requestRevision)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolRequestPayment, Title: "Request a payment",
		Description: "As the worker of a funded task, ask for part of a milestone: hours worked (hourly), a stream's units (stream), or all that is left of it (milestone). Refused, before anything is sent, beyond what the milestone's released total and pending requests leave (payment_exceeds_milestone).",
		InputSchema: schemaFor[paymentArgs](func(sc *jsonschema.Schema) {
			milestone(sc)
			sc.Properties["basis"].Enum = []any{"hourly", "stream", "milestone"}
			bound(sc, "amount", 1, 78)
			bound(sc, "note", 1, maxReason)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Request a payment", DestructiveHint: no, OpenWorldHint: yes},
	}, s.requestPayment)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolReleasePart, Title: "Release a payment request",
		Description: "As the poster, release on chain the amount of a milestone's pending payment request (requests are paid in order); the part that releases the rest releases the milestone. Waits for your principal's approval on the node.",
		InputSchema: schemaFor[releasePartArgs](func(sc *jsonschema.Schema) {
			milestone(sc)
			bound(sc, "request", 66, 66)
		}),
		Annotations: &sdk.ToolAnnotations{Title: "Release a payment request", DestructiveHint: yes, OpenWorldHint: yes},
	}, s.releasePart)
}

func (s *Server) requestRevision(ctx context.Context, req *sdk.CallToolRequest, a revisionArgs) (*sdk.CallToolResult, actOut, error) {
	var out actOut
	nid, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	r, err := s.acts.RequestRevision(ctx, nid, node.RevisionSpec{Milestone: a.Milestone, Reason: a.Reason})
	if err != nil {
		return nil, out, toolError(err)
	}
	return s.acted(r, false, "")
}

func (s *Server) requestPayment(ctx context.Context, req *sdk.CallToolRequest, a paymentArgs) (*sdk.CallToolResult, actOut, error) {
	var out actOut
	nid, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	amount, ok := new(big.Int).SetString(a.Amount, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, out, fmt.Errorf("amount %q is not a positive decimal number of wei", a.Amount)
	}
	r, err := s.acts.RequestPayment(ctx, nid, node.PaymentSpec{Milestone: a.Milestone, Basis: a.Basis, Amount: amount, Units: a.Units, Note: a.Note})
	if err != nil {
		return nil, out, toolError(err)
	}
	return s.acted(r, false, "")
}

func (s *Server) releasePart(ctx context.Context, req *sdk.CallToolRequest, a releasePartArgs) (*sdk.CallToolResult, actOut, error) {
	var out actOut
	nid, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	spec := node.ReleasePartSpec{Milestone: a.Milestone}
	if a.Request != "" {
		h, err := negotiation.ParseHash(a.Request)
		if err != nil {
			return nil, out, fmt.Errorf("request: %v", err)
		}
		spec.Request = &h
	}
	r, err := s.acts.ReleasePart(ctx, nid, spec)
	if err != nil {
		return nil, out, toolError(err)
	}
	return s.acted(r, false, "")
}

func (s *Server) capability(ctx context.Context, req *sdk.CallToolRequest, a capabilityArgs) (*sdk.CallToolResult, actOut, error) {
	var out actOut
	nid, _, err := s.room(a.Link)
	if err != nil {
		return nil, out, err
	}
	spec := node.CapabilitySpec{Capability: a.Capability, Kind: a.Kind, Description: a.Description, Ref: a.Ref,
		Name: a.Name, MediaType: a.MediaType, CID: negotiation.CID(a.CID)}
	if a.Data != "" {
		if spec.Data, err = base64.StdEncoding.DecodeString(a.Data); err != nil {
			return nil, out, fmt.Errorf("data is not base64: %v", err)
		}
		if len(spec.Data) > maxFile {
			return nil, out, fmt.Errorf("data: at most %d bytes", maxFile)
		}
	}
	if a.Attester != "" {
		if !common.IsHexAddress(a.Attester) {
			return nil, out, fmt.Errorf("attester %q is not an address", a.Attester)
		}
		at := negotiation.Address(common.HexToAddress(a.Attester))
		spec.Attester = &at
	}
	if a.Signature != "" {
		if err := spec.Signature.UnmarshalText([]byte(a.Signature)); err != nil {
			return nil, out, fmt.Errorf("signature: %v", err)
		}
	}
	r, err := s.acts.Capability(ctx, nid, spec)
	if err != nil {
		return nil, out, toolError(err)
	}
	return s.acted(r, false, "")
}
