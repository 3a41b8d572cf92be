package approval

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-webauthn/webauthn/protocol/webauthncose"
)

func TestSoftwareKey(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	if _, err := NewSoftwareKey(h.cfg, "http://localhost:1"); CodeOf(err) != CodeInvalidConfig {
		t.Fatalf("origin outside the allowlist: %v", err)
	}
	key, err := NewSoftwareKey(h.cfg, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := IssueEnrolToken(ctx, h.store, h.clk.Now(), 0, nil)
	cred, err := RegisterSoftwareKey(ctx, h.c, key, "ci-bot", tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cred.Software || cred.Label != "ci-bot" {
		t.Fatalf("credential %+v", cred)
	}
	if e := h.audit.last(); e.Event != EventCredentialRegistered || !e.Software {
		t.Fatalf("audit %+v", e)
	}
	for i := range 2 {
		req := h.settlementRequest(t, "1")
		r, err := ApproveWithSoftwareKey(ctx, h.c, key, req)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Authenticator.Software {
			t.Fatal("receipt not marked as a software key's")
		}
		if e := h.audit.last(); e.Event != EventApproved || !e.Software {
			t.Fatalf("audit %+v", e)
		}
		b, _ := json.Marshal(r)
		c, err := h.gate.Consume(ctx, b, req.Action)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Software || !h.audit.last().Software {
			t.Fatal("consumption not marked as a software key's")
		}
		// The receipt cannot pass for a passkey's.
		if rec, _ := h.store.Approval(ctx, req.RequestID); rec.SignCount != uint32(i+1) {
			t.Fatalf("count %d", rec.SignCount)
		}
	}

	// Saved and restored, the key goes on approving; a stale copy is a
	// clone.
	stale, _ := json.Marshal(key)
	if _, err := ApproveWithSoftwareKey(ctx, h.c, key, h.settlementRequest(t, "1")); err != nil {
		t.Fatal(err)
	}
	saved, _ := json.Marshal(key)
	var restored SoftwareKey
	if err := json.Unmarshal(saved, &restored); err != nil {
		t.Fatal(err)
	}
	if _, err := ApproveWithSoftwareKey(ctx, h.c, &restored, h.settlementRequest(t, "1")); err != nil {
		t.Fatal(err)
	}
	var old SoftwareKey
	_ = json.Unmarshal(stale, &old)
	_, err = ApproveWithSoftwareKey(ctx, h.c, &old, h.settlementRequest(t, "1"))
	wantCode(t, err, CodeCredentialCloned)
	if err := json.Unmarshal([]byte(`{"rp":{}}`), &old); err == nil {
		t.Fatal("incomplete state accepted")
	}
}

// TestSoftwareKeyAsFurtherCredential: a software key added next to a
// passkey needs the passkey's approval, and the act names it as software.
func TestSoftwareKeyAsFurtherCredential(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	passkey := newTestKey(h.cfg, counterZero)
	h.enrolFirst(t, passkey, "laptop")
	key, _ := NewSoftwareKey(h.cfg, testOrigin)
	_, err := RegisterSoftwareKey(ctx, h.c, key, "bot", "", nil)
	wantCode(t, err, CodeNotAuthorized)
	var seen Action
	cred, err := RegisterSoftwareKey(ctx, h.c, key, "bot", "", func(_ context.Context, act Action) ([]byte, error) {
		seen = act
		return approveAct(t, h, passkey, act), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var args map[string]any
	_ = json.Unmarshal(seen.Arguments, &args)
	if seen.Tool != ToolPasskeyRegister || args["software"] != true || args["label"] != "bot" || args["registrationChallenge"] == "" {
		t.Fatalf("registration act %+v", seen)
	}
	if !cred.Software {
		t.Fatal("not marked")
	}
	// Registering the same key again is refused by the key itself (it is
	// in the exclusion list).
	creation, _, _ := h.c.BeginRegistration(ctx, RegistrationOptions{Software: true})
	_, err = key.Create(creation)
	wantCode(t, err, CodeCredentialExists)
}

// TestSoftwareKeysParse: the keys this package generates always give COSE
// keys go-webauthn accepts (virtualwebauthn's own drop leading zero bytes
// of a coordinate about once in 128 keys).
func TestSoftwareKeysParse(t *testing.T) {
	for range 1000 {
		c, err := newP256Credential()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := webauthncose.ParsePublicKey(c.Key.AttestationData()); err != nil {
			t.Fatal(err)
		}
	}
}
