package approval

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
)

func TestConfigValidate(t *testing.T) {
	clk := &clock{t: t0}
	good := testConfig(clk)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		mut   func(c *Config)
		field string
	}{
		"no RP ID":              {func(c *Config) { c.RPID = "" }, "RPID"},
		"IP as RP ID":           {func(c *Config) { c.RPID = "127.0.0.1" }, "RPID"},
		"IPv6 as RP ID":         {func(c *Config) { c.RPID = "::1" }, "RPID"},
		"RP ID with port":       {func(c *Config) { c.RPID = "localhost:7420" }, "RPID"},
		"no RP name":            {func(c *Config) { c.RPName = "" }, "RPName"},
		"no origins":            {func(c *Config) { c.Origins = nil }, "Origins"},
		"IP origin":             {func(c *Config) { c.Origins = []string{"http://127.0.0.1:7420"} }, "Origins"},
		"foreign origin":        {func(c *Config) { c.Origins = []string{"https://example.com"} }, "Origins"},
		"origin with path":      {func(c *Config) { c.Origins = []string{"http://localhost:7420/approve"} }, "Origins"},
		"origin trailing /":     {func(c *Config) { c.Origins = []string{"http://localhost:7420/"} }, "Origins"},
		"http off localhost":    {func(c *Config) { c.RPID = "example.com"; c.Origins = []string{"http://example.com"} }, "Origins"},
		"other scheme":          {func(c *Config) { c.Origins = []string{"ftp://localhost"} }, "Origins"},
		"no user id":            {func(c *Config) { c.UserID = nil }, "UserID"},
		"user id too long":      {func(c *Config) { c.UserID = make([]byte, 65) }, "UserID"},
		"no user name":          {func(c *Config) { c.UserName = "" }, "UserName"},
		"negative registration": {func(c *Config) { c.RegistrationTTL = -1 }, "RegistrationTTL"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := testConfig(clk)
			tc.mut(&c)
			err := c.Validate()
			wantCode(t, err, CodeInvalidConfig)
			if !strings.Contains(err.Error(), tc.field+":") {
				t.Fatalf("%v does not name %s", err, tc.field)
			}
			if _, err := New(c, NewMemStore(), &auditLog{}); CodeOf(err) != CodeInvalidConfig {
				t.Fatalf("New accepted it: %v", err)
			}
		})
	}
	c := testConfig(clk)
	c.RPID, c.Origins = "example.com", []string{"https://example.com", "https://pages.example.com:8443"}
	if err := c.Validate(); err != nil {
		t.Fatalf("https on the RP ID and a subdomain: %v", err)
	}
	if _, err := New(good, nil, &auditLog{}); CodeOf(err) != CodeInvalidConfig {
		t.Fatal("nil store accepted")
	}
	if _, err := New(good, NewMemStore(), nil); CodeOf(err) != CodeInvalidConfig {
		t.Fatal("nil audit accepted")
	}
}

