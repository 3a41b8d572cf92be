package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
)

// DefaultMaxBody is the default bound of a request body: 8 MiB, room for
// a delivered file or a piece of evidence (base64 in JSON).
const DefaultMaxBody = 8 << 20

// MinKeyBytes is the shortest bearer key New accepts.
const MinKeyBytes = 16

// openAPIDoc is the API's OpenAPI 3.1 document, served at RouteOpenAPI.
//
//go:embed openapi.json
var openAPIDoc []byte

// Options configure a Server. Key is required; every other field has a
// default.
type Options struct {
	// Key is the bearer key every /v1 request presents as
	// "Authorization: Bearer <key>": the text of <data-dir>/api.key
	// without its newline. At least MinKeyBytes bytes.
	Key []byte
	// MaxBody bounds a request body in bytes; a longer one is refused
	// with 413 body_too_large. Default DefaultMaxBody.
	MaxBody int64
	// Logger receives the server's records (component=api); the default
	// discards.
	Logger *slog.Logger
	// Now is the clock (the discovery document's updated_at, idempotency
	// records' age). Default time.Now.
	Now func() time.Time
	// BaseURL is where the server is reached, such as
	// "http://127.0.0.1:7464": the discovery document names its endpoint
	// and the identity link's URL under it. Empty derives it from each
	// request's Host.
	BaseURL string
	// Organization names who runs the node in the discovery document.
	// Default: the node's configured name.
	Organization string
	// Offers are the node's capabilities (task categories) that it
	// offers; the discovery document lists the others as taken. Each must
	// be one of the node's configured capabilities.
	Offers []string
	// IdempotencyTTL is how long an Idempotency-Key's answer is kept after
	// its first request. Default 24 h.
	IdempotencyTTL time.Duration
	// IdempotencyMax bounds how many keys are kept; the oldest answered
	// one is evicted first. Default 10 000.
	IdempotencyMax int
	// Heartbeat is the interval of the event stream's comment lines that
	// keep idle connections open. Default 15 s.
	Heartbeat time.Duration
	// ActGrace is how long Close lets the acts still running end by
	// themselves before it cancels them. Default 5 s.
	ActGrace time.Duration
	// WebURL is where the node's pages are served, such as
	// "http://localhost:7480": a refusal of via web names the page where
	// the principal gives their own words. Empty: the node serves no
	// pages.
	WebURL string
	// Agents are VXP's outside agents (node/vxp's Server): GET
	// /v1/agents lists them, POST /v1/agents/revoke revokes their grants.
	// Nil: the node serves no VXP and both answer 404 vxp_off.
	Agents node.AgentBook
}

// Server is the node's HTTP API: an http.Handler serving the routes of
// this package's route table. Build it with New; Close ends its open event
// streams (register it with http.Server.RegisterOnShutdown). It is safe
// for concurrent use.
type Server struct {
	n      *node.Node
	o      Options
	log    *slog.Logger
	key    [32]byte // SHA-256 of the key: compared in constant time, length-independent
	mux    *http.ServeMux
	idem   *idemStore
	routes []string

	done      chan struct{}
	closeOnce sync.Once

	// The acts the server runs for POSTs (idempotent): they outlive a
	// client that went away and end by themselves, or when Close cancels
	// actCtx.
	actCtx     context.Context
	cancelActs context.CancelFunc
	amu        sync.Mutex
	closing    bool
	acts       sync.WaitGroup
}

var _ http.Handler = (*Server)(nil)

