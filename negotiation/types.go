package negotiation

import (
	"encoding/hex"
	"math/big"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ipfs/go-cid"
)

// SchemaVersion is the only envelope schemaVersion this package speaks.
const SchemaVersion = "azzle-xmtp-v1"

// TimeLayout is the one timestamp format on the wire: RFC 3339, UTC, exactly
// three fractional digits and Z.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeLayout (UTC, millisecond precision).
func FormatTime(t time.Time) string { return t.UTC().Truncate(time.Millisecond).Format(TimeLayout) }

var timeRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// ParseTime parses a wire timestamp, refusing every other RFC 3339 spelling.
func ParseTime(s string) (time.Time, error) {
	if !timeRE.MatchString(s) {
		return time.Time{}, reject(CodeBadTimestamp, "", "want YYYY-MM-DDThh:mm:ss.mmmZ, got %q", s)
	}
	t, err := time.Parse(TimeLayout, s)
	if err != nil {
		return time.Time{}, reject(CodeBadTimestamp, "", "%v", err)
	}
	return t, nil
}

// Address is an EVM address that travels EIP-55 checksummed.
type Address common.Address

// String returns the EIP-55 form.
func (a Address) String() string { return common.Address(a).Hex() }

// MarshalText encodes the EIP-55 form.
func (a Address) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText accepts only the exact EIP-55 checksummed form.
func (a *Address) UnmarshalText(b []byte) error { return parseAddress(a, b) }

// ParseAddress parses an EIP-55 checksummed address; any other spelling,
// including all-lowercase, is refused with CodeBadAddress.
func ParseAddress(s string) (Address, error) {
	var a Address
	err := parseAddress(&a, s)
	return a, err
}

// parseAddress checks the EIP-55 spelling of s digit by digit against the
// Keccak-256 of its lowercase hex, without allocating (an envelope holds
// several addresses; go-ethereum's round trip through Hex allocated five
// times each). TestParseAddressAgreesWithGoEthereum holds it to that round
// trip.
func parseAddress[S ~string | ~[]byte](a *Address, s S) error {
	if len(s) != 42 || s[0] != '0' || s[1] != 'x' {
		return reject(CodeBadAddress, "", "not a 0x-prefixed 20-byte address: %q", s)
	}
	slot := &checkedAddresses[(uint(s[2])<<12|uint(s[3])<<8|uint(s[40])<<4|uint(s[41]))%uint(len(checkedAddresses))]
	if c := slot.Load(); c != nil && c.spelling == string(s) {
		*a = c.addr // spelled exactly as an address checked before
		return nil
	}
	var lower [40]byte
	for i := range lower {
		c := s[2+i]
		switch {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f':
			lower[i] = c
		case 'A' <= c && c <= 'F':
			lower[i] = c + 'a' - 'A'
		default:
			return reject(CodeBadAddress, "", "not a 0x-prefixed 20-byte address: %q", s)
		}
	}
	h := crypto.Keccak256Hash(lower[:])
	for i, c := range lower {
		if c < 'a' {
			continue // a digit has no case
		}
		nibble := h[i/2] >> 4
		if i%2 == 1 {
			nibble = h[i/2] & 0x0f
		}
		if upper := s[2+i] < 'a'; upper != (nibble >= 8) {
			return reject(CodeBadAddress, "", "not EIP-55 checksummed: %q", s)
		}
	}
	for i := range a {
		a[i] = unhex(lower[2*i])<<4 | unhex(lower[2*i+1])
	}
	slot.Store(&checkedAddress{spelling: string(s), addr: *a})
	return nil
}

// checkedAddresses remembers addresses whose checksum was checked, by
// their exact spelling: a node sees the same few (its peers', the
// registry's, the token's) in envelope after envelope, and a hit skips the
// Keccak-256. Only checked spellings are stored, and a hit needs the same
// 42 bytes, so what it holds cannot make a wrong spelling pass.
var checkedAddresses [1024]atomic.Pointer[checkedAddress]

type checkedAddress struct {
	spelling string
	addr     Address
}

// PublicKey is a 32-byte ed25519 inbox key, 0x + 64 lowercase hex.
type PublicKey [32]byte

