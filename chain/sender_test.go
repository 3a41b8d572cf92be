package chain

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// recordingBackend is the simulated chain with a log of every transaction
// the node accepted.
type recordingBackend struct {
	*Simulated
	mu   sync.Mutex
	sent []*types.Transaction
}

func (r *recordingBackend) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	if err := r.Simulated.SendTransaction(ctx, tx); err != nil {
		return err
	}
	r.mu.Lock()
	r.sent = append(r.sent, tx)
	r.mu.Unlock()
	return nil
}

func (r *recordingBackend) sentTxs() []*types.Transaction {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*types.Transaction(nil), r.sent...)
}

// waitSent waits until n transactions were accepted.
func (r *recordingBackend) waitSent(t *testing.T, n int) []*types.Transaction {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if s := r.sentTxs(); len(s) >= n {
			return s
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("only %d of %d transactions were sent", len(r.sentTxs()), n)
	return nil
}

func (e *env) recordingClient(t *testing.T, p *party, mutate func(*Config)) (*Client, *recordingBackend) {
	t.Helper()
	rb := &recordingBackend{Simulated: e.sim}
	cfg := e.cfg
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := New(rb, p.sig, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, rb
}

func TestStuckTransactionIsReplaced(t *testing.T) {
	e := newEnv(t)
	c, rb := e.recordingClient(t, e.poster, func(c *Config) {
		c.StuckAfter = 20 * time.Millisecond
		c.MaxFeeBumps = 3
	})
	e.sim.SetAutoCommit(false)
	defer e.sim.SetAutoCommit(true)

	type result struct {
		r   *types.Receipt
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := c.Anchor(context.Background(), rand32(), 1)
		done <- result{r, err}
	}()
	// Nothing is mined until the replacement is in the pool.
	sent := rb.waitSent(t, 2)
	e.sim.Commit()
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	first := sent[0]
	if res.r.TxHash == first.Hash() {
		t.Fatal("the original transaction was mined, not its replacement")
	}
	var mined *types.Transaction
	for _, tx := range rb.sentTxs() {
		if tx.Hash() == res.r.TxHash {
			mined = tx
		}
	}
	if mined == nil || mined.Nonce() != first.Nonce() {
		t.Fatal("the mined transaction is not a replacement of the first")
	}
	if mined.GasTipCap().Cmp(first.GasTipCap()) <= 0 || mined.GasFeeCap().Cmp(first.GasFeeCap()) <= 0 {
		t.Fatalf("replacement fees %v/%v not above %v/%v", mined.GasTipCap(), mined.GasFeeCap(), first.GasTipCap(), first.GasFeeCap())
	}
	if n, _ := e.poster.c.LastAnchorCount(t.Context(), e.poster.addr); n != 1 {
		t.Fatal("the anchor did not land")
	}
}

func TestConcurrentSendsGetDistinctNonces(t *testing.T) {
	e := newEnv(t)
	c, rb := e.recordingClient(t, e.poster, nil)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.PublishScope(context.Background(), rand32(), rand32())
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var nonces []uint64
	for _, tx := range rb.sentTxs() {
		nonces = append(nonces, tx.Nonce())
	}
	sort.Slice(nonces, func(i, j int) bool { return nonces[i] < nonces[j] })
	if len(nonces) != n {
		t.Fatalf("%d transactions sent, want %d", len(nonces), n)
	}
	for i := 1; i < n; i++ {
		if nonces[i] != nonces[i-1]+1 {
			t.Fatalf("nonces not contiguous: %v", nonces)
		}
	}
}

func TestNonceResyncAfterAnotherSender(t *testing.T) {
	e := newEnv(t)
	// Two clients share one key (say, two processes of one node).
	a, _ := e.recordingClient(t, e.poster, nil)
	b, _ := e.recordingClient(t, e.poster, nil)
	if _, err := a.Anchor(t.Context(), rand32(), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Anchor(t.Context(), rand32(), 2); err != nil {
		t.Fatal(err)
	}
	// a's counter is behind; its next send re-reads the nonce and succeeds.
	if _, err := a.Anchor(t.Context(), rand32(), 3); err != nil {
		t.Fatal(err)
	}
}

func TestRevertAfterMiningIsDecoded(t *testing.T) {
	e := newEnv(t)
	c, rb := e.recordingClient(t, e.poster, nil)
	s := e.settlement(eths(1))
	d := e.digest(s)
	ps, ws := e.sign(e.poster, d), e.sign(e.worker, d)
	e.sim.SetAutoCommit(false)
	defer e.sim.SetAutoCommit(true)
	// Two sends of one settlement pass gas estimation (neither is mined
	// yet); the second fails on chain.
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := c.CreateTask(context.Background(), s, ps, ws)
			errs <- err
		}()
	}
	rb.waitSent(t, 2)
	e.sim.Commit()
	var failed error
	for range 2 {
		if err := <-errs; err != nil {
			failed = err
		}
	}
	wantRevert(t, failed, "digest_used")
}

func TestRefusalCostsNothing(t *testing.T) {
	e := newEnv(t)
	c, rb := e.recordingClient(t, e.outsider, nil)
	before := e.balance(e.outsider.addr)
	s := e.settlement(eths(1))
	d := e.digest(s)
	_, err := c.CreateTask(t.Context(), s, e.sign(e.poster, d), e.sign(e.worker, d))
	wantRevert(t, err, "not_poster")
	if len(rb.sentTxs()) != 0 {
		t.Fatal("a refused call was sent")
	}
	if e.balance(e.outsider.addr).Cmp(before) != 0 {
		t.Fatal("a refused call cost gas")
	}
}

func TestWrongChainID(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.ChainID = eths(0).SetInt64(1)
	c, err := New(e.sim, e.poster.sig, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Anchor(t.Context(), rand32(), 1); !errors.Is(err, ErrWrongChain) {
		t.Fatalf("got %v, want ErrWrongChain", err)
	}
}

func TestConfigValidate(t *testing.T) {
	good := DefaultConfig()
	good.Contracts = Addresses{TaskRegistry: [20]byte{1}, ArbitrationModule: [20]byte{2}, IdentityLink: [20]byte{3}, TaskScopeRegistry: [20]byte{4}, LedgerAnchor: [20]byte{5}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Config){
		"no confirmations":   func(c *Config) { c.Confirmations = 0 },
		"zero poll interval": func(c *Config) { c.PollInterval = 0 },
		"small fee bump":     func(c *Config) { c.FeeBumpPercent = 5 },
		"no registry":        func(c *Config) { c.Contracts.TaskRegistry = [20]byte{} },
		"negative chain id":  func(c *Config) { c.ChainID = eths(0).SetInt64(-1) },
		"zero log range":     func(c *Config) { c.LogRange = 0 },
	} {
		c := good
		mutate(&c)
		if err := c.Validate(); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: got %v", name, err)
		}
	}
}
