package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

const testKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// seen is one request the contract server received.
type seen struct {
	Pattern, Path, Query, Key, Auth, ContentType string
	Body                                         []byte
}

// contractServer speaks the API's contract on the route table: every route
// checks the bearer key (401 before reading the body) and, for a POST, the
// Idempotency-Key (400 without one); it records what it received and
// answers what answers[pattern] gives, else {} with 200.
type contractServer struct {
	mu      sync.Mutex
	got     []seen
	answers map[string]func(w http.ResponseWriter, r *http.Request)
	*httptest.Server
}

// listRoutes answer a JSON array.
var listRoutes = map[string]bool{api.RoutePeers: true, api.RouteTasks: true, api.RouteNegotiations: true, api.RouteApprovals: true,
	api.RoutePasskeys: true, api.RouteAudit: true, api.RouteEscalations: true, api.RouteConsents: true, api.RouteTimeouts: true}

var allRoutes = []string{
	api.RouteDiscovery, api.RouteLink, api.RouteOpenAPI, api.RouteStatus, api.RoutePeers, api.RouteEvents,
	api.RouteTasks, api.RoutePostTask, api.RouteProposeTask, api.RouteTask, api.RouteTaskCounter, api.RouteTaskAccept, api.RouteAnnounce,
	api.RouteNegotiations, api.RouteNegotiation, api.RouteBundle, api.RouteCounter, api.RouteAccept, api.RouteFund,
	api.RouteDeliver, api.RouteAcceptDelivery, api.RouteCancel, api.RouteAmend, api.RouteReplace, api.RouteDispute,
	api.RouteEvidence, api.RouteArbitrator, api.RouteRule, api.RouteVeto, api.RouteFile, api.RouteWithdraw, api.RouteBalance,
	api.RouteVerify, api.RouteApprovals, api.RouteApproval, api.RouteApprovalOptions, api.RouteApprovalAssertion, api.RouteDeny,
	api.RoutePasskeyOptions, api.RoutePasskeyCredential, api.RoutePasskeys, api.RoutePasskeyRevoke, api.RouteAudit,
	api.RouteCard, api.RouteSealCard, api.RouteNegotiationCard, api.RouteSealNegCard, api.RouteEscalations,
	api.RouteAnswer, api.RouteRoom, api.RouteBrief,
	api.RouteConsents, api.RouteConsent, api.RouteSetConsent,
	api.RouteClaimUnanswered, api.RouteReclaimExpired, api.RouteResolveTimedOut, api.RouteTimeouts,
}

// deniedReceipt is a receipt's JSON as the API answers it.
const deniedReceipt = `{"kind":"IntentReceipt","version":"0.1","requestId":"req_2","intentHash":"` + zeros64 + `","nonce":"` + zeros64 + `",` +
	`"decision":"denied","intent":{"version":"0.1","requestId":"req_2","nonce":"` + zeros64 + `","action":{"tool":"parley.escrow.fund","arguments":{}},` +
	`"issuedAt":"2026-01-01T00:00:00.000Z","expiresAt":"2026-01-01T00:02:00.000Z","intentHash":"` + zeros64 + `"},` +
	`"signedAt":"2026-01-01T00:00:01.000Z","expiresAt":"2026-01-01T00:02:00.000Z"}`

const zeros64 = "0000000000000000000000000000000000000000000000000000000000000000"

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(api.ErrorBody{Error: api.ErrorDetail{Code: code, Message: msg}})
}

