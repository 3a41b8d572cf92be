package negotiation

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable rejection code. Tests, fixtures, the
// CLI and peers all speak in codes; messages are for people.
type Code string

// Decoding and authenticity codes. Input rejected with one of these is not
// authentic: it changes nothing and is recorded by hash and code only.
const (
	CodeSchemaInvalid        Code = "schema_invalid"         // fails the JSON Schema
	CodeUnknownField         Code = "unknown_field"          // a member the schema does not name
	CodeDuplicateKey         Code = "duplicate_key"          // an object names a member twice
	CodeTooLarge             Code = "too_large"              // input over the configured size limit
	CodeMalformedJSON        Code = "malformed_json"         // not JSON at all
	CodeBadSchemaVersion     Code = "bad_schema_version"     // schemaVersion is not azzle-xmtp-v1
	CodeUnknownType          Code = "unknown_type"           // type names no message type
	CodeBadAddress           Code = "bad_address"            // not an EIP-55 checksummed address
	CodeBadHex               Code = "bad_hex"                // not 0x + lowercase hex of the right length
	CodeBadUUID              Code = "bad_uuid"               // negotiationId is not a lowercase UUID v4
	CodeBadTimestamp         Code = "bad_timestamp"          // not RFC 3339 UTC with 3 fractional digits and Z
	CodeBadInteger           Code = "bad_integer"            // a decimal string that is not a canonical uint256
	CodeBadCID               Code = "bad_cid"                // not a CIDv1 string
	CodeBadFileName          Code = "bad_file_name"          // a file name with a path separator, a control or bidi character, only dots, empty or too long
	CodeBadSignature         Code = "bad_signature"          // ed25519 signature does not verify
	CodeBadEVMSignature      Code = "bad_evm_signature"      // EVM signature malformed, high s, or v not 27/28
	CodeNotAddressed         Code = "not_addressed"          // a direct envelope that does not name this node
	CodeSequenceGap          Code = "sequence_gap"           // ahead of its sender's previous envelope (retry)
	CodePreviousHashMismatch Code = "previous_hash_mismatch" // previousHash is not the sender's previous envelope
	CodeEquivocation         Code = "equivocation"           // another envelope already holds this sequence
	CodeClockSkew            Code = "clock_skew"             // more than 5 minutes in the receiver's future (retry)
	CodeTimestampRegression  Code = "timestamp_regression"   // earlier than the sender's previous envelope
	CodeKeyMismatch          Code = "key_mismatch"           // sender's inbox key differs from the one seen before
	CodeWrongNegotiation     Code = "wrong_negotiation"      // negotiationId is not this thread's
	CodeMissingReference     Code = "missing_reference"      // names an envelope this thread has not seen (retry)
	CodeDuplicate            Code = "duplicate"              // the same envelope again: a success, nothing changes
)

// Effect codes. An envelope refused with one of these is authentic: it is
// stored whole and advances its sender's chain, but its effect is refused.
const (
	CodeRoleForbidden           Code = "role_forbidden"            // the sender's role may not send this type
	CodeStateForbidden          Code = "state_forbidden"           // not allowed in the thread's current state
	CodeOfferExpired            Code = "offer_expired"             // accepted after the offer's TTL
	CodeTermsChanged            Code = "terms_changed"             // accepts a superseded revision
	CodeRevisionLimit           Code = "revision_limit"            // more counter-offers than max_revisions
	CodeAcceptAttemptsExhausted Code = "accept_attempts_exhausted" // too many refused acceptances
	CodeDigestMismatch          Code = "digest_mismatch"           // settlement digest is not that of the offer
	CodeSignerMismatch          Code = "signer_mismatch"           // EVM signature is not by the sender
	CodeBoundByAcceptance       Code = "bound_by_acceptance"       // countering after accepting, before the other side countered
	CodeTaskMismatch            Code = "task_mismatch"             // taskId absent where needed or not this task's
	CodeBadReference            Code = "bad_reference"             // inReplyTo or another reference names the wrong kind of envelope
	CodeMilestoneInvalid        Code = "milestone_invalid"         // milestone index out of range or in the wrong state
	CodePaymentExceeds          Code = "payment_exceeds_milestone" // a payment request beyond what the milestone's released total and pending requests leave
)

// PXP effect codes (docs/pxp.md): the thread refuses these on the wire, for
// every sender alike. Like the codes above, the envelope stays authentic.
const (
	CodeAgreeWithCounter  Code = "agree_with_counter"  // status agree on an envelope that makes an offer
	CodeAgreeWithConflict Code = "agree_with_conflict" // an acceptance carrying a conflict review
	CodeDependsOnDisputed Code = "depends_on_disputed" // accepts an offer resting on a claim the sender disputed, with no amendment since
	CodeClaimRestated     Code = "claim_restated"      // re-uses another party's claim id, or changes one's own claim beyond attaching a source
)

// PXP mandate codes: a node's Mandate refuses what its proxy may not send
// under its principal's card (docs/pxp.md). Nothing is sent and nothing
// changes.
const (
	CodeClaimUntagged      Code = "claim_untagged"      // a claim without a valid origin, a required ref, or a stated ref naming a clause of the card
	CodeReviewMissing      Code = "review_missing"      // a claim of the other side is not reviewed
	CodeReviewMismatch     Code = "review_mismatch"     // a review contradicts what a rule of the card decided, or names no claim of the other side
	CodeEscalationRequired Code = "escalation_required" // a trigger of PXP section 5 fired: ask the principal first
	CodePaused             Code = "paused"              // the negotiation waits for the principal's answer
	CodeAnswerUnconfirmed  Code = "answer_unconfirmed"  // a binding act rests on a relayed answer not yet confirmed
	CodeCardMismatch       Code = "card_mismatch"       // the payload's intentCardHash is not the sealed card's
	CodeRuleInvalid        Code = "rule_invalid"        // a clause's CEL rule does not compile to a bool
)

