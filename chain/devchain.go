package chain

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/parleynet/parley/strictjson"
)

// DevchainConfig configures the embedded development chain.
type DevchainConfig struct {
	// DataDir holds the chain; state survives restarts and a kill -9. Empty
	// runs the chain in memory.
	DataDir string
	// ChainID of the chain (default 1337).
	ChainID *big.Int
	// Period seals a block every Period; 0 seals one as soon as a
	// transaction arrives (mining on demand).
	Period time.Duration
	// HTTPPort is the JSON-RPC port; 0 picks a free one.
	HTTPPort int
	// HTTPHost is the address JSON-RPC listens on (empty: 127.0.0.1). A
	// dev chain's accounts have public keys: serve it beyond loopback
	// only on a network of your own, such as the testbed's namespaces.
	HTTPHost string
	// Accounts is how many dev accounts are funded in genesis.
	Accounts int
	// Balance is each dev account's genesis balance in wei.
	Balance *big.Int
	// GasLimit of each block.
	GasLimit uint64
	// Deploy holds the contracts' constructor parameters.
	Deploy DeployConfig
	// Logger receives the devchain's own messages (go-ethereum's internal
	// logging stays off).
	Logger *slog.Logger
	// OnDurable, when set, is called with each block number once the chain
	// database is fsynced through that block.
	OnDurable func(block uint64)
}

// DefaultDevchainConfig returns an in-memory chain 1337 mining on demand,
// four dev accounts with 10,000 ETH each and the default deploy parameters.
func DefaultDevchainConfig() DevchainConfig {
	return DevchainConfig{
		ChainID:  big.NewInt(1337),
		Accounts: 4,
		Balance:  new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18)),
		GasLimit: 30_000_000,
		Deploy:   DefaultDeployConfig(),
	}
}

// Validate returns an error naming the first bad field.
func (c DevchainConfig) Validate() error {
	switch {
	case c.ChainID == nil || c.ChainID.Sign() <= 0 || !c.ChainID.IsUint64():
		return fmt.Errorf("%w: ChainID must be a positive 64-bit integer", ErrInvalidConfig)
	case c.Period < 0 || (c.Period > 0 && c.Period < time.Second):
		return fmt.Errorf("%w: Period must be 0 or at least a second", ErrInvalidConfig)
	case c.HTTPPort < 0 || c.HTTPPort > 65535:
		return fmt.Errorf("%w: HTTPPort out of range", ErrInvalidConfig)
	case c.HTTPHost != "" && net.ParseIP(c.HTTPHost) == nil:
		return fmt.Errorf("%w: HTTPHost %q is not an IP address", ErrInvalidConfig, c.HTTPHost)
	case c.Accounts < 1 || c.Accounts > 256:
		return fmt.Errorf("%w: Accounts must be 1..256", ErrInvalidConfig)
	case c.Balance == nil || c.Balance.Sign() <= 0:
		return fmt.Errorf("%w: Balance must be positive", ErrInvalidConfig)
	case c.GasLimit < 1_000_000:
		return fmt.Errorf("%w: GasLimit must be at least 1,000,000", ErrInvalidConfig)
	}
	return c.Deploy.Validate()
}

// DevAccount is a funded dev account. Its key is derived from a public seed:
// never use it outside a dev chain.
type DevAccount struct {
	Address common.Address
	Key     *ecdsa.PrivateKey
}

// Signer returns a Signer for the account.
func (a DevAccount) Signer() *KeySigner { return NewKeySigner(a.Key) }

// DevKey returns the i-th dev account's key (i = -1 is the deployer): the
// secp256k1 key keccak256("parley devchain account <i>").
func DevKey(i int) *ecdsa.PrivateKey {
	seed := fmt.Sprintf("parley devchain account %d", i)
	if i < 0 {
		seed = "parley devchain deployer"
	}
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(seed)))
	if err != nil {
		panic(err) // a keccak output outside the curve order: practically impossible
	}
	return k
}

