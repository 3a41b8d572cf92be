package demo

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/parleynet/parley/negotiation"
)

// actor is one demo participant with fresh keys.
type actor struct {
	name  string
	inbox negotiation.Ed25519Key
	evm   interface{ Sign([]byte) ([]byte, error) }
	addr  negotiation.Address
	seq   uint64
	prev  negotiation.Hash
}

func newActor(name string) (*actor, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	k, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	return &actor{
		name:  name,
		inbox: negotiation.Ed25519Key(priv),
		evm:   evmKey{k: k},
		addr:  negotiation.Address(crypto.PubkeyToAddress(k.PublicKey)),
	}, nil
}

func (a *actor) sender() negotiation.Sender {
	var pk negotiation.PublicKey
	copy(pk[:], a.inbox.PublicKey())
	return negotiation.Sender{EVMAddress: a.addr, XMTPPublicKey: pk}
}

// Walk is one printed walk through a negotiation.
type Walk struct {
	w     io.Writer
	clock time.Time
	step  int
	task  *negotiation.Uint256 // set once the task is funded
}

// Walkthrough plays one full negotiation through the state machine and
// prints each signed envelope's type, hash, resulting state and A2A state.
// It returns an error if any step's outcome is not what the story expects.
func Walkthrough(w io.Writer, now time.Time) error {
	poster, err := newActor("poster")
	if err != nil {
		return err
	}
	worker, err := newActor("worker")
	if err != nil {
		return err
	}
	wk := &Walk{w: w, clock: now}
	chainID, registry := big.NewInt(1337), negotiation.Address{0x5f, 0xbd}
	terms := func(amounts ...uint64) negotiation.Terms {
		ms := make([]negotiation.Milestone, len(amounts))
		for i, a := range amounts {
			ms[i] = negotiation.Milestone{Amount: negotiation.U64(a), Description: fmt.Sprintf("chapter %d", i+1)}
		}
		return negotiation.Terms{
			Title: "Translate the user guide into Spanish", Category: "translation",
			ChainID: negotiation.NewUint256(chainID), Registry: registry, Milestones: ms,
			Deadline: uint64(now.Add(72 * time.Hour).Unix()), Nonce: negotiation.U64(uint64(now.UnixNano())),
		}
	}
	fmt.Fprintf(w, "poster  %s\nworker  %s\n\n", poster.addr, worker.addr)

	// 1. The poster announces a task on the board.
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return err
	}
	ann, err := wk.build(poster, negotiation.NewNegotiationID(r), nil, &negotiation.TaskProposal{Terms: terms(300, 200)})
	if err != nil {
		return err
	}
	poster.seq, poster.prev = 0, negotiation.Hash{}
	wk.line("poster announces a task on the board", ann, "", "")

	// The worker opens its own negotiation in reply to the announcement.
	if _, err := rand.Read(r[:]); err != nil {
		return err
	}
	nid := negotiation.NewNegotiationID(r)
	th, err := negotiation.NewThread(negotiation.Params{NegotiationID: nid, Announcement: ann})
	if err != nil {
		return err
	}
	send := func(who *actor, to *actor, desc string, p negotiation.Payload, want negotiation.State) (*negotiation.Envelope, negotiation.Outcome, error) {
		e, err := wk.build(who, nid, []negotiation.Address{to.addr}, p)
		if err != nil {
			return nil, negotiation.Outcome{}, err
		}
		out := th.Apply(e, wk.clock)
		wk.line(desc, e, out.To, out.Code)
		if !out.Effective() || out.To != want {
			return e, out, fmt.Errorf("demo: %s: got %s (%s), want %s", desc, out.To, out.Code, want)
		}
		return e, out, nil
	}
	counter, _, err := send(worker, poster, "worker counters the announced terms", &negotiation.TaskCounterOffer{InReplyTo: ann.Hash(), Terms: terms(350, 250), Reason: "technical glossary"}, negotiation.StateCountered)
	if err != nil {
		return err
	}
	accept := func(who *actor) (*negotiation.TaskAcceptance, error) {
		s, d, err := th.Settlement(th.Current())
		if err != nil {
			return nil, err
		}
		if th.Worker() == (negotiation.Address{}) {
			s.Worker = [20]byte(worker.addr)
		}
		digest, err := s.Digest(d)
		if err != nil {
			return nil, err
		}
		sig, err := negotiation.SignDigest(digest, who.evm)
		if err != nil {
			return nil, err
		}
		return &negotiation.TaskAcceptance{AcceptedOfferHash: counter.Hash(), SettlementDigest: digest, Signature: sig}, nil
	}
	pa, err := accept(poster)
	if err != nil {
		return err
	}
	if _, _, err := send(poster, worker, "poster accepts and signs the settlement digest", pa, negotiation.StateCountered); err != nil {
		return err
	}
	wa, err := accept(worker)
	if err != nil {
		return err
	}
	_, out, err := send(worker, poster, "worker signs the same digest: agreed", wa, negotiation.StateAgreed)
	if err != nil {
		return err
	}
	a := out.Agreement
	id := a.TaskID()
	fmt.Fprintf(w, "      settlement digest %s (task id %s…)\n", a.Digest, id.String()[:16])

	fact := func(desc string, f negotiation.Fact, want negotiation.State) error {
		o := th.Apply(f, wk.clock)
		wk.step++
		fmt.Fprintf(w, "%2d. %-52s %-20s -> %-10s %s\n", wk.step, desc, "chain: "+negotiation.FactName(f), o.To, o.To.A2A())
		if !o.Effective() || o.To != want {
			return fmt.Errorf("demo: %s: got %s (%s), want %s", desc, o.To, o.Code, want)
		}
		return nil
	}
	if err := fact("poster funds escrow (createTask)", negotiation.TaskFunded{TaskID: id}, negotiation.StateFunded); err != nil {
		return err
	}
	wk.task = th.TaskID()
	proof := negotiation.CID(negotiation.CIDOf([]byte("capítulo 1")).String())
	d0, _, err := send(worker, poster, "worker delivers milestone 1", &negotiation.DeliveryNotice{Milestone: 0, ProofCID: proof}, negotiation.StateDelivered)
	if err != nil {
		return err
	}
	if _, _, err := send(poster, worker, "poster accepts milestone 1", &negotiation.AcceptDelivery{Milestone: 0, DeliveryHash: d0.Hash()}, negotiation.StateFunded); err != nil {
		return err
	}
	d1, _, err := send(worker, poster, "worker delivers milestone 2", &negotiation.DeliveryNotice{Milestone: 1, ProofCID: negotiation.CID(negotiation.CIDOf([]byte("capítulo 2")).String())}, negotiation.StateDelivered)
	if err != nil {
		return err
	}
	if _, _, err := send(poster, worker, "poster accepts milestone 2: completed", &negotiation.AcceptDelivery{Milestone: 1, DeliveryHash: d1.Hash()}, negotiation.StateCompleted); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d envelopes, every one signed, hash-chained per sender and judged by the state machine.\n", len(th.Log()))
	return nil
}

func (wk *Walk) build(a *actor, nid string, to []negotiation.Address, p negotiation.Payload) (*negotiation.Envelope, error) {
	wk.clock = wk.clock.Add(time.Second)
	h := negotiation.Header{NegotiationID: nid, TaskID: wk.task, Sequence: a.seq + 1, PreviousHash: a.prev, Timestamp: wk.clock, Sender: a.sender(), Recipients: to}
	e, err := negotiation.Build(h, p, a.inbox, negotiation.DecodeOptions{})
	if err != nil {
		return nil, err
	}
	a.seq, a.prev = e.Sequence, e.Hash()
	return e, nil
}

func (wk *Walk) line(desc string, e *negotiation.Envelope, s negotiation.State, code negotiation.Code) {
	wk.step++
	state, a2a := string(s), string(s.A2A())
	if s == "" {
		state, a2a = "(board)", ""
	}
	if code != "" {
		state += " [" + string(code) + "]"
	}
	fmt.Fprintf(wk.w, "%2d. %-52s %-20s %s… -> %-10s %s\n", wk.step, desc, e.Type, e.Hash().String()[:14], state, a2a)
}
