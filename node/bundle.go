package node

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// The checks of a proof bundle's verification, by name, in the order
// VerifyBundleWith runs them (docs/ledger.md, "Verifying a bundle").
const (
	// CheckBundle is the ledger's own verification (ledger.VerifyBundle):
	// structure, entries, inclusion proofs, objects, envelopes and their
	// signatures, per-sender chains, the anchor's consistency proof.
	CheckBundle = "bundle"
	// CheckTreeHead: the signer's identity link verifies, its hash is the
	// tree head's signer, and its inbox key signed the head (version 2).
	CheckTreeHead = "tree head"
	// CheckLinks: every envelope's sender has a valid identity link in
	// the bundle.
	CheckLinks = "identity links"
	// CheckAnchorOnChain: the bundle's anchor is an Anchored event of
	// LedgerAnchor, sent by the signer's EVM address (with a chain).
	CheckAnchorOnChain = "anchor on chain"
	// CheckAnchorConsistency: the newest on-chain anchor of the signer at
	// or below the tree head's size is the one the bundle proves
	// consistent with its head (with a chain).
	CheckAnchorConsistency = "consistency from the anchored head"
)

// BundleCheck is one check a bundle passed: its name (CheckBundle, ...)
// and what it found.
type BundleCheck struct {
	Name   string `json:"name"`
	Detail string `json:"detail"`
}

// AnchorChain is what the verifier reads of a chain: LedgerAnchor's
// anchors (chain.Client's AnchorsOf and AnchorOfTx) and the chain's id
// and contracts. *chain.Client implements it.
type AnchorChain interface {
	ChainID(ctx context.Context) (*big.Int, error)
	Contracts() chain.Addresses
	AnchorsOf(ctx context.Context, node common.Address) ([]chain.AnchorEvent, error)
	AnchorOfTx(ctx context.Context, tx common.Hash) (chain.AnchorEvent, bool, error)
}

var _ AnchorChain = (*chain.Client)(nil)

// BundleVerifyOptions tune VerifyBundleWith.
type BundleVerifyOptions struct {
	// Bundle is passed to ledger.VerifyBundle.
	Bundle ledger.BundleOptions
	// Chain, when not nil, is read for the anchor checks of a version-2
	// bundle (CheckAnchorOnChain, CheckAnchorConsistency).
	Chain AnchorChain
}

// BundleVerification is what VerifyBundleWith found: the ledger's
// report, the tree head's signer (version 2), the anchors read on chain
// (with a chain), and every check passed, in order.
type BundleVerification struct {
	Report *ledger.BundleReport
	// Signer is the identity link that signed the tree head (version 2).
	Signer *identity.Link
	// Anchored is the bundle's anchor as the chain has it; Newest the
	// newest on-chain anchor of the signer at or below the tree head's
	// size; OnChain counts the signer's anchors (with a chain).
	Anchored *chain.AnchorEvent
	Newest   *chain.AnchorEvent
	OnChain  int
	// Checks are the checks passed, in order. When VerifyBundleWith
	// fails, the next check is the one that failed.
	Checks []BundleCheck
}

// checks returns the checks passed (none of a nil verification).
func (v *BundleVerification) checks() []BundleCheck {
	if v == nil {
		return nil
	}
	return v.Checks
}

func (v *BundleVerification) pass(name, format string, args ...any) {
	v.Checks = append(v.Checks, BundleCheck{Name: name, Detail: fmt.Sprintf(format, args...)})
}

// VerifyBundle checks a proof bundle offline: everything ledger.VerifyBundle
// checks (for version 1, the hash chain to its head; for version 2, each
// entry's inclusion proof against the tree head, the negotiation's
// back-links, the per-sender envelope chains and the anchor's consistency
// proof; for both, every object against its CID, every envelope's decoding
// and signature), for version 2 that the tree head is signed by the inbox
// key of the identity link it names (CodeForgedHead), and that the bundle
// carries, for every envelope, the identity link of its signer: a link that
// verifies at the envelope's timestamp and binds its sender's EVM address
// to its inbox key. A bundle that lacks one fails with CodeMissingLink. A
// failure of the ledger's checks is CodeBadBundle wrapping the ledger's
// *ledger.VerifyError, its code intact (errors.As).
func VerifyBundle(r io.Reader, opts ledger.BundleOptions) (*ledger.BundleReport, error) {
	v, err := VerifyBundleWith(context.Background(), r, BundleVerifyOptions{Bundle: opts})
	if err != nil {
		return nil, err
	}
	return v.Report, nil
}

