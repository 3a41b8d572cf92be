package node

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/p2p"
)

// blobFetcher is what the blob store needs of the transport: a fetch
// over /parley/blob/1 (p2p.Host.FetchBlob).
type blobFetcher interface {
	FetchBlob(ctx context.Context, p peer.ID, c cid.Cid, have []byte) ([]byte, error)
}

// blobStore stores the files of negotiations in the ledger and fetches
// the files of others from the peers that hold them. It owns the set of
// fetches in flight and its lock (a leaf); the ledger and the transport
// are set at Start (led once the ledger is open, host once the transport
// is), before anything stores or fetches.
type blobStore struct {
	now     func() time.Time
	log     *slog.Logger           // set again at Start, with the node's address
	count   *prometheus.CounterVec // the files metric, by result
	events  *broadcaster
	spawn   func(func(ctx context.Context)) // runs a goroutine the node owns
	timeout time.Duration                   // bounds one attempt to fetch (Config.FetchTimeout)

	led  *ledger.Ledger
	host blobFetcher

	mu       sync.Mutex
	fetching map[fetchKey]bool
}

// fetchKey names one file to fetch for one negotiation.
type fetchKey struct {
	nid string
	c   cid.Cid
}

func newBlobStore(now func() time.Time, log *slog.Logger, count *prometheus.CounterVec, events *broadcaster,
	spawn func(func(context.Context)), timeout time.Duration) *blobStore {
	return &blobStore{now: now, log: log, count: count, events: events, spawn: spawn, timeout: timeout, fetching: map[fetchKey]bool{}}
}

// store stores a file under its CID (raw codec) in negotiation nid and
// returns the CID. Storing the same bytes again returns the same CID.
func (b *blobStore) store(ctx context.Context, nid, name, mediaType, from string, data []byte) (cid.Cid, error) {
	body, err := json.Marshal(blobBody{Name: name, Size: len(data), MediaType: mediaType, From: from})
	if err != nil {
		return cid.Undef, err
	}
	e, _, err := b.led.Append(ctx, ledger.Record{
		Kind: ledger.KindBlobStored, NegotiationID: nid, Body: body, Object: data, ObjectCodec: ledger.CodecRaw, At: b.now(),
	})
	if err != nil {
		return cid.Undef, failWrap(CodeStoreFailed, err, "file %q", name)
	}
	return e.CID, nil
}

// fetchAll fetches files of negotiation nid from peer p in the
// background, checks each against its CID (the transport refuses bytes
// that do not hash to it) and stores it. Files already stored, or being
// fetched, are skipped.
func (b *blobStore) fetchAll(nid string, p peer.ID, files []fileRef) {
	for _, f := range files {
		k := fetchKey{nid: nid, c: f.c}
		if !b.begin(k) {
			continue
		}
		b.spawn(func(ctx context.Context) {
			defer b.end(k)
			if _, err := b.fetch(ctx, nid, p, f); err != nil && ctx.Err() == nil {
				b.log.Warn("file not fetched", "negotiation", nid, "cid", f.c, "err", err)
			}
		})
	}
}

// begin marks k as being fetched; it reports false when it is already.
func (b *blobStore) begin(k fetchKey) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fetching[k] {
		return false
	}
	b.fetching[k] = true
	return true
}

// end marks k as no longer being fetched.
func (b *blobStore) end(k fetchKey) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.fetching, k)
}

// fetch fetches one file (raw) unless it is stored already, and stores
// it.
func (b *blobStore) fetch(ctx context.Context, nid string, p peer.ID, f fileRef) ([]byte, error) {
	if data, err := b.led.Object(ctx, f.c); err == nil {
		return data, nil
	}
	data, err := b.raw(ctx, p, f.c)
	if err != nil {
		return nil, err
	}
	if _, err := b.store(ctx, nid, f.ref.Name, f.ref.MediaType, p.String(), data); err != nil {
		return nil, err
	}
	b.events.publish(Event{Kind: EventFile, NegotiationID: nid, CID: f.c.String(), Detail: f.ref.Name, At: b.now()})
	return data, nil
}

// raw fetches the file c from p without storing it, retrying with
// backoff (a party may not yet know the fetching node's role): a broken
// transfer resumes after the bytes it got, bytes that do not hash to c
// are dropped and fetched again. It counts each result in the files
// metric.
func (b *blobStore) raw(ctx context.Context, p peer.ID, c cid.Cid) ([]byte, error) {
	var have []byte
	var lastErr error
	for attempt, delay := 0, 200*time.Millisecond; attempt < 8; attempt, delay = attempt+1, min(2*delay, 5*time.Second) {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(delay):
			}
		}
		fctx, cancel := context.WithTimeout(ctx, b.timeout)
		data, err := b.host.FetchBlob(fctx, p, c, have)
		cancel()
		if err == nil {
			b.count.WithLabelValues("ok").Inc()
			return data, nil
		}
		lastErr, have = err, data
		if b.log != nil {
			b.log.Debug("file fetch attempt failed", "peer", p, "cid", c, "attempt", attempt+1, "err", err)
		}
		if errors.Is(err, p2p.ErrCIDMismatch) {
			have = nil
			b.count.WithLabelValues("cid_mismatch").Inc()
		}
	}
	b.count.WithLabelValues("failed").Inc()
	return nil, lastErr
}
