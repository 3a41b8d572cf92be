package vxp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	pure "github.com/parleynet/parley/vxp"
)

// Config is VXP's side of a node (the vxp.* settings, docs/config.md).
type Config struct {
	// PublicURL is the node's public VXP base URL (vxp.public_url): an
	// https origin, or http on loopback with AllowInsecureLoopback.
	PublicURL string
	// AllowInsecureLoopback lets PublicURL and agents' client_id URLs be
	// http on a loopback host (devnet and tests only).
	AllowInsecureLoopback bool
	// Organization names the principal in vxp.json.
	Organization string
	// Capabilities are the operations offered (nil: vxp.DefaultCapabilities).
	Capabilities []string
	// Limits are the proposals' limits (zero: vxp.DefaultLimits).
	Limits pure.Limits
	// WebURL is the principal's pages (verification_uri is WebURL/device).
	WebURL string
	// DataDir holds the issuer's key (IssuerKeyFile).
	DataDir string
	// TokenTTL, GrantTTL and DeviceTTL bound an access token, a grant and
	// a device code; DeviceInterval is the device flow's polling interval.
	TokenTTL, GrantTTL, DeviceTTL, DeviceInterval time.Duration
	// RatePerMinute bounds the token and device endpoints' calls per
	// remote address (with a burst of the same size).
	RatePerMinute int
	// MaxBody bounds a request body (default 64 KiB).
	MaxBody int64
	// HTTPClient fetches Client ID Metadata Documents (nil: a client
	// without redirects, bounded in time).
	HTTPClient *http.Client

	Logger *slog.Logger
	Now    func() time.Time
	Rand   io.Reader
}

// The defaults of Config's durations and bounds.
const (
	DefaultTokenTTL       = 10 * time.Minute
	DefaultGrantTTL       = 30 * 24 * time.Hour
	DefaultDeviceTTL      = 10 * time.Minute
	DefaultDeviceInterval = 5 * time.Second
	DefaultRatePerMinute  = 60
	DefaultMaxBody        = 64 << 10
)

// withDefaults returns c with every zero member at its default.
func (c Config) withDefaults() Config {
	if c.Limits == (pure.Limits{}) {
		c.Limits = pure.DefaultLimits()
	}
	if c.TokenTTL <= 0 {
		c.TokenTTL = DefaultTokenTTL
	}
	if c.GrantTTL <= 0 {
		c.GrantTTL = DefaultGrantTTL
	}
	if c.DeviceTTL <= 0 {
		c.DeviceTTL = DefaultDeviceTTL
	}
	if c.DeviceInterval <= 0 {
		c.DeviceInterval = DefaultDeviceInterval
	}
	if c.RatePerMinute <= 0 {
		c.RatePerMinute = DefaultRatePerMinute
	}
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	return c
}

// Server is VXP's HTTP side of one node: discovery, the OAuth issuer and
// the native endpoints, over the node's ledger.
type Server struct {
	b        Backend
	cfg      Config
	log      *slog.Logger
	base     *url.URL
	issuer   string
	endpoint string
	doc      pure.Document
	md       pure.Metadata
	store    *Store
	mux      *http.ServeMux

	auth *authState // tokens.go, oauth.go, device.go
	mgr  *manager   // manager.go

	// authHook, when set (by this package's tests), replaces the
	// authentication of resource calls.
	authHook func(r *http.Request) (*Caller, error)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns the VXP server of node b. b must be started before Start.
func New(b Backend, cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	base, err := pure.Base(cfg.PublicURL, cfg.AllowInsecureLoopback)
	if err != nil {
		return nil, err
	}
	doc, err := pure.BuildDocument(pure.DocumentConfig{
		BaseURL: cfg.PublicURL, Name: cfg.Organization, Capabilities: cfg.Capabilities,
		Limits: cfg.Limits, AllowInsecureLoopback: cfg.AllowInsecureLoopback,
	})
	if err != nil {
		return nil, err
	}
	for _, c := range doc.Capabilities {
		if _, ok := operations[c.ID]; !ok {
			// The catalogue names it, but nothing here runs it yet:
			// vxp.json must never offer it.
			return nil, &pure.Error{Code: pure.CodeUnknownCapability, Field: "vxp.capabilities", Msg: fmt.Sprintf("%q is in VXP's catalogue but this node does not run it yet (it runs %s)", c.ID, strings.Join(runnable(), ", "))}
		}
	}
	s := &Server{b: b, cfg: cfg, log: cfg.Logger.With("component", "vxp"), base: base, doc: doc}
	s.issuer = doc.Issuer
	s.endpoint = doc.Endpoint
	s.md = pure.BuildMetadata(s.issuer)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mux = http.NewServeMux()
	s.discoveryRoutes(s.mux)
	s.oauthRoutes(s.mux)
	s.resourceRoutes(s.mux)
	return s, nil
}

// runnable returns the operations the request manager runs, in the
// catalogue's order.
func runnable() []string {
	var out []string
	for _, o := range pure.Catalogue {
		if _, ok := operations[o.ID]; ok {
			out = append(out, o.ID)
		}
	}
	return out
}

// Start loads the grants and requests from the node's ledger, opens the
// issuer's key and resumes the requests left open (a restart in
// pending_verification reads back again).
func (s *Server) Start(ctx context.Context) error {
	led := s.b.Ledger()
	if led == nil {
		return &pure.Error{Code: pure.CodeUnavailable, Msg: "the node is not started"}
	}
	s.store = NewStore(led)
	if err := s.store.Load(ctx); err != nil {
		return err
	}
	var err error
	if s.auth, err = newAuthState(s); err != nil {
		return err
	}
	if s.mgr, err = newManager(s); err != nil {
		return err
	}
	return s.mgr.resume(ctx)
}

// Close stops the request manager's work and waits for it.
func (s *Server) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

// spawn runs f on a goroutine the server owns until Close.
func (s *Server) spawn(f func(ctx context.Context)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f(s.ctx)
	}()
}

