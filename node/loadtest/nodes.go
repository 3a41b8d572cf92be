package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// passphrase protects the throwaway keys of the run's nodes.
var passphrase = []byte("parley bench throwaway keys")

// noChainRegistry is the TaskRegistry address the settlement domain names
// when the run has no chain (negotiation needs a domain, not a contract).
var noChainRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")

// startNode creates keys (test-strength scrypt: the keys are thrown away)
// in a fresh directory under root and starts a node on them. The worker
// gets the production transport limits and a 16 MiB memtable; a
// counterparty gets smaller ones, so that many fit in one process.
func (r *runner) startNode(ctx context.Context, name string, worker bool) (*node.Node, error) {
	dir := filepath.Join(r.root, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	kcfg := identity.DefaultConfig(dir)
	kcfg.ScryptWorkFactor = 10
	kcfg.KeystoreScryptN, kcfg.KeystoreScryptP = keystore.LightScryptN, keystore.LightScryptP
	if _, err := identity.Create(kcfg, passphrase, time.Now()); err != nil {
		return nil, fmt.Errorf("%s keys: %w", name, err)
	}
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Name = dir, name
	cfg.P2P.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.P2P.DHT = false
	cfg.P2P.RetryMax = time.Second
	cfg.Chain.PollInterval = r.cfg.PollInterval
	cfg.FetchTimeout = 10 * time.Second
	if r.dev != nil {
		cfg.Chain.RPC, cfg.Chain.ChainID, cfg.Chain.Contracts = r.dev.URL, r.dev.ChainID.Uint64(), r.dev.Contracts
	} else {
		cfg.Chain.ChainID = 1337
		cfg.Chain.Contracts.TaskRegistry = noChainRegistry
	}
	if !worker && r.worker != nil {
		cfg.P2P.Bootstrap = []string{r.worker.Addrs()[0].String()}
	}
	memtable, maxObject := int64(8<<20), 256<<10
	if worker {
		memtable, maxObject = 16<<20, 1<<20
	}
	opts := []node.Option{
		node.WithPassphrase(passphrase),
		node.WithLogger(r.log.With("who", name)),
		node.WithGate(node.AutoApprove("parley bench")),
		node.WithLedgerTuning(func(c *ledger.Config) {
			c.MemTableSize = memtable
			c.BlockCacheSize = 4 << 20
			c.ValueLogFileSize = 16 << 20
			c.MaxEntryBytes = maxObject
			c.MaxObjectBytes = maxObject
			c.MaxBatchBytes = maxObject
		}),
	}
	if worker {
		cfg.P2P.MaxPeers = r.cfg.Counterparties
		// Every counterparty is a stranger to the worker: room for each
		// one's negotiations at once.
		cfg.Consent.Total = max(cfg.Consent.Total, 4*r.cfg.Counterparties)
	} else {
		opts = append(opts, node.WithP2PTuning(func(c *p2p.Config) {
			c.ResourceMemory = 64 << 20
			c.ResourceFDs = 256
		}))
	}
	n, err := node.New(cfg, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := n.Start(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r.track(n)
	return n, nil
}

// fundLanes is how many genesis accounts fund the counterparties at
// once, each sending its share one transaction after another (one nonce
// sequence per sender).
const fundLanes = 8

// fundAccounts sends each address 10 ETH (a thousand tasks' escrow) from
// the dev chain's genesis accounts.
func (r *runner) fundAccounts(ctx context.Context, to []negotiation.Address) error {
	b, err := chain.DialRPC(ctx, r.dev.URL)
	if err != nil {
		return err
	}
	defer b.Close()
	amount := new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether))
	lanes := min(fundLanes, len(r.dev.Accounts))
	errs := make([]error, lanes)
	var wg sync.WaitGroup
	for lane := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := chain.New(b, r.dev.Accounts[lane].Signer(), r.dev.ClientConfig(), nil)
			if err != nil {
				errs[lane] = err
				return
			}
			for i := lane; i < len(to); i += lanes {
				addr := common.Address(to[i])
				if _, err := c.Transact(ctx, &addr, amount, nil); err != nil {
					errs[lane] = fmt.Errorf("fund %s: %w", addr.Hex(), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// connect waits until the worker and each counterparty know each other's
// identity link. A pair still apart after a few seconds (a handshake that
// timed out while the machine was busy starting nodes) is dialled again
// with the handshake.
func (r *runner) connect(ctx context.Context, cps []*counterparty) error {
	wai := peer.AddrInfo{ID: r.worker.PeerID(), Addrs: r.worker.Host().Libp2p().Addrs()}
	for _, cp := range cps {
		deadline := time.Now().Add(r.cfg.StepTimeout)
		redial := time.Now().Add(3 * time.Second)
		for {
			_, ok1 := r.worker.Host().Link(cp.n.Address())
			_, ok2 := cp.n.Host().Link(r.worker.Address())
			if ok1 && ok2 {
				break
			}
			now := time.Now()
			if now.After(deadline) {
				return fmt.Errorf("loadtest: %s and the worker did not exchange identity links within %v", cp.name, r.cfg.StepTimeout)
			}
			if now.After(redial) {
				redial = now.Add(3 * time.Second)
				dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				err := cp.n.Host().Connect(dctx, wai)
				cancel()
				r.log.Info("bench: redialled the worker", "who", cp.name, "err", err)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return nil
}
