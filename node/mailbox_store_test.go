package node_test

import (
	"errors"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	libp2ppeer "github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// fakeClock is a clock a test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// mailboxLedger opens a ledger in dir on clock.
func mailboxLedger(t *testing.T, dir string, clock *fakeClock) *ledger.Ledger {
	t.Helper()
	cfg := ledger.DefaultConfig()
	cfg.Dir, cfg.Clock = dir, clock.now
	cfg.MemTableSize, cfg.MaxBatchBytes, cfg.MaxObjectBytes, cfg.MaxEntryBytes = 8<<20, 1<<20, 256<<10, 64<<10
	l, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func loadedMailbox(t *testing.T, l *ledger.Ledger, cfg node.StoreConfig, clock *fakeClock) *node.MailboxStore {
	t.Helper()
	ms := node.NewMailboxStore(l, cfg, clock.now)
	if err := ms.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	return ms
}

func addr(b byte) negotiation.Address {
	var a negotiation.Address
	a[19] = b
	return a
}

// TestMailboxStoreServesOnlyItsRecipients: a hand-over for a recipient the
// store does not serve, or beyond a recipient's quota of items or bytes,
// is refused with its code and writes nothing; a fetch acknowledges what
// it collected (not served again, also after a reload, and the quota
// frees); a cursor beyond the mail held acknowledges only what is held;
// mail older than the retention is neither served nor counted.
func TestMailboxStoreServesOnlyItsRecipients(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	dir := filepath.Join(t.TempDir(), "ledger")
	l := mailboxLedger(t, dir, clock)
	served, stranger := addr(1), addr(2)
	cfg := node.DefaultConfig().Store
	cfg.Enabled, cfg.Serve = true, []string{served.String()}
	cfg.QuotaItems, cfg.QuotaBytes, cfg.Retention = 3, 64<<10, time.Hour
	ms := loadedMailbox(t, l, cfg, clock)
	ctx := t.Context()
	from := libp2ppeer.ID("sender")

	refused := func(what string, to negotiation.Address, data []byte, code p2p.Code) {
		t.Helper()
		before := l.Head().Seq
		err := ms.Hold(ctx, to, from, data)
		if got := p2p.CodeOf(err); got != code {
			t.Fatalf("%s: Hold = %v, want %s", what, err, code)
		}
		if l.Head().Seq != before {
			t.Fatalf("%s: the refused hand-over wrote to the ledger", what)
		}
	}
	refused("a recipient not served", stranger, []byte("x"), p2p.CodeNotServed)
	if items, err := ms.Mail(ctx, stranger, 0, 10); err != nil || len(items) != 0 {
		t.Fatalf("a stranger's fetch: %v %v", items, err)
	}
	for i := range 3 {
		if err := ms.Hold(ctx, served, from, []byte{'m', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	refused("a fourth item", served, []byte("m3"), p2p.CodeQuotaExceeded)
	if n, b := ms.Held(served); n != 3 || b != 6 {
		t.Fatalf("held %d items, %d bytes", n, b)
	}
	items, err := ms.Mail(ctx, served, 0, 10)
	if err != nil || len(items) != 3 {
		t.Fatalf("fetch: %d items (%v)", len(items), err)
	}
	// The recipient took the first two: its next fetch says so.
	if got, _ := ms.Mail(ctx, served, items[1].Cursor, 10); len(got) != 1 || got[0].Cursor != items[2].Cursor {
		t.Fatalf("after the second item: %v", got)
	}
	// A recipient that lost its cursor (restarted) is not served them again.
	if got, _ := ms.Mail(ctx, served, 0, 10); len(got) != 1 {
		t.Fatalf("after a restart of the recipient: %d items", len(got))
	}
	// Over the byte quota.
	big := make([]byte, 64<<10)
	refused("over the byte quota", served, big, p2p.CodeQuotaExceeded)
	// A cursor beyond what is held acknowledges only what is held.
	if got, _ := ms.Mail(ctx, served, math.MaxUint64, 10); len(got) != 0 {
		t.Fatalf("beyond: %v", got)
	}
	if err := ms.Hold(ctx, served, from, []byte("later")); err != nil {
		t.Fatal(err)
	}
	if got, _ := ms.Mail(ctx, served, 0, 10); len(got) != 1 || string(got[0].Data) != "later" {
		t.Fatalf("mail held after a cursor beyond: %v", got)
	}
	// The acknowledgements survive a reload.
	ms = loadedMailbox(t, l, cfg, clock)
	if got, _ := ms.Mail(ctx, served, 0, 10); len(got) != 1 || string(got[0].Data) != "later" {
		t.Fatalf("after a reload: %v", got)
	}
	// Retention: an hour later it is no longer served nor counted.
	for i := range 2 {
		if err := ms.Hold(ctx, served, from, []byte{'r', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	refused("full again", served, []byte("r2"), p2p.CodeQuotaExceeded)
	clock.add(time.Hour + time.Second)
	if got, _ := ms.Mail(ctx, served, 0, 10); len(got) != 0 {
		t.Fatalf("expired mail served: %d items", len(got))
	}
	if n, _ := ms.Held(served); n != 0 {
		t.Fatalf("expired mail counted: %d", n)
	}
	if err := ms.Hold(ctx, served, from, []byte("fresh")); err != nil {
		t.Fatalf("the quota did not free after the retention: %v", err)
	}
	ms = loadedMailbox(t, l, cfg, clock)
	if n, _ := ms.Held(served); n != 1 {
		t.Fatalf("after a reload %d held, want the fresh one", n)
	}
	if _, err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMailboxStoreOpenRegistersOnFetch: under store.open a recipient is
// served once it fetched (registered, also after a reload), and no more
// than max_recipients register.
func TestMailboxStoreOpenRegistersOnFetch(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	l := mailboxLedger(t, filepath.Join(t.TempDir(), "ledger"), clock)
	cfg := node.DefaultConfig().Store
	cfg.Enabled, cfg.Open, cfg.MaxRecipients = true, true, 1
	ms := loadedMailbox(t, l, cfg, clock)
	ctx := t.Context()
	a, b := addr(1), addr(2)
	if err := ms.Hold(ctx, a, "s", []byte("x")); p2p.CodeOf(err) != p2p.CodeNotServed {
		t.Fatalf("before registering: %v", err)
	}
	if _, err := ms.Mail(ctx, a, 0, 10); err != nil {
		t.Fatal(err)
	}
	if err := ms.Hold(ctx, a, "s", []byte("x")); err != nil {
		t.Fatalf("after registering: %v", err)
	}
	before := l.Head().Seq
	if _, err := ms.Mail(ctx, b, 0, 10); err != nil {
		t.Fatal(err)
	}
	if l.Head().Seq != before {
		t.Fatal("a recipient over max_recipients wrote a registration")
	}
	if err := ms.Hold(ctx, b, "s", []byte("y")); p2p.CodeOf(err) != p2p.CodeNotServed {
		t.Fatalf("over max_recipients: %v", err)
	}
	ms = loadedMailbox(t, l, cfg, clock)
	if got, err := ms.Mail(ctx, a, 0, 10); err != nil || len(got) != 1 {
		t.Fatalf("after a reload: %v %v", got, err)
	}
	if err := ms.Hold(ctx, b, "s", []byte("y")); !errors.Is(err, &p2p.Error{Code: p2p.CodeNotServed}) {
		t.Fatalf("after a reload, over max_recipients: %v", err)
	}
}

// TestMailboxStoreHistoryOff: with store.history false a store records no
// topic message and answers history with nothing; on, it does.
func TestMailboxStoreHistoryOff(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	l := mailboxLedger(t, filepath.Join(t.TempDir(), "ledger"), clock)
	cfg := node.DefaultConfig().Store
	cfg.Enabled, cfg.Open = true, true
	for _, off := range []bool{true, false} {
		cfg.NoHistory = off
		ms := loadedMailbox(t, l, cfg, clock)
		before := l.Head().Seq
		if err := ms.Record(t.Context(), "/parley/taskboard/1", []byte("ann")); err != nil {
			t.Fatal(err)
		}
		got, err := ms.History(t.Context(), "/parley/taskboard/1", 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if wrote := l.Head().Seq != before; wrote == off || (len(got) == 1) == off {
			t.Fatalf("history off=%v: wrote %v, served %d", off, wrote, len(got))
		}
	}
}

// TestMailboxStoreBoundsEachSender: within one recipient's quota a sender
// has at most store.quota_per_sender items held at once (and the same
// fraction of the bytes): beyond, its hand-over is refused with
// quota_exceeded and writes nothing, while another sender still hands
// over; the share is rebuilt by a reload and frees when the recipient
// collects.
func TestMailboxStoreBoundsEachSender(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	l := mailboxLedger(t, filepath.Join(t.TempDir(), "ledger"), clock)
	to := addr(1)
	cfg := node.DefaultConfig().Store
	cfg.Enabled, cfg.Serve = true, []string{to.String()}
	cfg.QuotaItems, cfg.QuotaPerSender, cfg.QuotaBytes = 10, 3, 100<<10
	ms := loadedMailbox(t, l, cfg, clock)
	ctx := t.Context()
	flood, other := libp2ppeer.ID("flooding sender"), libp2ppeer.ID("other sender")
	refused := func(what string, from libp2ppeer.ID, data []byte) {
		t.Helper()
		before := l.Head().Seq
		if err := ms.Hold(ctx, to, from, data); p2p.CodeOf(err) != p2p.CodeQuotaExceeded {
			t.Fatalf("%s: Hold = %v, want quota_exceeded", what, err)
		}
		if l.Head().Seq != before {
			t.Fatalf("%s: the refused hand-over wrote to the ledger", what)
		}
	}
	for i := range 3 {
		if err := ms.Hold(ctx, to, flood, []byte{'f', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	refused("the flooding sender's fourth", flood, []byte("f3"))
	for i := range 3 {
		if err := ms.Hold(ctx, to, other, []byte{'o', byte(i)}); err != nil {
			t.Fatalf("another sender shut out by the first: %v", err)
		}
	}
	if n, _ := ms.Held(to); n != 6 {
		t.Fatalf("held %d, want 6", n)
	}
	// The senders' shares are rebuilt from the ledger.
	ms = loadedMailbox(t, l, cfg, clock)
	refused("after a reload", flood, []byte("f3"))
	// The recipient collects: the shares free.
	items, err := ms.Mail(ctx, to, 0, 10)
	if err != nil || len(items) != 6 {
		t.Fatalf("fetch: %d (%v)", len(items), err)
	}
	if _, err := ms.Mail(ctx, to, items[5].Cursor, 10); err != nil {
		t.Fatal(err)
	}
	if err := ms.Hold(ctx, to, flood, []byte("f3")); err != nil {
		t.Fatalf("after the recipient collected: %v", err)
	}
	// Bytes: the share is 3/10 of 100 KiB, 30 KiB.
	if err := ms.Hold(ctx, to, other, make([]byte, 20<<10)); err != nil {
		t.Fatal(err)
	}
	refused("over the sender's byte share", other, make([]byte, 11<<10))
	if err := ms.Hold(ctx, to, flood, make([]byte, 20<<10)); err != nil {
		t.Fatalf("another sender's bytes: %v", err)
	}
	if _, err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}
