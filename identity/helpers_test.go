package identity

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// t0 is the fixed time of every test and vector: 2026-06-13T12:00:00Z.
var t0 = time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)

var testPass = []byte("correct horse battery staple")

// testConfig returns a Config in a fresh temporary directory with low
// scrypt costs (tests only).
func testConfig(t *testing.T) Config {
	t.Helper()
	cfg := DefaultConfig(t.TempDir())
	cfg.ScryptWorkFactor = 10
	cfg.KeystoreScryptN = 1 << 8
	cfg.KeystoreScryptP = 1
	return cfg
}

// party is one node's keys built from a fixed seed, with no disk.
type party struct {
	inbox *InboxKey
	evm   *EVMKey
	enc   *EncryptionKey
	link  *Link
	keys  *memKeys
}

// memKeys is an in-memory KeyLookup: the set of private encryption keys a
// party holds.
type memKeys struct{ keys []*EncryptionKey }

func (m *memKeys) EncryptionKey(id KeyID) (*EncryptionKey, bool) {
	for _, k := range m.keys {
		if k.ID == id {
			return k, true
		}
	}
	return nil, false
}

func seed(name, purpose string) []byte {
	s := sha256.Sum256([]byte("parley test vector " + name + " " + purpose))
	return s[:]
}

// newParty derives a party's keys from its name: deterministic, so golden
// vectors reproduce.
func newParty(t testing.TB, name string, kem KEM) *party {
	t.Helper()
	inbox, err := NewInboxKeyFromSeed(seed(name, "inbox"))
	if err != nil {
		t.Fatal(err)
	}
	priv, err := crypto.ToECDSA(seed(name, "evm"))
	if err != nil {
		t.Fatal(err)
	}
	evm, err := NewEVMKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := DeriveEncryptionKey(kem, seed(name, "enc"), t0.Add(30*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	link, err := CreateLink(evm, inbox, []*PublicEncryptionKey{enc.PublicKey()}, t0, t0.Add(90*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return &party{inbox: inbox, evm: evm, enc: enc, link: link, keys: &memKeys{keys: []*EncryptionKey{enc}}}
}

func (p *party) sealer(t testing.TB) *Sealer {
	t.Helper()
	s, err := NewSealer(DefaultSealerConfig(p.inbox, p.link, p.keys))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantCode(t *testing.T, err error, code Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	if got := CodeOf(err); got != code {
		t.Fatalf("got %v (code %q), want code %q", err, got, code)
	}
}
