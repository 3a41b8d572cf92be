package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// taskFundedFact decodes the chain.event bodies this test writes.
func taskFundedFact(e Entry) (negotiation.Fact, error) {
	var body struct {
		Fact   string              `json:"fact"`
		TaskID negotiation.Uint256 `json:"taskId"`
	}
	if err := json.Unmarshal(e.Body, &body); err != nil {
		return nil, err
	}
	if body.Fact != "task_funded" {
		return nil, fmt.Errorf("unknown fact %q", body.Fact)
	}
	return negotiation.TaskFunded{TaskID: body.TaskID}, nil
}

// liveNode applies inputs to a thread and records them as a node does:
// authentic envelopes whole with their effect code, non-authentic input by
// hash and code, state changes, chain facts.
type liveNode struct {
	t      *testing.T
	l      *Ledger
	th     *negotiation.Thread
	self   negotiation.Address
	now    time.Time
	states []negotiation.State
}

func (n *liveNode) tick() time.Time {
	n.now = n.now.Add(1500 * time.Millisecond)
	return n.now
}

func (n *liveNode) state(out negotiation.Outcome, at time.Time) {
	if out.To != out.From {
		mustAppend(n.t, n.l, Record{Kind: KindThreadState, NegotiationID: n.th.NegotiationID(), Body: []byte(`{"state":"` + string(out.To) + `"}`), At: at})
		n.states = append(n.states, out.To)
	}
}

func (n *liveNode) envelope(raw []byte) negotiation.Outcome {
	n.t.Helper()
	now := n.tick()
	env, err := negotiation.Decode(raw, negotiation.DecodeOptions{})
	if err != nil {
		if _, err := n.l.AppendRejected(n.t.Context(), raw, negotiation.CodeOf(err), "", now); err != nil {
			n.t.Fatal(err)
		}
		return negotiation.Outcome{Code: negotiation.CodeOf(err)}
	}
	out := n.th.Apply(env, now)
	if !out.Authentic {
		if _, err := n.l.AppendRejected(n.t.Context(), raw, out.Code, env.NegotiationID, now); err != nil {
			n.t.Fatal(err)
		}
		return out
	}
	kind := KindEnvelopeReceived
	if env.Sender.EVMAddress == n.self {
		kind = KindEnvelopeSent
	}
	if _, _, err := n.l.AppendEnvelope(n.t.Context(), kind, env, out.Code, now); err != nil {
		n.t.Fatal(err)
	}
	n.state(out, now)
	return out
}

func (n *liveNode) fact(f negotiation.TaskFunded) {
	n.t.Helper()
	now := n.tick()
	out := n.th.Apply(f, now)
	if !out.Effective() {
		n.t.Fatalf("fact refused: %v", out.Err)
	}
	body, _ := json.Marshal(map[string]any{"fact": "task_funded", "taskId": f.TaskID})
	mustAppend(n.t, n.l, Record{Kind: KindChainEvent, NegotiationID: n.th.NegotiationID(), Body: body, At: now})
	n.state(out, now)
}

