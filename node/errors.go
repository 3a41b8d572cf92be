package node

import (
	"errors"
	"fmt"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/gate"
)

// Code is a stable, machine-readable reason a node refused an act or a
// configuration. It shares its vocabulary with negotiation.Code (a refusal
// by the state machine carries the state machine's code) and with
// approval.Code (a refusal of the approval protocol carries its code), and
// adds the node's own. Every code knows its class (Class); the HTTP API
// answers a class with its status, and the CLI matches codes, never
// messages.
type Code string

// The node's own codes.
const (
	CodeBadConfig          Code = "bad_config"           // a Config field or an option is missing, out of range or conflicting
	CodeNotStarted         Code = "not_started"          // the node is not started, or already closed
	CodeStarted            Code = "already_started"      // Start was called twice
	CodeUnknownNegotiation Code = "unknown_negotiation"  // no thread with this negotiationId
	CodeUnknownTask        Code = "unknown_announcement" // no announcement with this hash on the board
	CodeNotParty           Code = "not_party"            // this node has no role in the thread that may do this
	CodeStateForbidden     Code = "state_forbidden"      // the thread's state does not allow the act
	CodeBadArgument        Code = "bad_argument"         // an argument is missing or out of range
	CodeNoChain            Code = "no_chain"             // the act needs a chain and none is configured
	CodeChainFailed        Code = "chain_failed"         // the chain refused or failed a transaction
	CodeApprovalDenied     Code = "approval_denied"      // the approval gate denied the act
	CodeApprovalExpired    Code = "approval_expired"     // no decision within the request's window
	CodeAlreadyConsumed    Code = "already_consumed"     // an approval was presented twice
	CodeApprovalPending    Code = "approval_pending"     // a passkey registration waits for an existing passkey's approval
	CodeDeliveryMissing    Code = "delivery_unavailable" // a delivered file has not been fetched and checked
	CodeProofMismatch      Code = "proof_mismatch"       // the proof CID on chain differs from the delivery's
	CodeNothingOwed        Code = "nothing_owed"         // a withdrawal with nothing owed
	CodeTimeoutNotDue      Code = "timeout_not_due"      // a timeout exit whose clock on chain has not run out
	CodeStoreFailed        Code = "store_failed"         // the ledger refused or failed a write
	CodeBadBundle          Code = "bad_bundle"           // a proof bundle failed verification
	CodeMissingLink        Code = "missing_link"         // a bundle lacks the identity link of a signer
	CodeRateLimited        Code = "rate_limited"         // over a rate: try again after RetryAfter(err)
	CodeScopeMismatch      Code = "scope_mismatch"       // an announcement's named scope hash is contradicted on chain (scope.go)
	// The verifier's codes of a version-2 proof bundle (bundle.go).
	CodeForgedHead           Code = "forged_head"            // the tree head's signer link or signature does not verify
	CodeAnchorForeign        Code = "anchor_foreign"         // the bundle's anchor was sent by another address than the signer's
	CodeAnchorMissing        Code = "anchor_missing"         // the bundle's anchor is not on chain
	CodeRewrittenAfterAnchor Code = "rewritten_after_anchor" // an on-chain anchor of the signer is not proved consistent with the bundle's head
	CodeAnchorBudget         Code = "anchor_budget"          // an anchor would take the day's gas over ledger.anchor_gas_per_day (anchor.go)
	CodeAnchorUnchanged      Code = "anchor_unchanged"       // nothing was added to the ledger since its last anchor
)

// The classes of codes: what kind of refusal a code is, in the same words
// in every package of Parley (docs/api.md, "Errors").
const (
	classInvalid       = "invalid"       // an argument is missing or out of range
	classForbidden     = "forbidden"     // this node's role, the gate or the principal's pages say no
	classNotFound      = "not_found"     // no such negotiation or announcement
	classConflict      = "conflict"      // the thread's or the node's state does not allow it
	classUnprocessable = "unprocessable" // a proof bundle or hand-over package that does not verify
	classRateLimited   = "rate_limited"  // over a rate: try again after RetryAfter(err)
	classInternal      = "internal"      // the node's own configuration or stores
	classUpstream      = "upstream"      // the chain refused or failed a transaction
	classUnavailable   = "unavailable"   // the node is not running, or has no chain
)

// classes holds the class of every code the node declares; a code missing
// here has no class, which a test of the node's API catches. Codes of
// negotiation's and approval's vocabulary take those packages' classes.
var classes = map[Code]string{
	CodeBadConfig:          classInternal,
	CodeNotStarted:         classUnavailable,
	CodeStarted:            classConflict,
	CodeUnknownNegotiation: classNotFound,
	CodeUnknownTask:        classNotFound,
	CodeNotParty:           classForbidden,
	CodeStateForbidden:     classConflict,
	CodeBadArgument:        classInvalid,
	CodeNoChain:            classUnavailable,
	CodeChainFailed:        classUpstream,
	CodeApprovalDenied:     classForbidden,
	CodeApprovalExpired:    classConflict,
	CodeAlreadyConsumed:    classConflict,
	CodeApprovalPending:    classConflict,
	CodeDeliveryMissing:    classConflict,
	CodeProofMismatch:      classConflict,
	CodeNothingOwed:        classConflict,
	CodeTimeoutNotDue:      classConflict,
	CodeStoreFailed:        classInternal,
	CodeBadBundle:          classUnprocessable,
	CodeMissingLink:        classUnprocessable,
	CodeRateLimited:        classRateLimited,
	CodeViaWebRefused:      classForbidden,
	CodeLedgerDamaged:      classConflict,
	CodeStoreRefused:       classInternal,
	CodeNoCard:             classConflict,
	CodeForeignDomain:      classConflict,
	CodeScopeMismatch:      classConflict,
	// The verifier's codes of a version-2 proof bundle.
	CodeForgedHead:           classUnprocessable,
	CodeAnchorForeign:        classUnprocessable,
	CodeAnchorMissing:        classUnprocessable,
	CodeRewrittenAfterAnchor: classUnprocessable,
	CodeAnchorBudget:         classRateLimited,
	CodeAnchorUnchanged:      classConflict,
}