// VerifyBundleWith verifies a proof bundle as VerifyBundle does and, with
// opts.Chain, checks a version-2 bundle's tree head against the anchors
// its signer posted to LedgerAnchor: the bundle's anchor must be an
// Anchored event sent by the EVM address the signer's link binds
// (CodeAnchorForeign when another address sent it, CodeAnchorMissing
// when the chain does not have it), and the newest on-chain anchor of
// that address at or below the head's size must be one the bundle proves
// consistent with its head (CodeRewrittenAfterAnchor: its root differs
// from the bundle's tree at its size, or the bundle proves nothing from
// it). It returns the verification so far with the error: its Checks are
// those passed, the failing one next.
func VerifyBundleWith(ctx context.Context, r io.Reader, opts BundleVerifyOptions) (*BundleVerification, error) {
	v := &BundleVerification{}
	rep, err := ledger.VerifyBundle(r, opts.Bundle)
	if err != nil {
		return v, failWrap(CodeBadBundle, err, "verification")
	}
	v.Report = rep
	head, signer, anchor := v2Parts(rep)
	if head != nil {
		v.pass(CheckBundle, "%d entries of the negotiation, each included in the tree head; %d envelopes, their signatures and per-sender chains; %s",
			len(rep.Negotiation), len(rep.Envelopes), anchorDetail(anchor, head))
		if v.Signer, err = checkTreeHead(*head, signer); err != nil {
			return v, err
		}
		v.pass(CheckTreeHead, "size %d root %s at %s signed by %s (identity link %s)",
			head.Size, negotiation.Hash(head.Root), head.Time.UTC().Format(negotiation.TimeLayout), v.Signer.EVMAddress.Hex(), head.Signer)
	} else {
		v.pass(CheckBundle, "%d entries from %d to the head %d, of the negotiation %d; %d envelopes and their signatures", rep.Entries, rep.From, rep.Head.Seq, len(rep.Negotiation), len(rep.Envelopes))
	}
	if err := checkEnvelopeLinks(rep); err != nil {
		return v, err
	}
	v.pass(CheckLinks, "every envelope's sender has a valid identity link in the bundle")
	if opts.Chain == nil || head == nil {
		return v, nil
	}
	if err := checkAnchors(ctx, v, *head, anchor, opts.Chain); err != nil {
		return v, err
	}
	return v, nil
}

func anchorDetail(a *ledger.TreeAnchor, head *ledger.TreeHead) string {
	if a == nil {
		return "no anchor"
	}
	return fmt.Sprintf("anchor at size %d (root %s) proved consistent with the head's %d entries", a.Size, negotiation.Hash(a.Root), head.Size)
}

// checkTreeHead checks a version-2 bundle's tree head against the
// identity link it carries as its signer (raw, its JCS bytes): the link
// parses and verifies at the head's time, its hash is the head's signer,
// and the head's signature verifies with its inbox key. Any failure is
// CodeForgedHead.
func checkTreeHead(h ledger.TreeHead, raw []byte) (*identity.Link, error) {
	l, err := identity.ParseLink(raw)
	if err != nil {
		return nil, failWrap(CodeForgedHead, err, "the tree head's signer link does not parse")
	}
	if err := l.Verify(h.Time); err != nil {
		return nil, failWrap(CodeForgedHead, err, "the tree head's signer link does not verify at the head's time %s", h.Time.UTC().Format(negotiation.TimeLayout))
	}
	if got := negotiation.Hash(l.Hash()); got != h.Signer {
		return nil, fail(CodeForgedHead, "the tree head names signer %s, the bundled link is %s", h.Signer, got)
	}
	if !ed25519.Verify(l.InboxKey, h.SigningBytes(), h.Signature) {
		return nil, fail(CodeForgedHead, "the tree head's signature does not verify with the inbox key of %s", l.EVMAddress.Hex())
	}
	return l, nil
}

// checkEnvelopeLinks checks that the bundle carries, for every envelope,
// a valid identity link of its signer (CodeMissingLink).
func checkEnvelopeLinks(rep *ledger.BundleReport) error {
	links := map[negotiation.Address][]*identity.Link{}
	for _, e := range rep.Negotiation {
		if e.Kind != KindIdentityLink {
			continue
		}
		var b engine.LinkBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return failWrap(CodeBadBundle, err, "entry %d", e.Seq)
		}
		l, err := identity.ParseLink(b.Link)
		if err != nil || negotiation.Address(l.EVMAddress) != b.Address {
			return fail(CodeBadBundle, "entry %d: identity link does not parse or names another address", e.Seq)
		}
		links[b.Address] = append(links[b.Address], l)
	}
	for _, env := range rep.Envelopes {
		ok := false
		for _, l := range links[env.Sender.EVMAddress] {
			if bytes.Equal(l.InboxKey, env.Sender.XMTPPublicKey[:]) && l.Verify(env.Timestamp) == nil {
				ok = true
				break
			}
		}
		if !ok {
			return fail(CodeMissingLink, "no valid identity link of %s for envelope %s", env.Sender.EVMAddress, env.Hash())
		}
	}
	return nil
}

