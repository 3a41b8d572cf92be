package gate

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/parleynet/parley/storeguard"
)

// The approval store's record of itself (storeguard): a random store id
// set when the record is first written, and a generation that every
// committed change advances. The record beside the store
// (<data-dir>/approvals.record) names both, the owner's peer id and the
// counts of credentials, approvals and consumptions.
const (
	keyStoreID    = "i" // 16 random bytes
	keyGeneration = "g" // uint64, big-endian
)

// The counts the record names, by key prefix.
var approvalCounts = []struct{ name, prefix string }{
	{"credentials", keyCredential}, {"approvals", keyApproval}, {"consumptions", keyConsumption},
}

// storeRecord is where the approval store keeps its record and who owns it.
type storeRecord struct {
	file  string
	owner string
	now   func() time.Time
}

// StoreOption configures OpenStore.
type StoreOption func(*Store)

// WithRecord keeps the store's record in file, owned by owner (the
// node's peer id); the node passes it, a tool opening the store without
// the keys does not.
func WithRecord(file, owner string, now func() time.Time) StoreOption {
	return func(s *Store) { s.rec = &storeRecord{file: file, owner: owner, now: now} }
}

// approvalState is what the store holds, as its record names it.
type approvalState struct {
	id     string
	gen    uint64
	counts map[string]uint64
}

func (st approvalState) empty() bool {
	for _, n := range st.counts {
		if n > 0 {
			return false
		}
	}
	return true
}

func (st approvalState) String() string {
	id := st.id
	if id == "" {
		id = "none"
	}
	return fmt.Sprintf("generation %d, store id %s, %d credentials, %d approvals, %d consumptions",
		st.gen, id, st.counts["credentials"], st.counts["approvals"], st.counts["consumptions"])
}

// readState reads the store's id, generation and counts in txn.
func readState(txn *badger.Txn) (approvalState, error) {
	st := approvalState{counts: map[string]uint64{}}
	if it, err := txn.Get([]byte(keyStoreID)); err == nil {
		v, err := it.ValueCopy(nil)
		if err != nil {
			return st, err
		}
		st.id = "0x" + hex.EncodeToString(v)
	} else if !errors.Is(err, badger.ErrKeyNotFound) {
		return st, err
	}
	if it, err := txn.Get([]byte(keyGeneration)); err == nil {
		v, err := it.ValueCopy(nil)
		if err != nil {
			return st, err
		}
		if len(v) != 8 {
			return st, fmt.Errorf("generation of %d bytes", len(v))
		}
		st.gen = binary.BigEndian.Uint64(v)
	} else if !errors.Is(err, badger.ErrKeyNotFound) {
		return st, err
	}
	for _, c := range approvalCounts {
		st.counts[c.name] = 0
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(c.prefix)})
		for it.Rewind(); it.Valid(); it.Next() {
			st.counts[c.name]++
		}
		it.Close()
	}
	return st, nil
}

// bumpGeneration advances the generation in txn and returns it; every
// update does, in the transaction of its change.
func bumpGeneration(txn *badger.Txn) (uint64, error) {
	var gen uint64
	if it, err := txn.Get([]byte(keyGeneration)); err == nil {
		v, err := it.ValueCopy(nil)
		if err != nil {
			return 0, err
		}
		if len(v) == 8 {
			gen = binary.BigEndian.Uint64(v)
		}
	} else if !errors.Is(err, badger.ErrKeyNotFound) {
		return 0, err
	}
	return gen + 1, txn.Set([]byte(keyGeneration), binary.BigEndian.AppendUint64(nil, gen+1))
}

// counted is what one update adds to the counts the record names (a new
// credential, approval or consumption: +1; a deleted credential: -1).
// The store counts them by a scan of its keys once, when it opens
// (readState in check); after that each update adds what it created, so
// an update costs the same however many approvals the store holds.
type counted map[string]int64

func (c counted) add(name string, n int64) { c[name] += n }

// with is st after one update that committed generation gen and added c.
func (st approvalState) with(gen uint64, c counted) approvalState {
	next := approvalState{id: st.id, gen: gen, counts: make(map[string]uint64, len(st.counts))}
	for k, v := range st.counts {
		next.counts[k] = v
	}
	for k, d := range c {
		next.counts[k] = uint64(int64(next.counts[k]) + d)
	}
	return next
}

