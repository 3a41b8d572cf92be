package chain

import (
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Addresses are the deployed Parley contracts on one chain.
type Addresses struct {
	TaskRegistry      common.Address `json:"taskRegistry"`
	ArbitrationModule common.Address `json:"arbitrationModule"`
	IdentityLink      common.Address `json:"identityLink"`
	TaskScopeRegistry common.Address `json:"taskScopeRegistry"`
	LedgerAnchor      common.Address `json:"ledgerAnchor"`
	// DeployBlock is the block the contracts were deployed in; log queries
	// start there.
	DeployBlock uint64 `json:"deployBlock"`
}

// List returns the five contract addresses in a fixed order.
func (a Addresses) List() []common.Address {
	return []common.Address{a.TaskRegistry, a.ArbitrationModule, a.IdentityLink, a.TaskScopeRegistry, a.LedgerAnchor}
}

// Validate returns an error naming the first zero address.
func (a Addresses) Validate() error {
	for i, name := range []string{"TaskRegistry", "ArbitrationModule", "IdentityLink", "TaskScopeRegistry", "LedgerAnchor"} {
		if a.List()[i] == (common.Address{}) {
			return fmt.Errorf("%w: Contracts.%s is the zero address", ErrInvalidConfig, name)
		}
	}
	return nil
}

// Config configures a Client and a Watcher.
type Config struct {
	// ChainID, when set, must equal the node's chain id; when nil it is read
	// from the node on first use.
	ChainID *big.Int
	// Contracts are the deployed contract addresses.
	Contracts Addresses
	// Confirmations is how many blocks, counting the one that includes a
	// transaction, must exist before its receipt or its events are reported.
	// 1 means as soon as it is mined (the dev chain's default).
	Confirmations uint64
	// PollInterval is how often receipts and new blocks are polled.
	PollInterval time.Duration
	// ReceiptTimeout bounds the wait for one transaction's receipt.
	ReceiptTimeout time.Duration
	// StuckAfter is how long a transaction may stay unmined before it is
	// re-sent with the same nonce and higher fees.
	StuckAfter time.Duration
	// FeeBumpPercent raises both fee caps of a replacement; nodes require at
	// least 10.
	FeeBumpPercent uint64
	// MaxFeeBumps caps the replacements of one transaction.
	MaxFeeBumps int
	// GasMarginPercent is added to every gas estimate.
	GasMarginPercent uint64
	// LogRange caps the blocks of one eth_getLogs query.
	LogRange uint64
}

// DefaultConfig returns the defaults for a chain with fast blocks: one
// confirmation, 50 ms polling, replacement after 30 s.
func DefaultConfig() Config {
	return Config{
		Confirmations:    1,
		PollInterval:     50 * time.Millisecond,
		ReceiptTimeout:   5 * time.Minute,
		StuckAfter:       30 * time.Second,
		FeeBumpPercent:   25,
		MaxFeeBumps:      5,
		GasMarginPercent: 20,
		LogRange:         10_000,
	}
}

// Validate returns an error naming the first bad field.
func (c Config) Validate() error {
	switch {
	case c.ChainID != nil && c.ChainID.Sign() <= 0:
		return fmt.Errorf("%w: ChainID must be positive", ErrInvalidConfig)
	case c.Confirmations == 0:
		return fmt.Errorf("%w: Confirmations must be at least 1", ErrInvalidConfig)
	case c.PollInterval <= 0:
		return fmt.Errorf("%w: PollInterval must be positive", ErrInvalidConfig)
	case c.ReceiptTimeout <= 0:
		return fmt.Errorf("%w: ReceiptTimeout must be positive", ErrInvalidConfig)
	case c.StuckAfter <= 0:
		return fmt.Errorf("%w: StuckAfter must be positive", ErrInvalidConfig)
	case c.FeeBumpPercent < 10:
		return fmt.Errorf("%w: FeeBumpPercent must be at least 10 (nodes refuse smaller replacements)", ErrInvalidConfig)
	case c.MaxFeeBumps < 0:
		return fmt.Errorf("%w: MaxFeeBumps must not be negative", ErrInvalidConfig)
	case c.GasMarginPercent > 100:
		return fmt.Errorf("%w: GasMarginPercent must be at most 100", ErrInvalidConfig)
	case c.LogRange == 0:
		return fmt.Errorf("%w: LogRange must be positive", ErrInvalidConfig)
	}
	return c.Contracts.Validate()
}
