package ledger

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/parleynet/parley/negotiation"
)

var t0 = time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)

// stepClock returns a clock that starts at t0 and advances 1 ms per call.
func stepClock() func() time.Time {
	var mu sync.Mutex
	now := t0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
}

// testConfig is a small-footprint configuration for dir.
func testConfig(t testing.TB, dir string) Config {
	cfg := DefaultConfig()
	cfg.Dir = dir
	cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg.Clock = stepClock()
	cfg.MemTableSize = 16 << 20
	cfg.MaxBatchBytes = 2 << 20
	cfg.MaxObjectBytes = 1 << 20
	cfg.MaxEntryBytes = 256 << 10
	cfg.BlockCacheSize = 4 << 20
	cfg.ValueLogFileSize = 32 << 20
	return cfg
}

// open starts a ledger for cfg and closes it when the test ends.
func open(t testing.TB, cfg Config) *Ledger {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	return l
}

func mustAppend(t testing.TB, l *Ledger, r Record) Entry {
	t.Helper()
	e, _, err := l.Append(t.Context(), r)
	if err != nil {
		t.Fatalf("append %s: %v", r.Kind, err)
	}
	return e
}

// party signs envelopes with deterministic keys.
type party struct {
	inbox ed25519.PrivateKey
	evm   *ecdsa.PrivateKey
	addr  negotiation.Address
	seq   map[string]uint64
	prev  map[string]negotiation.Hash
	last  map[string]time.Time
}

func newParty(t testing.TB, name string) *party {
	t.Helper()
	seed := sha256.Sum256([]byte("ledger test inbox " + name))
	evmSeed := sha256.Sum256([]byte("ledger test evm " + name))
	k, err := crypto.ToECDSA(evmSeed[:])
	if err != nil {
		t.Fatal(err)
	}
	return &party{
		inbox: ed25519.NewKeyFromSeed(seed[:]), evm: k, addr: negotiation.Address(crypto.PubkeyToAddress(k.PublicKey)),
		seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}, last: map[string]time.Time{},
	}
}

func (p *party) sender() negotiation.Sender {
	var pk negotiation.PublicKey
	copy(pk[:], p.inbox.Public().(ed25519.PublicKey))
	return negotiation.Sender{EVMAddress: p.addr, XMTPPublicKey: pk}
}

// counter builds p's next envelope in nid: a counter-offer whose title
// carries note (so envelopes differ) and is padded to about size bytes.
func (p *party) counter(t testing.TB, nid string, to *party, note string, size int) *negotiation.Envelope {
	t.Helper()
	terms := negotiation.Terms{
		Title: "Translate the user guide " + note, ChainID: negotiation.U64(31337),
		Milestones: []negotiation.Milestone{{Amount: negotiation.U64(100), Description: "first half"}, {Amount: negotiation.U64(200), Description: "second half"}},
		Deadline:   uint64(t0.Add(72 * time.Hour).Unix()), Nonce: negotiation.NewUint256(big.NewInt(0xc0ffee)),
	}
	if pad := size - 900; pad > 0 {
		terms.Description = string(bytes.Repeat([]byte("x"), pad))
	}
	var pl negotiation.Payload = &negotiation.TaskCounterOffer{InReplyTo: p.prev[nid], Terms: terms}
	if p.seq[nid] == 0 {
		pl = &negotiation.TaskProposal{Terms: terms}
	}
	at := t0
	if last, ok := p.last[nid]; ok {
		at = last.Add(time.Second)
	}
	return p.send(t, nid, to, pl, at)
}

// send builds and signs p's next envelope in nid with payload pl.
func (p *party) send(t testing.TB, nid string, to *party, pl negotiation.Payload, at time.Time) *negotiation.Envelope {
	t.Helper()
	h := negotiation.Header{
		NegotiationID: nid, Sequence: p.seq[nid] + 1, PreviousHash: p.prev[nid],
		Timestamp: at, Sender: p.sender(), Recipients: []negotiation.Address{to.addr},
	}
	e, err := negotiation.Build(h, pl, negotiation.Ed25519Key(p.inbox), negotiation.DecodeOptions{})
	if err != nil {
		t.Fatalf("build envelope: %v", err)
	}
	p.seq[nid], p.prev[nid], p.last[nid] = e.Sequence, e.Hash(), at
	return e
}

type evmSigner struct{ k *ecdsa.PrivateKey }

func (s evmSigner) Sign(d []byte) ([]byte, error) { return crypto.Sign(d, s.k) }

// nid returns a fixed negotiation id for i.
func nid(i int) string {
	var b [16]byte
	copy(b[:], fmt.Sprintf("neg-%012d", i))
	return negotiation.NewNegotiationID(b)
}

// snapshot returns every key and value in the ledger's store.
func snapshot(t testing.TB, l *Ledger) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := l.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().KeyCopy(nil))] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rawDB opens the ledger directory with plain Badger, for tampering.
func rawDB(t testing.TB, cfg Config) *badger.DB {
	t.Helper()
	l := &Ledger{cfg: cfg, log: cfg.Logger}
	db, err := badger.Open(l.badgerOptions())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func readHeadRaw(t testing.TB, db *badger.DB, key []byte) Head {
	t.Helper()
	var h Head
	if err := db.View(func(txn *badger.Txn) (err error) {
		h, err = readHead(txn, key)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return h
}
