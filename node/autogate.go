package node

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
)

// DevChainIDs are the chain ids of development chains: 1337 (the embedded
// dev chain and geth --dev) and 31337 (Hardhat and Anvil). approval.mode
// auto, which approves every act without a person, is allowed only on
// them.
var DevChainIDs = []uint64{1337, 31337}

// IsDevChainID reports whether id is one of DevChainIDs.
func IsDevChainID(id uint64) bool { return slices.Contains(DevChainIDs, id) }

func devChain(id *big.Int) bool { return id != nil && id.IsUint64() && IsDevChainID(id.Uint64()) }

// autoApproves reports whether the node's gate is AutoApprove's.
func (n *Node) autoApproves() bool {
	_, ok := n.gate.(autoGate)
	return ok
}

// checkAutoGate refuses to run an AutoApprove gate (approval.mode auto)
// where a person's approval protects real money: on a chain whose id is
// not a dev chain's (the chain's own id when the node has one, else the
// configured chain.chain_id, which must be set), and on a ledger that
// holds an EIP-712 signature this node made for another chain (a
// settlement, a cancel, an amendment or a replacement of a negotiation
// whose terms name one). Every caller is covered: Start runs it once the
// threads are rebuilt and the chain is dialled, before the transport
// starts, and refuses with CodeBadConfig.
func (n *Node) checkAutoGate(ctx context.Context) error {
	if !n.autoApproves() {
		return nil
	}
	const why = "approval.mode auto approves every act without a person and is allowed only on a dev chain (chain id %s)"
	dev := strings.Trim(strings.ReplaceAll(fmt.Sprint(DevChainIDs), " ", " or "), "[]")
	switch {
	case n.client != nil:
		id, err := n.client.ChainID(ctx)
		if err != nil {
			return failWrap(CodeChainFailed, err, "chain id")
		}
		if !devChain(id) {
			return fail(CodeBadConfig, why+"; this node's chain is chain id %s", dev, id)
		}
	case n.cfg.Chain.ChainID == 0:
		return fail(CodeBadConfig, why+"; this node has no chain and no chain.chain_id, so nothing says its signatures are for a dev chain", dev)
	case !IsDevChainID(n.cfg.Chain.ChainID):
		return fail(CodeBadConfig, why+"; this node's chain.chain_id is %d", dev, n.cfg.Chain.ChainID)
	}
	if ids := n.signedChains(); len(ids) > 0 {
		return fail(CodeBadConfig, why+"; this node's ledger holds signatures it made for chain id %s (negotiation %s): its keys have signed where real money moves, so they are approved by a person from now on",
			dev, strings.Join(ids, ", "), n.signedIn(ids[0]))
	}
	return nil
}

// signedChains returns the chain ids, other than dev chains', of the
// negotiations in which this node sent an envelope carrying an EIP-712
// signature (an acceptance's settlement signature, a cancel's, an
// amendment's or a replacement's), sorted.
func (n *Node) signedChains() []string {
	seen := map[string]bool{}
	for _, t := range n.threadList() {
		t.Lock()
		for _, id := range foreignSigned(t, n.self) {
			seen[id] = true
		}
		t.Unlock()
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// signedIn names a negotiation in which this node signed for chain id.
func (n *Node) signedIn(id string) string {
	for _, t := range n.threadList() {
		t.Lock()
		ids := foreignSigned(t, n.self)
		t.Unlock()
		if slices.Contains(ids, id) {
			return t.ID
		}
	}
	return "?"
}

func (n *Node) threadList() []*thread {
	return n.eng.All()
}

// foreignSigned returns the non-dev chain ids of t's offers when self
// sent a signed envelope in t (t.mu held).
func foreignSigned(t *thread, self negotiation.Address) []string {
	signed := false
	for _, r := range t.Th.Log() {
		if r.Sender == self && signs(t.Th.Envelope(r.Hash)) {
			signed = true
			break
		}
	}
	if !signed {
		return nil
	}
	var out []string
	add := func(terms negotiation.Terms) {
		if id := terms.ChainID.Big(); !devChain(id) {
			out = append(out, id.String())
		}
	}
	if a := t.Params.Announcement; a != nil {
		if p, ok := a.Payload.(*negotiation.TaskProposal); ok {
			add(p.Terms)
		}
	}
	for _, r := range t.Th.Log() {
		switch p := envelopePayload(t.Th.Envelope(r.Hash)).(type) {
		case *negotiation.TaskProposal:
			add(p.Terms)
		case *negotiation.TaskCounterOffer:
			add(p.Terms)
		}
	}
	return out
}

func envelopePayload(e *negotiation.Envelope) negotiation.Payload {
	if e == nil {
		return nil
	}
	return e.Payload
}

// signs reports whether e carries an EIP-712 signature of its sender.
func signs(e *negotiation.Envelope) bool {
	switch p := envelopePayload(e).(type) {
	case *negotiation.TaskAcceptance:
		return len(p.Signature) > 0
	case *negotiation.MutualCancel:
		return len(p.Signature) > 0
	case *negotiation.MilestoneDefinition:
		return len(p.Signature) > 0
	case *negotiation.ReplacementContext:
		return len(p.Signature) > 0
	}
	return false
}

// autoRefuses refuses, for an AutoApprove gate, a request whose arguments
// name a chain that is not a dev chain (a settlement, a funding, a
// cancel, an amendment, a replacement for another domain): the act
// would sign or pay where a person must approve. It records the refusal
// (policy-denied) and nothing is signed.
func (n *Node) autoRefuses(ctx context.Context, act Act, req approval.IntentRequest) error {
	var args map[string]any
	if json.Unmarshal(req.Action.Arguments, &args) != nil {
		return nil
	}
	s, ok := args["chainId"].(string)
	if !ok {
		return nil
	}
	if id, ok := new(big.Int).SetString(s, 10); ok && devChain(id) {
		return nil
	}
	e := approval.RequestEvent(approval.EventPolicyDenied, req, n.now())
	e.Method = "auto"
	_ = n.record(ctx, e, "approval.mode auto")
	n.m.approvals.WithLabelValues(string(act), "refused").Inc()
	return fail(CodeBadConfig, "%s for chain id %s refused: approval.mode auto approves only on a dev chain; nothing was signed or sent", act, s)
}
