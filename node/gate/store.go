package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/storeguard"
)

// ApprovalsDirName is the approval store's directory inside the data
// directory: the principal's credentials, approvals and consumptions, in
// a Badger of their own (the enrolment token is a file beside it:
// TokensFileName).
const ApprovalsDirName = "approvals"

// StoreName is the approval store's name in its record, its refusals and
// its resets (storeguard).
const StoreName = "approvals"

// Keys of the approval store. Request ids and credential ids are the rest
// of the key.
const (
	keyCredential  = "c/" // + credential id: storedCredential
	keyApproval    = "a/" // + requestId: approval.ApprovalRecord
	keyConsumption = "u/" // + requestId: approval.ConsumptionRecord
	keyFormat      = "v"  // the store's format version
)

// approvalStoreFormat is the format version the store writes.
const approvalStoreFormat = "parley-approvals/1"

// conflictRetries bounds how often a transaction that lost a conflict is
// run again; each retry reads what the winner wrote, so two suffice.
const conflictRetries = 8

// Store is the gate's durable approval store (the credential and receipt
// halves of approval.Store; the tokens are a file beside it): a Badger database
// with synced writes, so every call that returns nil is on disk. Each
// read-check-write (RecordApproval, MarkConsumed) is one
// Badger transaction with conflict detection: of two concurrent ones on
// the same key, one commits and the other is run again and sees the first.
type Store struct {
	mu sync.Mutex // guards db against Close
	db *badger.DB

	// umu serialises updates: each advances the store's generation and
	// state; recordUpTo then writes the record (rec, nil without one).
	umu   sync.Mutex
	rec   *storeRecord
	state approvalState // what the store holds: read at open, then each update's counted added (umu held)

	// rmu serialises record writes; recorded is the generation the
	// record names (rmu held).
	rmu      sync.Mutex
	recorded uint64
}

var (
	_ approval.CredentialStore = (*Store)(nil)
	_ approval.ReceiptStore    = (*Store)(nil)
)

// storedCredential is a credential with its registration sequence, which
// orders Credentials.
type storedCredential struct {
	Seq        uint64              `json:"seq"`
	Credential approval.Credential `json:"credential"`
}

// OpenStore opens (or creates) the approval store in dir. With
// WithRecord it checks the store against its record first
// (storerecord.go) and refuses a store that holds less or other data
// than the record names, or whose directory lost its MANIFEST.
func OpenStore(dir string, log *slog.Logger, sopts ...StoreOption) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{}
	for _, o := range sopts {
		o(s)
	}
	rec, err := s.rec.precheck(dir)
	if err != nil {
		return nil, err
	}
	opts := badger.DefaultOptions(dir).
		WithSyncWrites(true).
		WithDetectConflicts(true).
		WithLogger(badgerLog{log.With("component", "approvals")}). // it drops info and debug (WithLoggingLevel would replace it)
		WithMetricsEnabled(false).
		WithMemTableSize(4 << 20).
		WithBlockCacheSize(1 << 20).
		WithIndexCacheSize(0).
		WithValueLogFileSize(4 << 20).
		WithValueThreshold(64 << 10).
		WithNumMemtables(2).
		WithNumCompactors(2)
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("gate: approval store %s: %w", dir, err)
	}
	s.db = db
	err = db.Update(func(txn *badger.Txn) error {
		it, err := txn.Get([]byte(keyFormat))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return txn.Set([]byte(keyFormat), []byte(approvalStoreFormat))
		}
		if err != nil {
			return err
		}
		v, err := it.ValueCopy(nil)
		if err != nil {
			return err
		}
		if string(v) != approvalStoreFormat {
			return fmt.Errorf("format %q, want %q", v, approvalStoreFormat)
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("gate: approval store %s: %w", dir, err)
	}
	if s.state, err = s.rec.check(db, dir, rec, log); err != nil {
		_ = db.Close()
		return nil, err
	}
	s.recorded = s.state.gen
	if err := storeguard.Private(dir); err != nil {
		log.Warn("approval store files not made private", "err", err)
	}
	return s, nil
}

// Close closes the database; later calls fail. It is safe to call twice.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}

// errStoreClosed is returned by a closed approval store.
var errStoreClosed = errors.New("gate: approval store closed")

func (s *Store) handle() (*badger.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil, errStoreClosed
	}
	return s.db, nil
}

