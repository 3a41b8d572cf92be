package chain

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/parleynet/parley/negotiation"
)

var (
	ether    = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	testBond = big.NewInt(1_000_000_000_000_000) // 0.001 ETH
)

func eths(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), ether) }

// party is one funded account with its own client.
type party struct {
	key  *ecdsa.PrivateKey
	addr common.Address
	sig  *KeySigner
	c    *Client
}

// env is a simulated chain with the contracts deployed and funded parties:
// poster, worker, arbitrator and two others (a new worker, an outsider).
type env struct {
	t      testing.TB
	sim    *Simulated
	addrs  Addresses
	cfg    Config
	domain negotiation.Domain

	poster, worker, arbitrator, newWorker, outsider *party
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newEnv(t testing.TB) *env {
	t.Helper()
	keys := make([]*ecdsa.PrivateKey, 6)
	alloc := types.GenesisAlloc{}
	for i := range keys {
		keys[i] = newKey(t)
		alloc[crypto.PubkeyToAddress(keys[i].PublicKey)] = types.Account{Balance: eths(1_000_000)}
	}
	sim := StartSimulated(alloc)
	t.Cleanup(sim.Close)
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.PollInterval = 2 * time.Millisecond
	dc := DefaultDeployConfig()
	dc.Bond = testBond
	deployer := NewKeySigner(keys[5])
	addrs, err := Deploy(ctx, sim, deployer, cfg, dc, nil)
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	cfg.Contracts = addrs
	e := &env{t: t, sim: sim, addrs: addrs, cfg: cfg}
	mk := func(k *ecdsa.PrivateKey) *party {
		s := NewKeySigner(k)
		c, err := New(sim, s, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return &party{key: k, addr: s.Address(), sig: s, c: c}
	}
	e.poster, e.worker, e.arbitrator, e.newWorker, e.outsider = mk(keys[0]), mk(keys[1]), mk(keys[2]), mk(keys[3]), mk(keys[4])
	e.domain, err = e.poster.c.Domain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}

func rand32() (h [32]byte) { copy(h[:], randBytes(32)); return }

// settlement returns an ETH settlement between the env's poster and worker
// over the given milestone amounts (wei), a day from the chain's clock.
func (e *env) settlement(amounts ...*big.Int) negotiation.Settlement {
	e.t.Helper()
	head, err := e.sim.HeaderByNumber(context.Background(), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	s := negotiation.Settlement{
		Poster: e.poster.addr, Worker: e.worker.addr,
		Amount: new(big.Int), Deadline: head.Time + 86400,
		TermsHash: rand32(), AcceptedOfferHash: rand32(),
		Nonce: new(big.Int).SetBytes(randBytes(16)),
	}
	copy(s.NegotiationID[:], randBytes(16))
	for _, a := range amounts {
		s.MilestoneAmounts = append(s.MilestoneAmounts, new(big.Int).Set(a))
		s.Amount.Add(s.Amount, a)
	}
	return s
}

func (e *env) sign(p *party, digest [32]byte) []byte {
	e.t.Helper()
	sig, err := p.sig.SignDigest(digest)
	if err != nil {
		e.t.Fatal(err)
	}
	return sig
}

func (e *env) digest(s negotiation.Settlement) [32]byte {
	e.t.Helper()
	d, err := s.Digest(e.domain)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// fund creates a task from s signed by poster and worker.
func (e *env) fund(s negotiation.Settlement) *TaskResult {
	e.t.Helper()
	d := e.digest(s)
	res, err := e.poster.c.CreateTask(context.Background(), s, e.sign(e.poster, d), e.sign(e.worker, d))
	if err != nil {
		e.t.Fatalf("createTask: %v", err)
	}
	return res
}

func (e *env) balance(a common.Address) *big.Int {
	e.t.Helper()
	b, err := e.sim.BalanceAt(context.Background(), a, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

func (e *env) owed(token, a common.Address) *big.Int {
	e.t.Helper()
	v, err := e.poster.c.Owed(context.Background(), token, a)
	if err != nil {
		e.t.Fatal(err)
	}
	return v
}

// wantRevert fails unless err is a RevertError with the given code.
func wantRevert(t testing.TB, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want revert %q, got success", code)
	}
	if !errors.Is(err, ErrReverted) {
		t.Fatalf("want revert %q, got %v", code, err)
	}
	if got := RevertCode(err); got != code {
		t.Fatalf("want revert %q, got %q (%v)", code, got, err)
	}
}

func (e *env) advance(d time.Duration) {
	e.t.Helper()
	if err := e.sim.AdjustTime(d); err != nil {
		e.t.Fatal(err)
	}
}
