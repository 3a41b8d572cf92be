package ledger

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ipfs/go-cid"
	"github.com/parleynet/parley/negotiation"
	"github.com/transparency-dev/merkle/compact"
)

type opKind int

const (
	opAppend opKind = iota // append an entry (and store its object)
	opAnchor               // append an anchor entry after checking its head
	opPrune                // delete a closed negotiation's objects, append the record
	opBatch                // append the records of parts in one transaction, all or none (AppendAll)
	opTree                 // append a tree head or tree anchor entry after checking its root at its size
)

// request is one prepared append handed to the writer goroutine.
type request struct {
	op     opKind
	kind   string
	negID  string
	body   []byte // canonical; includes cid when object is set
	at     time.Time
	object []byte
	cid    cid.Cid
	state  string    // body.state of a thread.state entry
	anchor Head      // opAnchor: the head the anchor names
	tree   sizedRoot // opTree: the size and root the tree head or anchor names
	// prefix is the entry's bytes up to what the writer assigns
	// (entryPrefix), and leaf the SHA-256 state of its RFC 6962 leaf hash
	// over them: written and hashed on the caller's goroutine (seal), so
	// the writer hashes only the tail. nil when the writer changes the
	// body (opPrune): it then encodes and hashes the whole entry.
	prefix []byte
	leaf   hash.Hash
	parts  []*request // opBatch: the prepared records, in order
	size   int64      // estimated transaction bytes
	done   chan result
}

// appends returns how many entries r may append: what it counts for
// against MaxBatch.
func (r *request) appends() int { return max(1, len(r.parts)) }

type result struct {
	entry   Entry
	existed bool
	entries []Entry // opBatch: one per part
	wrote   int     // entries written
	err     error
}

// keyCost is the transaction bytes one key is counted for: at least 128,
// above Badger's per-key node size, so a batch that fits MaxBatchBytes also
// fits Badger's key-count limit.
func keyCost(k, v int) int64 { return max(int64(k+v+12), 128) }

// submit hands r to the writer and waits for its result.
func (l *Ledger) submit(ctx context.Context, r *request) result {
	r.done = make(chan result, 1)
	l.mu.RLock()
	if l.state != stateOpen {
		l.mu.RUnlock()
		return result{err: ErrClosed}
	}
	if l.cfg.ReadOnly {
		l.mu.RUnlock()
		return result{err: ErrReadOnly}
	}
	select {
	case l.reqs <- r:
	case <-ctx.Done():
		l.mu.RUnlock()
		return result{err: ctx.Err()}
	}
	l.mu.RUnlock()
	select {
	case res := <-r.done:
		return res
	case <-ctx.Done():
		// The append may still commit; an object append is idempotent.
		return result{err: ctx.Err()}
	}
}

// batchLimit is the most transaction bytes one group commit gathers,
// leaving room for the head, which every transaction writes once, and the
// Merkle tree's nodes beyond what each entry is counted for (treeOverhead).
func (l *Ledger) batchLimit() int64 {
	return min(int64(l.cfg.MaxBatchBytes), l.cfg.txnLimit()-keyCost(1, 40)-treeOverhead)
}

// writer gathers the requests waiting in l.reqs into one transaction, syncs
// it, and only then answers each caller (group commit). A request is never
// split: an AppendAll batch goes into one transaction whole.
func (l *Ledger) writer() {
	batch := make([]*request, 0, l.cfg.MaxBatch)
	limit := l.batchLimit()
	for r := range l.reqs {
		batch = append(batch[:0], r)
		size, count := r.size, r.appends()
	gather:
		for count < l.cfg.MaxBatch && size < limit {
			select {
			case r2, ok := <-l.reqs:
				if !ok {
					break gather
				}
				if size+r2.size > limit || count+r2.appends() > l.cfg.MaxBatch {
					l.commit(batch)
					batch = append(batch[:0], r2)
					size, count = r2.size, r2.appends()
					continue
				}
				batch = append(batch, r2)
				size += r2.size
				count += r2.appends()
			default:
				break gather
			}
		}
		l.commit(batch)
	}
}

// txnState is what one group commit has written so far.
type txnState struct {
	txn     *badger.Txn
	head    Head
	objects map[string]Entry            // objects stored in this transaction, by CID key
	hashes  map[uint64]negotiation.Hash // entries appended in this transaction
	tree    *compact.Range              // the Merkle tree's compact range after what was set
	negLast map[string]uint64           // the last seq of each negotiation with an entry in this transaction
}