// New returns the API server of n. It validates opts, does no I/O and
// starts no goroutine; n may be started later (routes answer 503
// not_started until it is).
func New(n *node.Node, opts Options) (*Server, error) {
	if n == nil {
		return nil, errors.New("api: nil node")
	}
	if len(opts.Key) < MinKeyBytes {
		return nil, fmt.Errorf("api: Key: %d bytes, want at least %d", len(opts.Key), MinKeyBytes)
	}
	if opts.MaxBody == 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxBody < 1024 {
		return nil, fmt.Errorf("api: MaxBody: %d bytes is under 1 KiB", opts.MaxBody)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.BaseURL = strings.TrimSuffix(opts.BaseURL, "/")
	opts.WebURL = strings.TrimSuffix(opts.WebURL, "/")
	if opts.BaseURL != "" && !strings.HasPrefix(opts.BaseURL, "http://") && !strings.HasPrefix(opts.BaseURL, "https://") {
		return nil, fmt.Errorf("api: BaseURL %q is not an http or https URL", opts.BaseURL)
	}
	caps := n.Config().Capabilities
	for _, o := range opts.Offers {
		if !slices.Contains(caps, o) {
			return nil, fmt.Errorf("api: Offers: %q is not one of the node's capabilities %v", o, caps)
		}
	}
	if opts.IdempotencyTTL == 0 {
		opts.IdempotencyTTL = 24 * time.Hour
	}
	if opts.IdempotencyMax == 0 {
		opts.IdempotencyMax = 10000
	}
	if opts.IdempotencyTTL < 0 || opts.IdempotencyMax < 0 {
		return nil, errors.New("api: IdempotencyTTL and IdempotencyMax must not be negative")
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.ActGrace == 0 {
		opts.ActGrace = 5 * time.Second
	}
	if opts.ActGrace < 0 {
		return nil, errors.New("api: ActGrace must not be negative")
	}
	if opts.Heartbeat < 0 {
		return nil, errors.New("api: Heartbeat must not be negative")
	}
	s := &Server{
		n: n, o: opts, log: opts.Logger.With("component", "api"),
		key:  sha256.Sum256(opts.Key),
		mux:  http.NewServeMux(),
		idem: newIdemStore(opts.IdempotencyTTL, opts.IdempotencyMax, opts.Now),
		done: make(chan struct{}),
	}
	s.actCtx, s.cancelActs = context.WithCancel(context.Background())
	s.register()
	return s, nil
}

// Close ends the server's open event streams (later streams end at once),
// refuses new acts with 503, gives the acts still running ActGrace to end
// by themselves, then cancels them (an act waiting for its approval is
// cancelled and recorded as such) and waits for them. A client that went
// away does not stop its act: Close does. It is safe to call twice (and
// from http.Server.RegisterOnShutdown, which runs it in a goroutine of its
// own); a second call returns once the first has.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.amu.Lock()
		s.closing = true
		s.amu.Unlock()
		ended := make(chan struct{})
		go func() {
			s.acts.Wait()
			close(ended)
		}()
		t := time.NewTimer(s.o.ActGrace)
		defer t.Stop()
		select {
		case <-ended:
		case <-t.C:
			s.cancelActs()
			<-ended
		}
		s.cancelActs()
	})
}

// register puts every route of the table on the mux.
func (s *Server) register() {
	get := func(pattern string, h http.HandlerFunc) {
		s.routes = append(s.routes, pattern)
		s.mux.HandleFunc(pattern, h)
	}
	post := func(pattern string, h actFunc) {
		s.routes = append(s.routes, pattern)
		s.mux.HandleFunc(pattern, s.idempotent(h))
	}
	get(RouteDiscovery, s.discovery)
	get(RouteLink, s.link)
	get(RouteOpenAPI, s.openAPI)
	get(RouteStatus, s.status)
	get(RoutePeers, s.peers)
	get(RouteEvents, s.events)

	get(RouteTasks, s.tasks)
	post(RoutePostTask, s.postTask)
	post(RouteProposeTask, s.proposeTask)
	get(RouteTask, s.task)
	post(RouteTaskCounter, s.counterTask)
	post(RouteTaskAccept, s.acceptTask)
	post(RouteAnnounce, s.announce)

	get(RouteNegotiations, s.negotiations)
	get(RouteNegotiation, s.negotiation)
	get(RouteBundle, s.bundle)
	post(RouteCounter, s.counter)
	post(RouteAccept, s.accept)
	post(RouteFund, s.fund)
	post(RouteDeliver, s.deliver)
	post(RouteAcceptDelivery, s.acceptDelivery)
	post(RouteCancel, s.cancel)
	post(RouteAmend, s.amend)
	post(RouteReplace, s.replace)
	post(RouteDispute, s.dispute)
	post(RouteEvidence, s.evidence)
	post(RouteArbitrator, s.arbitrator)
	post(RouteRule, s.rule)
	post(RouteClaimUnanswered, s.claimUnanswered)
	post(RouteReclaimExpired, s.reclaimExpired)
	post(RouteResolveTimedOut, s.resolveTimedOut)
	get(RouteTimeouts, s.timeouts)
	post(RouteVeto, s.veto)
	post(RouteCapability, s.capability)
	post(RouteRevision, s.revision)
	post(RoutePaymentRequest, s.paymentRequest)
	post(RouteReleasePart, s.releasePart)

	get(RouteCard, s.card)
	post(RouteSealCard, s.sealCard)
	get(RouteNegotiationCard, s.negotiationCard)
	post(RouteSealNegCard, s.sealNegotiationCard)
	get(RouteEscalations, s.escalations)
	post(RouteAnswer, s.answer)
	get(RouteRoom, s.room)
	get(RouteBrief, s.brief)

	get(RouteConsents, s.consents)
	get(RouteConsent, s.consent)
	post(RouteSetConsent, s.setConsent)

	get(RouteFile, s.file)
	post(RouteWithdraw, s.withdraw)
	get(RouteBalance, s.balance)
	get(RouteVerify, s.verify)

	get(RouteApprovals, s.approvals)
	get(RouteApproval, s.approval)
	post(RouteApprovalOptions, s.approvalOptions)
	post(RouteApprovalAssertion, s.approvalAssertion)
	post(RouteDeny, s.deny)
	post(RoutePasskeyOptions, s.passkeyOptions)
	post(RoutePasskeyCredential, s.passkeyCredential)
	get(RoutePasskeys, s.passkeys)
	post(RoutePasskeyRevoke, s.revokePasskey)
	get(RouteAudit, s.audit)
	s.registerOnchain(get, post) // onchain.go
	s.registerLedger(get, post)  // ledger.go
	s.registerAgents(get, post)  // agents.go

	s.mux.HandleFunc("/", s.notFound)
}

