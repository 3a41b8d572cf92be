package node_test

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// peer is a party that is not a node: its keys and its own chain of
// envelopes per negotiation, for feeding a node's handler directly.
type peer struct {
	t    *testing.T
	keys *identity.Keyring
	seq  map[string]uint64
	prev map[string]negotiation.Hash
}

func newPeer(t *testing.T) *peer {
	k, err := identity.Create(keyConfig(t.TempDir()), testPass, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return &peer{t: t, keys: k, seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}}
}

func (p *peer) addr() negotiation.Address { return negotiation.Address(p.keys.EVM().Address()) }

// build signs p's next envelope in nid; seq 0 means the next one.
func (p *peer) build(nid string, seq uint64, to negotiation.Address, payload negotiation.Payload) *negotiation.Envelope {
	p.t.Helper()
	if seq == 0 {
		seq = p.seq[nid] + 1
	}
	var pk negotiation.PublicKey
	copy(pk[:], p.keys.Inbox().PublicKey())
	h := negotiation.Header{
		NegotiationID: nid, Sequence: seq, PreviousHash: p.prev[nid], Timestamp: time.Now(),
		Sender: negotiation.Sender{EVMAddress: p.addr(), XMTPPublicKey: pk}, Recipients: []negotiation.Address{to},
	}
	env, err := negotiation.Build(h, payload, p.keys.Inbox(), negotiation.DecodeOptions{})
	if err != nil {
		p.t.Fatal(err)
	}
	if seq == p.seq[nid]+1 {
		p.seq[nid], p.prev[nid] = seq, env.Hash()
	}
	return env
}

func (p *peer) deliver(n *tnode, env *negotiation.Envelope) negotiation.Code {
	return n.HandleEnvelope(p.t.Context(), p2p.Delivery{Envelope: env, Sender: p.keys.Link(), From: p.keys.Inbox().PeerID()})
}

func terms(n *tnode) negotiation.Terms {
	return negotiation.Terms{
		Title: "Proofread", ChainID: negotiation.U64(1337), Registry: negotiation.Address(n.cfg.Chain.Contracts.TaskRegistry),
		Milestones: []negotiation.Milestone{{Amount: negotiation.NewUint256(big.NewInt(1000)), Description: "all"}},
		Deadline:   uint64(time.Now().Add(24 * time.Hour).Unix()), Nonce: negotiation.U64(42),
	}
}

