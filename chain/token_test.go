package chain

import (
	"errors"
	"math/big"
	"testing"
)

// TestTokenMetadataAndAllowance: Token reads a token's optional ERC-20
// metadata (the TestToken's symbol, name and 18 decimals) and refuses an
// address without code; TokenAllowance reads what the TaskRegistry may
// take, as ApproveToken sets it.
func TestTokenMetadataAndAllowance(t *testing.T) {
	e := newEnv(t)
	token := e.deployToken(t)
	info, err := e.poster.c.Token(t.Context(), token)
	if err != nil {
		t.Fatal(err)
	}
	if info.Address != token || info.Symbol != "PTT" || info.Name != "Parley Test Token" || !info.HasDecimals || info.Decimals != 18 {
		t.Fatalf("Token = %+v", info)
	}
	if _, err := e.poster.c.Token(t.Context(), e.outsider.addr); !errors.Is(err, ErrNoContract) {
		t.Fatalf("Token of an account without code = %v, want ErrNoContract", err)
	}
	if a, err := e.poster.c.TokenAllowance(t.Context(), token, e.poster.addr); err != nil || a.Sign() != 0 {
		t.Fatalf("allowance before approve = %v, %v", a, err)
	}
	if _, err := e.poster.c.ApproveToken(t.Context(), token, big.NewInt(4242)); err != nil {
		t.Fatal(err)
	}
	if a, err := e.poster.c.TokenAllowance(t.Context(), token, e.poster.addr); err != nil || a.Cmp(big.NewInt(4242)) != 0 {
		t.Fatalf("allowance after approve = %v, %v", a, err)
	}
}