func newContractServer(t *testing.T) *contractServer {
	t.Helper()
	s := &contractServer{answers: map[string]func(http.ResponseWriter, *http.Request){}}
	mux := http.NewServeMux()
	for _, route := range allRoutes {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			public := strings.HasPrefix(r.URL.Path, "/.well-known/")
			if !public && r.Header.Get("Authorization") != "Bearer "+testKey {
				writeError(w, http.StatusUnauthorized, api.CodeUnauthorized, "no or wrong bearer key")
				return
			}
			key := r.Header.Get(api.HeaderIdempotencyKey)
			if r.Method == http.MethodPost && key == "" {
				writeError(w, http.StatusBadRequest, api.CodeIdempotencyMissing, "a POST needs an Idempotency-Key")
				return
			}
			body, _ := io.ReadAll(r.Body)
			s.mu.Lock()
			s.got = append(s.got, seen{Pattern: r.Pattern, Path: r.URL.Path, Query: r.URL.RawQuery, Key: key,
				Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type"), Body: body})
			f := s.answers[r.Pattern]
			s.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
			if f != nil {
				f(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			if listRoutes[r.Pattern] {
				_, _ = io.WriteString(w, "[]")
				return
			}
			_, _ = io.WriteString(w, "{}")
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, api.CodeNotFound, "no route "+r.URL.Path)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *contractServer) answer(pattern string, f func(w http.ResponseWriter, r *http.Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers[pattern] = f
}

func (s *contractServer) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.got...)
}

func jsonAnswer(status int, v any) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
}

func newClient(t *testing.T, base string, opts ...api.ClientOption) *api.Client {
	t.Helper()
	c, err := api.NewClient(base, []byte(testKey), append([]api.ClientOption{api.WithRetries(3, time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const (
	nid  = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	hash = "0x1111111111111111111111111111111111111111111111111111111111111111"
	addr = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	cidS = "bagaaierasords4njcts6vs7qvdjfcvgnume4hqohf65zsfguprqphs3icwea"
)

var keyRe = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestClientRoutes calls every method once and checks the request each
// sends (method and path from the route table, query, body, bearer key,
// a fresh Idempotency-Key on every POST) and that the answer decodes.
func TestClientRoutes(t *testing.T) {
	s := newContractServer(t)
	c := newClient(t, s.URL)
	ctx := t.Context()
	h, _ := negotiation.ParseHash(hash)
	a, _ := negotiation.ParseAddress(addr)
	deadline := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	spec := node.TaskSpec{Title: "Translate", Milestones: []node.MilestoneSpec{{Amount: big.NewInt(5e17), Description: "all"}}, Deadline: deadline}
	s.answer(api.RoutePostTask, jsonAnswer(http.StatusCreated, node.Announcement{Hash: h, Poster: a, Own: true}))
	s.answer(api.RouteNegotiation, jsonAnswer(http.StatusOK, node.ThreadView{NegotiationID: nid, State: negotiation.StateAgreed, A2A: negotiation.StateAgreed.A2A()}))
	s.answer(api.RouteBundle, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"bundle":1}`) })
	s.answer(api.RouteFile, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "file bytes") })
	receipt := func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, deniedReceipt) }
	s.answer(api.RouteApprovalAssertion, receipt)
	s.answer(api.RouteDeny, receipt)
	s.answer(api.RoutePasskeyOptions, jsonAnswer(http.StatusAccepted, api.PasskeyOptions{Session: "reg_1", PendingRequest: "req_3"}))

	var ann node.Announcement
	var view node.ThreadView
	var bundle, file bytes.Buffer
	var denied *approval.IntentReceipt
	var popts api.PasskeyOptions
	calls := []clientCall{
		{api.RouteDiscovery, "/.well-known/parley.json", "", "", func() error { _, err := c.Discovery(ctx); return err }},
		{api.RouteLink, "/.well-known/parley-link.json", "", "", func() error { _, err := c.Link(ctx); return err }},
		{api.RouteOpenAPI, "/v1/openapi.json", "", "", func() error { _, err := c.OpenAPI(ctx); return err }},
		{api.RouteStatus, "/v1/status", "", "", func() error { _, err := c.Status(ctx); return err }},
		{api.RoutePeers, "/v1/peers", "", "", func() error { _, err := c.Peers(ctx); return err }},
		{api.RouteTasks, "/v1/tasks", "", "", func() error { _, err := c.Tasks(ctx); return err }},
		{api.RoutePostTask, "/v1/tasks", "", `{"title":"Translate","milestones":[{"amount":500000000000000000,"description":"all"}],"deadline":"2030-01-02T03:04:05Z","token":"0x0000000000000000000000000000000000000000"}`,
			func() (err error) { ann, err = c.PostTask(ctx, spec); return err }},
		{api.RouteProposeTask, "/v1/tasks/propose", "", `{"worker":"` + addr + `","task":{"title":"Translate","milestones":[{"amount":500000000000000000,"description":"all"}],"deadline":"2030-01-02T03:04:05Z","token":"0x0000000000000000000000000000000000000000"}}`,
			func() error { _, err := c.ProposeTask(ctx, a, spec); return err }},
		{api.RouteTask, "/v1/tasks/" + hash, "", "", func() error { _, err := c.Task(ctx, h); return err }},
		{api.RouteTaskCounter, "/v1/tasks/" + hash + "/counter", "", `{"deadline":"0001-01-01T00:00:00Z","reason":"more time"}`,
			func() error { _, err := c.CounterTask(ctx, h, node.CounterSpec{Reason: "more time"}); return err }},
		{api.RouteTaskAccept, "/v1/tasks/" + hash + "/accept", "", `{}`, func() error { _, err := c.AcceptTask(ctx, h); return err }},
		{api.RouteAnnounce, "/v1/tasks/" + hash + "/announce", "", `{}`, func() error { _, err := c.Announce(ctx, h); return err }},
		{api.RouteNegotiations, "/v1/negotiations", "state=agreed", "", func() error { _, err := c.Negotiations(ctx, negotiation.StateAgreed); return err }},
		{api.RouteNegotiation, "/v1/negotiations/" + nid, "", "", func() (err error) { view, err = c.Negotiation(ctx, nid); return err }},
		{api.RouteBundle, "/v1/negotiations/" + nid + "/bundle", "", "", func() error { return c.Bundle(ctx, nid, &bundle) }},
		{api.RouteCounter, "/v1/negotiations/" + nid + "/counter", "", `{"title":"T2","deadline":"0001-01-01T00:00:00Z"}`,
			func() error { _, err := c.Counter(ctx, nid, node.CounterSpec{Title: "T2"}); return err }},
		{api.RouteAccept, "/v1/negotiations/" + nid + "/accept", "", `{}`, func() error { _, err := c.Accept(ctx, nid); return err }},
		{api.RouteFund, "/v1/negotiations/" + nid + "/fund", "", `{}`, func() error { _, err := c.Fund(ctx, nid); return err }},
		{api.RouteDeliver, "/v1/negotiations/" + nid + "/deliver", "", `{"milestone":1,"name":"a.txt","data":"aGk="}`,
			func() error {
				_, err := c.Deliver(ctx, nid, node.DeliverySpec{Milestone: 1, Name: "a.txt", Data: []byte("hi")})
				return err
			}},
		{api.RouteAcceptDelivery, "/v1/negotiations/" + nid + "/accept-delivery", "", `{"milestone":1}`,
			func() error { _, err := c.AcceptDelivery(ctx, nid, 1); return err }},
		{api.RouteCancel, "/v1/negotiations/" + nid + "/cancel", "", `{"reason":"no longer needed"}`,
			func() error { _, err := c.Cancel(ctx, nid, "no longer needed"); return err }},
		{api.RouteDispute, "/v1/negotiations/" + nid + "/dispute", "", `{}`, func() error { _, err := c.Dispute(ctx, nid); return err }},
		{api.RouteEvidence, "/v1/negotiations/" + nid + "/evidence", "", `{"name":"e.txt","data":"ZQ==","description":"late"}`,
			func() error {
				_, err := c.Evidence(ctx, nid, node.EvidenceSpec{Name: "e.txt", Data: []byte("e"), Description: "late"})
				return err
			}},
		{api.RouteArbitrator, "/v1/negotiations/" + nid + "/arbitrator", "", `{"arbitrator":"` + addr + `"}`,
			func() error { _, err := c.ProposeArbitrator(ctx, nid, a); return err }},
		{api.RouteRule, "/v1/negotiations/" + nid + "/rule", "", `{"ruling":7001}`, func() error { _, err := c.Rule(ctx, nid, 7001); return err }},
		{api.RouteClaimUnanswered, "/v1/negotiations/" + nid + "/claim-unanswered", "", `{"milestone":1}`, func() error { _, err := c.ClaimUnanswered(ctx, nid, 1); return err }},
		{api.RouteReclaimExpired, "/v1/negotiations/" + nid + "/reclaim-expired", "", `{}`, func() error { _, err := c.ReclaimExpired(ctx, nid); return err }},
		{api.RouteResolveTimedOut, "/v1/negotiations/" + nid + "/resolve-timed-out", "", `{}`, func() error { _, err := c.ResolveTimedOut(ctx, nid); return err }},
		{api.RouteTimeouts, "/v1/timeouts", "", "", func() error { _, err := c.Timeouts(ctx); return err }},
		{api.RouteVeto, "/v1/negotiations/" + nid + "/veto", "", `{"party":"` + addr + `","reason":"over budget"}`,
			func() error { _, err := c.Veto(ctx, nid, a, "over budget"); return err }},
		{api.RouteFile, "/v1/files/" + cidS, "", "", func() error { return c.File(ctx, cidS, &file) }},
		{api.RouteWithdraw, "/v1/withdraw", "", `{"token":"` + addr + `"}`, func() error { _, err := c.Withdraw(ctx, a); return err }},
		{api.RouteBalance, "/v1/balance", "token=" + addr, "", func() error { _, err := c.Balance(ctx, a); return err }},
		{api.RouteBalance, "/v1/balance", "", "", func() error { _, err := c.Balance(ctx, negotiation.Address{}); return err }},
		{api.RouteVerify, "/v1/ledger/verify", "", "", func() error { _, err := c.VerifyLedger(ctx); return err }},
		{api.RouteApprovals, "/v1/approvals", "", "", func() error { _, err := c.Approvals(ctx); return err }},
		{api.RouteApproval, "/v1/approvals/req_1", "", "", func() error { _, err := c.Approval(ctx, "req_1"); return err }},
		{api.RouteApprovalOptions, "/v1/approvals/req_1/options", "", `{}`, func() error { _, err := c.ApprovalOptions(ctx, "req_1"); return err }},
		{api.RouteApprovalAssertion, "/v1/approvals/req_1/assertion", "", `{"response":{"id":"x"}}`,
			func() error { _, err := c.ApprovalAssertion(ctx, "req_1", []byte(`{"id":"x"}`)); return err }},
		{api.RouteDeny, "/v1/approvals/req_2/deny", "", `{"reason":"too much"}`,
			func() (err error) { denied, err = c.Deny(ctx, "req_2", "too much"); return err }},
		{api.RoutePasskeyOptions, "/v1/passkeys/options", "", `{"label":"bot","software":true}`,
			func() (err error) {
				popts, err = c.PasskeyOptions(ctx, api.PasskeyRequest{Label: "bot", Software: true})
				return err
			}},
		{api.RoutePasskeyCredential, "/v1/passkeys/credential", "", `{"session":"reg_1","response":{"id":"y"}}`,
			func() error { _, err := c.PasskeyCredential(ctx, "reg_1", []byte(`{"id":"y"}`)); return err }},
		{api.RoutePasskeys, "/v1/passkeys", "", "", func() error { _, err := c.Passkeys(ctx); return err }},
		{api.RoutePasskeyRevoke, "/v1/passkeys/" + strings.Repeat("ab", 16) + "/revoke", "", `{"token":"parley-revoke-00"}`, func() error { _, err := c.RevokePasskey(ctx, strings.Repeat("ab", 16), "parley-revoke-00"); return err }},
		{api.RouteAudit, "/v1/audit", "limit=5", "", func() error { _, err := c.Audit(ctx, 5); return err }},
		{api.RouteConsents, "/v1/consent", "", "", func() error { _, err := c.Consents(ctx); return err }},
		{api.RouteConsent, "/v1/consent/" + addr, "", "", func() error { _, err := c.Consent(ctx, a); return err }},
		{api.RouteSetConsent, "/v1/consent/" + addr, "", `{"state":"denied"}`,
			func() error { _, err := c.SetConsent(ctx, a, node.ConsentDenied); return err }},
	}
	calls = append(calls, amendCalls(ctx, c)...)
	calls = append(calls, pxpCalls(ctx, c)...)
	keys := map[string]bool{}
	for i, cl := range calls {
		if err := cl.do(); err != nil {
			t.Fatalf("%s: %v", cl.pattern, err)
		}
		got := s.requests()
		if len(got) != i+1 {
			t.Fatalf("%s: the server saw %d requests, want %d", cl.pattern, len(got), i+1)
		}
		r := got[i]
		if r.Pattern != cl.pattern || r.Path != cl.path || r.Query != cl.query {
			t.Errorf("%s: got %s %s?%s, want %s?%s", cl.pattern, r.Pattern, r.Path, r.Query, cl.path, cl.query)
		}
		if r.Auth != "Bearer "+testKey {
			t.Errorf("%s: Authorization %q", cl.pattern, r.Auth)
		}
		if strings.HasPrefix(cl.pattern, "POST ") {
			if !keyRe.MatchString(r.Key) || keys[r.Key] {
				t.Errorf("%s: Idempotency-Key %q is not a fresh key", cl.pattern, r.Key)
			}
			keys[r.Key] = true
			if r.ContentType != "application/json" {
				t.Errorf("%s: Content-Type %q", cl.pattern, r.ContentType)
			}
			if cl.body != "" && string(r.Body) != cl.body {
				t.Errorf("%s: body\n got %s\nwant %s", cl.pattern, r.Body, cl.body)
			}
		} else if r.Key != "" || len(r.Body) != 0 {
			t.Errorf("%s: a GET sent a key %q or a body %q", cl.pattern, r.Key, r.Body)
		}
	}
	if ann.Hash != h || ann.Poster != a || !ann.Own {
		t.Errorf("PostTask decoded %+v", ann)
	}
	if view.NegotiationID != nid || view.State != negotiation.StateAgreed || view.A2A != negotiation.StateAgreed.A2A() {
		t.Errorf("Negotiation decoded %+v", view)
	}
	if bundle.String() != `{"bundle":1}` || file.String() != "file bytes" {
		t.Errorf("streamed bundle %q, file %q", bundle.String(), file.String())
	}
	if denied == nil || denied.Approved() || denied.RequestID != "req_2" {
		t.Errorf("Deny decoded %+v", denied)
	}
	if popts.Session != "reg_1" || popts.PendingRequest != "req_3" || popts.Creation != nil {
		t.Errorf("PasskeyOptions decoded a 202 as %+v", popts)
	}
	// Every route of the table was called.
	called := map[string]bool{}
	for _, r := range s.requests() {
		called[r.Pattern] = true
	}
	for _, route := range allRoutes {
		if !called[route] && route != api.RouteEvents && !notYet[route] {
			t.Errorf("no method calls %s", route)
		}
	}
}

// TestClientErrors: an error answer is an *Error with the answer's status,
// code and message, matched with errors.As and errors.Is; an answer that is
// not the API's error body is CodeBadAnswer; a refused call is not retried.
func TestClientErrors(t *testing.T) {
	s := newContractServer(t)
	c := newClient(t, s.URL)
	s.answer(api.RouteAccept, func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusConflict, "terms_changed", "the offer was superseded")
	})
	s.answer(api.RouteStatus, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html>bad gateway</html>")
	})
	s.answer(api.RouteBundle, func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, string(node.CodeUnknownNegotiation), "no such negotiation")
	})

	_, err := c.Accept(t.Context(), nid)
	var e *api.Error
	if !errors.As(err, &e) || e.Status != http.StatusConflict || e.Code != "terms_changed" || e.Message != "the offer was superseded" {
		t.Fatalf("Accept: %#v", err)
	}
	if !errors.Is(err, &api.Error{Code: "terms_changed"}) || errors.Is(err, &api.Error{Code: "other"}) || errors.Is(err, api.ErrUnreachable) {
		t.Fatal("errors.Is does not match by code")
	}
	if got := err.Error(); got != "api: 409 terms_changed: the offer was superseded" {
		t.Fatalf("message %q", got)
	}
	if n := len(s.requests()); n != 1 {
		t.Fatalf("a refused POST was sent %d times", n)
	}

	_, err = c.Status(t.Context())
	if !errors.As(err, &e) || e.Status != http.StatusBadGateway || e.Code != api.CodeBadAnswer || !strings.Contains(e.Message, "bad gateway") {
		t.Fatalf("Status: %#v", err)
	}

	var buf bytes.Buffer
	err = c.Bundle(t.Context(), nid, &buf)
	if !errors.As(err, &e) || e.Code != string(node.CodeUnknownNegotiation) || buf.Len() != 0 {
		t.Fatalf("Bundle: %v, wrote %q", err, buf.String())
	}

	wrong, err := api.NewClient(s.URL, []byte("wrong"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.Tasks(t.Context()); !errors.Is(err, &api.Error{Code: api.CodeUnauthorized}) {
		t.Fatalf("a wrong key: %v", err)
	}
	if _, err := wrong.Discovery(t.Context()); err != nil {
		t.Fatalf("the public discovery document with a wrong key: %v", err)
	}
	// A path value is escaped: one segment, never a path of its own.
	if _, err := c.Negotiation(t.Context(), "../status"); err != nil {
		t.Fatal(err)
	}
	if got := s.requests(); got[len(got)-1].Pattern != api.RouteNegotiation || got[len(got)-1].Path != "/v1/negotiations/../status" {
		t.Fatalf("an id with a slash reached %+v", got[len(got)-1])
	}
	if _, err := c.Negotiation(t.Context(), ""); err == nil || errors.As(err, &e) {
		t.Fatalf("an empty id was sent: %v", err)
	}
}

// dropFirst answers a POST only on its attempt number n+1: the first n
// connections are closed after the request was read, before any answer.
func dropFirst(n int, answer func(http.ResponseWriter, *http.Request)) func(http.ResponseWriter, *http.Request) {
	var mu sync.Mutex
	seenN := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seenN++
		drop := seenN <= n
		mu.Unlock()
		if drop {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		answer(w, r)
	}
}

// TestClientRetryReusesKey: a POST whose connection drops before an answer
// is sent again with the same Idempotency-Key and body; the next call gets
// a fresh key; WithIdempotencyKey sets the key.
func TestClientRetryReusesKey(t *testing.T) {
	s := newContractServer(t)
	c := newClient(t, s.URL)
	s.answer(api.RouteFund, dropFirst(2, jsonAnswer(http.StatusCreated, node.ActResult{Tx: &node.TxRef{Hash: "0xaa", Block: 7}})))
	r, err := c.Fund(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tx == nil || r.Tx.Block != 7 {
		t.Fatalf("answer %+v", r)
	}
	got := s.requests()
	if len(got) != 3 {
		t.Fatalf("%d attempts, want 3", len(got))
	}
	for _, g := range got[1:] {
		if g.Key != got[0].Key || !bytes.Equal(g.Body, got[0].Body) {
			t.Fatalf("a retry changed the key or body: %+v vs %+v", g, got[0])
		}
	}
	if _, err := c.Fund(t.Context(), nid); err != nil {
		t.Fatal(err)
	}
	if got2 := s.requests(); got2[3].Key == got[0].Key {
		t.Fatal("a second call reused the first call's key")
	}
	ctx := api.WithIdempotencyKey(t.Context(), "my-key-1")
	if _, err := c.Dispute(ctx, nid); err != nil {
		t.Fatal(err)
	}
	if got3 := s.requests(); got3[len(got3)-1].Key != "my-key-1" {
		t.Fatalf("WithIdempotencyKey: sent %q", got3[len(got3)-1].Key)
	}
}

// TestClientUnreachable: a node that never answers is a *TransportError
// after the retries, matched by ErrUnreachable, naming the key to repeat
// the call with.
func TestClientUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ln.Close()
	c := newClient(t, base, api.WithRetries(2, time.Millisecond))
	_, err = c.Accept(t.Context(), nid)
	var te *api.TransportError
	if !errors.As(err, &te) || !errors.Is(err, api.ErrUnreachable) {
		t.Fatalf("Accept: %v", err)
	}
	if te.Attempts != 3 || te.Method != http.MethodPost || !keyRe.MatchString(te.IdempotencyKey) || !strings.HasSuffix(te.URL, "/v1/negotiations/"+nid+"/accept") {
		t.Fatalf("transport error %+v", te)
	}
	if _, err := c.Events(t.Context(), ""); !errors.Is(err, api.ErrUnreachable) {
		t.Fatalf("Events: %v", err)
	}

	// A server that always drops the connection: the same, with every
	// attempt carrying the one key.
	s := newContractServer(t)
	s.answer(api.RouteCancel, dropFirst(100, nil))
	_, err = newClient(t, s.URL, api.WithRetries(1, time.Millisecond)).Cancel(t.Context(), nid, "r")
	if !errors.As(err, &te) || te.Attempts != 2 {
		t.Fatalf("Cancel: %v", err)
	}
	got := s.requests()
	if len(got) != 2 || got[0].Key != te.IdempotencyKey || got[1].Key != te.IdempotencyKey {
		t.Fatalf("attempts %+v, error key %s", got, te.IdempotencyKey)
	}
}

// TestClientEvents reads the SSE framing: comments and ids are skipped,
// data lines are joined, an event whose data does not decode is skipped,
// the channel closes when the stream ends, and cancelling the context ends
// a stream that stays open.
func TestClientEvents(t *testing.T) {
	s := newContractServer(t)
	release := make(chan struct{})
	s.answer(api.RouteEvents, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, ": heartbeat\n\n")
		fmt.Fprintf(w, "id: 1\nevent: state\ndata: {\"kind\":\"state\",\"negotiationId\":%q,\"state\":\"agreed\",\"at\":\"2030-01-01T00:00:00Z\"}\n\n", r.URL.Query().Get("negotiation"))
		fmt.Fprint(w, "id: 2\nevent: envelope\ndata: not json\n\n")
		fmt.Fprint(w, "id: 3\nevent: envelope\ndata: {\"kind\":\"envelope\",\ndata: \"type\":\"TaskAcceptance\",\"direction\":\"sent\",\"at\":\"2030-01-01T00:00:00Z\"}\n\n")
		if r.URL.Query().Get("hold") != "" {
			http.NewResponseController(w).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	})
	ch, err := newClient(t, s.URL).Events(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	var got []node.Event
	for ev := range ch {
		got = append(got, ev)
	}
	if len(got) != 2 || got[0].Kind != node.EventState || got[0].NegotiationID != nid || got[0].State != negotiation.StateAgreed ||
		got[1].Kind != node.EventEnvelope || got[1].Type != negotiation.TypeTaskAcceptance || got[1].Direction != "sent" {
		t.Fatalf("events %+v", got)
	}
	if r := s.requests(); r[0].Query != "negotiation="+nid || r[0].Auth != "Bearer "+testKey {
		t.Fatalf("request %+v", r[0])
	}

	// A stream that stays open ends when the context does.
	s.answer(api.RouteEvents, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"kind\":\"fact\",\"at\":\"2030-01-01T00:00:00Z\"}\n\n")
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(t.Context())
	ch, err = newClient(t, s.URL).Events(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if ev := <-ch; ev.Kind != node.EventFact {
		t.Fatalf("first event %+v", ev)
	}
	cancel()
	for range ch {
	}
	close(release)

	// A refusal before the stream is an *Error.
	bad, _ := api.NewClient(s.URL, nil)
	if _, err := bad.Events(t.Context(), ""); !errors.Is(err, &api.Error{Code: api.CodeUnauthorized}) {
		t.Fatalf("Events without a key: %v", err)
	}
	// An answer that is not an event stream is refused.
	s.answer(api.RouteEvents, jsonAnswer(http.StatusOK, map[string]int{}))
	if _, err := newClient(t, s.URL).Events(t.Context(), ""); !errors.Is(err, &api.Error{Code: api.CodeBadAnswer}) {
		t.Fatalf("Events of JSON: %v", err)
	}
}

// TestClientAnswerHook: the hook sees the exact bytes of JSON answers,
// refusals included.
func TestClientAnswerHook(t *testing.T) {
	s := newContractServer(t)
	const raw = "{\"evmAddress\":\"" + addr + "\",  \"peerId\":\"12D3\"}\n"
	s.answer(api.RouteStatus, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, raw) })
	s.answer(api.RouteFund, func(w http.ResponseWriter, _ *http.Request) { writeError(w, 403, "not_party", "only the poster") })
	var routes []string
	var bodies []string
	c := newClient(t, s.URL, api.WithAnswerHook(func(route string, status int, body []byte) {
		routes = append(routes, fmt.Sprint(route, " ", status))
		bodies = append(bodies, string(body))
	}))
	st, err := c.Status(t.Context())
	if err != nil || st.PeerID != "12D3" {
		t.Fatalf("%+v %v", st, err)
	}
	if _, err := c.Fund(t.Context(), nid); err == nil {
		t.Fatal("no error")
	}
	if len(bodies) != 2 || bodies[0] != raw || !strings.Contains(bodies[1], `"not_party"`) ||
		routes[0] != api.RouteStatus+" 200" || routes[1] != api.RouteFund+" 403" {
		t.Fatalf("hook saw %q %q", routes, bodies)
	}
}

func TestNewClient(t *testing.T) {
	for _, base := range []string{"http://127.0.0.1:7464", "http://127.0.0.1:7464/", "http://127.0.0.1:7464/v1", "https://node.example/v1/"} {
		c, err := api.NewClient(base, []byte(testKey))
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		if strings.HasSuffix(c.BaseURL(), "/") || strings.HasSuffix(c.BaseURL(), "/v1") {
			t.Errorf("%s: base %s", base, c.BaseURL())
		}
	}
	for _, base := range []string{"", "127.0.0.1:7464", "ftp://h", "http://", "http://h/x", "http://u:p@h", "http://h?a=1"} {
		if _, err := api.NewClient(base, nil); err == nil {
			t.Errorf("%q was accepted", base)
		}
	}
	for _, key := range []string{"a b", "a\nb", "k\x00"} {
		if _, err := api.NewClient("http://h", []byte(key)); err == nil {
			t.Errorf("key %q was accepted", key)
		}
	}
	for i, o := range []api.ClientOption{nil, api.WithHTTPClient(nil), api.WithRetries(-1, time.Second), api.WithRetries(1, 0), api.WithAnswerHook(nil)} {
		if _, err := api.NewClient("http://h", nil, o); err == nil {
			t.Errorf("option %d was accepted", i)
		}
	}
}

// clientCall is one method call and the request it must send.
type clientCall struct {
	pattern, path, query, body string
	do                         func() error
}

// notYet are routes no method calls.
var notYet = map[string]bool{}

func amendCalls(ctx context.Context, c *api.Client) []clientCall {
	deadline := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	w, _ := negotiation.ParseAddress(addr)
	return []clientCall{
		{api.RouteAmend, "/v1/negotiations/" + nid + "/amend", "", `{"milestones":[{"amount":7,"description":"x"}],"deadline":"2030-01-02T03:04:05Z","reason":"scope"}`,
			func() error {
				_, err := c.Amend(ctx, nid, node.AmendSpec{Milestones: []node.MilestoneSpec{{Amount: big.NewInt(7), Description: "x"}}, Deadline: deadline, Reason: "scope"})
				return err
			}},
		{api.RouteReplace, "/v1/negotiations/" + nid + "/replace", "", `{"newWorker":"` + addr + `","summary":"hand over"}`,
			func() error {
				_, err := c.Replace(ctx, nid, node.ReplaceSpec{NewWorker: w, Summary: "hand over"})
				return err
			}},
	}
}

// pxpCalls are the calls of the PXP routes: cards, escalations, answers,
// rooms and briefs.
func pxpCalls(ctx context.Context, c *api.Client) []clientCall {
	h, _ := negotiation.ParseHash(hash)
	card := `{"goal":"Get it done.","principal":{"name":"Dana"},"pxp":"0"}`
	review := node.AcceptSpec{PXPFields: node.PXPFields{Reviews: []negotiation.Review{{ClaimID: "c1", Verdict: negotiation.VerdictAccept}}, Message: "deal"}}
	return []clientCall{
		{api.RouteCard, "/v1/card", "", "", func() error { _, err := c.Card(ctx); return err }},
		{api.RouteSealCard, "/v1/card", "", `{"card":` + card + `,"via":"api"}`,
			func() error { _, err := c.SealCard(ctx, []byte(card), negotiation.ViaAPI); return err }},
		{api.RouteNegotiationCard, "/v1/negotiations/" + nid + "/card", "", "", func() error { _, err := c.NegotiationCard(ctx, nid); return err }},
		{api.RouteSealNegCard, "/v1/negotiations/" + nid + "/card", "", `{"card":` + card + `,"via":"mcp"}`,
			func() error { _, err := c.SealNegotiationCard(ctx, nid, []byte(card), negotiation.ViaMCP); return err }},
		{api.RouteEscalations, "/v1/escalations", "", "", func() error { _, err := c.Escalations(ctx); return err }},
		{api.RouteAnswer, "/v1/negotiations/" + nid + "/answer", "", `{"answer":"Yes, up to 0.6 ETH.","via":"api"}`,
			func() error { _, err := c.Answer(ctx, nid, "Yes, up to 0.6 ETH.", negotiation.ViaAPI); return err }},
		{api.RouteRoom, "/v1/negotiations/" + nid + "/room", "", "", func() error { _, err := c.Room(ctx, nid); return err }},
		{api.RouteBrief, "/v1/negotiations/" + nid + "/brief", "", "", func() error { _, err := c.Brief(ctx, nid); return err }},
		{api.RouteBrief, "/v1/negotiations/" + nid + "/brief", "format=md", "", func() error { _, err := c.BriefMarkdown(ctx, nid); return err }},
		{api.RouteAccept, "/v1/negotiations/" + nid + "/accept", "", `{"reviews":[{"claimId":"c1","verdict":"accept"}],"message":"deal"}`,
			func() error { _, err := c.AcceptWith(ctx, nid, review); return err }},
		{api.RouteTaskAccept, "/v1/tasks/" + hash + "/accept", "", `{"reviews":[{"claimId":"c1","verdict":"accept"}],"message":"deal"}`,
			func() error { _, err := c.AcceptTaskWith(ctx, h, review); return err }},
	}
}

// startServedNode starts a chain-less node (a chain id and registry are
// configured, so it can post tasks) with the operator gate, and serves its
// API through wrap (nil: as it is).
func startServedNode(t *testing.T, wrap func(http.Handler) http.Handler) (*node.Node, string) {
	t.Helper()
	dir := t.TempDir()
	kcfg := identity.DefaultConfig(dir)
	kcfg.ScryptWorkFactor = 10
	kcfg.KeystoreScryptN, kcfg.KeystoreScryptP = keystore.LightScryptN, keystore.LightScryptP
	kcfg.KEM = identity.KEMX25519
	pass := []byte("client test passphrase")
	if _, err := identity.Create(kcfg, pass, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Name = dir, "client-test"
	cfg.P2P.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.P2P.DHT = false
	cfg.Chain.ChainID = 1337
	cfg.Chain.Contracts.TaskRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	n, err := node.New(cfg, node.WithPassphrase(pass), node.WithLogger(slog.New(slog.DiscardHandler)),
		node.WithLedgerTuning(func(c *ledger.Config) {
			c.MemTableSize, c.BlockCacheSize, c.ValueLogFileSize = 16<<20, 4<<20, 16<<20
			c.MaxObjectBytes, c.MaxBatchBytes = 1<<20, 1<<20
		}))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(n, api.Options{Key: []byte(testKey)})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
		_ = n.Close()
	})
	return n, ts.URL
}

// TestClientAgainstServer runs the client against the real server: a
// POST whose answer is lost (the server performed the act, then the
// connection dropped) is retried with its key and answered with the first
// answer, and the act is done once; refusals decode with the server's
// status and code; the event stream delivers the node's events. (The
// node has no peers: its post waits p2p's bound for the board's topic.)
func TestClientAgainstServer(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	var lost []byte
	n, base := startServedNode(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != "/v1/tasks" {
				h.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			keys = append(keys, r.Header.Get(api.HeaderIdempotencyKey))
			first := len(keys) == 1
			mu.Unlock()
			if !first {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r) // the act is performed; its answer is lost
			lost = rec.Body.Bytes()
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
		})
	})
	c := newClient(t, base)
	ctx := t.Context()

	st, err := c.Status(ctx)
	if err != nil || st.Address != n.Address() {
		t.Fatalf("Status: %+v %v", st, err)
	}
	events, err := c.Events(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	spec := node.TaskSpec{Title: "Translate", Milestones: []node.MilestoneSpec{{Amount: big.NewInt(5e17), Description: "all"}}, Deadline: time.Now().Add(72 * time.Hour)}
	ann, err := c.PostTask(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	var first node.Announcement
	if err := json.Unmarshal(lost, &first); err != nil || first.Hash != ann.Hash {
		t.Fatalf("the retried call answered %s; the lost answer was %s (%v)", ann.Hash, lost, err)
	}
	if len(keys) != 2 || keys[0] != keys[1] || keys[0] == "" {
		t.Fatalf("keys sent: %q", keys)
	}
	board, err := c.Tasks(ctx)
	if err != nil || len(board) != 1 || board[0].Hash != ann.Hash || !board[0].Own {
		t.Fatalf("the board after a retried post: %+v %v", board, err)
	}
	if got, err := c.Task(ctx, ann.Hash); err != nil || got.Terms.Title != "Translate" {
		t.Fatalf("Task: %+v %v", got, err)
	}
	for ev := range events {
		if ev.Kind == node.EventAnnouncement && ev.Hash == ann.Hash.String() && ev.Direction == "sent" {
			break
		}
	}

	for _, tc := range []struct {
		call   func() error
		status int
		code   string
	}{
		{func() error { _, err := c.Negotiation(ctx, nid); return err }, http.StatusNotFound, string(node.CodeUnknownNegotiation)},
		{func() error { _, err := c.Accept(ctx, "not-an-id"); return err }, http.StatusBadRequest, api.CodeBadRequest},
		{func() error { _, err := c.AcceptTask(ctx, negotiation.Hash{1}); return err }, http.StatusNotFound, string(node.CodeUnknownTask)},
		{func() error {
			bad, _ := api.NewClient(base, []byte("not-the-key-at-all"))
			_, err := bad.Status(ctx)
			return err
		}, http.StatusUnauthorized, api.CodeUnauthorized},
	} {
		var e *api.Error
		if err := tc.call(); !errors.As(err, &e) || e.Status != tc.status || e.Code != tc.code || e.Message == "" {
			t.Errorf("got %v; want %d %s", err, tc.status, tc.code)
		}
	}
	if reqs, err := c.Approvals(ctx); err != nil || len(reqs) != 0 {
		t.Fatalf("Approvals: %+v %v", reqs, err)
	}
	if d, err := c.Discovery(ctx); err != nil || d.Protocol != "parley" || d.EVMAddress != n.Address() {
		t.Fatalf("Discovery: %+v %v", d, err)
	}
}