// TestApprovalRoundTrip: request, options whose challenge is the
// intentHash, an assertion verified by go-webauthn, an approved receipt
// embedding it, and one consumption.
func TestApprovalRoundTrip(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	key := newTestKey(h.cfg, counterAdvance)
	cred := h.enrolFirst(t, key, "laptop")
	if cred.Software || cred.Label != "laptop" || !bytes.Equal(cred.ID(), key.cred.ID) {
		t.Fatalf("credential %+v", cred)
	}
	req := h.settlementRequest(t, "1500000000000000000")
	opts, err := h.c.BeginApproval(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := hex.DecodeString(req.IntentHash)
	if !bytes.Equal(opts.Response.Challenge, want) {
		t.Fatalf("challenge %x, want the intentHash %s", []byte(opts.Response.Challenge), req.IntentHash)
	}
	if opts.Response.UserVerification != protocol.VerificationRequired || opts.Response.RelyingPartyID != "localhost" {
		t.Fatalf("options %+v", opts.Response)
	}
	js, _ := json.Marshal(opts)
	if !bytes.Contains(js, []byte(`"challenge":"`+base64.RawURLEncoding.EncodeToString(want)+`"`)) {
		t.Fatalf("options JSON does not carry base64url(intentHash bytes): %s", js)
	}
	if len(opts.Response.AllowedCredentials) != 1 || !bytes.Equal(opts.Response.AllowedCredentials[0].CredentialID, key.cred.ID) {
		t.Fatal("the registered credential is not allowed")
	}
	receipt, err := h.c.FinishApproval(ctx, req, key.get(t, opts))
	if err != nil {
		t.Fatal(err)
	}
	if !receipt.Approved() || receipt.Assertion == nil || receipt.Authenticator.Software ||
		receipt.Authenticator.CredentialID != base64.RawURLEncoding.EncodeToString(key.cred.ID) ||
		!receipt.Verification.UserVerified || receipt.IntentHash != req.IntentHash || !receipt.ExpiresAt.Equal(req.ExpiresAt) {
		t.Fatalf("receipt %+v", receipt)
	}
	rec, err := h.store.Approval(ctx, req.RequestID)
	if err != nil || rec.SignCount != 1 || rec.IntentHash != req.IntentHash {
		t.Fatalf("approval record %+v, %v", rec, err)
	}
	if c, _ := h.store.Credential(ctx, key.cred.ID); c.WebAuthn.Authenticator.SignCount != 1 {
		t.Fatalf("stored count %d, want 1", c.WebAuthn.Authenticator.SignCount)
	}
	b, err := json.Marshal(receipt)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseReceipt(b)
	if err != nil {
		t.Fatal(err)
	}
	if back2, _ := json.Marshal(back); !bytes.Equal(back2, b) {
		t.Fatal("receipt JSON does not round-trip")
	}
	c, err := h.gate.Consume(ctx, b, req.Action)
	if err != nil {
		t.Fatal(err)
	}
	if c.RequestID != req.RequestID || c.Software || c.CredentialRef != cred.Ref() {
		t.Fatalf("consumption %+v", c)
	}
	if h.audit.count(EventApproved) != 1 || h.audit.count(EventConsumed) != 1 || h.audit.count(EventCredentialRegistered) != 1 {
		t.Fatalf("audit %+v", h.audit.all())
	}
}

// TestAssertionBoundToItsRequest: an assertion for one request does not
// verify for another (the verifier recomputes the challenge).
func TestAssertionBoundToItsRequest(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	key := newTestKey(h.cfg, counterAdvance)
	h.enrolFirst(t, key, "")
	a := h.settlementRequest(t, "100")
	b := h.settlementRequest(t, "100")
	opts, err := h.c.BeginApproval(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.c.FinishApproval(ctx, b, key.get(t, opts))
	wantCode(t, err, CodeVerificationFailed)
	if e := h.audit.last(); e.Event != EventAssertionRejected || e.Code != CodeVerificationFailed || e.RequestID != b.RequestID {
		t.Fatalf("audit %+v", e)
	}
	if _, err := h.store.Approval(ctx, b.RequestID); err != ErrNotFound {
		t.Fatal("a refused assertion recorded an approval")
	}
}

// TestAssertionChecks: origin allowlist, RP ID and user verification, each
// checked by go-webauthn on a real assertion.
func TestAssertionChecks(t *testing.T) {
	tests := map[string]func(k *testKey){
		"origin not allowed":  func(k *testKey) { k.rp.Origin = "http://localhost:9999" },
		"127.0.0.1 origin":    func(k *testKey) { k.rp.Origin = "http://127.0.0.1:7420" },
		"other RP ID":         func(k *testKey) { k.rp.ID = "example.com" },
		"user not verified":   func(k *testKey) { k.auth.Options.UserNotVerified = true },
		"user not present":    func(k *testKey) { k.auth.Options.UserNotPresent = true },
		"other user handle":   func(k *testKey) { k.auth.Options.UserHandle = []byte("someone else") },
		"backup flags change": func(k *testKey) { k.auth.Options.BackupEligible = true },
	}
	for name, mut := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			ctx := t.Context()
			key := newTestKey(h.cfg, counterAdvance)
			h.enrolFirst(t, key, "")
			mut(key)
			req := h.settlementRequest(t, "1")
			opts, err := h.c.BeginApproval(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.c.FinishApproval(ctx, req, key.get(t, opts))
			wantCode(t, err, CodeVerificationFailed)
		})
	}
}

