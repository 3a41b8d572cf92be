package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HeaderSeat is the HTTP header a client that holds a seat link, but not
// the principal's agent key, sends to open an MCP session: the whole
// seat link, parley://<node>/rooms/<id>#seat=<secret>. A header, not the
// URL, so the secret stays out of request lines, access logs and browser
// history; the seat link stays the credential of the tools' link
// argument as before.
const HeaderSeat = "Parley-Seat"

// DefaultMaxSessions bounds the MCP sessions a server keeps at once.
const DefaultMaxSessions = 64

// headerSessionID is the Streamable HTTP transport's session header.
const headerSessionID = "Mcp-Session-Id"

// NoCredentials is the refusal of a request that would open an MCP
// session without the agent key or a seat link. Nothing was created.
const NoCredentials = "Sign-in required: an MCP session opens only with your principal's agent key (the HTTP header \"Authorization: Bearer <key>\") or a seat link (the HTTP header \"" + HeaderSeat + ": parley://<node>/rooms/<id>#seat=<secret>\"); neither was sent or accepted, so no session was opened."

// TooManySessions is the refusal of a new session while every session the
// server keeps is busy with a request.
const TooManySessions = "Too many MCP sessions: this node keeps at most %d at once and every one is in use; close a session you no longer need (HTTP DELETE with its Mcp-Session-Id) or try again later."

// admitSession says whether r, which would open a session, carries the
// agent key or a seat link this node issued.
func (s *Server) admitSession(r *http.Request) bool {
	if a := r.Header.Get("Authorization"); a != "" && s.keyMatches(a) {
		return true
	}
	raw := r.Header.Get(HeaderSeat)
	if raw == "" {
		return false
	}
	l, err := parseLink(raw)
	if err != nil || l.Secret == "" || !sameNode(l.Node, s.o.PeerID, common.Address(s.o.Address)) {
		return false
	}
	_, ok, err := s.seats.check(l.Room, l.Secret)
	return err == nil && ok
}

// keyMatches reports whether the Authorization header value a presents
// the agent key, comparing SHA-256 digests in constant time.
func (s *Server) keyMatches(a string) bool {
	const scheme = "Bearer "
	if len(a) < len(scheme) || !strings.EqualFold(a[:len(scheme)], scheme) {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(a[len(scheme):])))
	return subtle.ConstantTimeCompare(got[:], s.key[:]) == 1
}

// sessionUse is what the server knows of a session it admitted: when a
// request last used it and how many are using it now.
type sessionUse struct {
	last time.Time
	busy int
}

// sessions bounds the MCP sessions in number: a new one over the bound
// closes the session idle the longest, or is refused when every session
// is in use. Idle sessions also end after Options.SessionTimeout (the
// SDK's timer). The SDK's own record of live sessions is the truth; this
// table adds use and age.
type sessions struct {
	srv *sdk.Server
	max int
	now func() time.Time

	mu       sync.Mutex
	use      map[string]*sessionUse
	creating int
}

func newSessions(srv *sdk.Server, max int, now func() time.Time) *sessions {
	return &sessions{srv: srv, max: max, now: now, use: map[string]*sessionUse{}}
}

// admit reserves room for one new session, closing the session idle the
// longest when the bound is reached. It returns false when every session
// is in use (or being opened); otherwise the caller calls opened with the
// new session's id ("" when none opened) once the request that opens it
// is served. Only sessions this table admitted are counted and closed: a
// session the SDK still lists while it closes is neither.
func (st *sessions) admit() bool {
	// The SDK's list is read under st.mu: a session opened (recorded by
	// opened, after the SDK listed it) while the list was read outside
	// the lock would be pruned as closed, and never be counted or closed
	// again, one over the bound each time.
	st.mu.Lock()
	live := map[string]*sdk.ServerSession{}
	for ss := range st.srv.Sessions() {
		live[ss.ID()] = ss
	}
	for id := range st.use {
		if live[id] == nil {
			delete(st.use, id) // closed by the SDK: idle timeout, DELETE, Close
		}
	}
	var victim *sdk.ServerSession
	if len(st.use)+st.creating >= st.max {
		var oldest time.Time
		for id, u := range st.use {
			if u.busy > 0 {
				continue
			}
			if victim == nil || u.last.Before(oldest) {
				victim, oldest = live[id], u.last
			}
		}
		if victim == nil {
			st.mu.Unlock()
			return false
		}
		delete(st.use, victim.ID())
	}
	st.creating++
	st.mu.Unlock()
	if victim != nil {
		_ = victim.Close()
	}
	return true
}

// opened ends a reservation of admit, recording the session it opened.
func (st *sessions) opened(id string) {
	st.mu.Lock()
	st.creating--
	if id != "" {
		st.use[id] = &sessionUse{last: st.now()}
	}
	st.mu.Unlock()
}

// using marks a request on session id as begun (+1) or ended (-1).
func (st *sessions) using(id string, delta int) {
	st.mu.Lock()
	if u := st.use[id]; u != nil {
		u.busy += delta
		u.last = st.now()
	}
	st.mu.Unlock()
}

// quiet hands the SDK's records below Warn to h at Debug: the SDK writes
// several Info lines per session (connected, initialized, ended), which
// are per-session events.
type quiet struct{ slog.Handler }

func (q quiet) level(l slog.Level) slog.Level {
	if l < slog.LevelWarn {
		return slog.LevelDebug
	}
	return l
}

func (q quiet) Enabled(ctx context.Context, l slog.Level) bool {
	return q.Handler.Enabled(ctx, q.level(l))
}

func (q quiet) Handle(ctx context.Context, r slog.Record) error {
	r.Level = q.level(r.Level)
	return q.Handler.Handle(ctx, r)
}

func (q quiet) WithAttrs(a []slog.Attr) slog.Handler { return quiet{q.Handler.WithAttrs(a)} }
func (q quiet) WithGroup(n string) slog.Handler      { return quiet{q.Handler.WithGroup(n)} }