// ServeHTTP checks the bearer key of every request but the public
// discovery routes, before anything reads the body, and dispatches.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if !public(r) && !s.authorized(r) {
		h.Set("WWW-Authenticate", `Bearer realm="parley"`)
		writeError(w, &httpError{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: "missing or wrong bearer key (Authorization: Bearer <the text of <data-dir>/api.key>)"})
		return
	}
	s.mux.ServeHTTP(w, r)
}

// public reports whether r asks for one of the documents served without
// the key (they carry no keys and nothing private).
func public(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.URL.Path == "/.well-known/parley.json" || r.URL.Path == "/.well-known/parley-link.json"
}

// authorized compares the presented bearer key with the server's in
// constant time (over SHA-256 digests, so the key's length does not leak
// either).
func (s *Server) authorized(r *http.Request) bool {
	a := r.Header.Get("Authorization")
	const scheme = "Bearer "
	if len(a) < len(scheme) || !strings.EqualFold(a[:len(scheme)], scheme) {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(a[len(scheme):])))
	return subtle.ConstantTimeCompare(got[:], s.key[:]) == 1
}

// notFound answers every path no route names: 405 when the path exists
// for another method, else 404.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		if m == r.Method {
			continue
		}
		r2 := r.Clone(r.Context())
		r2.Method = m
		if _, p := s.mux.Handler(r2); p != "/" && p != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		if slices.Contains(allow, http.MethodGet) {
			allow = append(allow, http.MethodHead)
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, &httpError{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Message: r.Method + " " + r.URL.Path + ": allowed " + strings.Join(allow, ", ")})
		return
	}
	writeError(w, &httpError{Status: http.StatusNotFound, Code: CodeNotFound, Message: "no route " + r.Method + " " + r.URL.Path})
}

// answer is a complete JSON answer: what an act returns and what an
// idempotency record keeps.
type answer struct {
	status     int
	body       []byte
	retryAfter int // seconds; sent as Retry-After when set
}

func jsonAnswer(status int, v any) answer {
	b, err := json.Marshal(v)
	if err != nil {
		return errAnswer(&httpError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "encoding the answer: " + err.Error()})
	}
	return answer{status: status, body: append(b, '\n')}
}

func errAnswer(e *httpError) answer {
	a := jsonAnswer(e.Status, ErrorBody{Error: ErrorDetail{Code: e.Code, Message: e.Message}})
	a.retryAfter = e.RetryAfter
	return a
}

