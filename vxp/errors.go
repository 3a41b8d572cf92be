package vxp

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable refusal code, spelled as VXP and the
// OAuth RFCs spell their error codes. Tests, the node's HTTP side and the
// proof speak in codes; messages are for people.
type Code string

// Request codes (states.go).
const (
	CodeInvalidTransition Code = "invalid_transition" // the event does not apply in the request's state
	CodeRequestFinal      Code = "request_final"      // the request already reached a final state
	CodeEffectUnknown     Code = "effect_unknown"     // the event would give up on an effect that may have happened
	CodeUnknownState      Code = "unknown_state"      // not a state of E1
	CodeUnknownEvent      Code = "unknown_event"      // not an event of the transition table
	CodeBadArgument       Code = "bad_argument"       // a caller's argument is missing or out of range
)

// Proposal codes (proposal.go).
const (
	CodeProposalNotFound        Code = "proposal_not_found"        // names no revision of this operation
	CodeTermsChanged            Code = "terms_changed"             // accepts a superseded revision
	CodeAlreadyAccepted         Code = "already_accepted"          // the operation's proposal is accepted already
	CodeProposalExpired         Code = "proposal_expired"          // accepted or countered after expires_at
	CodeRevisionLimit           Code = "revision_limit"            // a revision beyond max_revisions
	CodeAcceptAttemptsExhausted Code = "accept_attempts_exhausted" // max_accept_attempts refused acceptances already
	CodeBadTerms                Code = "bad_terms"                 // terms that are not a JSON object, or that carry vxp_salt
	CodeBadApprovedBy           Code = "bad_approved_by"           // approved_by other than "user"
	CodeBadCommitment           Code = "bad_commitment"            // a mode other than firm or conditional, or a firm one that requires something
	CodeBadLimits               Code = "bad_limits"                // a limit below 1
	CodeSaltReused              Code = "salt_reused"               // the random source repeated an earlier revision's vxp_salt
)

// Authorization details codes (rar.go), as RFC 9396 names its error.
const (
	CodeInvalidAuthorizationDetails Code = "invalid_authorization_details" // not capability entries VXP takes
)

// Idempotency codes (idempotency.go), as the seed names them.
const (
	CodeIdempotencyKeyRequired Code = "idempotency_key_required" // POST /v1/requests without Idempotency-Key
	CodeIdempotencyKeyReused   Code = "idempotency_key_reused"   // the key names a request with another body
	CodeIdempotencyKeyInvalid  Code = "idempotency_key_invalid"  // empty, too long, or not visible ASCII
)

// Discovery codes (discovery.go).
const (
	CodeBadBaseURL        Code = "bad_base_url"       // vxp.public_url is not an https origin (http only on loopback when allowed)
	CodeUnknownCapability Code = "unknown_capability" // names no operation of the catalogue, or names one twice
	CodeIssuerMismatch    Code = "issuer_mismatch"    // metadata whose issuer is not the document's, character by character
	CodeWrongHost         Code = "wrong_host"         // a request's Host is not the document's organization.domain
)

// Key and replay codes (jwk.go, dpop.go, assertion.go): the verifiers turn
// them into the OAuth codes above; they are what a caller's wiring or
// replay cache answers.
const (
	CodeInvalidJWK      Code = "invalid_jwk"       // not a public EC P-256 key of the form ES256 takes
	CodeReplayed        Code = "replayed"          // a single-use jti seen before
	CodeReplayCacheFull Code = "replay_cache_full" // the replay cache holds its maximum of unexpired keys
	CodeBadSubject      Code = "bad_subject"       // the principal's subject given is not an EVM address
)

// The HTTP side's codes (node/vxp): the OAuth endpoints answer them as
// RFC 6749, RFC 8628 and RFC 9449 spell them; the resource endpoints in
// Parley's {error: {code, message}}.
const (
	CodeInvalidRequest       Code = "invalid_request"         // a malformed OAuth request: a member missing, repeated or of the wrong form
	CodeUnsupportedGrantType Code = "unsupported_grant_type"  // a grant_type the token endpoint does not take
	CodeInvalidTarget        Code = "invalid_target"          // resource other than the endpoint (RFC 8707)
	CodeAuthorizationPending Code = "authorization_pending"   // the principal has not decided the device authorization yet
	CodeSlowDown             Code = "slow_down"               // polled the token endpoint faster than the interval
	CodeExpiredToken         Code = "expired_token"           // the device code expired before the principal decided
	CodeAccessDenied         Code = "access_denied"           // the principal denied the grant
	CodeInvalidToken         Code = "invalid_token"           // an access token that does not hold: unsigned, expired, revoked, or DPoP-bound and sent as Bearer
	CodeInsufficientScope    Code = "insufficient_scope"      // the token covers none of what the call needs
	CodeUnknownRequest       Code = "unknown_request"         // names no request of this client
	CodeUnknownRelationship  Code = "unknown_relationship"    // names no relationship of this client
	CodeNotFound             Code = "not_found"               // no such path
	CodeMethodNotAllowed     Code = "method_not_allowed"      // the path does not take the method
	CodeBodyTooLarge         Code = "body_too_large"          // a body over the endpoint's limit
	CodeRateLimited          Code = "rate_limited"            // over the endpoint's rate limit
	CodeBadClientMetadata    Code = "invalid_client_metadata" // a Client ID Metadata Document that cannot be fetched or does not hold
	CodeNoQuestion           Code = "no_question"             // a reply to a relationship with no closed question open
	CodeUnavailable          Code = "temporarily_unavailable" // the node is not running
	CodeBadIssuerKey         Code = "bad_issuer_key"          // the issuer's key file is not one ES256 private key
	CodeUnknownOperation     Code = "unknown_operation"       // names no operation this node offers
	CodeBadTarget            Code = "bad_target"              // a target that is not what the operation takes ({negotiation_id} or none)
	CodeUnknownNegotiation   Code = "unknown_negotiation"     // the target names no negotiation of this node
	CodeNoOffer              Code = "no_offer"                // the negotiation has no current offer to respond to
)

