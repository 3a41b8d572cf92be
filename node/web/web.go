package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
)

// Defaults of Options.
const (
	// DefaultRefresh is how often the pending list refreshes itself.
	DefaultRefresh = 3 * time.Second
	// DefaultAuditLimit is how many audit events the audit page shows.
	DefaultAuditLimit = 200
	// DefaultMaxBody bounds a JSON request body.
	DefaultMaxBody = 64 << 10
	// MaxReason bounds a denial's reason, in bytes.
	MaxReason = 2000
	// MaxLabel bounds a passkey's label, in bytes.
	MaxLabel = 64
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets/app.js
var appJS []byte

//go:embed assets/style.css
var styleCSS string

// Options configure the pages. Every field has a default.
type Options struct {
	// Origins are the origins the pages are served at, such as
	// "http://localhost:7480": requests must name one of their hosts and
	// every POST must carry one of them as its Origin header. Default:
	// the origins of the node's WebAuthn configuration (web.origins).
	Origins []string
	// Logger receives the handler's records (component=web); the default
	// discards.
	Logger *slog.Logger
	// Refresh is how often the pending list refreshes itself in the
	// browser; default DefaultRefresh, at least 500 ms.
	Refresh time.Duration
	// AuditLimit is how many audit events the audit page shows; default
	// DefaultAuditLimit.
	AuditLimit int
	// MaxBody bounds a JSON request body in bytes; default DefaultMaxBody,
	// at least 4 KiB.
	MaxBody int64
	// Agents are VXP's outside agents (node/vxp's Server): the /agents
	// page lists them and revokes their grants, the /device page names
	// an agent by the name it gave itself. Nil: the node serves no VXP
	// and the /agents page says so.
	Agents node.AgentBook
	// GrantTTL is how long a grant approved on /device lasts (VXP's
	// grant lifetime), for the page to say; zero: the page names the
	// node's VXP settings instead.
	GrantTTL time.Duration
}

// handler serves the pages of one node.
type handler struct {
	n       *node.Node
	o       Options
	log     *slog.Logger
	origins []string
	hosts   map[string]string // allowed Host (lower case) -> its origin
	ports   map[string]string // port of an origin on localhost -> that origin
	csp     string
	pages   map[string]*template.Template
	mux     *http.ServeMux
}

// New returns the handler serving n's pages. It validates opts and parses
// the embedded templates; it does no I/O and starts no goroutine, and n
// may be started later.
func New(n *node.Node, opts Options) (http.Handler, error) {
	if n == nil {
		return nil, errors.New("web: nil node")
	}
	if len(opts.Origins) == 0 {
		opts.Origins = n.Gate().WebAuthnConfig().Origins
	}
	if len(opts.Origins) == 0 { // the node is not started yet
		opts.Origins = n.Config().WebAuthn.Origins
	}
	if len(opts.Origins) == 0 {
		return nil, errors.New("web: Origins: none given and the node's WebAuthn configuration names none")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Refresh == 0 {
		opts.Refresh = DefaultRefresh
	}
	if opts.Refresh < 500*time.Millisecond {
		return nil, fmt.Errorf("web: Refresh: %v is under 500ms", opts.Refresh)
	}
	if opts.AuditLimit == 0 {
		opts.AuditLimit = DefaultAuditLimit
	}
	if opts.AuditLimit < 0 {
		return nil, fmt.Errorf("web: AuditLimit: %d is negative", opts.AuditLimit)
	}
	if opts.MaxBody == 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.GrantTTL < 0 {
		return nil, fmt.Errorf("web: GrantTTL: %v is negative", opts.GrantTTL)
	}
	if opts.MaxBody < 4<<10 {
		return nil, fmt.Errorf("web: MaxBody: %d bytes is under 4 KiB", opts.MaxBody)
	}
	h := &handler{
		n: n, o: opts, log: opts.Logger.With("component", "web"),
		hosts: map[string]string{}, ports: map[string]string{},
	}
	for _, o := range opts.Origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("web: Origins: %q is not scheme://host[:port]", o)
		}
		h.origins = append(h.origins, o)
		h.hosts[strings.ToLower(u.Host)] = o
		if u.Hostname() == "localhost" {
			port := u.Port()
			if port == "" {
				port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
			}
			h.ports[port] = o
		}
	}
	sum := sha256.Sum256([]byte(styleCSS))
	h.csp = "default-src 'none'; script-src 'self'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
	h.pages = map[string]*template.Template{}
	for _, name := range []string{"pending", "approval", "passkeys", "audit", "consent", "error", "escalations", "escalation", "card", "device", "agents"} {
		t, err := template.ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", name, err)
		}
		h.pages[name] = t
	}
	h.routes()
	return h, nil
}

