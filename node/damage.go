package node

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/ledger"
)

// CodeLedgerDamaged is the code of an act or an export refused because it
// rests on a damaged ledger entry (docs/ledger.md, "What rests on a
// damaged entry").
const CodeLedgerDamaged Code = "ledger_damaged"

// ErrLedgerDamaged matches an act or an export refused because it rests
// on a damaged ledger entry.
var ErrLedgerDamaged = &Error{Code: CodeLedgerDamaged}

// maxDamage bounds the damage the node keeps; past it, every act that
// signs or moves money and every export is refused (the node no longer
// knows which negotiations are intact).
const maxDamage = 1000

// ledgerCheck is what the node knows of its ledger's integrity: how far
// the full verification has come, the damage it, or any read, found, and
// the negotiations kept out at start because of it. It owns its state
// and its lock (a leaf); the ledger it checks is passed to the methods
// that read it.
type ledgerCheck struct {
	verifiedGauge prometheus.Gauge       // the ledgerVerified metric
	damageCount   *prometheus.CounterVec // the ledgerDamage metric, by code
	log           *slog.Logger           // set at Start, before the ledger opens

	mu       sync.Mutex
	target   uint64
	verified uint64
	complete bool
	err      string
	damage   []ledger.Damage
	overflow bool
	seen     map[damageKey]bool
	// keptOut are the negotiations whose thread could not be rebuilt
	// at start because the ledger's record of it is damaged.
	keptOut map[string]string // the damage that kept each out
}

func newLedgerCheck(m *metrics) *ledgerCheck {
	return &ledgerCheck{verifiedGauge: m.ledgerVerified, damageCount: m.ledgerDamage, log: slog.New(slog.DiscardHandler),
		seen: map[damageKey]bool{}, keptOut: map[string]string{}}
}

type damageKey struct {
	seq    uint64
	object bool
}

// LedgerCheck is the state of the node's full verification of its
// ledger, which runs in the background after every start (throttled), and
// the damage found by it or by any read of a damaged entry or object.
type LedgerCheck struct {
	// VerifiedTo is the last entry the full verification has checked:
	// every entry from 1 to here was read and verified since the start.
	VerifiedTo uint64 `json:"verifiedTo"`
	// Target is the head when the verification began (entries after it
	// were appended by this run).
	Target uint64 `json:"target"`
	// Complete reports whether the verification has reached Target.
	Complete bool `json:"complete"`
	// Error says why the verification stopped early, if it did.
	Error string `json:"error,omitempty"`
	// Damage lists the damaged entries and objects found, in the order
	// they were found (at most a thousand): seq, code, negotiation.
	Damage []ledger.Damage `json:"damage"`
}

// noteDamage records damage found in the ledger (the ledger's OnDamage):
// an error log line, the metric, and the status; acts and exports that
// rest on it are refused from now on.
func (c *ledgerCheck) note(d ledger.Damage) {
	c.mu.Lock()
	k := damageKey{d.Seq, d.Object}
	if c.seen[k] {
		c.mu.Unlock()
		return
	}
	c.seen[k] = true
	if len(c.damage) < maxDamage {
		c.damage = append(c.damage, d)
	} else {
		c.overflow = true
	}
	c.mu.Unlock()
	c.damageCount.WithLabelValues(string(d.Code)).Inc()
	c.log.Error("ledger damage: acts and exports that rest on this entry are refused", "seq", d.Seq, "code", d.Code,
		"negotiation", d.NegotiationID, "object", d.Object, "detail", d.Msg)
}

// run runs the full verification of led in the background (ledger.Scan,
// a quarter of the time at most), on a goroutine the node owns; Close
// stops it.
func (c *ledgerCheck) run(ctx context.Context, led *ledger.Ledger) {
	head := led.Head()
	c.mu.Lock()
	c.target = head.Seq
	c.mu.Unlock()
	rep, err := led.Scan(ctx, ledger.ScanConfig{Progress: func(seq uint64) {
		c.mu.Lock()
		c.verified = seq
		c.mu.Unlock()
		c.verifiedGauge.Set(float64(seq))
	}})
	if ctx.Err() != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.err = err.Error()
		c.log.Error("ledger check stopped", "verifiedToto", c.verified, "err", err)
		return
	}
	c.complete, c.verified = true, rep.Head.Seq
	c.verifiedGauge.Set(float64(rep.Head.Seq))
	if rep.Count > 0 {
		c.log.Error("ledger check complete: the ledger is damaged", "entries", rep.Head.Seq, "damaged", rep.Count)
	} else {
		c.log.Info("ledger check complete: every entry verifies", "entries", rep.Head.Seq)
	}
}

// view returns the check's state for the status.
func (c *ledgerCheck) view() LedgerCheck {
	c.mu.Lock()
	defer c.mu.Unlock()
	return LedgerCheck{VerifiedTo: c.verified, Target: c.target, Complete: c.complete, Error: c.err,
		Damage: append([]ledger.Damage{}, c.damage...)}
}

