package gate

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"

	"github.com/parleynet/parley/approval"
)

// DevChainIDs are the chain ids of development chains: 1337 (the embedded
// dev chain and geth --dev) and 31337 (Hardhat and Anvil). approval.mode
// auto, which approves every act without a person, is allowed only on
// them.
var DevChainIDs = []uint64{1337, 31337}

// IsDevChainID reports whether id is one of DevChainIDs.
func IsDevChainID(id uint64) bool { return slices.Contains(DevChainIDs, id) }

// IsDevChain reports whether id is a dev chain's id (nil is not).
func IsDevChain(id *big.Int) bool { return id != nil && id.IsUint64() && IsDevChainID(id.Uint64()) }

// autoRefuses refuses, for an AutoApprove decider, a request whose
// arguments name a chain that is not a dev chain (a settlement, a
// funding, a cancel, an amendment, a replacement for another domain): the
// act would sign or pay where a person must approve. It records the
// refusal (policy-denied) and nothing is signed.
func (g *Gate) autoRefuses(ctx context.Context, act Act, req approval.IntentRequest) error {
	var args map[string]any
	if json.Unmarshal(req.Action.Arguments, &args) != nil {
		return nil
	}
	s, ok := args["chainId"].(string)
	if !ok {
		return nil
	}
	if id, ok := new(big.Int).SetString(s, 10); ok && IsDevChain(id) {
		return nil
	}
	e := approval.RequestEvent(approval.EventPolicyDenied, req, g.now())
	e.Method = "auto"
	_ = g.record(ctx, e, "approval.mode auto")
	g.count(act, "refused")
	return fail(CodeBadConfig, "%s for chain id %s refused: approval.mode auto approves only on a dev chain; nothing was signed or sent", act, s)
}
