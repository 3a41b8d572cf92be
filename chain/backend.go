package chain

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
)

// Backend is what the client needs from an EVM node. RPC (any JSON-RPC
// endpoint) and Simulated (go-ethereum's in-process simulated chain)
// implement it.
type Backend interface {
	bind.ContractBackend
	bind.DeployBackend
	ethereum.ChainIDReader
	ethereum.BlockNumberReader
	// NonceAt returns the nonce of account at blockNumber (nil for latest).
	NonceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (uint64, error)
	// BalanceAt returns the balance of account at blockNumber (nil for latest).
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
	// Close releases the backend's connections.
	Close()
}

var (
	_ Backend = (*RPC)(nil)
	_ Backend = (*Simulated)(nil)
)

// RPC is a Backend over JSON-RPC (ethclient): any EVM node.
type RPC struct {
	*ethclient.Client
}

// DialRPC connects to the JSON-RPC endpoint at url (http, ws or ipc).
func DialRPC(ctx context.Context, url string) (*RPC, error) {
	c, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("chain: dial %s: %w", url, err)
	}
	return &RPC{Client: c}, nil
}

// MainnetRules returns a copy of go-ethereum's dev chain configuration with
// the draft future forks (Amsterdam, Bogota) switched off, so gas is charged
// as on Ethereum mainnet today (Osaka rules); the draft fork reprices storage
// and more than doubles the figures.
func MainnetRules(chainID *big.Int) *params.ChainConfig {
	cfg := *params.AllDevChainProtocolChanges
	cfg.AmsterdamTime = nil
	cfg.BogotaTime = nil
	if chainID != nil {
		cfg.ChainID = new(big.Int).Set(chainID)
	}
	return &cfg
}

// Simulated is a Backend over go-ethereum's simulated backend, on mainnet
// rules. With AutoCommit (the default) every accepted transaction is mined
// at once in its own block; without it, blocks are sealed by Commit.
type Simulated struct {
	sim    *simulated.Backend
	client simulated.Client

	mu         sync.Mutex
	autoCommit bool
	closeOnce  sync.Once
}

// StartSimulated starts a simulated chain (chain id 1337) whose genesis funds
// alloc. It runs in process and needs no network.
func StartSimulated(alloc types.GenesisAlloc) *Simulated {
	sim := simulated.NewBackend(alloc, func(nc *node.Config, ec *ethconfig.Config) {
		ec.Genesis.Config = MainnetRules(nil)
		ec.DatabaseCache = 16
		ec.TrieCleanCache = 16
		ec.TrieDirtyCache = 16
		ec.SnapshotCache = 0
	})
	return &Simulated{sim: sim, client: sim.Client(), autoCommit: true}
}

// SetAutoCommit turns mining of every accepted transaction on or off.
func (s *Simulated) SetAutoCommit(on bool) {
	s.mu.Lock()
	s.autoCommit = on
	s.mu.Unlock()
}

// Commit seals a block with the pending transactions.
func (s *Simulated) Commit() common.Hash {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sim.Commit()
}

// AdjustTime seals an empty block d later than the last one; later blocks
// follow from there. The simulated chain refuses while a transaction is
// pending, which happens when the pool promoted one after the last
// commit: such a transaction is mined first, in a block of its own.
func (s *Simulated) AdjustTime(d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for range 100 {
		if err = s.sim.AdjustTime(d); err == nil || !strings.Contains(err.Error(), "non-empty block") {
			return err
		}
		s.sim.Commit()
		time.Sleep(5 * time.Millisecond)
	}
	return err
}

// SendTransaction submits tx and, with AutoCommit, mines it.
func (s *Simulated) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.client.SendTransaction(ctx, tx); err != nil {
		return err
	}
	if s.autoCommit {
		s.sim.Commit()
	}
	return nil
}

// Close stops the simulated chain; it is safe to call twice.
func (s *Simulated) Close() {
	s.closeOnce.Do(func() { _ = s.sim.Close() })
}

// The rest of Backend is the simulated chain's own client.

// CodeAt returns the code of account at blockNumber.
func (s *Simulated) CodeAt(ctx context.Context, account common.Address, blockNumber *big.Int) ([]byte, error) {
	return s.client.CodeAt(ctx, account, blockNumber)
}

// CallContract executes call at blockNumber without a transaction.
func (s *Simulated) CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error) {
	return s.client.CallContract(ctx, call, blockNumber)
}

// HeaderByNumber returns the header at number (nil for latest).
func (s *Simulated) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	return s.client.HeaderByNumber(ctx, number)
}

// PendingCodeAt returns the code of account in the pending state.
func (s *Simulated) PendingCodeAt(ctx context.Context, account common.Address) ([]byte, error) {
	return s.client.PendingCodeAt(ctx, account)
}

// PendingNonceAt returns the next nonce of account counting pending transactions.
func (s *Simulated) PendingNonceAt(ctx context.Context, account common.Address) (uint64, error) {
	return s.client.PendingNonceAt(ctx, account)
}

// SuggestGasPrice returns a legacy gas price.
func (s *Simulated) SuggestGasPrice(ctx context.Context) (*big.Int, error) {
	return s.client.SuggestGasPrice(ctx)
}

// SuggestGasTipCap returns a priority fee.
func (s *Simulated) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	return s.client.SuggestGasTipCap(ctx)
}

// EstimateGas estimates the gas call needs.
func (s *Simulated) EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error) {
	return s.client.EstimateGas(ctx, call)
}

// FilterLogs returns the logs matching q.
func (s *Simulated) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	return s.client.FilterLogs(ctx, q)
}

// SubscribeFilterLogs streams new logs matching q.
func (s *Simulated) SubscribeFilterLogs(ctx context.Context, q ethereum.FilterQuery, ch chan<- types.Log) (ethereum.Subscription, error) {
	return s.client.SubscribeFilterLogs(ctx, q, ch)
}

// TransactionReceipt returns the receipt of a mined transaction.
func (s *Simulated) TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error) {
	return s.client.TransactionReceipt(ctx, txHash)
}

// ChainID returns the chain id.
func (s *Simulated) ChainID(ctx context.Context) (*big.Int, error) { return s.client.ChainID(ctx) }

// BlockNumber returns the latest block number.
func (s *Simulated) BlockNumber(ctx context.Context) (uint64, error) {
	return s.client.BlockNumber(ctx)
}

// NonceAt returns the nonce of account at blockNumber.
func (s *Simulated) NonceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (uint64, error) {
	return s.client.NonceAt(ctx, account, blockNumber)
}

// BalanceAt returns the balance of account at blockNumber.
func (s *Simulated) BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error) {
	return s.client.BalanceAt(ctx, account, blockNumber)
}

// TransactionByHash returns a transaction and whether it is still pending.
func (s *Simulated) TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error) {
	return s.client.TransactionByHash(ctx, hash)
}
