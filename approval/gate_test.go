package approval

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// mutate decodes a receipt, applies f and encodes it again.
func mutate(t *testing.T, receipt []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(receipt, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func obj(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		m = m[p].(map[string]any)
	}
	return m
}

// flip changes one byte of a base64url member.
func flip(s string, at int) string {
	b, _ := base64.RawURLEncoding.DecodeString(s)
	b[at%len(b)] ^= 1
	return base64.RawURLEncoding.EncodeToString(b)
}

// TestGateCodes crafts, for every error code of seed section 8, receipts
// that produce exactly that code, and checks that a refusal consumes
// nothing and is audited.
func TestGateCodes(t *testing.T) {
	type craft func(t *testing.T, h *harness, key *testKey, req IntentRequest, receipt []byte) ([]byte, Action)
	same := func(f func(m map[string]any)) craft {
		return func(t *testing.T, _ *harness, _ *testKey, req IntentRequest, receipt []byte) ([]byte, Action) {
			return mutate(t, receipt, f), req.Action
		}
	}
	otherHash := strings.Repeat("ab", 32)
	cases := []struct {
		name  string
		code  Code
		craft craft
	}{
		{"not JSON", CodeInvalidReceipt, func(*testing.T, *harness, *testKey, IntentRequest, []byte) ([]byte, Action) {
			return []byte("{"), Action{}
		}},
		{"wrong kind", CodeInvalidReceipt, same(func(m map[string]any) { m["kind"] = "IntentRequest" })},
		{"wrong version", CodeInvalidReceipt, same(func(m map[string]any) { m["version"] = "0.2" })},
		{"unknown member", CodeInvalidReceipt, same(func(m map[string]any) { m["policy"] = "allow-all" })},
		{"unknown decision", CodeInvalidReceipt, same(func(m map[string]any) { m["decision"] = "maybe" })},
		{"approval without assertion", CodeInvalidReceipt, same(func(m map[string]any) { delete(m, "assertion") })},
		{"approval without signature", CodeInvalidReceipt, same(func(m map[string]any) { delete(obj(m, "assertion", "response"), "signature") })},
		{"user not verified", CodeInvalidReceipt, same(func(m map[string]any) { obj(m, "verification")["userVerified"] = false })},
		{"other authenticator type", CodeInvalidReceipt, same(func(m map[string]any) { obj(m, "authenticator")["type"] = "password" })},
		{"credential id not base64url", CodeInvalidReceipt, same(func(m map[string]any) { obj(m, "authenticator")["credentialId"] = "a+b/" })},
		{"denial with an assertion", CodeInvalidReceipt, same(func(m map[string]any) { m["decision"] = "denied" })},
		{"timestamp spelling", CodeInvalidReceipt, same(func(m map[string]any) {
			m["signedAt"] = strings.Replace(m["signedAt"].(string), ".000Z", "Z", 1)
		})},
		{"duplicate member", CodeInvalidReceipt, func(t *testing.T, _ *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			return bytes.Replace(r, []byte(`"decision":"approved"`), []byte(`"decision":"denied","decision":"approved"`), 1), req.Action
		}},
		{"denial", CodeDecisionDenied, func(t *testing.T, h *harness, _ *testKey, req IntentRequest, _ []byte) ([]byte, Action) {
			d, err := h.c.Deny(t.Context(), req, "")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(d)
			return b, req.Action
		}},
		{"window elapsed", CodeReceiptExpired, func(t *testing.T, h *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			h.clk.Set(req.ExpiresAt)
			return r, req.Action
		}},
		{"receipt window stretched", CodeReceiptExpired, func(t *testing.T, h *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			h.clk.Set(req.ExpiresAt)
			return mutate(t, r, func(m map[string]any) { m["expiresAt"] = formatTime(req.ExpiresAt.Add(time.Hour)) }), req.Action
		}},
		{"embedded target changed", CodeTamperedIntent, same(func(m map[string]any) { obj(m, "intent", "action")["target"] = "another-negotiation" })},
		{"embedded nonce changed", CodeTamperedIntent, same(func(m map[string]any) {
			obj(m, "intent")["nonce"] = strings.Repeat("0", 64)
		})},
		{"embedded request malformed", CodeTamperedIntent, same(func(m map[string]any) { obj(m, "intent")["version"] = "9" })},
		{"receipt hash differs", CodeHashMismatch, same(func(m map[string]any) { m["intentHash"] = otherHash })},
		{"receipt requestId differs", CodeHashMismatch, same(func(m map[string]any) { m["requestId"] = "req_other" })},
		{"receipt nonce differs", CodeHashMismatch, same(func(m map[string]any) { m["nonce"] = strings.Repeat("1", 64) })},
		{"receipt expiresAt differs", CodeHashMismatch, func(t *testing.T, _ *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			return mutate(t, r, func(m map[string]any) { m["expiresAt"] = formatTime(req.ExpiresAt.Add(-time.Second)) }), req.Action
		}},
		{"other tool", CodeActionMismatch, func(t *testing.T, _ *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			a := req.Action
			a.Tool = ToolEscrowFund
			return r, a
		}},
		{"other target", CodeActionMismatch, func(t *testing.T, _ *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			a := req.Action
			a.Target = "another-negotiation"
			return r, a
		}},
		{"other amount", CodeActionMismatch, func(t *testing.T, _ *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			a := req.Action
			a.Arguments = bytes.Replace(a.Arguments, []byte(`"amount":"1500"`), []byte(`"amount":"15000"`), 1)
			return r, a
		}},
		{"an argument added", CodeActionMismatch, func(t *testing.T, _ *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			a := req.Action
			a.Arguments = append(json.RawMessage(`{"extra":1,`), a.Arguments[1:]...)
			return r, a
		}},
		{"unrepresentable action", CodeActionMismatch, func(t *testing.T, _ *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			a := req.Action
			a.Arguments = json.RawMessage(`{"x":1e999}`)
			return r, a
		}},
		{"replay", CodeAlreadyConsumed, func(t *testing.T, h *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			if _, err := h.gate.Consume(t.Context(), r, req.Action); err != nil {
				t.Fatal(err)
			}
			return r, req.Action
		}},
		{"credential removed", CodeCredentialUnknown, func(t *testing.T, h *harness, k *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			if err := h.store.DeleteCredential(t.Context(), k.cred.ID); err != nil {
				t.Fatal(err)
			}
			return r, req.Action
		}},
		{"signature changed", CodeVerificationFailed, same(func(m map[string]any) {
			resp := obj(m, "assertion", "response")
			resp["signature"] = flip(resp["signature"].(string), 20)
		})},
		{"authenticator data changed", CodeVerificationFailed, same(func(m map[string]any) {
			resp := obj(m, "assertion", "response")
			resp["authenticatorData"] = flip(resp["authenticatorData"].(string), 36) // the counter
		})},
		{"assertion of another approval", CodeVerificationFailed, func(t *testing.T, h *harness, k *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			other := h.approve(t, k, h.settlementRequest(t, "1500"))
			var o map[string]any
			_ = json.Unmarshal(other, &o)
			return mutate(t, r, func(m map[string]any) { m["assertion"] = o["assertion"] }), req.Action
		}},
		{"assertion over a forged challenge", CodeVerificationFailed, func(t *testing.T, h *harness, k *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			// The right key signs the right hash, but outside any approval:
			// the count differs from the one recorded at approval.
			ch, _ := req.Challenge()
			var a Assertion
			_ = json.Unmarshal(k.signChallenge(ch), &a)
			return mutate(t, r, func(m map[string]any) { m["assertion"] = a }), req.Action
		}},
		{"software mark added", CodeVerificationFailed, same(func(m map[string]any) { obj(m, "authenticator")["software"] = true })},
		{"approval by another registered credential", CodeVerificationFailed, func(t *testing.T, h *harness, k *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			second := registerFurther(t, h, k, "second", false)
			return mutate(t, r, func(m map[string]any) {
				obj(m, "authenticator")["credentialId"] = base64.RawURLEncoding.EncodeToString(second.cred.ID)
			}), req.Action
		}},
		{"approval not recorded", CodeVerificationFailed, func(t *testing.T, h *harness, k *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			fresh := NewMemStore()
			c, _ := h.store.Credential(t.Context(), k.cred.ID)
			_ = fresh.PutCredential(t.Context(), c)
			g, err := NewGate(h.cfg, fresh, h.audit)
			if err != nil {
				t.Fatal(err)
			}
			h.gate = g
			return r, req.Action
		}},
		{"count other than at approval", CodeVerificationFailed, func(t *testing.T, h *harness, k *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			fresh := NewMemStore()
			c, _ := h.store.Credential(t.Context(), k.cred.ID)
			rec, _ := h.store.Approval(t.Context(), req.RequestID)
			rec.SignCount++
			_, _ = fresh.RecordApproval(t.Context(), rec, c)
			g, _ := NewGate(h.cfg, fresh, h.audit)
			h.gate = g
			return r, req.Action
		}},
		{"whole intent re-hashed", CodeVerificationFailed, func(t *testing.T, h *harness, _ *testKey, req IntentRequest, r []byte) ([]byte, Action) {
			// The attacker changes the target and recomputes every hash:
			// integrity and binding pass, the signature cannot.
			forged := req
			forged.Action.Target = "another-negotiation"
			forged.IntentHash, _ = forged.ComputeHash()
			return mutate(t, r, func(m map[string]any) {
				m["intent"] = forged
				m["intentHash"] = forged.IntentHash
			}), forged.Action
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			key := newTestKey(h.cfg, counterAdvance)
			h.enrolFirst(t, key, "")
			req := h.settlementRequest(t, "1500")
			receipt := h.approve(t, key, req)
			crafted, action := tc.craft(t, h, key, req, receipt)
			before := h.audit.count(EventConsumptionRejected)
			_, err := h.gate.Consume(t.Context(), crafted, action)
			wantCode(t, err, tc.code)
			if h.audit.count(EventConsumptionRejected) != before+1 || h.audit.last().Code != tc.code {
				t.Fatalf("audit %+v", h.audit.last())
			}
			if tc.code != CodeAlreadyConsumed {
				if done, _ := h.store.Consumed(t.Context(), req.RequestID); done {
					t.Fatal("a refused receipt was consumed")
				}
			}
		})
	}
}

// TestGateOrder: when a receipt fails several checks, the first in the
// seed's order decides the code.
func TestGateOrder(t *testing.T) {
	h := newHarness(t)
	key := newTestKey(h.cfg, counterAdvance)
	h.enrolFirst(t, key, "")
	ctx := t.Context()

	req := h.settlementRequest(t, "1")
	receipt := h.approve(t, key, req)
	tampered := mutate(t, receipt, func(m map[string]any) { obj(m, "intent", "action")["target"] = "x" })
	other := req.Action
	other.Tool = "other"
	_, err := h.gate.Consume(ctx, tampered, other)
	wantCode(t, err, CodeTamperedIntent) // before action_mismatch

	if _, err := h.gate.Consume(ctx, receipt, req.Action); err != nil {
		t.Fatal(err)
	}
	badSig := mutate(t, receipt, func(m map[string]any) {
		resp := obj(m, "assertion", "response")
		resp["signature"] = flip(resp["signature"].(string), 9)
	})
	_, err = h.gate.Consume(ctx, badSig, req.Action)
	wantCode(t, err, CodeAlreadyConsumed) // before verification_failed

	denied, _ := h.c.Deny(ctx, h.settlementRequest(t, "1"), "")
	deniedJSON, _ := json.Marshal(denied)
	h.clk.Set(t0.Add(time.Hour))
	_, err = h.gate.Consume(ctx, deniedJSON, denied.Intent.Action)
	wantCode(t, err, CodeDecisionDenied) // before receipt_expired
	_, err = h.gate.Consume(ctx, tampered, other)
	wantCode(t, err, CodeReceiptExpired) // before tampered_intent
}

// TestConcurrentConsume: 100 concurrent redemptions of one receipt, exactly
// one succeeds.
func TestConcurrentConsume(t *testing.T) {
	h := newHarness(t)
	key := newTestKey(h.cfg, counterAdvance)
	h.enrolFirst(t, key, "")
	req := h.settlementRequest(t, "1")
	receipt := h.approve(t, key, req)
	const n = 100
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = h.gate.Consume(t.Context(), receipt, req.Action)
		})
	}
	close(start)
	wg.Wait()
	ok, replays := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case CodeOf(err) == CodeAlreadyConsumed:
			replays++
		default:
			t.Fatalf("unexpected %v", err)
		}
	}
	if ok != 1 || replays != n-1 {
		t.Fatalf("%d successes and %d already_consumed, want 1 and %d", ok, replays, n-1)
	}
	if h.audit.count(EventConsumed) != 1 || h.audit.count(EventConsumptionRejected) != n-1 {
		t.Fatal("audit does not show one consumption")
	}
}

