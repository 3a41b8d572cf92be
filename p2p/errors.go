package p2p

import (
	"errors"
	"fmt"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// Code is a stable, machine-readable code. Acks carry one, events carry one,
// and tests assert on them. It shares its vocabulary with negotiation.Code
// and identity.Code (the same string for the same condition) and adds the
// transport's own.
type Code string

// Final successes: the receiver stored the envelope (whatever its effect).
const (
	CodeOK        Code = "ok"        // authentic and durably stored
	CodeDuplicate Code = "duplicate" // stored before; nothing changed
)

// Transport codes.
const (
	CodeBusy           Code = "busy"             // the receiver is over a limit; retry later
	CodeUnknownLink    Code = "unknown_link"     // the receiver has no verified link for the sender yet; retry
	CodeUnknownSession Code = "unknown_session"  // the receiver does not know the sealing session: re-key and resend
	CodeSenderMismatch Code = "sender_mismatch"  // the envelope's sender is not the peer that sealed or sent it
	CodeNotAnnounce    Code = "not_announcement" // a task-board message that is not a public announcement
	CodeOverRate       Code = "over_rate"        // a peer published more than its rate allows
	CodeBadTimestamp   Code = "bad_timestamp"    // a topic message outside the accepted time window
	CodeBadRecord      Code = "bad_record"       // a DHT record, blob reply or store page that does not verify
	CodeNotFound       Code = "not_found"        // no such record, blob or peer
	CodeHeld           Code = "held"             // a store node holds the envelope for its recipient
	CodeNotServed      Code = "not_served"       // a store node does not hold mail for that recipient
	CodeQuotaExceeded  Code = "quota_exceeded"   // a store node holds as much for that recipient as its quota allows
	CodeBadConfig      Code = "bad_config"       // a Config field is missing or out of range
	CodeClosed         Code = "closed"           // the host is not started or already closed
	CodeCIDMismatch    Code = "cid_mismatch"     // bytes that do not hash to the CID they were fetched by
	CodeBadRange       Code = "bad_range"        // a ledger consistency request whose from is above its to
)

// Consent refusals: the receiver's principal takes no new negotiation
// from the envelope's sender (docs/node.md, "Consent"). The envelope was
// authentic; the receiver opens no thread for it and records nothing.
// For the sender they are final like a rejection (Outcome Rejected: the
// outbox stops and reports EventRefused with the code).
const (
	CodeConsentDenied Code = "consent_denied" // the receiver's principal denied the sender
	CodeConsentLimit  Code = "consent_limit"  // the sender is unknown to the receiver and has as many open negotiations there as it allows
)

// Declined reports whether c is a consent refusal: final for the sender,
// but no evidence against the peer, so the receiving transport records no
// rejection for it.
func (c Code) Declined() bool { return c == CodeConsentDenied || c == CodeConsentLimit }

// The classes of codes: what kind of failure a code is, in the same words
// in every package of Parley (docs/api.md, "Errors").
const (
	classInvalid     = "invalid"      // a peer's input that does not verify or is not what it claims
	classForbidden   = "forbidden"    // the receiver's principal takes nothing from this sender
	classNotFound    = "not_found"    // no such record, blob, peer, link or session
	classConflict    = "conflict"     // already stored
	classRateLimited = "rate_limited" // over a peer's rate
	classUnavailable = "unavailable"  // the host is closed, or the receiver is busy
	classInternal    = "internal"     // the transport's own configuration
)

// classes holds the class of every error code of this package; a code
// missing here has no class, which a test of the node's API catches. ok
// and held are final successes, not errors, and have none.
var classes = map[Code]string{
	CodeDuplicate:      classConflict,
	CodeBusy:           classUnavailable,
	CodeUnknownLink:    classNotFound,
	CodeUnknownSession: classNotFound,
	CodeSenderMismatch: classInvalid,
	CodeNotAnnounce:    classInvalid,
	CodeOverRate:       classRateLimited,
	CodeBadTimestamp:   classInvalid,
	CodeBadRecord:      classInvalid,
	CodeNotFound:       classNotFound,
	CodeNotServed:      classForbidden,
	CodeQuotaExceeded:  classUnavailable,
	CodeBadConfig:      classInternal,
	CodeClosed:         classUnavailable,
	CodeCIDMismatch:    classInvalid,
	CodeBadRange:       classInvalid,
	CodeConsentDenied:  classForbidden,
	CodeConsentLimit:   classForbidden,
}

// Class returns the class of c: the transport's own codes by their table;
// a code of negotiation's or identity's vocabulary (which Code shares) by
// that package's Code.Class; "" for ok and held, which are no errors, and
// for a string that is no code.
func (c Code) Class() string {
	if k, ok := classes[c]; ok {
		return k
	}
	if k := negotiation.Code(c).Class(); k != "" {
		return k
	}
	return identity.Code(c).Class()
}

// Outcome says what a sender does with an ack code.
type Outcome int

// Outcomes of an ack.
const (
	// Delivered: the receiver stored the envelope; stop.
	Delivered Outcome = iota
	// Retry: try again later with backoff.
	Retry
	// ReKey: reset the sealing session to the recipient and resend at once.
	ReKey
	// Rejected: the receiver found the input not authentic; record and stop.
	Rejected
)

// Outcome classifies c for a sender (docs/p2p.md "Acks and retries").
// ok, duplicate and the effect codes of negotiation (authentic envelopes
// whose effect was refused) are Delivered; busy, unknown_link, clock_skew,
// sequence_gap and missing_reference are Retry; unknown_session,
// unknown_key and key_expired are ReKey (the sender reseals to the
// recipient's current key with a fresh session); everything else is a
// final Rejected.
func (c Code) Outcome() Outcome {
	switch c {
	case CodeOK, CodeDuplicate:
		return Delivered
	case CodeBusy, CodeUnknownLink, Code(negotiation.CodeClockSkew), Code(negotiation.CodeSequenceGap),
		Code(negotiation.CodeMissingReference):
		return Retry
	case CodeUnknownSession, Code(identity.CodeUnknownKey), Code(identity.CodeKeyExpired):
		return ReKey
	}
	if negotiation.Code(c).Authentic() {
		return Delivered
	}
	return Rejected
}

// Error is a p2p error with a stable code: the transport's own, or one of
// negotiation's or identity's vocabulary.
//
// Class returns the class of its code (Code.Class), and errors.Is(err,
// &Error{Code: c}) (or a sentinel such as ErrNotFound) is true for every
// *Error with code c, whatever the other fields of either: the one meaning
// Is has for the coded errors of every package of Parley.
type Error struct {
	Code Code
	Msg  string
	Err  error
}

// Error returns "p2p: <code>: <msg>".
func (e *Error) Error() string {
	s := "p2p: " + string(e.Code)
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

// Is makes errors.Is(err, &Error{Code: c}) (a sentinel ErrX) match any
// *Error with code c, whatever its other fields (and the target's).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class of e's code (Code.Class).
func (e *Error) Class() string { return e.Code.Class() }

// Sentinels for errors.Is; each matches every Error with its code.
var (
	// ErrBadConfig is returned by Config.Validate for a missing or out-of-range field.
	ErrBadConfig = &Error{Code: CodeBadConfig}
	// ErrClosed is returned when the host is not started or already closed.
	ErrClosed = &Error{Code: CodeClosed}
	// ErrNotFound is returned when a record, blob or peer cannot be found.
	ErrNotFound = &Error{Code: CodeNotFound}
	// ErrBadRecord is returned for a DHT record or blob reply that does not verify.
	ErrBadRecord = &Error{Code: CodeBadRecord}
	// ErrCIDMismatch is returned when fetched bytes do not hash to their CID.
	ErrCIDMismatch = &Error{Code: CodeCIDMismatch}
	// ErrUnknownLink is returned when no verified link is known for an address.
	ErrUnknownLink = &Error{Code: CodeUnknownLink}
)

func fail(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

func failWrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns the code carried by err: a p2p, negotiation or identity
// code, or "" when err carries none.
func CodeOf(err error) Code {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	if c := negotiation.CodeOf(err); c != "" {
		return Code(c)
	}
	if c := identity.CodeOf(err); c != "" {
		return Code(c)
	}
	return ""
}
