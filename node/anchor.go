package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// Signed tree heads and their anchors on chain. The ledger keeps an RFC
// 6962 Merkle tree over its entries; the node signs the tree's head
// {size, root, time} with its inbox key, naming its identity link, and
// records it (a tree.head entry) every ledger.head_every when the ledger
// grew and on demand. It anchors a signed head on chain through
// LedgerAnchor.anchor(root, size), sent from its EVM key (the address its
// identity link binds), every ledger.anchor_every, when a dispute opens
// and on demand, and records each anchor after its receipt (a tree.anchor
// entry). An anchor is not a gated act (it moves no escrow) but it spends
// gas: it runs only within ledger.anchor_gas_per_day, counted per UTC day
// from the tree.anchor entries of the day and their receipts, so a restart
// does not reset the day's spend.

// Reasons an anchor is sent, in logs and events (Event.Detail).
const (
	anchorInterval = "interval"
	anchorDispute  = "dispute"
	anchorDemand   = "demand"
)

// anchorGasFallback is charged for an anchor of the day whose receipt the
// chain no longer gives (an anchor uses about 29,000 gas, the first
// about 46,000): the day's spend is never under-counted.
const anchorGasFallback = 60_000

// treeHeads is the node's service of signed tree heads and anchors: it
// serialises signing and anchoring and holds the day's gas spend (a leaf:
// its lock guards only its own fields).
type treeHeads struct {
	cfg    LedgerConfig
	now    func() time.Time
	events *broadcaster
	log    *slog.Logger
	wake   chan struct{} // a dispute opened: anchor soon

	// Set at Start (open).
	led    *ledger.Ledger
	inbox  *identity.InboxKey
	link   func() *identity.Link
	client *chain.Client // nil without a chain
	// send sends an anchor and waits for its receipt (client.Anchor).
	send func(ctx context.Context, root [32]byte, size uint64) (*types.Receipt, error)

	// anchorMu is held across one anchor, its transaction's wait
	// included, so anchors and their budget checks never overlap; it is
	// taken before mu.
	anchorMu sync.Mutex
	// mu is held across one signing, and across an anchor's steps before
	// and after its transaction, never across the wait for its receipt:
	// signing for the API and p2p answers does not wait for a block (a
	// bundle's export does, under anchorMu: export).
	mu    sync.Mutex
	quiet map[uint64]uint64 // size -> the last entry after it read and found bookkeeping only (grewSince)
	day   string            // the UTC day spent counts, "" before the first count
	spent uint64            // gas the anchors of day used
}

func newTreeHeads(cfg LedgerConfig, now func() time.Time, events *broadcaster) *treeHeads {
	return &treeHeads{cfg: cfg, now: now, events: events, log: slog.New(slog.DiscardHandler), wake: make(chan struct{}, 1)}
}

// open gives the service what the node has only once it started.
func (a *treeHeads) open(led *ledger.Ledger, inbox *identity.InboxKey, link func() *identity.Link, client *chain.Client, log *slog.Logger) {
	a.led, a.inbox, a.link, a.client, a.log = led, inbox, link, client, log
	if client != nil && a.send == nil {
		a.send = client.Anchor
	}
}

// disputeOpened asks for an anchor soon; it never blocks (a wake-up
// already pending absorbs this one).
func (a *treeHeads) disputeOpened() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// treeKind reports whether kind is one of the entries signing and
// anchoring write themselves, or the chain watcher's cursor (which an
// anchor's own Anchored event moves): a ledger that grew by these only has
// nothing new to sign or anchor, so an idle node anchors nothing.
func treeKind(kind string) bool {
	return kind == ledger.KindTreeHead || kind == ledger.KindTreeAnchor || kind == KindChainCursor
}

