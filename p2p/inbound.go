package p2p

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"hash/maphash"
	"slices"
	"sync"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// ProtocolEnvelope is direct delivery of sealed envelopes: one long-lived
// stream per peer, frames one way and acks the other (docs/p2p.md).
const ProtocolEnvelope protocol.ID = "/parley/envelope/1"

// lanesPerStream is how many envelopes of different negotiations one
// stream processes at once; envelopes of one negotiation stay in order.
const lanesPerStream = 64

// seenCapacity bounds the in-memory set of CIDs recently acked; the
// Handler's durable check answers for older ones.
const seenCapacity = 1 << 16

// inbound receives envelopes: it opens, decodes and verifies them, hands
// them to the Handler, holds those that arrive ahead of their sender's
// previous one, and acks.
type inbound struct {
	h    *Host
	sem  chan struct{}
	seed maphash.Seed

	mu    sync.Mutex
	held  map[holdKey][]*heldEnvelope
	count int
	bytes int
	seen  map[cid.Cid]struct{}
	ring  []cid.Cid
	next  int
}

type holdKey struct {
	sender        negotiation.Address
	negotiationID string
}

type heldEnvelope struct {
	d    Delivery
	at   time.Time
	size int
}

func newInbound(h *Host) *inbound {
	return &inbound{
		h:    h,
		sem:  make(chan struct{}, h.cfg.HandlerConcurrency),
		seed: maphash.MakeSeed(),
		held: make(map[holdKey][]*heldEnvelope),
		seen: make(map[cid.Cid]struct{}),
		ring: make([]cid.Cid, seenCapacity),
	}
}

// job is one opened frame waiting for its lane.
type job struct {
	id     uint64
	opened *identity.Opened
	size   int
}

// handleStream serves one inbound /parley/envelope/1 stream until the peer
// closes it. Frames are opened in arrival order (a session init precedes
// the frames that use it); decoding, verification and the handler run in
// lanes keyed by negotiation, so one negotiation's envelopes are handled in
// the order they came.
func (in *inbound) handleStream(s network.Stream) {
	h := in.h
	remote := s.Conn().RemotePeer()
	r := bufio.NewReaderSize(s, 64<<10)
	var wmu sync.Mutex
	var broken bool
	send := func(a ack) {
		wmu.Lock()
		defer wmu.Unlock()
		if broken {
			return
		}
		if _, err := s.Write(a.encode()); err != nil {
			broken = true
			_ = s.Reset()
		}
	}
	g := h.guard
	// Frames waiting for their ack hold at most maxInflightBytes of the
	// memory, per peer over all its streams; past it the peer's streams
	// are read no further until acks free some (an honest sender has one
	// window in flight).
	inflight := g.inflight(remote, max(maxInflightBytes, h.cfg.MaxFrameBytes+16))
	// Lanes start on first use, so a stream that carries one negotiation
	// costs one goroutine.
	var lanes [lanesPerStream]chan job
	var wg sync.WaitGroup
	lane := func(i uint64) chan job {
		if lanes[i] == nil {
			c := make(chan job, 64)
			lanes[i] = c
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range c {
					code, id, judged := in.acceptJudged(h.ctx, remote, j.opened)
					send(ack{id: j.id, code: code, cid: id})
					inflight.release(j.size)
					// Garbage is what no honest sender makes: frames the
					// transport refused. The handler's refusals (a
					// thread this node does not hold, a chain that does
					// not fit) can follow from honest divergence.
					if !judged && code.Outcome() == Rejected {
						g.rejected(remote)
					}
				}
			}()
		}
		return lanes[i]
	}
	defer func() {
		for _, c := range lanes {
			if c != nil {
				close(c)
			}
		}
		wg.Wait()
		_ = s.Close()
	}()
	// refuse acks a frame the transport rejected itself (it did not open,
	// or was sealed by another peer) and reports whether to read on.
	refuse := func(id uint64, sealed []byte, code Code) bool {
		in.reject(remote, "", sealed, code, "")
		send(ack{id: id, code: code})
		if !g.rejected(remote) {
			_ = s.Reset()
			return false
		}
		return true
	}
	for {
		b, err := readMsg(r, h.cfg.MaxFrameBytes+16)
		if err != nil {
			if errors.Is(err, errFrameTooLarge) {
				if h.Identified(remote) {
					h.emit(Event{Kind: EventInputRejected, Peer: remote, Code: Code(negotiation.CodeTooLarge)})
					g.rejected(remote)
				}
				_ = s.Reset()
			}
			return
		}
		id, sealed, err := decodeFrame(b)
		if err != nil {
			_ = s.Reset()
			return
		}
		// A peer that has not completed the identity handshake is
		// refused without opening its frame, recording it or reporting
		// it: unknown_link, which an honest sender mid-handshake retries.
		// The first frames of a new connection wait for the handshake.
		if !g.waitIdentified(h.ctx, remote) {
			send(ack{id: id, code: CodeUnknownLink})
			if !g.unidentifiedFrame(remote) {
				_ = s.Reset()
				return
			}
			continue
		}
		switch g.admitFrame(remote, len(b)) {
		case "":
		case CodeBusy:
			send(ack{id: id, code: CodeBusy})
			continue
		default:
			_ = s.Reset() // banned
			return
		}
		opened, err := h.cfg.Sealer.Open(h.now(), sealed)
		if err != nil {
			code := CodeOf(err)
			if code == "" {
				code = Code(identity.CodeBadFrame)
			}
			if code.Outcome() != Rejected {
				send(ack{id: id, code: code}) // a re-key, not a rejection
				continue
			}
			if !refuse(id, sealed, code) {
				return
			}
			continue
		}
		if opened.SenderPeer != remote {
			// A frame sealed by another peer, replayed or relayed on a
			// direct stream: direct delivery comes from its sender only.
			if !refuse(id, sealed, CodeSenderMismatch) {
				return
			}
			continue
		}
		if !inflight.acquire(h.ctx, len(b)) {
			_ = s.Reset()
			return
		}
		i := maphash.Bytes(in.seed, opened.NegotiationID[:]) % lanesPerStream
		select {
		case lane(i) <- job{id: id, opened: opened, size: len(b)}:
		case <-h.ctx.Done():
			_ = s.Reset()
			return
		}
	}
}

