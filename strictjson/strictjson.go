package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Code is a stable, machine-readable refusal code, spelled as the wire
// format's codes (negotiation.Code) are.
type Code string

// The codes of a refusal.
const (
	CodeMalformedJSON Code = "malformed_json" // not exactly one JSON value, invalid UTF-8, a lone surrogate
	CodeDuplicateKey  Code = "duplicate_key"  // an object names a member twice
	CodeUnknownField  Code = "unknown_field"  // a member the Go type does not name (names match exactly)
	CodeSchemaInvalid Code = "schema_invalid" // a value of the wrong type or out of the Go type's range
	CodeTooLarge      Code = "too_large"      // more bytes than the limit
)

// The classes of codes: what kind of refusal a code is, in the same words
// in every package of Parley (docs/api.md, "Errors").
const (
	classInvalid  = "invalid"   // not a document the type takes
	classTooLarge = "too_large" // over the limit
)

// classes holds the class of every code of this package; a code missing
// here has no class, which a test of the node's API catches.
var classes = map[Code]string{
	CodeMalformedJSON: classInvalid,
	CodeDuplicateKey:  classInvalid,
	CodeUnknownField:  classInvalid,
	CodeSchemaInvalid: classInvalid,
	CodeTooLarge:      classTooLarge,
}

// Class returns the class of c: too_large for a document over the limit,
// invalid for every other refusal; "" for a string that is no code of
// this package.
func (c Code) Class() string { return classes[c] }

// Error is a refusal: its code, where it was found (a JSON pointer such as
// "/milestones/0/amount", "" for the whole document, and the byte offset)
// and the cause.
//
// Class returns the class of its code (Code.Class), and errors.Is(err,
// &Error{Code: c}) is true for every *Error with code c, whatever the other
// fields of either: the one meaning Is has for the coded errors of every
// package of Parley.
type Error struct {
	Code    Code
	Pointer string
	Offset  int64
	Msg     string
	Err     error
}

// Error returns "strictjson: <code>: <pointer>: <msg>", leaving out what is
// empty.
func (e *Error) Error() string {
	s := "strictjson: " + string(e.Code)
	if e.Pointer != "" {
		s += ": " + e.Pointer
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Unwrap returns the cause: the JSON library's error, or the error of an
// UnmarshalJSON or UnmarshalText method.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, &Error{Code: c}) match any *Error with code c,
// whatever its other fields (and the target's).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class of e's code (Code.Class).
func (e *Error) Class() string { return e.Code.Class() }

// Member returns the name of the member the refusal is about: the last
// token of Pointer ("" for the whole document or an array element).
func (e *Error) Member() string {
	p := jsontext.Pointer(e.Pointer)
	if !p.IsValid() {
		return ""
	}
	last := p.LastToken()
	if _, err := strconv.Atoi(last); err == nil && last != "" {
		return ""
	}
	return last
}

// CodeOf returns the code of err, or "" when err is not a refusal of this
// package.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// options are the decoder's settings on top of JSON v2's defaults
// (duplicate names and invalid UTF-8 refused, names matched exactly). The
// node writes JSON with encoding/json, so values keep encoding/json's
// representations where JSON v2 has other defaults: a [N]byte is an array
// of numbers, a slice of a named byte type is base64, a time.Duration is
// a number of nanoseconds, and methods are called as encoding/json calls
// them (map keys through UnmarshalText only). Every other leniency of
// encoding/json (duplicates, any letter case, invalid UTF-8, unknown
// members, loose base64 and RFC 3339, arrays of any length) stays off.
var options = json.JoinOptions(
	jsonv1.FormatByteArrayAsArray(true),
	jsonv1.FormatBytesWithLegacySemantics(true),
	jsonv1.FormatDurationAsNano(true),
	jsonv1.CallMethodsWithLegacySemantics(true),
	json.RejectUnknownMembers(true),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
	json.MatchCaseInsensitiveNames(false),
)

// Unmarshal decodes b, which must be exactly one JSON value with optional
// white space around it, into v (a non-nil pointer). It returns nil or an
// *Error.
//
// The text is checked as a whole before it is decoded, so a syntax error,
// invalid UTF-8 or a duplicate member is reported (malformed_json,
// duplicate_key) before any member the type does not know (unknown_field)
// or any value that does not fit it (schema_invalid), whatever their order
// in the text: the order the wire format's decoder reports them in.
func Unmarshal(b []byte, v any) error {
	if err := Check(b); err != nil {
		return err
	}
	if err := json.Unmarshal(b, v, options); err != nil {
		return classify(err)
	}
	return nil
}

// Check reports whether b is exactly one strict JSON value: nil, or an
// *Error with CodeMalformedJSON or CodeDuplicateKey.
func Check(b []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(b), options)
	if err := dec.SkipValue(); err != nil {
		return classify(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the JSON value")
		}
		return classify(err)
	}
	return nil
}

// Read reads all of r, at most max bytes, and decodes it with Unmarshal.
// More than max bytes is CodeTooLarge; max <= 0 means no limit. A read
// error is returned as it is.
func Read(r io.Reader, max int64, v any) error {
	b, err := ReadAll(r, max)
	if err != nil {
		return err
	}
	return Unmarshal(b, v)
}

// ReadAll reads all of r, at most max bytes (max <= 0: no limit). More is
// an *Error with CodeTooLarge; a read error is returned as it is.
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	if max <= 0 {
		return io.ReadAll(r)
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &Error{Code: CodeTooLarge, Msg: fmt.Sprintf("more than %d bytes", max)}
	}
	return b, nil
}

