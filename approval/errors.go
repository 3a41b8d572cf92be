package approval

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable rejection code. Tests, the node's API
// and audit entries speak in codes; messages are for people.
type Code string

// The consumption gate's codes (seed section 8), in the order of its checks.
const (
	CodeInvalidReceipt     Code = "invalid_receipt"     // malformed structure
	CodeDecisionDenied     Code = "decision_denied"     // the receipt is a denial
	CodeReceiptExpired     Code = "receipt_expired"     // the window elapsed
	CodeTamperedIntent     Code = "tampered_intent"     // the embedded request fails integrity validation
	CodeHashMismatch       Code = "hash_mismatch"       // the receipt's hash or echoed fields differ from the embedded request's
	CodeActionMismatch     Code = "action_mismatch"     // the submitted action hashes differently (mutation)
	CodeAlreadyConsumed    Code = "already_consumed"    // replay of a consumed receipt
	CodeCredentialUnknown  Code = "credential_unknown"  // the credential is not (or no longer) registered
	CodeVerificationFailed Code = "verification_failed" // cryptographic verification failed
)

// Codes of the ceremonies and of enrolment.
const (
	CodeInvalidRequest   Code = "invalid_request"   // a request or action that cannot be built or is malformed
	CodeRequestExpired   Code = "request_expired"   // an approval or registration after its window
	CodeCredentialCloned Code = "credential_cloned" // the signature counter did not advance; the credential is flagged
	CodeAlreadyApproved  Code = "already_approved"  // the request was already approved once
	CodeCredentialExists Code = "credential_exists" // the credential id is already registered
	CodeNotAuthorized    Code = "not_authorized"    // a registration without the authority it needs
	CodeTokenInvalid     Code = "token_invalid"     // the enrolment token is not the issued one
	CodeTokenExpired     Code = "token_expired"     // the enrolment token's window elapsed
	CodeTokenUsed        Code = "token_used"        // the enrolment token was already redeemed
	CodeAlreadyRevoked   Code = "already_revoked"   // the credential was revoked before
	CodeInvalidConfig    Code = "invalid_config"    // a Config field is missing or wrong
)

// The classes of codes: what kind of refusal a code is, in the same words
// in every package of Parley (docs/api.md, "Errors").
const (
	classInvalid   = "invalid"   // a request or action that cannot be built
	classForbidden = "forbidden" // no authority: denied, unknown, cloned or unverified credential, bad token
	classNotFound  = "not_found" // no such credential, approval or token
	classConflict  = "conflict"  // refused in this state: expired, used, replayed, mismatched, already done
	classInternal  = "internal"  // the gate's own configuration
)

// classes holds the class of every code of this package; a code missing
// here has no class, which a test of the node's API catches.
var classes = map[Code]string{
	CodeInvalidReceipt:     classConflict,
	CodeDecisionDenied:     classForbidden,
	CodeReceiptExpired:     classConflict,
	CodeTamperedIntent:     classConflict,
	CodeHashMismatch:       classConflict,
	CodeActionMismatch:     classConflict,
	CodeAlreadyConsumed:    classConflict,
	CodeCredentialUnknown:  classForbidden,
	CodeVerificationFailed: classForbidden,

	CodeInvalidRequest:   classInvalid,
	CodeRequestExpired:   classConflict,
	CodeCredentialCloned: classForbidden,
	CodeAlreadyApproved:  classConflict,
	CodeCredentialExists: classConflict,
	CodeNotAuthorized:    classForbidden,
	CodeTokenInvalid:     classForbidden,
	CodeTokenExpired:     classForbidden,
	CodeTokenUsed:        classConflict,
	CodeAlreadyRevoked:   classConflict,
	CodeInvalidConfig:    classInternal,
}

// Class returns the class of c: forbidden where the authority is missing
// (a denial, an unknown, cloned or unverified credential, a registration
// without authority, an enrolment token that is not the issued one or
// expired), conflict where the receipt, request or token does not fit
// the state (expired, consumed, used, tampered, mismatched, already
// approved, registered or revoked), invalid for a request that cannot be
// built, internal for a bad Config; "" for a string that is no code of
// this package.
func (c Code) Class() string { return classes[c] }

// Error is a rejection with a stable Code. Every refusal of this package is
// an *Error; callers use errors.As or CodeOf.
//
// Class returns the class of its code (Code.Class), and errors.Is(err,
// &Error{Code: c}) is true for every *Error with code c, whatever the other
// fields of either: the one meaning Is has for the coded errors of every
// package of Parley.
type Error struct {
	// Code is the stable rejection code.
	Code Code
	// Msg says what was wrong, for people.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error returns "approval: <code>: <message>".
func (e *Error) Error() string {
	s := "approval: " + string(e.Code)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, &Error{Code: c}) match any *Error with code c,
// whatever its other fields (and the target's).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class of e's code (Code.Class).
func (e *Error) Class() string { return e.Code.Class() }

// CodeOf returns the Code of the first *Error in err's chain, or "" when
// there is none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// ErrNotFound is returned by a Store when a credential, approval or
// enrolment token does not exist. It carries no code, matches only itself
// and is of class not_found.
var ErrNotFound error = &sentinel{"approval: not found", classNotFound}

// sentinel is an error without a code that knows its class.
type sentinel struct{ msg, class string }

// Error returns the sentinel's message.
func (e *sentinel) Error() string { return e.msg }

// Class returns the sentinel's class.
func (e *sentinel) Class() string { return e.class }

func fail(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

func failWrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}
