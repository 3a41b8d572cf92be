package node

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// TreeHeadView is a signed tree head as the API shows it.
type TreeHeadView struct {
	// Size is how many entries the head covers; Root is their Merkle root.
	Size uint64 `json:"size"`
	Root string `json:"root"`
	// Time is when the node signed it.
	Time time.Time `json:"time"`
	// Signer is the SHA-256 of the signer's identity link; Signature the
	// inbox key's ed25519 signature over the head's signing bytes.
	Signer    string `json:"signer"`
	Signature string `json:"signature"`
	// Seq is the ledger entry (tree.head) that records it.
	Seq uint64 `json:"seq"`
}

// TreeAnchorView is an anchor of a tree head on chain as the API shows it.
type TreeAnchorView struct {
	Size        uint64 `json:"size"`
	Root        string `json:"root"`
	ChainID     uint64 `json:"chainId"`
	Contract    string `json:"contract"`
	Address     string `json:"address"` // the EVM address that sent the anchor
	TxHash      string `json:"txHash"`
	BlockNumber uint64 `json:"blockNumber"`
	// Seq is the ledger entry (tree.anchor) that records it.
	Seq uint64 `json:"seq"`
}

// LedgerHeads is the state of the node's signed tree heads and anchors.
type LedgerHeads struct {
	// Entries is how many entries the ledger holds.
	Entries uint64 `json:"entries"`
	// Head is the latest signed tree head (absent: none yet).
	Head *TreeHeadView `json:"head,omitempty"`
	// Anchor is the latest anchor on chain (absent: none yet).
	Anchor *TreeAnchorView `json:"anchor,omitempty"`
	// Budget is the day's gas budget of the anchors.
	Budget Budget `json:"budget"`
}

// Consistency is the RFC 6962 consistency proof between two sizes of the
// node's tree, with the latest signed head.
type Consistency struct {
	From     uint64        `json:"from"`
	To       uint64        `json:"to"`
	FromRoot string        `json:"fromRoot"`
	ToRoot   string        `json:"toRoot"`
	Proof    []string      `json:"proof"`
	Head     *TreeHeadView `json:"head,omitempty"`
}

func headView(h ledger.TreeHead, e ledger.Entry) *TreeHeadView {
	return &TreeHeadView{Size: h.Size, Root: negotiation.Hash(h.Root).String(), Time: h.Time, Signer: h.Signer.String(),
		Signature: fmt.Sprintf("0x%x", h.Signature), Seq: e.Seq}
}

func anchorView(a ledger.TreeAnchor, e ledger.Entry) *TreeAnchorView {
	return &TreeAnchorView{Size: a.Size, Root: negotiation.Hash(a.Root).String(), ChainID: a.ChainID, Contract: a.Contract.String(),
		Address: a.Address.String(), TxHash: a.TxHash.String(), BlockNumber: a.BlockNumber, Seq: e.Seq}
}

func hexes(hs [][32]byte) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = negotiation.Hash(h).String()
	}
	return out
}

// AnchorLedger signs the node's tree head (when the ledger grew since the
// last) and anchors it on chain now, from the node's EVM key, and returns
// the anchor it recorded. Not gated (it moves no escrow), but held to
// ledger.anchor_gas_per_day: CodeAnchorBudget (rate_limited, with the wait
// until the next UTC day) when it would exceed it; CodeAnchorUnchanged
// when nothing was added since the last anchor; CodeNoChain without a
// chain.
func (n *Node) AnchorLedger(ctx context.Context) (TreeAnchorView, error) {
	if err := n.running(); err != nil {
		return TreeAnchorView{}, err
	}
	a, e, err := n.heads.anchor(ctx, anchorDemand)
	if err != nil {
		return TreeAnchorView{}, err
	}
	return *anchorView(a, e), nil
}

// SignTreeHead returns the node's latest signed tree head, signing and
// recording one first when the ledger grew since.
func (n *Node) SignTreeHead(ctx context.Context) (TreeHeadView, error) {
	if err := n.running(); err != nil {
		return TreeHeadView{}, err
	}
	h, e, err := n.heads.Head(ctx)
	if err != nil {
		return TreeHeadView{}, err
	}
	return *headView(h, e), nil
}