func (a answer) write(w http.ResponseWriter) {
	if a.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(a.retryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

func writeJSON(w http.ResponseWriter, status int, v any) { jsonAnswer(status, v).write(w) }

func writeError(w http.ResponseWriter, e *httpError) { errAnswer(e).write(w) }

// fail writes err's answer and logs server-side failures.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := errorOf(err)
	s.logFailure(r, e)
	writeError(w, e)
}

func (s *Server) logFailure(r *http.Request, e *httpError) {
	if e.Status >= 500 {
		s.log.Warn("request failed", "method", r.Method, "path", r.URL.Path, "status", e.Status, "code", e.Code, "err", e.Message)
	} else {
		s.log.Debug("request refused", "method", r.Method, "path", r.URL.Path, "status", e.Status, "code", e.Code)
	}
}

// decode reads body into v with the project's strict decoder
// (strictjson): one JSON value (an empty body reads as {}), no member
// named twice, names matched exactly, no unknown members, valid UTF-8,
// nothing after it, and every member named in required present and not
// null. A refusal is 400 with the decoder's code (malformed_json,
// duplicate_key, unknown_field, schema_invalid), or the code of the value
// that refused itself (bad_address, bad_integer, ...), naming the member.
func decode(body []byte, v any, required ...string) *httpError {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := strictjson.Unmarshal(body, v); err != nil {
		return decodeError(err)
	}
	if len(required) > 0 {
		var m map[string]json.RawMessage
		if err := strictjson.Unmarshal(body, &m); err != nil {
			return decodeError(err)
		}
		for _, k := range required {
			if raw, ok := m[k]; !ok || string(raw) == "null" {
				return &httpError{Status: http.StatusBadRequest, Code: CodeSchemaInvalid, Message: fmt.Sprintf("body: member %q is required", k)}
			}
		}
	}
	return nil
}

// decodeError is the answer to a body the strict decoder refused.
func decodeError(err error) *httpError {
	code := string(strictjson.CodeOf(err))
	if c := negotiation.CodeOf(err); c != "" {
		code = string(c) // a value's own refusal: bad_address, bad_integer, ...
	}
	if code == "" {
		code = CodeMalformedJSON
	}
	msg := "body: " + err.Error()
	st := http.StatusBadRequest
	var se *strictjson.Error
	if errors.As(err, &se) {
		st, _ = statusOf(se.Class()) // invalid, or too_large
		msg = "body: " + se.Msg
		if m := se.Member(); m != "" && !strings.Contains(se.Msg, strconv.Quote(m)) {
			msg = fmt.Sprintf("body: member %q: %s", m, se.Msg)
		} else if m == "" && se.Pointer != "" {
			msg = "body: " + se.Pointer + ": " + se.Msg
		}
	}
	return &httpError{Status: st, Code: code, Message: msg}
}

// Path values.

var requestIDRE = regexp.MustCompile(`^req_[0-9a-f]{32}$`)

func nidParam(r *http.Request) (string, *httpError) {
	id := r.PathValue("id")
	if _, err := negotiation.ParseNegotiationID(id); err != nil {
		return "", badRequest("path: negotiation id %q is not a lowercase UUID v4", id)
	}
	return id, nil
}

func hashParam(r *http.Request) (negotiation.Hash, *httpError) {
	h, err := negotiation.ParseHash(r.PathValue("hash"))
	if err != nil {
		return h, badRequest("path: announcement hash %q is not 0x and 64 lowercase hex digits", r.PathValue("hash"))
	}
	return h, nil
}

func cidParam(r *http.Request) (cid.Cid, *httpError) {
	c, err := negotiation.CID(r.PathValue("cid")).Parse()
	if err != nil {
		return cid.Undef, badRequest("path: %q is not a CIDv1 in base32", r.PathValue("cid"))
	}
	return c, nil
}

func requestIDParam(r *http.Request) (string, *httpError) {
	id := r.PathValue("id")
	if !requestIDRE.MatchString(id) {
		return "", badRequest("path: approval request id %q is not req_ and 32 lowercase hex digits", id)
	}
	return id, nil
}

func addressQuery(r *http.Request, name string) (negotiation.Address, *httpError) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return negotiation.Address{}, nil
	}
	a, err := negotiation.ParseAddress(v)
	if err != nil {
		return a, badRequest("query: %s: %v", name, err)
	}
	return a, nil
}

