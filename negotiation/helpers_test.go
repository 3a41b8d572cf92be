package negotiation

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// party is a test participant with deterministic keys.
type party struct {
	name  string
	inbox ed25519.PrivateKey
	evm   *ecdsa.PrivateKey
	addr  Address
	seq   uint64
	prev  Hash
	last  time.Time
}

func newParty(t testing.TB, name string) *party {
	t.Helper()
	seed := sha256.Sum256([]byte("parley test inbox " + name))
	evmSeed := sha256.Sum256([]byte("parley test evm " + name))
	k, err := crypto.ToECDSA(evmSeed[:])
	if err != nil {
		t.Fatal(err)
	}
	return &party{name: name, inbox: ed25519.NewKeyFromSeed(seed[:]), evm: k, addr: Address(crypto.PubkeyToAddress(k.PublicKey))}
}

func (p *party) sender() Sender {
	var pk PublicKey
	copy(pk[:], p.inbox.Public().(ed25519.PublicKey))
	return Sender{EVMAddress: p.addr, XMTPPublicKey: pk}
}

type evmSigner struct{ k *ecdsa.PrivateKey }

func (s evmSigner) Sign(d []byte) ([]byte, error) { return crypto.Sign(d, s.k) }

func (p *party) signDigest(t testing.TB, d [32]byte) EVMSignature {
	t.Helper()
	sig, err := SignDigest(d, evmSigner{p.evm})
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// send builds the party's next envelope in negotiation nid.
func (p *party) send(t testing.TB, nid string, at time.Time, to []Address, pl Payload) *Envelope {
	t.Helper()
	e, err := p.build(nid, at, to, pl)
	if err != nil {
		t.Fatalf("%s: build %s: %v", p.name, pl.MessageType(), err)
	}
	return e
}

func (p *party) build(nid string, at time.Time, to []Address, pl Payload) (*Envelope, error) {
	h := Header{NegotiationID: nid, Sequence: p.seq + 1, PreviousHash: p.prev, Timestamp: at, Sender: p.sender(), Recipients: to}
	e, err := Build(h, pl, Ed25519Key(p.inbox), DecodeOptions{})
	if err != nil {
		return nil, err
	}
	p.seq, p.prev, p.last = e.Sequence, e.Hash(), at
	return e, nil
}

var (
	testChainID  = big.NewInt(31337)
	testRegistry = Address{0x5f, 0xbd, 0xb2, 0x31, 0x56, 0x78, 0xaf, 0xec, 0xb3, 0x67, 0xf0, 0x32, 0xd9, 0x3f, 0x64, 0x2f, 0x64, 0x18, 0x0a, 0xa3}
	t0           = time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)
)

func testTerms(amounts ...int64) Terms {
	ms := make([]Milestone, len(amounts))
	for i, a := range amounts {
		ms[i] = Milestone{Amount: U64(uint64(a)), Description: "milestone"}
	}
	return Terms{
		Title: "Translate the user guide", ChainID: NewUint256(testChainID), Registry: testRegistry,
		Milestones: ms, Deadline: uint64(t0.Add(72 * time.Hour).Unix()), Nonce: U64(0xc0ffee),
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
