package approval

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// TestRevoke: a revocation needs an approved receipt of RevokeAction by
// another credential (a credential never approves its own, and a receipt
// for another credential's revocation does not serve), or, for the last
// usable credential only, the host's local authority, which is spent only
// once every other check passed. A revoked credential approves nothing
// (not the requests that waited for it either), is left out of the
// allowed credentials, its approvals not yet consumed are refused by the
// gate, it cannot be revoked twice nor registered again, and once every
// credential is revoked the first is enrolled again with a token. Every
// revocation is audited with its method and the hashed reference only.
func TestRevoke(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	a := newTestKey(h.cfg, counterAdvance)
	credA := h.enrolFirst(t, a, "laptop")
	b := registerFurther(t, h, a, "phone", false)
	idA, idB := credA.WebAuthn.ID, b.cred.ID

	// A approves a settlement; the receipt is not consumed yet.
	given := h.settlementRequest(t, "5")
	receipt := h.approve(t, a, given)
	// A request waits; A's assertion will be made after the revocation.
	waiting := h.settlementRequest(t, "6")
	optsBefore, err := h.c.BeginApproval(ctx, waiting)
	if err != nil {
		t.Fatal(err)
	}

	actA, err := h.c.RevokeAction(credA)
	if err != nil {
		t.Fatal(err)
	}
	local := func(context.Context) error { t.Fatal("the local authority was used"); return nil }
	_, err = h.c.Revoke(ctx, idA, Revocation{Local: local})
	wantCode(t, err, CodeNotAuthorized) // another credential can approve
	own := approveAct(t, h, a, actA)
	_, err = h.c.Revoke(ctx, idA, Revocation{Receipt: own})
	wantCode(t, err, CodeNotAuthorized) // A approving its own revocation: refused before the gate spends it
	if r, _ := ParseReceipt(own); r == nil || consumed(t, h, r.RequestID) {
		t.Fatal("A's own approval of its revocation was spent")
	}
	credB, err := h.store.Credential(ctx, idB)
	if err != nil {
		t.Fatal(err)
	}
	actB, _ := h.c.RevokeAction(credB)
	_, err = h.c.Revoke(ctx, idA, Revocation{Receipt: approveAct(t, h, b, actB)})
	wantCode(t, err, CodeActionMismatch) // a receipt for another credential's revocation
	_, err = h.c.Revoke(ctx, idA, Revocation{})
	wantCode(t, err, CodeNotAuthorized)

	revoked, err := h.c.Revoke(ctx, idA, Revocation{Receipt: approveAct(t, h, b, actA)})
	if err != nil || !revoked.Revoked() || !bytes.Equal(revoked.WebAuthn.ID, idA) {
		t.Fatalf("revoking A with B's approval: %+v %v", revoked, err)
	}
	if e := h.audit.last(); e.Event != EventCredentialRevoked || e.Method != MethodApprovedAct || e.CredentialRef != credA.Ref() {
		t.Fatalf("audit %+v", e)
	}
	_, err = h.c.Revoke(ctx, idA, Revocation{Receipt: approveAct(t, h, b, actA)})
	wantCode(t, err, CodeAlreadyRevoked)

	// A approves nothing any more; its receipt is refused before it is
	// spent.
	_, err = h.gate.Consume(ctx, receipt, given.Action)
	wantCode(t, err, CodeCredentialUnknown)
	if consumed(t, h, given.RequestID) {
		t.Fatal("the revoked credential's receipt was spent")
	}
	_, err = h.c.FinishApproval(ctx, waiting, a.get(t, optsBefore))
	wantCode(t, err, CodeCredentialUnknown)
	opts, err := h.c.BeginApproval(ctx, waiting)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range opts.Response.AllowedCredentials {
		if bytes.Equal(c.CredentialID, idA) {
			t.Fatal("a revoked credential is allowed to approve")
		}
	}
	creation, sess, err := h.c.BeginRegistration(ctx, RegistrationOptions{Label: "laptop again"})
	if err != nil {
		t.Fatal(err)
	}
	regAct, _ := h.c.RegisterAction(sess)
	_, err = h.c.FinishRegistration(ctx, sess, Authority{Receipt: approveAct(t, h, b, regAct)}, a.create(t, creation))
	wantCode(t, err, CodeCredentialExists)

	// B is the last usable credential: only the local authority revokes it,
	// and a refusal of that authority revokes nothing.
	refused := errors.New("no token")
	_, err = h.c.Revoke(ctx, idB, Revocation{Local: func(context.Context) error { return refused }})
	if !errors.Is(err, refused) {
		t.Fatalf("a refused local authority: %v", err)
	}
	if c, _ := h.store.Credential(ctx, idB); c.Revoked() {
		t.Fatal("revoked under a refused authority")
	}
	used := false
	if _, err := h.c.Revoke(ctx, idB, Revocation{Local: func(context.Context) error { used = true; return nil }}); err != nil || !used {
		t.Fatalf("revoking the last credential locally: %v (used %v)", err, used)
	}
	if e := h.audit.last(); e.Event != EventCredentialRevoked || e.Method != MethodLocalToken || e.CredentialRef != CredentialRef(idB) {
		t.Fatalf("audit %+v", e)
	}
	if all, _ := h.store.Credentials(ctx); len(all) != 2 || len(Active(all)) != 0 {
		t.Fatalf("credentials after both revocations: %+v", all)
	}
	_, err = h.c.BeginApproval(ctx, h.settlementRequest(t, "7"))
	wantCode(t, err, CodeCredentialUnknown)
	// With every credential revoked, the first is enrolled again.
	h.enrolFirst(t, newTestKey(h.cfg, counterAdvance), "new laptop")
}

// revokeMidConsume is a store whose MarkConsumed first lets a revocation
// commit: the race of a revocation and a consumption of the revoked
// credential's receipt.
type revokeMidConsume struct {
	*MemStore
	id []byte
}

func (s revokeMidConsume) MarkConsumed(ctx context.Context, rec ConsumptionRecord) (bool, error) {
	c, err := s.Credential(ctx, s.id)
	if err != nil {
		return false, err
	}
	c.RevokedAt = time.Now()
	if err := s.PutCredential(ctx, c); err != nil {
		return false, err
	}
	return s.MemStore.MarkConsumed(ctx, rec)
}

// TestRevokedWhileConsumed: a revocation that commits after the gate
// checked the receipt and before its consumption is recorded refuses the
// receipt (credential_unknown): it is spent and authorises nothing.
func TestRevokedWhileConsumed(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	k := newTestKey(h.cfg, counterAdvance)
	cred := h.enrolFirst(t, k, "laptop")
	req := h.settlementRequest(t, "5")
	receipt := h.approve(t, k, req)
	g, err := NewGate(h.cfg, revokeMidConsume{MemStore: h.store, id: cred.WebAuthn.ID}, h.audit)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Consume(ctx, receipt, req.Action)
	wantCode(t, err, CodeCredentialUnknown)
	if ok, _ := h.store.Consumed(ctx, req.RequestID); !ok {
		t.Fatal("the refused receipt is not spent")
	}
}

func consumed(t *testing.T, h *harness, requestID string) bool {
	t.Helper()
	ok, err := h.store.Consumed(context.Background(), requestID)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}