// String returns 0x-prefixed lowercase hex.
func (k PublicKey) String() string { return "0x" + hex.EncodeToString(k[:]) }

// MarshalText encodes 0x-prefixed lowercase hex.
func (k PublicKey) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText accepts exactly 0x + 64 lowercase hex digits.
func (k *PublicKey) UnmarshalText(b []byte) error { return parseHexInto(k[:], b) }

// EVMSignature is a 65-byte r||s||v secp256k1 signature, 0x + 130 lowercase hex.
type EVMSignature []byte

// MarshalText encodes 0x-prefixed lowercase hex.
func (s EVMSignature) MarshalText() ([]byte, error) { return []byte(HexBytes(s)), nil }

// UnmarshalText accepts exactly 0x + 130 lowercase hex digits.
func (s *EVMSignature) UnmarshalText(b []byte) error {
	v, err := parseHex(string(b), 65)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Uint256 is an unsigned integer below 2^256 that travels as a canonical
// decimal string ("0", or digits without a leading zero).
type Uint256 struct{ big.Int }

var uintRE = regexp.MustCompile(`^(0|[1-9][0-9]{0,77})$`)

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// NewUint256 returns x as a Uint256.
func NewUint256(x *big.Int) Uint256 {
	var u Uint256
	u.Set(x)
	return u
}

// U64 returns v as a Uint256.
func U64(v uint64) Uint256 { return NewUint256(new(big.Int).SetUint64(v)) }

// Big returns a copy of u as a *big.Int.
func (u Uint256) Big() *big.Int { return new(big.Int).Set(&u.Int) }

// MarshalText encodes the decimal form.
func (u Uint256) MarshalText() ([]byte, error) { return []byte(u.Int.String()), nil }

// MarshalJSON encodes the decimal form as a JSON string. It shadows the
// number encoding promoted from big.Int.
func (u Uint256) MarshalJSON() ([]byte, error) { return []byte(`"` + u.Int.String() + `"`), nil }

// UnmarshalJSON accepts only a JSON string holding a canonical decimal.
func (u *Uint256) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return reject(CodeBadInteger, "", "want a decimal string, got %s", b)
	}
	return u.UnmarshalText(b[1 : len(b)-1])
}

// String returns the decimal form.
func (u Uint256) String() string { return u.Int.String() }

// UnmarshalText accepts a canonical decimal string below 2^256.
func (u *Uint256) UnmarshalText(b []byte) error {
	s := string(b)
	if !uintRE.MatchString(s) {
		return reject(CodeBadInteger, "", "want a canonical decimal string, got %q", s)
	}
	u.SetString(s, 10)
	if u.Cmp(maxUint256) > 0 {
		return reject(CodeBadInteger, "", "exceeds 2^256-1")
	}
	return nil
}

// CID is a content identifier in its canonical string form (CIDv1, base32).
type CID string

// Parse returns the decoded CID, refusing anything but a CIDv1 in its
// canonical base32 spelling.
func (c CID) Parse() (cid.Cid, error) {
	v, err := cid.Decode(string(c))
	if err != nil {
		return cid.Undef, reject(CodeBadCID, "", "%v", err)
	}
	if v.Version() != 1 || v.String() != string(c) {
		return cid.Undef, reject(CodeBadCID, "", "want a CIDv1 in base32, got %q", string(c))
	}
	return v, nil
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// ParseNegotiationID parses a lowercase UUID v4 into its 16 bytes.
func ParseNegotiationID(s string) ([16]byte, error) {
	var out [16]byte
	if !uuidRE.MatchString(s) {
		return out, reject(CodeBadUUID, "negotiationId", "want a lowercase UUID v4, got %q", s)
	}
	b, _ := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	copy(out[:], b)
	return out, nil
}

// NewNegotiationID formats 16 random bytes as a UUID v4 (the version and
// variant bits are set here); the caller supplies the randomness.
func NewNegotiationID(random [16]byte) string {
	random[6] = random[6]&0x0f | 0x40
	random[8] = random[8]&0x3f | 0x80
	h := hex.EncodeToString(random[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
