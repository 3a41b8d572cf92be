package approval

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
)

// RevokeAction returns the act a credential's revocation needs an
// approved receipt of: tool parley.passkey.revoke, target the principal's
// user handle (base64url), arguments the credential's hashed reference,
// its label and whether it is a software key. Binding the reference ties
// the approval to that one credential.
func (c *Ceremonies) RevokeAction(cred Credential) (Action, error) {
	if len(cred.WebAuthn.ID) == 0 {
		return Action{}, fail(CodeInvalidRequest, "no credential")
	}
	return NewAction(ToolPasskeyRevoke, "revoke", base64.RawURLEncoding.EncodeToString(c.cfg.UserID), map[string]any{
		"credential": cred.Ref(),
		"label":      cred.Label,
		"software":   cred.Software,
	})
}

// Revocation is what allows a revocation: an approved receipt of
// RevokeAction by another credential, or, when no other credential can
// approve (the one revoked is the last usable one), the host's proof of
// local authority. Exactly one is set.
type Revocation struct {
	// Receipt is the JSON text of an approved receipt of
	// RevokeAction(credential) by a credential other than the one revoked.
	Receipt []byte
	// Local spends the host's local authority (Parley: a one-time token
	// only the node's data directory holds, made for this credential); a
	// nil error authorises. It is called only once every other check
	// passed, so a refused revocation spends nothing.
	Local func(ctx context.Context) error
}

// Revoke revokes the principal's credential id under auth and returns it
// revoked. The credential record is kept with RevokedAt set: it approves
// nothing from then on, its approvals not yet consumed are refused by the
// gate, and its id is never registered again. A receipt must be an
// approved receipt of RevokeAction(credential) by another credential (the
// gate consumes it; a credential never approves its own revocation). The
// local authority is accepted only when no other usable credential (not
// revoked, not cloned) exists. Every revocation is audited as
// credential-revoked with the method and the hashed reference.
func (c *Ceremonies) Revoke(ctx context.Context, id []byte, auth Revocation) (Credential, error) {
	if (len(auth.Receipt) == 0) == (auth.Local == nil) {
		return Credential{}, fail(CodeNotAuthorized, "a revocation needs exactly one of an approved receipt or the local authority")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ref := CredentialRef(id)
	cred, err := c.store.Credential(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Credential{}, fail(CodeCredentialUnknown, "credential %s is not registered", ref)
	}
	if err != nil {
		return Credential{}, fmt.Errorf("approval: credential: %w", err)
	}
	if cred.Revoked() {
		return Credential{}, fail(CodeAlreadyRevoked, "credential %s was revoked at %s", ref, formatTime(cred.RevokedAt))
	}
	usable, err := c.usable(ctx)
	if err != nil {
		return Credential{}, err
	}
	others := 0
	for _, u := range usable {
		if !bytes.Equal(u.WebAuthn.ID, id) {
			others++
		}
	}
	method := MethodApprovedAct
	if auth.Local != nil {
		if others > 0 {
			return Credential{}, fail(CodeNotAuthorized, "%d other credentials can approve the revocation of %s: the local authority is only for the last one", others, ref)
		}
		if err := auth.Local(ctx); err != nil {
			return Credential{}, err
		}
		method = MethodLocalToken
	} else {
		r, err := ParseReceipt(auth.Receipt)
		if err != nil {
			return Credential{}, err
		}
		if r.Authenticator != nil {
			if by, derr := base64.RawURLEncoding.DecodeString(r.Authenticator.CredentialID); derr == nil && bytes.Equal(by, id) {
				return Credential{}, fail(CodeNotAuthorized, "credential %s cannot approve its own revocation: another one must", ref)
			}
		}
		act, err := c.RevokeAction(cred)
		if err != nil {
			return Credential{}, err
		}
		cons, err := c.gate.Consume(ctx, auth.Receipt, act)
		if err != nil {
			return Credential{}, err
		}
		if cons.CredentialRef == ref {
			return Credential{}, fail(CodeNotAuthorized, "credential %s approved its own revocation: refused", ref)
		}
	}
	cred.RevokedAt = c.cfg.now().UTC()
	if err := c.store.PutCredential(ctx, cred); err != nil {
		return Credential{}, fmt.Errorf("approval: revoke credential %s: %w", ref, err)
	}
	if err := c.audit.Record(ctx, AuditEvent{
		Event: EventCredentialRevoked, Method: method, CredentialRef: ref, Software: cred.Software, At: cred.RevokedAt,
	}); err != nil {
		return cred, fmt.Errorf("approval: credential %s revoked, audit failed: %w", ref, err)
	}
	return cred, nil
}
