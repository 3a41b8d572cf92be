package chain

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// An ERC-20 token's allowance and its optional metadata (EIP-20: name,
// symbol and decimals are OPTIONAL; a token without them still funds a
// task, and its amounts are shown in its smallest unit).

const erc20ReadABIJSON = `[
{"type":"function","name":"allowance","stateMutability":"view","inputs":[{"name":"owner","type":"address"},{"name":"spender","type":"address"}],"outputs":[{"name":"","type":"uint256"}]},
{"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint8"}]},
{"type":"function","name":"symbol","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"string"}]},
{"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"string"}]}
]`

var erc20ReadABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(erc20ReadABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// TokenInfo is what an ERC-20 token says of itself. Each member is set
// only when the token answers its optional metadata call.
type TokenInfo struct {
	// Address is the token contract.
	Address common.Address
	// Symbol is the token's symbol(), "" when it has none.
	Symbol string
	// Name is the token's name(), "" when it has none.
	Name string
	// Decimals is the token's decimals(); HasDecimals is false when the
	// token does not answer it.
	Decimals    uint8
	HasDecimals bool
}

// TokenAllowance returns what the TaskRegistry may pull of token from
// owner (the ERC-20 allowance).
func (c *Client) TokenAllowance(ctx context.Context, token, owner common.Address) (*big.Int, error) {
	data, err := erc20ReadABI.Pack("allowance", owner, c.cfg.Contracts.TaskRegistry)
	if err != nil {
		return nil, packErr("allowance", err)
	}
	out, err := c.tx.call(ctx, token, data)
	if err != nil {
		return nil, err
	}
	vals, err := erc20ReadABI.Unpack("allowance", out)
	if err != nil || len(vals) != 1 {
		return nil, fmt.Errorf("chain: allowance of %s: %w", token, err)
	}
	return vals[0].(*big.Int), nil
}

// Token returns token's metadata: its symbol, name and decimals where it
// answers those optional calls. It fails only when token holds no
// contract code (an address that is no token).
func (c *Client) Token(ctx context.Context, token common.Address) (TokenInfo, error) {
	code, err := c.Backend().CodeAt(ctx, token, nil)
	if err != nil {
		return TokenInfo{}, fmt.Errorf("chain: code of %s: %w", token, err)
	}
	if len(code) == 0 {
		return TokenInfo{}, fmt.Errorf("%w: token %s", ErrNoContract, token)
	}
	info := TokenInfo{Address: token}
	read := func(method string) []any {
		data, err := erc20ReadABI.Pack(method)
		if err != nil {
			return nil
		}
		out, err := c.tx.call(ctx, token, data)
		if err != nil {
			return nil
		}
		vals, err := erc20ReadABI.Unpack(method, out)
		if err != nil || len(vals) != 1 {
			return nil
		}
		return vals
	}
	if v := read("decimals"); v != nil {
		info.Decimals, info.HasDecimals = v[0].(uint8), true
	}
	if v := read("symbol"); v != nil {
		info.Symbol = v[0].(string)
	}
	if v := read("name"); v != nil {
		info.Name = v[0].(string)
	}
	return info, nil
}