// Devchain is a running embedded chain.
type Devchain struct {
	// URL is the JSON-RPC endpoint, http://<HTTPHost>:<port>.
	URL string
	// ChainID is the chain's id.
	ChainID *big.Int
	// Contracts are the deployed contracts.
	Contracts Addresses
	// Accounts are the funded dev accounts.
	Accounts []DevAccount
	// Deployer deployed the contracts; it is funded too.
	Deployer DevAccount

	stack     *node.Node
	beacon    *catalyst.SimulatedBeacon
	rpc       *RPC
	durable   atomic.Uint64
	quit      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// AdjustTime seals an empty block d later than the last one; later blocks
// follow from there, so the contracts' clocks (a review period, a
// deadline, a dispute's stage) run out without waiting for them. A
// transaction still pending is mined first, in a block of its own.
func (d *Devchain) AdjustTime(dur time.Duration) error {
	var err error
	for range 100 {
		if err = d.beacon.AdjustTime(dur); err == nil || !strings.Contains(err.Error(), "non-empty block") {
			return err
		}
		d.beacon.Commit()
		time.Sleep(5 * time.Millisecond)
	}
	return err
}

// Durable returns the highest block the chain database is fsynced through.
func (d *Devchain) Durable() uint64 { return d.durable.Load() }

const devchainFile = "parley-devchain.json"

type devchainRecord struct {
	ChainID   string    `json:"chainId"`
	Contracts Addresses `json:"contracts"`
}

// StartDevchain starts an embedded chain assembled like `geth --dev`: a node
// with P2P off and JSON-RPC on HTTPHost (127.0.0.1 by default), the eth service, and the simulated
// beacon sealing blocks on demand or every Period. State is kept in DataDir
// with the hash scheme and no pruning, so it survives a kill -9. On first
// start the contracts are deployed and their addresses recorded in DataDir;
// later starts reuse them.
func StartDevchain(ctx context.Context, cfg DevchainConfig) (*Devchain, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "chain.devchain")

	d := &Devchain{ChainID: new(big.Int).Set(cfg.ChainID), quit: make(chan struct{})}
	d.Deployer = DevAccount{Key: DevKey(-1)}
	d.Deployer.Address = crypto.PubkeyToAddress(d.Deployer.Key.PublicKey)
	genesis := core.DeveloperGenesisBlock(cfg.GasLimit, &d.Deployer.Address)
	genesis.Config = MainnetRules(cfg.ChainID)
	genesis.Alloc[d.Deployer.Address] = types.Account{Balance: new(big.Int).Set(cfg.Balance)}
	for i := 0; i < cfg.Accounts; i++ {
		k := DevKey(i)
		a := DevAccount{Address: crypto.PubkeyToAddress(k.PublicKey), Key: k}
		d.Accounts = append(d.Accounts, a)
		genesis.Alloc[a.Address] = types.Account{Balance: new(big.Int).Set(cfg.Balance)}
	}

	if cfg.DataDir != "" {
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("chain: devchain: data dir: %w", err)
		}
	}
	stack, err := node.New(&node.Config{
		Name:              "parley-devchain",
		DataDir:           cfg.DataDir,
		HTTPHost:          cmp.Or(cfg.HTTPHost, "127.0.0.1"),
		HTTPPort:          cfg.HTTPPort,
		HTTPModules:       []string{"eth", "net", "web3", "dev"},
		HTTPVirtualHosts:  []string{"localhost"},
		HTTPTimeouts:      rpc.DefaultHTTPTimeouts,
		UseLightweightKDF: true,
		P2P:               p2p.Config{MaxPeers: 0, NoDiscovery: true, NoDial: true, ListenAddr: ""},
	})
	if err != nil {
		return nil, fmt.Errorf("chain: devchain: node: %w", err)
	}
	d.stack = stack
	fail := func(err error) (*Devchain, error) {
		_ = d.Close()
		return nil, err
	}

	ec := ethconfig.Defaults
	ec.Genesis = genesis
	ec.NetworkId = cfg.ChainID.Uint64()
	ec.SyncMode = ethconfig.FullSync
	ec.StateScheme = rawdb.HashScheme
	ec.NoPruning = true
	ec.DatabaseCache = 64
	ec.TrieCleanCache = 16
	ec.TrieDirtyCache = 16
	ec.SnapshotCache = 16
	ec.Miner.PendingFeeRecipient = d.Deployer.Address
	ec.RPCTxFeeCap = 0
	// No log index: rendering it costs a quarter of the CPU per block, and
	// eth_getLogs over a dev chain's few blocks is fast without it.
	ec.LogNoHistory = true
	backend, err := eth.New(stack, &ec)
	if err != nil {
		return fail(fmt.Errorf("chain: devchain: eth: %w", err))
	}
	fs := filters.NewFilterSystem(backend.APIBackend, filters.Config{LogCacheSize: ec.FilterLogCacheSize, LogQueryLimit: ec.LogQueryLimit})
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(fs)}})
	beacon, err := catalyst.NewSimulatedBeacon(uint64(cfg.Period/time.Second), d.Deployer.Address, backend)
	if err != nil {
		return fail(fmt.Errorf("chain: devchain: beacon: %w", err))
	}
	catalyst.RegisterSimulatedBeaconAPIs(stack, beacon)
	d.beacon = beacon
	stack.RegisterLifecycle(beacon)
	if err := stack.Start(); err != nil {
		return fail(fmt.Errorf("chain: devchain: start: %w", err))
	}
	d.URL = stack.HTTPEndpoint()
	d.syncHeads(backend, cfg.OnDurable, log)

	d.rpc = &RPC{Client: ethclient.NewClient(stack.Attach())}
	if err := d.deploy(ctx, cfg, log); err != nil {
		return fail(err)
	}
	log.Info("devchain started", "url", d.URL, "chain_id", d.ChainID, "task_registry", d.Contracts.TaskRegistry, "data_dir", cfg.DataDir)
	return d, nil
}

