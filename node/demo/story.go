package demo

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
)

// Options configure a demo run.
type Options struct {
	// DataDir holds the dev chain's database; a fresh temporary directory
	// gives a fresh chain.
	DataDir string
	// Now is the wall clock at the start (envelope timestamps follow it).
	Now time.Time
	// Logger receives component logs; nil discards them.
	Logger *slog.Logger
}

// actor is one participant: an inbox key, a funded dev account and a chain
// client acting as it.
type actor struct {
	name   string
	inbox  negotiation.Ed25519Key
	key    *ecdsa.PrivateKey
	addr   negotiation.Address
	client *chain.Client
	seq    map[string]uint64
	prev   map[string]negotiation.Hash
}

func (a *actor) sender() negotiation.Sender {
	var pk negotiation.PublicKey
	copy(pk[:], a.inbox.PublicKey())
	return negotiation.Sender{EVMAddress: a.addr, XMTPPublicKey: pk}
}

func (a *actor) Sign(d []byte) ([]byte, error) {
	return chain.NewKeySigner(a.key).SignDigest([32]byte(d))
}

// story is one run of the demo.
type story struct {
	ctx   context.Context
	w     io.Writer
	clock time.Time
	step  int
	dev   *chain.Devchain
	terms func(amounts ...*big.Int) negotiation.Terms

	poster, worker, arbitrator *actor
}

// Run starts an embedded dev chain with Parley's contracts, then plays two
// tasks between a poster, a worker and an arbitrator: one from a public
// announcement through counter-offer, both signatures on one settlement
// digest, escrow, delivery, acceptance and withdrawal; one that goes to a
// dispute, an arbitrator both parties chose and a 70/30 ruling. Every
// envelope goes through the state machine, every money movement is a real
// transaction, and Run returns an error if any step did not happen.
func Run(ctx context.Context, w io.Writer, opts Options) error {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	cfg := chain.DefaultDevchainConfig()
	cfg.DataDir = opts.DataDir
	cfg.Logger = opts.Logger
	start := time.Now()
	dev, err := chain.StartDevchain(ctx, cfg)
	if err != nil {
		return fmt.Errorf("demo: dev chain: %w", err)
	}
	defer dev.Close()
	s := &story{ctx: ctx, w: w, clock: opts.Now, dev: dev}
	fmt.Fprintf(w, "dev chain %s (chain id %s) ready in %s; TaskRegistry %s\n", dev.URL, dev.ChainID, time.Since(start).Round(time.Millisecond), dev.Contracts.TaskRegistry)
	if len(dev.Accounts) < 3 {
		return fmt.Errorf("demo: dev chain has %d accounts, need 3", len(dev.Accounts))
	}
	backend, err := chain.DialRPC(ctx, dev.URL)
	if err != nil {
		return err
	}
	for i, name := range []string{"poster", "worker", "arbitrator"} {
		a, err := s.newActor(backend, name, dev.Accounts[i].Key)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			s.poster = a
		case 1:
			s.worker = a
		default:
			s.arbitrator = a
		}
		fmt.Fprintf(w, "%-10s %s\n", name, a.addr)
	}
	s.terms = func(amounts ...*big.Int) negotiation.Terms {
		ms := make([]negotiation.Milestone, len(amounts))
		for i, a := range amounts {
			ms[i] = negotiation.Milestone{Amount: negotiation.NewUint256(a), Description: fmt.Sprintf("chapter %d", i+1)}
		}
		var nonce [16]byte
		_, _ = rand.Read(nonce[:])
		return negotiation.Terms{
			Title: "Translate the user guide into Spanish", Category: "translation",
			ChainID: negotiation.NewUint256(dev.ChainID), Registry: negotiation.Address(dev.Contracts.TaskRegistry),
			Milestones: ms, Deadline: uint64(opts.Now.Add(72 * time.Hour).Unix()),
			Nonce: negotiation.NewUint256(new(big.Int).SetBytes(nonce[:])),
		}
	}
	before, err := s.balances()
	if err != nil {
		return err
	}
	s.printBalances("balances before", before)
	if err := s.task1(); err != nil {
		return err
	}
	if err := s.task2(); err != nil {
		return err
	}
	after, err := s.balances()
	if err != nil {
		return err
	}
	s.printBalances("balances after", after)
	for i, name := range []string{"poster", "worker", "arbitrator"} {
		d := new(big.Int).Sub(after[i], before[i])
		fmt.Fprintf(w, "  %-10s %+.6f ETH (gas included)\n", name, eth(d))
	}
	return nil
}