// view runs f in a read transaction.
func (s *Store) view(f func(txn *badger.Txn) error) error {
	db, err := s.handle()
	if err != nil {
		return err
	}
	return db.View(f)
}

// update runs f in a read-write transaction, again when it lost a
// conflict to a concurrent one (f then reads what the winner wrote). The
// transaction also advances the store's generation; once it is on disk the
// store's record is rewritten (with WithRecord), before update returns.
// The record is group-committed: updates that commit while one record is
// being written are all covered by the next one, written once.
func (s *Store) update(f func(txn *badger.Txn, c counted) error) error {
	gen, err := s.commit(f)
	if err != nil || s.rec == nil {
		return err
	}
	return s.recordUpTo(gen)
}

// commit runs f and advances the generation in one transaction, and adds
// what it counted to the state the record names; it returns the
// generation committed.
func (s *Store) commit(f func(txn *badger.Txn, c counted) error) (uint64, error) {
	db, err := s.handle()
	if err != nil {
		return 0, err
	}
	s.umu.Lock()
	defer s.umu.Unlock()
	var (
		gen uint64
		c   counted
	)
	g := func(txn *badger.Txn) error {
		c = counted{}
		if err := f(txn, c); err != nil {
			return err
		}
		var err error
		gen, err = bumpGeneration(txn)
		return err
	}
	for range conflictRetries {
		err = db.Update(g)
		if !errors.Is(err, badger.ErrConflict) {
			if err == nil {
				s.state = s.state.with(gen, c)
			}
			return gen, err
		}
	}
	return 0, fmt.Errorf("gate: approval store: %w after %d attempts", err, conflictRetries)
}

// recordUpTo returns once the record names generation gen or a later
// one: it writes the latest committed state unless a record written
// meanwhile covers gen already.
func (s *Store) recordUpTo(gen uint64) error {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.recorded >= gen {
		return nil
	}
	s.umu.Lock()
	st := s.state // its counts are never changed, only replaced
	s.umu.Unlock()
	if err := s.rec.write(st); err != nil {
		return err
	}
	s.recorded = st.gen
	return nil
}

// getJSON reads key into v; it returns approval.ErrNotFound for a key
// that does not exist.
func getJSON(txn *badger.Txn, key string, v any) error {
	it, err := txn.Get([]byte(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return approval.ErrNotFound
	}
	if err != nil {
		return err
	}
	return it.Value(func(b []byte) error { return json.Unmarshal(b, v) })
}

func setJSON(txn *badger.Txn, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return txn.Set([]byte(key), b)
}

func credentialKey(id []byte) string { return keyCredential + string(id) }

// Credential returns the credential id, or approval.ErrNotFound.
func (s *Store) Credential(_ context.Context, id []byte) (approval.Credential, error) {
	var sc storedCredential
	err := s.view(func(txn *badger.Txn) error { return getJSON(txn, credentialKey(id), &sc) })
	if err != nil {
		return approval.Credential{}, err
	}
	return sc.Credential, nil
}

// Credentials returns every credential in registration order.
func (s *Store) Credentials(context.Context) ([]approval.Credential, error) {
	var all []storedCredential
	err := s.view(func(txn *badger.Txn) error {
		var err error
		all, err = credentialsTxn(txn)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]approval.Credential, len(all))
	for i, sc := range all {
		out[i] = sc.Credential
	}
	return out, nil
}

// credentialsTxn reads every credential, ordered by registration.
func credentialsTxn(txn *badger.Txn) ([]storedCredential, error) {
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 16, Prefix: []byte(keyCredential)})
	defer it.Close()
	var out []storedCredential
	for it.Rewind(); it.Valid(); it.Next() {
		var sc storedCredential
		if err := it.Item().Value(func(b []byte) error { return json.Unmarshal(b, &sc) }); err != nil {
			return nil, fmt.Errorf("credential %x: %w", it.Item().Key(), err)
		}
		out = append(out, sc)
	}
	slices.SortFunc(out, func(a, b storedCredential) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return bytes.Compare(a.Credential.WebAuthn.ID, b.Credential.WebAuthn.ID)
	})
	return out, nil
}

