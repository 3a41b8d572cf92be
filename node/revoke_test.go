package node_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/node"
)

// selfAssertion is key's assertion for the pending request id even where
// the node does not offer key: the allowed credentials are dropped.
func selfAssertion(t *testing.T, n *tnode, key *approval.SoftwareKey, id string) []byte {
	t.Helper()
	opts, err := n.Gate().ApprovalOptions(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	opts.Response.AllowedCredentials = nil
	resp, err := key.Get(opts)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestPasskeyRevocation: a passkey is revoked only with ANOTHER passkey's
// approval of a revoke_passkey request (the one revoked is not offered
// and its own assertion is refused, the request still waiting); once
// revoked it approves nothing: not a request that was already waiting,
// and a receipt it gave that was not consumed yet (a registration's) is
// refused by the consumption gate. The last passkey is revoked only with
// the data directory's token made for it, once. Each revocation is
// audited without the credential's id, is durable, and with every
// passkey revoked the first is enrolled again with the data directory's
// enrolment token.
func TestPasskeyRevocation(t *testing.T) {
	w := newWorld(t, false)
	n := w.add("principal", withPasskeys())
	ctx := t.Context()
	a := enrol(t, n, "laptop")
	refA := approval.CredentialRef(a.CredentialID())
	// B, approved by A.
	_, sessB, err := n.Gate().BeginPasskeyWith(ctx, node.PasskeyOptions{Label: "phone", Software: true})
	var pr *node.PendingRegistration
	if !asPending(err, &pr) {
		t.Fatalf("a further passkey: %v", err)
	}
	approveWith(t, n, a, pr.RequestID)
	b := finishWith(t, n, sessB)
	refB := approval.CredentialRef(b.CredentialID())
	// C's registration: A approves it, the receipt waits in the session.
	_, sessC, err := n.Gate().BeginPasskeyWith(ctx, node.PasskeyOptions{Label: "tablet", Software: true})
	if !asPending(err, &pr) {
		t.Fatalf("C's registration: %v", err)
	}
	approveWith(t, n, a, pr.RequestID)
	// An act waits for a decision.
	const nid = "0b7e4a4e-3c2d-4f5a-9b8c-1d2e3f4a5b6c"
	acted := runAct(func() error {
		return n.AuthorizeForTest(context.Background(), node.ActRule, nid, map[string]any{"ruling": "1"})
	})
	act := pending(t, n, 1)[0]

	// Revoking A: a request another passkey approves.
	revoked := make(chan approval.Credential, 1)
	done := runAct(func() error {
		c, err := n.Gate().RevokePasskey(ctx, refA, "")
		revoked <- c
		return err
	})
	var rv node.PendingApproval
	eventually(t, "the revoke_passkey request", func() bool {
		for _, p := range n.Gate().PendingApprovals() {
			if p.Act == node.ActRevokePasskey {
				rv = p
				return true
			}
		}
		return false
	})
	if rv.Request.Action.Tool != approval.ToolPasskeyRevoke || rv.Title != "Revoke the software key «laptop»" || !strings.Contains(strings.Join(linesOf(rv), "\n"), "Credential: "+refA) {
		t.Fatalf("the revocation request: %+v", rv)
	}
	opts, err := n.Gate().ApprovalOptions(ctx, rv.Request.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range opts.Response.AllowedCredentials {
		if bytes.Equal(c.CredentialID, a.CredentialID()) {
			t.Fatal("the passkey revoked is offered to approve its revocation")
		}
	}
	if _, err := n.Gate().FinishApproval(ctx, rv.Request.RequestID, selfAssertion(t, n, a, rv.Request.RequestID)); node.CodeOf(err) != node.Code(approval.CodeNotAuthorized) {
		t.Fatalf("A approving its own revocation: %v", err)
	}
	if _, err := n.Gate().PendingApproval(rv.Request.RequestID); err != nil {
		t.Fatalf("the revocation after a refused approval: %v", err)
	}
	approveWith(t, n, b, rv.Request.RequestID)
	if err := done(); err != nil {
		t.Fatal(err)
	}
	if c := <-revoked; !c.Revoked() || c.Ref() != refA {
		t.Fatalf("revoked %+v", c)
	}

	// A approves nothing any more.
	if _, err := n.Gate().FinishPasskey(ctx, sessC, []byte(`{}`)); err == nil {
		t.Fatal("finished C's registration without an attestation")
	}
	cKey := newSoftwareKey(t, n)
	creation, _, err := n.Gate().BeginPasskey(ctx, sessC, "")
	if err != nil {
		t.Fatal(err)
	}
	att, err := cKey.Create(creation)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Gate().FinishPasskey(ctx, sessC, att); node.CodeOf(err) != node.Code(approval.CodeCredentialUnknown) {
		t.Fatalf("C registered on the revoked A's unconsumed receipt: %v", err)
	}
	if _, err := n.Gate().FinishApproval(ctx, act.Request.RequestID, selfAssertion(t, n, a, act.Request.RequestID)); node.CodeOf(err) != node.Code(approval.CodeCredentialUnknown) {
		t.Fatalf("the revoked A approving a waiting act: %v", err)
	}
	approveWith(t, n, b, act.Request.RequestID)
	if err := acted(); err != nil {
		t.Fatalf("the act B approved: %v", err)
	}
	if _, err := n.Gate().RevokePasskey(ctx, refA, ""); node.CodeOf(err) != node.Code(approval.CodeAlreadyRevoked) {
		t.Fatalf("revoking A twice: %v", err)
	}

	// B is the last: no request (no one could approve it), only the data
	// directory's token made for B, once.
	if _, err := n.Gate().RevokePasskey(ctx, refB, ""); node.CodeOf(err) != node.Code(approval.CodeNotAuthorized) || !strings.Contains(err.Error(), "last usable") {
		t.Fatalf("revoking the last passkey without a token: %v", err)
	}
	forA, err := node.IssueRevokeToken(n.dir, refA, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Gate().RevokePasskey(ctx, refB, forA); node.CodeOf(err) != node.Code(approval.CodeTokenInvalid) {
		t.Fatalf("a token made for another passkey: %v", err)
	}
	forB, err := node.IssueRevokeToken(n.dir, refB, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := n.Gate().RevokePasskey(ctx, refB, forB); err != nil || !c.Revoked() {
		t.Fatalf("revoking the last passkey with its token: %+v %v", c, err)
	}
	if _, err := n.Gate().RevokePasskey(ctx, refB, forB); node.CodeOf(err) != node.Code(approval.CodeAlreadyRevoked) {
		t.Fatalf("the token again: %v", err)
	}

	// Audited, without the credentials' ids; durable.
	var methods []string
	trail, err := n.Gate().AuditTrail(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range trail {
		if e.Event == approval.EventCredentialRevoked {
			methods = append(methods, e.Method+" "+e.CredentialRef)
		}
	}
	if strings.Join(methods, ",") != approval.MethodLocalToken+" "+refB+","+approval.MethodApprovedAct+" "+refA {
		t.Fatalf("revocations audited as %v", methods)
	}
	for e, err := range n.Ledger().ByKind(ctx, ledger.KindApproval) {
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range [][]byte{a.CredentialID(), b.CredentialID()} {
			if bytes.Contains(e.Body, []byte(base64.RawURLEncoding.EncodeToString(id))) || bytes.Contains(e.Body, []byte(forB)) {
				t.Fatalf("audit entry #%d holds a credential id or a token: %s", e.Seq, e.Body)
			}
		}
	}
	n.restart()
	creds, err := n.Gate().Passkeys(ctx)
	if err != nil || len(creds) != 2 || !creds[0].Revoked() || !creds[1].Revoked() {
		t.Fatalf("passkeys after a restart: %+v %v", creds, err)
	}
	enrol(t, n, "new laptop")
}

func asPending(err error, pr **node.PendingRegistration) bool {
	return err != nil && node.CodeOf(err) == node.CodeApprovalPending && errors.As(err, pr)
}

// finishWith finishes the approved registration session sess with a new
// software key and returns it.
func finishWith(t *testing.T, n *tnode, sess string) *approval.SoftwareKey {
	t.Helper()
	key := newSoftwareKey(t, n)
	creation, _, err := n.Gate().BeginPasskey(t.Context(), sess, "")
	if err != nil {
		t.Fatal(err)
	}
	att, err := key.Create(creation)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Gate().FinishPasskey(t.Context(), sess, att); err != nil {
		t.Fatal(err)
	}
	return key
}

func newSoftwareKey(t *testing.T, n *tnode) *approval.SoftwareKey {
	t.Helper()
	cfg := n.Gate().WebAuthnConfig()
	key, err := approval.NewSoftwareKey(cfg, cfg.Origins[0])
	if err != nil {
		t.Fatal(err)
	}
	return key
}