// TestSpentEvenIfActFails: consumption is recorded before the act, so a
// failed act does not give the receipt back; an audit failure withholds the
// authorisation and still spends it.
func TestSpentEvenIfActFails(t *testing.T) {
	h := newHarness(t)
	key := newTestKey(h.cfg, counterAdvance)
	h.enrolFirst(t, key, "")
	ctx := t.Context()
	req := h.settlementRequest(t, "1")
	receipt := h.approve(t, key, req)
	act := func() error { return errors.New("the chain refused the transaction") }
	if _, err := h.gate.Consume(ctx, receipt, req.Action); err != nil {
		t.Fatal(err)
	}
	if done, _ := h.store.Consumed(ctx, req.RequestID); !done {
		t.Fatal("not recorded before the act")
	}
	if act() == nil {
		t.Fatal("the act was meant to fail")
	}
	_, err := h.gate.Consume(ctx, receipt, req.Action)
	wantCode(t, err, CodeAlreadyConsumed)

	req2 := h.settlementRequest(t, "2")
	receipt2 := h.approve(t, key, req2)
	h.audit.fail = errors.New("ledger full")
	if _, err := h.gate.Consume(ctx, receipt2, req2.Action); err == nil {
		t.Fatal("authorised without an audit entry")
	}
	h.audit.fail = nil
	_, err = h.gate.Consume(ctx, receipt2, req2.Action)
	wantCode(t, err, CodeAlreadyConsumed)
}

