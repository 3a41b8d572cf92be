package chain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// sender sends transactions for one Signer: gas from estimates, nonces from
// one counter (so concurrent sends never collide), fees from the node,
// replacement of stuck transactions with higher fees, and receipts awaited
// for the configured confirmations.
type sender struct {
	b   Backend
	s   Signer
	cfg Config
	dec *errorDecoder
	log *slog.Logger

	idMu    sync.Mutex
	chainID *big.Int

	nonceMu    sync.Mutex
	nextNonce  uint64
	nonceKnown bool
}

func newSender(b Backend, s Signer, cfg Config, dec *errorDecoder, log *slog.Logger) *sender {
	return &sender{b: b, s: s, cfg: cfg, dec: dec, log: log}
}

// chainIDOf returns the node's chain id, checked against Config.ChainID.
func (t *sender) chainIDOf(ctx context.Context) (*big.Int, error) {
	t.idMu.Lock()
	defer t.idMu.Unlock()
	if t.chainID != nil {
		return t.chainID, nil
	}
	id, err := t.b.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain: chain id: %w", err)
	}
	if t.cfg.ChainID != nil && t.cfg.ChainID.Cmp(id) != 0 {
		return nil, fmt.Errorf("%w: node says %v, configured %v", ErrWrongChain, id, t.cfg.ChainID)
	}
	t.chainID = id
	return id, nil
}

// call runs a read-only call against the latest block.
func (t *sender) call(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
	out, err := t.b.CallContract(ctx, ethereum.CallMsg{From: t.s.Address(), To: &to, Data: data}, nil)
	if err != nil {
		return nil, t.dec.callError("call", err)
	}
	return out, nil
}

// transact sends a transaction to `to` (nil creates a contract) and returns
// its receipt once it has the configured confirmations. A refusal found
// while estimating gas returns a *RevertError before anything is sent.
func (t *sender) transact(ctx context.Context, to *common.Address, value *big.Int, data []byte) (*types.Receipt, error) {
	chainID, err := t.chainIDOf(ctx)
	if err != nil {
		return nil, err
	}
	if value == nil {
		value = new(big.Int)
	}
	msg := ethereum.CallMsg{From: t.s.Address(), To: to, Value: value, Data: data}
	gas, err := t.b.EstimateGas(ctx, msg)
	if err != nil {
		return nil, t.dec.callError("estimate gas", err)
	}
	gas += gas * t.cfg.GasMarginPercent / 100
	tip, feeCap, err := t.fees(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := t.signAndSend(ctx, chainID, func(nonce uint64) *types.DynamicFeeTx {
		return &types.DynamicFeeTx{
			ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
			Gas: gas, To: to, Value: value, Data: data,
		}
	})
	if err != nil {
		return nil, err
	}
	r, err := t.wait(ctx, chainID, tx)
	if err != nil {
		return nil, err
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return r, t.replayFailure(ctx, msg, gas, r)
	}
	return r, nil
}

// fees returns a priority fee and a fee cap of twice the base fee plus it.
func (t *sender) fees(ctx context.Context) (tip, feeCap *big.Int, err error) {
	tip, err = t.b.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("chain: suggest tip: %w", err)
	}
	head, err := t.b.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("chain: head: %w", err)
	}
	base := head.BaseFee
	if base == nil {
		base = new(big.Int)
	}
	feeCap = new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	return tip, feeCap, nil
}

// signAndSend takes the next nonce, signs and sends. The nonce lock is held
// only across sign and send, so concurrent senders wait for each other's
// send, never for each other's receipt. A nonce the node refuses makes the
// counter re-read the pending nonce once.
func (t *sender) signAndSend(ctx context.Context, chainID *big.Int, build func(uint64) *types.DynamicFeeTx) (*types.Transaction, error) {
	t.nonceMu.Lock()
	defer t.nonceMu.Unlock()
	for attempt := 0; ; attempt++ {
		if !t.nonceKnown {
			n, err := t.b.PendingNonceAt(ctx, t.s.Address())
			if err != nil {
				return nil, fmt.Errorf("chain: pending nonce: %w", err)
			}
			t.nextNonce, t.nonceKnown = n, true
		}
		signed, err := t.s.SignTx(types.NewTx(build(t.nextNonce)), chainID)
		if err != nil {
			return nil, fmt.Errorf("chain: sign tx: %w", err)
		}
		err = t.b.SendTransaction(ctx, signed)
		if err == nil || isAlreadyKnown(err) {
			t.nextNonce++
			t.log.Debug("tx sent", "hash", signed.Hash(), "nonce", signed.Nonce(), "gas", signed.Gas())
			return signed, nil
		}
		if isNonceError(err) {
			// The node refused this transaction, so nothing was sent: re-read
			// the pending nonce (another sender of this key moved it) and sign
			// again once.
			t.nonceKnown = false
			if attempt == 0 {
				continue
			}
		}
		return nil, fmt.Errorf("chain: send tx: %w", err)
	}
}

