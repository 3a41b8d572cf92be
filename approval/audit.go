package approval

import (
	"context"
	"time"
)

// EventKind names an audit event (seed section 9).
type EventKind string

// The audit events of seed section 9. This package records approved,
// denied, assertion-rejected, consumed, consumption-rejected,
// credential-registered and credential-revoked (Parley's addition); the host that owns a request's life records
// request-created, expired, cancelled and policy-denied with RequestEvent.
const (
	EventRequestCreated       EventKind = "request-created"
	EventApproved             EventKind = "approved"
	EventDenied               EventKind = "denied"
	EventExpired              EventKind = "expired"
	EventCancelled            EventKind = "cancelled"
	EventConsumed             EventKind = "consumed"
	EventConsumptionRejected  EventKind = "consumption-rejected"
	EventAssertionRejected    EventKind = "assertion-rejected"
	EventCredentialRegistered EventKind = "credential-registered"
	EventCredentialRevoked    EventKind = "credential-revoked"
	EventPolicyDenied         EventKind = "policy-denied"
)

// Verification methods an audit event names.
const (
	MethodWebAuthn    = "webauthn"      // a WebAuthn assertion (approvals, consumptions)
	MethodDeny        = "explicit-deny" // a denial (no signature)
	MethodEnrolToken  = "enrol-token"   // a first credential enrolled with the one-time token
	MethodApprovedAct = "approved-act"  // a further credential registered, or one revoked, under an approved receipt
	MethodLocalToken  = "local-token"   // the last credential revoked with a token only the host's local store holds
)

// AuditEvent is one audit entry. It never holds raw argument values, free
// text or credential ids: only the intentHash, the tool, operation and
// target labels, the risk level, the decision, the verification method, a
// hashed credential reference, a rejection code and timestamps.
type AuditEvent struct {
	Event      EventKind `json:"event"`
	RequestID  string    `json:"requestId,omitempty"`
	IntentHash string    `json:"intentHash,omitempty"`
	Tool       string    `json:"tool,omitempty"`
	Operation  string    `json:"operation,omitempty"`
	Target     string    `json:"target,omitempty"`
	Risk       Risk      `json:"risk,omitempty"`
	Decision   Decision  `json:"decision,omitempty"`
	Method     string    `json:"method,omitempty"`
	// CredentialRef is CredentialRef(credential id), never the id.
	CredentialRef string `json:"credentialRef,omitempty"`
	// Software marks an event about a software key.
	Software bool `json:"software,omitempty"`
	// Code is the rejection code of a rejected assertion or consumption.
	Code      Code      `json:"code,omitempty"`
	At        time.Time `json:"at"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// AuditSink records audit events, for the node in its ledger. Record
// returning an error for a consumed event makes the gate withhold its
// authorisation (the receipt stays spent); for a rejection the rejection
// stands whatever Record returns.
type AuditSink interface {
	Record(ctx context.Context, e AuditEvent) error
}

// AuditFunc adapts a function to AuditSink.
type AuditFunc func(ctx context.Context, e AuditEvent) error

var _ AuditSink = AuditFunc(nil)

// Record calls f.
func (f AuditFunc) Record(ctx context.Context, e AuditEvent) error { return f(ctx, e) }

// RequestEvent returns the audit event kind about req at at, carrying only
// the labels section 9 allows: for the events the host records itself
// (request-created, expired, cancelled, policy-denied).
func RequestEvent(kind EventKind, req IntentRequest, at time.Time) AuditEvent {
	return AuditEvent{
		Event: kind, RequestID: req.RequestID, IntentHash: req.IntentHash,
		Tool: req.Action.Tool, Operation: req.Action.Operation, Target: req.Action.Target,
		Risk: req.Context.Risk, At: at.UTC(), ExpiresAt: req.ExpiresAt,
	}
}
