package api

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func fp(s string) [32]byte {
	var f [32]byte
	copy(f[:], s)
	return f
}

// TestIdemStoreBounds: records expire after the ttl and the oldest
// answered one is evicted at the count bound; running records are never
// evicted.
func TestIdemStoreBounds(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)}
	st := newIdemStore(time.Hour, 3, clk.now)
	ok := answer{status: 200, body: []byte("{}\n")}
	for _, k := range []string{"a", "b", "c"} {
		rec, s := st.begin(k, fp(k))
		if s != idemRun {
			t.Fatalf("%s: state %d", k, s)
		}
		st.finish(k, rec, ok, true)
		clk.add(time.Minute)
	}
	if _, s := st.begin("a", fp("a")); s != idemReplay {
		t.Fatalf("a: state %d, want a replay", s)
	}
	if _, s := st.begin("a", fp("x")); s != idemConflict {
		t.Fatalf("a with another request: state %d", s)
	}
	// A fourth key evicts the oldest, a.
	recD, _ := st.begin("d", fp("d"))
	if st.len() != 3 {
		t.Fatalf("%d records, want 3", st.len())
	}
	if _, s := st.begin("a", fp("x")); s != idemRun {
		t.Fatalf("a after eviction: state %d", s)
	}
	// a's new request evicted b; b's evicts c, the last answered one.
	if _, s := st.begin("b", fp("b")); s != idemRun {
		t.Fatalf("b after eviction: state %d", s)
	}
	// d, a and b are running: a fifth key goes over the bound rather than
	// drop a running request.
	if _, s := st.begin("e", fp("e")); s != idemRun || st.len() != 4 {
		t.Fatalf("e: state %d, %d records", s, st.len())
	}
	st.finish("d", recD, ok, true)
	if _, s := st.begin("d", fp("d")); s != idemReplay {
		t.Fatalf("d: state %d", s)
	}
	// After the ttl, answered records are gone.
	clk.add(2 * time.Hour)
	if _, s := st.begin("d", fp("other")); s != idemRun {
		t.Fatalf("d after the ttl: state %d", s)
	}
}

// TestIdemStoreDropsUnkept: an answer not kept frees its key, and a
// request waiting on it then runs the act itself.
func TestIdemStoreDropsUnkept(t *testing.T) {
	st := newIdemStore(time.Hour, 10, time.Now)
	rec, _ := st.begin("k", fp("k"))
	if _, s := st.begin("k", fp("k")); s != idemWait {
		t.Fatalf("state %d, want wait", s)
	}
	done := make(chan bool)
	go func() { done <- st.wait(t.Context(), rec) }()
	st.finish("k", rec, answer{status: 503}, false)
	if !<-done {
		t.Fatal("the waiter was not woken")
	}
	if _, s := st.begin("k", fp("k")); s != idemRun || st.len() != 1 {
		t.Fatalf("after a dropped answer: state %d", s)
	}
}

// TestIdempotentOnce: concurrent requests under one key run the act once
// and all get its answer, byte for byte.
func TestIdempotentOnce(t *testing.T) {
	s := &Server{o: Options{MaxBody: 1 << 10}, idem: newIdemStore(time.Hour, 10, time.Now), log: harnessLogger(t, "api")}
	s.actCtx, s.cancelActs = context.WithCancel(t.Context())
	var calls atomic.Int32
	release := make(chan struct{})
	h := s.idempotent(func(r *http.Request, body []byte) answer {
		n := calls.Add(1)
		<-release
		return jsonAnswer(http.StatusCreated, map[string]any{"call": n, "body": string(body)})
	})
	do := func() *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/v1/tasks", bytes.NewReader([]byte(`{"a":1}`)))
		r.Header.Set(HeaderIdempotencyKey, "same")
		h(w, r)
		return w
	}
	const n = 8
	out := make(chan *httptest.ResponseRecorder, n)
	for range n {
		go func() { out <- do() }()
	}
	eventually(t, "one request running and the others waiting", func() bool { return calls.Load() == 1 && s.idem.waiting() == n-1 })
	close(release)
	var first []byte
	replayed := 0
	for range n {
		w := <-out
		if w.Code != http.StatusCreated {
			t.Fatalf("status %d %s", w.Code, w.Body)
		}
		if first == nil {
			first = w.Body.Bytes()
		}
		if !bytes.Equal(w.Body.Bytes(), first) {
			t.Fatalf("answers differ: %s, %s", w.Body, first)
		}
		if w.Header().Get("Idempotent-Replayed") == "true" {
			replayed++
		}
	}
	if calls.Load() != 1 || replayed != n-1 {
		t.Fatalf("%d calls, %d replays", calls.Load(), replayed)
	}
}

// FuzzDecode: the strict body decoder never panics, and whatever it
// accepts is one JSON value whose members the type knows.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, ``, `{"ruling":5001}`, `{"ruling":1} {}`, `{"ruling":"1"}`, `{"zzz":1}`, `[`, `{"ruling":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r RuleRequest
		if e := decode(b, &r, "ruling"); e == nil {
			if e := decode(b, &r); e != nil {
				t.Fatalf("accepted with required members, refused without: %v", e)
			}
		} else if e.Status != http.StatusBadRequest || (e.Code != CodeMalformedJSON && e.Code != CodeDuplicateKey && e.Code != CodeUnknownField && e.Code != CodeSchemaInvalid) {
			t.Fatalf("refusal %+v", e)
		}
	})
}