// isNonceError reports a refusal caused by the nonce: too low or too high,
// or taken by a pending transaction with higher fees.
func isNonceError(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "nonce too low") || strings.Contains(s, "nonce too high") ||
		strings.Contains(s, "replacement transaction underpriced")
}

// isAlreadyKnown reports that the node already holds this exact transaction.
func isAlreadyKnown(err error) bool {
	return strings.Contains(strings.ToLower(err.Error()), "already known")
}

func isNotYet(err error) bool {
	return errors.Is(err, ethereum.NotFound) || strings.Contains(err.Error(), "indexing is in progress")
}

// wait polls for the receipt of tx or of any replacement of it, replacing
// it with higher fees while it stays unmined, then waits for the
// confirmations.
func (t *sender) wait(ctx context.Context, chainID *big.Int, tx *types.Transaction) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, t.cfg.ReceiptTimeout)
	defer cancel()
	sent := []*types.Transaction{tx}
	lastSend := time.Now()
	tick := time.NewTicker(t.cfg.PollInterval)
	defer tick.Stop()
	var r *types.Receipt
	for r == nil {
		for i := len(sent) - 1; i >= 0; i-- {
			got, err := t.b.TransactionReceipt(ctx, sent[i].Hash())
			if err == nil && got != nil {
				r = got
				break
			}
			if err != nil && !isNotYet(err) && ctx.Err() == nil {
				return nil, fmt.Errorf("chain: receipt %s: %w", sent[i].Hash(), err)
			}
		}
		if r != nil {
			break
		}
		if time.Since(lastSend) >= t.cfg.StuckAfter && len(sent) <= t.cfg.MaxFeeBumps {
			if next, err := t.replace(ctx, chainID, sent[len(sent)-1]); err == nil {
				sent = append(sent, next)
			} else {
				t.log.Debug("tx replacement refused", "nonce", tx.Nonce(), "err", err)
			}
			lastSend = time.Now()
		}
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return nil, fmt.Errorf("%w: tx %s nonce %d", ErrReceiptTimeout, tx.Hash(), tx.Nonce())
			}
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
	if t.cfg.Confirmations > 1 {
		want := r.BlockNumber.Uint64() + t.cfg.Confirmations - 1
		for {
			n, err := t.b.BlockNumber(ctx)
			if err != nil {
				return nil, fmt.Errorf("chain: block number: %w", err)
			}
			if n >= want {
				break
			}
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("%w: waiting for %d confirmations: %w", ErrReceiptTimeout, t.cfg.Confirmations, ctx.Err())
			case <-tick.C:
			}
		}
	}
	return r, nil
}

// replace re-signs prev with the same nonce and both fee caps raised by
// FeeBumpPercent (and at least to the node's current suggestion).
func (t *sender) replace(ctx context.Context, chainID *big.Int, prev *types.Transaction) (*types.Transaction, error) {
	bump := func(x *big.Int) *big.Int {
		y := new(big.Int).Mul(x, big.NewInt(int64(100+t.cfg.FeeBumpPercent)))
		y.Div(y, big.NewInt(100))
		if y.Cmp(x) <= 0 {
			y.Add(x, big.NewInt(1))
		}
		return y
	}
	tip, feeCap := bump(prev.GasTipCap()), bump(prev.GasFeeCap())
	if sTip, sCap, err := t.fees(ctx); err == nil {
		if sTip.Cmp(tip) > 0 {
			tip = sTip
		}
		if sCap.Cmp(feeCap) > 0 {
			feeCap = sCap
		}
	}
	if tip.Cmp(feeCap) > 0 {
		feeCap = new(big.Int).Set(tip)
	}
	next, err := t.s.SignTx(types.NewTx(&types.DynamicFeeTx{
		ChainID: chainID, Nonce: prev.Nonce(), GasTipCap: tip, GasFeeCap: feeCap,
		Gas: prev.Gas(), To: prev.To(), Value: prev.Value(), Data: prev.Data(),
	}), chainID)
	if err != nil {
		return nil, fmt.Errorf("chain: sign replacement: %w", err)
	}
	if err := t.b.SendTransaction(ctx, next); err != nil {
		return nil, fmt.Errorf("chain: send replacement: %w", err)
	}
	t.log.Info("stuck tx replaced", "nonce", prev.Nonce(), "old", prev.Hash(), "new", next.Hash(), "tip", tip, "fee_cap", feeCap)
	return next, nil
}

// replayFailure re-runs a failed transaction as a call on the state after
// its block to recover the revert reason. That state holds whatever beat it
// in the same block (the usual cause: two calls racing for one digest).
func (t *sender) replayFailure(ctx context.Context, msg ethereum.CallMsg, gas uint64, r *types.Receipt) error {
	msg.Gas = gas
	if _, err := t.b.CallContract(ctx, msg, r.BlockNumber); err != nil {
		var re *RevertError
		if errors.As(t.dec.callError("replay", err), &re) {
			return re
		}
	}
	return fmt.Errorf("%w: tx %s in block %v", ErrTxFailed, r.TxHash, r.BlockNumber)
}