// commit writes batch in one synced transaction and answers every caller.
func (l *Ledger) commit(batch []*request) {
	l.headMu.RLock()
	failed, start := l.failed, l.head
	l.headMu.RUnlock()
	if failed != nil {
		for _, r := range batch {
			r.done <- result{err: fmt.Errorf("%w: %v", ErrFailed, failed)}
		}
		return
	}
	refused := make([]error, len(batch))
	for {
		st, results, wrote, again, err := l.build(batch, start, refused)
		if err != nil {
			st.txn.Discard()
			l.fail(batch, err)
			return
		}
		if again {
			st.txn.Discard()
			continue
		}
		if wrote > 0 {
			if err := st.txn.Set(keyHead, headValue(st.head)); err != nil {
				st.txn.Discard()
				l.fail(batch, fmt.Errorf("ledger: write head: %w", err))
				return
			}
			if err := st.txn.Commit(); err != nil { // synced: SyncWrites is on
				st.txn.Discard()
				l.fail(batch, fmt.Errorf("ledger: commit: %w", err))
				return
			}
			l.headMu.Lock()
			l.head = st.head
			l.headMu.Unlock()
			l.tree = st.tree // the writer's alone
			l.negCache.add(st.negLast)
			l.batches.Add(1)
			l.written.Add(uint64(wrote))
			l.notifyAnchor()
			l.notifyRecord()
		}
		st.txn.Discard()
		for i, r := range batch {
			r.done <- results[i]
		}
		return
	}
}

// build applies the requests of batch, except those refused before, to a
// new transaction on start. A request refused with an *Error sets nothing
// and gets its refusal. When an AppendAll batch is refused after some of
// its records were set, build records the refusal in refused and reports
// again: the transaction must be discarded and built once more without it,
// so that nothing of a refused batch is written. Any other error is a
// failed write.
func (l *Ledger) build(batch []*request, start Head, refused []error) (st *txnState, results []result, wrote int, again bool, err error) {
	st = &txnState{
		txn:     l.db.NewTransaction(true),
		head:    start,
		objects: make(map[string]Entry),
		hashes:  make(map[uint64]negotiation.Hash),
		tree:    cloneRange(l.tree),
		negLast: make(map[string]uint64),
	}
	results = make([]result, len(batch))
	for i, r := range batch {
		if refused[i] != nil {
			results[i] = result{err: refused[i]}
			continue
		}
		res, err := l.applyRequest(st, r)
		if err != nil {
			var inputErr *Error
			if !errors.As(err, &inputErr) {
				return st, nil, 0, false, fmt.Errorf("ledger: write: %w", err)
			}
			refused[i] = err
			if res.wrote > 0 {
				return st, nil, 0, true, nil
			}
			results[i] = result{err: err}
			continue
		}
		wrote += res.wrote
		results[i] = res
	}
	return st, results, wrote, false, nil
}

// applyRequest writes one request, or every record of an AppendAll batch
// in order, into the transaction. On an *Error, res.wrote says how many
// entries of the request were set before the refusal.
func (l *Ledger) applyRequest(st *txnState, r *request) (result, error) {
	if r.op != opBatch {
		res, err := l.apply(st, r)
		if err == nil && !res.existed {
			res.wrote = 1
		}
		return res, err
	}
	res := result{entries: make([]Entry, len(r.parts))}
	for k, p := range r.parts {
		pr, err := l.apply(st, p)
		if err != nil {
			var inputErr *Error
			if errors.As(err, &inputErr) {
				err = &BatchError{Index: k, Err: err}
			}
			return result{wrote: res.wrote}, err
		}
		if !pr.existed {
			res.wrote++
		}
		res.entries[k] = pr.entry
	}
	return res, nil
}

// fail answers the whole batch with err and stops further appends: after a
// failed write the store's state is unknown until it is reopened.
func (l *Ledger) fail(batch []*request, err error) {
	l.log.Error("ledger write failed", "err", err)
	l.headMu.Lock()
	l.failed = err
	l.headMu.Unlock()
	for _, r := range batch {
		r.done <- result{err: fmt.Errorf("%w: %v", ErrFailed, err)}
	}
}

