package approval

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/descope/virtualwebauthn"
	"github.com/go-webauthn/webauthn/protocol"
)

const testOrigin = "http://localhost:7420"

var t0 = time.Date(2026, 9, 17, 0, 0, 0, 0, time.UTC)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// auditLog collects audit events.
type auditLog struct {
	mu     sync.Mutex
	events []AuditEvent
	fail   error
}

func (a *auditLog) Record(_ context.Context, e AuditEvent) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.events = append(a.events, e)
	return a.fail
}

func (a *auditLog) all() []AuditEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]AuditEvent(nil), a.events...)
}

func (a *auditLog) last() AuditEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.events) == 0 {
		return AuditEvent{}
	}
	return a.events[len(a.events)-1]
}

func (a *auditLog) count(kind EventKind) int {
	n := 0
	for _, e := range a.all() {
		if e.Event == kind {
			n++
		}
	}
	return n
}

func testConfig(clk *clock) Config {
	cfg := DefaultConfig()
	cfg.Origins = []string{testOrigin}
	cfg.UserID = []byte("parley-test-principal")
	cfg.Now = clk.Now
	return cfg
}

// harness is one principal's ceremonies over a MemStore.
type harness struct {
	cfg   Config
	clk   *clock
	store *MemStore
	audit *auditLog
	c     *Ceremonies
	gate  *Gate
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	h := &harness{clk: &clock{t: t0}, store: NewMemStore(), audit: &auditLog{}}
	h.cfg = testConfig(h.clk)
	c, err := New(h.cfg, h.store, h.audit)
	if err != nil {
		t.Fatal(err)
	}
	h.c, h.gate = c, c.Gate()
	return h
}

// counterMode says how a test key's signature counter behaves.
type counterMode int

const (
	counterAdvance counterMode = iota // +1 per assertion, as most security keys
	counterZero                       // always 0, as many synced passkeys
	counterStuck                      // repeats the last value: a clone's symptom
)

// testKey drives virtualwebauthn directly, so tests can make it misbehave
// in the ways a real authenticator or an attacker can.
type testKey struct {
	rp      virtualwebauthn.RelyingParty
	auth    virtualwebauthn.Authenticator
	cred    virtualwebauthn.Credential
	counter counterMode
}

func newTestKey(cfg Config, mode counterMode) *testKey {
	cred, err := newP256Credential()
	if err != nil {
		panic(err)
	}
	return &testKey{
		rp:      virtualwebauthn.RelyingParty{ID: cfg.RPID, Name: cfg.RPName, Origin: testOrigin},
		auth:    virtualwebauthn.NewAuthenticatorWithOptions(virtualwebauthn.AuthenticatorOptions{UserHandle: cfg.UserID}),
		cred:    cred,
		counter: mode,
	}
}

func (k *testKey) create(t testing.TB, creation *protocol.CredentialCreation) []byte {
	t.Helper()
	b, err := json.Marshal(creation)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := virtualwebauthn.ParseAttestationOptions(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(virtualwebauthn.CreateAttestationResponse(k.rp, k.auth, k.cred, *opts))
}

func (k *testKey) get(t testing.TB, assertion *protocol.CredentialAssertion) []byte {
	t.Helper()
	b, err := json.Marshal(assertion)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := virtualwebauthn.ParseAssertionOptions(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if k.counter == counterAdvance {
		k.cred.Counter++
	}
	return []byte(virtualwebauthn.CreateAssertionResponse(k.rp, k.auth, k.cred, *opts))
}

// signChallenge answers an arbitrary challenge, for forged assertions.
func (k *testKey) signChallenge(challenge []byte) []byte {
	if k.counter == counterAdvance {
		k.cred.Counter++
	}
	return []byte(virtualwebauthn.CreateAssertionResponse(k.rp, k.auth, k.cred, virtualwebauthn.AssertionOptions{
		Challenge: challenge, RelyingPartyID: k.rp.ID,
	}))
}

// enrolFirst registers k as the first credential with an enrolment token.
func (h *harness) enrolFirst(t testing.TB, k *testKey, label string) Credential {
	t.Helper()
	ctx := context.Background()
	token, err := IssueEnrolToken(ctx, h.store, h.clk.Now(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	creation, sess, err := h.c.BeginRegistration(ctx, RegistrationOptions{Label: label})
	if err != nil {
		t.Fatal(err)
	}
	cred, err := h.c.FinishRegistration(ctx, sess, Authority{EnrolToken: token}, k.create(t, creation))
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// settlementRequest returns a request to sign a settlement digest.
func (h *harness) settlementRequest(t testing.TB, amount string) IntentRequest {
	t.Helper()
	act, err := SettlementAction("3f2b8c1e-6d4a-4f7b-9e2c-1a5d8b7c6e40",
		"0x4a5c1f0e2b3d6a7c8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f", amount,
		"0x0000000000000000000000000000000000000000", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
	if err != nil {
		t.Fatal(err)
	}
	req, err := NewRequest(RequestSpec{
		Action:  act,
		Context: IntentContext{Reason: "Accept the worker's offer", Risk: RiskCritical},
		AgentID: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
	}, h.clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// approve approves req with k and returns the receipt's JSON text.
func (h *harness) approve(t testing.TB, k *testKey, req IntentRequest) []byte {
	t.Helper()
	ctx := context.Background()
	opts, err := h.c.BeginApproval(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.c.FinishApproval(ctx, req, k.get(t, opts))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantCode fails unless err carries code.
func wantCode(t testing.TB, err error, code Code) {
	t.Helper()
	if got := CodeOf(err); got != code {
		t.Fatalf("got %v (code %q), want code %q", err, got, code)
	}
}
