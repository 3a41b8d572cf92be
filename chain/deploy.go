package chain

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/parleynet/parley/contracts/bindings"
)

// DeployConfig holds the constructor parameters of the contracts.
type DeployConfig struct {
	// Bond is the wei a party posts to open a dispute.
	Bond *big.Int
	// ReviewPeriod is how long a poster has to answer a proof before the
	// worker may claim the milestone.
	ReviewPeriod time.Duration
	// AssignTimeout is how long the parties of a dispute have to agree on
	// an arbitrator before it resolves by timeout.
	AssignTimeout time.Duration
	// RuleTimeout is how long an assigned arbitrator has to rule.
	RuleTimeout time.Duration
}

// DefaultDeployConfig returns a bond of 0.01 ETH, a 7-day review period, 14
// days to agree on an arbitrator and 30 days to rule.
func DefaultDeployConfig() DeployConfig {
	return DeployConfig{
		Bond:          big.NewInt(10_000_000_000_000_000),
		ReviewPeriod:  7 * 24 * time.Hour,
		AssignTimeout: 14 * 24 * time.Hour,
		RuleTimeout:   30 * 24 * time.Hour,
	}
}

// Validate returns an error naming the first bad field.
func (d DeployConfig) Validate() error {
	switch {
	case d.Bond == nil || d.Bond.Sign() < 0:
		return fmt.Errorf("%w: Bond must be set and not negative", ErrInvalidConfig)
	case d.ReviewPeriod < time.Second:
		return fmt.Errorf("%w: ReviewPeriod must be at least a second", ErrInvalidConfig)
	case d.AssignTimeout < time.Second:
		return fmt.Errorf("%w: AssignTimeout must be at least a second", ErrInvalidConfig)
	case d.RuleTimeout < time.Second:
		return fmt.Errorf("%w: RuleTimeout must be at least a second", ErrInvalidConfig)
	}
	return nil
}

func seconds(d time.Duration) uint64 { return uint64(d / time.Second) }

// Deploy deploys the five contracts from s and returns their addresses. The
// ArbitrationModule is created first with the address the TaskRegistry will
// get at the next nonce; the registry's constructor checks the pairing, so a
// nonce taken by another sender in between makes the deployment revert
// rather than mis-wire. cfg supplies polling and fee settings; its Contracts
// are ignored.
func Deploy(ctx context.Context, b Backend, s Signer, cfg Config, dc DeployConfig, log *slog.Logger) (Addresses, error) {
	if err := dc.Validate(); err != nil {
		return Addresses{}, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dec, err := newErrorDecoder()
	if err != nil {
		return Addresses{}, err
	}
	tx := newSender(b, s, cfg, dec, log)

	nonce, err := b.PendingNonceAt(ctx, s.Address())
	if err != nil {
		return Addresses{}, fmt.Errorf("chain: deploy: pending nonce: %w", err)
	}
	registryAt := crypto.CreateAddress(s.Address(), nonce+1)

	create := func(name string, meta string, args []byte) (common.Address, uint64, error) {
		code, err := hexutil.Decode(meta)
		if err != nil {
			return common.Address{}, 0, fmt.Errorf("chain: deploy %s: bytecode: %w", name, err)
		}
		r, err := tx.transact(ctx, nil, nil, append(code, args...))
		if err != nil {
			return common.Address{}, 0, fmt.Errorf("chain: deploy %s: %w", name, err)
		}
		log.Info("contract deployed", "contract", name, "address", r.ContractAddress, "gas", r.GasUsed)
		return r.ContractAddress, r.BlockNumber.Uint64(), nil
	}

	var a Addresses
	arb := bindings.NewArbitrationModule()
	if a.ArbitrationModule, a.DeployBlock, err = create("ArbitrationModule", bindings.ArbitrationModuleMetaData.Bin,
		arb.PackConstructor(registryAt, dc.Bond, seconds(dc.AssignTimeout), seconds(dc.RuleTimeout))); err != nil {
		return Addresses{}, err
	}
	if a.ArbitrationModule != crypto.CreateAddress(s.Address(), nonce) {
		return Addresses{}, fmt.Errorf("chain: deploy: ArbitrationModule landed at %s, not at nonce %d", a.ArbitrationModule, nonce)
	}
	reg := bindings.NewTaskRegistry()
	if a.TaskRegistry, _, err = create("TaskRegistry", bindings.TaskRegistryMetaData.Bin,
		reg.PackConstructor(a.ArbitrationModule, seconds(dc.ReviewPeriod))); err != nil {
		return Addresses{}, err
	}
	if a.IdentityLink, _, err = create("IdentityLink", bindings.IdentityLinkMetaData.Bin, nil); err != nil {
		return Addresses{}, err
	}
	if a.TaskScopeRegistry, _, err = create("TaskScopeRegistry", bindings.TaskScopeRegistryMetaData.Bin, nil); err != nil {
		return Addresses{}, err
	}
	if a.LedgerAnchor, _, err = create("LedgerAnchor", bindings.LedgerAnchorMetaData.Bin, nil); err != nil {
		return Addresses{}, err
	}
	return a, nil
}

// CheckDeployed returns ErrNoContract when any of a's addresses holds no code.
func CheckDeployed(ctx context.Context, b Backend, a Addresses) error {
	for _, addr := range a.List() {
		code, err := b.CodeAt(ctx, addr, nil)
		if err != nil {
			return fmt.Errorf("chain: code at %s: %w", addr, err)
		}
		if len(code) == 0 {
			return fmt.Errorf("%w: %s", ErrNoContract, addr)
		}
	}
	return nil
}