// checkAnchors reads the signer's anchors on c and holds the bundle's
// head and anchor to them (VerifyBundleWith).
func checkAnchors(ctx context.Context, v *BundleVerification, head ledger.TreeHead, anchor *ledger.TreeAnchor, c AnchorChain) error {
	addr := v.Signer.EVMAddress
	id, err := c.ChainID(ctx)
	if err != nil {
		return chainErr("chain id", err)
	}
	contract := c.Contracts().LedgerAnchor
	if anchor != nil {
		if common.Address(anchor.Address) != addr {
			return fail(CodeAnchorForeign, "the bundle's anchor was sent by %s, the tree head's signer is %s", anchor.Address, addr.Hex())
		}
		if id.Uint64() != anchor.ChainID || common.Address(anchor.Contract) != contract {
			return fail(CodeAnchorMissing, "the bundle's anchor is on chain %d at %s; this chain is %d with LedgerAnchor %s", anchor.ChainID, anchor.Contract, id.Uint64(), contract.Hex())
		}
		ev, ok, err := c.AnchorOfTx(ctx, common.Hash(anchor.TxHash))
		if err != nil {
			return chainErr("the anchor's transaction", err)
		}
		switch {
		case !ok:
			return fail(CodeAnchorMissing, "transaction %s anchored nothing on LedgerAnchor %s", anchor.TxHash, contract.Hex())
		case ev.Node != addr:
			return fail(CodeAnchorForeign, "transaction %s was sent by %s, not by the tree head's signer %s", anchor.TxHash, ev.Node.Hex(), addr.Hex())
		case ev.Size != anchor.Size:
			return fail(CodeAnchorMissing, "transaction %s anchored size %d, the bundle's anchor says %d", anchor.TxHash, ev.Size, anchor.Size)
		case ev.Root != anchor.Root:
			return fail(CodeRewrittenAfterAnchor, "the chain's root at size %d is %s (transaction %s); the bundle's tree at that size has %s",
				ev.Size, negotiation.Hash(ev.Root), anchor.TxHash, negotiation.Hash(anchor.Root))
		}
		v.Anchored = &ev
		v.pass(CheckAnchorOnChain, "size %d root %s in transaction %s (block %d), sent by %s", ev.Size, negotiation.Hash(ev.Root), ev.TxHash.Hex(), ev.Block, addr.Hex())
	} else {
		v.pass(CheckAnchorOnChain, "the bundle carries no anchor")
	}
	all, err := c.AnchorsOf(ctx, addr)
	if err != nil {
		return chainErr("anchors", err)
	}
	v.OnChain = len(all)
	for i := range all {
		if all[i].Size <= head.Size {
			v.Newest = &all[i]
		}
	}
	n := v.Newest
	switch {
	case n == nil:
		v.pass(CheckAnchorConsistency, "%s has no anchor at or below size %d (%d anchors on chain)", addr.Hex(), head.Size, len(all))
		return nil
	case n.Size == head.Size && n.Root != head.Root:
		return fail(CodeRewrittenAfterAnchor, "%s anchored root %s at size %d (transaction %s); the tree head has %s at that size",
			addr.Hex(), negotiation.Hash(n.Root), n.Size, n.TxHash.Hex(), negotiation.Hash(head.Root))
	case n.Size == head.Size:
	case anchor == nil || n.Size != anchor.Size:
		// The contract's sizes only grow: an anchor newer than the
		// bundle's (or any, for a bundle without one) is one the bundle
		// proves nothing from.
		had := "none"
		if anchor != nil {
			had = fmt.Sprintf("size %d", anchor.Size)
		}
		return fail(CodeRewrittenAfterAnchor, "%s anchored root %s at size %d (transaction %s), at or below the tree head's %d; the bundle proves consistency from %s, not from it",
			addr.Hex(), negotiation.Hash(n.Root), n.Size, n.TxHash.Hex(), head.Size, had)
	case n.Root != anchor.Root:
		return fail(CodeRewrittenAfterAnchor, "%s anchored root %s at size %d (transaction %s); the bundle's tree at that size has %s",
			addr.Hex(), negotiation.Hash(n.Root), n.Size, n.TxHash.Hex(), negotiation.Hash(anchor.Root))
	}
	v.pass(CheckAnchorConsistency, "the newest of %d anchors of %s at or below size %d is size %d (block %d, %s): consistent with the tree head",
		len(all), addr.Hex(), head.Size, n.Size, n.Block, time.Unix(int64(n.Timestamp), 0).UTC().Format(time.RFC3339))
	return nil
}
