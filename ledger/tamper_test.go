package ledger

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/parleynet/parley/negotiation"
)

// tamperLedger builds a closed ledger of n entries, every third storing an
// envelope, and returns its config.
func tamperLedger(t *testing.T, n int) Config {
	t.Helper()
	cfg := testConfig(t, t.TempDir())
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	poster, worker := newParty(t, "poster"), newParty(t, "worker")
	for i := range n {
		if i%3 == 0 {
			if _, _, err := l.AppendEnvelope(t.Context(), KindEnvelopeSent, poster.counter(t, nid(1), worker, "t", 0), "", t0); err != nil {
				t.Fatal(err)
			}
			continue
		}
		mustAppend(t, l, Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"i":1}`)})
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// verifyRaw runs the ledger's full verification on a raw store.
func verifyRaw(t *testing.T, db *badger.DB) error {
	t.Helper()
	return db.View(func(txn *badger.Txn) error {
		head, err := readHead(txn, keyHead)
		if err != nil {
			return err
		}
		_, err = verifyRange(t.Context(), txn, Head{}, head)
		return err
	})
}

// verifyThroughLedger opens the ledger with its checkpoint set to ck and
// runs Start and then Verify, returning the first error.
func verifyThroughLedger(t *testing.T, cfg Config, db *badger.DB, ck Head) error {
	t.Helper()
	setRaw(t, db, keyCheckpoint, headValue(ck))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		return err
	}
	defer l.Close()
	_, err = l.Verify(t.Context())
	return err
}

func setRaw(t *testing.T, db *badger.DB, k, v []byte) {
	t.Helper()
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set(k, v) }); err != nil {
		t.Fatal(err)
	}
}

func getRaw(t *testing.T, db *badger.DB, k []byte) []byte {
	t.Helper()
	var v []byte
	if err := db.View(func(txn *badger.Txn) (err error) { v, err = getValue(txn, k); return err }); err != nil {
		t.Fatal(err)
	}
	return v
}

func deleteRaw(t *testing.T, db *badger.DB, k []byte) {
	t.Helper()
	if err := db.Update(func(txn *badger.Txn) error { return txn.Delete(k) }); err != nil {
		t.Fatal(err)
	}
}

func wantVerifyError(t *testing.T, err error, seq uint64, codes ...Code) {
	t.Helper()
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("verify = %v, want a VerifyError at %d", err, seq)
	}
	if ve.Seq != seq {
		t.Fatalf("verify reports entry %d (%v), want %d", ve.Seq, ve, seq)
	}
	for _, c := range codes {
		if ve.Code == c {
			return
		}
	}
	t.Fatalf("verify code %s (%v), want one of %v", ve.Code, ve, codes)
}

func TestTamperIsCaught(t *testing.T) {
	const n = 40
	cfg := tamperLedger(t, n)
	rng := rand.New(rand.NewPCG(1, 2))
	db := rawDB(t, cfg)
	defer func() { db.Close() }()
	if err := verifyRaw(t, db); err != nil {
		t.Fatalf("untouched ledger: %v", err)
	}
	head := readHeadRaw(t, db, keyHead)
	// Every fifth trial goes through Ledger.Start (checkpoint before the
	// damage) or Ledger.Verify (checkpoint at the head) instead.
	check := func(trial int, seq uint64, codes ...Code) {
		t.Helper()
		switch {
		case trial%10 == 0:
			err := verifyThroughLedger(t, cfg, db, Head{})
			wantVerifyError(t, err, seq, codes...)
			db = rawDB(t, cfg)
		case trial%10 == 5:
			err := verifyThroughLedger(t, cfg, db, head)
			wantVerifyError(t, err, seq, codes...)
			db = rawDB(t, cfg)
		default:
			wantVerifyError(t, verifyRaw(t, db), seq, codes...)
		}
	}
	t.Run("flipped byte", func(t *testing.T) {
		for trial := range 60 {
			seq := 1 + rng.Uint64N(n)
			k := entryKey(seq)
			orig := getRaw(t, db, k)
			v := append([]byte(nil), orig...)
			pos := rng.IntN(len(v))
			v[pos] ^= byte(1 + rng.IntN(255))
			setRaw(t, db, k, v)
			switch {
			case pos < 32:
				check(trial, seq, CodePrevMismatch)
			case pos < 64:
				check(trial, seq, CodeHashMismatch)
			default:
				check(trial, seq, CodeHashMismatch, CodeMalformedEntry, CodeSeqMismatch)
			}
			setRaw(t, db, k, orig)
		}
	})
	t.Run("deleted entry", func(t *testing.T) {
		for trial := range 20 {
			seq := 1 + rng.Uint64N(n)
			if trial == 1 {
				seq = n // the last entry: the chain ends before the head
			}
			k := entryKey(seq)
			orig := getRaw(t, db, k)
			deleteRaw(t, db, k)
			check(trial, seq, CodeMissingEntry)
			setRaw(t, db, k, orig)
		}
	})
	t.Run("reordered entries", func(t *testing.T) {
		for trial := range 20 {
			i := 1 + rng.Uint64N(n-1)
			j := i + 1 + rng.Uint64N(n-i)
			a, b := getRaw(t, db, entryKey(i)), getRaw(t, db, entryKey(j))
			setRaw(t, db, entryKey(i), b)
			setRaw(t, db, entryKey(j), a)
			check(trial, i, CodeSeqMismatch)
			setRaw(t, db, entryKey(i), a)
			setRaw(t, db, entryKey(j), b)
		}
	})
	t.Run("object and head", func(t *testing.T) {
		e := decodeRaw(t, db, 4) // entry 4 stored an envelope
		if !e.CID.Defined() {
			t.Fatal("entry 4 stores no object")
		}
		k := cidKey(pObject, e.CID)
		orig := getRaw(t, db, k)
		v := append([]byte(nil), orig...)
		v[len(v)/2] ^= 1
		setRaw(t, db, k, v)
		check(1, 4, CodeObjectMismatch)
		deleteRaw(t, db, k)
		check(2, 4, CodeObjectMissing)
		setRaw(t, db, k, orig)
		setRaw(t, db, keyHead, headValue(Head{Seq: n, Hash: negotiation.Hash{9}}))
		check(3, n, CodeHeadMismatch)
		setRaw(t, db, keyHead, headValue(Head{Seq: n - 1, Hash: head.Hash}))
		check(4, n, CodeHeadMismatch) // an entry beyond the recorded head
		setRaw(t, db, keyHead, headValue(head))
	})
	if err := verifyRaw(t, db); err != nil {
		t.Fatalf("restored ledger: %v", err)
	}
}

func decodeRaw(t *testing.T, db *badger.DB, seq uint64) Entry {
	t.Helper()
	e, err := decodeStored(seq, getRaw(t, db, entryKey(seq)))
	if err != nil {
		t.Fatal(err)
	}
	return e
}
