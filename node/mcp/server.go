package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
)

// Path is where the node serves the MCP endpoint on its API listener.
const Path = "/mcp"

// SeatFileName is where a node keeps its seats, relative to its data
// directory.
const SeatFileName = "mcp/seats.json"

// MinKeyBytes is the shortest agent key New accepts.
const MinKeyBytes = 16

// DefaultSessionTimeout is how long an idle MCP session is kept: long
// enough for an agent between two calls (wait_for_turn returns within 25
// s), short enough that abandoned sessions do not pile up.
const DefaultSessionTimeout = 5 * time.Minute

// DefaultMaxBody bounds a request body: room for a delivered file
// (base64) in a deliver call.
const DefaultMaxBody = 8 << 20

// SignInRequired is the one sentence every tool that needs the principal's
// agent key answers, as a tool error, when the key is missing or wrong.
// Nothing was done.
const SignInRequired = "Sign-in required: this tool needs your principal's agent key, sent by your MCP client as the HTTP header \"Authorization: Bearer <key>\" (never as a tool argument), and the key was missing or not accepted, so nothing was done."

// Options configure a Server. Key and PeerID are required.
type Options struct {
	// Key is the principal's agent key, the node API's bearer key (the
	// text of <data-dir>/api.key). Tools that act without a seat link
	// need it as "Authorization: Bearer <key>". At least MinKeyBytes.
	Key []byte
	// PeerID is this node's libp2p peer id: seat links name it.
	PeerID string
	// Address is this node's EVM address; links that name it instead of
	// the peer id are accepted too.
	Address negotiation.Address
	// SeatFile is where seats are kept (mode 0600), typically
	// <data-dir>/mcp/seats.json. Empty keeps them in memory: seat links
	// then die with the process.
	SeatFile string
	// Passcode, when set, is what create_room's passcode argument must
	// be; when empty the argument is ignored.
	Passcode string
	// Logger receives the server's records (component=mcp); default
	// discards.
	Logger *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// SessionTimeout closes MCP sessions idle this long. Default
	// DefaultSessionTimeout.
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions kept at once: a new session over it
	// closes the one idle the longest, or is refused (503) when every one
	// is in use. Default DefaultMaxSessions.
	MaxSessions int
	// MaxBody bounds a request body in bytes. Default DefaultMaxBody.
	MaxBody int64
	// Version is the server version reported to clients ("" reports
	// "dev").
	Version string
}

// Server is the node's MCP server: an http.Handler serving the Streamable
// HTTP transport with JSON responses. Build it with New; Close ends its
// sessions and any wait_for_turn in flight. It is safe for concurrent use.
type Server struct {
	b     Backend
	acts  Acts
	o     Options
	log   *slog.Logger
	key   [32]byte
	seats *seats
	srv   *sdk.Server
	h     *sdk.StreamableHTTPHandler

	sessions *sessions

	ctx       context.Context // ended by Close
	cancel    context.CancelFunc
	closeOnce sync.Once
}

var _ http.Handler = (*Server)(nil)

