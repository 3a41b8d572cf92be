package ledger

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable reason for a refused input or a failed
// verification. Tests, the CLI and callers compare codes; messages are for
// people.
type Code string

// Input codes: an append refused with one of these wrote nothing.
const (
	CodeBadKind          Code = "bad_kind"           // kind is empty, malformed, or reserved for another method
	CodeBadBody          Code = "bad_body"           // body is not one well-formed JSON object
	CodeReservedMember   Code = "reserved_member"    // body sets a member the ledger sets itself (cid, head, count)
	CodeTooLarge         Code = "too_large"          // entry or object over the configured size limit
	CodeBadNegotiationID Code = "bad_negotiation_id" // negotiationId is not a lowercase UUID v4, or is missing where needed
	CodeBadTime          Code = "bad_time"           // at is outside the years 0000-9999
	CodeBadObject        Code = "bad_object"         // object empty, of an unknown codec, or not JSON for the json codec
	CodeBadCode          Code = "bad_code"           // a rejection code that is empty or names an authentic envelope
	CodeUnknownHead      Code = "unknown_head"       // an anchor names a head this ledger never had
	CodeRetained         Code = "retained"           // retention refused: the negotiation is open or disputed
)

// Verification codes: the first entry (or bundle member) that fails carries
// one of these.
const (
	CodeMalformedEntry Code = "malformed_entry" // stored bytes are not an entry of this format
	CodeSeqMismatch    Code = "seq_mismatch"    // the entry's seq is not its position in the chain
	CodeMissingEntry   Code = "missing_entry"   // the chain has a hole at this position
	CodePrevMismatch   Code = "prev_mismatch"   // prev is not the previous entry's hash
	CodeHashMismatch   Code = "hash_mismatch"   // SHA-256(prev || entry) is not the stored hash
	CodeHeadMismatch   Code = "head_mismatch"   // the chain does not end at the recorded head
	CodeObjectMissing  Code = "object_missing"  // an entry names an object that is not stored (and not pruned)
	CodeObjectMismatch Code = "object_mismatch" // a stored object does not hash to its CID
	CodeBadEnvelope    Code = "bad_envelope"    // a bundled envelope fails decoding, its signature, or its entry
	CodeBadBundle      Code = "bad_bundle"      // the bundle file is not a proof bundle of this format
)

// Sentinel errors.
var (
	// ErrNotFound reports that no entry, object or negotiation matches.
	ErrNotFound = errors.New("ledger: not found")
	// ErrClosed reports a call on a ledger that is closed or was never started.
	ErrClosed = errors.New("ledger: closed")
	// ErrStarted reports a second Start.
	ErrStarted = errors.New("ledger: already started")
	// ErrFailed reports that a write to the store failed; the ledger refuses
	// further appends until it is reopened (and reverified).
	ErrFailed = errors.New("ledger: store failed")
	// ErrReadOnly reports an append to a ledger opened read-only.
	ErrReadOnly = errors.New("ledger: read-only")
	// ErrNeedsRecovery reports a read-only open of a ledger that was not
	// closed cleanly: its write-ahead log must be replayed (and its torn,
	// never acknowledged tail cut) by one read-write open first.
	ErrNeedsRecovery = errors.New("ledger: not closed cleanly; a read-write open recovers it")
)

// Sentinels for errors.Is on input refusals: errors.Is(err, ErrTooLarge)
// matches any *Error with CodeTooLarge.
var (
	// ErrBadBody matches refusals of a malformed body.
	ErrBadBody = &Error{Code: CodeBadBody}
	// ErrTooLarge matches refusals of an oversize entry or object.
	ErrTooLarge = &Error{Code: CodeTooLarge}
	// ErrBadKind matches refusals of a malformed or reserved kind.
	ErrBadKind = &Error{Code: CodeBadKind}
	// ErrRetained matches a retention refused for an open or disputed negotiation.
	ErrRetained = &Error{Code: CodeRetained}
)

// Error is an input refused with a stable code. Nothing was written.
type Error struct {
	// Code is the stable reason.
	Code Code
	// Field names the offending part of the input, when one is known.
	Field string
	// Msg describes the refusal for people.
	Msg string
	// Err is the underlying cause, if any.
	Err error
}

// Error returns "ledger: <code>: <field>: <msg>".
func (e *Error) Error() string {
	s := "ledger: " + string(e.Code)
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

// Is makes errors.Is(err, &Error{Code: c}) match any Error with code c.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Field == "" && t.Msg == "" && t.Err == nil
}

func refuse(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// BatchError reports the record of an AppendAll batch that was refused:
// nothing of the batch was written. It wraps the record's refusal (an
// *Error), so errors.Is, errors.As and CodeOf see that refusal's code.
type BatchError struct {
	// Index is the refused record's position in the batch, from 0.
	Index int
	// Err is the record's refusal.
	Err error
}

// Error returns "ledger: batch record <index>: <refusal>".
func (e *BatchError) Error() string {
	return fmt.Sprintf("ledger: batch record %d: %v", e.Index, e.Err)
}

// Unwrap returns the record's refusal.
func (e *BatchError) Unwrap() error { return e.Err }

// VerifyError reports the first entry that fails verification: its
// position in the chain (seq, counting from 1) and why.
type VerifyError struct {
	// Seq is the bad entry's position (0 for a bundle file as a whole).
	Seq uint64
	// Code is the stable reason.
	Code Code
	// Msg describes the failure for people.
	Msg string
}

// Error returns "ledger: entry <seq>: <code>: <msg>".
func (e *VerifyError) Error() string {
	return fmt.Sprintf("ledger: entry %d: %s: %s", e.Seq, e.Code, e.Msg)
}

// Is makes errors.Is(err, &VerifyError{Code: c}) match any VerifyError with
// code c (and with seq s when s is not 0).
func (e *VerifyError) Is(target error) bool {
	t, ok := target.(*VerifyError)
	return ok && t.Code == e.Code && (t.Seq == 0 || t.Seq == e.Seq) && t.Msg == ""
}

func bad(seq uint64, code Code, format string, args ...any) *VerifyError {
	return &VerifyError{Seq: seq, Code: code, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of err (an *Error or a *VerifyError), or "" when it
// carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var v *VerifyError
	if errors.As(err, &v) {
		return v.Code
	}
	return ""
}
