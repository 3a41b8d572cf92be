package node_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// Tests of the node's guards no other test would miss: each fails when
// its guard is turned into a no-op.

// TestProofMismatchRefusesRelease: the worker delivers a file (its CID in
// the DeliveryNotice and on chain), then submits another proof CID on
// chain for the same milestone. The poster's AcceptDelivery is refused
// with proof_mismatch before any approval is asked: nothing is sent and
// the milestone is not released.
func TestProofMismatchRefusesRelease(t *testing.T) {
	w := newWorld(t, true)
	gate := &recGate{}
	poster := w.add("poster", withGate(gate))
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	nid := agree(t, poster, worker, eth(200))
	delivered := deliver(t, poster, worker, nid, 0, []byte("the glossary, A to Z"))

	v, _ := worker.Thread(nid)
	id, err := chain.ParseTaskID(v.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	task, err := worker.Chain().TaskState(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	other := negotiation.CIDOf([]byte("another file")).String()
	if _, err := worker.Chain().SubmitProof(t.Context(), id, task, 0, other); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster to see the other proof on chain", func() bool {
		v, err := poster.Thread(nid)
		return err == nil && len(v.Deliveries) == 1 && string(v.Deliveries[0].ChainProof) == other && string(v.Deliveries[0].ProofCID) == delivered
	})

	head := poster.Ledger().Head()
	_, err = poster.AcceptDelivery(t.Context(), nid, 0)
	if node.CodeOf(err) != node.CodeProofMismatch {
		t.Fatalf("AcceptDelivery with another proof on chain = %v, want proof_mismatch", err)
	}
	if asked := gate.asked(node.ActReleaseMilestone); len(asked) != 0 {
		t.Fatalf("the release was put to the gate: %+v", asked)
	}
	if got := poster.Ledger().Head(); got.Seq != head.Seq {
		t.Fatalf("the poster's ledger grew by %d entries", got.Seq-head.Seq)
	}
	if m := chainTask(t, w, v).Milestones[0]; m.State == chain.MilestoneReleased {
		t.Fatal("the milestone was released")
	}
	if owed, _ := worker.Owed(t.Context(), negotiation.Address{}); owed.Sign() != 0 {
		t.Fatalf("the worker is owed %s", owed)
	}
}

// holdGate approves every act, holding the first request of act until
// release is closed; asked is closed when it arrives.
type holdGate struct {
	act     node.Act
	once    sync.Once
	asked   chan struct{}
	release chan struct{}
}

func (g *holdGate) Decide(ctx context.Context, r node.ApprovalRequest) (node.Decision, error) {
	if r.Act == g.act {
		held := false
		g.once.Do(func() { held = true })
		if held {
			close(g.asked)
			select {
			case <-g.release:
			case <-ctx.Done():
				return node.Decision{}, ctx.Err()
			}
		}
	}
	return node.Decision{Approved: true, Method: "auto", By: "test"}, nil
}

// TestOfferChangedWhileApprovalPending: the poster's signature of its own
// offer waits for its approval while the poster revises that offer (it may:
// the worker accepted it). Once approved, the act table refuses the stale
// acceptance with terms_changed before any envelope is built or anything
// signed (the refusal names the act, not an envelope's member as the
// judgement of a built envelope does), and the thread holds no acceptance
// by the poster.
func TestOfferChangedWhileApprovalPending(t *testing.T) {
	w := newWorld(t, false)
	gate := &holdGate{act: node.ActSignSettlement, asked: make(chan struct{}), release: make(chan struct{})}
	poster := w.add("poster", withGate(gate))
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Proofread the manual", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, 2)

	done := runAct(func() error { _, err := poster.Accept(t.Context(), nid); return err })
	<-gate.asked
	if _, err := poster.Counter(t.Context(), nid, node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: eth(120), Description: "two passes"}}, Reason: "a second pass"}); err != nil {
		t.Fatal(err)
	}
	close(gate.release)
	err = done()
	if node.CodeOf(err) != node.Code(negotiation.CodeTermsChanged) {
		t.Fatalf("Accept of the offer revised while its approval was pending = %v, want terms_changed", err)
	}
	var ne *negotiation.Error
	if !errors.As(err, &ne) || ne.Field != string(negotiation.ActAccept) {
		t.Fatalf("the refusal is not the act table's, before an envelope: %#v", ne)
	}
	v, _ := poster.Thread(nid)
	if v.Current == nil || v.Current.Revision != 2 {
		t.Fatalf("the poster's current offer: %+v", v.Current)
	}
	for _, r := range v.Log {
		if r.Type == negotiation.TypeTaskAcceptance && r.Sender == poster.Address() {
			t.Fatalf("the poster's thread holds its acceptance: %+v", v.Log)
		}
	}
	if k := kinds(t, poster, nid); k["envelope.sent"] != 2 {
		t.Fatalf("the poster sent %d envelopes, want the proposal and the revision", k["envelope.sent"])
	}
}

