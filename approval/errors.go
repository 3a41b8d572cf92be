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

// Error is a rejection with a stable Code. Every refusal of this package is
// an *Error; callers use errors.As or CodeOf.
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
// enrolment token does not exist.
var ErrNotFound = errors.New("approval: not found")

func fail(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

func failWrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}