// maxInflightBytes bounds the frames of one peer that wait for their ack,
// over all its streams (64 frames of 256 KiB envelopes fit twice).
const maxInflightBytes = 32 << 20

// byteBudget is a counting semaphore over bytes.
type byteBudget struct {
	mu   sync.Mutex
	used int
	max  int
	free chan struct{}
}

func newByteBudget(max int) *byteBudget {
	return &byteBudget{max: max, free: make(chan struct{}, 1)}
}

// acquire takes n bytes, waiting until they are free; false when ctx ends.
func (b *byteBudget) acquire(ctx context.Context, n int) bool {
	n = min(n, b.max)
	for {
		b.mu.Lock()
		if b.used+n <= b.max {
			b.used += n
			b.mu.Unlock()
			return true
		}
		b.mu.Unlock()
		select {
		case <-b.free:
		case <-ctx.Done():
			return false
		}
	}
}

func (b *byteBudget) release(n int) {
	b.mu.Lock()
	b.used -= min(n, b.max)
	b.mu.Unlock()
	select {
	case b.free <- struct{}{}:
	default:
	}
}

// accept checks an opened frame and hands its envelope to the Handler. It
// returns the ack code and the envelope's CID (undefined when the bytes
// did not decode). from is the peer the frame came from: its sealer on a
// direct stream, a store node on mailbox hand-over.
func (in *inbound) accept(ctx context.Context, from peer.ID, o *identity.Opened) (Code, cid.Cid) {
	code, c, _ := in.acceptJudged(ctx, from, o)
	return code, c
}

// acceptJudged is accept; judged is false when the transport refused the
// frame itself (it is not an authentic envelope of its sealer's) and true
// when the code is the Handler's.
func (in *inbound) acceptJudged(ctx context.Context, from peer.ID, o *identity.Opened) (code Code, c cid.Cid, judged bool) {
	h := in.h
	env, err := negotiation.Decode(o.Plaintext, negotiation.DecodeOptions{MaxBytes: h.cfg.MaxEnvelopeBytes})
	if err != nil {
		code := CodeOf(err)
		in.reject(from, "", o.Plaintext, code, "")
		return code, cid.Undef, false
	}
	c = env.CID()
	if err := env.Verify(); err != nil {
		code := CodeOf(err)
		in.reject(from, env.NegotiationID, o.Plaintext, code, "")
		return code, c, false
	}
	if code := in.checkSender(env, o.Sender); code != "" {
		in.reject(from, env.NegotiationID, o.Plaintext, code, "")
		return code, c, false
	}
	if nid, err := negotiation.ParseNegotiationID(env.NegotiationID); err != nil || nid != o.NegotiationID {
		code := Code(negotiation.CodeWrongNegotiation)
		in.reject(from, env.NegotiationID, o.Plaintext, code, "")
		return code, c, false
	}
	if !env.Addressed(h.self) {
		code := Code(negotiation.CodeNotAddressed)
		in.reject(from, env.NegotiationID, o.Plaintext, code, "")
		return code, c, false
	}
	if env.Timestamp.After(h.now().Add(h.cfg.MaxClockSkew)) {
		return Code(negotiation.CodeClockSkew), c, false
	}
	h.learn(o.Sender)
	return in.offer(ctx, Delivery{Envelope: env, Sender: o.Sender, From: from}, len(o.Plaintext)), c, true
}

// checkSender returns sender_mismatch unless the envelope's sender is the
// one in the verified link of the peer that sealed it.
func (in *inbound) checkSender(env *negotiation.Envelope, l *identity.Link) Code {
	if l == nil || env.Sender.EVMAddress != negotiation.Address(l.EVMAddress) ||
		!bytes.Equal(env.Sender.XMTPPublicKey[:], l.InboxKey) {
		return CodeSenderMismatch
	}
	return ""
}

