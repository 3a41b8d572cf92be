package mcp

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// liveSessions counts the sessions the SDK keeps.
func liveSessions(s *Server) int {
	n := 0
	for range s.srv.Sessions() {
		n++
	}
	return n
}

// boundedSessions returns the SDK's count of live sessions once it is at
// most max, or after 10 s. A session closed to make room leaves the SDK's
// list once its connection has ended, which under load may be a moment
// after the request that replaced it was answered.
func boundedSessions(s *Server, max int) int {
	live := liveSessions(s)
	for end := time.Now().Add(10 * time.Second); live > max && time.Now().Before(end); live = liveSessions(s) {
		time.Sleep(10 * time.Millisecond)
	}
	return live
}

// settle waits until the goroutine count falls to at most want, and
// returns it.
func settle(want int) int {
	n := runtime.NumGoroutine()
	for end := time.Now().Add(10 * time.Second); n > want && time.Now().Before(end); n = runtime.NumGoroutine() {
		time.Sleep(20 * time.Millisecond)
	}
	return n
}

// flood sends n initialize requests, parallel at a time, with header, and
// counts the answers by status.
func flood(t *testing.T, url string, n, parallel int, header map[string]string) map[int]int {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: parallel}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`
	var mu sync.Mutex
	got := map[int]int{}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				for k, v := range header {
					req.Header.Set(k, v)
				}
				resp, err := hc.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				got[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return got
}

// TestSessionFloodWithoutCredentials: issue 12 saw 10,000 sessions opened
// in 3 s without a key, each living 30 minutes with its goroutines and
// three INFO lines. Now a request that would open a session without the
// agent key or a seat link is 401 before the SDK sees it: a flood opens
// no session, logs nothing, and leaves no goroutine once its connections
// are closed.
func TestSessionFloodWithoutCredentials(t *testing.T) {
	logged := &countingHandler{}
	sv := serveFake(t, Options{Logger: slog.New(logged)})
	link, _ := newRoom(t, sv)
	l, err := parseLink(link)
	if err != nil {
		t.Fatal(err)
	}
	before := liveSessions(sv.s)
	base := runtime.NumGoroutine()
	logs := logged.atLeast(slog.LevelInfo)
	n := 10000
	if testing.Short() {
		n = 2000
	}
	forged := seatLink{Node: l.Node, Room: l.Room, Secret: strings.Repeat("A", 43)}.String()
	elsewhere := seatLink{Node: "12D3KooWSomewhereElse", Room: l.Room, Secret: l.Secret}.String()
	for name, h := range map[string]map[string]string{
		"no credentials":       nil,
		"a wrong key":          {"Authorization": "Bearer 0000000000000000ffffffffffffffff"},
		"a forged seat secret": {HeaderSeat: forged},
		"another node's seat":  {HeaderSeat: elsewhere},
		"a link without seat":  {HeaderSeat: seatLink{Node: l.Node, Room: l.Room}.String()},
	} {
		start := time.Now()
		got := flood(t, sv.url, n/5, 8, h)
		if got[http.StatusUnauthorized] != n/5 {
			t.Fatalf("%s: answers %v, want %d times 401", name, got, n/5)
		}
		t.Logf("%s: %d requests in %s", name, n/5, time.Since(start).Round(time.Millisecond))
	}
	if live := liveSessions(sv.s); live != before {
		t.Fatalf("%d sessions after the flood, %d before", live, before)
	}
	if after := settle(base + 5); after > base+5 {
		t.Fatalf("%d goroutines after the flood, %d before", after, base)
	}
	if c := logged.atLeast(slog.LevelInfo) - logs; c != 0 {
		t.Fatalf("the flood logged %d records at info or above", c)
	}
}

// TestSessionBound: with the key, sessions are bounded: over MaxSessions
// the one idle the longest is closed (its id is then unknown), so a flood
// of signed-in sessions holds at most MaxSessions and their goroutines;
// while every session is busy a new one is refused with a clear 503.
// Per-session records are at debug.
func TestSessionBound(t *testing.T) {
	logged := &countingHandler{}
	sv := serveFake(t, Options{MaxSessions: 3, Logger: slog.New(logged)})
	key := map[string]string{"Authorization": "Bearer " + testKey}
	var ids []string
	for range 5 {
		st, id, body := initialize(t, sv.url, key)
		if st != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d %s", st, body)
		}
		ids = append(ids, id)
		time.Sleep(5 * time.Millisecond) // distinct ages
		if live := boundedSessions(sv.s, 3); live > 3 {
			t.Fatalf("%d sessions, the bound is 3", live)
		}
	}
	for i, id := range ids {
		st := ping(t, sv.url, id)
		if want := map[bool]int{true: http.StatusNotFound, false: http.StatusOK}[i < 2]; st != want {
			t.Errorf("session %d: ping %d, want %d", i, st, want)
		}
	}
	if c := logged.atLeast(slog.LevelInfo); c != 0 {
		t.Errorf("%d records at info or above for 5 sessions, want their lines at debug", c)
	}

	// A flood with the key holds the bound, and its goroutines.
	base := runtime.NumGoroutine()
	got := flood(t, sv.url, 1000, 2, key)
	if got[http.StatusOK] != 1000 {
		t.Fatalf("answers %v", got)
	}
	if live := boundedSessions(sv.s, 3); live > 3 {
		t.Fatalf("%d sessions after 1,000, the bound is 3", live)
	}
	if after := settle(base + 10); after > base+10 {
		t.Fatalf("%d goroutines after 1,000 sessions opened (bound 3), %d before", after, base)
	}

	// Every session busy: a new one is refused and names the bound.
	one := serveFake(t, Options{MaxSessions: 1})
	link, made := newRoom(t, one) // its session is idle now
	cs := connectSeat(t, one.url, link)
	ok[roomOut](t, cs, ToolSealIntentCard, map[string]any{"link": link, "card": map[string]any{"principal": map[string]any{"name": "Alice"}, "goal": "a logo"}})
	one.f.update(made.RoomID, func(v *RoomView) { v.YourTurn = false })
	one.f.mu.Lock()
	one.f.waiting = make(chan string, 1)
	waiting := one.f.waiting
	one.f.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolWaitForTurn, Arguments: map[string]any{"link": link, "timeout_seconds": 2}})
		done <- err
	}()
	<-waiting
	st, id, body := initialize(t, one.url, key)
	if st != http.StatusServiceUnavailable || id != "" || !strings.Contains(body, "Too many MCP sessions: this node keeps at most 1") {
		t.Fatalf("a session while the only one is busy: %d %q %s", st, id, body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st, id, body := initialize(t, one.url, key); st != http.StatusOK || id == "" {
		t.Fatalf("a session once the other is idle: %d %s", st, body)
	}
}

// TestSessionSeatHeader: a seat link in the Parley-Seat header opens a
// session; a stale one (the seat was issued again) does not.
func TestSessionSeatHeader(t *testing.T) {
	sv := serveFake(t, Options{})
	link, made := newRoom(t, sv)
	if st, id, body := initialize(t, sv.url, map[string]string{HeaderSeat: link}); st != http.StatusOK || id == "" {
		t.Fatalf("with the seat link: %d %s", st, body)
	}
	l, _ := parseLink(link)
	byAddr := seatLink{Node: strings.ToLower(sv.f.self.String()), Room: l.Room, Secret: l.Secret}.String()
	if st, _, body := initialize(t, sv.url, map[string]string{HeaderSeat: byAddr}); st != http.StatusOK {
		t.Fatalf("with the link naming the node's address: %d %s", st, body)
	}
	// The principal's key takes the seat again: the old link stops
	// opening sessions.
	ok[roomOut](t, connect(t, sv.url, testKey), ToolJoinRoom, map[string]any{"link": seatLink{Node: l.Node, Room: made.RoomID}.String()})
	wantNoSession(t, sv.url, "")
	if st, _, body := initialize(t, sv.url, map[string]string{HeaderSeat: link}); st != http.StatusUnauthorized {
		t.Fatalf("with a replaced seat link: %d %s", st, body)
	}
}

// TestSessionIdle: a session idle past SessionTimeout is closed.
func TestSessionIdle(t *testing.T) {
	sv := serveFake(t, Options{SessionTimeout: 200 * time.Millisecond})
	_, id, _ := initialize(t, sv.url, map[string]string{"Authorization": "Bearer " + testKey})
	if st := ping(t, sv.url, id); st != http.StatusOK {
		t.Fatalf("ping %d", st)
	}
	eventually(t, "the idle session closed", func() bool { return liveSessions(sv.s) == 0 })
	if st := ping(t, sv.url, id); st != http.StatusNotFound {
		t.Fatalf("ping after the idle timeout: %d", st)
	}
}

// TestStrictRequests: a request body that is not strict JSON (a member
// named twice, invalid UTF-8, a lone surrogate) is a parse error and
// reaches no tool; the same call spelled once works.
func TestStrictRequests(t *testing.T) {
	sv := serveFake(t, Options{})
	_, id, _ := initialize(t, sv.url, map[string]string{"Authorization": "Bearer " + testKey})
	if st, _ := rpc(t, sv.url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != http.StatusAccepted {
		t.Fatalf("initialized: %d", st)
	}
	callWith := func(args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_room","arguments":` + args + `}}`
	}
	good := `{"topic":"Logo design","your_principal":"Alice","counterpart":"` + counterpartAddr + `"}`
	for name, body := range map[string]string{
		"an argument named twice": callWith(`{"topic":"Logo design","topic":"Something else","your_principal":"Alice","counterpart":"` + counterpartAddr + `"}`),
		"a method named twice":    `{"jsonrpc":"2.0","id":7,"method":"tools/list","method":"tools/call","params":{"name":"create_room","arguments":` + good + `}}`,
		"invalid UTF-8":           callWith("{\"topic\":\"Logo \xff\",\"your_principal\":\"Alice\",\"counterpart\":\"" + counterpartAddr + "\"}"),
		"a lone surrogate":        callWith(`{"topic":"Logo \ud800","your_principal":"Alice","counterpart":"` + counterpartAddr + `"}`),
	} {
		st, out := rpc(t, sv.url, id, body)
		if st != http.StatusBadRequest || !strings.Contains(out, "-32700") || !strings.Contains(out, "not strict JSON") {
			t.Errorf("%s: %d %s", name, st, out)
		}
	}
	if n := countCalls(sv.f, "CreateRoom"); n != 0 {
		t.Fatalf("%d rooms created by refused requests", n)
	}
	if st, out := rpc(t, sv.url, id, callWith(good)); st != http.StatusOK || countCalls(sv.f, "CreateRoom") != 1 {
		t.Fatalf("the call spelled strictly: %d %s", st, out)
	}
}

// ping sends a JSON-RPC ping on session id and returns the status.
func ping(t *testing.T, url, id string) int {
	t.Helper()
	st, _ := rpc(t, url, id, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	return st
}

// rpc posts one JSON-RPC message on session id with the agent key.
func rpc(t *testing.T, url, id, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// countingHandler counts records by level.
type countingHandler struct {
	mu     sync.Mutex
	levels []slog.Level
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.levels = append(h.levels, r.Level)
	h.mu.Unlock()
	return nil
}

func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

func (h *countingHandler) atLeast(l slog.Level) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, x := range h.levels {
		if x >= l {
			n++
		}
	}
	return n
}
