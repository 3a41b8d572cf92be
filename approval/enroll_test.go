package approval

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// approveAct asks approver (a registered key) to approve act and returns
// the receipt's JSON text.
func approveAct(t *testing.T, h *harness, approver *testKey, act Action) []byte {
	t.Helper()
	req, err := NewRequest(RequestSpec{Action: act, Context: IntentContext{Reason: "add a passkey", Risk: RiskHigh}}, h.clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return h.approve(t, approver, req)
}

// registerFurther registers a new key, approved by approver.
func registerFurther(t *testing.T, h *harness, approver *testKey, label string, software bool) *testKey {
	t.Helper()
	ctx := t.Context()
	k := newTestKey(h.cfg, counterAdvance)
	creation, sess, err := h.c.BeginRegistration(ctx, RegistrationOptions{Label: label, Software: software})
	if err != nil {
		t.Fatal(err)
	}
	act, err := h.c.RegisterAction(sess)
	if err != nil {
		t.Fatal(err)
	}
	cred, err := h.c.FinishRegistration(ctx, sess, Authority{Receipt: approveAct(t, h, approver, act)}, k.create(t, creation))
	if err != nil {
		t.Fatal(err)
	}
	if cred.Label != label || cred.Software != software {
		t.Fatalf("credential %+v", cred)
	}
	return k
}

func TestEnrolToken(t *testing.T) {
	ctx := context.Background()
	t.Run("issue", func(t *testing.T) {
		s := NewMemStore()
		tok, err := IssueEnrolToken(ctx, s, t0, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(tok, EnrolTokenPrefix) || len(tok) != len(EnrolTokenPrefix)+64 {
			t.Fatalf("token %q", tok)
		}
		rec, _ := s.EnrolToken(ctx)
		b, _ := json.Marshal(rec)
		if strings.Contains(string(b), tok[len(EnrolTokenPrefix):]) || rec.Hash != tokenHash(tok) {
			t.Fatal("the token is stored in the clear")
		}
		if !rec.ExpiresAt.Equal(t0.Add(DefaultEnrolTokenTTL)) {
			t.Fatalf("expires %s", rec.ExpiresAt)
		}
		for _, ttl := range []time.Duration{time.Second, MaxEnrolTokenTTL + time.Second, -time.Hour} {
			_, err := IssueEnrolToken(ctx, s, t0, ttl, nil)
			wantCode(t, err, CodeInvalidRequest)
		}
		again, _ := IssueEnrolToken(ctx, s, t0, 0, nil)
		_, err = checkEnrolToken(ctx, s, tok, t0)
		wantCode(t, err, CodeTokenInvalid) // replaced by the new one
		if _, err := checkEnrolToken(ctx, s, again, t0); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("checks", func(t *testing.T) {
		s := NewMemStore()
		_, err := checkEnrolToken(ctx, s, "anything", t0)
		wantCode(t, err, CodeTokenInvalid) // none issued
		tok, _ := IssueEnrolToken(ctx, s, t0, time.Hour, nil)
		last := tok[:len(tok)-1] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", tok[len(tok)-1])+1)%16])
		_, err = checkEnrolToken(ctx, s, last, t0)
		wantCode(t, err, CodeTokenInvalid)
		_, err = checkEnrolToken(ctx, s, tok, t0.Add(time.Hour))
		wantCode(t, err, CodeTokenExpired)
		rec, err := checkEnrolToken(ctx, s, " "+tok+"\n", t0.Add(time.Hour-time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if err := redeemEnrolToken(ctx, s, rec, t0); err != nil {
			t.Fatal(err)
		}
		wantCode(t, redeemEnrolToken(ctx, s, rec, t0), CodeTokenUsed)
		_, err = checkEnrolToken(ctx, s, tok, t0)
		wantCode(t, err, CodeTokenUsed)
	})
}

func TestEnrolment(t *testing.T) {
	t.Run("first credential needs the token", func(t *testing.T) {
		h := newHarness(t)
		ctx := t.Context()
		key := newTestKey(h.cfg, counterAdvance)
		creation, sess, _ := h.c.BeginRegistration(ctx, RegistrationOptions{})
		resp := key.create(t, creation)
		_, err := h.c.FinishRegistration(ctx, sess, Authority{}, resp)
		wantCode(t, err, CodeNotAuthorized) // no authority at all
		_, err = h.c.FinishRegistration(ctx, sess, Authority{EnrolToken: "x", Receipt: []byte("{}")}, resp)
		wantCode(t, err, CodeNotAuthorized) // both
		_, err = h.c.FinishRegistration(ctx, sess, Authority{EnrolToken: "parley-enrol-guess"}, resp)
		wantCode(t, err, CodeTokenInvalid) // none issued
		_, err = h.c.FinishRegistration(ctx, sess, Authority{Receipt: []byte("{}")}, resp)
		wantCode(t, err, CodeNotAuthorized) // nobody to approve
		if all, _ := h.store.Credentials(ctx); len(all) != 0 {
			t.Fatal("registered without authority")
		}
		tok, _ := IssueEnrolToken(ctx, h.store, h.clk.Now(), 0, nil)
		if _, err := h.c.FinishRegistration(ctx, sess, Authority{EnrolToken: tok}, resp); err != nil {
			t.Fatal(err)
		}
		if e := h.audit.last(); e.Event != EventCredentialRegistered || e.Method != MethodEnrolToken || e.CredentialRef == "" {
			t.Fatalf("audit %+v", e)
		}
		// The token is spent: after the credential is removed, it does not
		// enrol again.
		_ = h.store.DeleteCredential(ctx, key.cred.ID)
		k2 := newTestKey(h.cfg, counterAdvance)
		creation, sess, _ = h.c.BeginRegistration(ctx, RegistrationOptions{})
		_, err = h.c.FinishRegistration(ctx, sess, Authority{EnrolToken: tok}, k2.create(t, creation))
		wantCode(t, err, CodeTokenUsed)
	})
	t.Run("further credentials need an approval", func(t *testing.T) {
		h := newHarness(t)
		ctx := t.Context()
		first := newTestKey(h.cfg, counterAdvance)
		h.enrolFirst(t, first, "first")
		// A second token does not enrol a second credential.
		tok, _ := IssueEnrolToken(ctx, h.store, h.clk.Now(), 0, nil)
		k := newTestKey(h.cfg, counterAdvance)
		creation, sess, _ := h.c.BeginRegistration(ctx, RegistrationOptions{Label: "phone"})
		resp := k.create(t, creation)
		_, err := h.c.FinishRegistration(ctx, sess, Authority{EnrolToken: tok}, resp)
		wantCode(t, err, CodeNotAuthorized)
		// An approval of another ceremony's act does not either.
		_, otherSess, _ := h.c.BeginRegistration(ctx, RegistrationOptions{Label: "phone"})
		otherAct, _ := h.c.RegisterAction(otherSess)
		_, err = h.c.FinishRegistration(ctx, sess, Authority{Receipt: approveAct(t, h, first, otherAct)}, resp)
		wantCode(t, err, CodeActionMismatch)
		// Nor an approval of another act, or a denial of this one.
		act, _ := h.c.RegisterAction(sess)
		settle := h.settlementRequest(t, "1")
		_, err = h.c.FinishRegistration(ctx, sess, Authority{Receipt: h.approve(t, first, settle)}, resp)
		wantCode(t, err, CodeActionMismatch)
		denyReq, _ := NewRequest(RequestSpec{Action: act}, h.clk.Now(), nil)
		denied, _ := h.c.Deny(ctx, denyReq, "")
		deniedJSON, _ := json.Marshal(denied)
		_, err = h.c.FinishRegistration(ctx, sess, Authority{Receipt: deniedJSON}, resp)
		wantCode(t, err, CodeDecisionDenied)
		if all, _ := h.store.Credentials(ctx); len(all) != 1 {
			t.Fatal("registered without a valid approval")
		}
		// The approved act of this ceremony does.
		receipt := approveAct(t, h, first, act)
		if _, err := h.c.FinishRegistration(ctx, sess, Authority{Receipt: receipt}, resp); err != nil {
			t.Fatal(err)
		}
		if e := h.audit.last(); e.Event != EventCredentialRegistered || e.Method != MethodApprovedAct {
			t.Fatalf("audit %+v", e)
		}
		// The new credential approves acts; its receipt is spent.
		r := h.settlementRequest(t, "1")
		if _, err := h.gate.Consume(ctx, h.approve(t, k, r), r.Action); err != nil {
			t.Fatal(err)
		}
		creation2, sess2, _ := h.c.BeginRegistration(ctx, RegistrationOptions{Label: "phone"})
		_ = creation2
		_, err = h.c.FinishRegistration(ctx, sess2, Authority{Receipt: receipt}, newTestKey(h.cfg, counterAdvance).create(t, creation2))
		wantCode(t, err, CodeActionMismatch) // bound to the first ceremony
		_, err = h.c.FinishRegistration(ctx, sess, Authority{Receipt: receipt}, resp)
		wantCode(t, err, CodeCredentialExists)
	})
	t.Run("one token, concurrent registrations", func(t *testing.T) {
		h := newHarness(t)
		ctx := t.Context()
		tok, _ := IssueEnrolToken(ctx, h.store, h.clk.Now(), 0, nil)
		const n = 10
		type attempt struct {
			sess *RegistrationSession
			resp []byte
		}
		attempts := make([]attempt, n)
		for i := range attempts {
			creation, sess, _ := h.c.BeginRegistration(ctx, RegistrationOptions{})
			attempts[i] = attempt{sess, newTestKey(h.cfg, counterAdvance).create(t, creation)}
		}
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i, a := range attempts {
			wg.Go(func() { _, errs[i] = h.c.FinishRegistration(ctx, a.sess, Authority{EnrolToken: tok}, a.resp) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else if c := CodeOf(err); c != CodeNotAuthorized && c != CodeTokenUsed {
				t.Fatalf("unexpected %v", err)
			}
		}
		if all, _ := h.store.Credentials(ctx); ok != 1 || len(all) != 1 {
			t.Fatalf("%d registrations succeeded, %d stored", ok, len(all))
		}
	})
}
