package node

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// CodeForeignDomain refuses to sign for an EIP-712 domain (chain id and
// TaskRegistry) that is not this node's chain: an offer, or an agreement
// a co-signed act signs for, naming another chain or another registry.
// The refusal comes before any approval is asked, and nothing is signed.
const CodeForeignDomain Code = "foreign_domain"

// checkDomain refuses d, the domain a settlement or a co-signed act
// would be signed for, unless it is own (CodeForeignDomain).
func checkDomain(d, own negotiation.Domain) error {
	if d.ChainID == nil || own.ChainID == nil || d.ChainID.Cmp(own.ChainID) != 0 {
		return fail(CodeForeignDomain, "the terms name chain %s; this node signs for chain %s only", fmtAmount(d.ChainID), fmtAmount(own.ChainID))
	}
	if d.VerifyingContract != own.VerifyingContract {
		return fail(CodeForeignDomain, "the terms name the registry %s; this node's TaskRegistry is %s", negotiation.Address(d.VerifyingContract), negotiation.Address(own.VerifyingContract))
	}
	return nil
}

// ownDomain returns the domain this node signs for: its chain's (the
// client's chain id and TaskRegistry), or, on a node without a chain, the
// configured chain id and registry (CodeNoChain when it has neither).
func ownDomain(ctx context.Context, c ChainConfig, client *chain.Client) (negotiation.Domain, error) {
	id, registry, err := domain(ctx, c, client)
	if err != nil {
		return negotiation.Domain{}, err
	}
	return negotiation.Domain{ChainID: id, VerifyingContract: common.Address(registry)}, nil
}

// sameDomain refuses a co-signed act on a funded task whose agreed domain
// d is not the domain of the chain this node acts on.
func (c *chainActs) sameDomain(ctx context.Context, d negotiation.Domain) error {
	own, err := c.client.Domain(ctx)
	if err != nil {
		return chainErr("chain id", err)
	}
	return checkDomain(d, own)
}
