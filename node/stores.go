package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/node/gate"
	"github.com/parleynet/parley/storeguard"
)

// The stores a node keeps in its data directory, by the names their
// records, refusals and resets use.
const (
	StoreLedger    = "ledger"
	StoreApprovals = gate.StoreName
)

// KindStoreReset is the ledger kind of the audit entry a reset writes:
// {store, code, reason, record, found, archived}.
const KindStoreReset = "store.reset"

// CodeStoreRefused is the code of a start refused because a store holds
// less than, or other data than, its record (or its Badger directory lost
// its MANIFEST), or of a reset asked for a store that was not refused.
const CodeStoreRefused Code = "store_refused"

// WithReset resets the named stores (StoreLedger, StoreApprovals) at Start
// when, and only when, they are refused: a store emptier than or different
// from its record, a Badger directory without a readable MANIFEST, or (for
// the ledger) history that fails verification. The store's directory and
// record are archived under new names (never deleted), the store starts
// empty, and an audit entry in the ledger (KindStoreReset) says what was
// reset, why, and what the old record said. A reset asked for a store
// that opens fine fails Start with CodeStoreRefused, so that a reset left
// in a service's flags cannot empty a healthy store at a later start.
func WithReset(stores ...string) Option {
	return func(o *options) error {
		for _, s := range stores {
			if s != StoreLedger && s != StoreApprovals {
				return fail(CodeBadConfig, "WithReset: unknown store %q (want %s or %s)", s, StoreLedger, StoreApprovals)
			}
			if !slices.Contains(o.reset, s) {
				o.reset = append(o.reset, s)
			}
		}
		return nil
	}
}

// storeReset is one reset made at Start, for its audit entry.
type storeReset struct {
	Store    string              `json:"store"`
	Code     string              `json:"code"`
	Reason   string              `json:"reason"`
	Record   *storeguard.Record  `json:"record,omitempty"`
	Found    string              `json:"found,omitempty"`
	Archived storeguard.Archived `json:"archived"`
}

// resettable reports whether err refuses a store in a way a reset may
// answer: a storeguard refusal, or (for the ledger) failed verification.
// A locked directory, a wrong format or an I/O error are never reset.
func resettable(store string, err error) bool {
	if errors.Is(err, storeguard.ErrRefused) {
		return true
	}
	var ve *ledger.VerifyError
	return store == StoreLedger && errors.As(err, &ve)
}

// refused wraps a store's refusal at Start.
func refused(store string, err error) error {
	if resettable(store, err) {
		return failWrap(CodeStoreRefused, err, "the %s store", store)
	}
	return fmt.Errorf("node: %s: %w", store, err)
}

// storeOpener opens the node's stores at Start: the ledger first, then
// the approval store, resetting those a reset was asked for (WithReset)
// when, and only when, they are refused.
type storeOpener struct {
	reset  []string         // the stores to reset (options.reset)
	log    *slog.Logger     // the node's
	logger *slog.Logger     // handed to the stores
	now    func() time.Time // the node's clock
	owner  string           // the stores' owner in their records: the node's peer id
}

// open opens one store with open, and when it is refused and a reset of
// it was asked, archives its directory and record and opens it again,
// empty, writing the reset's audit entry in the ledger led returns. A
// reset asked for a store that opened is an error.
func (s storeOpener) open(ctx context.Context, store, dir string, open func() error, led func() *ledger.Ledger) error {
	err := open()
	asked := slices.Contains(s.reset, store)
	switch {
	case err == nil && asked:
		return fail(CodeStoreRefused, "a reset of the %s store was asked, but it opens and matches its record: nothing to reset (drop --reset-%s)", store, store)
	case err == nil:
		return nil
	case !asked || !resettable(store, err):
		return refused(store, err)
	}
	r := storeReset{Store: store, Reason: err.Error()}
	var se *storeguard.Error
	var ve *ledger.VerifyError
	switch {
	case errors.As(err, &se):
		r.Code, r.Record, r.Found = string(se.Code), se.Record, se.Found
	case errors.As(err, &ve):
		r.Code = string(ve.Code)
	}
	if r.Record == nil {
		r.Record, _ = storeguard.Read(store, storeguard.RecordFile(dir))
	}
	if r.Archived, err = storeguard.Archive(dir, storeguard.RecordFile(dir), s.now()); err != nil {
		return fmt.Errorf("node: reset the %s store: %w", store, err)
	}
	s.log.Warn("store reset: the old one is archived, not deleted; the store starts empty", "store", store,
		"code", r.Code, "archived", r.Archived.Dir, "record", r.Record.String())
	if err := open(); err != nil {
		return refused(store, err)
	}
	// The audit entry goes in at once (the ledger opens first), so that a
	// start failing later does not lose it.
	body, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, _, err := led().Append(ctx, ledger.Record{Kind: KindStoreReset, Body: body, At: s.now()}); err != nil {
		return failWrap(CodeStoreFailed, err, "the audit entry of the %s reset", store)
	}
	return nil
}

// ledger builds and starts the ledger of lcfg, with its record beside it
// and the node as its owner. It returns the ledger whenever it started,
// even with an error, so that the node closes it.
func (s storeOpener) ledger(ctx context.Context, lcfg ledger.Config) (led *ledger.Ledger, err error) {
	err = s.open(ctx, StoreLedger, lcfg.Dir, func() error {
		l, err := ledger.New(lcfg)
		if err != nil {
			return err
		}
		if err := l.Start(ctx); err != nil {
			return err
		}
		led = l
		return nil
	}, func() *ledger.Ledger { return led })
	return led, err
}

// approvals opens the approval store of dataDir with its record beside it
// and the node as its owner, its audit entry of a reset going to led. It
// returns the store whenever it opened, even with an error.
func (s storeOpener) approvals(ctx context.Context, dataDir string, led *ledger.Ledger) (st *gate.Store, err error) {
	dir := approvalsDir(dataDir)
	err = s.open(ctx, StoreApprovals, dir, func() error {
		as, err := gate.OpenStore(dir, s.logger, gate.WithRecord(storeguard.RecordFile(dir), s.owner, s.now))
		if err != nil {
			return err
		}
		st = as
		return nil
	}, func() *ledger.Ledger { return led })
	return st, err
}