// The classes of codes: what kind of refusal a code is, in the same words
// in every package of Parley (docs/api.md, "Errors").
const (
	classInvalid      = "invalid"      // the input is malformed or out of range
	classConflict     = "conflict"     // the request's or proposal's state does not allow it
	classNotFound     = "not_found"    // names nothing
	classInternal     = "internal"     // the node's own fault (configuration, a broken random source)
	classRateLimited  = "rate_limited" // over a bound: try again later
	classForbidden    = "forbidden"    // the principal denied it, or the grant does not reach it
	classUnauthorized = "unauthorized" // a DPoP proof, client or grant assertion that does not hold (dpop.go, assertion.go)
)

// classes holds the class of every code of this package.
var classes = map[Code]string{
	CodeInvalidDPoPProof: classUnauthorized,
	CodeUseDPoPNonce:     classUnauthorized,
	CodeInvalidClient:    classUnauthorized,
	CodeInvalidGrant:     classUnauthorized,
	CodeInvalidJWK:       classInvalid,
	CodeReplayed:         classConflict,
	CodeReplayCacheFull:  classRateLimited,
	CodeBadSubject:       classInternal,

	CodeInvalidTransition: classConflict,
	CodeRequestFinal:      classConflict,
	CodeEffectUnknown:     classConflict,
	CodeUnknownState:      classInvalid,
	CodeUnknownEvent:      classInvalid,
	CodeBadArgument:       classInvalid,

	CodeProposalNotFound:        classNotFound,
	CodeTermsChanged:            classConflict,
	CodeAlreadyAccepted:         classConflict,
	CodeProposalExpired:         classConflict,
	CodeRevisionLimit:           classConflict,
	CodeAcceptAttemptsExhausted: classConflict,
	CodeBadTerms:                classInvalid,
	CodeBadApprovedBy:           classInvalid,
	CodeBadCommitment:           classInvalid,
	CodeBadLimits:               classInvalid,
	CodeSaltReused:              classInternal,

	CodeInvalidAuthorizationDetails: classInvalid,

	CodeIdempotencyKeyRequired: classInvalid,
	CodeIdempotencyKeyReused:   classConflict,
	CodeIdempotencyKeyInvalid:  classInvalid,

	CodeBadBaseURL:        classInternal,
	CodeUnknownCapability: classInternal,
	CodeIssuerMismatch:    classInvalid,
	CodeWrongHost:         classInvalid,

	CodeInvalidRequest:       classInvalid,
	CodeUnsupportedGrantType: classInvalid,
	CodeInvalidTarget:        classInvalid,
	CodeAuthorizationPending: classConflict,
	CodeSlowDown:             classRateLimited,
	CodeExpiredToken:         classConflict,
	CodeAccessDenied:         classForbidden,
	CodeInvalidToken:         classUnauthorized,
	CodeInsufficientScope:    classForbidden,
	CodeUnknownRequest:       classNotFound,
	CodeUnknownRelationship:  classNotFound,
	CodeNotFound:             classNotFound,
	CodeMethodNotAllowed:     classInvalid,
	CodeBodyTooLarge:         classInvalid,
	CodeRateLimited:          classRateLimited,
	CodeBadClientMetadata:    classUnauthorized,
	CodeNoQuestion:           classConflict,
	CodeUnavailable:          classInternal,
	CodeBadIssuerKey:         classInternal,
	CodeUnknownOperation:     classInvalid,
	CodeBadTarget:            classInvalid,
	CodeUnknownNegotiation:   classNotFound,
	CodeNoOffer:              classConflict,
}

// Class returns the class of c: invalid for malformed input, conflict for
// what a request's or proposal's state refuses (409), not_found for a name
// that names nothing, internal for the node's own configuration or random
// source; "" for a string that is no code of this package.
func (c Code) Class() string { return classes[c] }

// Error is a refusal with a stable code. Field names the offending member
// (a JSON pointer or a name) where one is known.
//
// errors.Is(err, &Error{Code: c}) is true for every *Error with code c,
// whatever the other fields of either: the one meaning Is has for the
// coded errors of every package of Parley.
type Error struct {
	Code  Code
	Field string
	Msg   string
	Err   error
}

// Error returns "vxp: <code>: <field>: <msg>".
func (e *Error) Error() string {
	s := "vxp: " + string(e.Code)
	if e.Field != "" {
		s += ": " + e.Field
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, &Error{Code: c}) match any *Error with code c.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class of e's code (Code.Class).
func (e *Error) Class() string { return e.Code.Class() }

// CodeOf returns the code of err, or "" when err carries no *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func coded(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Msg: fmt.Sprintf(format, args...)}
}