// negotiateToFunded records, through a live poster node, a negotiation that
// reaches funded: a proposal, a counter-offer, both acceptances, a counter
// refused after acceptance (authentic, effect refused), a forged envelope
// (not authentic), the funding fact and every state change, with entries of
// another negotiation in between. It returns the live thread and its params.
func negotiateToFunded(t *testing.T, l *Ledger) (*negotiation.Thread, negotiation.Params) {
	t.Helper()
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	id := nid(1)
	params := negotiation.Params{NegotiationID: id, Self: poster.addr}
	th, err := negotiation.NewThread(params)
	if err != nil {
		t.Fatal(err)
	}
	node := &liveNode{t: t, l: l, th: th, self: poster.addr, now: t0}
	// Noise from another negotiation between the entries.
	noise := func() {
		mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(2), Body: []byte(`{"fact":"other"}`)})
	}

	proposal := poster.counter(t, id, worker, "replay", 0)
	node.envelope(proposal.Bytes())
	noise()
	counter := worker.counter(t, id, poster, "replay", 0)
	node.envelope(counter.Bytes())
	accept := func(p *party, o *negotiation.Offer, at time.Time) *negotiation.Envelope {
		s, d, err := th.Settlement(o)
		if err != nil {
			t.Fatal(err)
		}
		digest, err := s.Digest(d)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := negotiation.SignDigest(digest, evmSigner{p.evm})
		if err != nil {
			t.Fatal(err)
		}
		other := worker
		if p == worker {
			other = poster
		}
		return p.send(t, id, other, &negotiation.TaskAcceptance{AcceptedOfferHash: o.Hash(), SettlementDigest: digest, Signature: sig}, at)
	}
	noise()
	node.envelope(accept(poster, th.Current(), t0.Add(6*time.Second)).Bytes())
	// The poster counters after accepting: authentic, effect refused.
	bound := node.envelope(poster.counter(t, id, worker, "again", 0).Bytes())
	if !bound.Authentic || bound.Effective() {
		t.Fatalf("counter after acceptance: authentic=%v code=%s", bound.Authentic, bound.Code)
	}
	final := accept(worker, th.Current(), t0.Add(9*time.Second))
	// A forged copy (not authentic) arrives before the real one.
	forged := append([]byte(nil), final.Bytes()...)
	k := bytes.LastIndex(forged, []byte(`"signature":"0x`)) + len(`"signature":"0x`)
	forged[k] ^= 1 // another hex digit: the ed25519 signature no longer verifies
	if out := node.envelope(forged); out.Authentic {
		t.Fatalf("forged envelope accepted as authentic: %s", out.Code)
	}
	node.envelope(final.Bytes())
	if th.State() != negotiation.StateAgreed {
		t.Fatalf("live state %s, want agreed", th.State())
	}
	node.fact(negotiation.TaskFunded{TaskID: th.Agreement().TaskID()})
	if th.State() != negotiation.StateFunded {
		t.Fatalf("live state %s, want funded", th.State())
	}

	return th, params
}

func TestReplayThreadFromLedgerAndBundle(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	ctx := t.Context()
	th, params := negotiateToFunded(t, l)
	id := params.NegotiationID

	same := func(what string, got *negotiation.Thread) {
		t.Helper()
		if got.State() != th.State() {
			t.Fatalf("%s: state %s, live %s", what, got.State(), th.State())
		}
		if !reflect.DeepEqual(got.Log(), th.Log()) {
			t.Fatalf("%s: log differs:\n%+v\n%+v", what, got.Log(), th.Log())
		}
		if got.Current().Hash() != th.Current().Hash() || got.Agreement().Digest != th.Agreement().Digest || got.TaskID().String() != th.TaskID().String() {
			t.Fatalf("%s: offer, agreement or task differ", what)
		}
	}
	rebuilt, err := l.ReplayThread(ctx, params, taskFundedFact)
	if err != nil {
		t.Fatal(err)
	}
	same("ledger", rebuilt)
	if st, _ := l.NegotiationState(ctx, id); st != string(negotiation.StateFunded) {
		t.Fatalf("recorded state %q", st)
	}

	var buf bytes.Buffer
	if _, err := l.Export(ctx, id, &buf); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyBundle(&buf, BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// An arbitrator replays the bundle as an observer.
	fromBundle, err := rep.ReplayThread(negotiation.Params{NegotiationID: id}, taskFundedFact)
	if err != nil {
		t.Fatal(err)
	}
	same("bundle", fromBundle)

	// A ledger whose recorded decision disagrees with the state machine is
	// caught by the replay.
	other := open(t, testConfig(t, t.TempDir()))
	p2, w2 := newParty(t, "poster"), newParty(t, "worker")
	if _, _, err := other.AppendEnvelope(ctx, KindEnvelopeSent, p2.counter(t, id, w2, "x", 0), negotiation.CodeTermsChanged, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := other.ReplayThread(ctx, params, taskFundedFact); err == nil {
		t.Fatal("replay accepted a ledger that recorded a refusal the state machine does not make")
	}
}