// putCredentialTxn inserts c after every registered credential, or
// replaces the one with its id keeping its place.
func putCredentialTxn(txn *badger.Txn, c approval.Credential, n counted) error {
	key := credentialKey(c.WebAuthn.ID)
	var prev storedCredential
	err := getJSON(txn, key, &prev)
	switch {
	case err == nil:
		return setJSON(txn, key, storedCredential{Seq: prev.Seq, Credential: c})
	case !errors.Is(err, approval.ErrNotFound):
		return err
	}
	all, err := credentialsTxn(txn)
	if err != nil {
		return err
	}
	seq := uint64(1)
	if len(all) > 0 {
		seq = all[len(all)-1].Seq + 1
	}
	n.add("credentials", 1)
	return setJSON(txn, key, storedCredential{Seq: seq, Credential: c})
}

// PutCredential inserts c or replaces the credential with its id.
func (s *Store) PutCredential(_ context.Context, c approval.Credential) error {
	if len(c.WebAuthn.ID) == 0 {
		return errors.New("gate: approval store: a credential without an id")
	}
	return s.update(func(txn *badger.Txn, n counted) error { return putCredentialTxn(txn, c, n) })
}

// DeleteCredential removes the credential id, or returns
// approval.ErrNotFound (approval.CredentialStore). The node never calls
// it: a revoked credential keeps its record (revokedAt), so the store's
// record can count credentials as never deleted, and a store that lost
// one is refused at start as emptier than its record.
func (s *Store) DeleteCredential(_ context.Context, id []byte) error {
	return s.update(func(txn *badger.Txn, n counted) error {
		key := []byte(credentialKey(id))
		if _, err := txn.Get(key); errors.Is(err, badger.ErrKeyNotFound) {
			return approval.ErrNotFound
		} else if err != nil {
			return err
		}
		n.add("credentials", -1)
		return txn.Delete(key)
	})
}

// RecordApproval stores rec and cred in one transaction unless
// rec.RequestID was approved already.
func (s *Store) RecordApproval(_ context.Context, rec approval.ApprovalRecord, cred approval.Credential) (bool, error) {
	var already bool
	err := s.update(func(txn *badger.Txn, n counted) error {
		already = false
		key := keyApproval + rec.RequestID
		if _, err := txn.Get([]byte(key)); err == nil {
			already = true
			return nil
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		if err := setJSON(txn, key, rec); err != nil {
			return err
		}
		n.add("approvals", 1)
		return putCredentialTxn(txn, cred, n)
	})
	return already, err
}

// Approval returns the approval of requestID, or approval.ErrNotFound.
func (s *Store) Approval(_ context.Context, requestID string) (approval.ApprovalRecord, error) {
	var rec approval.ApprovalRecord
	err := s.view(func(txn *badger.Txn) error { return getJSON(txn, keyApproval+requestID, &rec) })
	return rec, err
}

// Consumed reports whether requestID was consumed.
func (s *Store) Consumed(_ context.Context, requestID string) (bool, error) {
	var found bool
	err := s.view(func(txn *badger.Txn) error {
		_, err := txn.Get([]byte(keyConsumption + requestID))
		switch {
		case err == nil:
			found = true
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		return nil
	})
	return found, err
}

// MarkConsumed records the consumption of rec.RequestID once: of any
// number of concurrent calls exactly one writes (and returns false once
// the write is synced); every other call, then or after a restart, finds
// it and returns true.
func (s *Store) MarkConsumed(_ context.Context, rec approval.ConsumptionRecord) (bool, error) {
	if rec.RequestID == "" {
		return false, errors.New("gate: approval store: a consumption without a request id")
	}
	var already bool
	err := s.update(func(txn *badger.Txn, n counted) error {
		already = false
		key := keyConsumption + rec.RequestID
		if _, err := txn.Get([]byte(key)); err == nil {
			already = true
			return nil
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		n.add("consumptions", 1)
		return setJSON(txn, key, rec)
	})
	return already, err
}

// badgerLog passes Badger's warnings and errors to slog and drops the
// rest.
type badgerLog struct{ l *slog.Logger }

func (b badgerLog) Errorf(f string, args ...any) {
	b.l.Error("badger error", "detail", strings.TrimSpace(fmt.Sprintf(f, args...)))
}

func (b badgerLog) Warningf(f string, args ...any) {
	b.l.Warn("badger warning", "detail", strings.TrimSpace(fmt.Sprintf(f, args...)))
}

func (badgerLog) Infof(string, ...any)  {}
func (badgerLog) Debugf(string, ...any) {}
