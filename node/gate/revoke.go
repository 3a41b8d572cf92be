package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/parleynet/parley/approval"
)

// Revocation of the principal's passkeys. A revocation is itself approved:
// by ANOTHER passkey (a pending revoke_passkey request that the credential
// revoked cannot approve; the receipt's credential is checked again when
// it is consumed), or, when the credential is the last usable one, by a
// one-time token that only the data directory holds (IssueRevokeToken,
// which `parley approvals passkeys revoke` makes on the node's machine).
// Every revocation is audited (credential-revoked, the method and the
// hashed reference). A revoked credential approves nothing from then on:
// not the requests already waiting, and the gate refuses its approvals
// not yet consumed.

// passkeyByRef returns the credential whose hashed reference is ref.
func (g *Gate) passkeyByRef(ctx context.Context, ref string) (approval.Credential, []approval.Credential, error) {
	creds, err := g.store.Credentials(ctx)
	if err != nil {
		return approval.Credential{}, nil, failWrap(CodeStoreFailed, err, "credentials")
	}
	for _, c := range creds {
		if c.Ref() == ref {
			return c, creds, nil
		}
	}
	return approval.Credential{}, nil, fail(Code(approval.CodeCredentialUnknown), "no passkey has reference %q (parley approvals passkeys list names them)", ref)
}

// othersUsable counts the usable credentials of creds (not revoked, not
// cloned) other than id.
func othersUsable(creds []approval.Credential, id []byte) int {
	k := 0
	for _, c := range creds {
		if !c.Revoked() && !c.Cloned() && !bytes.Equal(c.ID(), id) {
			k++
		}
	}
	return k
}

// revocation checks that the credential ref can be revoked by another
// passkey's approval and returns it with the act and the options of its
// request.
func (g *Gate) revocation(ctx context.Context, ref string) (approval.Credential, authOpts, map[string]any, error) {
	if err := g.running(); err != nil {
		return approval.Credential{}, authOpts{}, nil, err
	}
	cred, creds, err := g.passkeyByRef(ctx, ref)
	if err != nil {
		return approval.Credential{}, authOpts{}, nil, err
	}
	if cred.Revoked() {
		return approval.Credential{}, authOpts{}, nil, fail(Code(approval.CodeAlreadyRevoked), "passkey %s was revoked at %s", ref, cred.RevokedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if g.cfg.Decider != nil {
		return approval.Credential{}, authOpts{}, nil, fail(Code(approval.CodeNotAuthorized), "an explicit gate approves no revocation: another passkey must, or the data directory's token for the last one")
	}
	if othersUsable(creds, cred.ID()) == 0 {
		return approval.Credential{}, authOpts{}, nil, fail(Code(approval.CodeNotAuthorized),
			"passkey %s is the last usable one: no other passkey can approve its revocation; revoke it with the data directory's token (`parley approvals passkeys revoke %s` on this node's machine)", ref, ref)
	}
	act, err := g.cer.RevokeAction(cred)
	if err != nil {
		return approval.Credential{}, authOpts{}, nil, approvalFailure(err, "revocation act")
	}
	o := authOpts{action: &act, exclude: cred.ID()}
	var args map[string]any
	_ = json.Unmarshal(act.Arguments, &args)
	return cred, o, args, nil
}

// revokeReason is the request's sentence.
func revokeReason(c approval.Credential) string {
	kind := "the passkey"
	if c.Software {
		kind = "the software key"
	}
	return "revoke " + kind + " «" + c.Label + "»: it approves nothing from then on, not even the requests already waiting for it; approve with another passkey"
}

// RevokePasskey revokes the principal's passkey with hashed reference
// ref and returns it revoked. Without a token it makes a revoke_passkey
// request that another passkey must approve (the one revoked is refused,
// and not offered), waits for the decision within the request's window
// like a gated act, and revokes once the receipt is consumed; it refuses
// with not_authorized when no other usable passkey exists or the node has
// an explicit gate. With token, the one-time token only the data
// directory holds (IssueRevokeToken), it revokes at once, and only the
// last usable passkey: while another exists, that one must approve.
// Every revocation is audited; a refusal revokes nothing and spends no
// token.
func (g *Gate) RevokePasskey(ctx context.Context, ref, token string) (approval.Credential, error) {
	if token != "" {
		return g.revokeWithToken(ctx, ref, token)
	}
	cred, o, args, err := g.revocation(ctx, ref)
	if err != nil {
		return approval.Credential{}, err
	}
	var out approval.Credential
	o.consume = func(ctx context.Context, receipt []byte) error {
		c, err := g.cer.Revoke(ctx, cred.ID(), approval.Revocation{Receipt: receipt})
		if err != nil {
			return revokeFailure(err, ref)
		}
		out = c
		g.revoked(c, approval.MethodApprovedAct)
		return nil
	}
	if _, err := g.authorizeWith(ctx, ActRevokePasskey, "", args, revokeReason(cred), "critical", o); err != nil {
		return approval.Credential{}, err
	}
	return out, nil
}

// BeginRevokePasskey is RevokePasskey without a token for the principal's
// pages: it makes the revoke_passkey request and returns it at once; the
// revocation happens when another passkey approves it.
func (g *Gate) BeginRevokePasskey(ctx context.Context, ref string) (PendingApproval, error) {
	cred, o, args, err := g.revocation(ctx, ref)
	if err != nil {
		return PendingApproval{}, err
	}
	o.consume = func(ctx context.Context, receipt []byte) error {
		c, err := g.cer.Revoke(ctx, cred.ID(), approval.Revocation{Receipt: receipt})
		if err != nil {
			return revokeFailure(err, ref)
		}
		g.revoked(c, approval.MethodApprovedAct)
		return nil
	}
	return g.ask(ActRevokePasskey, "", args, revokeReason(cred), "critical", o, func(context.Context) error { return nil })
}

// revokeWithToken revokes the last usable passkey ref with the data
// directory's revocation token.
func (g *Gate) revokeWithToken(ctx context.Context, ref, token string) (approval.Credential, error) {
	if err := g.running(); err != nil {
		return approval.Credential{}, err
	}
	cred, _, err := g.passkeyByRef(ctx, ref)
	if err != nil {
		return approval.Credential{}, err
	}
	c, err := g.cer.Revoke(ctx, cred.ID(), approval.Revocation{Local: func(context.Context) error {
		return g.tokens.redeemRevoke(token, ref, g.now())
	}})
	if err != nil {
		return approval.Credential{}, revokeFailure(err, ref)
	}
	g.revoked(c, approval.MethodLocalToken)
	return c, nil
}

// revoked logs and publishes a revocation.
func (g *Gate) revoked(c approval.Credential, method string) {
	g.log.Info("passkey revoked", "label", c.Label, "software", c.Software, "ref", c.Ref(), "method", method)
	g.publish("", ActRevokePasskey, string(approval.EventCredentialRevoked), c.Ref())
}

// revokeFailure keeps the gate's error as it is and maps the approval
// package's.
func revokeFailure(err error, ref string) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return approvalFailure(err, "revocation of "+ref)
}
