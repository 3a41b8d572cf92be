package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// Ledger kinds of a store node's mailbox and topic history.
const (
	KindMailboxHeld  = "mailbox.held"  // a sealed envelope held for a recipient; body {to, from, size}, object raw
	KindMailboxAcked = "mailbox.acked" // a served recipient's fetch acknowledged its mail up to cursor (0: registered); body {to, cursor}
	KindTopicMessage = "topic.message" // a valid message seen on a topic; body {topic}, object raw
)

// MailboxStore keeps a store node's mailbox and topic history in the
// ledger (docs/p2p.md "Running a store node"): every held envelope and
// topic message is an entry whose object is the bytes as received, and an
// entry's seq is its cursor. It holds mail only for the recipients it
// serves (StoreConfig.Serve, or with Open any identified peer that
// fetched from it, up to MaxRecipients), within each one's quota of items
// and bytes; a recipient's fetch acknowledges what it collected, and mail
// older than Retention is no longer served. Its index of held mail lives
// in memory, rebuilt from the ledger by Load.
//
// Acknowledged and expired mail stops counting against the quota and is
// never served again, but its entries and objects stay in the ledger: the
// ledger deletes objects only for a closed negotiation (ledger.Prune), and
// a store cannot read which negotiation a sealed envelope belongs to. The
// ledger grows by at most QuotaItems items per served recipient per
// Retention.
type MailboxStore struct {
	l     *ledger.Ledger
	cfg   StoreConfig
	serve map[negotiation.Address]bool
	now   func() time.Time

	mu     sync.Mutex
	loaded bool
	boxes  map[negotiation.Address]*mailbox
	open   int // recipients registered under Open
}

// mailbox is one recipient's held mail: its live items (not acknowledged),
// in cursor order.
type mailbox struct {
	acked      uint64
	registered bool
	items      []heldItem
	bytes      int64
}

type heldItem struct {
	seq  uint64
	cid  cid.Cid
	size int64
	at   time.Time
	from string // the peer id that handed it over
}

var _ p2p.MailboxStore = (*MailboxStore)(nil)

// NewMailboxStore returns a MailboxStore over a started ledger for the
// store configuration cfg (checked by Config.Validate) and the clock now
// (nil: time.Now). It does no I/O: call Load before serving.
func NewMailboxStore(l *ledger.Ledger, cfg StoreConfig, now func() time.Time) *MailboxStore {
	if now == nil {
		now = time.Now
	}
	serve := make(map[negotiation.Address]bool, len(cfg.Serve))
	for _, a := range cfg.Serve {
		if addr, err := negotiation.ParseAddress(a); err == nil {
			serve[addr] = true
		}
	}
	return &MailboxStore{l: l, cfg: cfg, serve: serve, now: now, boxes: make(map[negotiation.Address]*mailbox)}
}