// LedgerHeads returns the latest signed tree head and anchor the ledger
// records (it signs nothing) and the day's gas budget.
func (n *Node) LedgerHeads(ctx context.Context) (LedgerHeads, error) {
	if err := n.running(); err != nil {
		return LedgerHeads{}, err
	}
	out := LedgerHeads{Entries: n.led.Head().Seq}
	h, he, err := n.led.LatestTreeHead(ctx)
	switch {
	case err == nil:
		out.Head = headView(h, he)
	case !errors.Is(err, ledger.ErrNotFound):
		return out, failWrap(CodeStoreFailed, err, "latest tree head")
	}
	a, ae, err := n.led.LatestTreeAnchor(ctx, math.MaxUint64)
	switch {
	case err == nil:
		out.Anchor = anchorView(a, ae)
	case !errors.Is(err, ledger.ErrNotFound):
		return out, failWrap(CodeStoreFailed, err, "latest tree anchor")
	}
	if out.Budget, err = n.heads.budget(ctx); err != nil {
		return out, err
	}
	return out, nil
}

// consistency returns the proof from size from to size to of the tree
// (to 0: the latest signed head, signed now when the ledger grew), the
// roots and the head with its entry.
func (n *Node) consistency(ctx context.Context, from, to uint64) (p2p.ConsistencyAnswer, ledger.TreeHead, ledger.Entry, error) {
	var out p2p.ConsistencyAnswer
	head, he, err := n.heads.Head(ctx)
	if err != nil {
		return out, head, he, err
	}
	if to == 0 {
		to = head.Size
	}
	if from > to {
		return out, head, he, fail(CodeBadArgument, "from %d is above to %d", from, to)
	}
	out.From, out.To, out.Head = from, to, he.Body
	if out.FromRoot, err = n.led.TreeHead(from); err == nil {
		if out.ToRoot, err = n.led.TreeHead(to); err == nil {
			out.Proof, err = n.led.ConsistencyProof(from, to)
		}
	}
	if err != nil {
		var le *ledger.Error
		if errors.As(err, &le) {
			return out, head, he, &p2p.Error{Code: p2p.Code(le.Code), Msg: le.Msg}
		}
		return out, head, he, failWrap(CodeStoreFailed, err, "consistency %d..%d", from, to)
	}
	return out, head, he, nil
}

// LedgerConsistency returns the RFC 6962 consistency proof from size
// from to size to of the node's ledger tree (to 0: the size of its latest
// signed tree head, signed now when the ledger grew), both roots and the
// latest signed head. A size beyond the tree is unknown_size; from above
// to is bad_argument.
func (n *Node) LedgerConsistency(ctx context.Context, from, to uint64) (Consistency, error) {
	if err := n.running(); err != nil {
		return Consistency{}, err
	}
	a, h, he, err := n.consistency(ctx, from, to)
	if err != nil {
		var pe *p2p.Error
		if errors.As(err, &pe) && pe.Code == p2p.Code(ledger.CodeUnknownSize) {
			return Consistency{}, failWrap(CodeBadArgument, err, "size")
		}
		return Consistency{}, err
	}
	return Consistency{From: a.From, To: a.To, FromRoot: negotiation.Hash(a.FromRoot).String(), ToRoot: negotiation.Hash(a.ToRoot).String(),
		Proof: hexes(a.Proof), Head: headView(h, he)}, nil
}

// Consistency answers a peer's /parley/ledger-consistency/1 request: the
// node is the transport's ConsistencyProvider. Any peer with a verified
// link may ask (the tree's roots and proofs disclose no entry).
func (n *Node) Consistency(ctx context.Context, _ *identity.Link, from, to uint64) (p2p.ConsistencyAnswer, error) {
	if err := n.running(); err != nil {
		return p2p.ConsistencyAnswer{}, err
	}
	a, _, _, err := n.consistency(ctx, from, to)
	return a, err
}

var _ p2p.ConsistencyProvider = (*Node)(nil)

