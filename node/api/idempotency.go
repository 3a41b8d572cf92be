package api

import (
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/parleynet/parley/node"
)

// MaxIdempotencyKey is the longest Idempotency-Key the server accepts.
const MaxIdempotencyKey = 255

// actFunc performs one POST: it decodes the body, calls the node and
// returns the complete answer, which the idempotency layer keeps.
type actFunc func(r *http.Request, body []byte) answer

// idempotent wraps a POST route in VXP's Idempotency-Key rules. The key is
// required (400 idempotency_key_required); the body is read under the size
// limit (413 too_large) before anything else. A key seen before with the
// same method, path and body gets the first answer again, exactly; with
// another request it gets 409 idempotency_key_reused. A request whose
// key's first request is still running waits for it and then answers the
// same.
//
// One key, one act: once its body is read, a request's act runs to its
// end whatever the client does, on a context of the server's (the
// request's values, not its cancellation), and its answer is kept under
// the key even when the client went away before it; a retry with the key
// waits for the first and answers with its result. A client that leaves
// before its body is read leaves no record and no act. Answers with a 5xx
// status are not kept: a retry runs the act again (acts are written to
// complete what a failed attempt left undone). An act waiting for the
// principal's approval waits within the approval's window after its
// client left; Close cancels the acts still running and waits for them.
func (s *Server) idempotent(h actFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(HeaderIdempotencyKey)
		if key == "" {
			s.reject(w, r, &httpError{Status: http.StatusBadRequest, Code: CodeIdempotencyMissing, Message: "every POST needs an " + HeaderIdempotencyKey + " header: a fresh random value per act, reused only to retry it"})
			return
		}
		if !validKey(key) {
			s.reject(w, r, badRequest("%s: 1 to %d visible ASCII characters", HeaderIdempotencyKey, MaxIdempotencyKey))
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBody))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				s.reject(w, r, &httpError{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge, Message: "the body exceeds the limit of " + strconv.FormatInt(mbe.Limit, 10) + " bytes (api.max_body)"})
				return
			}
			s.reject(w, r, badRequest("reading the body: %v", err))
			return
		}
		fp := fingerprint(r, body)
		for {
			rec, st := s.idem.begin(key, fp)
			switch st {
			case idemConflict:
				s.reject(w, r, &httpError{Status: http.StatusConflict, Code: CodeIdempotencyReused, Message: HeaderIdempotencyKey + " " + key + " was used for another request (method, path or body differ)"})
				return
			case idemWait:
				if !s.idem.wait(r.Context(), rec) {
					return // the client went away; the first request's act goes on
				}
				continue // answered, or dropped to be run again
			case idemReplay:
				w.Header().Set("Idempotent-Replayed", "true")
				rec.ans.write(w)
				return
			}
			done, ok := s.runAct(r, key, rec, h, body)
			if !ok {
				s.idem.finish(key, rec, answer{}, false)
				s.reject(w, r, &httpError{Status: http.StatusServiceUnavailable, Code: string(node.CodeNotStarted), Message: "the API is shutting down"})
				return
			}
			select {
			case ans := <-done:
				ans.write(w)
			case <-r.Context().Done():
				// The client went away: the act goes on and its answer
				// is kept under the key for the retry.
			}
			return
		}
	}
}

// runAct runs the act of rec's request in a goroutine of the server's,
// on a context that keeps r's values but not its cancellation and ends
// when the server closes, finishes rec with the answer (kept unless 5xx or 429)
// and sends the answer on the returned channel. ok is false when the
// server is closing and ran nothing.
func (s *Server) runAct(r *http.Request, key string, rec *idemRecord, h actFunc, body []byte) (<-chan answer, bool) {
	s.amu.Lock()
	if s.closing {
		s.amu.Unlock()
		return nil, false
	}
	s.acts.Add(1)
	s.amu.Unlock()
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	stop := context.AfterFunc(s.actCtx, cancel)
	ar := r.WithContext(ctx)
	done := make(chan answer, 1)
	go func() {
		defer s.acts.Done()
		defer cancel()
		defer stop()
		ans := h(ar, body)
		// A 429 is not kept either: after its Retry-After the same key
		// runs the act.
		s.idem.finish(key, rec, ans, ans.status < 500 && ans.status != http.StatusTooManyRequests)
		if ans.status >= 500 {
			s.log.Warn("act failed", "method", r.Method, "path", r.URL.Path, "status", ans.status, "body", string(ans.body))
		}
		done <- ans
	}()
	return done, true
}