// Reads.

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIDoc)
}

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	st, err := s.n.Status()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) peers(w http.ResponseWriter, _ *http.Request) {
	out := []Peer{}
	for _, p := range s.n.Peers() {
		out = append(out, Peer{PeerID: p.PeerID, Addrs: p.Addrs, EVMAddress: p.EVMAddress})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) tasks(w http.ResponseWriter, _ *http.Request) {
	out := s.n.Board()
	if out == nil {
		out = []node.Announcement{}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) task(w http.ResponseWriter, r *http.Request) {
	h, e := hashParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	for _, a := range s.n.Board() {
		if a.Hash == h {
			writeJSON(w, http.StatusOK, a)
			return
		}
	}
	s.fail(w, r, refusal(node.CodeUnknownTask, "no announcement "+h.String()+" on the board"))
}

// states are the thread states ?state= may name.
var states = []negotiation.State{
	negotiation.StateOpen, negotiation.StateProposed, negotiation.StateCountered, negotiation.StateAgreed,
	negotiation.StateFunded, negotiation.StateDelivered, negotiation.StateCompleted, negotiation.StateDisputed,
	negotiation.StateArbitrated, negotiation.StateResolved, negotiation.StateCancelled, negotiation.StateVetoed,
	negotiation.StateExpired,
	negotiation.StateHalted,
}

func (s *Server) negotiations(w http.ResponseWriter, r *http.Request) {
	want := negotiation.State(r.URL.Query().Get("state"))
	if want != "" && !slices.Contains(states, want) {
		s.fail(w, r, badRequest("query: state %q is not a thread state", want))
		return
	}
	out := []node.ThreadView{}
	for _, v := range s.n.Threads() {
		if want == "" || v.State == want {
			out = append(out, v)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) negotiation(w http.ResponseWriter, r *http.Request) {
	nid, e := nidParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	v, err := s.n.Thread(nid)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// lazyWriter sends the answer's headers with its first byte, so an export
// that fails before writing anything can still answer with an error.
type lazyWriter struct {
	w       http.ResponseWriter
	started bool
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	if !l.started {
		l.started = true
		l.w.Header().Set("Content-Type", "application/json")
		l.w.WriteHeader(http.StatusOK)
	}
	return l.w.Write(p)
}

func (s *Server) bundle(w http.ResponseWriter, r *http.Request) {
	nid, e := nidParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	lw := &lazyWriter{w: w}
	if _, err := s.n.Export(r.Context(), nid, lw); err != nil {
		if !lw.started {
			if errors.Is(err, ledger.ErrNotFound) {
				err = refusal(node.CodeUnknownNegotiation, "the ledger holds no entry of negotiation "+nid)
			}
			s.fail(w, r, err)
			return
		}
		// The answer has begun: cut the connection so the client sees a
		// truncated bundle, never a complete-looking one.
		s.log.Warn("bundle export failed after it began", "negotiation", nid, "err", err)
		panic(http.ErrAbortHandler)
	}
	if !lw.started {
		_, _ = lw.Write(nil)
	}
}

func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	c, e := cidParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	data, err := s.n.File(r.Context(), c)
	if err != nil {
		if node.CodeOf(err) == node.CodeBadArgument {
			err = &httpError{Status: http.StatusNotFound, Code: CodeNotFound, Message: "no file " + c.String()}
		}
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", fmt.Sprint(len(data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

func (s *Server) balance(w http.ResponseWriter, r *http.Request) {
	token, e := addressQuery(r, "token")
	if e != nil {
		s.fail(w, r, e)
		return
	}
	bal, err := s.n.Balance(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	owed, err := s.n.Owed(r.Context(), token)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, Balance{Address: s.n.Address(), Token: token, Balance: bal.String(), Owed: owed.String()})
}

func (s *Server) verify(w http.ResponseWriter, r *http.Request) {
	led := s.n.Ledger()
	if led == nil {
		s.fail(w, r, node.ErrNotStarted)
		return
	}
	head, err := led.Verify(r.Context())
	var ve *ledger.VerifyError
	switch {
	case errors.As(err, &ve):
		writeJSON(w, http.StatusOK, LedgerReport{OK: false, Seq: ve.Seq, Error: ve.Error()})
	case err != nil:
		s.fail(w, r, err)
	default:
		writeJSON(w, http.StatusOK, LedgerReport{OK: true, Seq: head.Seq, Head: head.Hash})
	}
}

func (s *Server) approvals(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.n.Gate().PendingApprovals())
}

func (s *Server) approval(w http.ResponseWriter, r *http.Request) {
	id, e := requestIDParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	p, err := s.n.Gate().PendingApproval(id)
	if err != nil {
		s.fail(w, r, noPending(id, err))
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// noPending turns the node's refusal of an unknown request id into 404.
func noPending(id string, err error) error {
	if node.CodeOf(err) == node.CodeBadArgument {
		return &httpError{Status: http.StatusNotFound, Code: CodeNotFound, Message: "no pending approval request " + id}
	}
	return err
}

func (s *Server) passkeys(w http.ResponseWriter, r *http.Request) {
	creds, err := s.n.Gate().Passkeys(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]Passkey, len(creds))
	for i, c := range creds {
		out[i] = passkeyOf(c)
	}
	writeJSON(w, http.StatusOK, out)
}

func passkeyOf(c approval.Credential) Passkey {
	p := Passkey{Ref: c.Ref(), Label: c.Label, Software: c.Software, RegisteredAt: c.RegisteredAt,
		SignCount: c.WebAuthn.Authenticator.SignCount, Cloned: c.Cloned()}
	if c.Revoked() {
		at := c.RevokedAt
		p.RevokedAt = &at
	}
	return p
}

// refRE is a passkey's hashed reference.
var refRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// revokePasskey revokes a passkey once another passkey approved it (the
// call waits, like a gated act), or the last one with the data
// directory's token.
func (s *Server) revokePasskey(r *http.Request, body []byte) answer {
	ref := r.PathValue("ref")
	if !refRE.MatchString(ref) {
		return errAnswer(badRequest("path: passkey reference %q is not 32 lowercase hex digits", ref))
	}
	var req RevokeRequest
	if e := decode(body, &req); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) {
		c, err := s.n.Gate().RevokePasskey(r.Context(), ref, req.Token)
		if err != nil {
			return nil, err
		}
		return passkeyOf(c), nil
	})
}

// MaxAudit bounds the audit events one GET /v1/audit returns.
const MaxAudit = 1000

func (s *Server) audit(w http.ResponseWriter, r *http.Request) {
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxAudit {
			s.fail(w, r, badRequest("query: limit %q is not 1..%d", v, MaxAudit))
			return
		}
		limit = n
	}
	out, err := s.n.Gate().AuditTrail(r.Context(), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// Acts. Each decodes its body strictly, validates its path values and
// calls the node with the request's context: a gated act waits for its
// approval as long as the client waits.

// act calls f and turns its result into an answer with status on success.
func act(status int, f func() (any, error)) answer {
	v, err := f()
	if err != nil {
		return errAnswer(errorOf(err))
	}
	return jsonAnswer(status, v)
}

// withNID decodes a body of type T for a route on one negotiation and
// runs f; the 200 answer is f's ActResult.
func withNID[T any](required []string, f func(r *http.Request, nid string, req T) (node.ActResult, error)) actFunc {
	return func(r *http.Request, body []byte) answer {
		nid, e := nidParam(r)
		if e != nil {
			return errAnswer(e)
		}
		var req T
		if e := decode(body, &req, required...); e != nil {
			return errAnswer(e)
		}
		return act(http.StatusOK, func() (any, error) { return f(r, nid, req) })
	}
}

// withHash is withNID for a route on one announcement; its answer is 201.
func withHash[T any](f func(r *http.Request, h negotiation.Hash, req T) (node.ActResult, error)) actFunc {
	return func(r *http.Request, body []byte) answer {
		h, e := hashParam(r)
		if e != nil {
			return errAnswer(e)
		}
		var req T
		if e := decode(body, &req); e != nil {
			return errAnswer(e)
		}
		return act(http.StatusCreated, func() (any, error) { return f(r, h, req) })
	}
}

func (s *Server) postTask(r *http.Request, body []byte) answer {
	var spec node.TaskSpec
	if e := decode(body, &spec, "title", "milestones", "deadline"); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusCreated, func() (any, error) { return s.n.PostTask(r.Context(), spec) })
}

func (s *Server) proposeTask(r *http.Request, body []byte) answer {
	var req ProposeRequest
	if e := decode(body, &req, "worker", "task"); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusCreated, func() (any, error) { return s.n.ProposeTask(r.Context(), req.Worker, req.Task) })
}

func (s *Server) counterTask(r *http.Request, body []byte) answer {
	return withHash(func(r *http.Request, h negotiation.Hash, spec node.CounterSpec) (node.ActResult, error) {
		return s.n.CounterAnnouncement(r.Context(), h, spec)
	})(r, body)
}

func (s *Server) acceptTask(r *http.Request, body []byte) answer {
	return withHash(func(r *http.Request, h negotiation.Hash, spec node.AcceptSpec) (node.ActResult, error) {
		return s.n.AcceptAnnouncementWith(r.Context(), h, spec)
	})(r, body)
}

// announce publishes one of this node's announcements again, for peers
// that joined the board after it was first published (gossip keeps no
// history).
func (s *Server) announce(r *http.Request, body []byte) answer {
	h, e := hashParam(r)
	if e != nil {
		return errAnswer(e)
	}
	var req Empty
	if e := decode(body, &req); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) {
		if err := s.n.Announce(r.Context(), h); err != nil {
			return nil, err
		}
		for _, a := range s.n.Board() {
			if a.Hash == h {
				return a, nil
			}
		}
		return nil, &node.Error{Code: node.CodeUnknownTask, Msg: "announcement " + h.String() + " left the board"}
	})
}

func (s *Server) counter(r *http.Request, body []byte) answer {
	return withNID(nil, func(r *http.Request, nid string, spec node.CounterSpec) (node.ActResult, error) {
		return s.n.Counter(r.Context(), nid, spec)
	})(r, body)
}

func (s *Server) accept(r *http.Request, body []byte) answer {
	return withNID(nil, func(r *http.Request, nid string, spec node.AcceptSpec) (node.ActResult, error) {
		return s.n.AcceptWith(r.Context(), nid, spec)
	})(r, body)
}

func (s *Server) fund(r *http.Request, body []byte) answer {
	return withNID(nil, func(r *http.Request, nid string, _ Empty) (node.ActResult, error) {
		return s.n.Fund(r.Context(), nid)
	})(r, body)
}

func (s *Server) deliver(r *http.Request, body []byte) answer {
	return withNID([]string{"milestone", "name", "data"}, func(r *http.Request, nid string, spec node.DeliverySpec) (node.ActResult, error) {
		return s.n.Deliver(r.Context(), nid, spec)
	})(r, body)
}

func (s *Server) acceptDelivery(r *http.Request, body []byte) answer {
	return withNID([]string{"milestone"}, func(r *http.Request, nid string, spec node.AcceptDeliverySpec) (node.ActResult, error) {
		return s.n.AcceptDeliveryWith(r.Context(), nid, spec)
	})(r, body)
}

func (s *Server) dispute(r *http.Request, body []byte) answer {
	return withNID(nil, func(r *http.Request, nid string, _ Empty) (node.ActResult, error) {
		return s.n.OpenDispute(r.Context(), nid)
	})(r, body)
}

func (s *Server) evidence(r *http.Request, body []byte) answer {
	return withNID([]string{"name", "data", "description"}, func(r *http.Request, nid string, spec node.EvidenceSpec) (node.ActResult, error) {
		return s.n.SubmitEvidence(r.Context(), nid, spec)
	})(r, body)
}

func (s *Server) arbitrator(r *http.Request, body []byte) answer {
	return withNID([]string{"arbitrator"}, func(r *http.Request, nid string, req ArbitratorRequest) (node.ActResult, error) {
		return s.n.ProposeArbitratorWith(r.Context(), nid, req)
	})(r, body)
}

func (s *Server) rule(r *http.Request, body []byte) answer {
	return withNID([]string{"ruling"}, func(r *http.Request, nid string, req RuleRequest) (node.ActResult, error) {
		return s.n.Rule(r.Context(), nid, req.Ruling)
	})(r, body)
}

func (s *Server) claimUnanswered(r *http.Request, body []byte) answer {
	return withNID([]string{"milestone"}, func(r *http.Request, nid string, req MilestoneRequest) (node.ActResult, error) {
		return s.n.ClaimUnanswered(r.Context(), nid, req.Milestone)
	})(r, body)
}

func (s *Server) reclaimExpired(r *http.Request, body []byte) answer {
	return withNID(nil, func(r *http.Request, nid string, _ Empty) (node.ActResult, error) {
		return s.n.ReclaimExpired(r.Context(), nid)
	})(r, body)
}

func (s *Server) resolveTimedOut(r *http.Request, body []byte) answer {
	return withNID(nil, func(r *http.Request, nid string, _ Empty) (node.ActResult, error) {
		return s.n.ResolveTimedOut(r.Context(), nid)
	})(r, body)
}

func (s *Server) timeouts(w http.ResponseWriter, r *http.Request) {
	out, err := s.n.Timeouts(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if out == nil {
		out = []node.TimeoutExit{}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) veto(r *http.Request, body []byte) answer {
	return withNID([]string{"party", "reason"}, func(r *http.Request, nid string, req VetoRequest) (node.ActResult, error) {
		return s.n.Veto(r.Context(), nid, req.Party, req.Reason)
	})(r, body)
}

func (s *Server) cancel(r *http.Request, body []byte) answer {
	return withNID(nil, func(r *http.Request, nid string, req CancelRequest) (node.ActResult, error) {
		return s.n.Cancel(r.Context(), nid, req.Reason)
	})(r, body)
}

func (s *Server) amend(r *http.Request, body []byte) answer {
	return withNID([]string{"milestones", "deadline"}, func(r *http.Request, nid string, spec node.AmendSpec) (node.ActResult, error) {
		return s.n.Amend(r.Context(), nid, spec)
	})(r, body)
}

func (s *Server) replace(r *http.Request, body []byte) answer {
	return withNID([]string{"newWorker"}, func(r *http.Request, nid string, spec node.ReplaceSpec) (node.ActResult, error) {
		return s.n.Replace(r.Context(), nid, spec)
	})(r, body)
}

func (s *Server) withdraw(r *http.Request, body []byte) answer {
	var req WithdrawRequest
	if e := decode(body, &req); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) { return s.n.Withdraw(r.Context(), req.Token) })
}

// approvalOptions answers the WebAuthn request options of a pending
// request: its challenge is the request's intentHash.
func (s *Server) approvalOptions(r *http.Request, body []byte) answer {
	id, e := requestIDParam(r)
	if e != nil {
		return errAnswer(e)
	}
	if e := decode(body, &Empty{}); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) {
		o, err := s.n.Gate().ApprovalOptions(r.Context(), id)
		return o, noPending(id, err)
	})
}