// offer hands d to the Handler unless its CID was acked recently. On
// success it re-offers the envelopes held for the same sender and
// negotiation; a retryable ordering code holds d (bounded).
func (in *inbound) offer(ctx context.Context, d Delivery, size int) Code {
	c := d.Envelope.CID()
	if in.wasSeen(c) {
		return CodeDuplicate
	}
	code := in.call(ctx, d)
	switch code.Outcome() {
	case Delivered:
		in.markSeen(c)
		in.reoffer(ctx, holdKey{d.Envelope.Sender.EVMAddress, d.Envelope.NegotiationID})
	case Retry:
		if code == Code(negotiation.CodeSequenceGap) || code == Code(negotiation.CodeMissingReference) {
			if !in.hold(d, size) {
				return CodeBusy
			}
		}
	}
	// A Rejected code is the handler's own judgement: the handler records
	// it (it is not reported again as EventInputRejected).
	return code
}

// call runs the Handler under the host-wide concurrency bound.
func (in *inbound) call(ctx context.Context, d Delivery) Code {
	select {
	case in.sem <- struct{}{}:
	case <-ctx.Done():
		return CodeBusy
	}
	defer func() { <-in.sem }()
	code := Code(in.h.cfg.Handler.HandleEnvelope(ctx, d))
	if code == "" {
		code = CodeOK
	}
	return code
}

// hold keeps d until its sender's earlier envelope arrives; it reports
// false when the bounds are reached.
func (in *inbound) hold(d Delivery, size int) bool {
	cfg := in.h.cfg
	in.mu.Lock()
	defer in.mu.Unlock()
	k := holdKey{d.Envelope.Sender.EVMAddress, d.Envelope.NegotiationID}
	for _, e := range in.held[k] {
		if e.d.Envelope.Hash() == d.Envelope.Hash() {
			return true
		}
	}
	if in.count+1 > cfg.HoldCount || in.bytes+size > cfg.HoldBytes {
		return false
	}
	in.held[k] = append(in.held[k], &heldEnvelope{d: d, at: in.h.now(), size: size})
	in.count++
	in.bytes += size
	return true
}

// reoffer hands the envelopes held for k to the Handler again, lowest
// sequence first, until none makes progress.
func (in *inbound) reoffer(ctx context.Context, k holdKey) {
	for {
		in.mu.Lock()
		list := in.held[k]
		delete(in.held, k)
		for _, e := range list {
			in.count--
			in.bytes -= e.size
		}
		in.mu.Unlock()
		if len(list) == 0 {
			return
		}
		slices.SortFunc(list, func(a, b *heldEnvelope) int {
			return cmp.Compare(a.d.Envelope.Sequence, b.d.Envelope.Sequence)
		})
		progress := false
		var keep []*heldEnvelope
		for _, e := range list {
			c := e.d.Envelope.CID()
			if in.wasSeen(c) {
				continue
			}
			code := in.call(ctx, e.d)
			switch code.Outcome() {
			case Delivered:
				in.markSeen(c)
				progress = true
			case Retry:
				keep = append(keep, e)
			}
		}
		in.mu.Lock()
		for _, e := range keep {
			in.held[k] = append(in.held[k], e)
			in.count++
			in.bytes += e.size
		}
		in.mu.Unlock()
		if !progress {
			return
		}
	}
}

// SealerSessions returns how many outgoing and incoming sealing sessions
// the host's sealer holds.
func (h *Host) SealerSessions() (out, in int) { return h.cfg.Sealer.Sessions() }

// Held returns how many envelopes are held waiting for an earlier one.
func (h *Host) Held() int {
	h.in.mu.Lock()
	defer h.in.mu.Unlock()
	return h.in.count
}

// sweep drops held envelopes older than HoldAge (their senders retry).
func (in *inbound) sweep(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cut := in.h.now().Add(-in.h.cfg.HoldAge)
		in.mu.Lock()
		for k, list := range in.held {
			kept := list[:0]
			for _, e := range list {
				if e.at.Before(cut) {
					in.count--
					in.bytes -= e.size
					continue
				}
				kept = append(kept, e)
			}
			if len(kept) == 0 {
				delete(in.held, k)
			} else {
				in.held[k] = kept
			}
		}
		in.mu.Unlock()
	}
}

func (in *inbound) wasSeen(c cid.Cid) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	_, ok := in.seen[c]
	return ok
}

func (in *inbound) markSeen(c cid.Cid) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.seen[c]; ok {
		return
	}
	if old := in.ring[in.next]; old.Defined() {
		delete(in.seen, old)
	}
	in.ring[in.next] = c
	in.next = (in.next + 1) % len(in.ring)
	in.seen[c] = struct{}{}
}

// reject reports non-authentic input by hash, size and code.
func (in *inbound) reject(from peer.ID, negotiationID string, b []byte, code Code, topic string) {
	in.h.log.Debug("input rejected", "peer", from, "code", code, "topic", topic)
	in.h.emit(Event{Kind: EventInputRejected, Peer: from, NegotiationID: negotiationID, Hash: sha256Sum(b), Size: len(b), Code: code, Topic: topic})
}
