package mcp

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// OnchainActs are the acts on the chain's registries and with a contract
// arbitrator (issue 14): this node's IdentityLink record, the look-up of
// another's, an announcement's scope check and a dispute raised with its
// arbitrator contract. *node.Node implements them; an Acts that does not
// offers none of these tools. Every gated one waits for the principal's
// approval on the node.
type OnchainActs interface {
	RegisterIdentity(ctx context.Context) (node.ActResult, error)
	RotateIdentity(ctx context.Context) (node.ActResult, error)
	RevokeIdentity(ctx context.Context) (node.ActResult, error)
	LookupLink(ctx context.Context, a negotiation.Address) (node.LinkCheck, error)
	CheckScope(ctx context.Context, ann negotiation.Hash) (*node.ScopeCheck, error)
	RaiseWithArbitrator(ctx context.Context, nid string) (node.ActResult, error)
}

var _ OnchainActs = (*node.Node)(nil)

// The tools of OnchainActs.
const (
	ToolRegisterIdentity = "register_identity"
	ToolRotateIdentity   = "rotate_identity"
	ToolRevokeIdentity   = "revoke_identity"
	ToolLookupIdentity   = "lookup_identity"
	ToolCheckScope       = "check_scope"
	ToolRaiseArbitrator  = "raise_with_arbitrator"
)

type noArgs struct{}

type addressArgs struct {
	Address string `json:"address" jsonschema:"an EVM address, EIP-55"`
}

type announcementArgs struct {
	Announcement string `json:"announcement" jsonschema:"an announcement's hash, from list_tasks"`
}

type identityOut struct {
	State    string `json:"state" jsonschema:"matching, different, registered or not_registered"`
	LinkHash string `json:"link_hash,omitempty"`
	Tx       string `json:"tx,omitempty"`
}

type scopeOut struct {
	State   string `json:"state" jsonschema:"none, published, unpublished (flagged), mismatch or withdrawn (answers refused)"`
	Named   string `json:"named,omitempty"`
	OnChain string `json:"on_chain,omitempty"`
}

// registerOnchain adds the tools of OnchainActs when s.acts has them
// (tools.go calls it after registerActs).
func (s *Server) registerOnchain() {
	oa, ok := s.acts.(OnchainActs)
	if !ok {
		return
	}
	no, yes := ptr(false), ptr(true)
	own := func(name, title, desc string, f func(context.Context) (node.ActResult, error)) {
		sdk.AddTool(s.srv, &sdk.Tool{
			Name: name, Title: title, Description: desc + " It spends gas and waits for your principal's approval on the node. Needs your principal's agent key (Authorization: Bearer header).",
			InputSchema: schemaFor[noArgs](nil),
			Annotations: &sdk.ToolAnnotations{Title: title, DestructiveHint: no, OpenWorldHint: yes},
		}, func(ctx context.Context, req *sdk.CallToolRequest, _ noArgs) (*sdk.CallToolResult, identityOut, error) {
			var out identityOut
			if !s.signedIn(req) {
				return nil, out, errSignIn
			}
			r, err := f(ctx)
			if err != nil {
				return nil, out, toolError(err)
			}
			out.State, out.LinkHash = r.Detail["state"], r.Detail["linkHash"]
			if r.Tx != nil {
				out.Tx = r.Tx.Hash
			}
			return nil, out, nil
		})
	}
	own(ToolRegisterIdentity, "Register this node's identity on chain", "Publish this node's identity link (inbox key, peer id, link hash) in the IdentityLink contract under its address.", oa.RegisterIdentity)
	own(ToolRotateIdentity, "Rotate this node's identity on chain", "Replace this node's IdentityLink record with its current identity link, after its keys issued a new one.", oa.RotateIdentity)
	own(ToolRevokeIdentity, "Revoke this node's identity on chain", "Withdraw this node's IdentityLink record.", oa.RevokeIdentity)

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolLookupIdentity, Title: "Look up an identity on chain",
		Description: "Read an address's IdentityLink record and compare it with the identity link this node holds for it: matching, different, registered (no link held) or not_registered. Needs your principal's agent key (Authorization: Bearer header).",
		InputSchema: schemaFor[addressArgs](func(sc *jsonschema.Schema) { bound(sc, "address", 42, 42) }),
		Annotations: &sdk.ToolAnnotations{Title: "Look up an identity on chain", ReadOnlyHint: true, OpenWorldHint: yes},
	}, func(ctx context.Context, req *sdk.CallToolRequest, a addressArgs) (*sdk.CallToolResult, identityOut, error) {
		var out identityOut
		if !s.signedIn(req) {
			return nil, out, errSignIn
		}
		addr, err := negotiation.ParseAddress(a.Address)
		if err != nil {
			return nil, out, fmt.Errorf("address %q is not an EIP-55 address", a.Address)
		}
		c, err := oa.LookupLink(ctx, addr)
		if err != nil {
			return nil, out, toolError(err)
		}
		out.State = string(c.State)
		if c.LinkHash != nil {
			out.LinkHash = c.LinkHash.String()
		}
		return nil, out, nil
	})

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolCheckScope, Title: "Check a task's scope on chain",
		Description: "Compare the scope hash an announcement's terms name with the TaskScopeRegistry: published, unpublished (flagged: the poster's claim only), mismatch or withdrawn (answers are refused with scope_mismatch). Needs your principal's agent key (Authorization: Bearer header).",
		InputSchema: schemaFor[announcementArgs](func(sc *jsonschema.Schema) { bound(sc, "announcement", 66, 66) }),
		Annotations: &sdk.ToolAnnotations{Title: "Check a task's scope on chain", ReadOnlyHint: true, OpenWorldHint: yes},
	}, func(ctx context.Context, req *sdk.CallToolRequest, a announcementArgs) (*sdk.CallToolResult, scopeOut, error) {
		var out scopeOut
		if !s.signedIn(req) {
			return nil, out, errSignIn
		}
		h, err := negotiation.ParseHash(a.Announcement)
		if err != nil {
			return nil, out, fmt.Errorf("announcement %q is not an announcement hash (0x and 64 lowercase hex digits, from list_tasks)", a.Announcement)
		}
		c, err := oa.CheckScope(ctx, h)
		if err != nil {
			return nil, out, toolError(err)
		}
		if c == nil {
			out.State = "none"
			return nil, out, nil
		}
		out.State, out.Named = string(c.State), c.Named.String()
		if c.OnChain != nil {
			out.OnChain = c.OnChain.String()
		}
		return nil, out, nil
	})

	sdk.AddTool(s.srv, &sdk.Tool{
		Name: ToolRaiseArbitrator, Title: "Raise the dispute with its arbitrator contract",
		Description: "When both parties named an ERC-792 arbitrator contract, raise the dispute with it, paying the court's fee; waits for your principal's approval on the node. The court's ruling later reaches both rooms.",
		InputSchema: schemaFor[linkArgs](nil),
		Annotations: &sdk.ToolAnnotations{Title: "Raise the dispute with its arbitrator contract", DestructiveHint: yes, OpenWorldHint: yes},
	}, func(ctx context.Context, req *sdk.CallToolRequest, a linkArgs) (*sdk.CallToolResult, actOut, error) {
		var out actOut
		nid, _, err := s.room(a.Link)
		if err != nil {
			return nil, out, err
		}
		r, err := oa.RaiseWithArbitrator(ctx, nid)
		if err != nil {
			return nil, out, toolError(err)
		}
		return s.acted(r, false, "")
	})
}
