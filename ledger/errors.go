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
	CodeUnknownSize      Code = "unknown_size"       // a tree size or entry beyond the Merkle tree (or a from beyond a to)
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
	CodeTreeMismatch   Code = "tree_mismatch"   // a stored Merkle tree node or the tree record is not what the entries give
	CodeBadProof       Code = "bad_proof"       // an inclusion or consistency proof does not verify

	// Version-2 proof bundles (VerifyBundle), each its own.
	CodeOutOfOrder   Code = "out_of_order"  // the bundled entries' seqs are not strictly increasing
	CodeForeignEntry Code = "foreign_entry" // a bundled entry is not of the bundle's negotiation
	CodeBadInclusion Code = "bad_inclusion" // an entry's inclusion proof does not give the tree head's root
	CodeOmittedEntry Code = "omitted_entry" // an entry's negotiationPrev names an entry of the negotiation the bundle omits
	CodeSenderChain  Code = "sender_chain"  // a sender's envelopes skip a sequence or do not chain by previousHash
	CodeInconsistent Code = "inconsistent"  // the anchored root is not a prefix of the tree head's, by the consistency proof
)

// The classes of codes and sentinels: what kind of failure each is, in the
// same words in every package of Parley (docs/api.md, "Errors").
const (
	classInvalid       = "invalid"       // the input is malformed
	classNotFound      = "not_found"     // no such entry, object, negotiation or head
	classConflict      = "conflict"      // refused in this state; a chain that contradicts itself
	classTooLarge      = "too_large"     // over a size limit
	classUnprocessable = "unprocessable" // a proof bundle that does not verify
	classUnavailable   = "unavailable"   // the ledger is closed, read-only or needs recovery
	classInternal      = "internal"      // the store failed
)

// classes holds the class of every code of this package; a code missing
// here has no class, which a test of the node's API catches.
var classes = map[Code]string{
	CodeBadKind:          classInvalid,
	CodeBadBody:          classInvalid,
	CodeReservedMember:   classInvalid,
	CodeTooLarge:         classTooLarge,
	CodeBadNegotiationID: classInvalid,
	CodeBadTime:          classInvalid,
	CodeBadObject:        classInvalid,
	CodeBadCode:          classInvalid,
	CodeUnknownHead:      classNotFound,
	CodeRetained:         classConflict,
	CodeUnknownSize:      classNotFound,

	CodeMalformedEntry: classConflict,
	CodeSeqMismatch:    classConflict,
	CodeMissingEntry:   classConflict,
	CodePrevMismatch:   classConflict,
	CodeHashMismatch:   classConflict,
	CodeHeadMismatch:   classConflict,
	CodeObjectMissing:  classConflict,
	CodeObjectMismatch: classConflict,
	CodeUnreadable:     classConflict,
	CodeBadEnvelope:    classUnprocessable,
	CodeBadBundle:      classUnprocessable,
	CodeTreeMismatch:   classConflict,
	CodeBadProof:       classUnprocessable,

	CodeOutOfOrder:   classUnprocessable,
	CodeForeignEntry: classUnprocessable,
	CodeBadInclusion: classUnprocessable,
	CodeOmittedEntry: classUnprocessable,
	CodeSenderChain:  classUnprocessable,
	CodeInconsistent: classUnprocessable,
}

// Class returns the class of c: invalid for a malformed input, too_large
// for one over a limit, not_found for an unknown head, conflict for a
// retention refused and for an entry that fails verification (what rests
// on it is refused until the ledger is restored; a retry changes nothing),
// unprocessable for a proof bundle that does not verify; "" for a string
// that is no code of this package.
func (c Code) Class() string { return classes[c] }

// Sentinel errors. They carry no code and match only themselves; each
// knows its class.
var (
	// ErrNotFound reports that no entry, object or negotiation matches
	// (class not_found).
	ErrNotFound error = &sentinel{"ledger: not found", classNotFound}
	// ErrClosed reports a call on a ledger that is closed or was never
	// started (class unavailable).
	ErrClosed error = &sentinel{"ledger: closed", classUnavailable}
	// ErrStarted reports a second Start (class conflict).
	ErrStarted error = &sentinel{"ledger: already started", classConflict}
	// ErrFailed reports that a write to the store failed; the ledger refuses
	// further appends until it is reopened (and reverified) (class
	// internal).
	ErrFailed error = &sentinel{"ledger: store failed", classInternal}
	// ErrReadOnly reports an append to a ledger opened read-only (class
	// unavailable).
	ErrReadOnly error = &sentinel{"ledger: read-only", classUnavailable}
	// ErrNeedsRecovery reports a read-only open of a ledger that was not
	// closed cleanly: its write-ahead log must be replayed (and its torn,
	// never acknowledged tail cut) by one read-write open first (class
	// unavailable).
	ErrNeedsRecovery error = &sentinel{"ledger: not closed cleanly; a read-write open recovers it", classUnavailable}
)

// sentinel is an error without a code that knows its class.
type sentinel struct{ msg, class string }

// Error returns the sentinel's message.
func (e *sentinel) Error() string { return e.msg }

// Class returns the sentinel's class.
func (e *sentinel) Class() string { return e.class }

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
//
// Class returns the class of its code (Code.Class), and errors.Is(err,
// &Error{Code: c}) (or a sentinel such as ErrTooLarge) is true for every
// *Error with code c, whatever the other fields of either: the one meaning
// Is has for the coded errors of every package of Parley. VerifyError
// does the same with a *VerifyError target.
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

// Is makes errors.Is(err, &Error{Code: c}) match any *Error with code c,
// whatever its other fields (and the target's).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class of e's code (Code.Class).
func (e *Error) Class() string { return e.Code.Class() }

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

// Is makes errors.Is(err, &VerifyError{Code: c}) match any *VerifyError
// with code c, whatever its Seq and Msg (and the target's).
func (e *VerifyError) Is(target error) bool {
	t, ok := target.(*VerifyError)
	return ok && t.Code == e.Code
}

// Class returns the class of e's code (Code.Class): conflict for an entry
// of the chain, unprocessable for a bundle that does not verify.
func (e *VerifyError) Class() string { return e.Code.Class() }

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
