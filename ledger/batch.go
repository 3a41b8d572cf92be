package ledger

import "context"

// AppendAll records the records of one step in one synced transaction, in
// the order given, all or none, and returns one entry per record (in the
// same order) once that transaction is synced. It keeps every guarantee of
// Append: each entry is chained to the one before it, objects are stored
// once under their CID, the indexes and the head are written in the same
// transaction. Reserved kinds go in as EnvelopeRecord and RejectedRecord
// build them, so a step's envelope and the records it causes are one
// batch.
//
// The batch is one unit of the group commit: it may share a transaction
// with concurrent appends, but it is never split, and no other append's
// entry falls between its entries. The entries it writes have consecutive
// seqs in the order of records. A record whose object is already stored
// (before the batch, or by an earlier record of the same batch) writes
// nothing, as Append's existed: its entry is the one that stored the
// object, so its Seq is not one of the batch's new seqs.
//
// A refused record refuses the whole batch and nothing is written: the
// error is a *BatchError naming the record (its Index) and wrapping its
// *Error. A batch that cannot go into one group commit (more records than
// Config.MaxBatch, or more estimated bytes than Config.MaxBatchBytes and
// the transaction limit allow) is refused up front with an *Error of code
// CodeTooLarge (field "records"); one record always fits, as for Append.
// An empty batch writes nothing and returns no entries.
func (l *Ledger) AppendAll(ctx context.Context, records ...Record) ([]Entry, error) {
	if len(records) == 0 {
		return nil, nil
	}
	if len(records) > l.cfg.MaxBatch {
		return nil, refuse(CodeTooLarge, "records", "a batch of %d records exceeds the limit of %d per group commit", len(records), l.cfg.MaxBatch)
	}
	parts := make([]*request, len(records))
	var size int64
	for i, r := range records {
		req, err := l.prepareRecord(r)
		if err != nil {
			return nil, &BatchError{Index: i, Err: err}
		}
		parts[i] = req
		size += req.size
	}
	if len(parts) == 1 {
		res := l.submit(ctx, parts[0])
		if res.err != nil {
			return nil, res.err
		}
		return []Entry{res.entry}, nil
	}
	if limit := l.batchLimit(); size > limit {
		return nil, refuse(CodeTooLarge, "records", "a batch of %d records and about %d bytes exceeds the %d bytes of one transaction", len(records), size, limit)
	}
	res := l.submit(ctx, &request{op: opBatch, parts: parts, size: size})
	if res.err != nil {
		return nil, res.err
	}
	return res.entries, nil
}