// The classes of codes: what kind of refusal a code is, in the same words
// in every package of Parley (docs/api.md, "Errors"), so that a caller
// such as the node's API asks an error for its class (Class) and answers
// each class one way, whatever package the code comes from.
const (
	classInvalid   = "invalid"   // the input is malformed or out of range
	classForbidden = "forbidden" // the sender's role may not do this
	classConflict  = "conflict"  // the thread's state or history does not allow it
	classTooLarge  = "too_large" // over a size limit
)

// classes holds the class of every code of this package; a code missing
// here has no class, which a test of the node's API catches.
var classes = map[Code]string{
	CodeSchemaInvalid:        classInvalid,
	CodeUnknownField:         classInvalid,
	CodeDuplicateKey:         classInvalid,
	CodeTooLarge:             classTooLarge,
	CodeMalformedJSON:        classInvalid,
	CodeBadSchemaVersion:     classInvalid,
	CodeUnknownType:          classInvalid,
	CodeBadAddress:           classInvalid,
	CodeBadHex:               classInvalid,
	CodeBadUUID:              classInvalid,
	CodeBadTimestamp:         classInvalid,
	CodeBadInteger:           classInvalid,
	CodeBadCID:               classInvalid,
	CodeBadFileName:          classInvalid,
	CodeBadSignature:         classInvalid,
	CodeBadEVMSignature:      classInvalid,
	CodeNotAddressed:         classInvalid,
	CodeSequenceGap:          classConflict,
	CodePreviousHashMismatch: classConflict,
	CodeEquivocation:         classConflict,
	CodeClockSkew:            classConflict,
	CodeTimestampRegression:  classConflict,
	CodeKeyMismatch:          classConflict,
	CodeWrongNegotiation:     classConflict,
	CodeMissingReference:     classConflict,
	CodeDuplicate:            classConflict,

	CodeRoleForbidden:           classForbidden,
	CodeNotParty:                classForbidden,
	CodeBadArgument:             classInvalid,
	CodeStateForbidden:          classConflict,
	CodeOfferExpired:            classConflict,
	CodeTermsChanged:            classConflict,
	CodeRevisionLimit:           classConflict,
	CodeAcceptAttemptsExhausted: classConflict,
	CodeDigestMismatch:          classConflict,
	CodeSignerMismatch:          classConflict,
	CodeBoundByAcceptance:       classConflict,
	CodeTaskMismatch:            classConflict,
	CodeBadReference:            classConflict,
	CodeMilestoneInvalid:        classInvalid,
	CodePaymentExceeds:          classConflict,

	CodeAgreeWithCounter:  classInvalid,
	CodeAgreeWithConflict: classInvalid,
	CodeDependsOnDisputed: classConflict,
	CodeClaimRestated:     classInvalid,

	CodeClaimUntagged:      classInvalid,
	CodeReviewMissing:      classInvalid,
	CodeReviewMismatch:     classInvalid,
	CodeEscalationRequired: classConflict,
	CodePaused:             classConflict,
	CodeAnswerUnconfirmed:  classConflict,
	CodeCardMismatch:       classConflict,
	CodeRuleInvalid:        classInvalid,
}

// Class returns the class of c: invalid for input that does not decode or
// verify and for an agent's malformed PXP input, forbidden for a sender
// whose role may not send it, conflict for what the thread's state or
// history refuses (including the retryable sequence_gap, clock_skew and
// missing_reference, and duplicate), too_large for input over a limit;
// "" for a string that is no code of this package.
func (c Code) Class() string { return classes[c] }

// Retryable reports whether input refused with c may succeed later unchanged.
func (c Code) Retryable() bool {
	switch c {
	case CodeSequenceGap, CodeClockSkew, CodeMissingReference:
		return true
	}
	return false
}

// Authentic reports whether an envelope refused with c is still authentic
// (kept whole, advancing its sender's chain) rather than dropped.
func (c Code) Authentic() bool {
	switch c {
	case CodeRoleForbidden, CodeStateForbidden, CodeOfferExpired, CodeTermsChanged,
		CodeRevisionLimit, CodeAcceptAttemptsExhausted, CodeDigestMismatch,
		CodeSignerMismatch, CodeBoundByAcceptance, CodeTaskMismatch,
		CodeBadReference, CodeMilestoneInvalid, CodePaymentExceeds,
		CodeAgreeWithCounter, CodeAgreeWithConflict, CodeDependsOnDisputed, CodeClaimRestated:
		return true
	}
	return false
}

// Error is a rejection with a stable code. Field names the offending member
// (a JSON pointer or a name) where one is known.
//
// Class returns the class of its code (Code.Class), and errors.Is(err,
// &Error{Code: c}) is true for every *Error with code c, whatever the other
// fields of either: the one meaning Is has for the coded errors of every
// package of Parley.
type Error struct {
	Code  Code
	Field string
	Msg   string
	Err   error
}

// Error returns "negotiation: <code>: <field>: <msg>".
func (e *Error) Error() string {
	s := "negotiation: " + string(e.Code)
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
// whatever its Field, Msg and Err (and the target's).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class of e's code (Code.Class).
func (e *Error) Class() string { return e.Code.Class() }

func reject(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of err, or "" when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