// lyingRPC is a JSON-RPC proxy in front of a chain that rewrites, in the
// transaction receipts it passes on, every log topic equal to forge
// (once set) into another hash: an endpoint that reports a task id other
// than the one the registry made.
type lyingRPC struct {
	upstream string
	forge    atomic.Pointer[common.Hash]
	lied     atomic.Int32
}

func (p *lyingRPC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := http.Post(p.upstream, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var req struct {
		Method string `json:"method"`
	}
	if f := p.forge.Load(); f != nil && json.Unmarshal(body, &req) == nil && req.Method == "eth_getTransactionReceipt" {
		out = p.rewrite(out, *f)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// rewrite replaces forge in the topics of the receipt's logs.
func (p *lyingRPC) rewrite(out []byte, forge common.Hash) []byte {
	var msg map[string]any
	if json.Unmarshal(out, &msg) != nil {
		return out
	}
	rc, _ := msg["result"].(map[string]any)
	logs, _ := rc["logs"].([]any)
	changed := false
	for _, l := range logs {
		lm, _ := l.(map[string]any)
		topics, _ := lm["topics"].([]any)
		for i, tp := range topics {
			if s, _ := tp.(string); strings.EqualFold(s, forge.Hex()) {
				topics[i] = common.BigToHash(new(big.Int).Add(forge.Big(), big.NewInt(1))).Hex()
				changed = true
			}
		}
	}
	if !changed {
		return out
	}
	p.lied.Add(1)
	b, err := json.Marshal(msg)
	if err != nil {
		return out
	}
	return b
}

// TestTaskIDIsTheAgreedDigest: the poster's chain endpoint reports, in
// createTask's receipt, a task id other than the agreed settlement digest.
// Fund refuses the task (chain_failed, naming the digest) instead of
// taking it as the agreed task.
func TestTaskIDIsTheAgreedDigest(t *testing.T) {
	w := newWorld(t, true)
	proxy := &lyingRPC{upstream: w.dev.URL}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	poster := w.add("poster", func(n *tnode) { n.cfg.Chain.RPC = srv.URL })
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Index the archive", eth(150)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, 2)
	acc, err := poster.Accept(t.Context(), nid)
	if err != nil || acc.Thread.Agreement == nil {
		t.Fatalf("Accept = %+v, %v", acc, err)
	}
	digest := common.Hash(acc.Thread.Agreement.Digest)
	proxy.forge.Store(&digest)

	fund, err := poster.Fund(t.Context(), nid)
	if node.CodeOf(err) != node.CodeChainFailed || !strings.Contains(err.Error(), "not the agreed digest") {
		t.Fatalf("Fund with a receipt naming another task id = %+v, %v; want chain_failed", fund, err)
	}
	if proxy.lied.Load() == 0 {
		t.Fatal("the proxy never rewrote a receipt")
	}
}

// TestExpectedOffer: a counter or an acceptance that names the offer it
// answers (CounterSpec.Expect, AcceptSpec.Expect: VXP's proposals) is
// refused with terms_changed when another offer is current, and nothing
// is sent or asked; naming the current offer, it goes through.
func TestExpectedOffer(t *testing.T) {
	w := newWorld(t, false)
	gate := &recGate{}
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster), withGate(gate))
	connect(t, poster, worker)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Proofread the manual", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	stale := negotiation.Hash{1}
	head := worker.Ledger().Head()
	counter := node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: eth(120), Description: "two passes"}}, Reason: "a second pass", Expect: stale}
	if _, err := worker.Counter(t.Context(), nid, counter); node.CodeOf(err) != node.Code(negotiation.CodeTermsChanged) {
		t.Fatalf("a counter expecting another offer = %v, want terms_changed", err)
	}
	if _, err := worker.AcceptWith(t.Context(), nid, node.AcceptSpec{Expect: stale}); node.CodeOf(err) != node.Code(negotiation.CodeTermsChanged) {
		t.Fatalf("an acceptance expecting another offer = %v, want terms_changed", err)
	}
	gate.mu.Lock()
	asked := len(gate.reqs)
	gate.mu.Unlock()
	if got := worker.Ledger().Head(); got != head || asked != 0 {
		t.Fatalf("refused acts wrote %d entries and asked %d approvals", got.Seq-head.Seq, asked)
	}
	counter.Expect = res.Envelope.Hash
	if _, err := worker.Counter(t.Context(), nid, counter); err != nil {
		t.Fatalf("a counter naming the current offer: %v", err)
	}
}