type mailBody struct {
	To     string `json:"to,omitempty"`
	From   string `json:"from,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Cursor uint64 `json:"cursor,omitempty"`
	Topic  string `json:"topic,omitempty"`
}

// Load rebuilds the index of held mail from the ledger: the
// acknowledgements (and registrations) first, then the held items after
// them that are not expired.
func (s *MailboxStore) Load(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.boxes, s.open = make(map[negotiation.Address]*mailbox), 0
	for e, err := range s.l.ByKind(ctx, KindMailboxAcked) {
		if err != nil {
			return fmt.Errorf("node: mailbox load: %w", err)
		}
		b, to, err := decodeMail(e)
		if err != nil {
			return err
		}
		box := s.box(to)
		if !box.registered {
			box.registered = true
			s.open++
		}
		box.acked = max(box.acked, b.Cursor)
	}
	for e, err := range s.l.ByKind(ctx, KindMailboxHeld) {
		if err != nil {
			return fmt.Errorf("node: mailbox load: %w", err)
		}
		b, to, err := decodeMail(e)
		if err != nil {
			return err
		}
		box := s.box(to)
		if e.Seq <= box.acked {
			continue
		}
		size := b.Size
		if size == 0 {
			// An entry from before sizes were recorded.
			data, err := s.l.Object(ctx, e.CID)
			if errors.Is(err, ledger.ErrNotFound) {
				continue
			} else if err != nil {
				return fmt.Errorf("node: mailbox load: entry %d: %w", e.Seq, err)
			}
			size = int64(len(data))
		}
		box.items = append(box.items, heldItem{seq: e.Seq, cid: e.CID, size: size, at: e.At, from: b.From})
		box.bytes += size
	}
	s.loaded = true
	return nil
}

func decodeMail(e ledger.Entry) (mailBody, negotiation.Address, error) {
	var b mailBody
	if err := json.Unmarshal(e.Body, &b); err != nil {
		return b, negotiation.Address{}, fmt.Errorf("node: %s entry %d: %w", e.Kind, e.Seq, err)
	}
	to, err := negotiation.ParseAddress(b.To)
	if err != nil {
		return b, negotiation.Address{}, fmt.Errorf("node: %s entry %d: %w", e.Kind, e.Seq, err)
	}
	return b, to, nil
}

// box returns to's mailbox, creating an empty one. The caller holds mu.
func (s *MailboxStore) box(to negotiation.Address) *mailbox {
	b := s.boxes[to]
	if b == nil {
		b = &mailbox{}
		s.boxes[to] = b
	}
	return b
}

// served reports whether the store holds mail for to. The caller holds mu.
func (s *MailboxStore) served(to negotiation.Address) bool {
	if s.serve[to] {
		return true
	}
	b := s.boxes[to]
	return s.cfg.Open && b != nil && b.registered
}

// expire drops the items older than the retention. The caller holds mu.
func (s *MailboxStore) expire(b *mailbox) {
	cut := s.now().Add(-s.cfg.Retention)
	i := 0
	for i < len(b.items) && b.items[i].at.Before(cut) {
		b.bytes -= b.items[i].size
		i++
	}
	b.items = b.items[i:]
}

// senderShare returns how many items and bytes one sender may have held
// for one recipient at once: QuotaPerSender items (at most QuotaItems)
// and the same fraction of QuotaBytes.
func (c StoreConfig) senderShare() (items int, bytes int64) {
	items = min(max(c.QuotaPerSender, 1), c.QuotaItems)
	if items == c.QuotaItems {
		return items, c.QuotaBytes
	}
	return items, c.QuotaBytes / int64(c.QuotaItems) * int64(items)
}

// Hold records a sealed envelope for to, durably: refused with
// p2p.CodeNotServed for a recipient the store does not serve and with
// p2p.CodeQuotaExceeded beyond to's quota of items or bytes, or beyond
// the sender's share of it (StoreConfig.QuotaPerSender), writing nothing
// either way. Bytes held already are not held again.
func (s *MailboxStore) Hold(ctx context.Context, to negotiation.Address, from peer.ID, sealed []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		return &p2p.Error{Code: p2p.CodeBusy, Msg: "mailbox not loaded"}
	}
	if !s.served(to) {
		return &p2p.Error{Code: p2p.CodeNotServed, Msg: "no mail is held for " + to.String()}
	}
	b := s.box(to)
	s.expire(b)
	size := int64(len(sealed))
	if len(b.items) >= s.cfg.QuotaItems || b.bytes+size > s.cfg.QuotaBytes {
		return &p2p.Error{Code: p2p.CodeQuotaExceeded, Msg: fmt.Sprintf("%s holds %d items, %d bytes", to, len(b.items), b.bytes)}
	}
	// One sender may not fill a recipient's whole mailbox: the others
	// keep room while it waits for the recipient.
	sender := from.String()
	shareItems, shareBytes := s.cfg.senderShare()
	n, nb := 0, int64(0)
	for _, it := range b.items {
		if it.from == sender {
			n, nb = n+1, nb+it.size
		}
	}
	if n >= shareItems || nb+size > shareBytes {
		return &p2p.Error{Code: p2p.CodeQuotaExceeded, Msg: fmt.Sprintf("the store holds %d items, %d bytes from %s for %s: its share", n, nb, sender, to)}
	}
	body, err := json.Marshal(mailBody{To: to.String(), From: from.String(), Size: size})
	if err != nil {
		return err
	}
	e, existed, err := s.l.Append(ctx, ledger.Record{Kind: KindMailboxHeld, Body: body, Object: sealed, ObjectCodec: ledger.CodecRaw, At: s.now()})
	if err != nil {
		return fmt.Errorf("node: %s: %w", KindMailboxHeld, err)
	}
	if !existed {
		b.items = append(b.items, heldItem{seq: e.Seq, cid: e.CID, size: size, at: e.At, from: sender})
		b.bytes += size
	}
	return nil
}

// Mail returns up to limit envelopes held for to after cursor after. It
// is a fetch by to itself: after acknowledges to's items up to it (they
// are not served again, also after a restart of either side), and under
// Open a first fetch registers to, up to MaxRecipients. A recipient the
// store does not serve gets nothing.
func (s *MailboxStore) Mail(ctx context.Context, to negotiation.Address, after uint64, limit int) ([]p2p.MailItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		return nil, &p2p.Error{Code: p2p.CodeBusy, Msg: "mailbox not loaded"}
	}
	b := s.boxes[to]
	register := false
	if !s.serve[to] && (b == nil || !b.registered) {
		if !s.cfg.Open || s.open >= s.cfg.MaxRecipients {
			return nil, nil
		}
		register = true
	}
	b = s.box(to)
	s.expire(b)
	// Acknowledge at most up to the last item held for to: a cursor
	// beyond it would hide mail not yet held.
	ack := b.acked
	for _, it := range b.items {
		if it.seq <= after {
			ack = it.seq
		}
	}
	if ack > b.acked || register {
		body, err := json.Marshal(mailBody{To: to.String(), Cursor: ack})
		if err != nil {
			return nil, err
		}
		if _, _, err := s.l.Append(ctx, ledger.Record{Kind: KindMailboxAcked, Body: body, At: s.now()}); err != nil {
			return nil, fmt.Errorf("node: %s: %w", KindMailboxAcked, err)
		}
		if register {
			b.registered = true
			s.open++
		}
		i := 0
		for i < len(b.items) && b.items[i].seq <= ack {
			b.bytes -= b.items[i].size
			i++
		}
		b.items, b.acked = b.items[i:], ack
	}
	var out []p2p.MailItem
	for _, it := range b.items {
		if it.seq <= after {
			continue
		}
		data, err := s.l.Object(ctx, it.cid)
		if errors.Is(err, ledger.ErrNotFound) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("node: %s entry %d: %w", KindMailboxHeld, it.seq, err)
		}
		out = append(out, p2p.MailItem{Cursor: it.seq, Data: data})
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

// Held returns how many items and bytes the store holds for to, not
// acknowledged and not expired.
func (s *MailboxStore) Held(to negotiation.Address) (items int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.boxes[to]
	if b == nil {
		return 0, 0
	}
	s.expire(b)
	return len(b.items), b.bytes
}

// Record records a topic message (once per distinct bytes), unless the
// history is off (StoreConfig.NoHistory).
func (s *MailboxStore) Record(ctx context.Context, topic string, data []byte) error {
	if s.cfg.NoHistory {
		return nil
	}
	b, err := json.Marshal(mailBody{Topic: topic})
	if err != nil {
		return err
	}
	if _, _, err := s.l.Append(ctx, ledger.Record{Kind: KindTopicMessage, Body: b, Object: data, ObjectCodec: ledger.CodecRaw}); err != nil {
		return fmt.Errorf("node: %s: %w", KindTopicMessage, err)
	}
	return nil
}

// History returns up to limit messages of topic after cursor after
// (none when the history is off). It
// scans the entries of their kind (a store's history is read by cursor,
// rarely).
func (s *MailboxStore) History(ctx context.Context, topic string, after uint64, limit int) ([]p2p.MailItem, error) {
	var out []p2p.MailItem
	if s.cfg.NoHistory {
		return nil, nil
	}
	for e, err := range s.l.ByKind(ctx, KindTopicMessage) {
		if err != nil {
			return nil, fmt.Errorf("node: %s: %w", KindTopicMessage, err)
		}
		if e.Seq <= after {
			continue
		}
		var b mailBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return nil, fmt.Errorf("node: %s entry %d: %w", KindTopicMessage, e.Seq, err)
		}
		if b.Topic != topic {
			continue
		}
		data, err := s.l.Object(ctx, e.CID)
		if errors.Is(err, ledger.ErrNotFound) {
			continue // pruned under the retention rule
		} else if err != nil {
			return nil, fmt.Errorf("node: %s entry %d: %w", KindTopicMessage, e.Seq, err)
		}
		out = append(out, p2p.MailItem{Cursor: e.Seq, Data: data})
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}
