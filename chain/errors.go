package chain

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// The classes of errors: what kind of failure each is, in the same words
// in every package of Parley (docs/api.md, "Errors"). This package has no
// codes of its own; each sentinel, and RevertError, knows its class.
const (
	classInvalid     = "invalid"     // arguments that do not encode
	classNotFound    = "not_found"   // no such task state on chain
	classConflict    = "conflict"    // the contract refused the call
	classInternal    = "internal"    // the configuration does not fit the chain
	classUpstream    = "upstream"    // the chain failed the transaction or did not answer
	classUnavailable = "unavailable" // used after Close
)

// Sentinel errors. Callers match them with errors.Is: each matches only
// itself (and ErrReverted every *RevertError), and each knows its class.
var (
	// ErrInvalidConfig is returned by Validate for a configuration field that
	// is missing or out of range; the message names the field (class
	// internal).
	ErrInvalidConfig error = &sentinel{"chain: invalid config", classInternal}
	// ErrReverted matches every *RevertError: the contract refused the call
	// (class conflict).
	ErrReverted error = &sentinel{"chain: reverted", classConflict}
	// ErrTxFailed is returned when a mined transaction failed and the reason
	// could not be recovered by replaying it (class upstream).
	ErrTxFailed error = &sentinel{"chain: transaction failed", classUpstream}
	// ErrReceiptTimeout is returned when no receipt arrived within
	// Config.ReceiptTimeout, fee bumps included (class upstream).
	ErrReceiptTimeout error = &sentinel{"chain: no receipt in time", classUpstream}
	// ErrWrongChain is returned when the node's chain id differs from the
	// configured one (class internal).
	ErrWrongChain error = &sentinel{"chain: wrong chain id", classInternal}
	// ErrNoContract is returned when an address that should hold a contract
	// holds no code (class internal).
	ErrNoContract error = &sentinel{"chain: no contract code at address", classInternal}
	// ErrTaskNotFound is returned when no TaskUpdated event matches the task's
	// stored state hash (class not_found).
	ErrTaskNotFound error = &sentinel{"chain: task not found", classNotFound}
	// ErrNoTaskEvent is returned when a receipt that should carry a task's new
	// state carries none (class upstream).
	ErrNoTaskEvent error = &sentinel{"chain: receipt has no task state", classUpstream}
	// ErrBadArgument is returned when call arguments do not ABI-encode (a nil
	// amount, a value out of range); nothing is sent (class invalid).
	ErrBadArgument error = &sentinel{"chain: bad argument", classInvalid}
	// ErrClosed is returned by a component used after Close (class
	// unavailable).
	ErrClosed error = &sentinel{"chain: closed", classUnavailable}
)

// sentinel is an error without a code that knows its class.
type sentinel struct{ msg, class string }

// Error returns the sentinel's message.
func (e *sentinel) Error() string { return e.msg }

// Class returns the sentinel's class.
func (e *sentinel) Class() string { return e.class }

// RevertError is a call or transaction the EVM reverted, decoded against the
// ABIs of Parley's contracts. Its Code is derived from the revert; its
// class is always conflict (the contract refused the call in the chain's
// state); errors.Is(err, ErrReverted) is true for every one, and
// errors.Is(err, &RevertError{Name: "DigestUsed"}) for every one with the
// code digest_used, whatever the other fields of either: the one meaning
// Is has for the coded errors of every package of Parley.
type RevertError struct {
	// Contract names the contract whose ABI declares the error, when known.
	Contract string
	// Name is the custom error's name ("DigestUsed"), "Error" for a revert
	// string, "Panic" for a Solidity panic, or "" when nothing decoded.
	Name string
	// Args are the error's decoded arguments, in declaration order.
	Args []any
	// Reason is the revert string of Error(string), or the panic code.
	Reason string
	// Data is the raw revert data.
	Data []byte
}

// Error returns "chain: reverted: <Contract>.<Name>(<args>)".
func (e *RevertError) Error() string {
	var b strings.Builder
	b.WriteString("chain: reverted")
	switch {
	case e.Name == "":
		if len(e.Data) > 0 {
			fmt.Fprintf(&b, ": data 0x%x", e.Data)
		}
	case e.Reason != "":
		fmt.Fprintf(&b, ": %s: %s", e.Name, e.Reason)
	default:
		b.WriteString(": ")
		if e.Contract != "" {
			b.WriteString(e.Contract + ".")
		}
		b.WriteString(e.Name)
		b.WriteString("(")
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%v", a)
		}
		b.WriteString(")")
	}
	return b.String()
}

// Is makes errors.Is(err, ErrReverted) true for every *RevertError, and
// errors.Is(err, &RevertError{Name: n}) true for every *RevertError with
// the same Code, whatever its other fields (and the target's).
func (e *RevertError) Is(target error) bool {
	if target == ErrReverted {
		return true
	}
	t, ok := target.(*RevertError)
	return ok && t.Code() == e.Code()
}

// Class returns conflict: the contract refused the call.
func (e *RevertError) Class() string { return classConflict }

// Code returns a stable machine-readable code: the custom error's name in
// snake_case ("DigestUsed" -> "digest_used"), "revert_string", "panic", or
// "reverted" when the data did not decode.
func (e *RevertError) Code() string {
	switch e.Name {
	case "":
		return "reverted"
	case "Error":
		return "revert_string"
	case "Panic":
		return "panic"
	}
	return snake(e.Name)
}

// RevertCode returns the Code of the *RevertError in err's chain, or "" when
// err is not a revert.
func RevertCode(err error) string {
	var re *RevertError
	if errors.As(err, &re) {
		return re.Code()
	}
	return ""
}

func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
