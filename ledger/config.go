package ledger

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// Config configures a Ledger. Start from DefaultConfig and set Dir.
type Config struct {
	// Dir is the Badger directory. It is created on first use.
	Dir string
	// ReadOnly opens an existing ledger for reading and verification only:
	// appends fail with ErrReadOnly and no checkpoint is written.
	ReadOnly bool
	// Logger receives the ledger's and Badger's log records. Badger's are
	// passed at warn level and above only.
	Logger *slog.Logger
	// Clock stamps entries appended without an explicit time.
	Clock func() time.Time

	// RecordFile is the file, outside Dir, where the ledger keeps its
	// record of itself (storeguard.Record: head seq and hash, and Owner),
	// rewritten atomically after group commits. Start refuses a ledger
	// that holds less than, or other entries than, its record names. ""
	// keeps no record.
	RecordFile string
	// Owner names the node the ledger belongs to (its peer id). The
	// record carries it; a record naming another owner is refused. ""
	// (tools that read a ledger without its keys) does not check it.
	Owner string
	// OnDamage, when set, is called with each damaged entry or object a
	// read, an export or a scan finds (never while a lock of the ledger is
	// held); the node reports them.
	OnDamage func(Damage)

	// MaxEntryBytes limits one entry: the JCS bytes that are hashed.
	MaxEntryBytes int
	// MaxObjectBytes limits one object (an envelope or a blob).
	MaxObjectBytes int
	// MaxBatch limits how many appends one group commit gathers.
	MaxBatch int
	// MaxBatchBytes limits the bytes one group commit writes; a batch always
	// takes at least one append.
	MaxBatchBytes int

	// AnchorEvery calls AnchorHook whenever the head has advanced this many
	// entries since the last call (0: never).
	AnchorEvery uint64
	// AnchorHook receives the head hash and entry count to anchor on chain.
	// It runs on its own goroutine; calls are never concurrent, and heads
	// that arrive while it runs are coalesced into the latest.
	AnchorHook func(head negotiation.Hash, count uint64)

	// MemTableSize is Badger's memtable size. One group commit must fit in
	// 15% of it (Badger's transaction limit).
	MemTableSize int64
	// BlockCacheSize is Badger's block cache size.
	BlockCacheSize int64
	// ValueLogFileSize is the size of one Badger value-log file.
	ValueLogFileSize int64
	// NumCompactors is the number of Badger compaction goroutines (at least 2).
	NumCompactors int
}

// DefaultConfig returns a Config with the defaults for a node: 1 MiB
// entries, 4 MiB objects, group commits of up to 1024 appends or 8 MiB, a
// 64 MiB memtable, the wall clock and a logger that discards.
func DefaultConfig() Config {
	return Config{
		Logger:           slog.New(slog.DiscardHandler),
		Clock:            time.Now,
		MaxEntryBytes:    1 << 20,
		MaxObjectBytes:   4 << 20,
		MaxBatch:         1024,
		MaxBatchBytes:    8 << 20,
		MemTableSize:     64 << 20,
		BlockCacheSize:   32 << 20,
		ValueLogFileSize: 256 << 20,
		NumCompactors:    2,
	}
}

// txnLimit is the largest transaction Badger accepts for c.MemTableSize.
func (c Config) txnLimit() int64 { return 15 * c.MemTableSize / 100 }

// Validate reports the first field that is missing or out of range.
func (c Config) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("ledger: config %s: %s", field, fmt.Sprintf(format, args...)))
	}
	if c.Dir == "" {
		add("Dir", "required")
	}
	if c.Logger == nil {
		add("Logger", "required")
	}
	if c.Clock == nil {
		add("Clock", "required")
	}
	if c.MaxEntryBytes < 256 {
		add("MaxEntryBytes", "%d is below 256", c.MaxEntryBytes)
	}
	if c.MaxObjectBytes < 1 {
		add("MaxObjectBytes", "%d is below 1", c.MaxObjectBytes)
	}
	if c.MaxBatch < 1 {
		add("MaxBatch", "%d is below 1", c.MaxBatch)
	}
	if c.MemTableSize < 1<<20 {
		add("MemTableSize", "%d is below 1 MiB", c.MemTableSize)
	}
	if c.MaxBatchBytes < 1 || int64(c.MaxBatchBytes) > c.txnLimit() {
		add("MaxBatchBytes", "%d is outside 1..%d (15%% of MemTableSize)", c.MaxBatchBytes, c.txnLimit())
	}
	if int64(c.MaxEntryBytes+c.MaxObjectBytes+entryOverhead) > c.txnLimit() {
		add("MaxObjectBytes", "one entry with its object (%d bytes) must fit one transaction (%d)",
			c.MaxEntryBytes+c.MaxObjectBytes+entryOverhead, c.txnLimit())
	}
	if c.BlockCacheSize < 0 {
		add("BlockCacheSize", "negative")
	}
	if c.ValueLogFileSize < 1<<20 || c.ValueLogFileSize >= 2<<30 {
		add("ValueLogFileSize", "%d is outside 1 MiB..2 GiB", c.ValueLogFileSize)
	}
	if c.NumCompactors < 2 {
		add("NumCompactors", "%d is below 2", c.NumCompactors)
	}
	if c.AnchorEvery > 0 && c.AnchorHook == nil {
		add("AnchorHook", "required when AnchorEvery is set")
	}
	return errors.Join(errs...)
}
