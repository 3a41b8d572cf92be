package api

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
)

// CodeBadAnswer is the code of an *Error the client makes itself when an
// error answer is not the API's JSON error body (a proxy's page, a server
// that is not a Parley node).
const CodeBadAnswer = "bad_answer"

// ErrUnreachable matches (errors.Is) every *TransportError: the node did
// not answer.
var ErrUnreachable = errors.New("api: cannot reach the node")

// Error is an error answer of the API: its HTTP status and the stable code
// and message of its ErrorBody. Class returns the class of its status, and
// errors.Is(err, &Error{Code: c}) is true for every *Error with code c,
// whatever the other fields of either (the one meaning Is has for the
// coded errors of every package of Parley). Callers match codes, never
// messages:
//
//	var e *api.Error
//	if errors.As(err, &e) && e.Code == string(node.CodeStateForbidden) { ... }
type Error struct {
	// Status is the answer's HTTP status.
	Status int
	// Code is the stable reason (node.Code's vocabulary and the API's own
	// Code* constants).
	Code string
	// Message describes the refusal for people.
	Message string
	// RetryAfter is the answer's Retry-After (a 429 rate_limited: when
	// the act may be tried again), 0 without one.
	RetryAfter time.Duration
}

// Error returns "api: <status> <code>: <message>".
func (e *Error) Error() string {
	s := fmt.Sprintf("api: %d %s", e.Status, e.Code)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Is makes errors.Is(err, &Error{Code: c}) match any *Error with code c,
// whatever its other fields (and the target's).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class the answer's status stands for (ClassConflict
// for a 409, ...), so that an answer of the API knows its class as the
// node's own error did; "" for a status no class answers (405, 501, a
// proxy's own).
func (e *Error) Class() string { return classOfStatus(e.Status) }

// TransportError is a call the node did not answer after the client's
// retries: the connection was refused, dropped or timed out. A POST may
// still have been performed when the connection dropped after the request
// was sent; repeating it with the same IdempotencyKey (WithIdempotencyKey)
// is safe, the node answers a key it has seen with its first answer.
type TransportError struct {
	// Method and URL name the request.
	Method, URL string
	// IdempotencyKey is the key the POST was sent with ("" for a GET).
	IdempotencyKey string
	// Attempts is how many times the request was tried.
	Attempts int
	// Err is the last attempt's error.
	Err error
}

// Error describes the failed call.
func (e *TransportError) Error() string {
	return fmt.Sprintf("api: cannot reach the node: %s %s (%d attempts): %v", e.Method, e.URL, e.Attempts, e.Err)
}

// Unwrap returns the last attempt's error.
func (e *TransportError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnreachable) match.
func (e *TransportError) Is(target error) bool { return target == ErrUnreachable }

// Client is the Go client of a node's API. Every method is one route of
// the route table; a refusal is an *Error, a node that cannot be reached a
// *TransportError. Every POST carries an Idempotency-Key, fresh for each
// call and the same on the client's own retries of that call, so a retried
// act is never performed twice. A Client is safe for concurrent use.
type Client struct {
	base    string // scheme://host[:port], no trailing slash
	auth    string // "Bearer <key>", or "" without a key
	hc      *http.Client
	retries int
	backoff time.Duration
	hook    func(route string, status int, body []byte)
}

// ClientOption configures a Client.
type ClientOption func(*Client) error

// WithHTTPClient makes the client send its requests with hc (the default
// is a client without an overall timeout: a gated act waits for its
// approval, an event stream stays open).
func WithHTTPClient(hc *http.Client) ClientOption {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("api: WithHTTPClient: nil client")
		}
		c.hc = hc
		return nil
	}
}

// WithRetries sets how many times a call is repeated after a connection
// error that came before any answer (default 3), and the first wait
// between attempts, doubled on each (default 200ms).
func WithRetries(n int, backoff time.Duration) ClientOption {
	return func(c *Client) error {
		if n < 0 || backoff <= 0 {
			return fmt.Errorf("api: WithRetries(%d, %s): want n >= 0 and a positive backoff", n, backoff)
		}
		c.retries, c.backoff = n, backoff
		return nil
	}
}

// WithAnswerHook calls f with the route and the exact status and body of
// every JSON answer the client reads (successes and refusals; not streams,
// bundles or files), before it is decoded. The CLI prints these bytes for
// --json.
func WithAnswerHook(f func(route string, status int, body []byte)) ClientOption {
	return func(c *Client) error {
		if f == nil {
			return errors.New("api: WithAnswerHook: nil function")
		}
		c.hook = f
		return nil
	}
}