// TestCounterRules: the count must advance, or be 0 and stay 0; a count
// that does not advance flags the credential as cloned, and a flagged
// credential fails closed.
func TestCounterRules(t *testing.T) {
	t.Run("zero stays zero", func(t *testing.T) {
		h := newHarness(t)
		key := newTestKey(h.cfg, counterZero)
		h.enrolFirst(t, key, "synced")
		for range 3 {
			r := h.settlementRequest(t, "1")
			if _, err := h.gate.Consume(t.Context(), h.approve(t, key, r), r.Action); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("advancing", func(t *testing.T) {
		h := newHarness(t)
		key := newTestKey(h.cfg, counterAdvance)
		h.enrolFirst(t, key, "")
		for i := range 3 {
			h.approve(t, key, h.settlementRequest(t, "1"))
			c, _ := h.store.Credential(t.Context(), key.cred.ID)
			if c.WebAuthn.Authenticator.SignCount != uint32(i+1) {
				t.Fatalf("count %d after %d approvals", c.WebAuthn.Authenticator.SignCount, i+1)
			}
		}
	})
	clone := func(t *testing.T, h *harness, key *testKey, stuckAt uint32) []byte {
		t.Helper()
		ctx := t.Context()
		earlier := h.settlementRequest(t, "1")
		receipt := h.approve(t, key, earlier)
		key.counter, key.cred.Counter = counterStuck, stuckAt
		req := h.settlementRequest(t, "2")
		opts, err := h.c.BeginApproval(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.c.FinishApproval(ctx, req, key.get(t, opts))
		wantCode(t, err, CodeCredentialCloned)
		c, _ := h.store.Credential(ctx, key.cred.ID)
		if !c.Cloned() {
			t.Fatal("the credential is not flagged")
		}
		if _, err := h.store.Approval(ctx, req.RequestID); err != ErrNotFound {
			t.Fatal("a cloned assertion recorded an approval")
		}
		// Fail closed: a well-behaved count does not clear the flag.
		key.counter, key.cred.Counter = counterAdvance, 100
		_, err = h.c.FinishApproval(ctx, req, key.get(t, opts))
		wantCode(t, err, CodeCredentialCloned)
		_, err = h.c.BeginApproval(ctx, h.settlementRequest(t, "3"))
		wantCode(t, err, CodeCredentialUnknown) // no usable credential left
		// A receipt approved before the flag is not consumed either.
		_, err = h.gate.Consume(ctx, receipt, earlier.Action)
		wantCode(t, err, CodeVerificationFailed)
		return receipt
	}
	t.Run("repeated count", func(t *testing.T) {
		h := newHarness(t)
		key := newTestKey(h.cfg, counterAdvance)
		h.enrolFirst(t, key, "")
		clone(t, h, key, 1) // approved with 1, then 1 again
	})
	t.Run("count falls to zero", func(t *testing.T) {
		h := newHarness(t)
		key := newTestKey(h.cfg, counterAdvance)
		h.enrolFirst(t, key, "")
		clone(t, h, key, 0)
	})
	t.Run("count appears after zero is fine", func(t *testing.T) {
		h := newHarness(t)
		key := newTestKey(h.cfg, counterZero)
		h.enrolFirst(t, key, "")
		h.approve(t, key, h.settlementRequest(t, "1"))
		key.counter = counterAdvance
		h.approve(t, key, h.settlementRequest(t, "1"))
	})
}

func TestApprovalRefusals(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	key := newTestKey(h.cfg, counterAdvance)
	req := h.settlementRequest(t, "1")
	_, err := h.c.BeginApproval(ctx, req)
	wantCode(t, err, CodeCredentialUnknown) // nothing registered yet
	h.enrolFirst(t, key, "")

	// A key that is not registered.
	stranger := newTestKey(h.cfg, counterAdvance)
	opts, err := h.c.BeginApproval(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.c.FinishApproval(ctx, req, stranger.get(t, opts))
	wantCode(t, err, CodeCredentialUnknown)

	// Not JSON.
	_, err = h.c.FinishApproval(ctx, req, []byte("{"))
	wantCode(t, err, CodeVerificationFailed)

	// A tampered request.
	bad := req
	bad.Action.Target = "another"
	_, err = h.c.BeginApproval(ctx, bad)
	wantCode(t, err, CodeTamperedIntent)
	_, err = h.c.FinishApproval(ctx, bad, key.get(t, opts))
	wantCode(t, err, CodeTamperedIntent)

	// Approved once only.
	h.approve(t, key, req)
	opts, _ = h.c.BeginApproval(ctx, req)
	_, err = h.c.FinishApproval(ctx, req, key.get(t, opts))
	wantCode(t, err, CodeAlreadyApproved)

	// After the window.
	late := h.settlementRequest(t, "1")
	opts, _ = h.c.BeginApproval(ctx, late)
	h.clk.Set(late.ExpiresAt)
	_, err = h.c.BeginApproval(ctx, late)
	wantCode(t, err, CodeRequestExpired)
	_, err = h.c.FinishApproval(ctx, late, key.get(t, opts))
	wantCode(t, err, CodeRequestExpired)
}

func TestDeny(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	h.enrolFirst(t, newTestKey(h.cfg, counterAdvance), "")
	req := h.settlementRequest(t, "1")
	r, err := h.c.Deny(ctx, req, "not this worker")
	if err != nil {
		t.Fatal(err)
	}
	if r.Approved() || r.Assertion != nil || r.Authenticator != nil || r.Verification != nil || r.DeniedReason != "not this worker" {
		t.Fatalf("denial %+v", r)
	}
	b, _ := json.Marshal(r)
	for _, member := range []string{`"assertion"`, `"authenticator"`, `"verification"`, "signature"} {
		if bytes.Contains(b, []byte(member)) {
			t.Fatalf("a denial carries %s: %s", member, b)
		}
	}
	_, err = h.gate.Consume(ctx, b, req.Action)
	wantCode(t, err, CodeDecisionDenied)
	if e := h.audit.all(); e[len(e)-2].Event != EventDenied || e[len(e)-2].Decision != DecisionDenied {
		t.Fatalf("audit %+v", e)
	}
	_, err = h.c.Deny(ctx, req, "bad\x00reason")
	wantCode(t, err, CodeInvalidRequest)
}

// TestRegistrationWindow: a registration ceremony ends.
func TestRegistrationWindow(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	token, _ := IssueEnrolToken(ctx, h.store, h.clk.Now(), 0, nil)
	creation, sess, err := h.c.BeginRegistration(ctx, RegistrationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.clk.Set(t0.Add(DefaultRegistrationTTL))
	key := newTestKey(h.cfg, counterAdvance)
	_, err = h.c.FinishRegistration(ctx, sess, Authority{EnrolToken: token}, key.create(t, creation))
	wantCode(t, err, CodeRequestExpired)
	h.clk.Set(t0.Add(DefaultRegistrationTTL - time.Millisecond))
	if _, err := h.c.FinishRegistration(ctx, sess, Authority{EnrolToken: token}, key.create(t, creation)); err != nil {
		t.Fatal(err)
	}
}

// TestRegistrationChecks: the attestation is verified before anything is
// spent.
func TestRegistrationChecks(t *testing.T) {
	tests := map[string]func(k *testKey){
		"origin not allowed": func(k *testKey) { k.rp.Origin = "http://localhost:1" },
		"other RP ID":        func(k *testKey) { k.rp.ID = "example.com" },
		"user not verified":  func(k *testKey) { k.auth.Options.UserNotVerified = true },
	}
	for name, mut := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			ctx := t.Context()
			token, _ := IssueEnrolToken(ctx, h.store, h.clk.Now(), 0, nil)
			creation, sess, _ := h.c.BeginRegistration(ctx, RegistrationOptions{})
			key := newTestKey(h.cfg, counterAdvance)
			mut(key)
			_, err := h.c.FinishRegistration(ctx, sess, Authority{EnrolToken: token}, key.create(t, creation))
			wantCode(t, err, CodeVerificationFailed)
			if tok, _ := h.store.EnrolToken(ctx); !tok.RedeemedAt.IsZero() {
				t.Fatal("a refused registration spent the token")
			}
			if all, _ := h.store.Credentials(ctx); len(all) != 0 {
				t.Fatal("a refused registration stored a credential")
			}
		})
	}
}

func TestBeginRegistrationExcludesRegistered(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	key := newTestKey(h.cfg, counterAdvance)
	h.enrolFirst(t, key, "")
	creation, _, err := h.c.BeginRegistration(ctx, RegistrationOptions{Label: "second"})
	if err != nil {
		t.Fatal(err)
	}
	ex := creation.Response.CredentialExcludeList
	if len(ex) != 1 || !bytes.Equal(ex[0].CredentialID, key.cred.ID) {
		t.Fatalf("exclusions %+v", ex)
	}
	if creation.Response.AuthenticatorSelection.UserVerification != protocol.VerificationRequired {
		t.Fatal("user verification is not required")
	}
	_, _, err = h.c.BeginRegistration(ctx, RegistrationOptions{Label: "a\x00"})
	wantCode(t, err, CodeInvalidRequest)
}