// AuditedAnchor is one of the audited node's anchors on chain and what the
// audit found of it.
type AuditedAnchor struct {
	Size   uint64 `json:"size"`
	Root   string `json:"root"`
	TxHash string `json:"txHash"`
	Block  uint64 `json:"block"`
	// Code is "ok" when the node proved its latest signed head consistent
	// with this anchor, else inconsistent_with_anchor.
	Code   string `json:"code"`
	Detail string `json:"detail,omitempty"`
}

// AuditReport is the outcome of an audit of another node's ledger against
// its anchors on chain.
type AuditReport struct {
	// Peer and Address name the audited node (its peer id and the EVM
	// address its identity link binds, whose anchors were read).
	Peer    string `json:"peer"`
	Address string `json:"address"`
	// Head is the node's latest signed tree head, its signature checked
	// with the node's identity link (absent when it gave none that checks).
	Head *TreeHeadView `json:"head,omitempty"`
	// Anchors are the node's anchors on chain, oldest first.
	Anchors []AuditedAnchor `json:"anchors"`
	// Code is "ok" when every anchor checked, else the first failure:
	// inconsistent_with_anchor, or forged_head when the head's signature
	// does not verify with the node's link.
	Code   string `json:"code"`
	Detail string `json:"detail,omitempty"`
}

// Audit codes.
const (
	// AuditInconsistent: the node could not prove its latest signed head
	// consistent with a root it anchored on chain (a rewritten history).
	AuditInconsistent = "inconsistent_with_anchor"
	// AuditForgedHead: the node's signed head does not verify with the
	// inbox key of its identity link.
	AuditForgedHead = "forged_head"
)

// AuditLedger audits another node's ledger, the way certificate
// transparency monitors keep logs honest: it reads the anchors the node's
// EVM address posted to LedgerAnchor (through rpc when given, else this
// node's chain), asks the node over /parley/ledger-consistency/1 for the
// consistency proof from each anchored size to its latest signed tree
// head, and checks each proof, the anchored root and the head's signature
// with the node's identity link. target is the node's EVM address or peer
// id. A node that cannot prove consistency from an anchored head is
// reported with AuditInconsistent (and an EventAudit with that code); an
// error means the audit could not be made.
func (n *Node) AuditLedger(ctx context.Context, target, rpc string) (AuditReport, error) {
	if err := n.running(); err != nil {
		return AuditReport{}, err
	}
	link, err := n.auditTarget(ctx, target)
	if err != nil {
		return AuditReport{}, err
	}
	reader := n.client
	if rpc != "" {
		b, err := chain.DialRPC(ctx, rpc)
		if err != nil {
			return AuditReport{}, failWrap(CodeNoChain, err, "dial %s", rpc)
		}
		defer b.Close()
		if reader, err = chain.New(b, n.keys.EVM(), n.cfg.chainConfig(), n.o.logger); err != nil {
			return AuditReport{}, failWrap(CodeBadConfig, err, "chain client")
		}
	}
	if reader == nil {
		return AuditReport{}, fail(CodeNoChain, "an audit reads the anchors on chain: configure chain.rpc or pass rpc")
	}
	anchors, err := reader.AnchorsOf(ctx, link.EVMAddress)
	if err != nil {
		return AuditReport{}, chainErr("anchors", err)
	}
	rep := auditAnchors(ctx, link, anchors, func(ctx context.Context, from uint64) (p2p.ConsistencyAnswer, error) {
		return n.host.FetchConsistency(ctx, link.PeerID, from, 0)
	})
	n.events.publish(Event{Kind: EventAudit, Code: rep.Code, Detail: rep.Address, At: n.now()})
	if rep.Code != "ok" {
		n.log.Warn("ledger audit failed", "peer", rep.Peer, "address", rep.Address, "code", rep.Code, "detail", rep.Detail)
	} else {
		n.log.Info("ledger audit passed", "peer", rep.Peer, "address", rep.Address, "anchors", len(rep.Anchors))
	}
	return rep, nil
}

