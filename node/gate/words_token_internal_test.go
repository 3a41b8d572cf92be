package gate

import (
	"math/big"
	"slices"
	"testing"

	"github.com/parleynet/parley/approval"
)

// TestTokenWords: an act in an ERC-20 token reads in the token's terms
// when its arguments carry the token's metadata (symbol, name, decimals),
// in its smallest unit when the token has no decimals, and in ETH and wei
// for native ETH; the metadata is said once, in the token's line.
func TestTokenWords(t *testing.T) {
	const tok = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	cases := []struct {
		name string
		args map[string]any
		want []PlainLine
	}{
		{"symbol, name and decimals", map[string]any{
			"amount": "1500000", "token": tok, "milestoneAmounts": []any{"1000000", "500000"},
			"tokenSymbol": "USDC", "tokenName": "USD Coin", "tokenDecimals": "6",
		}, []PlainLine{
			{"Amount", "1.5 USDC (1500000 units)"},
			{"Token", "USDC (USD Coin), token " + tok + ", 6 decimals"},
			{"Milestones", "1 USDC (1000000 units); 0.5 USDC (500000 units)"},
		}},
		{"decimals without a symbol", map[string]any{"amount": "1500000", "token": tok, "tokenDecimals": "6"}, []PlainLine{
			{"Amount", "1.5 tokens (1500000 units)"},
			{"Token", "token " + tok + ", 6 decimals"},
		}},
		{"no metadata", map[string]any{"amount": "1500000", "token": tok}, []PlainLine{
			{"Amount", "1500000 units"},
			{"Token", "token " + tok + " (amounts in its smallest unit)"},
		}},
		{"native ETH", map[string]any{"amount": "1500000000000000000", "token": NativeToken}, []PlainLine{
			{"Amount", "1.5 ETH (1500000000000000000 wei)"},
			{"Token", "ETH (native)"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines := plainLines(ActFundEscrow, "", approval.IntentRequest{IntentHash: "h"}, tc.args)
			for _, w := range tc.want {
				if !slices.Contains(lines, w) {
					t.Errorf("no line %+v in %+v", w, lines)
				}
			}
			for _, l := range lines {
				if l.Label == "tokenSymbol" || l.Label == "tokenName" || l.Label == "tokenDecimals" {
					t.Errorf("the token's metadata is repeated: %+v", l)
				}
			}
		})
	}
	if got := FormatUnits(big.NewInt(-1234500), 4); got != "-123.45" {
		t.Errorf("FormatUnits(-1234500, 4) = %q", got)
	}
	if got := FormatUnits(big.NewInt(7), 0); got != "7" {
		t.Errorf("FormatUnits(7, 0) = %q", got)
	}
}
