package engine

import (
	"context"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// Batch is the ledger records of one step of a thread, gathered as
// go-ethereum's ethdb.Batch gathers its puts, and the effects in memory
// that follow from them. Engine.Write appends the records in one
// ledger.AppendAll, in the order they were put, and only then runs the
// effects, in the same order: a batch that fails leaves the thread's
// record of what it wrote (opened, links, recorded state, card sealed)
// as it was. The zero Batch is empty and ready.
type Batch struct {
	records []ledger.Record
	effects []func()
	err     error // the first record that could not be built
}

// Put adds r, and effect (nil for none) to run once the batch is written.
func (b *Batch) Put(r ledger.Record, effect func()) {
	b.records = append(b.records, r)
	if effect != nil {
		b.effects = append(b.effects, effect)
	}
}

// PutEnvelope adds the record of an authentic envelope
// (ledger.EnvelopeRecord) and after (nil for none) to run once the batch
// is written.
func (b *Batch) PutEnvelope(kind string, env *negotiation.Envelope, effect negotiation.Code, at time.Time, after func()) {
	r, err := ledger.EnvelopeRecord(kind, env, effect, at)
	if err != nil {
		b.Fail(err)
		return
	}
	b.Put(r, after)
}

// Fail records that a record could not be built: Write then writes
// nothing and returns err.
func (b *Batch) Fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Records returns the records put so far, in order (tests look at them).
func (b *Batch) Records() []ledger.Record { return b.records }

// Write appends b's records in one synced transaction (ledger.AppendAll)
// and then runs b's effects (the lock held of the thread they touch). It
// returns the error of the first record that could not be built or of the
// append; then no record was written and no effect ran.
func (e *Engine) Write(ctx context.Context, b *Batch) error {
	if b.err != nil {
		return b.err
	}
	if e.led == nil {
		return ErrNoLedger
	}
	if _, err := e.led.AppendAll(ctx, b.records...); err != nil {
		return err
	}
	for _, f := range b.effects {
		f()
	}
	return nil
}
