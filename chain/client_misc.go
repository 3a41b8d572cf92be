package chain

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/contracts/bindings"
)

// IdentityRecord is an address's record in the IdentityLink contract.
type IdentityRecord = bindings.IdentityLinkRecord

// Scope is a public task's scope in the TaskScopeRegistry.
type Scope = bindings.TaskScopeRegistryScope

func (c *Client) send(ctx context.Context, to common.Address, method string, data []byte, err error) (*types.Receipt, error) {
	if err != nil {
		return nil, packErr(method, err)
	}
	return c.tx.transact(ctx, &to, nil, data)
}

// RegisterLink publishes the client's inbox key, peer id and identity-link hash.
func (c *Client) RegisterLink(ctx context.Context, inboxKey [32]byte, peerID string, linkHash [32]byte) (*types.Receipt, error) {
	data, err := c.idl.TryPackRegister(inboxKey, peerID, linkHash)
	return c.send(ctx, c.cfg.Contracts.IdentityLink, "register", data, err)
}

// RotateLink replaces the client's record with new keys.
func (c *Client) RotateLink(ctx context.Context, inboxKey [32]byte, peerID string, linkHash [32]byte) (*types.Receipt, error) {
	data, err := c.idl.TryPackRotate(inboxKey, peerID, linkHash)
	return c.send(ctx, c.cfg.Contracts.IdentityLink, "rotate", data, err)
}

// RevokeLink deletes the client's record.
func (c *Client) RevokeLink(ctx context.Context) (*types.Receipt, error) {
	data, err := c.idl.TryPackRevoke()
	return c.send(ctx, c.cfg.Contracts.IdentityLink, "revoke", data, err)
}

// LinkOf returns account's record; LinkHash is zero when it has none.
func (c *Client) LinkOf(ctx context.Context, account common.Address) (IdentityRecord, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.IdentityLink, c.idl.PackRecordOf(account))
	if err != nil {
		return IdentityRecord{}, err
	}
	return c.idl.UnpackRecordOf(out)
}

// PublishScope publishes a public task's scope hash, keyed by its
// announcement's envelope hash. Private-discovery tasks never call it.
func (c *Client) PublishScope(ctx context.Context, announcementHash, scopeHash [32]byte) (*types.Receipt, error) {
	data, err := c.scope.TryPackPublish(announcementHash, scopeHash)
	return c.send(ctx, c.cfg.Contracts.TaskScopeRegistry, "publish", data, err)
}

// WithdrawScope marks the client's published task withdrawn.
func (c *Client) WithdrawScope(ctx context.Context, announcementHash [32]byte) (*types.Receipt, error) {
	data, err := c.scope.TryPackWithdraw(announcementHash)
	return c.send(ctx, c.cfg.Contracts.TaskScopeRegistry, "withdraw", data, err)
}

// ScopeOf returns the scope published for an announcement (Poster zero if none).
func (c *Client) ScopeOf(ctx context.Context, announcementHash [32]byte) (Scope, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.TaskScopeRegistry, c.scope.PackScopeOf(announcementHash))
	if err != nil {
		return Scope{}, err
	}
	return c.scope.UnpackScopeOf(out)
}

// Anchor anchors the client's ledger head and entry count.
func (c *Client) Anchor(ctx context.Context, head [32]byte, count uint64) (*types.Receipt, error) {
	data, err := c.anchor.TryPackAnchor(head, count)
	return c.send(ctx, c.cfg.Contracts.LedgerAnchor, "anchor", data, err)
}

// LastAnchorCount returns the last count node anchored (0 if none).
func (c *Client) LastAnchorCount(ctx context.Context, node common.Address) (uint64, error) {
	out, err := c.tx.call(ctx, c.cfg.Contracts.LedgerAnchor, c.anchor.PackLastCount(node))
	if err != nil {
		return 0, err
	}
	return c.anchor.UnpackLastCount(out)
}

const erc20ABIJSON = `[
{"type":"function","name":"approve","stateMutability":"nonpayable","inputs":[{"name":"spender","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"name":"","type":"bool"}]},
{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"account","type":"address"}],"outputs":[{"name":"","type":"uint256"}]}
]`

var erc20ABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(erc20ABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// ApproveToken lets the TaskRegistry pull amount of an ERC-20 token from the
// client (for CreateTask and top-ups).
func (c *Client) ApproveToken(ctx context.Context, token common.Address, amount *big.Int) (*types.Receipt, error) {
	data, err := erc20ABI.Pack("approve", c.cfg.Contracts.TaskRegistry, bigOrZero(amount))
	return c.send(ctx, token, "approve", data, err)
}

// TokenBalance returns account's balance of an ERC-20 token.
func (c *Client) TokenBalance(ctx context.Context, token, account common.Address) (*big.Int, error) {
	data, err := erc20ABI.Pack("balanceOf", account)
	if err != nil {
		return nil, packErr("balanceOf", err)
	}
	out, err := c.tx.call(ctx, token, data)
	if err != nil {
		return nil, err
	}
	vals, err := erc20ABI.Unpack("balanceOf", out)
	if err != nil || len(vals) != 1 {
		return nil, fmt.Errorf("chain: balanceOf: %w", err)
	}
	return vals[0].(*big.Int), nil
}