// auditTarget returns the verified identity link of the node target names
// (an EVM address or a peer id), connecting to it when needed.
func (n *Node) auditTarget(ctx context.Context, target string) (*identity.Link, error) {
	target = strings.TrimSpace(target)
	if common.IsHexAddress(target) {
		a := negotiation.Address(common.HexToAddress(target))
		if l, ok := n.host.Link(a); ok {
			return l, nil
		}
		l, err := n.host.Lookup(ctx, a)
		if err != nil {
			return nil, failWrap(CodeBadArgument, err, "no identity link known for %s", a)
		}
		return l, nil
	}
	p, err := peer.Decode(target)
	if err != nil {
		return nil, fail(CodeBadArgument, "%q is neither an EVM address nor a peer id", target)
	}
	if l, ok := n.host.PeerLink(p); ok {
		return l, nil
	}
	if err := n.host.Connect(ctx, peer.AddrInfo{ID: p}); err != nil {
		return nil, failWrap(CodeBadArgument, err, "connecting to %s", p)
	}
	for range 50 { // the identity handshake follows the connection
		if l, ok := n.host.PeerLink(p); ok {
			return l, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil, fail(CodeBadArgument, "peer %s did not identify itself", p)
}

// auditAnchors checks each anchor against the node's answers (ask returns
// its answer for consistency from a size to its latest signed head).
func auditAnchors(ctx context.Context, link *identity.Link, anchors []chain.AnchorEvent, ask func(context.Context, uint64) (p2p.ConsistencyAnswer, error)) AuditReport {
	rep := AuditReport{Peer: link.PeerID.String(), Address: link.EVMAddress.Hex(), Code: "ok", Anchors: []AuditedAnchor{}}
	first := func(code, detail string) {
		if rep.Code == "ok" {
			rep.Code, rep.Detail = code, detail
		}
	}
	linkHash := negotiation.Hash(link.Hash())
	for _, an := range anchors {
		aa := AuditedAnchor{Size: an.Size, Root: negotiation.Hash(an.Root).String(), TxHash: an.TxHash.Hex(), Block: an.Block, Code: "ok"}
		bad := func(code, format string, args ...any) {
			aa.Code, aa.Detail = code, fmt.Sprintf(format, args...)
			first(code, fmt.Sprintf("anchor of size %d (tx %s): %s", an.Size, aa.TxHash, aa.Detail))
		}
		ans, err := ask(ctx, an.Size)
		if err != nil {
			bad(AuditInconsistent, "the node gave no proof from this anchor: %v", err)
			rep.Anchors = append(rep.Anchors, aa)
			continue
		}
		head, err := ledger.ParseTreeHead(ans.Head)
		switch {
		case err != nil:
			bad(AuditForgedHead, "the node's head does not parse: %v", err)
		case !verifiesWith(link, head):
			bad(AuditForgedHead, "the head (signer %s; the node's link is %s) does not verify with the node's inbox key", head.Signer, linkHash)
		case ans.From != an.Size || ans.To != head.Size || ans.ToRoot != head.Root:
			bad(AuditInconsistent, "the answer covers %d..%d (root %s), not the anchor's size to the head's %d", ans.From, ans.To, negotiation.Hash(ans.ToRoot), head.Size)
		case ans.FromRoot != an.Root:
			bad(AuditInconsistent, "the node's tree has root %s at size %d, the chain holds %s", negotiation.Hash(ans.FromRoot), an.Size, aa.Root)
		default:
			if err := ledger.VerifyConsistency(ans.From, ans.To, ans.Proof, ans.FromRoot, ans.ToRoot); err != nil {
				bad(AuditInconsistent, "the consistency proof does not verify: %v", err)
			}
		}
		if err == nil && verifiesWith(link, head) {
			rep.Head = headView(head, ledger.Entry{})
		}
		rep.Anchors = append(rep.Anchors, aa)
	}
	if len(anchors) == 0 { // nothing to check; the report still shows the node's head
		if ans, err := ask(ctx, 0); err == nil {
			if head, err := ledger.ParseTreeHead(ans.Head); err == nil && verifiesWith(link, head) {
				rep.Head = headView(head, ledger.Entry{})
			}
		}
	}
	return rep
}

// verifiesWith reports whether h's signature verifies with link's inbox key.
func verifiesWith(link *identity.Link, h ledger.TreeHead) bool {
	return len(link.InboxKey) == ed25519.PublicKeySize && ed25519.Verify(link.InboxKey, h.SigningBytes(), h.Signature)
}
