package node

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// Rejection evidence (docs/node.md "Rejected input"): every rejection,
// the transport's and the node's own, is counted in a bucket per peer and
// window, and each window ends in one input.rejected entry per bucket, so
// that a flood writes a bounded number of entries and loses no count.
const (
	// DefaultRejectionWindow is how long rejections are gathered before
	// their entries are written.
	DefaultRejectionWindow = time.Minute
	// maxRejectionPeers bounds the buckets of one window; rejections of
	// further peers are counted in one overflow bucket (peer "*").
	maxRejectionPeers = 32
	// maxRejectionNegotiations bounds the negotiation ids one bucket
	// names; the others are counted.
	maxRejectionNegotiations = 8
	// maxOverflowPeers bounds the distinct peers the overflow bucket
	// remembers in order to count them.
	maxOverflowPeers = 4096
	// overflowPeer names the overflow bucket.
	overflowPeer = "*"
)

// rejection is one input rejected as not authentic.
type rejection struct {
	peer  string           // the peer the bytes came from (or the sender's, for the node's own)
	code  negotiation.Code // why
	hash  negotiation.Hash // SHA-256 of the bytes as received
	size  int
	nid   string // the negotiation the input named, if well formed
	topic string // the topic it arrived on, if any
	at    time.Time
}

// rejectionSample is one rejection as a bucket's body names it.
type rejectionSample struct {
	Hash negotiation.Hash `json:"hash"`
	Size int              `json:"size"`
	Code negotiation.Code `json:"code"`
	At   string           `json:"at"`
	// NegotiationID and Topic are the sample's, when known.
	NegotiationID string `json:"negotiationId,omitempty"`
	Topic         string `json:"topic,omitempty"`
}

// rejectionBody is the body of one input.rejected entry: one peer's
// rejections in one window.
type rejectionBody struct {
	Peer  string                      `json:"peer"`
	From  string                      `json:"from"`
	To    string                      `json:"to"`
	Total uint64                      `json:"total"`
	Codes map[negotiation.Code]uint64 `json:"codes"`
	First rejectionSample             `json:"first"`
	Last  rejectionSample             `json:"last"`
	// Negotiations are the well-formed negotiation ids the rejected
	// input named (at most maxRejectionNegotiations); MoreNegotiations
	// counts the rejections that named others.
	Negotiations     []string          `json:"negotiations,omitempty"`
	MoreNegotiations uint64            `json:"moreNegotiations,omitempty"`
	Topics           map[string]uint64 `json:"topics,omitempty"`
	// Peers is, in the overflow bucket, how many distinct peers it counts
	// (at least, when PeersCapped).
	Peers       int  `json:"peers,omitempty"`
	PeersCapped bool `json:"peersCapped,omitempty"`
}

// rejectionBucket gathers one peer's rejections in the current window.
type rejectionBucket struct {
	body  rejectionBody
	nids  map[string]bool
	named uint64          // rejections that named a negotiation
	peers map[string]bool // overflow bucket only
}

// rejectionLog aggregates rejections per peer and window, and writes
// each window's entries; rejected never blocks (the transport's callback
// calls it) and its memory is bounded. It owns its buckets and their
// lock (a leaf); the ledger it writes to is passed to run and flush.
type rejectionLog struct {
	counted *prometheus.CounterVec // the rejected metric, by code (nil: not counted)
	now     func() time.Time
	window  time.Duration

	mu      sync.Mutex
	buckets map[string]*rejectionBucket
	over    *rejectionBucket
}

// newRejectionLog returns a log whose windows last window
// (DefaultRejectionWindow when 0), counting every rejection in counted.
func newRejectionLog(counted *prometheus.CounterVec, now func() time.Time, window time.Duration) *rejectionLog {
	if window <= 0 {
		window = DefaultRejectionWindow
	}
	return &rejectionLog{counted: counted, now: now, window: window, buckets: make(map[string]*rejectionBucket)}
}

