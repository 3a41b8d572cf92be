package chain

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/contracts/bindings"
)

// An ERC-792 arbitrator contract ("court") as the node meets it: the
// parties name its address as their arbitrator, a party raises the
// dispute with it (RaiseWithArbitrator, paying ArbitrationCost), and the
// court calls the ArbitrationModule's rule with its own dispute id
// (ExternalDispute maps it back). A centralized court names its operator
// with an Ownable-style owner(); nothing in ERC-792 requires one.

const courtABIJSON = `[
{"type":"function","name":"arbitrationCost","stateMutability":"view","inputs":[{"name":"_extraData","type":"bytes"}],"outputs":[{"name":"","type":"uint256"}]},
{"type":"function","name":"owner","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"address"}]}
]`

var courtABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(courtABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// IsContract reports whether account has code on the latest block: an
// arbitrator contract rather than a person's address.
func (c *Client) IsContract(ctx context.Context, account common.Address) (bool, error) {
	code, err := c.b.CodeAt(ctx, account, nil)
	if err != nil {
		return false, fmt.Errorf("chain: code of %s: %w", account, err)
	}
	return len(code) > 0, nil
}

// ArbitrationCost returns what the arbitrator contract court charges to
// create a dispute with extraData (ERC-792 arbitrationCost).
func (c *Client) ArbitrationCost(ctx context.Context, court common.Address, extraData []byte) (*big.Int, error) {
	data, err := courtABI.Pack("arbitrationCost", extraData)
	if err != nil {
		return nil, packErr("arbitrationCost", err)
	}
	out, err := c.tx.call(ctx, court, data)
	if err != nil {
		return nil, err
	}
	vals, err := courtABI.Unpack("arbitrationCost", out)
	if err != nil || len(vals) != 1 {
		return nil, fmt.Errorf("chain: arbitrationCost: %w", err)
	}
	return vals[0].(*big.Int), nil
}

// CourtOperator returns the operator a centralized arbitrator contract
// names with owner(), or an error when it has none.
func (c *Client) CourtOperator(ctx context.Context, court common.Address) (common.Address, error) {
	data, err := courtABI.Pack("owner")
	if err != nil {
		return common.Address{}, packErr("owner", err)
	}
	out, err := c.tx.call(ctx, court, data)
	if err != nil {
		return common.Address{}, err
	}
	vals, err := courtABI.Unpack("owner", out)
	if err != nil || len(vals) != 1 {
		return common.Address{}, fmt.Errorf("chain: owner: %w", err)
	}
	return vals[0].(common.Address), nil
}

// RulingOf returns the arbitrator and the dispute id of an
// ArbitrationModule Ruling event: the court's own id when the dispute
// was raised with an arbitrator contract (ExternalDispute maps it back).
func RulingOf(ev Event) (arbitrator common.Address, disputeID *big.Int, ok bool) {
	r, ok := ev.Value.(*bindings.ArbitrationModuleRuling)
	if !ok || r.DisputeID == nil {
		return common.Address{}, nil, false
	}
	return r.Arbitrator, r.DisputeID, true
}