// precheckApprovals reads the record and checks the Badger directory
// before it is opened (storeguard.CheckBadgerDir); a record that names a
// store where the directory holds no data file is refused before anything
// is created. The empty log files a kill can leave are removed
// (storeguard.DropEmpty).
func (r *storeRecord) precheck(dir string) (*storeguard.Record, error) {
	var rec *storeguard.Record
	if r != nil {
		var err error
		if rec, err = storeguard.Read(StoreName, r.file); err != nil {
			return nil, err
		}
	}
	c, err := storeguard.CheckBadgerDir(StoreName, dir)
	if err != nil {
		var se *storeguard.Error
		if errors.As(err, &se) && r != nil {
			se.RecordFile, se.Record = r.file, rec
		}
		return nil, err
	}
	if rec != nil && rec.StoreID != "" && !c.HasData() {
		return nil, r.refuse(dir, storeguard.CodeEmptier, rec, c.String(), "the record names a store of generation %d, the directory holds no data file", rec.Seq)
	}
	if err := storeguard.DropEmpty(dir, c); err != nil {
		return nil, fmt.Errorf("gate: approval store: %w", err)
	}
	return rec, nil
}

func (r *storeRecord) refuse(dir string, code storeguard.Code, rec *storeguard.Record, found, format string, args ...any) error {
	return &storeguard.Error{Code: code, Store: StoreName, Dir: dir, RecordFile: r.file, Record: rec, Found: found, Msg: fmt.Sprintf(format, args...)}
}

// check compares the opened store with its record, and writes the
// record: a new store, or one from before records were kept, gets a store
// id and its first record (with a log line); a store with another id, an
// older generation or fewer approvals or consumptions than its record, or
// a record of another node, is refused.
func (r *storeRecord) check(db *badger.DB, dir string, rec *storeguard.Record, log *slog.Logger) (approvalState, error) {
	if r == nil {
		return approvalState{}, nil
	}
	var st approvalState
	err := db.Update(func(txn *badger.Txn) error {
		var err error
		if st, err = readState(txn); err != nil || st.id != "" || rec != nil {
			return err
		}
		id := make([]byte, 16)
		if _, err := rand.Read(id); err != nil {
			return err
		}
		st.id = "0x" + hex.EncodeToString(id)
		return txn.Set([]byte(keyStoreID), id)
	})
	if err != nil {
		return st, fmt.Errorf("gate: approval store %s: %w", dir, err)
	}
	switch {
	case rec == nil && st.empty():
		log.Info("new approval store: writing its record", "record", r.file)
	case rec == nil:
		log.Warn("the approval store has no record yet (a data directory from before records were kept, or the record was removed): writing one",
			"record", r.file, "store", st.String())
	case r.owner != "" && rec.Owner != "" && rec.Owner != r.owner:
		return st, r.refuse(dir, storeguard.CodeForeign, rec, st.String(), "the record names node %s, this node is %s", rec.Owner, r.owner)
	case st.id == "" && st.empty():
		return st, r.refuse(dir, storeguard.CodeEmptier, rec, st.String(), "the store is empty")
	case st.id != rec.StoreID:
		return st, r.refuse(dir, storeguard.CodeDifferent, rec, st.String(), "the store's id is not the one the record names: this is another store")
	case st.gen < rec.Seq:
		return st, r.refuse(dir, storeguard.CodeEmptier, rec, st.String(), "the store is at generation %d, the record at %d: it lost changes (an older copy)", st.gen, rec.Seq)
	default:
		for _, c := range []string{"credentials", "approvals", "consumptions"} {
			if st.counts[c] < rec.Counts[c] {
				return st, r.refuse(dir, storeguard.CodeEmptier, rec, st.String(), "the store holds %d %s, the record %d (they are never deleted)", st.counts[c], c, rec.Counts[c])
			}
		}
	}
	return st, r.write(st)
}

// write writes the record of st.
func (r *storeRecord) write(st approvalState) error {
	err := storeguard.Write(r.file, storeguard.Record{Store: StoreName, Owner: r.owner, StoreID: st.id, Seq: st.gen, Counts: st.counts, At: r.now().UTC()})
	if err != nil {
		return fmt.Errorf("gate: approval store record: %w", err)
	}
	return nil
}
