package node

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/p2p"
)

// Option configures what New wires in beyond Config: the passphrase, the
// logger, the metrics registry, the clock, the approval gate and, for tests
// and tools, a chain backend and tuning of the parts. An option given a nil
// value, or two options that conflict, make New fail with CodeBadConfig.
type Option func(*options) error

type options struct {
	passphrase []byte
	logger     *slog.Logger
	registerer prometheus.Registerer
	clock      func() time.Time
	gate       Gate
	backend    chain.Backend
	ledgerTune func(*ledger.Config)
	p2pTune    func(*p2p.Config)
	reset      []string // stores to reset when refused (WithReset, stores.go)
}

// WithPassphrase sets the passphrase that opens the node's keys. It is
// required: New fails without it.
func WithPassphrase(p []byte) Option {
	return func(o *options) error {
		if len(p) == 0 {
			return fail(CodeBadConfig, "WithPassphrase: empty passphrase")
		}
		if o.passphrase != nil {
			return fail(CodeBadConfig, "WithPassphrase given twice")
		}
		o.passphrase = append([]byte(nil), p...)
		return nil
	}
}

// WithLogger sets the logger; records carry component=node (and the parts'
// own components). The default discards.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return fail(CodeBadConfig, "WithLogger: nil logger")
		}
		o.logger = l
		return nil
	}
}

// WithRegisterer registers the node's and libp2p's metrics with r (never
// the global registry). Without it no metrics are registered anywhere.
func WithRegisterer(r prometheus.Registerer) Option {
	return func(o *options) error {
		if r == nil {
			return fail(CodeBadConfig, "WithRegisterer: nil registerer")
		}
		o.registerer = r
		return nil
	}
}

// WithClock sets the time source (envelope timestamps, approvals, the
// ledger). The default is time.Now.
func WithClock(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return fail(CodeBadConfig, "WithClock: nil clock")
		}
		o.clock = now
		return nil
	}
}

// WithGate sets the explicit decider of the approval gate every gated act
// passes through (node/gate's Decider). Without it the principal's
// passkeys decide, through the requests waiting in Gate().PendingApprovals;
// tests and the devnet configure AutoApprove explicitly.
func WithGate(g Gate) Option {
	return func(o *options) error {
		if g == nil {
			return fail(CodeBadConfig, "WithGate: nil gate")
		}
		if o.gate != nil {
			return fail(CodeBadConfig, "WithGate given twice")
		}
		o.gate = g
		return nil
	}
}

// WithChainBackend makes the node talk to b (for example go-ethereum's
// simulated chain) instead of dialling Config.Chain.RPC; the two conflict.
// The caller keeps ownership of b: Close does not close it.
func WithChainBackend(b chain.Backend) Option {
	return func(o *options) error {
		if b == nil {
			return fail(CodeBadConfig, "WithChainBackend: nil backend")
		}
		o.backend = b
		return nil
	}
}

// WithLedgerTuning adjusts the ledger configuration after the node has set
// it (tests shrink Badger's tables with it).
func WithLedgerTuning(f func(*ledger.Config)) Option {
	return func(o *options) error {
		if f == nil {
			return fail(CodeBadConfig, "WithLedgerTuning: nil function")
		}
		o.ledgerTune = f
		return nil
	}
}

// WithP2PTuning adjusts the transport configuration after the node has set
// it (tests shorten retries with it). It must not replace the parts the
// node wires in (keys, sealer, outbox, handler, blobs).
func WithP2PTuning(f func(*p2p.Config)) Option {
	return func(o *options) error {
		if f == nil {
			return fail(CodeBadConfig, "WithP2PTuning: nil function")
		}
		o.p2pTune = f
		return nil
	}
}
