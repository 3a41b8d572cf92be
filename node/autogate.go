package node

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/node/gate"
)

// The start check of approval.mode auto: the gate refuses an auto
// approval that names another chain (node/gate/auto.go); the node refuses
// to start with one off a dev chain, or on a ledger that shows its keys
// signed for another chain.

// checkAutoGate refuses to run an AutoApprove gate (approval.mode auto)
// where a person's approval protects real money: on a chain whose id is
// not a dev chain's (the chain's own id when the node has one, else the
// configured chain.chain_id, which must be set), and on a ledger that
// holds an EIP-712 signature this node made for another chain (a
// settlement, a cancel, an amendment or a replacement of a negotiation
// whose terms name one). Every caller is covered: Start runs it once the
// threads are rebuilt and the chain is dialled, before the transport
// starts, and refuses with CodeBadConfig. d is the explicit decider
// (WithGate), client the chain client (nil without a chain), configured
// the configured chain.chain_id, and eng the threads of the node self.
func checkAutoGate(ctx context.Context, d Gate, client *chain.Client, configured uint64, eng *engine.Engine, self negotiation.Address) error {
	if !gate.IsAuto(d) {
		return nil
	}
	const why = "approval.mode auto approves every act without a person and is allowed only on a dev chain (chain id %s)"
	dev := strings.Trim(strings.ReplaceAll(fmt.Sprint(gate.DevChainIDs), " ", " or "), "[]")
	switch {
	case client != nil:
		id, err := client.ChainID(ctx)
		if err != nil {
			return failWrap(CodeChainFailed, err, "chain id")
		}
		if !gate.IsDevChain(id) {
			return fail(CodeBadConfig, why+"; this node's chain is chain id %s", dev, id)
		}
	case configured == 0:
		return fail(CodeBadConfig, why+"; this node has no chain and no chain.chain_id, so nothing says its signatures are for a dev chain", dev)
	case !gate.IsDevChainID(configured):
		return fail(CodeBadConfig, why+"; this node's chain.chain_id is %d", dev, configured)
	}
	if ids, in := signedChains(eng, self); len(ids) > 0 {
		return fail(CodeBadConfig, why+"; this node's ledger holds signatures it made for chain id %s (negotiation %s): its keys have signed where real money moves, so they are approved by a person from now on",
			dev, strings.Join(ids, ", "), in[ids[0]])
	}
	return nil
}

// signedChains returns the chain ids, other than dev chains', of the
// negotiations of eng in which self sent an envelope carrying an EIP-712
// signature (an acceptance's settlement signature, a cancel's, an
// amendment's or a replacement's), sorted, and for each one such
// negotiation.
func signedChains(eng *engine.Engine, self negotiation.Address) ([]string, map[string]string) {
	in := map[string]string{}
	eng.Each(context.Background(), func(t *thread) {
		for _, id := range foreignSigned(t, self) {
			if _, ok := in[id]; !ok {
				in[id] = t.ID
			}
		}
	})
	out := make([]string, 0, len(in))
	for id := range in {
		out = append(out, id)
	}
	sort.Strings(out)
	return out, in
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
		if id := terms.ChainID.Big(); !gate.IsDevChain(id) {
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