// apply writes one request into the transaction. An *Error means the
// request was refused and set nothing.
func (l *Ledger) apply(st *txnState, r *request) (result, error) {
	switch r.op {
	case opAnchor:
		if err := st.checkAnchor(r.anchor); err != nil {
			return result{}, err
		}
	case opTree:
		if err := st.checkTreeRoot(r.tree); err != nil {
			return result{}, err
		}
	case opPrune:
		body, err := l.preparePrune(st, r)
		if err != nil {
			return result{}, err
		}
		r.body, r.prefix, r.leaf = body, nil, nil
	}
	if r.object != nil {
		if e, ok, err := st.existing(r.cid); err != nil || ok {
			return result{entry: e, existed: ok}, err
		}
	}
	seq := st.head.Seq + 1
	at := r.at
	if at.IsZero() {
		at = l.cfg.Clock()
	}
	var negPrev uint64
	if r.negID != "" {
		var err error
		if negPrev, err = l.lastOfNegotiation(st, r.negID); err != nil {
			return result{}, err
		}
	}
	var raw, leaf []byte
	if r.prefix != nil {
		raw = appendEntryTail(append(make([]byte, 0, len(r.prefix)+48), r.prefix...), r.negID, negPrev, seq)
		leaf = finishLeaf(r.leaf, raw[len(r.prefix):])
	} else {
		raw = encodeEntry(seq, r.kind, r.negID, negPrev, r.body, at)
		leaf = hasher.HashLeaf(raw)
	}
	hash := chainHash(st.head.Hash, raw)
	txn := st.txn
	if err := txn.Set(entryKey(seq), storedValue(st.head.Hash, hash, raw)); err != nil {
		return result{}, err
	}
	if err := st.appendLeaf(leaf); err != nil {
		return result{}, err
	}
	if err := txn.Set(indexKey(pKind, r.kind, seq), nil); err != nil {
		return result{}, err
	}
	if r.negID != "" {
		if err := txn.Set(indexKey(pNeg, r.negID, seq), nil); err != nil {
			return result{}, err
		}
	}
	if r.state != "" {
		if err := txn.Set(stateKey(r.negID), []byte(r.state)); err != nil {
			return result{}, err
		}
	}
	if r.object != nil {
		if err := txn.Set(cidKey(pObject, r.cid), r.object); err != nil {
			return result{}, err
		}
		if err := txn.Set(cidKey(pCID, r.cid), u64(seq)); err != nil {
			return result{}, err
		}
	}
	e := Entry{
		Seq: seq, Kind: r.kind, NegotiationID: r.negID, NegotiationPrev: negPrev, Linked: r.negID != "", Body: r.body,
		At: at.UTC().Truncate(time.Millisecond), CID: r.cid, Prev: st.head.Hash, Hash: hash, Raw: raw,
	}
	// The body slice is inside raw in the stored form; point Body there so
	// the entry holds one copy.
	e.Body = raw[len(`{"at":"2006-01-02T15:04:05.000Z","body":`):][:len(r.body)]
	st.head = Head{Seq: seq, Hash: hash}
	st.hashes[seq] = hash
	if r.object != nil {
		st.objects[string(r.cid.Bytes())] = e
	}
	if r.negID != "" {
		st.negLast[r.negID] = seq
	}
	return result{entry: e}, nil
}

// existing returns the entry that stored object c, in this transaction or
// before it.
func (st *txnState) existing(c cid.Cid) (Entry, bool, error) {
	if e, ok := st.objects[string(c.Bytes())]; ok {
		return e, true, nil
	}
	v, err := getValue(st.txn, cidKey(pCID, c))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, err
	}
	if len(v) != 8 {
		return Entry{}, false, fmt.Errorf("cid index of %d bytes", len(v))
	}
	e, err := getEntry(st.txn, seqFromBytes(v))
	if err != nil {
		return Entry{}, false, err
	}
	return e, true, nil
}

// checkAnchor refuses an anchor whose head is not the hash of entry
// head.Seq in this ledger.
func (st *txnState) checkAnchor(h Head) error {
	if h.Seq == 0 || h.Seq > st.head.Seq {
		return refuse(CodeUnknownHead, "head", "count %d is outside 1..%d", h.Seq, st.head.Seq)
	}
	want, ok := st.hashes[h.Seq]
	if !ok {
		e, err := getEntry(st.txn, h.Seq)
		if err != nil {
			return err
		}
		want = e.Hash
	}
	if want != h.Hash {
		return refuse(CodeUnknownHead, "head", "entry %d has hash %s, not %s", h.Seq, want, h.Hash)
	}
	return nil
}

// lastOfNegotiation returns the seq of the last entry of negotiation id
// before the one being written (0 when it has none): from this
// transaction, else the cache of committed last seqs, else the
// negotiation index.
func (l *Ledger) lastOfNegotiation(st *txnState, id string) (uint64, error) {
	if seq, ok := st.negLast[id]; ok {
		return seq, nil
	}
	if seq, ok := l.negCache.get(id); ok {
		return seq, nil
	}
	return lastIndexed(st.txn, pNeg, id)
}

// lastIndexed returns the last seq in index prefix|name, or 0.
func lastIndexed(txn *badger.Txn, prefix byte, name string) (uint64, error) {
	p := indexPrefix(prefix, name)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: p, Reverse: true})
	defer it.Close()
	for it.Seek(indexKey(prefix, name, ^uint64(0))); it.Valid(); it.Next() {
		if k := it.Item().Key(); len(k) == len(p)+8 {
			return seqOfIndexKey(k), nil
		}
	}
	return 0, nil
}

// negCacheSize bounds the committed last seqs the writer keeps.
const negCacheSize = 4096

// negCache holds the last committed seq of recently written negotiations,
// so that the back-link of an entry costs no index read in the common
// case. It is the writer goroutine's alone. When full it starts over: a
// miss only costs one index seek.
type negCache struct{ last map[string]uint64 }

func (c *negCache) get(id string) (uint64, bool) {
	seq, ok := c.last[id]
	return seq, ok
}

// add records the last seqs of a committed transaction.
func (c *negCache) add(last map[string]uint64) {
	if c.last == nil || len(c.last)+len(last) > negCacheSize {
		c.last = make(map[string]uint64, negCacheSize)
	}
	for id, seq := range last {
		c.last[id] = seq
	}
}
