package storeguard

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable reason a store was refused.
type Code string

// The codes of a refused store.
const (
	CodeNoManifest  Code = "no_manifest"     // table, value-log or memtable files but no MANIFEST
	CodeBadManifest Code = "bad_manifest"    // a MANIFEST that does not parse, or does not name the tables present
	CodeEmptier     Code = "store_emptier"   // the store holds less than its record says
	CodeDifferent   Code = "store_different" // the store holds other data than its record names
	CodeForeign     Code = "foreign_record"  // the record names another node
	CodeBadRecord   Code = "bad_record"      // the record file does not parse
)

// classInternal is the class of every code of this package, in the same
// words as every package of Parley (docs/api.md, "Errors"): a refused
// store is the node's own state, not its caller's input.
const classInternal = "internal"

// classes holds the class of every code of this package; a code missing
// here has no class, which a test of the node's API catches.
var classes = map[Code]string{
	CodeNoManifest:  classInternal,
	CodeBadManifest: classInternal,
	CodeEmptier:     classInternal,
	CodeDifferent:   classInternal,
	CodeForeign:     classInternal,
	CodeBadRecord:   classInternal,
}

// Class returns the class of c (internal for every code of this package),
// or "" for a string that is no code of it.
func (c Code) Class() string { return classes[c] }

// Error is a store refused at open: which store, what its record says,
// what its directory holds, and how to restore it. Nothing was deleted.
//
// Class returns the class of its code (Code.Class), and errors.Is(err,
// &Error{Code: c}) is true for every *Error with code c, whatever the other
// fields of either (the one meaning Is has for the coded errors of every
// package of Parley); errors.Is(err, ErrRefused) is true for every *Error.
type Error struct {
	// Code is the stable reason.
	Code Code
	// Store names the store: "ledger" or "approvals".
	Store string
	// Dir is the store's directory.
	Dir string
	// RecordFile is the store's record file.
	RecordFile string
	// Record is what the record says (nil when there is none or it does
	// not parse).
	Record *Record
	// Found describes what the directory holds.
	Found string
	// Msg says what does not fit.
	Msg string
}

// Error returns the refusal with the record, what was found, and the ways
// to restore the store.
func (e *Error) Error() string {
	s := fmt.Sprintf("storeguard: the %s store at %s is refused (%s): %s", e.Store, e.Dir, e.Code, e.Msg)
	if e.Record != nil {
		s += fmt.Sprintf("; its record %s says %s", e.RecordFile, e.Record)
	}
	if e.Found != "" {
		s += "; found " + e.Found
	}
	return s + ". " + e.Remedy()
}

// Remedy says how to restore the store: a backup of its directory, the
// node's keys in a new data directory, or an explicit reset that archives
// the directory.
func (e *Error) Remedy() string {
	rec := ""
	if e.RecordFile != "" {
		rec = " (and " + e.RecordFile + ")"
	}
	return fmt.Sprintf("To restore it, stop the node and either put back a backup of %s%s; or restore the node's keys "+
		"into a new data directory with `parley keys import` (its stores start empty); or run `parley node run --reset-%s`, "+
		"which moves %s aside under a new name (never deleting it), starts the store empty and records the reset in the ledger",
		e.Dir, rec, e.Store, e.Dir)
}

// Is makes errors.Is(err, &Error{Code: c}) match any *Error with code c,
// whatever its other fields (and the target's), and errors.Is(err,
// ErrRefused) match every *Error.
func (e *Error) Is(target error) bool {
	if target == ErrRefused {
		return true
	}
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class of e's code (Code.Class).
func (e *Error) Class() string { return e.Code.Class() }

// ErrRefused matches every *Error: a store refused at open. It carries no
// code, matches only itself (and every *Error), and is of class internal.
var ErrRefused error = &sentinel{"storeguard: store refused", classInternal}

// sentinel is an error without a code that knows its class.
type sentinel struct{ msg, class string }

// Error returns the sentinel's message.
func (e *sentinel) Error() string { return e.msg }

// Class returns the sentinel's class.
func (e *sentinel) Class() string { return e.class }

// CodeOf returns the code of err, or "" when it is not an *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