// approvalAssertion approves a pending request with the principal's
// WebAuthn assertion; the bearer key alone approves nothing.
func (s *Server) approvalAssertion(r *http.Request, body []byte) answer {
	id, e := requestIDParam(r)
	if e != nil {
		return errAnswer(e)
	}
	var req AssertionRequest
	if e := decode(body, &req, "response"); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) {
		rc, err := s.n.Gate().FinishApproval(r.Context(), id, req.Response)
		return rc, noPending(id, err)
	})
}

// deny denies a pending request: the act that waits fails and performs
// nothing.
func (s *Server) deny(r *http.Request, body []byte) answer {
	id, e := requestIDParam(r)
	if e != nil {
		return errAnswer(e)
	}
	var req DenyRequest
	if e := decode(body, &req); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) {
		if _, err := s.n.Gate().PendingApproval(id); err != nil {
			return nil, noPending(id, err)
		}
		rc, err := s.n.Gate().DenyApproval(r.Context(), id, req.Reason)
		return rc, err
	})
}

// passkeyOptions begins a passkey registration: 200 with the creation
// options, or 202 with the request an existing passkey must approve.
func (s *Server) passkeyOptions(r *http.Request, body []byte) answer {
	var req PasskeyRequest
	if e := decode(body, &req); e != nil {
		return errAnswer(e)
	}
	creation, sess, err := s.n.Gate().BeginPasskeyWith(r.Context(), node.PasskeyOptions{Token: req.Token, Label: req.Label, Software: req.Software})
	out := PasskeyOptions{Session: sess, Creation: creation, WebAuthn: s.webAuthnInfo()}
	var pr *node.PendingRegistration
	switch {
	case errors.As(err, &pr):
		out.Session, out.PendingRequest = pr.Session, pr.RequestID
		return jsonAnswer(http.StatusAccepted, out)
	case err != nil:
		return errAnswer(errorOf(err))
	}
	return jsonAnswer(http.StatusOK, out)
}