// Class returns the class of c: the node's own codes by their table, a
// code of negotiation's or approval's vocabulary by that package's
// Code.Class; "" for a string that is none of these.
func (c Code) Class() string {
	if k, ok := classes[c]; ok {
		return k
	}
	if k := negotiation.Code(c).Class(); k != "" {
		return k
	}
	return approval.Code(c).Class()
}

// Error is an act or a configuration the node refused, with a stable code.
// Nothing was signed, stored or sent when an act is refused before its
// approval was consumed; the message says otherwise when it was.
//
// Class returns the class of the code it carries, and errors.Is(err,
// &Error{Code: c}) (or a sentinel such as ErrNotParty) is true for every
// *Error with code c, whatever the other fields of either: the one meaning
// Is has for the coded errors of every package of Parley.
type Error struct {
	// Code is the stable reason.
	Code Code
	// Msg describes the refusal for people.
	Msg string
	// Err is the underlying cause, if any.
	Err error
}

// Error returns "node: <code>: <msg>".
func (e *Error) Error() string {
	s := "node: " + string(e.Code)
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

// ErrorCode returns e's code as a string: node/gate's errors match the
// node's sentinels by it (errors.Is(err, ErrApprovalDenied) holds for the
// gate's approval_denied).
func (e *Error) ErrorCode() string { return string(e.Code) }

// Is makes errors.Is(err, &Error{Code: c}) (a sentinel ErrX) match any
// *Error with code c, whatever its other fields (and the target's).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class of the code e carries: Code.Class, or, for a
// code of another package's vocabulary the node passes on (a transport
// failure), the class of the wrapped error that knows one; "" when neither
// knows it.
func (e *Error) Class() string {
	if k := e.Code.Class(); k != "" {
		return k
	}
	var c interface{ Class() string }
	if e.Err != nil && errors.As(e.Err, &c) {
		return c.Class()
	}
	return ""
}

// Sentinels for errors.Is: each matches every *Error with its code.
var (
	// ErrBadConfig matches a refused configuration or option.
	ErrBadConfig = &Error{Code: CodeBadConfig}
	// ErrNotStarted matches a call on a node that is not running.
	ErrNotStarted = &Error{Code: CodeNotStarted}
	// ErrStarted matches a second Start.
	ErrStarted = &Error{Code: CodeStarted}
	// ErrUnknownNegotiation matches an act on a negotiation the node does not hold.
	ErrUnknownNegotiation = &Error{Code: CodeUnknownNegotiation}
	// ErrNotParty matches an act by a node whose role does not allow it.
	ErrNotParty = &Error{Code: CodeNotParty}
	// ErrStateForbidden matches an act the thread's state does not allow.
	ErrStateForbidden = &Error{Code: CodeStateForbidden}
	// ErrBadArgument matches an act with a missing or out-of-range argument.
	ErrBadArgument = &Error{Code: CodeBadArgument}
	// ErrNoChain matches an act that needs a chain on a node without one.
	ErrNoChain = &Error{Code: CodeNoChain}
	// ErrApprovalDenied matches an act the approval gate denied.
	ErrApprovalDenied = &Error{Code: CodeApprovalDenied}
	// ErrApprovalExpired matches an act whose approval was not decided in time.
	ErrApprovalExpired = &Error{Code: CodeApprovalExpired}
	// ErrAlreadyConsumed matches an approval presented a second time.
	ErrAlreadyConsumed = &Error{Code: CodeAlreadyConsumed}
	// ErrApprovalPending matches a passkey registration that waits for an
	// existing passkey's approval.
	ErrApprovalPending = &Error{Code: CodeApprovalPending}
)

func fail(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

func failWrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns the code of err: the node's own; the state machine's when
// the state machine refused an envelope the node built; the approval
// gate's (node/gate, whose codes share the node's names); the approval
// protocol's for its refusal; CodeLedgerDamaged for a read of a damaged
// ledger entry or object (a *ledger.VerifyError); "" when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return e.Code
	}
	if c := negotiation.CodeOf(err); c != "" {
		return Code(c)
	}
	if c := gate.CodeOf(err); c != "" {
		return Code(c)
	}
	if c := approval.CodeOf(err); c != "" {
		return Code(c)
	}
	var ve *ledger.VerifyError
	if errors.As(err, &ve) {
		return CodeLedgerDamaged
	}
	return ""
}