// TestHandlerRecordsByTheRules feeds the handler directly: an authentic
// envelope is stored whole with its outcome, a refused effect is stored
// with its code and changes no state, a repeat is a duplicate that writes
// nothing, an envelope ahead of its sender's chain writes nothing and is
// retried, input that is not authentic is recorded by hash and code only,
// and an equivocation keeps both envelopes.
func TestHandlerRecordsByTheRules(t *testing.T) {
	w := newWorld(t, false)
	n := w.add("worker")
	p := newPeer(t)
	nid, _ := newNID()
	proposal := p.build(nid, 0, n.Address(), &negotiation.TaskProposal{Terms: terms(n)})
	if code := p.deliver(n, proposal); code != "ok" {
		t.Fatalf("proposal: %s", code)
	}
	v, err := n.Thread(nid)
	if err != nil || v.State != negotiation.StateProposed || v.Role != negotiation.RoleWorker {
		t.Fatalf("thread %+v, %v", v, err)
	}
	k := kinds(t, n, nid)
	if k["thread.opened"] != 1 || k["identity.link"] != 1 || k["envelope.received"] != 1 || k["thread.state"] != 1 {
		t.Fatalf("ledger: %v", k)
	}
	steps := []struct {
		name  string
		env   *negotiation.Envelope
		code  negotiation.Code
		kinds map[string]int // entries written
	}{
		{"repeat", proposal, negotiation.CodeDuplicate, nil},
		{"gap", p.build(nid, 5, n.Address(), &negotiation.TaskCounterOffer{InReplyTo: proposal.Hash(), Terms: terms(n)}), negotiation.CodeSequenceGap, nil},
		{"digest mismatch", p.build(nid, 0, n.Address(), &negotiation.TaskAcceptance{
			AcceptedOfferHash: proposal.Hash(), SettlementDigest: negotiation.Hash{1}, Signature: mustSign(t, p, negotiation.Hash{1}),
		}), negotiation.CodeDigestMismatch, map[string]int{"envelope.received": 1}},
		// Rejection evidence is gathered per peer and written when its
		// window ends (below), never one entry per rejected envelope.
		{"unknown negotiation", p.build(mustNID(t), 0, n.Address(), &negotiation.DeliveryNotice{ProofCID: negotiation.CID(negotiation.CIDOf([]byte("x")).String())}), negotiation.CodeWrongNegotiation, nil},
	}
	for _, s := range steps {
		head := n.Ledger().Head().Seq
		before, _ := n.Thread(nid)
		if code := p.deliver(n, s.env); code != s.code {
			t.Fatalf("%s: %s, want %s", s.name, code, s.code)
		}
		written := 0
		for e, err := range n.Ledger().Entries(t.Context(), head+1) {
			if err != nil {
				t.Fatal(err)
			}
			if s.kinds[e.Kind] == 0 {
				t.Fatalf("%s wrote a %s entry", s.name, e.Kind)
			}
			if e.Kind == ledger.KindEnvelopeRejected && e.CID.Defined() {
				t.Fatalf("%s: a rejected envelope's bytes were stored", s.name)
			}
			written++
		}
		want := 0
		for _, c := range s.kinds {
			want += c
		}
		if written != want {
			t.Fatalf("%s wrote %d entries, want %d", s.name, written, want)
		}
		if after, _ := n.Thread(nid); after.State != before.State {
			t.Fatalf("%s changed the state to %s", s.name, after.State)
		}
	}
	// The window's evidence: one entry for the peer, by hash and code only.
	evidenceFrom := n.Ledger().Head().Seq + 1
	n.FlushRejectionsForTest(t.Context())
	var bodies []map[string]any
	for e, err := range n.Ledger().Entries(t.Context(), evidenceFrom) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != node.KindInputRejected || e.CID.Defined() {
			t.Fatalf("the rejection evidence wrote %s (object %v)", e.Kind, e.CID)
		}
		var b map[string]any
		if err := json.Unmarshal(e.Body, &b); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	if len(bodies) != 1 || bodies[0]["total"] != 1.0 || bodies[0]["peer"] != p.keys.Inbox().PeerID().String() ||
		bodies[0]["codes"].(map[string]any)[string(negotiation.CodeWrongNegotiation)] != 1.0 {
		t.Fatalf("rejection evidence %v", bodies)
	}
	// The same sequence signed twice with different content: the second
	// is not authentic, kept whole as evidence.
	second := p.build(nid, 2, n.Address(), &negotiation.TaskCounterOffer{InReplyTo: proposal.Hash(), Terms: terms(n), Reason: "changed my mind"})
	if code := p.deliver(n, second); code != negotiation.CodeEquivocation {
		t.Fatalf("equivocation: %s", code)
	}
	if kinds(t, n, nid)["envelope.equivocation"] != 1 {
		t.Fatal("the equivocating envelope was not kept")
	}
	// The node's own acts are refused with stable codes and write nothing.
	head := n.Ledger().Head()
	for _, tc := range []struct {
		name string
		err  error
		code node.Code
	}{
		{"fund without a chain", func() error { _, err := n.Fund(t.Context(), nid); return err }(), node.CodeNoChain},
		{"evidence without a dispute", func() error {
			_, err := n.SubmitEvidence(t.Context(), nid, node.EvidenceSpec{Name: "x", Data: []byte("x")})
			return err
		}(), node.CodeStateForbidden},
		{"unknown negotiation", func() error { _, err := n.Counter(t.Context(), mustNID(t), node.CounterSpec{}); return err }(), node.CodeUnknownNegotiation},
		{"bad milestone", func() error {
			_, err := n.Counter(t.Context(), nid, node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: big.NewInt(-1)}}})
			return err
		}(), node.CodeBadArgument},
		{"propose to self", func() error { _, err := n.ProposeTask(t.Context(), n.Address(), spec("x", eth(1))); return err }(), node.CodeBadArgument},
	} {
		var ne *node.Error
		if !errors.As(tc.err, &ne) || ne.Code != tc.code {
			t.Fatalf("%s: %v, want %s", tc.name, tc.err, tc.code)
		}
	}
	if n.Ledger().Head() != head {
		t.Fatal("a refused act wrote to the ledger")
	}
	// The thread is what the ledger replays to, after a restart too.
	n.restart()
	if v, err := n.Thread(nid); err != nil || v.State != negotiation.StateProposed || len(v.Log) != 2 || v.Log[1].Code != string(negotiation.CodeDigestMismatch) {
		t.Fatalf("after a restart: %+v, %v", v, err)
	}
}

func mustSign(t *testing.T, p *peer, d negotiation.Hash) negotiation.EVMSignature {
	t.Helper()
	sig, err := p.keys.EVM().SignDigest(d)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func mustNID(t *testing.T) string {
	t.Helper()
	nid, err := newNID()
	if err != nil {
		t.Fatal(err)
	}
	return nid
}

func newNID() (string, error) {
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	return negotiation.NewNegotiationID(r), nil
}
