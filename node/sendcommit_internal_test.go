package node

import (
	"context"
	"crypto/rand"
	"errors"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// noPut is an outbox store whose Put always fails: the transport's own
// write of an item never happens (as if the node stopped right after its
// step's commit). Everything else is the node's store.
type noPut struct {
	p2p.OutboxStore
	puts *atomic.Int64
}

func (s noPut) Put(context.Context, p2p.OutboxItem) error {
	s.puts.Add(1)
	return errors.New("no outbox write after the step")
}

// spoilingHost is the sender's transport with its outbox items spoiled
// on demand (a queue time the ledger refuses: the step's batch then fails
// on an outbox record), counting what is handed to the queues.
type spoilingHost struct {
	outbox
	spoil  atomic.Bool
	queued atomic.Int64
}

func (h *spoilingHost) Outgoing(env *negotiation.Envelope) ([]p2p.OutboxItem, error) {
	items, err := h.outbox.Outgoing(env)
	if err == nil && h.spoil.Load() {
		for i := range items {
			items[i].Queued = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
	}
	return items, err
}

func (h *spoilingHost) Queued(env *negotiation.Envelope, items []p2p.OutboxItem) {
	h.queued.Add(int64(len(items)))
	h.outbox.Queued(env, items)
}

// sendCommitNode starts a node in dir (keys created on first use) whose
// transport's outbox Put fails, and returns it with a stranger's
// proposal to it already taken, the stranger's address and the
// negotiation.
func sendCommitNode(t *testing.T, dir string, puts *atomic.Int64, deliver bool) (*Node, negotiation.Address, string) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.DataDir = dir
	cfg.P2P.Listen, cfg.P2P.DHT = []string{"/ip4/127.0.0.1/tcp/0"}, false
	cfg.Chain.ChainID = 1337
	cfg.Chain.Contracts.TaskRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	n, err := New(cfg, WithPassphrase(internalPass), WithGate(AutoApprove("test")),
		WithP2PTuning(func(c *p2p.Config) { c.Outbox = noPut{c.Outbox, puts} }))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	if !deliver {
		return n, negotiation.Address{}, ""
	}
	pk, err := identity.Create(lightKeyConfig(t.TempDir()), internalPass, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var r [16]byte
	_, _ = rand.Read(r[:])
	nid := negotiation.NewNegotiationID(r)
	var pub negotiation.PublicKey
	copy(pub[:], pk.Inbox().PublicKey())
	stranger := negotiation.Address(pk.EVM().Address())
	h := negotiation.Header{NegotiationID: nid, Sequence: 1, PreviousHash: negotiation.ZeroHash, Timestamp: time.Now(),
		Sender:     negotiation.Sender{EVMAddress: stranger, XMTPPublicKey: pub},
		Recipients: []negotiation.Address{n.Address()}}
	proposal, err := negotiation.Build(h, &negotiation.TaskProposal{Terms: negotiation.Terms{
		Title: "Proofread", ChainID: negotiation.U64(1337), Registry: negotiation.Address(cfg.Chain.Contracts.TaskRegistry),
		Milestones: []negotiation.Milestone{{Amount: negotiation.NewUint256(big.NewInt(1000)), Description: "all"}},
		Deadline:   uint64(time.Now().Add(24 * time.Hour).Unix()), Nonce: negotiation.U64(7),
	}}, pk.Inbox(), negotiation.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if code := n.HandleEnvelope(t.Context(), p2p.Delivery{Envelope: proposal, Sender: pk.Link(), From: pk.Inbox().PeerID()}); code != "ok" {
		t.Fatalf("the stranger's proposal: %s", code)
	}
	return n, stranger, nid
}

// sentAndQueued returns the seqs of the envelope.sent entries of nid and
// of its outbox.queued entries.
func sentAndQueued(t *testing.T, l *ledger.Ledger, nid string) (sent, queued []ledger.Entry) {
	t.Helper()
	for e, err := range l.ByNegotiation(t.Context(), nid) {
		if err != nil {
			t.Fatal(err)
		}
		switch e.Kind {
		case ledger.KindEnvelopeSent:
			sent = append(sent, e)
		case ledger.KindOutboxQueued:
			queued = append(queued, e)
		}
	}
	return sent, queued
}

// TestSendStoresItsOutboxItemInItsStep: a send's outbox item is written in
// the batch of the step that records the envelope, not by the transport's
// Put afterwards. With a store whose Put always fails (the node stopped
// between two writes, had there been two), the acceptance is still
// recorded with its outbox item, in the same commit (consecutive entries,
// one transaction: the item's entry is the batch's last), and after a
// restart the outbox holds the item (Pending, and the transport's queue)
// and the ledger the entry.
func TestSendStoresItsOutboxItemInItsStep(t *testing.T) {
	dir := t.TempDir()
	if _, err := identity.Create(lightKeyConfig(dir), internalPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	var puts atomic.Int64
	n, stranger, nid := sendCommitNode(t, dir, &puts, true)
	res, err := n.Accept(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	if puts.Load() != 0 {
		t.Fatalf("the send called the outbox's Put %d times: its item is not in its step", puts.Load())
	}
	sent, queued := sentAndQueued(t, n.Ledger(), nid)
	if len(sent) != 1 || len(queued) != 1 || sent[0].CID.String() != res.Envelope.CID {
		t.Fatalf("%d envelope.sent and %d outbox.queued entries after the acceptance, want one each", len(sent), len(queued))
	}
	if queued[0].Seq <= sent[0].Seq || queued[0].Seq > sent[0].Seq+2 {
		t.Fatalf("outbox.queued at %d, envelope.sent at %d: not the same step", queued[0].Seq, sent[0].Seq)
	}
	if got := n.host.OutboxLen(); got != 1 {
		t.Fatalf("the transport's queue holds %d items, want the acceptance", got)
	}

	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n, _, _ = sendCommitNode(t, dir, &puts, false)
	items, err := NewOutboxStore(n.Ledger()).Pending(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].CID.String() != res.Envelope.CID || items[0].To != stranger {
		t.Fatalf("after a restart the outbox holds %+v, want the acceptance to %s", items, stranger)
	}
	if e, err := n.Ledger().ByCID(t.Context(), items[0].CID); err != nil || e.Kind != ledger.KindEnvelopeSent {
		t.Fatalf("after a restart the acceptance's entry: %+v, %v", e, err)
	}
	if got := n.host.OutboxLen(); got != 1 {
		t.Fatalf("after a restart the transport's queue holds %d items, want the acceptance", got)
	}
	if puts.Load() != 0 {
		t.Fatalf("the restart put %d items again", puts.Load())
	}
}

// TestFailedSendStepStoresNeither: when the step's batch fails on its
// outbox record (the ledger refuses the item's time), neither the
// envelope.sent entry nor the outbox item is stored, nothing is queued
// and the thread is as it was; the same act then stores both.
func TestFailedSendStepStoresNeither(t *testing.T) {
	dir := t.TempDir()
	if _, err := identity.Create(lightKeyConfig(dir), internalPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	var puts atomic.Int64
	n, _, nid := sendCommitNode(t, dir, &puts, true)
	spy := &spoilingHost{outbox: n.snd.host}
	n.snd.host = spy
	before, err := n.Thread(nid)
	if err != nil {
		t.Fatal(err)
	}
	head := n.Ledger().Head()
	spy.spoil.Store(true)
	_, err = n.Accept(t.Context(), nid)
	var berr *ledger.BatchError
	if CodeOf(err) != CodeStoreFailed || !errors.As(err, &berr) {
		t.Fatalf("an acceptance whose outbox record is refused: %v, want %s from the batch", err, CodeStoreFailed)
	}
	if sent, queued := sentAndQueued(t, n.Ledger(), nid); len(sent) != 0 || len(queued) != 0 {
		t.Fatalf("the failed step stored %d envelope.sent and %d outbox.queued entries", len(sent), len(queued))
	}
	if spy.queued.Load() != 0 || n.host.OutboxLen() != 0 {
		t.Fatalf("the failed step queued %d items (transport: %d)", spy.queued.Load(), n.host.OutboxLen())
	}
	if after, _ := n.Thread(nid); after.State != before.State {
		t.Fatalf("the failed step moved the thread from %s to %s", before.State, after.State)
	}
	for e, err := range n.Ledger().Entries(t.Context(), head.Seq+1) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == ledger.KindEnvelopeSent || e.Kind == ledger.KindOutboxQueued {
			t.Fatalf("the failed step wrote entry %d (%s)", e.Seq, e.Kind)
		}
	}

	spy.spoil.Store(false)
	if _, err := n.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	if sent, queued := sentAndQueued(t, n.Ledger(), nid); len(sent) != 1 || len(queued) != 1 {
		t.Fatalf("the acceptance stored %d envelope.sent and %d outbox.queued entries, want one each", len(sent), len(queued))
	}
	if spy.queued.Load() != 1 || n.host.OutboxLen() != 1 {
		t.Fatalf("the acceptance queued %d items (transport: %d), want 1", spy.queued.Load(), n.host.OutboxLen())
	}
}