// The routes: pages (GET) and the JSON endpoints their script calls
// (POST).
const (
	routePending       = "GET /{$}"
	routePendingList   = "GET /fragments/pending"
	routeApproval      = "GET /approvals/{id}"
	routePasskeys      = "GET /passkeys"
	routeAudit         = "GET /audit"
	routeScript        = "GET /assets/app.js"
	routeApprovalBegin = "POST /api/approvals/{id}/options"
	routeApprovalDone  = "POST /api/approvals/{id}/finish"
	routeApprovalDeny  = "POST /api/approvals/{id}/deny"
	routePasskeyBegin  = "POST /api/passkeys/options"
	routePasskeyDone   = "POST /api/passkeys/finish"
	routeEscalations   = "GET /escalations"
	routeEscalation    = "GET /escalations/{nid}"
	routeAnswer        = "POST /api/escalations/{nid}/answer"
	routeCard          = "GET /card"
	routeSealCard      = "POST /api/card"
	routePasskeyRevoke = "POST /api/passkeys/{ref}/revoke"
)

func (h *handler) routes() {
	m := http.NewServeMux()
	m.HandleFunc(routePending, h.pendingPage)
	m.HandleFunc(routePendingList, h.pendingFragment)
	m.HandleFunc(routeApproval, h.approvalPage)
	m.HandleFunc(routePasskeys, h.passkeysPage)
	m.HandleFunc(routeAudit, h.auditPage)
	m.HandleFunc(routeScript, h.script)
	m.HandleFunc(routeApprovalBegin, h.approvalOptions)
	m.HandleFunc(routeApprovalDone, h.approvalFinish)
	m.HandleFunc(routeApprovalDeny, h.approvalDeny)
	m.HandleFunc(routePasskeyBegin, h.passkeyOptions)
	m.HandleFunc(routePasskeyDone, h.passkeyFinish)
	m.HandleFunc(routeConsent, h.consentPage)
	m.HandleFunc(routeConsentSet, h.consentSetState)
	m.HandleFunc(routeEscalations, h.escalationsPage)
	m.HandleFunc(routeEscalation, h.escalationPage)
	m.HandleFunc(routeAnswer, h.answer)
	m.HandleFunc(routeCard, h.cardPage)
	m.HandleFunc(routeSealCard, h.sealCard)
	m.HandleFunc(routePasskeyRevoke, h.revokePasskey)
	m.HandleFunc(routeDevice, h.devicePage)
	m.HandleFunc(routeAgents, h.agentsPage)
	m.HandleFunc(routeAgentRevoke, h.agentRevoke)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			h.refuse(w, r, http.StatusNotFound, "not_found", "no such endpoint")
			return
		}
		h.errorPage(w, r, http.StatusNotFound, "Not found", "There is no page at this address.")
	})
	h.mux = m
}

// ServeHTTP checks the Host of every request and the Origin and media
// type of every POST, sets the security headers, and routes.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", h.csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	if _, ok := h.hosts[strings.ToLower(r.Host)]; !ok {
		if to := h.loopbackRedirect(r); to != "" {
			http.Redirect(w, r, to, http.StatusPermanentRedirect)
			return
		}
		h.refuse(w, r, http.StatusMisdirectedRequest, "host_refused",
			"the pages answer only at "+strings.Join(h.origins, ", "))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if !h.sameOrigin(r) {
			h.refuse(w, r, http.StatusForbidden, "origin_refused", "a request that changes anything must come from the pages themselves")
			return
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			h.refuse(w, r, http.StatusUnsupportedMediaType, "unsupported_media_type", "the body must be application/json")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, h.o.MaxBody)
	}
	h.mux.ServeHTTP(w, r)
}

// sameOrigin reports whether a state-changing request comes from the
// pages: its Origin header is an allowed origin, and the browser's
// Sec-Fetch-Site, when sent, says same-origin.
func (h *handler) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || !slices.Contains(h.origins, o) {
		return false
	}
	s := r.Header.Get("Sec-Fetch-Site")
	return s == "" || s == "same-origin"
}