// reject writes an answer made before any record was taken (it is not
// kept).
func (s *Server) reject(w http.ResponseWriter, r *http.Request, e *httpError) {
	s.logFailure(r, e)
	writeError(w, e)
}

func validKey(k string) bool {
	if len(k) == 0 || len(k) > MaxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// fingerprint identifies a request for its key: method, path and query,
// and the SHA-256 of the body.
func fingerprint(r *http.Request, body []byte) [32]byte {
	bh := sha256.Sum256(body)
	h := sha256.New()
	h.Write([]byte(r.Method + " " + r.URL.EscapedPath() + "?" + r.URL.RawQuery + "\n"))
	h.Write(bh[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// idemState is what begin found for a key.
type idemState int

const (
	idemRun      idemState = iota // no answer: the caller runs the act and calls finish
	idemWait                      // the key's first request is running: wait on rec.done
	idemReplay                    // answered: write rec.ans
	idemConflict                  // the key belongs to another request
)

// idemRecord is one key's request and, once answered, its answer.
type idemRecord struct {
	fp      [32]byte
	created time.Time
	done    chan struct{} // closed when the first request ends
	ans     *answer       // set before done closes when the answer is kept
	el      *list.Element
}

// idemStore keeps the answers to Idempotency-Keys in memory, bounded in
// age (ttl from the first request) and count (the oldest answered record
// is evicted first). Records do not survive a restart.
type idemStore struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.Mutex
	recs    map[string]*idemRecord
	order   *list.List // of keys, oldest first
	waiters int        // requests waiting for a first request under their key
}

func newIdemStore(ttl time.Duration, max int, now func() time.Time) *idemStore {
	return &idemStore{ttl: ttl, max: max, now: now, recs: map[string]*idemRecord{}, order: list.New()}
}

// begin looks key up for a request with fingerprint fp. For idemRun it
// has taken a running record the caller must finish.
func (st *idemStore) begin(key string, fp [32]byte) (*idemRecord, idemState) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := st.now()
	st.expire(now)
	if rec, ok := st.recs[key]; ok {
		switch {
		case rec.fp != fp:
			return rec, idemConflict
		case rec.ans == nil:
			return rec, idemWait
		default:
			return rec, idemReplay
		}
	}
	for len(st.recs) >= st.max && st.evictOne() {
	}
	rec := &idemRecord{fp: fp, created: now, done: make(chan struct{})}
	rec.el = st.order.PushBack(key)
	st.recs[key] = rec
	return rec, idemRun
}

// finish ends rec's request: the answer is kept for replays, or the record
// dropped so that a retry runs again. Waiters wake either way.
func (st *idemStore) finish(key string, rec *idemRecord, ans answer, keep bool) {
	st.mu.Lock()
	if keep {
		rec.ans = &ans
	} else if st.recs[key] == rec {
		delete(st.recs, key)
		st.order.Remove(rec.el)
	}
	st.mu.Unlock()
	close(rec.done)
}

// expire drops answered records older than the ttl (st.mu held). Records
// are in creation order, so it stops at the first young one.
func (st *idemStore) expire(now time.Time) {
	for e := st.order.Front(); e != nil; {
		next := e.Next()
		key := e.Value.(string)
		rec := st.recs[key]
		if now.Sub(rec.created) < st.ttl {
			return
		}
		if rec.ans != nil {
			delete(st.recs, key)
			st.order.Remove(e)
		}
		e = next
	}
}

// evictOne drops the oldest answered record (st.mu held); false when
// every record is still running.
func (st *idemStore) evictOne() bool {
	for e := st.order.Front(); e != nil; e = e.Next() {
		key := e.Value.(string)
		if st.recs[key].ans != nil {
			delete(st.recs, key)
			st.order.Remove(e)
			return true
		}
	}
	return false
}

// wait waits until rec's request ends (true) or ctx ends (false).
func (st *idemStore) wait(ctx context.Context, rec *idemRecord) bool {
	st.mu.Lock()
	st.waiters++
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		st.waiters--
		st.mu.Unlock()
	}()
	select {
	case <-rec.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// waiting returns how many requests are waiting for a first request.
func (st *idemStore) waiting() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.waiters
}

// len returns how many keys are kept (running or answered).
func (st *idemStore) len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.recs)
}
