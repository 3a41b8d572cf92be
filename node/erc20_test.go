package node_test

import (
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/contracts/testbindings"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// testToken is a TestToken (contracts/src/test: "Parley Test Token",
// PTT, 18 decimals, anyone mints) deployed on a chain, with a client of
// the account that deployed it.
type testToken struct {
	addr     common.Address
	registry common.Address
	c        *chain.Client
	tok      *testbindings.TestToken
}

// deployTestToken deploys a TestToken from c's account.
func deployTestToken(t *testing.T, c *chain.Client) *testToken {
	t.Helper()
	code, err := hexutil.Decode(testbindings.TestTokenMetaData.Bin)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Transact(t.Context(), nil, nil, code)
	if err != nil {
		t.Fatalf("deploying the TestToken: %v", err)
	}
	return &testToken{addr: r.ContractAddress, registry: c.Contracts().TaskRegistry, c: c, tok: testbindings.NewTestToken()}
}

// mint mints amount units to a.
func (tt *testToken) mint(t *testing.T, a negotiation.Address, amount *big.Int) {
	t.Helper()
	if _, err := tt.c.Transact(t.Context(), &tt.addr, nil, tt.tok.PackMint(common.Address(a), amount)); err != nil {
		t.Fatalf("minting: %v", err)
	}
}

// balance returns a's balance of the token.
func (tt *testToken) balance(t *testing.T, a common.Address) *big.Int {
	t.Helper()
	b, err := tt.c.TokenBalance(t.Context(), tt.addr, a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// allowance returns what the TaskRegistry may take from a.
func (tt *testToken) allowance(t *testing.T, a negotiation.Address) *big.Int {
	t.Helper()
	v, err := tt.c.TokenAllowance(t.Context(), tt.addr, common.Address(a))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// nonceOf returns a's transaction count.
func nonceOf(t *testing.T, c *chain.Client, a negotiation.Address) uint64 {
	t.Helper()
	n, err := c.Backend().NonceAt(t.Context(), common.Address(a), nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// units returns n whole PTT (18 decimals) plus frac thousandths.
func units(n, milli int64) *big.Int {
	x := new(big.Int).Mul(big.NewInt(n*1000+milli), big.NewInt(1_000_000_000_000_000))
	return x
}

// hasLine reports whether lines holds one that starts with prefix and
// contains every one of parts.
func hasLine(lines []string, prefix string, parts ...string) bool {
	return slices.ContainsFunc(lines, func(l string) bool {
		if !strings.HasPrefix(l, prefix) {
			return false
		}
		for _, p := range parts {
			if !strings.Contains(l, p) {
				return false
			}
		}
		return true
	})
}

// erc20Story runs a whole task in the token tt between poster and worker,
// both already connected and holding ETH for gas, poster with passkeys
// (key) and the worker on an approving gate: the poster proposes two
// milestones in the token, both sign (the poster's approval shows the
// token, its symbol and decimals and the amount in its terms), the poster
// funds the escrow in one approved act (approve then createTask), the
// first createTask fails for want of tokens after its approve and the
// second is retried without approving again, the worker delivers both
// milestones, the poster accepts each (its approval in PTT), and the
// worker withdraws the token;
// the token balances move by the task's amount to the unit.
func erc20Story(t *testing.T, poster, worker *tnode, key func(id string), tt *testToken) {
	t.Helper()
	m0, m1 := units(300, 0), units(150, 500)
	amount := new(big.Int).Add(m0, m1)
	// One unit short: the first createTask reverts after its approve.
	tt.mint(t, poster.Address(), new(big.Int).Sub(amount, big.NewInt(1)))
	registryBefore := tt.balance(t, tt.registry)

	s := spec("Translate the changelog", m0, m1)
	s.Token = negotiation.Address(tt.addr)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), s)
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	wv := worker.waitState(nid, negotiation.StateProposed)
	if tv := wv.Token; tv == nil || tv.Address != negotiation.Address(tt.addr) || tv.Symbol != "PTT" || tv.Name != "Parley Test Token" || tv.Decimals == nil || *tv.Decimals != 18 {
		t.Fatalf("the worker's thread shows the token %+v", wv.Token)
	}
	if got := wv.Token.Format(amount); got != "450.5 PTT (450500000000000000000 units of 18 decimals)" {
		t.Fatalf("the amount in the token: %q", got)
	}
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, 2)

	// The poster's settlement signature: the approval reads in PTT.
	done := runAct(func() error { _, err := poster.Accept(t.Context(), nid); return err })
	p := pending(t, poster, 1)[0]
	lines := linesOf(p)
	if p.Act != node.ActSignSettlement ||
		!hasLine(lines, "Amount: ", "450.5 PTT (450500000000000000000 units)") ||
		!hasLine(lines, "Token: ", "PTT (Parley Test Token)", tt.addr.Hex(), "18 decimals") ||
		!hasLine(lines, "Milestones: ", "300 PTT (300000000000000000000 units)", "150.5 PTT (150500000000000000000 units)") ||
		!hasLine(lines, "What this means: ", "450.5 PTT") {
		t.Fatalf("the settlement's approval reads:\n%s", strings.Join(lines, "\n"))
	}
	key(p.Request.RequestID)
	if err := done(); err != nil {
		t.Fatal(err)
	}
	poster.waitState(nid, negotiation.StateAgreed)

	// Fund: one approval covers approve and createTask.
	fundOnce := func() error {
		done := runAct(func() error { _, err := poster.Fund(t.Context(), nid); return err })
		p := pending(t, poster, 1)[0]
		lines := linesOf(p)
		if p.Act != node.ActFundEscrow ||
			!hasLine(lines, "Amount: ", "450.5 PTT (450500000000000000000 units)") ||
			!hasLine(lines, "Token: ", "PTT (Parley Test Token)", "18 decimals") ||
			!hasLine(lines, "What this means: ", "exactly 450.5 PTT", "approve", "createTask") {
			t.Fatalf("the funding's approval reads:\n%s", strings.Join(lines, "\n"))
		}
		key(p.Request.RequestID)
		return done()
	}
	err = fundOnce()
	if node.CodeOf(err) != node.CodeChainFailed {
		t.Fatalf("funding with one unit too few = %v, want chain_failed", err)
	}
	if got := tt.allowance(t, poster.Address()); got.Cmp(amount) != 0 {
		t.Fatalf("after the failed createTask the registry may take %s, want exactly %s", got, amount)
	}
	if v, _ := poster.Thread(nid); v.State != negotiation.StateAgreed {
		t.Fatalf("the failed funding left the thread %s", v.State)
	}
	tt.mint(t, poster.Address(), big.NewInt(1))
	posterBefore := tt.balance(t, common.Address(poster.Address()))
	sent := nonceOf(t, tt.c, poster.Address())
	if err := fundOnce(); err != nil {
		t.Fatal(err)
	}
	if d := nonceOf(t, tt.c, poster.Address()) - sent; d != 1 {
		t.Fatalf("the retried funding sent %d transactions, want createTask alone (the allowance stood)", d)
	}
	if got := tt.allowance(t, poster.Address()); got.Sign() != 0 {
		t.Fatalf("the registry may still take %s after createTask", got)
	}
	if got := new(big.Int).Sub(posterBefore, tt.balance(t, common.Address(poster.Address()))); got.Cmp(amount) != 0 {
		t.Fatalf("the poster paid %s units into escrow, want %s", got, amount)
	}
	if got := new(big.Int).Sub(tt.balance(t, tt.registry), registryBefore); got.Cmp(amount) != 0 {
		t.Fatalf("the TaskRegistry holds %s units more, want %s", got, amount)
	}
	worker.waitState(nid, negotiation.StateFunded)

	for m, file := range [][]byte{[]byte("Changelog 1.0, translated\n"), []byte("Changelog 1.1, translated\n")} {
		deliver(t, poster, worker, nid, m, file)
		done := runAct(func() error { _, err := poster.AcceptDelivery(t.Context(), nid, m); return err })
		p := pending(t, poster, 1)[0]
		want := []string{"300 PTT (300000000000000000000 units)", "150.5 PTT (150500000000000000000 units)"}[m]
		if lines := linesOf(p); p.Act != node.ActReleaseMilestone || !hasLine(lines, "Amount: ", want) ||
			!hasLine(lines, "Token: ", "PTT (Parley Test Token)", "18 decimals") || !hasLine(lines, "What this means: ", strings.Fields(want)[0]+" PTT") {
			t.Fatalf("the release's approval reads:\n%s", strings.Join(lines, "\n"))
		}
		key(p.Request.RequestID)
		if err := done(); err != nil {
			t.Fatal(err)
		}
	}
	worker.waitState(nid, negotiation.StateCompleted)
	if v, _ := poster.Thread(nid); v.State != negotiation.StateCompleted {
		t.Fatalf("the poster's thread: %s", v.State)
	}

	token := negotiation.Address(tt.addr)
	if owed, err := worker.Owed(t.Context(), token); err != nil || owed.Cmp(amount) != 0 {
		t.Fatalf("the worker is owed %v units, %v; want %s", owed, err, amount)
	}
	if _, err := worker.Withdraw(t.Context(), negotiation.Address{}); node.CodeOf(err) != node.CodeNothingOwed {
		t.Fatalf("withdrawing ETH from a token task: %v", err)
	}
	workerBefore := tt.balance(t, common.Address(worker.Address()))
	wd, err := worker.Withdraw(t.Context(), token)
	if err != nil || wd.Tx == nil || wd.Detail["amount"] != amount.String() || wd.Detail["token"] != token.String() ||
		wd.Detail["amountInToken"] != "450.5 PTT (450500000000000000000 units of 18 decimals)" {
		t.Fatalf("Withdraw = %+v, %v", wd, err)
	}
	if got := new(big.Int).Sub(tt.balance(t, common.Address(worker.Address())), workerBefore); got.Cmp(amount) != 0 {
		t.Fatalf("the worker received %s units, want %s", got, amount)
	}
	if got := tt.balance(t, tt.registry); got.Cmp(registryBefore) != 0 {
		t.Fatalf("the TaskRegistry holds %s units after the withdrawal, want %s", got, registryBefore)
	}
	if _, err := worker.Withdraw(t.Context(), token); node.CodeOf(err) != node.CodeNothingOwed {
		t.Fatalf("a second withdrawal: %v", err)
	}
}

// TestERC20Task runs a whole task in an ERC-20 token on the embedded dev
// chain (erc20Story).
func TestERC20Task(t *testing.T) {
	w := newWorld(t, true)
	poster := w.add("poster", withPasskeys())
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	key := enrol(t, poster, "laptop")

	b, err := chain.DialRPC(t.Context(), w.dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	c, err := chain.New(b, w.dev.Deployer.Signer(), w.dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	erc20Story(t, poster, worker, func(id string) { approveWith(t, poster, key, id) }, deployTestToken(t, c))
}

// TestERC20AmendTopUp: both parties amend a funded task in the TestToken
// to a larger escrow; the poster's node lets the TaskRegistry take
// exactly the top-up (approve) and amends; the escrow on chain and the
// token balances move by the top-up, to the unit, and nothing is left
// allowed.
func TestERC20AmendTopUp(t *testing.T) {
	w := newWorld(t, true)
	gate := &recGate{}
	poster := w.add("poster", withGate(gate))
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	b, err := chain.DialRPC(t.Context(), w.dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	c, err := chain.New(b, w.dev.Deployer.Signer(), w.dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tt := deployTestToken(t, c)
	tt.mint(t, poster.Address(), units(1000, 0))

	s := spec("Subtitle the talk", units(100, 0))
	s.Token = negotiation.Address(tt.addr)
	res, err := poster.ProposeTask(t.Context(), worker.Address(), s)
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	if _, err := worker.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, 2)
	if _, err := poster.Accept(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	if _, err := poster.Fund(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateFunded)
	posterBefore, registryBefore := tt.balance(t, common.Address(poster.Address())), tt.balance(t, tt.registry)

	deadline := time.Now().Add(96 * time.Hour).Truncate(time.Second)
	amended := []node.MilestoneSpec{{Amount: units(125, 250), Description: "with a glossary"}}
	before, _ := poster.Thread(nid)
	if _, err := worker.Amend(t.Context(), nid, node.AmendSpec{Milestones: amended, Deadline: deadline}); err != nil {
		t.Fatal(err)
	}
	poster.waitLog(nid, len(before.Log)+1)
	pres, err := poster.Amend(t.Context(), nid, node.AmendSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if pres.Tx == nil || pres.Detail["coSigned"] != "true" {
		t.Fatalf("the poster's Amend = %+v", pres)
	}
	up := units(25, 250)
	asked := gate.asked(node.ActSignAmendment)
	if len(asked) != 1 {
		t.Fatalf("the poster's gate was asked %d amendments", len(asked))
	}
	if a := argsOf(t, asked[0]); a["topUp"] != up.String() || a["token"] != negotiation.Address(tt.addr).String() || a["tokenSymbol"] != "PTT" || a["tokenDecimals"] != "18" ||
		!strings.Contains(asked[0].Request.Context.Reason, "25.25 PTT") {
		t.Fatalf("the amendment's approval: %v, %q", a, asked[0].Request.Context.Reason)
	}
	if task := chainTask(t, w, pres.Thread); chain.Escrow(task).Cmp(units(125, 250)) != 0 {
		t.Fatalf("the escrow on chain is %s", chain.Escrow(task))
	}
	if got := new(big.Int).Sub(posterBefore, tt.balance(t, common.Address(poster.Address()))); got.Cmp(up) != 0 {
		t.Fatalf("the poster paid %s more, want %s", got, up)
	}
	if got := new(big.Int).Sub(tt.balance(t, tt.registry), registryBefore); got.Cmp(up) != 0 {
		t.Fatalf("the registry holds %s more, want %s", got, up)
	}
	if got := tt.allowance(t, poster.Address()); got.Sign() != 0 {
		t.Fatalf("the registry may still take %s", got)
	}
}
