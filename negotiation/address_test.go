package negotiation

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// geth is the EIP-55 check as go-ethereum spells it: the address's Hex
// round trip.
func geth(s string) bool {
	return len(s) == 42 && strings.HasPrefix(s, "0x") && common.IsHexAddress(s) && common.HexToAddress(s).Hex() == s
}

func checkAddress(t *testing.T, s string) {
	a, err := ParseAddress(s)
	if ok := err == nil; ok != geth(s) {
		t.Fatalf("ParseAddress(%q): %v, go-ethereum says valid=%v", s, err, geth(s))
	}
	if err == nil && a.String() != s {
		t.Fatalf("ParseAddress(%q) = %s", s, a)
	}
	if err != nil && CodeOf(err) != CodeBadAddress {
		t.Fatalf("ParseAddress(%q): code %s", s, CodeOf(err))
	}
}

// TestParseAddressAgreesWithGoEthereum checks the allocation-free EIP-55
// check against go-ethereum on checksummed addresses and every one-letter
// change of case of them.
func TestParseAddressAgreesWithGoEthereum(t *testing.T) {
	for i := range 50 {
		s := common.BytesToAddress([]byte(strings.Repeat(string(rune('a'+i%26)), i%20+1))).Hex()
		checkAddress(t, s)
		checkAddress(t, s) // from the cache of checked spellings
		checkAddress(t, strings.ToLower(s))
		checkAddress(t, "0X"+s[2:])
		checkAddress(t, s[:41]+"g")
		for j := 2; j < len(s); j++ {
			b := []byte(s)
			if b[j] >= 'a' {
				b[j] -= 'a' - 'A'
			} else if b[j] >= 'A' {
				b[j] += 'a' - 'A'
			}
			checkAddress(t, string(b))
		}
	}
}

func FuzzParseAddress(f *testing.F) {
	f.Add("0x52908400098527886E0F7030069857D2E4169EE7")
	f.Add("0x52908400098527886e0f7030069857d2e4169ee7")
	f.Fuzz(func(t *testing.T, s string) { checkAddress(t, s) })
}
