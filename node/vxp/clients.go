package vxp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/parleynet/parley/strictjson"
	pure "github.com/parleynet/parley/vxp"
)

// Bounds of Client ID Metadata Documents.
const (
	// MaxClientIDLen bounds a client_id URL.
	MaxClientIDLen = 255
	// MaxClientDocument bounds a client document and its jwks_uri set.
	MaxClientDocument = 64 << 10
	// ClientFetchTimeout bounds one fetch.
	ClientFetchTimeout = 5 * time.Second
	// clientCacheTTL and clientCacheSize bound the cache of documents.
	clientCacheTTL  = 5 * time.Minute
	clientCacheSize = 256
)

// agentClient is an agent as its Client ID Metadata Document describes it.
type agentClient struct {
	ID   string
	Name string
	Keys []pure.PublicKey
}

// clientDocument is the part of a Client ID Metadata Document the issuer
// reads; other members (redirect_uris, logo_uri ...) are ignored.
type clientDocument struct {
	ClientID   *string         `json:"client_id"`
	ClientName *string         `json:"client_name"`
	JWKS       json.RawMessage `json:"jwks"`
	JWKSURI    *string         `json:"jwks_uri"`
	AuthMethod *string         `json:"token_endpoint_auth_method"`
}

// errClientMetadata is invalid_client_metadata: the document of client id
// cannot be fetched or does not hold.
func errClientMetadata(id, format string, args ...any) error {
	return &pure.Error{Code: pure.CodeBadClientMetadata, Field: id, Msg: fmt.Sprintf(format, args...)}
}

// checkClientURL checks that raw can be a client_id or a jwks_uri: an
// absolute https URL of at most MaxClientIDLen bytes with a path, no user,
// fragment or dot segment (http only on a loopback host with
// AllowInsecureLoopback). It returns invalid_client.
func (s *Server) checkClientURL(raw string) error {
	bad := func(reason string) error {
		return &pure.AuthError{Code: pure.CodeInvalidClient, Reason: "client_id", Err: errors.New(reason)}
	}
	if raw == "" || len(raw) > MaxClientIDLen {
		return bad(fmt.Sprintf("a client_id is a URL of 1 to %d bytes", MaxClientIDLen))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return bad("not an absolute URL")
	}
	switch {
	case u.User != nil:
		return bad("a client_id carries no user")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return bad("a client_id has no fragment")
	case u.Path == "" || u.Path == "/":
		return bad("a client_id has a path")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return bad("a client_id has no dot segment")
		}
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && s.cfg.AllowInsecureLoopback && isLoopbackHost(u.Hostname()):
	default:
		return bad("a client_id is an https URL (http only on loopback with vxp.allow_insecure_loopback)")
	}
	return nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// client returns the agent id's document: from the cache, or fetched
// (checkClientURL; no redirect, ClientFetchTimeout, MaxClientDocument;
// strict JSON syntax; client_id equal to id character by character;
// token_endpoint_auth_method, if named, private_key_jwt; exactly one of
// jwks and jwks_uri, whose set is fetched the same way and must be ES256
// keys). A bad client_id is invalid_client; a document that does not hold
// is invalid_client wrapping invalid_client_metadata.
func (s *Server) client(ctx context.Context, id string) (*agentClient, error) {
	if err := s.checkClientURL(id); err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	if c, ok := s.auth.clients.get(id, now); ok {
		return c, nil
	}
	c, err := s.fetchClient(ctx, id)
	if err != nil {
		return nil, &pure.AuthError{Code: pure.CodeInvalidClient, Reason: "client_metadata", Err: err}
	}
	s.auth.clients.put(c, now)
	return c, nil
}

func (s *Server) fetchClient(ctx context.Context, id string) (*agentClient, error) {
	raw, err := s.fetchBounded(ctx, id)
	if err != nil {
		return nil, errClientMetadata(id, "%v", err)
	}
	if err := strictjson.Check(raw); err != nil {
		return nil, errClientMetadata(id, "%v", err)
	}
	var d clientDocument
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, errClientMetadata(id, "not a JSON object of client metadata: %v", err)
	}
	switch {
	case d.ClientID == nil:
		return nil, errClientMetadata(id, "no client_id member")
	case *d.ClientID != id:
		return nil, errClientMetadata(id, "client_id %q is not the document's URL", *d.ClientID)
	case d.AuthMethod != nil && *d.AuthMethod != pure.AuthPrivateKeyJWT:
		return nil, errClientMetadata(id, "token_endpoint_auth_method %q: private_key_jwt only", *d.AuthMethod)
	case len(d.JWKS) != 0 && d.JWKSURI != nil:
		return nil, errClientMetadata(id, "both jwks and jwks_uri")
	case len(d.JWKS) == 0 && d.JWKSURI == nil:
		return nil, errClientMetadata(id, "neither jwks nor jwks_uri")
	}
	set := []byte(d.JWKS)
	if d.JWKSURI != nil {
		if err := s.checkClientURL(*d.JWKSURI); err != nil {
			return nil, errClientMetadata(id, "jwks_uri: %v", errors.Unwrap(err))
		}
		if set, err = s.fetchBounded(ctx, *d.JWKSURI); err != nil {
			return nil, errClientMetadata(id, "jwks_uri: %v", err)
		}
	}
	keys, err := pure.ParseJWKS(set)
	if err != nil {
		return nil, errClientMetadata(id, "jwks: %v", err)
	}
	c := &agentClient{ID: id, Keys: keys}
	if d.ClientName != nil {
		c.Name = *d.ClientName
	}
	return c, nil
}

