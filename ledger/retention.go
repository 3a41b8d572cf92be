package ledger

import (
	"context"
	"errors"

	"github.com/dgraph-io/badger/v4"
	"github.com/parleynet/parley/negotiation"
)

// Closed reports whether a negotiation whose latest thread.state is state
// can no longer change (negotiation.State.Terminal: completed, resolved,
// cancelled, vetoed), so that its objects may be deleted under the retention
// rule. Any other state (open, funded, delivered, disputed, arbitrated,
// expired, ...) and a negotiation with no thread.state entry keep
// everything.
func Closed(state string) bool { return negotiation.State(state).Terminal() }

// errNothingToPrune tells Prune that no object was left to delete.
var errNothingToPrune = &Error{Code: "nothing_to_prune"}

// Prune deletes the stored objects (envelope bytes, blobs) of a closed
// negotiation and appends a retention.pruned entry naming their CIDs, in one
// transaction. Entries are never deleted: the chain, the CIDs and the codes
// stay, so the history still verifies. It refuses with CodeRetained unless
// the negotiation's latest thread.state is Closed, so nothing
// of an open or disputed negotiation is ever deleted. It deletes at most a
// bounded number of objects per call and returns how many; call it until
// it returns 0.
func (l *Ledger) Prune(ctx context.Context, negotiationID string) (int, error) {
	if _, err := negotiation.ParseNegotiationID(negotiationID); err != nil {
		return 0, &Error{Code: CodeBadNegotiationID, Field: "negotiationId", Msg: "want a lowercase UUID v4", Err: err}
	}
	req := &request{
		op: opPrune, kind: KindRetentionPruned, negID: negotiationID,
		size: l.cfg.txnLimit() / 2,
	}
	res := l.submit(ctx, req)
	e, err := res.entry, res.err
	if errors.Is(err, errNothingToPrune) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	ms, err := members(e.Body)
	if err != nil {
		return 0, err
	}
	v, _ := lookup(ms, "count")
	n, err := parseSeq(v)
	return int(n), err
}

// pruneLimit bounds the objects one Prune deletes, so that its entry and its
// deletions fit in one entry and one transaction.
func (l *Ledger) pruneLimit() int {
	byEntry := (l.cfg.MaxEntryBytes - 256) / 80
	byTxn := int((l.cfg.txnLimit()/2 - int64(l.cfg.MaxEntryBytes)) / (2 * 128))
	return max(1, min(byEntry, byTxn, 4096))
}

// preparePrune runs in the writer: it checks the retention rule, deletes
// the objects and returns the body of the retention.pruned entry.
func (l *Ledger) preparePrune(st *txnState, r *request) ([]byte, error) {
	txn := st.txn
	state, err := getValue(txn, stateKey(r.negID))
	if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
		return nil, err
	}
	if !Closed(string(state)) {
		s := string(state)
		if s == "" {
			s = "unknown"
		}
		return nil, refuse(CodeRetained, "negotiationId", "negotiation %s is %s", r.negID, s)
	}
	limit := l.pruneLimit()
	var victims [][]byte
	it := txn.NewIterator(badger.IteratorOptions{Prefix: indexPrefix(pNeg, r.negID)})
	for it.Rewind(); it.Valid() && len(victims) < limit; it.Next() {
		e, err := getEntry(txn, seqOfIndexKey(it.Item().Key()))
		if err != nil {
			it.Close()
			return nil, err
		}
		if !e.CID.Defined() {
			continue
		}
		if _, err := txn.Get(cidKey(pObject, e.CID)); errors.Is(err, badger.ErrKeyNotFound) {
			continue
		} else if err != nil {
			it.Close()
			return nil, err
		}
		victims = append(victims, e.CID.Bytes())
	}
	it.Close()
	if len(victims) == 0 {
		return nil, errNothingToPrune
	}
	seq := st.head.Seq + 1
	body := []byte(`{"cids":[`)
	for i, b := range victims {
		c, _ := cidFromBytes(b)
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, '"')
		body = append(body, c.String()...)
		body = append(body, '"')
		if err := txn.Delete(cidKey(pObject, c)); err != nil {
			return nil, err
		}
		if err := txn.Set(cidKey(pPruned, c), u64(seq)); err != nil {
			return nil, err
		}
	}
	body = append(body, `],"count":`...)
	body = append(body, []byte(itoa(len(victims)))...)
	return append(body, '}'), nil
}
