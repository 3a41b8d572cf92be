package p2p

import (
	"bufio"
	"context"
	"encoding/binary"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// ProtocolMailbox is spoken with store nodes (docs/p2p.md "Mailbox and
// history"): a sender hands over a sealed envelope for a recipient it
// cannot reach (put), a recipient collects what is held for it by cursor
// (fetch), and anyone asks for a topic's history by cursor (history).
const ProtocolMailbox protocol.ID = "/parley/mailbox/1"

// Mailbox operations.
const (
	opPut     = 1
	opFetch   = 2
	opHistory = 3
)

// mailboxPage bounds the items of one fetch or history answer.
const mailboxPage = 256

// maxPagesPerRound bounds one mail collection or history catch-up from
// one store: a store that answers full pages without end costs one round
// of at most this many pages (16,384 items); the rest waits for the next
// poll.
const maxPagesPerRound = 64

// MailItem is one stored message with its cursor (cursors increase; ask
// for the items after the last one seen).
type MailItem struct {
	Cursor uint64
	Data   []byte
}

// MailboxStore is a store node's durable memory; the node implements it
// over the ledger (node.MailboxStore).
type MailboxStore interface {
	// Hold stores a sealed envelope for the recipient to, durably, before
	// it returns. Holding the same bytes twice is harmless. An *Error with
	// CodeNotServed or CodeQuotaExceeded refuses the hand-over (nothing
	// stored) and is told to the sender; any other error answers busy.
	Hold(ctx context.Context, to negotiation.Address, from peer.ID, sealed []byte) error
	// Mail returns up to limit items held for to with a cursor after
	// after, in cursor order. It is called only for a fetch by to itself
	// (an identified peer), whose after acknowledges every item up to it:
	// a store may drop those.
	Mail(ctx context.Context, to negotiation.Address, after uint64, limit int) ([]MailItem, error)
	// Record stores a valid message seen on a topic.
	Record(ctx context.Context, topic string, data []byte) error
	// History returns up to limit messages of topic with a cursor after
	// after, in cursor order.
	History(ctx context.Context, topic string, after uint64, limit int) ([]MailItem, error)
}

// handleMailbox serves one request on a store node.
func (h *Host) handleMailbox(s network.Stream) {
	defer s.Close()
	_ = s.SetDeadline(time.Now().Add(blobTimeout))
	remote := s.Conn().RemotePeer()
	req, err := readMsg(bufio.NewReader(s), h.cfg.MaxFrameBytes+64)
	if err != nil || len(req) < 1 {
		_ = s.Reset()
		return
	}
	ctx := h.ctx
	switch req[0] {
	case opPut:
		// A hand-over is stored durably: only from a peer that completed
		// the identity handshake (unknown_link: it retries).
		if !h.guard.waitIdentified(ctx, remote) {
			_ = writeMsg(s, []byte(CodeUnknownLink))
			return
		}
		_ = writeMsg(s, []byte(h.mailboxPut(ctx, remote, req[1:])))
	case opFetch:
		after, n := binary.Uvarint(req[1:])
		link := h.book.byPeerID(remote)
		if n <= 0 || link == nil || !h.guard.waitIdentified(ctx, remote) {
			_ = s.Reset()
			return
		}
		items, err := h.cfg.Mailbox.Mail(ctx, negotiation.Address(link.EVMAddress), after, mailboxPage)
		writeItems(s, items, err)
	case opHistory:
		after, n := binary.Uvarint(req[1:])
		if n <= 0 {
			_ = s.Reset()
			return
		}
		items, err := h.cfg.Mailbox.History(ctx, string(req[1+n:]), after, mailboxPage)
		writeItems(s, items, err)
	default:
		_ = s.Reset()
	}
}

// mailboxPut checks a hand-over (its frame parses and was sealed by the
// peer handing it over) and holds it.
func (h *Host) mailboxPut(ctx context.Context, remote peer.ID, b []byte) Code {
	if len(b) < 20 {
		return Code(identity.CodeBadFrame)
	}
	var to negotiation.Address
	copy(to[:], b[:20])
	sealed := b[20:]
	hdr, err := identity.ParseFrameHeader(sealed)
	if err != nil {
		return CodeOf(err)
	}
	if hdr.Sender != remote {
		return CodeSenderMismatch
	}
	if err := h.cfg.Mailbox.Hold(ctx, to, remote, sealed); err != nil {
		// A store's refusal (not_served, quota_exceeded) is told as it
		// is; anything else is the store's own failure: busy.
		if c := CodeOf(err); c == CodeNotServed || c == CodeQuotaExceeded {
			return c
		}
		return CodeBusy
	}
	return CodeHeld
}

func writeItems(s network.Stream, items []MailItem, err error) {
	if err != nil {
		_ = s.Reset()
		return
	}
	w := bufio.NewWriter(s)
	for _, it := range items {
		_, _ = w.Write(appendMsg(nil, binary.AppendUvarint(nil, it.Cursor), it.Data))
	}
	_, _ = w.Write(appendMsg(nil))
	_ = w.Flush()
}

// readItems reads one page of a store's answer to a fetch or history
// request after cursor after, until the empty terminator: at most
// mailboxPage items of at most max bytes each, cursors increasing from
// after. A page that breaks these is the store's fault (bad_record) and
// nothing of it is returned: a store repeating its cursors would
// otherwise keep the reader asking for the same page forever.
func readItems(r *bufio.Reader, max int, after uint64) ([]MailItem, error) {
	var out []MailItem
	for {
		b, err := readMsg(r, max)
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return out, nil
		}
		c, n := binary.Uvarint(b)
		switch {
		case n <= 0:
			return nil, fail(CodeBadRecord, "bad item cursor")
		case c <= after:
			return nil, fail(CodeBadRecord, "item cursor %d does not follow %d", c, after)
		case len(out) == mailboxPage:
			return nil, fail(CodeBadRecord, "more than %d items in a page", mailboxPage)
		}
		after = c
		out = append(out, MailItem{Cursor: c, Data: b[n:]})
	}
}