func (s *Server) webAuthnInfo() WebAuthnInfo {
	c := s.n.Gate().WebAuthnConfig()
	return WebAuthnInfo{RPID: c.RPID, RPName: c.RPName, Origins: c.Origins, UserID: c.UserID, UserName: c.UserName}
}

// passkeyCredential finishes a registration and answers the registered
// passkey.
func (s *Server) passkeyCredential(r *http.Request, body []byte) answer {
	var req PasskeyCredentialRequest
	if e := decode(body, &req, "session", "response"); e != nil {
		return errAnswer(e)
	}
	return act(http.StatusCreated, func() (any, error) {
		c, err := s.n.Gate().FinishPasskey(r.Context(), req.Session, req.Response)
		if err != nil {
			return nil, err
		}
		return passkeyOf(c), nil
	})
}

// PXP.

func (s *Server) card(w http.ResponseWriter, r *http.Request) {
	c, err := s.n.DefaultCard()
	if err != nil {
		s.fail(w, r, noCard(err))
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// noCard turns a node without the card asked for into 404: on a read of
// the card, no_card names what is not there (an act that needs a card
// answers its class, conflict).
func noCard(err error) error {
	if node.CodeOf(err) == node.CodeNoCard {
		return &httpError{Status: http.StatusNotFound, Code: string(node.CodeNoCard), Message: err.Error()}
	}
	return err
}

// viaOf is how a card or an answer that arrived through the API is
// marked: api, or mcp when the caller says it relays an agent over MCP.
// Either binds only once the principal's passkey confirms it. web, the
// principal's own word, is refused: only the node's pages give it, after
// a passkey signed the exact text (page names where, for negotiation nid
// or the default card).
func (s *Server) viaOf(v negotiation.Via, nid string) (negotiation.Via, *httpError) {
	switch v {
	case "":
		return negotiation.ViaAPI, nil
	case negotiation.ViaAPI, negotiation.ViaMCP:
		return v, nil
	case negotiation.ViaWeb:
		page := "/card"
		if nid != "" {
			page = "/escalations/" + nid
		}
		if s.o.WebURL != "" {
			page = s.o.WebURL + page
		}
		return "", refusal(node.CodeViaWebRefused, "via web is the principal's own word: the API's key cannot give it. "+
			"Only the node's pages do ("+page+"), after the principal's passkey signed the exact text; send via api (the default), which binds once a passkey confirms it")
	}
	return "", badRequest("via %q: want api or mcp", v)
}

func (s *Server) sealCard(r *http.Request, body []byte) answer {
	var req CardRequest
	if e := decode(body, &req, "card"); e != nil {
		return errAnswer(e)
	}
	via, e := s.viaOf(req.Via, "")
	if e != nil {
		return errAnswer(e)
	}
	return act(http.StatusCreated, func() (any, error) { return s.n.SealDefaultCard(r.Context(), req.Card, via) })
}

func (s *Server) negotiationCard(w http.ResponseWriter, r *http.Request) {
	nid, e := nidParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	c, err := s.n.NegotiationCard(nid)
	if err != nil {
		s.fail(w, r, noCard(err))
		return
	}
	writeJSON(w, http.StatusOK, c)
}

func (s *Server) sealNegotiationCard(r *http.Request, body []byte) answer {
	nid, e := nidParam(r)
	if e != nil {
		return errAnswer(e)
	}
	var req CardRequest
	if e := decode(body, &req, "card"); e != nil {
		return errAnswer(e)
	}
	via, e := s.viaOf(req.Via, nid)
	if e != nil {
		return errAnswer(e)
	}
	return act(http.StatusCreated, func() (any, error) {
		if _, err := s.n.SealCard(r.Context(), nid, req.Card, via); err != nil {
			return nil, err
		}
		return s.n.NegotiationCard(nid)
	})
}

func (s *Server) escalations(w http.ResponseWriter, _ *http.Request) {
	out := s.n.Escalations()
	if out == nil {
		out = []node.PendingEscalation{}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) answer(r *http.Request, body []byte) answer {
	nid, e := nidParam(r)
	if e != nil {
		return errAnswer(e)
	}
	var req AnswerRequest
	if e := decode(body, &req, "answer"); e != nil {
		return errAnswer(e)
	}
	via, e := s.viaOf(req.Via, nid)
	if e != nil {
		return errAnswer(e)
	}
	return act(http.StatusOK, func() (any, error) { return s.n.Answer(r.Context(), nid, req.Answer, via) })
}

func (s *Server) room(w http.ResponseWriter, r *http.Request) {
	nid, e := nidParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	v, err := s.n.Room(r.Context(), nid)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// brief answers the decision brief: its JSON, or with ?format=md its
// Markdown (text/markdown).
func (s *Server) brief(w http.ResponseWriter, r *http.Request) {
	nid, e := nidParam(r)
	if e != nil {
		s.fail(w, r, e)
		return
	}
	format := r.URL.Query().Get("format")
	if format != "" && format != "json" && format != "md" {
		s.fail(w, r, badRequest("query: format %q: want json or md", format))
		return
	}
	b, err := s.n.Brief(r.Context(), nid)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if format == "md" {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, b.Markdown)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b.JSON, '\n'))
}