// grewSince reports whether the ledger holds an entry after size that is
// not a tree head, an anchor or a chain cursor.
// The entries after a size that were read and found bookkeeping only are
// remembered (quiet), so that asking again (every API call and peer
// request that wants the latest head) reads only what was added since, not
// everything since the head (a.mu held).
func (a *treeHeads) grewSince(ctx context.Context, size uint64) (bool, error) {
	from := size + 1
	if q, ok := a.quiet[size]; ok {
		from = q + 1
	}
	last := size
	for e, err := range a.led.Entries(ctx, from) {
		if err != nil {
			return false, err
		}
		if !treeKind(e.Kind) {
			return true, nil
		}
		last = e.Seq
	}
	if a.quiet == nil || len(a.quiet) >= 8 {
		a.quiet = map[uint64]uint64{} // the sizes asked about: the last head's and the last anchor's
	}
	a.quiet[size] = max(last, a.quiet[size])
	return false, nil
}

// current returns the node's latest signed tree head, signing and
// recording a new one of the ledger's whole tree first when the ledger
// grew since (a.mu held). A ledger that holds nothing yet has no head
// (CodeStateForbidden).
func (a *treeHeads) current(ctx context.Context) (ledger.TreeHead, ledger.Entry, error) {
	last, le, err := a.led.LatestTreeHead(ctx)
	switch {
	case errors.Is(err, ledger.ErrNotFound):
	case err != nil:
		return last, le, failWrap(CodeStoreFailed, err, "latest tree head")
	default:
		grew, err := a.grewSince(ctx, last.Size)
		if err != nil {
			return last, le, failWrap(CodeStoreFailed, err, "ledger entries")
		}
		if !grew {
			return last, le, nil
		}
	}
	return a.sign(ctx)
}

// sign signs the tree head of the ledger's current size with the inbox
// key and records it (a.mu held).
func (a *treeHeads) sign(ctx context.Context) (ledger.TreeHead, ledger.Entry, error) {
	size := a.led.Head().Seq
	if size == 0 {
		return ledger.TreeHead{}, ledger.Entry{}, fail(CodeStateForbidden, "the ledger holds no entry yet: no tree head to sign")
	}
	root, err := a.led.TreeHead(size)
	if err != nil {
		return ledger.TreeHead{}, ledger.Entry{}, failWrap(CodeStoreFailed, err, "tree root at %d", size)
	}
	h := ledger.TreeHead{Size: size, Root: root, Time: a.now().UTC().Truncate(time.Millisecond), Signer: negotiation.Hash(a.link().Hash())}
	h.Signature = a.inbox.Sign(h.SigningBytes())
	e, err := a.led.RecordTreeHead(ctx, h)
	if err != nil {
		return h, e, failWrap(CodeStoreFailed, err, "recording the tree head")
	}
	a.log.Debug("tree head signed", "size", h.Size, "root", negotiation.Hash(h.Root), "seq", e.Seq)
	return h, e, nil
}

// Head returns the latest signed head, signing one first when the
// ledger grew since (the on-demand path: API, export, audit answers).
func (a *treeHeads) Head(ctx context.Context) (ledger.TreeHead, ledger.Entry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.current(ctx)
}

// bundleHead returns the head a version-2 bundle is proved against and
// the bytes of the identity link that names it: the latest signed head
// (Head), or a new one when the node's link was re-issued since it was
// signed, so that the link the bundle carries is the one the head names.
func (a *treeHeads) bundleHead(ctx context.Context) (ledger.TreeHead, []byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	link := a.link()
	if link == nil {
		return ledger.TreeHead{}, nil, fail(CodeBadConfig, "no identity link to name the tree head")
	}
	h, _, err := a.current(ctx)
	if err == nil && h.Signer != negotiation.Hash(link.Hash()) {
		h, _, err = a.sign(ctx)
	}
	if err != nil {
		return ledger.TreeHead{}, nil, err
	}
	return h, link.Bytes(), nil
}