// TestReverifyUsesCountAtApproval: a receipt is consumed with the count
// recorded at its approval, also after later approvals advanced the
// credential, and a 0-count authenticator is not taken for a clone.
func TestReverifyUsesCountAtApproval(t *testing.T) {
	for name, mode := range map[string]counterMode{"advancing": counterAdvance, "always zero": counterZero} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			key := newTestKey(h.cfg, mode)
			h.enrolFirst(t, key, "")
			var reqs []IntentRequest
			var receipts [][]byte
			for range 3 {
				r := h.settlementRequest(t, "1")
				reqs, receipts = append(reqs, r), append(receipts, h.approve(t, key, r))
			}
			for _, i := range []int{1, 0, 2} { // out of order
				if _, err := h.gate.Consume(t.Context(), receipts[i], reqs[i].Action); err != nil {
					t.Fatalf("receipt %d: %v", i, err)
				}
			}
			c, _ := h.store.Credential(t.Context(), key.cred.ID)
			if c.Cloned() {
				t.Fatal("re-verification flagged the credential")
			}
		})
	}
}

// TestAuditHoldsNoRawArguments runs every audited path with distinctive
// argument values and free text and checks no audit entry holds them.
func TestAuditHoldsNoRawArguments(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	key := newTestKey(h.cfg, counterAdvance)
	h.enrolFirst(t, key, "")
	secrets := []string{"987654321987654321", "0xSecretDigestValue", "counterparty-Mallory", "Pay Mallory quietly", "because I said so"}
	act, err := NewAction(ToolSettlementSign, "sign", "neg-1", map[string]any{
		"amount": secrets[0], "settlementDigest": secrets[1], "counterparty": secrets[2],
	})
	if err != nil {
		t.Fatal(err)
	}
	mk := func() IntentRequest {
		r, err := NewRequest(RequestSpec{Action: act, Context: IntentContext{Reason: secrets[3], Risk: RiskHigh}}, h.clk.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	req := mk()
	receipt := h.approve(t, key, req)
	_, _ = h.gate.Consume(ctx, receipt, act)
	_, _ = h.gate.Consume(ctx, receipt, act) // rejected
	_, _ = h.c.Deny(ctx, mk(), secrets[4])
	other := mk()
	opts, _ := h.c.BeginApproval(ctx, other)
	_, _ = h.c.FinishApproval(ctx, mk(), key.get(t, opts)) // assertion rejected
	_ = h.audit.Record(ctx, RequestEvent(EventRequestCreated, other, h.clk.Now()))

	kinds := map[EventKind]bool{}
	for _, e := range h.audit.all() {
		kinds[e.Event] = true
		b, _ := json.Marshal(e)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Fatalf("audit entry holds %q: %s", s, b)
			}
		}
		if bytes.Contains(b, []byte(base64.RawURLEncoding.EncodeToString(key.cred.ID))) {
			t.Fatalf("audit entry holds the raw credential id: %s", b)
		}
		if e.Event != EventCredentialRegistered && (e.IntentHash == "" || e.Tool != ToolSettlementSign || e.Target != "neg-1") {
			t.Fatalf("audit entry lacks the labels: %s", b)
		}
	}
	for _, k := range []EventKind{EventCredentialRegistered, EventApproved, EventConsumed, EventConsumptionRejected, EventDenied, EventAssertionRejected, EventRequestCreated} {
		if !kinds[k] {
			t.Fatalf("no %s event", k)
		}
	}
}