// restsOn returns a CodeLedgerDamaged error when an act that signs
// or moves money for negotiation nid rests on a damaged entry: an entry of
// nid, an object one of them names, or an entry of no negotiation (or of
// one that cannot be told: the principal's cards and the node's own
// records are among them). With verify it first checks nid's own entries
// and objects in led (ledger.VerifyNegotiation), so an act never waits
// for the full verification to reach them.
func (c *ledgerCheck) restsOn(ctx context.Context, led *ledger.Ledger, nid string, verify bool) error {
	if verify && led != nil {
		if _, err := led.VerifyNegotiation(ctx, nid); err != nil {
			return failWrap(CodeStoreFailed, err, "checking negotiation %s in the ledger", nid)
		}
	}
	return c.damageFor(nid, 0)
}

// damageFor returns a CodeLedgerDamaged error for the first known damage
// that nid rests on: its own entries and objects, entries of no known
// negotiation, and, when from > 0, every entry from seq from on (the chain
// a proof bundle of nid carries).
func (c *ledgerCheck) damageFor(nid string, from uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.overflow {
		return fail(CodeLedgerDamaged, "the ledger holds more than %d damaged entries: nothing that rests on it is signed or exported", maxDamage)
	}
	for _, d := range c.damage {
		switch {
		case d.NegotiationID == nid:
		case d.NegotiationID == "" && !d.Object:
		case from > 0 && !d.Object && d.Seq >= from:
		default:
			continue
		}
		what := "entry"
		if d.Object {
			what = "the object of entry"
		}
		return fail(CodeLedgerDamaged, "negotiation %s rests on %s %d of the ledger, which is damaged (%s: %s); restore the ledger from a backup",
			nid, what, d.Seq, d.Code, d.Msg)
	}
	return nil
}

// Export writes the version-2 proof bundle of negotiation nid to w
// (ledger.ExportV2 against the node's latest signed tree head, signing a
// new one when the ledger grew since; treeHeads.export) and returns that
// head. The bundle carries the negotiation's entries and objects only, so
// it rests on those and on the entries of no negotiation (the node's own
// records, its tree heads among them): it refuses with CodeLedgerDamaged,
// before writing anything, a bundle that rests on damage the node knows
// of, and fails with CodeLedgerDamaged when the export itself reads a
// damaged entry or object or a proof that does not hold (the bundle is
// then never completed). A negotiation the ledger does not hold is
// ledger.ErrNotFound.
func (n *Node) Export(ctx context.Context, nid string, w io.Writer) (ledger.TreeHead, error) {
	if err := n.running(); err != nil {
		return ledger.TreeHead{}, err
	}
	if err := n.check.damageFor(nid, 0); err != nil {
		return ledger.TreeHead{}, err
	}
	head, err := n.heads.export(ctx, nid, w)
	var ve *ledger.VerifyError
	if errors.As(err, &ve) {
		return head, failWrap(CodeLedgerDamaged, err, "the proof bundle of %s", nid)
	}
	return head, err
}

// quarantine keeps negotiation nid out of the node when err says its
// thread cannot be rebuilt from the ledger because an entry or object of
// it is damaged (the damage was reported when it was read): the node runs
// without the thread, acts on it are refused with CodeLedgerDamaged, and
// its peers' envelopes are answered missing_reference, so that they retry
// (and nothing is lost) until the ledger is restored. It returns false for
// any other error.
func (c *ledgerCheck) quarantine(nid string, err error) bool {
	var ve *ledger.VerifyError
	if !errors.As(err, &ve) {
		return false
	}
	c.mu.Lock()
	c.keptOut[nid] = err.Error()
	c.mu.Unlock()
	c.log.Error("negotiation not loaded: its record in the ledger is damaged; restore the ledger from a backup", "negotiation", nid, "err", err)
	return true
}

// quarantined reports whether negotiation nid was kept out at start.
func (c *ledgerCheck) quarantined(nid string) bool { return c.quarantineErr(nid) != nil }

// quarantineErr returns the CodeLedgerDamaged refusal of an act on a
// negotiation kept out at start, or nil.
func (c *ledgerCheck) quarantineErr(nid string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	why, ok := c.keptOut[nid]
	if !ok {
		return nil
	}
	return fail(CodeLedgerDamaged, "negotiation %s was not loaded at start: its record in the ledger is damaged (%s); restore the ledger from a backup", nid, why)
}

// unknownErr is the engine's error for a negotiation it does not hold
// (engine.Config.Unknown): the quarantine's when the ledger's record of
// it is damaged, else unknown_negotiation.
func (c *ledgerCheck) unknownErr(nid string) error {
	if err := c.quarantineErr(nid); err != nil {
		return err
	}
	return fail(CodeUnknownNegotiation, "no negotiation %s", nid)
}