// export writes the version-2 proof bundle of negotiation nid to w
// (ledger.ExportV2): the negotiation's entries only, each with its
// inclusion proof against the head bundleHead gives, and the signer's
// identity link. Every bundle the node makes goes through here: the
// arbitrator's and the supervisor's hand-over, a replacement's hand-over
// package and the API's export.
// A negotiation the ledger holds no entry of is ledger.ErrNotFound, and
// no head is signed for it.
func (a *treeHeads) export(ctx context.Context, nid string, w io.Writer) (ledger.TreeHead, error) {
	held := false
	for _, err := range a.led.ByNegotiation(ctx, nid) {
		if err != nil {
			return ledger.TreeHead{}, err
		}
		held = true
		break
	}
	if !held {
		return ledger.TreeHead{}, fmt.Errorf("negotiation %s: %w", nid, ledger.ErrNotFound)
	}
	// An anchor in flight is waited for: its head is signed before its
	// transaction and recorded after its receipt, so a bundle exported in
	// between would not prove the signer's newest anchor on chain (which a
	// verifier with the chain reports as rewritten_after_anchor).
	a.anchorMu.Lock()
	defer a.anchorMu.Unlock()
	head, link, err := a.bundleHead(ctx)
	if err != nil {
		return head, err
	}
	return head, a.led.ExportV2(ctx, nid, head, link, w)
}

// ExportBundle writes the version-2 proof bundle of negotiation nid of
// led, a ledger opened read-write with no node running on it (parley
// ledger export), as the node would (treeHeads.export): against the
// ledger's latest signed tree head, or a new one signed with inbox,
// naming link, and recorded, when the ledger grew since or link is not
// the one the head names. It returns the head.
func ExportBundle(ctx context.Context, led *ledger.Ledger, inbox *identity.InboxKey, link *identity.Link, nid string, w io.Writer) (ledger.TreeHead, error) {
	a := newTreeHeads(LedgerConfig{}, time.Now, nil)
	a.open(led, inbox, func() *identity.Link { return link }, nil, slog.New(slog.DiscardHandler))
	return a.export(ctx, nid, w)
}

// signIfGrew signs a head when the ledger grew since the last one (the
// head_every tick).
func (a *treeHeads) signIfGrew(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.led.Head().Seq == 0 {
		return
	}
	if _, _, err := a.current(ctx); err != nil && ctx.Err() == nil {
		a.log.Warn("tree head not signed", "err", err)
	}
}

