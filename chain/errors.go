package chain

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Sentinel errors. Callers match them with errors.Is.
var (
	// ErrInvalidConfig is returned by Validate for a configuration field that
	// is missing or out of range; the message names the field.
	ErrInvalidConfig = errors.New("chain: invalid config")
	// ErrReverted matches every *RevertError: the contract refused the call.
	ErrReverted = errors.New("chain: reverted")
	// ErrTxFailed is returned when a mined transaction failed and the reason
	// could not be recovered by replaying it.
	ErrTxFailed = errors.New("chain: transaction failed")
	// ErrReceiptTimeout is returned when no receipt arrived within
	// Config.ReceiptTimeout, fee bumps included.
	ErrReceiptTimeout = errors.New("chain: no receipt in time")
	// ErrWrongChain is returned when the node's chain id differs from the
	// configured one.
	ErrWrongChain = errors.New("chain: wrong chain id")
	// ErrNoContract is returned when an address that should hold a contract
	// holds no code.
	ErrNoContract = errors.New("chain: no contract code at address")
	// ErrTaskNotFound is returned when no TaskUpdated event matches the task's
	// stored state hash.
	ErrTaskNotFound = errors.New("chain: task not found")
	// ErrNoTaskEvent is returned when a receipt that should carry a task's new
	// state carries none.
	ErrNoTaskEvent = errors.New("chain: receipt has no task state")
	// ErrBadArgument is returned when call arguments do not ABI-encode (a nil
	// amount, a value out of range); nothing is sent.
	ErrBadArgument = errors.New("chain: bad argument")
	// ErrClosed is returned by a component used after Close.
	ErrClosed = errors.New("chain: closed")
)

// RevertError is a call or transaction the EVM reverted, decoded against the
// ABIs of Parley's contracts.
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

// Is makes errors.Is(err, ErrReverted) true for every RevertError.
func (e *RevertError) Is(target error) bool { return target == ErrReverted }

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