// Store returns the server's store (for the principal's pages and the
// node's API: agents, grants, requests).
func (s *Server) Store() *Store { return s.store }

// Document returns vxp.json as the server serves it.
func (s *Server) Document() pure.Document { return s.doc }

// Metadata returns the issuer's RFC 8414 metadata.
func (s *Server) Metadata() pure.Metadata { return s.md }

// Issuer and Endpoint return the issuer and the native endpoint.
func (s *Server) Issuer() string   { return s.issuer }
func (s *Server) Endpoint() string { return s.endpoint }

// ServeHTTP checks the Host (organization.domain, and the port the public
// URL names) and routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := s.checkHost(r.Host); err != nil {
		writeError(w, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	s.mux.ServeHTTP(w, r)
}

// checkHost refuses a Host other than the public URL's (wrong_host).
func (s *Server) checkHost(host string) error {
	want := s.base.Host
	h := strings.ToLower(host)
	if h == want {
		return nil
	}
	// A default port may be left out.
	if hn, port, err := net.SplitHostPort(want); err == nil && h == hn && ((s.base.Scheme == "https" && port == "443") || (s.base.Scheme == "http" && port == "80")) {
		return nil
	}
	return &pure.Error{Code: pure.CodeWrongHost, Field: "Host", Msg: fmt.Sprintf("%q is not %s", host, want)}
}

// discoveryRoutes serves vxp.json and the issuer's metadata.
func (s *Server) discoveryRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+pure.DocumentPath, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.doc)
	})
	mdURL, err := pure.MetadataURL(s.issuer)
	if err != nil {
		return
	}
	u, err := url.Parse(mdURL)
	if err != nil {
		return
	}
	mux.HandleFunc("GET "+u.Path, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.md)
	})
}

// Caller is who makes a resource call: the agent's client_id, the DPoP
// key its token is bound to, the principal's subject and the grants the
// token carries that are still in force.
type Caller struct {
	ClientID   string
	ClientName string
	JKT        string
	Subject    string
	TokenID    string
	Grants     []Grant
}

// Details returns the authorization details of every grant c carries.
func (c *Caller) Details() []pure.Detail {
	var out []pure.Detail
	for _, g := range c.Grants {
		out = append(out, g.Details...)
	}
	return out
}

// errUnknownRequest is unknown_request for id.
func errUnknownRequest(id string) error {
	return &pure.Error{Code: pure.CodeUnknownRequest, Field: "request_id", Msg: fmt.Sprintf("%q names no request", id)}
}

// refusal returns the code of err (a *vxp.AuthError's first, then a
// *vxp.Error's), or false for an error that is no refusal.
func refusal(err error) (pure.Code, bool) {
	var ae *pure.AuthError
	if errors.As(err, &ae) {
		return ae.Code, true
	}
	var e *pure.Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return "", false
}

// statusOf returns the HTTP status of a refusal's class.
func statusOf(err error) int {
	code, ok := refusal(err)
	if !ok {
		return http.StatusInternalServerError
	}
	switch code {
	case pure.CodeBodyTooLarge:
		return http.StatusRequestEntityTooLarge
	case pure.CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case pure.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	switch code.Class() {
	case "invalid":
		return http.StatusBadRequest
	case "unauthorized":
		return http.StatusUnauthorized
	case "forbidden":
		return http.StatusForbidden
	case "not_found":
		return http.StatusNotFound
	case "conflict":
		return http.StatusConflict
	case "rate_limited":
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// writeJSON writes v as JSON without HTML escaping.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// apiError is Parley's error body: {error: {code, message}}.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeError answers a resource call's refusal as Parley does; an error
// that is no refusal is an internal error whose text is not shown.
func writeError(w http.ResponseWriter, err error) {
	var e apiError
	if code, ok := refusal(err); ok {
		e.Error.Code, e.Error.Message = string(code), err.Error()
	} else {
		e.Error.Code, e.Error.Message = "internal", "internal error"
	}
	writeJSON(w, statusOf(err), e)
}

// oauthError is RFC 6749's error body.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

// writeOAuthError answers an OAuth endpoint's refusal as RFC 6749 (and
// RFC 8628, RFC 9449) do: 400, or 401 for invalid_client.
func writeOAuthError(w http.ResponseWriter, err error) {
	code, ok := refusal(err)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, oauthError{Error: "server_error"})
		return
	}
	status := http.StatusBadRequest
	switch code {
	case pure.CodeInvalidClient:
		status = http.StatusUnauthorized
	case pure.CodeRateLimited:
		status = http.StatusTooManyRequests
	case pure.CodeUnavailable:
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, oauthError{Error: string(code), Description: err.Error()})
}