// add counts r in its peer's bucket, or in the overflow bucket when the
// window already holds maxRejectionPeers peers.
func (l *rejectionLog) add(r rejection) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[r.peer]
	if b == nil {
		if len(l.buckets) < maxRejectionPeers && r.peer != overflowPeer {
			b = newRejectionBucket(r.peer)
			l.buckets[r.peer] = b
		} else {
			if l.over == nil {
				l.over = newRejectionBucket(overflowPeer)
				l.over.peers = make(map[string]bool)
			}
			b = l.over
			if len(b.peers) < maxOverflowPeers {
				b.peers[r.peer] = true
			} else if !b.peers[r.peer] {
				b.body.PeersCapped = true
			}
			b.body.Peers = len(b.peers)
		}
	}
	b.count(r)
}

func newRejectionBucket(peer string) *rejectionBucket {
	return &rejectionBucket{
		body: rejectionBody{Peer: peer, Codes: make(map[negotiation.Code]uint64)},
		nids: make(map[string]bool),
	}
}

func (b *rejectionBucket) count(r rejection) {
	s := rejectionSample{Hash: r.hash, Size: r.size, Code: r.code, At: negotiation.FormatTime(r.at), NegotiationID: r.nid, Topic: r.topic}
	body := &b.body
	if body.Total == 0 {
		body.First, body.From = s, s.At
	}
	body.Last, body.To = s, s.At
	body.Total++
	body.Codes[r.code]++
	if r.topic != "" {
		if body.Topics == nil {
			body.Topics = make(map[string]uint64)
		}
		body.Topics[r.topic]++
	}
	if r.nid == "" {
		return
	}
	b.named++
	if !b.nids[r.nid] {
		if len(b.nids) < maxRejectionNegotiations {
			b.nids[r.nid] = true
		} else {
			body.MoreNegotiations++
		}
	}
}

// take ends the window: it returns one record per bucket (peers in order,
// the overflow bucket last) and starts an empty window.
func (l *rejectionLog) take(at time.Time) []ledger.Record {
	l.mu.Lock()
	buckets, over := l.buckets, l.over
	l.buckets, l.over = make(map[string]*rejectionBucket), nil
	l.mu.Unlock()
	var out []ledger.Record
	for _, p := range slices.Sorted(maps.Keys(buckets)) {
		out = append(out, buckets[p].record(at))
	}
	if over != nil {
		out = append(out, over.record(at))
	}
	return out
}

// record is the bucket's entry; it is indexed under a negotiation when
// every rejection it counts named that one.
func (b *rejectionBucket) record(at time.Time) ledger.Record {
	body := b.body
	body.Negotiations = slices.Sorted(maps.Keys(b.nids))
	raw, _ := json.Marshal(body)
	rec := ledger.Record{Kind: KindInputRejected, Body: raw, At: at}
	if len(body.Negotiations) == 1 && b.named == body.Total {
		rec.NegotiationID = body.Negotiations[0]
	}
	return rec
}

// rejected counts one rejection in the metric and in its peer's bucket.
func (l *rejectionLog) rejected(r rejection) {
	if l.counted != nil {
		l.counted.WithLabelValues(string(r.code)).Inc()
	}
	if _, err := negotiation.ParseNegotiationID(r.nid); err != nil {
		r.nid = ""
	}
	if r.at.IsZero() {
		r.at = l.now()
	}
	l.add(r)
}

// run writes the window's entries to led every rejection window until
// ctx ends; shutdown writes the last window (flush).
func (l *rejectionLog) run(ctx context.Context, led *ledger.Ledger, log *slog.Logger) {
	t := time.NewTicker(l.window)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		l.flush(ctx, led, log)
	}
}

// flush ends the current window and writes its entries to led.
func (l *rejectionLog) flush(ctx context.Context, led *ledger.Ledger, log *slog.Logger) {
	for _, rec := range l.take(l.now()) {
		if _, _, err := led.Append(ctx, rec); err != nil && !errors.Is(err, context.Canceled) {
			log.Warn("rejected input not recorded", "err", err)
		}
	}
}

// transportRejection is a rejection the transport reported.
func transportRejection(ev p2p.Event) rejection {
	return rejection{peer: ev.Peer.String(), code: negotiation.Code(ev.Code), hash: negotiation.Hash(ev.Hash), size: ev.Size, nid: ev.NegotiationID, topic: ev.Topic}
}
