package node

import (
	"crypto/rand"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// TestStepIsOneBatch: the records of one step go into the ledger in one
// AppendAll, all or none, in a defined order. A stranger's proposal opens
// a thread: its step is thread.opened, the sender's identity.link, the
// envelope.received and the thread.state. When one of them is refused
// (here the envelope's record, changed after it was built), none is
// written and the thread's record of what it wrote (opened, links,
// recorded state) is as it was; the same delivery then records the four,
// consecutive and in that order. Accepting writes this node's
// identity.link, the envelope.sent and its outbox.queued the same way.
func TestStepIsOneBatch(t *testing.T) {
	dir := t.TempDir()
	if _, err := identity.Create(lightKeyConfig(dir), internalPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.DataDir = dir
	cfg.P2P.Listen, cfg.P2P.DHT = []string{"/ip4/127.0.0.1/tcp/0"}, false
	cfg.Chain.ChainID = 1337
	cfg.Chain.Contracts.TaskRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	n, err := New(cfg, WithPassphrase(internalPass), WithGate(AutoApprove("test")))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	ctx := t.Context()

	pk, err := identity.Create(lightKeyConfig(t.TempDir()), internalPass, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var r [16]byte
	_, _ = rand.Read(r[:])
	nid := negotiation.NewNegotiationID(r)
	var pub negotiation.PublicKey
	copy(pub[:], pk.Inbox().PublicKey())
	h := negotiation.Header{NegotiationID: nid, Sequence: 1, PreviousHash: negotiation.ZeroHash, Timestamp: time.Now(),
		Sender:     negotiation.Sender{EVMAddress: negotiation.Address(pk.EVM().Address()), XMTPPublicKey: pub},
		Recipients: []negotiation.Address{n.Address()}}
	proposal, err := negotiation.Build(h, &negotiation.TaskProposal{Terms: negotiation.Terms{
		Title: "Proofread", ChainID: negotiation.U64(1337), Registry: negotiation.Address(cfg.Chain.Contracts.TaskRegistry),
		Milestones: []negotiation.Milestone{{Amount: negotiation.NewUint256(big.NewInt(1000)), Description: "all"}},
		Deadline:   uint64(time.Now().Add(24 * time.Hour).Unix()), Nonce: negotiation.U64(7),
	}}, pk.Inbox(), negotiation.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := p2p.Delivery{Envelope: proposal, Sender: pk.Link(), From: pk.Inbox().PeerID()}

	// step returns the kinds of nid's entries after seq from, and fails
	// t unless they are consecutive.
	step := func(from uint64) []string {
		t.Helper()
		var kinds []string
		next := uint64(0)
		for e, err := range n.Ledger().ByNegotiation(ctx, nid) {
			if err != nil {
				t.Fatal(err)
			}
			if e.Seq <= from {
				continue
			}
			if next != 0 && e.Seq != next {
				t.Fatalf("entry %d (%s) follows %d: the step's entries are not consecutive", e.Seq, e.Kind, next-1)
			}
			next = e.Seq + 1
			kinds = append(kinds, e.Kind)
		}
		return kinds
	}
	received := []string{KindThreadOpened, KindIdentityLink, ledger.KindEnvelopeReceived, ledger.KindThreadState}

	// The step of applyReceived, with its envelope's record spoiled.
	th, fresh, code := n.rcv.threadFor(ctx, d)
	if th == nil || !fresh {
		t.Fatalf("no fresh thread for the proposal (%s)", code)
	}
	out := th.Th.Apply(proposal, n.now())
	if !out.Authentic || !out.Effective() {
		th.Unlock()
		t.Fatalf("the proposal: %+v", out)
	}
	n.eng.OpenPXP(th)
	var b batch
	n.eng.PutReceived(&b, th, d.Envelope, d.Sender, "ok", th.Th.State(), n.now())
	var kinds []string
	for _, rec := range b.Records() {
		kinds = append(kinds, rec.Kind)
	}
	if !slices.Equal(kinds, received) {
		th.Unlock()
		t.Fatalf("the step puts %v, want %v", kinds, received)
	}
	recorded, steps := th.Recorded, th.Steps
	events, stop := n.Subscribe(16)
	defer stop()
	b.Records()[2].At = b.Records()[2].At.Add(time.Second)
	head := n.Ledger().Head()
	err = n.snd.write(ctx, &b, string(proposal.Type))
	var lerr *ledger.BatchError
	if CodeOf(err) != CodeStoreFailed || !errors.As(err, &lerr) || lerr.Index != 2 {
		th.Unlock()
		t.Fatalf("a step with a refused record: %v, want %s naming record 2", err, CodeStoreFailed)
	}
	if got := n.Ledger().Head(); got != head {
		th.Unlock()
		t.Fatalf("the refused step wrote entries: head %d, was %d", got.Seq, head.Seq)
	}
	if got := step(0); len(got) != 0 {
		th.Unlock()
		t.Fatalf("the refused step left %v in the ledger", got)
	}
	if th.Opened || len(th.Links) != 0 || th.Recorded != recorded || th.Steps != steps {
		th.Unlock()
		t.Fatalf("the refused step changed the thread: opened %v, links %v, recorded %s (was %s), steps %d (was %d)",
			th.Opened, th.Links, th.Recorded, recorded, th.Steps, steps)
	}
	select {
	case e := <-events:
		th.Unlock()
		t.Fatalf("the refused step published %+v", e)
	default:
	}
	// As applyReceived does when a fresh thread's first step fails.
	n.eng.Drop(th)
	th.Unlock()

	// The same delivery again: the whole step, in order, consecutive.
	if code := n.HandleEnvelope(ctx, d); code != "ok" {
		t.Fatalf("the proposal again: %s", code)
	}
	if got := step(0); !slices.Equal(got, received) {
		t.Fatalf("the proposal's step wrote %v, want %v", got, received)
	}

	// This node's first envelope in the thread: its link, the envelope
	// (and the state, had it changed) and its outbox item, adjacent in one
	// batch; the act's approval writes its own entries before them.
	head = n.Ledger().Head()
	before, _ := n.Thread(nid)
	if _, err := n.Accept(ctx, nid); err != nil {
		t.Fatal(err)
	}
	want := []string{KindIdentityLink, ledger.KindEnvelopeSent}
	if after, _ := n.Thread(nid); after.State != before.State {
		want = append(want, ledger.KindThreadState)
	}
	want = append(want, ledger.KindOutboxQueued)
	got := step(head.Seq)
	if i := slices.Index(got, KindIdentityLink); i < 0 || !slices.Equal(got[i:min(i+len(want), len(got))], want) {
		t.Fatalf("the acceptance's step wrote %v, want %v adjacent", got, want)
	}
}