// fetchBounded GETs u without following redirects, within
// ClientFetchTimeout, and returns a 200 body of at most MaxClientDocument
// bytes.
func (s *Server) fetchBounded(ctx context.Context, u string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, ClientFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.fetcher().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, fmt.Errorf("%s answered a redirect (%d): redirects are not followed", u, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %d", u, resp.StatusCode)
	}
	if resp.ContentLength > MaxClientDocument {
		return nil, fmt.Errorf("%s is over %d bytes", u, MaxClientDocument)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxClientDocument+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxClientDocument {
		return nil, fmt.Errorf("%s is over %d bytes", u, MaxClientDocument)
	}
	return b, nil
}

// fetcher returns the HTTP client documents are fetched with: Config's
// (made not to follow redirects), or one that also refuses to dial a
// private, link-local or unspecified address, and loopback but with
// AllowInsecureLoopback (no fetch of the node's own network on an agent's
// say-so).
func (s *Server) fetcher() *http.Client {
	if s.cfg.HTTPClient != nil {
		c := *s.cfg.HTTPClient
		c.CheckRedirect = noRedirect
		if c.Timeout <= 0 || c.Timeout > ClientFetchTimeout {
			c.Timeout = ClientFetchTimeout
		}
		return &c
	}
	allowLoopback := s.cfg.AllowInsecureLoopback
	d := &net.Dialer{Timeout: ClientFetchTimeout, Control: func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip := net.ParseIP(host)
		switch {
		case ip == nil:
			return fmt.Errorf("vxp: dial %s: not an IP address", address)
		case ip.IsLoopback() && allowLoopback:
			return nil
		case ip.IsLoopback(), ip.IsPrivate(), ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast(), ip.IsUnspecified(), ip.IsMulticast():
			return fmt.Errorf("vxp: dial %s: not a public address", address)
		}
		return nil
	}}
	return &http.Client{
		Timeout:       ClientFetchTimeout,
		CheckRedirect: noRedirect,
		Transport: &http.Transport{
			DialContext:            d.DialContext,
			TLSHandshakeTimeout:    ClientFetchTimeout,
			ResponseHeaderTimeout:  ClientFetchTimeout,
			MaxResponseHeaderBytes: 16 << 10,
			DisableKeepAlives:      true,
		},
	}
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// clientCache holds fetched documents for a while, at most max of them;
// the oldest goes first when it is full.
type clientCache struct {
	mu      sync.Mutex
	max     int
	ttl     time.Duration
	entries map[string]clientEntry
}

type clientEntry struct {
	c  *agentClient
	at time.Time
}

func newClientCache(max int, ttl time.Duration) *clientCache {
	return &clientCache{max: max, ttl: ttl, entries: map[string]clientEntry{}}
}

func (cc *clientCache) with(f func()) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	f()
}

func (cc *clientCache) get(id string, now time.Time) (c *agentClient, ok bool) {
	cc.with(func() {
		e, found := cc.entries[id]
		if found && now.Sub(e.at) < cc.ttl && !now.Before(e.at) {
			c, ok = e.c, true
		}
	})
	return c, ok
}

func (cc *clientCache) put(c *agentClient, now time.Time) {
	cc.with(func() {
		if _, ok := cc.entries[c.ID]; !ok && len(cc.entries) >= cc.max {
			oldest := ""
			for id, e := range cc.entries {
				if oldest == "" || e.at.Before(cc.entries[oldest].at) {
					oldest = id
				}
			}
			delete(cc.entries, oldest)
		}
		cc.entries[c.ID] = clientEntry{c: c, at: now}
	})
}

func (cc *clientCache) len() (n int) {
	cc.with(func() { n = len(cc.entries) })
	return n
}
