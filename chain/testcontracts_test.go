package chain

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/parleynet/parley/contracts/testbindings"
)

// deployFrom deploys creation code bin with constructor args from p.
func (e *env) deployFrom(t *testing.T, p *party, bin string, args []byte) common.Address {
	t.Helper()
	code, err := hexutil.Decode(bin)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.c.Transact(t.Context(), nil, nil, append(code, args...))
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	return r.ContractAddress
}

// exec sends data to `to` from p and fails the test on error.
func (e *env) exec(t *testing.T, p *party, to common.Address, value *big.Int, data []byte) {
	t.Helper()
	if _, err := p.c.Transact(t.Context(), &to, value, data); err != nil {
		t.Fatalf("transact: %v", err)
	}
}

// deployToken deploys a TestToken and mints the poster 1,000,000 units.
func (e *env) deployToken(t *testing.T) common.Address {
	t.Helper()
	tok := testbindings.NewTestToken()
	addr := e.deployFrom(t, e.poster, testbindings.TestTokenMetaData.Bin, nil)
	e.exec(t, e.poster, addr, nil, tok.PackMint(e.poster.addr, big.NewInt(1_000_000)))
	return addr
}