// classify turns a JSON v2 error into an *Error with its code.
func classify(err error) *Error {
	var se *json.SemanticError
	var te *jsontext.SyntacticError
	var own *Error
	switch {
	case errors.As(err, &own):
		// A value's own UnmarshalJSON already judged it with this
		// package: keep its code and message, its pointer below the
		// value's.
		e := *own
		if errors.As(err, &se) && se.JSONPointer != "" {
			e.Pointer = string(se.JSONPointer) + e.Pointer
		}
		return &e
	case errors.As(err, &te):
		e := &Error{Code: CodeMalformedJSON, Pointer: string(te.JSONPointer), Offset: te.ByteOffset, Err: err}
		switch {
		case errors.Is(te.Err, jsontext.ErrDuplicateName):
			e.Code = CodeDuplicateKey
			e.Msg = "member " + strconv.Quote(jsontext.Pointer(te.JSONPointer).LastToken()) + " appears twice"
		case errors.Is(te.Err, io.ErrUnexpectedEOF):
			e.Msg = "truncated or empty"
		default:
			e.Msg = trimPrefix(te.Err)
		}
		return e
	case errors.As(err, &se):
		e := &Error{Code: CodeSchemaInvalid, Pointer: string(se.JSONPointer), Offset: se.ByteOffset, Err: err}
		switch {
		case errors.Is(se.Err, json.ErrUnknownName):
			e.Code = CodeUnknownField
			e.Msg = "unknown member " + strconv.Quote(jsontext.Pointer(se.JSONPointer).LastToken())
		case errors.Is(se.Err, io.ErrUnexpectedEOF):
			e.Code = CodeMalformedJSON
			e.Msg = "truncated"
		case se.Err != nil && se.JSONKind == 0 && se.GoType == nil:
			e.Msg = trimPrefix(se.Err)
		default:
			e.Msg = semanticMsg(se)
		}
		return e
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Code: CodeMalformedJSON, Msg: "truncated or empty", Err: err}
	}
	return &Error{Code: CodeMalformedJSON, Msg: err.Error(), Err: err}
}

// semanticMsg says what did not fit, without the library's prefix and
// pointer (Error prints the pointer itself).
func semanticMsg(se *json.SemanticError) string {
	var s string
	if se.JSONKind != 0 {
		s = "a JSON " + kindName(se.JSONKind)
		if se.GoType != nil {
			s += " cannot be a " + se.GoType.String()
		} else {
			s += " is not allowed here"
		}
	} else if se.GoType != nil {
		s = "not a valid " + se.GoType.String()
	}
	if se.Err != nil {
		if s != "" {
			s += ": "
		}
		s += trimPrefix(se.Err)
	}
	if s == "" {
		s = "invalid value"
	}
	return s
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

func trimPrefix(err error) string {
	s := err.Error()
	for _, p := range []string{"jsontext: ", "json: "} {
		if len(s) > len(p) && s[:len(p)] == p {
			return s[len(p):]
		}
	}
	return s
}