// storeReadErr classes an error reading a store's page: its own fault
// (bad_record) as it is, a broken stream as busy.
func storeReadErr(err error, what string) error {
	if CodeOf(err) == CodeBadRecord {
		return err
	}
	return failWrap(CodeBusy, err, "%s", what)
}

// mailboxRequest sends one request to a store and returns its stream.
// The store is dialled at ai's addresses, or at its configured ones when
// ai has none.
func (h *Host) mailboxRequest(ctx context.Context, ai peer.AddrInfo, req ...[]byte) (network.Stream, *bufio.Reader, error) {
	// The store answers only a peer that identified itself: connect and
	// let the handshake finish first. The configured addresses are
	// dialled too: the start's bootstrap dial, which puts them in the
	// peerstore, may not have run yet.
	store := ai.ID
	if len(ai.Addrs) == 0 {
		for _, st := range h.stores {
			if st.ID == store {
				ai.Addrs = st.Addrs
			}
		}
	}
	if err := h.p2p.Connect(overRelay(ctx, "mailbox"), ai); err != nil {
		return nil, nil, failWrap(CodeNotFound, err, "dial store %s", store)
	}
	if !h.guard.waitIdentified(ctx, store) {
		return nil, nil, fail(CodeUnknownLink, "store %s did not identify", store)
	}
	s, err := h.p2p.NewStream(overRelay(ctx, "mailbox"), store, ProtocolMailbox)
	if err != nil {
		return nil, nil, failWrap(CodeNotFound, err, "mailbox stream to %s", store)
	}
	deadline := time.Now().Add(blobTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = s.SetDeadline(deadline)
	if err := writeMsg(s, req...); err != nil {
		_ = s.Reset()
		return nil, nil, failWrap(CodeBusy, err, "mailbox request")
	}
	if err := s.CloseWrite(); err != nil {
		_ = s.Reset()
		return nil, nil, failWrap(CodeBusy, err, "mailbox request")
	}
	return s, bufio.NewReaderSize(s, 64<<10), nil
}

// viaStore hands due items to store nodes when their recipient cannot be
// reached directly: each store in turn is given what the ones before did
// not take; a store's ack settles an item as held.
func (q *queue) viaStore(ctx context.Context, due []*pending) {
	h := q.o.h
	link := h.book.byAddress(q.addr)
	if link == nil {
		return
	}
	stores := h.handOverStores(ctx, q.addr, link.PeerID)
	if len(stores) == 0 {
		return
	}
	key, err := link.CurrentKey(h.now())
	if err != nil {
		return
	}
	for _, st := range stores {
		if due = q.handOver(ctx, st, link, key.ID, due); len(due) == 0 {
			return
		}
	}
}

// handOverStores returns the store nodes to try for a recipient, in
// order: those its record names (the ones that serve it), then this
// node's own StorePeers; each once, never this node or the recipient
// itself. At most MaxRecordStores + len(StorePeers).
func (h *Host) handOverStores(ctx context.Context, to negotiation.Address, recipient peer.ID) []peer.AddrInfo {
	self := h.p2p.ID()
	var out []peer.AddrInfo
	seen := map[peer.ID]bool{self: true, recipient: true}
	for _, st := range append(h.recipientStores(ctx, to), h.stores...) {
		if seen[st.ID] {
			continue
		}
		seen[st.ID] = true
		out = append(out, st)
	}
	return out
}

// handOver puts due items to one store, within DialTimeout for all of
// them: a slow store costs one timeout per attempt. It returns the items
// the store did not hold; a refusal (not_served, quota_exceeded) or a
// failure stops at that item.
func (q *queue) handOver(ctx context.Context, st peer.AddrInfo, link *identity.Link, keyID identity.KeyID, due []*pending) []*pending {
	h := q.o.h
	cctx, cancel := context.WithTimeout(ctx, h.cfg.DialTimeout)
	defer cancel()
	var left []*pending
	for i, p := range due {
		// A new session per held envelope: the recipient opens it
		// whatever it saw before.
		h.cfg.Sealer.ResetSession(keyID)
		sealed, err := h.cfg.Sealer.Seal(h.now(), p.negID, []*identity.Link{link}, p.item.Envelope)
		h.cfg.Sealer.ResetSession(keyID)
		if err != nil {
			left = append(left, p)
			continue
		}
		s, r, err := h.mailboxRequest(cctx, st, []byte{opPut}, q.addr[:], sealed)
		if err != nil {
			h.log.Debug("store unreachable for a hand-over", "store", st.ID, "err", err)
			return append(left, due[i:]...)
		}
		b, err := readMsg(r, 64)
		_ = s.Close()
		if err != nil {
			return append(left, due[i:]...)
		}
		switch c := Code(b); c {
		case CodeHeld:
			q.settle(ctx, p, CodeOK, keyID, PathStore)
		case CodeNotServed, CodeQuotaExceeded:
			h.log.Debug("store refused a hand-over", "store", st.ID, "code", c)
			return append(left, due[i:]...) // this store takes no more for the recipient now
		default:
			left = append(left, p)
		}
	}
	return left
}

// CollectMail fetches what the store nodes hold for this node, after the
// last cursor collected from each, and delivers it like direct envelopes.
// It returns how many envelopes the handler took (duplicates not counted).
func (h *Host) CollectMail(ctx context.Context) (int, error) {
	n := 0
	var firstErr error
	for _, st := range h.stores {
		got, err := h.collectFrom(ctx, st.ID)
		n += got
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return n, firstErr
}

// withCursors runs f with the mailbox cursors locked.
func (h *Host) withCursors(f func(map[peer.ID]uint64)) {
	h.cmu.Lock()
	defer h.cmu.Unlock()
	if h.cursors == nil {
		h.cursors = make(map[peer.ID]uint64)
	}
	f(h.cursors)
}

func (h *Host) collectFrom(ctx context.Context, store peer.ID) (int, error) {
	taken := 0
	for range maxPagesPerRound {
		var after uint64
		h.withCursors(func(c map[peer.ID]uint64) { after = c[store] })
		s, r, err := h.mailboxRequest(ctx, peer.AddrInfo{ID: store}, []byte{opFetch}, binary.AppendUvarint(nil, after))
		if err != nil {
			return taken, err
		}
		items, err := readItems(r, h.cfg.MaxFrameBytes+16, after)
		_ = s.Close()
		if err != nil {
			return taken, storeReadErr(err, "mailbox fetch")
		}
		for _, it := range items {
			o, err := h.cfg.Sealer.Open(h.now(), it.Data)
			if err == nil {
				code, _ := h.in.accept(ctx, store, o)
				if code.Outcome() == Delivered && code != CodeDuplicate {
					taken++
				}
				if code == CodeBusy || code == Code(negotiation.CodeClockSkew) {
					// Not taken (over a limit, or from the future): the
					// cursor stays before it, so that the next fetch
					// does not acknowledge it to the store and it comes
					// again. An early one (sequence_gap,
					// missing_reference) is held by the inbound side and
					// the cursor passes it: the envelopes it waits for
					// usually follow in the same page.
					return taken, fail(code, "mailbox item %d not taken yet", it.Cursor)
				}
			} else if CodeOf(err).Outcome() == Rejected {
				h.in.reject(store, "", it.Data, CodeOf(err), "")
			}
			h.withCursors(func(c map[peer.ID]uint64) { c[store] = max(c[store], it.Cursor) })
		}
		if len(items) < mailboxPage {
			return taken, nil
		}
	}
	return taken, nil
}

// CatchUp asks a store node for the task board's history after cursor
// after; see CatchUpTopic.
func (h *Host) CatchUp(ctx context.Context, store peer.ID, after uint64) (uint64, int, error) {
	return h.CatchUpTopic(ctx, store, TopicTaskBoard, after)
}

// CatchUpTopic asks a store node for a topic's history after cursor after,
// validates each message as gossip would (except that old timestamps are
// accepted) and hands the valid ones to the handler. For an evidence topic
// this node must have joined it (JoinEvidence) and be a member. It reads
// at most maxPagesPerRound pages and returns the last cursor seen and how
// many new envelopes the handler took.
func (h *Host) CatchUpTopic(ctx context.Context, store peer.ID, topic string, after uint64) (uint64, int, error) {
	if topic != TopicTaskBoard {
		h.topics.mu.Lock()
		_, member := h.topics.members[topic]
		h.topics.mu.Unlock()
		if !member {
			return after, 0, fail(CodeNotFound, "not joined to %s", topic)
		}
	}
	taken := 0
	for range maxPagesPerRound {
		s, r, err := h.mailboxRequest(ctx, peer.AddrInfo{ID: store}, []byte{opHistory}, binary.AppendUvarint(nil, after), []byte(topic))
		if err != nil {
			return after, taken, err
		}
		items, err := readItems(r, h.cfg.MaxFrameBytes+maxLinkBytes+64, after)
		_ = s.Close()
		if err != nil {
			return after, taken, storeReadErr(err, "history")
		}
		for _, it := range items {
			after = max(after, it.Cursor)
			var d Delivery
			var code Code
			if topic == TopicTaskBoard {
				var a *announcement
				if a, code = h.topics.checkBoardAt(store, it.Data, false, true); code == "" {
					d = Delivery{Envelope: a.env, Sender: a.link}
				}
			} else {
				var e *Delivery
				if e, code = h.topics.checkEvidenceAt(topic, store, it.Data, false, true); code == "" {
					d = *e
				}
			}
			if code != "" {
				h.in.reject(store, "", it.Data, code, topic)
				continue
			}
			d.From, d.Topic = store, topic
			if code := h.in.call(ctx, d); code.Outcome() == Delivered && code != CodeDuplicate {
				taken++
			}
		}
		if len(items) < mailboxPage {
			return after, taken, nil
		}
	}
	return after, taken, nil
}

// pollMail collects mail from the store nodes after start and then every
// MailboxPoll, and catches up on the task board's history they recorded:
// gossip keeps none, and a republished announcement is the same message,
// which peers that saw it once do not forward again, so a node that
// joined after an announcement learns it here.
func (h *Host) pollMail(ctx context.Context) {
	if len(h.stores) == 0 {
		return
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := h.CollectMail(ctx); err != nil {
			h.log.Debug("mailbox collect failed", "err", err)
		}
		for _, st := range h.stores {
			h.cmu.Lock()
			after := h.boardCursors[st.ID]
			h.cmu.Unlock()
			last, _, err := h.CatchUp(ctx, st.ID, after)
			if err != nil {
				h.log.Debug("board history not read", "store", st.ID, "err", err)
			}
			h.cmu.Lock()
			h.boardCursors[st.ID] = max(h.boardCursors[st.ID], last)
			h.cmu.Unlock()
		}
		t.Reset(h.cfg.MailboxPoll)
	}
}