// syncHeads fsyncs the chain database after every new head. go-ethereum
// writes with pebble's asynchronous WAL, so without it a kill -9 loses the
// last blocks; with it a block is durable a moment after it is sealed.
func (d *Devchain) syncHeads(backend *eth.Ethereum, onDurable func(uint64), log *slog.Logger) {
	heads := make(chan core.ChainHeadEvent, 64)
	sub := backend.BlockChain().SubscribeChainHeadEvent(heads)
	db := backend.ChainDb()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer sub.Unsubscribe()
		for {
			select {
			case ev := <-heads:
				if err := db.SyncKeyValue(); err != nil {
					log.Warn("chain database sync failed", "err", err)
					continue
				}
				n := ev.Header.Number.Uint64()
				d.durable.Store(n)
				if onDurable != nil {
					onDurable(n)
				}
			case <-sub.Err():
				return
			case <-d.quit:
				return
			}
		}
	}()
}

// deploy reuses the contracts recorded in the data directory when their
// code is on chain, and deploys them otherwise.
func (d *Devchain) deploy(ctx context.Context, cfg DevchainConfig, log *slog.Logger) error {
	path := ""
	if cfg.DataDir != "" {
		path = filepath.Join(cfg.DataDir, devchainFile)
		if b, err := os.ReadFile(path); err == nil {
			var rec devchainRecord
			if err := strictjson.Unmarshal(b, &rec); err != nil {
				return fmt.Errorf("chain: devchain: %s: %w", path, err)
			}
			if rec.ChainID == d.ChainID.String() && CheckDeployed(ctx, d.rpc, rec.Contracts) == nil {
				d.Contracts = rec.Contracts
				return nil
			}
			log.Warn("recorded contracts missing, deploying again", "file", path)
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("chain: devchain: %w", err)
		}
	}
	cc := DefaultConfig()
	cc.ChainID = d.ChainID
	cc.PollInterval = 5 * time.Millisecond
	addrs, err := Deploy(ctx, d.rpc, d.Deployer.Signer(), cc, cfg.Deploy, log)
	if err != nil {
		return fmt.Errorf("chain: devchain: deploy: %w", err)
	}
	d.Contracts = addrs
	if path != "" {
		b, _ := json.MarshalIndent(devchainRecord{ChainID: d.ChainID.String(), Contracts: addrs}, "", "  ")
		if err := writeFileAtomic(path, append(b, '\n')); err != nil {
			return fmt.Errorf("chain: devchain: record contracts: %w", err)
		}
	}
	return nil
}

// ClientConfig returns a client configuration for this chain: its chain id,
// its contracts, one confirmation and fast polling.
func (d *Devchain) ClientConfig() Config {
	c := DefaultConfig()
	c.ChainID = new(big.Int).Set(d.ChainID)
	c.Contracts = d.Contracts
	c.PollInterval = 5 * time.Millisecond
	return c
}

// Close stops the chain and waits for it; it is safe to call twice.
func (d *Devchain) Close() error {
	d.closeOnce.Do(func() {
		close(d.quit)
		d.wg.Wait()
		if d.rpc != nil {
			d.rpc.Close()
		}
		if d.stack != nil {
			d.closeErr = d.stack.Close()
		}
	})
	return d.closeErr
}
