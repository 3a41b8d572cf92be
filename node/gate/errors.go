package gate

import (
	"errors"
	"fmt"

	"github.com/parleynet/parley/approval"
)

// Code is a stable, machine-readable reason the gate refused a request, a
// ceremony or a token. It shares its vocabulary with the node's codes (the
// same names mean the same refusals) and with the approval package's
// (a ceremony's refusal keeps the protocol's name: verification_failed,
// token_used, ...).
type Code string

// The gate's own codes.
const (
	CodeBadArgument     Code = "bad_argument"     // an argument is missing, malformed or names nothing that waits
	CodeBadConfig       Code = "bad_config"       // the configuration refuses it (approval.mode auto off a dev chain)
	CodeNotStarted      Code = "not_started"      // the gate's node is not running
	CodeStateForbidden  Code = "state_forbidden"  // the request was decided or expired meanwhile
	CodeApprovalDenied  Code = "approval_denied"  // the principal or the explicit gate denied the act
	CodeApprovalExpired Code = "approval_expired" // no decision within the request's window
	CodeAlreadyConsumed Code = "already_consumed" // an approval was presented twice
	CodeApprovalPending Code = "approval_pending" // a passkey registration waits for an existing passkey's approval
	CodeStoreFailed     Code = "store_failed"     // the approval store, the token record or the audit trail failed
)

// The classes of the gate's codes, in the words every package of Parley
// uses (docs/api.md, "Errors").
const (
	classInvalid     = "invalid"     // a malformed argument, or one that names nothing that waits
	classForbidden   = "forbidden"   // the principal or the explicit gate denied the act
	classConflict    = "conflict"    // decided, expired, consumed or pending meanwhile
	classInternal    = "internal"    // the node's configuration or the gate's stores
	classUnavailable = "unavailable" // the gate's node is not running
)

// classes holds the class of every code of the gate, the same as the
// node's code of the same name.
var classes = map[Code]string{
	CodeBadArgument:     classInvalid,
	CodeBadConfig:       classInternal,
	CodeNotStarted:      classUnavailable,
	CodeStateForbidden:  classConflict,
	CodeApprovalDenied:  classForbidden,
	CodeApprovalExpired: classConflict,
	CodeAlreadyConsumed: classConflict,
	CodeApprovalPending: classConflict,
	CodeStoreFailed:     classInternal,
}

// Class returns the class of c: the gate's own for its codes, the
// approval protocol's for a code the gate keeps from a ceremony's refusal
// (not_authorized, credential_unknown, verification_failed, ...); "" for a
// string that is neither.
func (c Code) Class() string {
	if k, ok := classes[c]; ok {
		return k
	}
	return approval.Code(c).Class()
}

// Error is a refusal of the gate, with a stable code.
type Error struct {
	// Code is the stable reason.
	Code Code
	// Msg describes the refusal for people.
	Msg string
	// Err is the underlying cause, if any.
	Err error
}

// Error returns "gate: <code>: <msg>".
func (e *Error) Error() string {
	s := "gate: " + string(e.Code)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Class returns the class of e's code.
func (e *Error) Class() string { return e.Code.Class() }

// Is makes errors.Is(err, target) match when target carries e's code: a
// *Error with it, or any error whose ErrorCode method returns it (the
// node's sentinels, which share the vocabulary).
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case *Error:
		return t.Code == e.Code
	case interface{ ErrorCode() string }:
		return t.ErrorCode() == string(e.Code)
	}
	return false
}

// ErrorCode returns e's code as a string.
func (e *Error) ErrorCode() string { return string(e.Code) }

// ErrNotStarted matches a call on a gate whose node is not running.
var ErrNotStarted = &Error{Code: CodeNotStarted}

func fail(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

func failWrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns the code of the gate's refusal err, or "" when err is
// none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// approvalFailure turns a refusal of the approval package into the gate's
// error: a denial is approval_denied, an elapsed window approval_expired,
// a replay already_consumed, a malformed value bad_argument; the other
// codes keep the protocol's name (action_mismatch, verification_failed,
// token_used, ...). An error without a code is a store or audit failure.
func approvalFailure(err error, what string) error {
	var c Code
	switch ac := approval.CodeOf(err); ac {
	case "":
		return failWrap(CodeStoreFailed, err, "%s", what)
	case approval.CodeDecisionDenied:
		c = CodeApprovalDenied
	case approval.CodeReceiptExpired, approval.CodeRequestExpired:
		c = CodeApprovalExpired
	case approval.CodeAlreadyConsumed:
		c = CodeAlreadyConsumed
	case approval.CodeInvalidRequest:
		c = CodeBadArgument
	case approval.CodeInvalidConfig:
		c = CodeBadConfig
	default:
		c = Code(ac)
	}
	return failWrap(c, err, "%s", what)
}
