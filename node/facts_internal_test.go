package node

import (
	"crypto/rand"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/p2p"
)

var internalPass = []byte("parley internal test passphrase")

func lightKeyConfig(dir string) identity.Config {
	c := identity.DefaultConfig(dir)
	c.ScryptWorkFactor, c.KeystoreScryptN, c.KeystoreScryptP, c.KEM = 10, keystore.LightScryptN, keystore.LightScryptP, identity.KEMX25519
	return c
}

// TestFactBeforeItsStateIsKeptPending: the worker's watcher reports the
// task funded before the poster's acceptance reached the worker. The fact
// is recorded with state_forbidden and kept; once the acceptance arrives
// it takes effect and is recorded again with ok, and a restart replays
// the thread to funded.
func TestFactBeforeItsStateIsKeptPending(t *testing.T) {
	dir := t.TempDir()
	if _, err := identity.Create(lightKeyConfig(dir), internalPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.DataDir = dir
	cfg.P2P.Listen, cfg.P2P.DHT = []string{"/ip4/127.0.0.1/tcp/0"}, false
	cfg.Chain.ChainID = 1337
	cfg.Chain.Contracts.TaskRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	start := func() *Node {
		n, err := New(cfg, WithPassphrase(internalPass), WithGate(AutoApprove("test")))
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = n.Close() })
		return n
	}
	n := start()

	pk, err := identity.Create(lightKeyConfig(t.TempDir()), internalPass, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	poster := negotiation.Address(pk.EVM().Address())
	var r [16]byte
	_, _ = rand.Read(r[:])
	nid := negotiation.NewNegotiationID(r)
	var pub negotiation.PublicKey
	copy(pub[:], pk.Inbox().PublicKey())
	seq, prev := uint64(0), negotiation.ZeroHash
	build := func(p negotiation.Payload) *negotiation.Envelope {
		seq++
		h := negotiation.Header{NegotiationID: nid, Sequence: seq, PreviousHash: prev, Timestamp: time.Now(),
			Sender: negotiation.Sender{EVMAddress: poster, XMTPPublicKey: pub}, Recipients: []negotiation.Address{n.Address()}}
		env, err := negotiation.Build(h, p, pk.Inbox(), negotiation.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		prev = env.Hash()
		return env
	}
	deliver := func(env *negotiation.Envelope) {
		if code := n.HandleEnvelope(t.Context(), p2p.Delivery{Envelope: env, Sender: pk.Link(), From: pk.Inbox().PeerID()}); code != "ok" {
			t.Fatalf("%s: %s", env.Type, code)
		}
	}
	proposal := build(&negotiation.TaskProposal{Terms: negotiation.Terms{
		Title: "Proofread", ChainID: negotiation.U64(1337), Registry: negotiation.Address(cfg.Chain.Contracts.TaskRegistry),
		Milestones: []negotiation.Milestone{{Amount: negotiation.NewUint256(big.NewInt(1000)), Description: "all"}},
		Deadline:   uint64(time.Now().Add(24 * time.Hour).Unix()), Nonce: negotiation.U64(7),
	}})
	deliver(proposal)
	if _, err := n.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	th, _ := negotiation.NewThread(negotiation.Params{NegotiationID: nid})
	th.Apply(proposal, time.Now())
	s, d, _ := th.Settlement(th.Current())
	digest, _ := s.Digest(d)

	// The chain reports the funding before the poster's acceptance arrived
	// (the fact chain.FactOf makes of its TaskCreated event).
	funded, ref := negotiation.TaskFunded{TaskID: negotiation.NewUint256(new(big.Int).SetBytes(digest[:]))}, chain.FactRef{TaskID: digest, NegotiationID: nid}
	log := types.Log{TxHash: common.Hash{9}, Index: 3, BlockNumber: 12}
	if err := n.onchain.onFact(t.Context(), funded, ref, log); err != nil {
		t.Fatal(err)
	}
	if v, _ := n.Thread(nid); v.State != negotiation.StateProposed || v.Pending != 1 {
		t.Fatalf("before the acceptance: %s, %d pending", v.State, v.Pending)
	}
	sig, _ := pk.EVM().SignDigest(digest)
	deliver(build(&negotiation.TaskAcceptance{AcceptedOfferHash: proposal.Hash(), SettlementDigest: digest, Signature: sig}))
	if v, _ := n.Thread(nid); v.State != negotiation.StateFunded || v.Pending != 0 {
		t.Fatalf("after the acceptance: %s, %d pending", v.State, v.Pending)
	}
	var codes []string
	for e, err := range n.Ledger().ByNegotiation(t.Context(), nid) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == ledger.KindChainEvent {
			var b engine.FactBody
			_ = json.Unmarshal(e.Body, &b)
			codes = append(codes, b.Code)
		}
	}
	if len(codes) != 2 || codes[0] != "state_forbidden" || codes[1] != "ok" {
		t.Fatalf("chain.event codes %v", codes)
	}
	// The watcher delivers the same event again: recognised, not recorded.
	head := n.Ledger().Head()
	if err := n.onchain.onFact(t.Context(), funded, ref, log); err != nil || n.Ledger().Head() != head {
		t.Fatalf("a repeated event was recorded (%v)", err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n = start()
	if v, err := n.Thread(nid); err != nil || v.State != negotiation.StateFunded || v.Pending != 0 {
		t.Fatalf("after a restart: %+v, %v", v, err)
	}
}