func (s *story) newActor(b chain.Backend, name string, key *ecdsa.PrivateKey) (*actor, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	c, err := chain.New(b, chain.NewKeySigner(key), s.dev.ClientConfig(), nil)
	if err != nil {
		return nil, err
	}
	return &actor{
		name: name, inbox: negotiation.Ed25519Key(priv), key: key,
		addr: negotiation.Address(chain.NewKeySigner(key).Address()), client: c,
		seq: map[string]uint64{}, prev: map[string]negotiation.Hash{},
	}, nil
}

func eth(wei *big.Int) float64 {
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(wei), big.NewFloat(params.Ether)).Float64()
	return f
}

func (s *story) balances() ([]*big.Int, error) {
	var out []*big.Int
	for _, a := range []*actor{s.poster, s.worker, s.arbitrator} {
		b, err := a.client.Backend().BalanceAt(s.ctx, common.Address(a.addr), nil)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (s *story) printBalances(title string, b []*big.Int) {
	fmt.Fprintf(s.w, "%s: poster %.6f ETH, worker %.6f ETH, arbitrator %.6f ETH\n", title, eth(b[0]), eth(b[1]), eth(b[2]))
}

// thread is one negotiation as the demo drives it.
type thread struct {
	s    *story
	nid  string
	th   *negotiation.Thread
	task *negotiation.Uint256
}

func (s *story) build(a *actor, nid string, task *negotiation.Uint256, to []negotiation.Address, p negotiation.Payload) (*negotiation.Envelope, error) {
	s.clock = s.clock.Add(time.Second)
	h := negotiation.Header{NegotiationID: nid, TaskID: task, Sequence: a.seq[nid] + 1, PreviousHash: a.prev[nid], Timestamp: s.clock, Sender: a.sender(), Recipients: to}
	e, err := negotiation.Build(h, p, a.inbox, negotiation.DecodeOptions{})
	if err != nil {
		return nil, err
	}
	a.seq[nid], a.prev[nid] = e.Sequence, e.Hash()
	return e, nil
}

// send builds an envelope, applies it and checks the state that follows.
func (t *thread) send(from, to *actor, desc string, p negotiation.Payload, want negotiation.State) (*negotiation.Envelope, negotiation.Outcome, error) {
	e, err := t.s.build(from, t.nid, t.task, []negotiation.Address{to.addr}, p)
	if err != nil {
		return nil, negotiation.Outcome{}, err
	}
	out := t.th.Apply(e, t.s.clock)
	t.s.line(desc, string(e.Type), e.Hash().String()[:14]+"…", out.To, out.Code)
	if !out.Effective() || out.To != want {
		return e, out, fmt.Errorf("demo: %s: got %s (%s), want %s", desc, out.To, out.Code, want)
	}
	return e, out, nil
}

// fact applies a chain fact observed in a receipt and checks the state.
func (t *thread) fact(desc string, rcpt *types.Receipt, f negotiation.Fact, want negotiation.State) error {
	out := t.th.Apply(f, t.s.clock)
	tx := "chain"
	if rcpt != nil {
		tx = fmt.Sprintf("tx %s… gas %d", rcpt.TxHash.Hex()[:12], rcpt.GasUsed)
	}
	t.s.line(desc, "["+negotiation.FactName(f)+"]", tx, out.To, out.Code)
	if out.Code != "" && out.Code != negotiation.CodeDuplicate || out.To != want {
		return fmt.Errorf("demo: %s: got %s (%s), want %s", desc, out.To, out.Code, want)
	}
	return nil
}

func (s *story) line(desc, what, ref string, st negotiation.State, code negotiation.Code) {
	s.step++
	state := string(st)
	if code != "" {
		state += " [" + string(code) + "]"
	}
	fmt.Fprintf(s.w, "%2d. %-50s %-20s %-26s -> %-10s %s\n", s.step, desc, what, ref, state, st.A2A())
}

// accept signs the settlement of the thread's current offer as a.
func (t *thread) accept(a *actor, worker negotiation.Address) (*negotiation.TaskAcceptance, error) {
	cur := t.th.Current()
	s, d, err := t.th.Settlement(cur)
	if err != nil {
		return nil, err
	}
	s.Worker = [20]byte(worker)
	digest, err := s.Digest(d)
	if err != nil {
		return nil, err
	}
	sig, err := negotiation.SignDigest(digest, a)
	if err != nil {
		return nil, err
	}
	return &negotiation.TaskAcceptance{AcceptedOfferHash: cur.Hash(), SettlementDigest: digest, Signature: sig}, nil
}

func newNID() (string, error) {
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	return negotiation.NewNegotiationID(r), nil
}