// loopbackRedirect returns where to send a GET that named a loopback IP
// address on the port of a localhost origin (the pages work only at
// localhost), or "".
func (h *handler) loopbackRedirect(r *http.Request) string {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return ""
	}
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		return ""
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil || !ip.IsLoopback() {
		return ""
	}
	o, ok := h.ports[port]
	if !ok {
		return ""
	}
	return o + r.URL.RequestURI()
}

// page is what the layout template renders.
type page struct {
	Title       string
	Nav         string
	CSS         template.CSS
	NodeName    string
	NodeAddress string
	Origin      string
	Next        string
	Body        any
}

func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.CSS = template.CSS(styleCSS)
	p.NodeName = h.n.Config().Name
	p.NodeAddress = h.n.Address().String()
	p.Origin = h.origins[0]
	if o, ok := h.hosts[strings.ToLower(r.Host)]; ok {
		p.Origin = o
	}
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		h.log.Error("render failed", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type errorBody struct{ Heading, Message string }

func (h *handler) errorPage(w http.ResponseWriter, r *http.Request, status int, heading, msg string) {
	h.render(w, r, status, "error", page{Title: heading, Body: errorBody{heading, msg}})
}

// timeText writes t for people, in UTC.
func timeText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func timeISO(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// pendingItem is one line of the pending list.
type pendingItem struct {
	ID, Title, Risk, ExpiresISO, ExpiresText string
}

type pendingBody struct {
	Pending       []pendingItem
	RefreshMillis int64
	Version       string
}

func (h *handler) pending() ([]pendingItem, string) {
	list := h.n.Gate().PendingApprovals()
	items := make([]pendingItem, 0, len(list))
	v := sha256.New()
	for _, p := range list {
		req := p.Request
		items = append(items, pendingItem{
			ID: req.RequestID, Title: p.Title, Risk: string(req.Context.Risk),
			ExpiresISO: timeISO(req.ExpiresAt), ExpiresText: timeText(req.ExpiresAt),
		})
		v.Write([]byte(req.RequestID + "\n"))
	}
	return items, hex.EncodeToString(v.Sum(nil)[:8])
}

func (h *handler) pendingPage(w http.ResponseWriter, r *http.Request) {
	items, version := h.pending()
	h.render(w, r, http.StatusOK, "pending", page{Title: "Pending approvals", Nav: "pending", Body: pendingBody{
		Pending: items, RefreshMillis: h.o.Refresh.Milliseconds(), Version: version,
	}})
}

// pendingFragment serves the pending list alone, for the page's refresh;
// X-Parley-Version changes when the set of requests does.
func (h *handler) pendingFragment(w http.ResponseWriter, r *http.Request) {
	items, version := h.pending()
	var buf bytes.Buffer
	if err := h.pages["pending"].ExecuteTemplate(&buf, "pending-list", items); err != nil {
		h.log.Error("render failed", "page", "pending-list", "err", err)
		http.Error(w, "the list could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Parley-Version", version)
	_, _ = w.Write(buf.Bytes())
}

// validID reports whether id has the shape of a request id (1-128
// characters of A-Z a-z 0-9 _ . : -).
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// actBody is one act in plain words.
type actBody struct {
	ID, Title, Risk, Reason, IntentHash string
	ExpiresISO, ExpiresText             string
	Lines                               []node.PlainLine
	RequestJSON                         string
}

// nextPages are where the approval page may send the browser once the
// request is decided.
var nextPages = []string{"/", "/passkeys", "/card", "/escalations"}

func (h *handler) approvalPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	p, ok := h.lookup(id)
	if !ok {
		h.errorPage(w, r, http.StatusNotFound, "Not pending",
			"No request with this id is waiting for a decision: it was decided, it expired, or it never existed.")
		return
	}
	req := p.Request
	raw, err := json.MarshalIndent(req, "", "  ")
	if err != nil {
		h.log.Error("request does not encode", "request", id, "err", err)
		raw = nil
	}
	next := r.URL.Query().Get("next")
	if !slices.Contains(nextPages, next) && !escalationPath(next) {
		next = ""
	}
	h.render(w, r, http.StatusOK, "approval", page{Title: p.Title, Nav: "pending", Next: next, Body: actBody{
		ID: req.RequestID, Title: p.Title, Risk: string(req.Context.Risk), Reason: req.Context.Reason,
		IntentHash: req.IntentHash, ExpiresISO: timeISO(req.ExpiresAt), ExpiresText: timeText(req.ExpiresAt),
		Lines: p.Lines, RequestJSON: string(raw),
	}})
}

// lookup returns the pending approval id, if it is one.
func (h *handler) lookup(id string) (node.PendingApproval, bool) {
	if !validID(id) {
		return node.PendingApproval{}, false
	}
	p, err := h.n.Gate().PendingApproval(id)
	if err != nil {
		return node.PendingApproval{}, false
	}
	return p, true
}

// passkeyItem is one registered passkey.
type passkeyItem struct {
	Label, RegisteredISO, RegisteredText, Kind, Ref string
	RevokedISO, RevokedText                         string
	SignCount                                       uint32
}

type passkeysBody struct {
	First    bool
	Passkeys []passkeyItem
	// Revocable is true while more than one passkey can approve: a
	// revocation is approved by another one.
	Revocable bool
}

func (h *handler) passkeysPage(w http.ResponseWriter, r *http.Request) {
	creds, err := h.n.Gate().Passkeys(r.Context())
	if err != nil {
		h.log.Warn("passkeys unavailable", "err", err)
		h.errorPage(w, r, http.StatusServiceUnavailable, "Passkeys unavailable", "The node could not list its passkeys: "+err.Error())
		return
	}
	items := make([]passkeyItem, 0, len(creds))
	usable := 0
	for _, c := range creds {
		if !c.Revoked() && !c.Cloned() {
			usable++
		}
	}
	for _, c := range creds {
		kind := "passkey"
		if c.Software {
			kind = "software key"
		}
		if c.Cloned() {
			kind += " (flagged as cloned: approves nothing)"
		}
		label := c.Label
		if label == "" {
			label = "(unnamed)"
		}
		it := passkeyItem{
			Label: label, RegisteredISO: timeISO(c.RegisteredAt), RegisteredText: timeText(c.RegisteredAt),
			Kind: kind, Ref: c.Ref(), SignCount: c.WebAuthn.Authenticator.SignCount,
		}
		if c.Revoked() {
			it.RevokedISO, it.RevokedText = timeISO(c.RevokedAt), timeText(c.RevokedAt)
		}
		items = append(items, it)
	}
	h.render(w, r, http.StatusOK, "passkeys", page{Title: "Passkeys", Nav: "passkeys", Body: passkeysBody{
		First: len(approval.Active(creds)) == 0, Passkeys: items, Revocable: usable > 1,
	}})
}

// auditRow is one audit event.
type auditRow struct {
	AtISO, AtText, Event, Act, Target, Decision, Method, CredentialRef, Code, IntentHash string
	Software                                                                             bool
}

// Short returns the first 16 digits of the intent hash; the page shows the
// whole hash on hover.
func (r auditRow) Short() string {
	if len(r.IntentHash) > 16 {
		return r.IntentHash[:16] + "…"
	}
	return r.IntentHash
}

type auditBody struct {
	Events []auditRow
	Limit  int
	More   bool
}

func (h *handler) auditPage(w http.ResponseWriter, r *http.Request) {
	events, err := h.n.Gate().AuditTrail(r.Context(), h.o.AuditLimit+1)
	if err != nil {
		h.log.Warn("audit trail unavailable", "err", err)
		h.errorPage(w, r, http.StatusServiceUnavailable, "Audit trail unavailable", "The node could not read its audit trail: "+err.Error())
		return
	}
	more := len(events) > h.o.AuditLimit
	if more {
		events = events[:h.o.AuditLimit]
	}
	rows := make([]auditRow, 0, len(events))
	for _, e := range events {
		act := e.Tool
		if act == "" {
			act = e.Operation
		}
		rows = append(rows, auditRow{
			AtISO: timeISO(e.At), AtText: timeText(e.At), Event: string(e.Event), Act: act, Target: e.Target,
			Decision: string(e.Decision), Method: e.Method, CredentialRef: e.CredentialRef, Software: e.Software,
			Code: string(e.Code), IntentHash: e.IntentHash,
		})
	}
	h.render(w, r, http.StatusOK, "audit", page{Title: "Audit trail", Nav: "audit", Body: auditBody{
		Events: rows, Limit: h.o.AuditLimit, More: more,
	}})
}

func (h *handler) script(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	_, _ = w.Write(appJS)
}

// The JSON endpoints.

// apiError is the body of every refusal of a JSON endpoint.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// RequestID and Session are set on approval_pending: the approval
	// request a further passkey's registration waits for, and the
	// registration session to continue once it is approved.
	RequestID string `json:"requestId,omitempty"`
	Session   string `json:"session,omitempty"`
}

func (h *handler) writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		h.log.Error("answer does not encode", "err", err)
		http.Error(w, `{"code":"internal","message":"the answer could not be encoded"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// refuse answers a refusal as JSON {"code", "message"}.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	h.log.Debug("request refused", "method", r.Method, "path", r.URL.Path, "status", status, "code", code)
	h.writeJSON(w, status, apiError{Code: code, Message: msg})
}

// decode reads a strict JSON body into v with the project's strict
// decoder (strictjson): a member named twice, a name in another case,
// unknown members, invalid UTF-8 and trailing data are refused.
func (h *handler) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(r.Body)
	if err == nil {
		err = strictjson.Unmarshal(b, v)
	}
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.refuse(w, r, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the body is over %d bytes", h.o.MaxBody))
			return false
		}
		h.refuse(w, r, http.StatusBadRequest, "bad_json", "the body is not the JSON this endpoint takes: "+err.Error())
		return false
	}
	return true
}

// rawJSON reads a body that must be one JSON object, kept as sent.
func (h *handler) rawJSON(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.refuse(w, r, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the body is over %d bytes", h.o.MaxBody))
		} else {
			h.refuse(w, r, http.StatusBadRequest, "bad_json", "the body could not be read")
		}
		return nil, false
	}
	b = bytes.TrimSpace(b)
	if strictjson.Check(b) != nil || len(b) == 0 || b[0] != '{' {
		h.refuse(w, r, http.StatusBadRequest, "bad_json", "the body is not a JSON object")
		return nil, false
	}
	return b, true
}

// statusOf maps the codes the node's approval methods refuse with to HTTP
// statuses; any other coded refusal is 422 and an uncoded failure 500.
var statusOf = map[string]int{
	string(node.CodeBadArgument):            http.StatusBadRequest,
	string(node.CodeNotStarted):             http.StatusServiceUnavailable,
	string(node.CodeStoreFailed):            http.StatusServiceUnavailable,
	string(node.CodeApprovalExpired):        http.StatusConflict,
	string(node.CodeAlreadyConsumed):        http.StatusConflict,
	string(approval.CodeInvalidRequest):     http.StatusBadRequest,
	string(approval.CodeRequestExpired):     http.StatusConflict,
	string(approval.CodeAlreadyApproved):    http.StatusConflict,
	string(approval.CodeCredentialExists):   http.StatusConflict,
	string(approval.CodeCredentialCloned):   http.StatusForbidden,
	string(approval.CodeNotAuthorized):      http.StatusForbidden,
	string(approval.CodeTokenInvalid):       http.StatusForbidden,
	string(approval.CodeTokenExpired):       http.StatusForbidden,
	string(approval.CodeTokenUsed):          http.StatusForbidden,
	string(approval.CodeAlreadyRevoked):     http.StatusConflict,
	string(approval.CodeVerificationFailed): http.StatusForbidden,
	string(approval.CodeCredentialUnknown):  http.StatusForbidden,
	codeApprovalPending:                     http.StatusConflict,
}

// codeOf returns the stable code of err: the node's, else the approval
// package's, else "".
func codeOf(err error) string {
	if c := node.CodeOf(err); c != "" {
		return string(c)
	}
	return string(approval.CodeOf(err))
}

// fail answers err from a node method.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := codeOf(err)
	status, ok := statusOf[code]
	switch {
	case ok:
	case code != "":
		status = http.StatusUnprocessableEntity
	default:
		code, status = "internal", http.StatusInternalServerError
		h.log.Warn("approval call failed", "path", r.URL.Path, "err", err)
	}
	h.refuse(w, r, status, code, err.Error())
}

// pendingOr404 returns the pending approval named by the path, or answers
// 404.
func (h *handler) pendingOr404(w http.ResponseWriter, r *http.Request) (node.PendingApproval, bool) {
	p, ok := h.lookup(r.PathValue("id"))
	if !ok {
		h.refuse(w, r, http.StatusNotFound, "unknown_request", "no request with this id is waiting for a decision")
	}
	return p, ok
}

func (h *handler) approvalOptions(w http.ResponseWriter, r *http.Request) {
	p, ok := h.pendingOr404(w, r)
	if !ok {
		return
	}
	if !h.decode(w, r, &struct{}{}) {
		return
	}
	opts, err := h.n.Gate().ApprovalOptions(r.Context(), p.Request.RequestID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, opts)
}

// decisionAnswer is the answer to an approval or a denial.
type decisionAnswer struct {
	RequestID string `json:"requestId"`
	Decision  string `json:"decision"`
	Message   string `json:"message"`
}

func (h *handler) approvalFinish(w http.ResponseWriter, r *http.Request) {
	p, ok := h.pendingOr404(w, r)
	if !ok {
		return
	}
	body, ok := h.rawJSON(w, r)
	if !ok {
		return
	}
	rec, err := h.n.Gate().FinishApproval(r.Context(), p.Request.RequestID, body)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info("approved", "request", rec.RequestID, "intent_hash", rec.IntentHash)
	h.writeJSON(w, http.StatusOK, decisionAnswer{
		RequestID: rec.RequestID, Decision: string(rec.Decision),
		Message: "Approved with your passkey. The node goes on with this act.",
	})
}

type denyBody struct {
	Reason string `json:"reason"`
}

func (h *handler) approvalDeny(w http.ResponseWriter, r *http.Request) {
	p, ok := h.pendingOr404(w, r)
	if !ok {
		return
	}
	var b denyBody
	if !h.decode(w, r, &b) {
		return
	}
	b.Reason = strings.TrimSpace(b.Reason)
	if len(b.Reason) > MaxReason {
		h.refuse(w, r, http.StatusBadRequest, "bad_argument", fmt.Sprintf("the reason is over %d bytes", MaxReason))
		return
	}
	rec, err := h.n.Gate().DenyApproval(r.Context(), p.Request.RequestID, b.Reason)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info("denied", "request", rec.RequestID, "intent_hash", rec.IntentHash)
	h.writeJSON(w, http.StatusOK, decisionAnswer{
		RequestID: rec.RequestID, Decision: string(rec.Decision),
		Message: "Denied. The node does not perform this act.",
	})
}

// codeApprovalPending is the code of a further passkey's registration
// that waits for an approval by an existing one.
const codeApprovalPending = "approval_pending"

// passkeyBegin starts a registration: Token is the enrolment token of the
// first passkey, "" for a further one, or the session of a registration
// whose approval was given, to go on with it.
type passkeyBegin struct {
	Token string `json:"token"`
	Label string `json:"label"`
}

// passkeyOptions is the answer that starts a registration.
type passkeyOptions struct {
	Session string `json:"session"`
	Options any    `json:"options"`
}

func (h *handler) passkeyOptions(w http.ResponseWriter, r *http.Request) {
	var b passkeyBegin
	if !h.decode(w, r, &b) {
		return
	}
	b.Token, b.Label = strings.TrimSpace(b.Token), strings.TrimSpace(b.Label)
	if len(b.Label) > MaxLabel {
		h.refuse(w, r, http.StatusBadRequest, "bad_argument", fmt.Sprintf("the label is over %d bytes", MaxLabel))
		return
	}
	opts, session, err := h.n.Gate().BeginPasskey(r.Context(), b.Token, b.Label)
	if err != nil {
		var pr *node.PendingRegistration
		if errors.As(err, &pr) {
			h.writeJSON(w, http.StatusConflict, apiError{
				Code: codeApprovalPending, Message: "an existing passkey must approve this registration first",
				RequestID: pr.RequestID, Session: pr.Session,
			})
			return
		}
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, passkeyOptions{Session: session, Options: opts})
}

type passkeyFinishBody struct {
	Session    string          `json:"session"`
	Credential json.RawMessage `json:"credential"`
}

// registered is the answer to a finished registration.
type registered struct {
	Label string `json:"label"`
	Ref   string `json:"ref"`
}

func (h *handler) passkeyFinish(w http.ResponseWriter, r *http.Request) {
	var b passkeyFinishBody
	if !h.decode(w, r, &b) {
		return
	}
	if b.Session == "" || len(b.Credential) == 0 || b.Credential[0] != '{' {
		h.refuse(w, r, http.StatusBadRequest, "bad_argument", "session and credential (a JSON object) are required")
		return
	}
	c, err := h.n.Gate().FinishPasskey(r.Context(), b.Session, b.Credential)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info("passkey registered", "ref", c.Ref(), "software", c.Software)
	h.writeJSON(w, http.StatusOK, registered{Label: c.Label, Ref: c.Ref()})
}
