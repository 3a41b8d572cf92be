package mcp

import (
	"context"
	"encoding/base64"
	"fmt"

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
	ToolCapability = "attach_capability_proof"
)

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