// New returns the MCP server of a node reached through b (its rooms) and
// acts (Parley's own acts; nil leaves those tools out). It validates opts,
// does no I/O and starts no goroutine.
func New(b Backend, acts Acts, opts Options) (*Server, error) {
	if b == nil {
		return nil, errors.New("mcp: nil Backend")
	}
	if len(opts.Key) < MinKeyBytes {
		return nil, fmt.Errorf("mcp: Key: %d bytes, want at least %d", len(opts.Key), MinKeyBytes)
	}
	if opts.PeerID == "" {
		return nil, errors.New("mcp: PeerID is empty")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	if opts.MaxBody == 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxSessions == 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.SessionTimeout < 0 || opts.MaxBody < 0 || opts.MaxSessions < 0 {
		return nil, errors.New("mcp: SessionTimeout, MaxBody and MaxSessions must not be negative")
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{
		b: b, acts: acts, o: opts,
		log:   opts.Logger.With("component", "mcp"),
		key:   sha256.Sum256(opts.Key),
		seats: newSeats(opts.SeatFile, opts.Now),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	sdkLog := slog.New(quiet{s.log.Handler()})
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "parley", Title: "Parley (PXP v0 over MCP)", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       sdkLog,
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	if err := s.register(); err != nil {
		return nil, err
	}
	s.h = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{
		JSONResponse:        true,
		SessionTimeout:      opts.SessionTimeout,
		MaxRequestBodyBytes: opts.MaxBody,
		Logger:              sdkLog,
	})
	s.sessions = newSessions(s.srv, opts.MaxSessions, opts.Now)
	return s, nil
}

// ServeHTTP serves the Streamable HTTP transport. A POST's body must be
// strict JSON (strictjson: no member named twice, valid UTF-8, no lone
// surrogates), else it is a JSON-RPC parse error and reaches no tool. A
// request that would open a session (no Mcp-Session-Id) must carry the
// agent key or a seat link (HeaderSeat), else it is 401 and opens
// nothing; over MaxSessions the session idle the longest is closed, or
// the request is refused with 503 when every session is in use.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	id := r.Header.Get(headerSessionID)
	if id == "" && r.Method == http.MethodPost && !s.admitSession(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="parley"`)
		rpcError(w, http.StatusUnauthorized, -32001, NoCredentials)
		return
	}
	if r.Method == http.MethodPost && r.Body != nil {
		b, err := strictjson.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBody), 0)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			rpcError(w, http.StatusRequestEntityTooLarge, -32600, fmt.Sprintf("the request body is over %d bytes (api.max_body)", s.o.MaxBody))
			return
		case err != nil:
			rpcError(w, http.StatusBadRequest, -32700, "parse error: reading the body: "+err.Error())
			return
		}
		if err := strictjson.Check(b); err != nil {
			rpcError(w, http.StatusBadRequest, -32700, "parse error: the body is not strict JSON: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	if id != "" {
		if r.Method == http.MethodPost { // a request in flight keeps its session; a GET stream does not (the SDK's idle timer agrees)
			s.sessions.using(id, +1)
			defer s.sessions.using(id, -1)
		}
		s.h.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost {
		s.h.ServeHTTP(w, r) // the transport refuses it: no session to use
		return
	}
	if !s.sessions.admit() {
		rpcError(w, http.StatusServiceUnavailable, -32000, fmt.Sprintf(TooManySessions, s.o.MaxSessions))
		return
	}
	s.h.ServeHTTP(w, r)
	s.sessions.opened(w.Header().Get(headerSessionID))
}

// rpcError answers a request the transport never saw with a JSON-RPC
// error (id null) and status.
func rpcError(w http.ResponseWriter, status, code int, msg string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// Close ends every session and every wait_for_turn in flight. It is safe
// to call twice.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		for ss := range s.srv.Sessions() {
			_ = ss.Close()
		}
	})
	return nil
}

// signedIn reports whether the request that carried req presented the
// agent key, comparing SHA-256 digests in constant time.
func (s *Server) signedIn(req *sdk.CallToolRequest) bool {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return false
	}
	return s.keyMatches(req.Extra.Header.Get("Authorization"))
}

// signInError is the refusal of a tool that needs the agent key: its text
// is SignInRequired, a sentence for the agent.
type signInError struct{}

func (signInError) Error() string { return SignInRequired }

// errSignIn is the refusal of a tool that needs the agent key.
var errSignIn error = signInError{}

// clientName is the name the agent's MCP client gave at initialize ("MCP
// agent" when it gave none).
func clientName(req *sdk.CallToolRequest) string {
	if req != nil {
		if ci := req.ClientInfo(); ci != nil {
			n := ci.Title
			if n == "" {
				n = ci.Name
			}
			if n = clean(n, maxAgentName); n != "" {
				return n
			}
		}
	}
	return "MCP agent"
}

// clean trims s and cuts it to at most n bytes on a rune boundary.
func clean(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// toolError turns a refusal into the text the agent reads: a node refusal
// as "<code>: <reason>", anything else as it is.
func toolError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errSignIn) {
		return err
	}
	var ne *node.Error
	if errors.As(err, &ne) {
		msg := string(ne.Code)
		if ne.Msg != "" {
			msg += ": " + ne.Msg
		}
		if ne.Err != nil {
			msg += ": " + ne.Err.Error()
		}
		return errors.New(msg)
	}
	if c := negotiation.CodeOf(err); c != "" {
		return fmt.Errorf("%s: %s", c, strings.TrimPrefix(err.Error(), "negotiation: "))
	}
	return err
}

// instructions tell a connecting agent how to take part.
const instructions = `This is a Parley node. It speaks PXP v0, the Proxy Exchange Protocol, over MCP: you act as the PROXY of exactly one person or company (your principal) in a negotiation ("room") with another party's proxy. Each side's proxy sits on its own side's node; this node hosts your principal's seat.

How to take part:
1. Your principal gives you a private seat link (parley://<node>/rooms/<id>#seat=<secret>): call join_room with it and never share it. The seat link is the credential for every tool on that room. To open a new room, call create_room; it needs your principal's agent key, which your MCP client sends as the header "Authorization: Bearer <key>" (never as a tool argument). A link without "#seat=" (an invite) is taken with join_room and the same header.
2. If your principal's intent card is not sealed, ask them for: goal, must-haves, what you may agree to without asking, must-nevers (hard limits), when you must escalate to them, and facts they know. Do not invent any of it. Show them the card, get a yes, then call seal_intent_card.
3. Loop: call wait_for_turn. When it is your turn, call send_envelope. When the room pauses for your principal, ask them the question verbatim and relay their exact words with answer_escalation.
4. When the room has ended, call get_brief and tell your principal what was agreed, on whose authority, and which assumptions remain unverified.

Rules the node enforces (a refused envelope changes nothing and says why):
- Tag every claim you rely on: "stated" (your principal said it; ref = a clause of your card such as "must_never[0]" or "amendments[0]"), "sourced" (ref = the document or system), or "assumed" (you inferred it). Anything the other proxy claimed is never "stated" for you.
- Review every claim of the other side before your next envelope: accept, challenge (cannot verify) or conflict (contradicts your card).
- Escalate (status "escalate" with one concrete question) instead of agreeing to anything outside your card; the node escalates for you when your terms cross a machine-checked rule of the card.
- status "agree" accepts the other side's current offer exactly; never agree while raising a conflict.
- A proposal is a binding offer: terms are lines like "title = Logo design", "milestone = 0.5 ETH: first drafts", "deadline = 2026-07-01", or an object with the same members. Binding acts (signing a settlement) also wait for your principal's passkey approval on the node.`