// utcDay names t's UTC day.
func utcDay(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// spentToday returns the gas the anchors of the current UTC day used,
// counted from the ledger's tree.anchor entries of the day and their
// receipts when the day changed (or at the first anchor after a start),
// so a restart does not reset it (a.mu held).
func (a *treeHeads) spentToday(ctx context.Context, now time.Time) (uint64, error) {
	day := utcDay(now)
	if a.day == day {
		return a.spent, nil
	}
	var spent uint64
	for e, err := range a.led.ByKind(ctx, ledger.KindTreeAnchor) {
		if err != nil {
			return 0, failWrap(CodeStoreFailed, err, "tree anchors")
		}
		if utcDay(e.At) != day {
			continue
		}
		ta, err := ledger.ParseTreeAnchor(e.Body)
		if err != nil {
			return 0, failWrap(CodeStoreFailed, err, "tree anchor %d", e.Seq)
		}
		gas := uint64(anchorGasFallback)
		if r, err := a.client.Backend().TransactionReceipt(ctx, common.Hash(ta.TxHash)); err == nil && r != nil {
			gas = r.GasUsed
		}
		spent += gas
	}
	a.day, a.spent = day, spent
	return spent, nil
}

// Budget is the state of the anchors' daily gas budget.
type Budget struct {
	// Day is the UTC day (YYYY-MM-DD) Spent counts.
	Day string `json:"day"`
	// Spent is the gas the day's anchors used; Limit is
	// ledger.anchor_gas_per_day.
	Spent uint64 `json:"spent"`
	Limit uint64 `json:"limit"`
}

// budget returns the day's budget state.
func (a *treeHeads) budget(ctx context.Context) (Budget, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	b := Budget{Day: utcDay(now), Limit: a.cfg.AnchorGasPerDay}
	if a.client == nil {
		return b, nil
	}
	spent, err := a.spentToday(ctx, now)
	b.Spent = spent
	return b, err
}

// anchor anchors the node's current signed tree head on chain and records
// the anchor once its receipt arrived. It refuses without a chain
// (CodeNoChain), when nothing was added since the last anchor
// (CodeAnchorUnchanged) and when the anchor would take the day's spend
// over ledger.anchor_gas_per_day (CodeAnchorBudget, with the wait until
// the next UTC day); every outcome but unchanged is published as an
// EventAnchor with its code.
func (a *treeHeads) anchor(ctx context.Context, reason string) (ledger.TreeAnchor, ledger.Entry, error) {
	a.anchorMu.Lock()
	defer a.anchorMu.Unlock()
	ta, e, spent, err := a.anchorOnce(ctx)
	switch code := CodeOf(err); {
	case err == nil:
		a.events.publish(Event{Kind: EventAnchor, Code: "ok", Detail: reason, Hash: ta.TxHash.String(), At: a.now()})
		a.log.Info("tree head anchored", "reason", reason, "size", ta.Size, "tx", ta.TxHash, "block", ta.BlockNumber, "gas_today", spent)
	case code == CodeAnchorUnchanged:
		a.log.Debug("nothing new to anchor", "reason", reason)
	default:
		a.events.publish(Event{Kind: EventAnchor, Code: string(code), Detail: reason, At: a.now()})
		a.log.Warn("tree head not anchored", "reason", reason, "code", code, "err", err)
	}
	return ta, e, err
}

// anchorOnce is one anchor (a.anchorMu held): its checks and the head
// under a.mu, the transaction and the wait for its receipt without it,
// the spend and the record under a.mu again. It returns the day's spend.
func (a *treeHeads) anchorOnce(ctx context.Context) (ledger.TreeAnchor, ledger.Entry, uint64, error) {
	a.mu.Lock()
	head, err := a.anchorable(ctx)
	a.mu.Unlock()
	if err != nil {
		return ledger.TreeAnchor{}, ledger.Entry{}, 0, err
	}
	r, err := a.send(ctx, head.Root, head.Size)
	a.mu.Lock()
	defer a.mu.Unlock()
	if r != nil {
		a.spent += r.GasUsed // a mined transaction spent its gas, whatever its outcome
	}
	if err != nil {
		return ledger.TreeAnchor{}, ledger.Entry{}, a.spent, chainErr("anchoring the tree head", err)
	}
	chainID, err := a.client.ChainID(ctx)
	if err != nil {
		return ledger.TreeAnchor{}, ledger.Entry{}, a.spent, chainErr("chain id", err)
	}
	ta := ledger.TreeAnchor{
		Size: head.Size, Root: head.Root, ChainID: chainID.Uint64(),
		Contract: negotiation.Address(a.client.Contracts().LedgerAnchor), Address: negotiation.Address(a.client.Address()),
		TxHash: negotiation.Hash(r.TxHash), BlockNumber: r.BlockNumber.Uint64(),
	}
	e, err := a.led.RecordTreeAnchor(ctx, ta)
	if err != nil {
		return ta, e, a.spent, failWrap(CodeStoreFailed, err, "recording the anchor of tx %s", r.TxHash)
	}
	return ta, e, a.spent, nil
}

// anchorable returns the signed head to anchor (a.mu held): it records
// anchors the ledger lacks, refuses without a chain, when nothing is new
// and when the anchor would take the day over its budget.
func (a *treeHeads) anchorable(ctx context.Context) (ledger.TreeHead, error) {
	if a.client == nil {
		return ledger.TreeHead{}, fail(CodeNoChain, "anchoring needs a chain")
	}
	if err := a.recover(ctx); err != nil {
		return ledger.TreeHead{}, err
	}
	last, _, err := a.led.LatestTreeAnchor(ctx, math.MaxUint64)
	anchored := err == nil
	if err != nil && !errors.Is(err, ledger.ErrNotFound) {
		return ledger.TreeHead{}, failWrap(CodeStoreFailed, err, "latest tree anchor")
	}
	if anchored {
		grew, err := a.grewSince(ctx, last.Size)
		if err != nil {
			return ledger.TreeHead{}, failWrap(CodeStoreFailed, err, "ledger entries")
		}
		if !grew {
			return ledger.TreeHead{}, fail(CodeAnchorUnchanged, "nothing was added to the ledger since the anchor of size %d", last.Size)
		}
	}
	head, _, err := a.current(ctx)
	if err != nil {
		return head, err
	}
	if anchored && head.Size <= last.Size {
		return ledger.TreeHead{}, fail(CodeAnchorUnchanged, "the tree head of size %d is not above the anchor of size %d", head.Size, last.Size)
	}
	now := a.now()
	spent, err := a.spentToday(ctx, now)
	if err != nil {
		return ledger.TreeHead{}, err
	}
	gas, err := a.client.EstimateAnchor(ctx, head.Root, head.Size)
	if err != nil {
		return ledger.TreeHead{}, chainErr("estimating the anchor", err)
	}
	if spent+gas > a.cfg.AnchorGasPerDay {
		midnight := now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		return ledger.TreeHead{}, &Error{Code: CodeAnchorBudget, Err: &retryAfter{after: midnight.Sub(now)}, Msg: fmt.Sprintf(
			"an anchor of about %d gas would take today's spend (%d) over ledger.anchor_gas_per_day (%d); nothing was sent", gas, spent, a.cfg.AnchorGasPerDay)}
	}
	return head, nil
}

// recover records the anchors of this node's address on chain that the
// ledger lacks (a stop between an anchor's receipt and its entry): when
// the chain's last anchored count is above the ledger's last anchor, each
// anchor above it whose root is this tree's at its size is recorded, and
// counts in the day's spend (a.mu held). One whose root the tree does not
// have is not this ledger's and is left (an audit reports it).
func (a *treeHeads) recover(ctx context.Context) error {
	onChain, err := a.client.LastAnchorCount(ctx, a.client.Address())
	if err != nil {
		return chainErr("last anchored count", err)
	}
	last, _, err := a.led.LatestTreeAnchor(ctx, math.MaxUint64)
	if err != nil && !errors.Is(err, ledger.ErrNotFound) {
		return failWrap(CodeStoreFailed, err, "latest tree anchor")
	}
	if onChain <= last.Size {
		return nil
	}
	evs, err := a.client.AnchorsOf(ctx, a.client.Address())
	if err != nil {
		return chainErr("anchors", err)
	}
	chainID, err := a.client.ChainID(ctx)
	if err != nil {
		return chainErr("chain id", err)
	}
	for _, ev := range evs {
		if ev.Size <= last.Size || ev.Size > a.led.Head().Seq {
			continue
		}
		if root, err := a.led.TreeHead(ev.Size); err != nil || root != ev.Root {
			a.log.Warn("an anchor of this node's address is not of its ledger", "size", ev.Size, "root", negotiation.Hash(ev.Root), "tx", ev.TxHash)
			continue
		}
		ta := ledger.TreeAnchor{
			Size: ev.Size, Root: ev.Root, ChainID: chainID.Uint64(),
			Contract: negotiation.Address(a.client.Contracts().LedgerAnchor), Address: negotiation.Address(ev.Node),
			TxHash: negotiation.Hash(ev.TxHash), BlockNumber: ev.Block,
		}
		if _, err := a.led.RecordTreeAnchor(ctx, ta); err != nil {
			return failWrap(CodeStoreFailed, err, "recording the anchor of tx %s", ev.TxHash)
		}
		a.day = "" // counted again with it
		a.log.Warn("an anchor on chain the ledger lacked was recorded", "size", ev.Size, "tx", ev.TxHash)
	}
	return nil
}

// run signs heads every head_every and anchors every anchor_every (each
// when the ledger grew) and when a dispute opened, until ctx ends.
func (a *treeHeads) run(ctx context.Context) {
	tick := func(d time.Duration) (<-chan time.Time, func()) {
		if d <= 0 {
			return nil, func() {}
		}
		t := time.NewTicker(d)
		return t.C, t.Stop
	}
	heads, stopHeads := tick(a.cfg.HeadEvery)
	defer stopHeads()
	var anchors <-chan time.Time
	stopAnchors := func() {}
	if a.client != nil {
		anchors, stopAnchors = tick(a.cfg.AnchorEvery)
	}
	defer stopAnchors()
	for {
		select {
		case <-ctx.Done():
			return
		case <-heads:
			a.signIfGrew(ctx)
		case <-anchors:
			_, _, _ = a.anchor(ctx, anchorInterval)
		case <-a.wake:
			if a.client != nil {
				_, _, _ = a.anchor(ctx, anchorDispute)
			}
		}
	}
}