// NewClient returns a client of the node API at baseURL (http://host:port;
// a trailing /v1, as the discovery document's endpoint has, is accepted)
// with the bearer key (the text of the data directory's api.key, without
// its line end). It does no I/O.
func NewClient(baseURL string, key []byte, opts ...ClientOption) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("api: base URL %q: want http://host:port", baseURL)
	}
	p := strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	if p != "" && p != "/" {
		return nil, fmt.Errorf("api: base URL %q: want http://host:port (the API lives under /v1 at its root)", baseURL)
	}
	for _, b := range key {
		if b <= ' ' || b > '~' {
			return nil, errors.New("api: the API key holds a space or a character that is not printable ASCII")
		}
	}
	c := &Client{base: u.Scheme + "://" + u.Host, hc: &http.Client{}, retries: 3, backoff: 200 * time.Millisecond}
	if len(key) > 0 {
		c.auth = "Bearer " + string(key)
	}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("api: NewClient: option %d is nil", i)
		}
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// BaseURL returns the node's base URL (scheme://host:port).
func (c *Client) BaseURL() string { return c.base }

type idemKey struct{}

// WithIdempotencyKey returns a context whose POST is sent with key instead
// of a fresh one: repeating a call that failed with a *TransportError (or
// one made by another process) with its key is safe. Use the context for
// one call: another request with the same key is refused with
// CodeIdempotencyReused.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idemKey{}, key)
}

// NewIdempotencyKey returns a fresh random key (128 bits, hex).
func NewIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// routePath fills the {name} segments of route's pattern with vals, in
// order, and returns the method and the path.
func routePath(route string, vals ...string) (string, string, error) {
	method, pattern, ok := strings.Cut(route, " ")
	if !ok {
		return "", "", fmt.Errorf("api: bad route %q", route)
	}
	segs := strings.Split(pattern, "/")
	i := 0
	for j, s := range segs {
		if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
			continue
		}
		if i >= len(vals) {
			return "", "", fmt.Errorf("api: route %q: no value for %s", route, s)
		}
		if vals[i] == "" {
			return "", "", fmt.Errorf("api: route %q: %s is empty", route, s)
		}
		segs[j] = url.PathEscape(vals[i])
		i++
	}
	if i != len(vals) {
		return "", "", fmt.Errorf("api: route %q takes %d values, got %d", route, i, len(vals))
	}
	return method, strings.Join(segs, "/"), nil
}

// call is one call of route: the request is built from vals (the path's
// values), query and in (JSON; a POST without a body sends {}), sent with
// retries on connection errors, and the answer is decoded into out (JSON),
// or copied to out when it is an io.Writer. It returns the answer's status.
func (c *Client) call(ctx context.Context, route string, vals []string, query url.Values, in, out any) error {
	method, path, err := routePath(route, vals...)
	if err != nil {
		return err
	}
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var body []byte
	key := ""
	if method == http.MethodPost {
		if in == nil {
			in = Empty{}
		}
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("api: encode the request of %s: %w", route, err)
		}
		key, _ = ctx.Value(idemKey{}).(string)
		if key == "" {
			key = NewIdempotencyKey()
		}
	}
	resp, err := c.send(ctx, method, target, key, body, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if w, ok := out.(io.Writer); ok && resp.StatusCode < 300 {
		if _, err := io.Copy(w, resp.Body); err != nil {
			return fmt.Errorf("api: read the answer of %s %s: %w", method, path, err)
		}
		return nil
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("api: read the answer of %s %s: %w", method, path, err)
	}
	if c.hook != nil {
		c.hook(route, resp.StatusCode, raw)
	}
	if resp.StatusCode >= 300 {
		err := answerError(resp.StatusCode, raw)
		if secs, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && secs > 0 {
			err.(*Error).RetryAfter = time.Duration(secs) * time.Second
		}
		return err
	}
	if out == nil {
		return nil
	}
	if err := strictjson.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("api: decode the answer of %s %s: %w", method, path, err)
	}
	return nil
}

