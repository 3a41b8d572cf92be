package loadtest

import (
	"fmt"
	"io"
	"log/slog"
	"time"
)

// Config configures a load run. Start from DefaultConfig; Validate names
// the first bad field.
type Config struct {
	// Counterparties is how many counterparty nodes drive the worker at
	// once during the load phase.
	Counterparties int
	// Duration is the measured window of the load phase.
	Duration time.Duration
	// Warmup runs before each measured window and is not measured.
	Warmup time.Duration
	// Baseline, when set, first measures the same loop with a single
	// counterparty for BaselineDuration (the Report gives the ratio).
	Baseline         bool
	BaselineDuration time.Duration
	// Fund makes each counterparty fund every agreed task on an embedded
	// dev chain (createTask with both signatures), so the measured loop is
	// proposal to funded escrow.
	Fund bool
	// PollInterval is how often each node polls the chain for receipts
	// and blocks (with Fund).
	PollInterval time.Duration
	// StepTimeout bounds each wait within one negotiation; a negotiation
	// that exceeds it is counted as failed.
	StepTimeout time.Duration
	// Dir is where the run's temporary directory is made; empty is the
	// system's temporary directory. The directory is removed at the end.
	Dir string
	// Logger receives the nodes' log records; the default discards.
	Logger *slog.Logger
	// Progress, when not nil, receives one line per stage of the run.
	Progress io.Writer
	// CPUProfile, when not nil, receives a CPU profile (pprof format) of
	// the load phase's measured window. Samples are labelled
	// node=worker, node=counterparty or node=chain.
	CPUProfile io.Writer
}

// DefaultConfig returns 100 counterparties, a 30 s window after a 5 s
// warm-up, a baseline of the same length, no funding, a 20 ms chain poll
// and a 60 s step timeout.
func DefaultConfig() Config {
	return Config{
		Counterparties:   100,
		Duration:         30 * time.Second,
		Warmup:           5 * time.Second,
		Baseline:         true,
		BaselineDuration: 30 * time.Second,
		PollInterval:     20 * time.Millisecond,
		StepTimeout:      60 * time.Second,
	}
}

// MaxCounterparties bounds Config.Counterparties: each is a node with its
// own Badger and libp2p host in this process.
const MaxCounterparties = 500

// Validate returns an error naming the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Counterparties < 1 || c.Counterparties > MaxCounterparties:
		return fmt.Errorf("loadtest: Counterparties %d is outside 1..%d", c.Counterparties, MaxCounterparties)
	case c.Duration < 100*time.Millisecond:
		return fmt.Errorf("loadtest: Duration %v is under 100ms", c.Duration)
	case c.Warmup < 0:
		return fmt.Errorf("loadtest: Warmup %v is negative", c.Warmup)
	case c.Baseline && c.BaselineDuration < 100*time.Millisecond:
		return fmt.Errorf("loadtest: BaselineDuration %v is under 100ms", c.BaselineDuration)
	case c.PollInterval < time.Millisecond:
		return fmt.Errorf("loadtest: PollInterval %v is under 1ms", c.PollInterval)
	case c.StepTimeout < time.Second:
		return fmt.Errorf("loadtest: StepTimeout %v is under 1s", c.StepTimeout)
	}
	return nil
}