// send sends one request, repeating it with the same body and key after a
// connection error that came before any answer, with a doubling wait.
func (c *Client) send(ctx context.Context, method, target, key string, body []byte, accept string) (*http.Response, error) {
	wait := c.backoff
	for attempt := 1; ; attempt++ {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, target, rd)
		if err != nil {
			return nil, fmt.Errorf("api: %w", err)
		}
		req.Header.Set("Accept", accept)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		if key != "" {
			req.Header.Set(HeaderIdempotencyKey, key)
		}
		resp, err := c.hc.Do(req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if attempt > c.retries {
			return nil, &TransportError{Method: method, URL: target, IdempotencyKey: key, Attempts: attempt, Err: err}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
}

// answerError decodes an error answer.
func answerError(status int, raw []byte) error {
	var eb ErrorBody
	if err := strictjson.Unmarshal(raw, &eb); err != nil || eb.Error.Code == "" {
		msg := strings.TrimSpace(string(raw))
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		if msg == "" {
			msg = http.StatusText(status)
		}
		return &Error{Status: status, Code: CodeBadAnswer, Message: msg}
	}
	return &Error{Status: status, Code: eb.Error.Code, Message: eb.Error.Message}
}

// Discovery returns the node's public discovery document
// (/.well-known/parley.json).
func (c *Client) Discovery(ctx context.Context) (Discovery, error) {
	var d Discovery
	return d, c.call(ctx, RouteDiscovery, nil, nil, nil, &d)
}

// Link returns the node's signed identity link, byte for byte as served
// (its SHA-256 is the hash the discovery document names).
func (c *Client) Link(ctx context.Context) ([]byte, error) {
	var b bytes.Buffer
	err := c.call(ctx, RouteLink, nil, nil, nil, &b)
	return b.Bytes(), err
}

// OpenAPI returns the API's OpenAPI document.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	var b bytes.Buffer
	err := c.call(ctx, RouteOpenAPI, nil, nil, nil, &b)
	return b.Bytes(), err
}

// Status returns the node's status.
func (c *Client) Status(ctx context.Context) (node.Status, error) {
	var s node.Status
	return s, c.call(ctx, RouteStatus, nil, nil, nil, &s)
}

// Peers returns the connected peers.
func (c *Client) Peers(ctx context.Context) ([]Peer, error) {
	var p []Peer
	return p, c.call(ctx, RoutePeers, nil, nil, nil, &p)
}

// Tasks returns the task board.
func (c *Client) Tasks(ctx context.Context) ([]node.Announcement, error) {
	var a []node.Announcement
	return a, c.call(ctx, RouteTasks, nil, nil, nil, &a)
}

// PostTask announces a task on the board.
func (c *Client) PostTask(ctx context.Context, spec node.TaskSpec) (node.Announcement, error) {
	var a node.Announcement
	return a, c.call(ctx, RoutePostTask, nil, nil, spec, &a)
}

// ProposeTask proposes a task directly to worker.
func (c *Client) ProposeTask(ctx context.Context, worker negotiation.Address, spec node.TaskSpec) (node.ActResult, error) {
	var r node.ActResult
	return r, c.call(ctx, RouteProposeTask, nil, nil, ProposeRequest{Worker: worker, Task: spec}, &r)
}

// Task returns the announcement with hash h.
func (c *Client) Task(ctx context.Context, h negotiation.Hash) (node.Announcement, error) {
	var a node.Announcement
	return a, c.call(ctx, RouteTask, []string{h.String()}, nil, nil, &a)
}

// CounterTask answers announcement h with a counter-offer, in a new
// negotiation.
func (c *Client) CounterTask(ctx context.Context, h negotiation.Hash, spec node.CounterSpec) (node.ActResult, error) {
	var r node.ActResult
	return r, c.call(ctx, RouteTaskCounter, []string{h.String()}, nil, spec, &r)
}

// AcceptTask accepts announcement h's terms, in a new negotiation.
func (c *Client) AcceptTask(ctx context.Context, h negotiation.Hash) (node.ActResult, error) {
	var r node.ActResult
	return r, c.call(ctx, RouteTaskAccept, []string{h.String()}, nil, nil, &r)
}

// Announce publishes this node's announcement h again, for peers that
// joined the task board after it was first published.
func (c *Client) Announce(ctx context.Context, h negotiation.Hash) (node.Announcement, error) {
	var a node.Announcement
	return a, c.call(ctx, RouteAnnounce, []string{h.String()}, nil, nil, &a)
}

// Negotiations returns the node's negotiations, those in state when it is
// not empty.
func (c *Client) Negotiations(ctx context.Context, state negotiation.State) ([]node.ThreadView, error) {
	var q url.Values
	if state != "" {
		q = url.Values{"state": {string(state)}}
	}
	var v []node.ThreadView
	return v, c.call(ctx, RouteNegotiations, nil, q, nil, &v)
}

// Negotiation returns negotiation id.
func (c *Client) Negotiation(ctx context.Context, id string) (node.ThreadView, error) {
	var v node.ThreadView
	return v, c.call(ctx, RouteNegotiation, []string{id}, nil, nil, &v)
}

// Bundle writes negotiation id's proof bundle to w as the node streams it.
func (c *Client) Bundle(ctx context.Context, id string, w io.Writer) error {
	if w == nil {
		return errors.New("api: Bundle: nil writer")
	}
	return c.call(ctx, RouteBundle, []string{id}, nil, nil, w)
}

func (c *Client) act(ctx context.Context, route, id string, in any) (node.ActResult, error) {
	var r node.ActResult
	return r, c.call(ctx, route, []string{id}, nil, in, &r)
}

// Counter answers negotiation id's current offer with new terms.
func (c *Client) Counter(ctx context.Context, id string, spec node.CounterSpec) (node.ActResult, error) {
	return c.act(ctx, RouteCounter, id, spec)
}

// Accept accepts negotiation id's current offer (signs its settlement
// digest once approved).
func (c *Client) Accept(ctx context.Context, id string) (node.ActResult, error) {
	return c.act(ctx, RouteAccept, id, nil)
}

// AcceptWith accepts negotiation id's current offer with the acceptance's
// PXP members (claims, reviews, dependsOn, a message).
func (c *Client) AcceptWith(ctx context.Context, id string, spec node.AcceptSpec) (node.ActResult, error) {
	return c.act(ctx, RouteAccept, id, spec)
}

// AcceptTaskWith accepts announcement h's terms with the acceptance's PXP
// members, in a new negotiation.
func (c *Client) AcceptTaskWith(ctx context.Context, h negotiation.Hash, spec node.AcceptSpec) (node.ActResult, error) {
	var r node.ActResult
	return r, c.call(ctx, RouteTaskAccept, []string{h.String()}, nil, spec, &r)
}

// Card returns the principal's default intent card (404 no_card without
// one).
func (c *Client) Card(ctx context.Context) (node.CardInfo, error) {
	var v node.CardInfo
	return v, c.call(ctx, RouteCard, nil, nil, nil, &v)
}

// SealCard seals card as the principal's default intent card; via is api
// or mcp (empty: api; web is refused). The call waits until the
// principal's passkey confirms the card (confirm_card).
func (c *Client) SealCard(ctx context.Context, card []byte, via negotiation.Via) (node.CardInfo, error) {
	var v node.CardInfo
	return v, c.call(ctx, RouteSealCard, nil, nil, CardRequest{Card: card, Via: via}, &v)
}

// NegotiationCard returns the intent card negotiation id acts under.
func (c *Client) NegotiationCard(ctx context.Context, id string) (node.CardInfo, error) {
	var v node.CardInfo
	return v, c.call(ctx, RouteNegotiationCard, []string{id}, nil, nil, &v)
}

// SealNegotiationCard seals card for negotiation id only.
func (c *Client) SealNegotiationCard(ctx context.Context, id string, card []byte, via negotiation.Via) (node.CardInfo, error) {
	var v node.CardInfo
	return v, c.call(ctx, RouteSealNegCard, []string{id}, nil, CardRequest{Card: card, Via: via}, &v)
}

// Escalations returns the questions paused negotiations wait on.
func (c *Client) Escalations(ctx context.Context) ([]node.PendingEscalation, error) {
	var v []node.PendingEscalation
	return v, c.call(ctx, RouteEscalations, nil, nil, nil, &v)
}

// Answer relays an answer to negotiation id's pending question; via is
// api or mcp (empty: api; web is refused). The answer is sealed at once
// but unconfirmed: acts resting on it wait for the principal's passkey
// (confirm_answer, which the node asks for).
func (c *Client) Answer(ctx context.Context, id, answer string, via negotiation.Via) (node.RoomView, error) {
	var v node.RoomView
	return v, c.call(ctx, RouteAnswer, []string{id}, nil, AnswerRequest{Answer: answer, Via: via}, &v)
}

// Room returns negotiation id as this node's seat sees it.
func (c *Client) Room(ctx context.Context, id string) (node.RoomView, error) {
	var v node.RoomView
	return v, c.call(ctx, RouteRoom, []string{id}, nil, nil, &v)
}

// Brief returns negotiation id's decision brief as JSON.
func (c *Client) Brief(ctx context.Context, id string) (json.RawMessage, error) {
	var v json.RawMessage
	return v, c.call(ctx, RouteBrief, []string{id}, nil, nil, &v)
}

// BriefMarkdown returns negotiation id's decision brief in Markdown.
func (c *Client) BriefMarkdown(ctx context.Context, id string) (string, error) {
	var b bytes.Buffer
	err := c.call(ctx, RouteBrief, []string{id}, url.Values{"format": {"md"}}, nil, &b)
	return b.String(), err
}

// Fund funds negotiation id's agreed escrow, as the poster.
func (c *Client) Fund(ctx context.Context, id string) (node.ActResult, error) {
	return c.act(ctx, RouteFund, id, nil)
}

// Deliver delivers a milestone of negotiation id, as the worker.
func (c *Client) Deliver(ctx context.Context, id string, spec node.DeliverySpec) (node.ActResult, error) {
	return c.act(ctx, RouteDeliver, id, spec)
}

// AcceptDelivery accepts milestone's delivery and releases it, as the
// poster.
func (c *Client) AcceptDelivery(ctx context.Context, id string, milestone int) (node.ActResult, error) {
	return c.AcceptDeliveryWith(ctx, id, node.AcceptDeliverySpec{Milestone: milestone})
}

// AcceptDeliveryWith is AcceptDelivery with a note to the worker.
func (c *Client) AcceptDeliveryWith(ctx context.Context, id string, spec node.AcceptDeliverySpec) (node.ActResult, error) {
	return c.act(ctx, RouteAcceptDelivery, id, spec)
}

// Cancel asks for a mutual cancel of negotiation id.
func (c *Client) Cancel(ctx context.Context, id, reason string) (node.ActResult, error) {
	return c.act(ctx, RouteCancel, id, CancelRequest{Reason: reason})
}

// Amend proposes or co-signs an amendment of negotiation id's milestones
// or deadline.
func (c *Client) Amend(ctx context.Context, id string, spec node.AmendSpec) (node.ActResult, error) {
	return c.act(ctx, RouteAmend, id, spec)
}

// Replace proposes or co-signs the hand-over of negotiation id to a
// replacement worker.
func (c *Client) Replace(ctx context.Context, id string, spec node.ReplaceSpec) (node.ActResult, error) {
	return c.act(ctx, RouteReplace, id, spec)
}

// Dispute opens a dispute on negotiation id (posts the bond).
func (c *Client) Dispute(ctx context.Context, id string) (node.ActResult, error) {
	return c.act(ctx, RouteDispute, id, nil)
}

// Evidence submits an evidence file to negotiation id's dispute.
func (c *Client) Evidence(ctx context.Context, id string, spec node.EvidenceSpec) (node.ActResult, error) {
	return c.act(ctx, RouteEvidence, id, spec)
}

// ProposeArbitrator names the arbitrator this side accepts for negotiation
// id's dispute.
func (c *Client) ProposeArbitrator(ctx context.Context, id string, arbitrator negotiation.Address) (node.ActResult, error) {
	return c.ProposeArbitratorWith(ctx, id, node.ArbitratorSpec{Arbitrator: arbitrator})
}

// ProposeArbitratorWith is ProposeArbitrator with the reason this side
// names the arbitrator.
func (c *Client) ProposeArbitratorWith(ctx context.Context, id string, spec node.ArbitratorSpec) (node.ActResult, error) {
	return c.act(ctx, RouteArbitrator, id, spec)
}

// Rule gives the arbitrator's ruling on negotiation id's dispute: 0
// refuses to rule, r in 1..10001 gives the worker r-1 basis points.
func (c *Client) Rule(ctx context.Context, id string, ruling uint64) (node.ActResult, error) {
	return c.act(ctx, RouteRule, id, RuleRequest{Ruling: ruling})
}

// ClaimUnanswered claims, as the worker, milestone m of negotiation id
// that the poster left unanswered for the review period.
func (c *Client) ClaimUnanswered(ctx context.Context, id string, m int) (node.ActResult, error) {
	return c.act(ctx, RouteClaimUnanswered, id, MilestoneRequest{Milestone: m})
}

// ReclaimExpired takes back, as the poster after the deadline, the
// milestones of negotiation id never delivered.
func (c *Client) ReclaimExpired(ctx context.Context, id string) (node.ActResult, error) {
	return c.act(ctx, RouteReclaimExpired, id, nil)
}

// ResolveTimedOut resolves negotiation id's stalled dispute by its timeout.
func (c *Client) ResolveTimedOut(ctx context.Context, id string) (node.ActResult, error) {
	return c.act(ctx, RouteResolveTimedOut, id, nil)
}

// Timeouts returns the timeout exits the node's threads offer it, read on
// chain now.
func (c *Client) Timeouts(ctx context.Context) ([]node.TimeoutExit, error) {
	var out []node.TimeoutExit
	return out, c.call(ctx, RouteTimeouts, nil, nil, nil, &out)
}

// Veto vetoes negotiation id's task for party, as the supervisor party
// named, with why.
func (c *Client) Veto(ctx context.Context, id string, party negotiation.Address, reason string) (node.ActResult, error) {
	return c.act(ctx, RouteVeto, id, VetoRequest{Party: party, Reason: reason})
}

// File writes the stored file with CID cid to w.
func (c *Client) File(ctx context.Context, cid string, w io.Writer) error {
	if w == nil {
		return errors.New("api: File: nil writer")
	}
	return c.call(ctx, RouteFile, []string{cid}, nil, nil, w)
}

// Withdraw withdraws what the registry owes the node in token (the zero
// address: ETH).
func (c *Client) Withdraw(ctx context.Context, token negotiation.Address) (node.ActResult, error) {
	var r node.ActResult
	return r, c.call(ctx, RouteWithdraw, nil, nil, WithdrawRequest{Token: token}, &r)
}

// Balance returns the node's balance and what the registry owes it in
// token (the zero address: ETH).
func (c *Client) Balance(ctx context.Context, token negotiation.Address) (Balance, error) {
	var q url.Values
	if token != (negotiation.Address{}) {
		q = url.Values{"token": {token.String()}}
	}
	var b Balance
	return b, c.call(ctx, RouteBalance, nil, q, nil, &b)
}

// VerifyLedger verifies the node's whole ledger.
func (c *Client) VerifyLedger(ctx context.Context) (LedgerReport, error) {
	var r LedgerReport
	return r, c.call(ctx, RouteVerify, nil, nil, nil, &r)
}

// Approvals returns the requests waiting for the principal's decision,
// oldest first, each with its act in plain words.
func (c *Client) Approvals(ctx context.Context) ([]node.PendingApproval, error) {
	var a []node.PendingApproval
	return a, c.call(ctx, RouteApprovals, nil, nil, nil, &a)
}

// Approval returns the pending request id.
func (c *Client) Approval(ctx context.Context, id string) (node.PendingApproval, error) {
	var a node.PendingApproval
	return a, c.call(ctx, RouteApproval, []string{id}, nil, nil, &a)
}

// ApprovalOptions returns the WebAuthn request options of the pending
// request id; their challenge is its intentHash.
func (c *Client) ApprovalOptions(ctx context.Context, id string) (*protocol.CredentialAssertion, error) {
	var o protocol.CredentialAssertion
	if err := c.call(ctx, RouteApprovalOptions, []string{id}, nil, nil, &o); err != nil {
		return nil, err
	}
	return &o, nil
}

// ApprovalAssertion approves the pending request id with the principal's
// WebAuthn assertion (the JSON of the browser's PublicKeyCredential, or a
// software key's answer) and returns the approved receipt.
func (c *Client) ApprovalAssertion(ctx context.Context, id string, response []byte) (*approval.IntentReceipt, error) {
	var r approval.IntentReceipt
	if err := c.call(ctx, RouteApprovalAssertion, []string{id}, nil, AssertionRequest{Response: response}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Signer answers WebAuthn request options with an assertion:
// *approval.SoftwareKey is one.
type Signer interface {
	Get(*protocol.CredentialAssertion) ([]byte, error)
}

// Approve approves the pending request id with key: it fetches the
// request's options, has key sign them and sends the assertion. It
// returns the approved receipt. A software key's counter advances with
// each assertion: keep its state (and save it) after every call.
func (c *Client) Approve(ctx context.Context, id string, key Signer) (*approval.IntentReceipt, error) {
	opts, err := c.ApprovalOptions(ctx, id)
	if err != nil {
		return nil, err
	}
	resp, err := key.Get(opts)
	if err != nil {
		return nil, fmt.Errorf("api: sign the approval of %s: %w", id, err)
	}
	return c.ApprovalAssertion(ctx, id, resp)
}

// Deny denies the pending request id, with an optional reason, and returns
// the denied receipt.
func (c *Client) Deny(ctx context.Context, id, reason string) (*approval.IntentReceipt, error) {
	var r approval.IntentReceipt
	if err := c.call(ctx, RouteDeny, []string{id}, nil, DenyRequest{Reason: reason}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// PasskeyOptions begins a passkey registration. For a further passkey
// the answer has no creation options but the PendingRequest an existing
// passkey must approve; ask again with the session as the token once it
// is approved.
func (c *Client) PasskeyOptions(ctx context.Context, req PasskeyRequest) (PasskeyOptions, error) {
	var o PasskeyOptions
	return o, c.call(ctx, RoutePasskeyOptions, nil, nil, req, &o)
}

// PasskeyCredential finishes the registration of session with the
// authenticator's attestation and returns the registered passkey.
func (c *Client) PasskeyCredential(ctx context.Context, session string, response []byte) (Passkey, error) {
	var p Passkey
	return p, c.call(ctx, RoutePasskeyCredential, nil, nil, PasskeyCredentialRequest{Session: session, Response: response}, &p)
}

// Passkeys returns the principal's registered passkeys.
func (c *Client) Passkeys(ctx context.Context) ([]Passkey, error) {
	var p []Passkey
	return p, c.call(ctx, RoutePasskeys, nil, nil, nil, &p)
}

// RevokePasskey revokes the passkey with hashed reference ref. Without a
// token the call waits until another passkey approves the revoke_passkey
// request; token is the data directory's revocation token of the last
// passkey (node.IssueRevokeToken).
func (c *Client) RevokePasskey(ctx context.Context, ref, token string) (Passkey, error) {
	var p Passkey
	return p, c.call(ctx, RoutePasskeyRevoke, []string{ref}, nil, RevokeRequest{Token: token}, &p)
}

// Audit returns up to limit audit events of the node's approvals, newest
// first (limit 0: the node's default of 100).
func (c *Client) Audit(ctx context.Context, limit int) ([]approval.AuditEvent, error) {
	var q url.Values
	if limit > 0 {
		q = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	var a []approval.AuditEvent
	return a, c.call(ctx, RouteAudit, nil, q, nil, &a)
}

// Events follows the node's event stream, the events of negotiation id
// when it is not empty. It returns once the node has answered: the
// channel then delivers each event in order and closes when the stream
// ends (the node closed, the connection dropped) or ctx ends; cancel ctx
// to stop following (the goroutine reading the stream ends with it). An
// event whose data does not decode is skipped.
func (c *Client) Events(ctx context.Context, id string) (<-chan node.Event, error) {
	_, path, err := routePath(RouteEvents)
	if err != nil {
		return nil, err
	}
	target := c.base + path
	if id != "" {
		target += "?" + url.Values{"negotiation": {id}}.Encode()
	}
	resp, err := c.send(ctx, http.MethodGet, target, "", nil, "text/event-stream")
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return nil, answerError(resp.StatusCode, raw)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		resp.Body.Close()
		return nil, &Error{Status: resp.StatusCode, Code: CodeBadAnswer, Message: "the event stream's content type is " + ct}
	}
	ch := make(chan node.Event, 64)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		stop := context.AfterFunc(ctx, func() { resp.Body.Close() })
		defer stop()
		readSSE(resp.Body, func(data []byte) bool {
			var ev node.Event
			if strictjson.Unmarshal(data, &ev) != nil {
				return true
			}
			select {
			case ch <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	return ch, nil
}

// readSSE reads server-sent events from r and calls emit with the data of
// each (its data lines joined by newlines), until r ends or emit returns
// false. Comments, ids, event names and retry fields are read and left.
func readSSE(r io.Reader, emit func(data []byte) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var data []byte
	has := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if has && !emit(data) {
				return
			}
			data, has = data[:0], false
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		if string(field) == "data" {
			if has {
				data = append(data, '\n')
			}
			data = append(data, value...)
			has = true
		}
	}
}
