package schemas

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

//go:embed *.schema.json payloads/*.schema.json
var files embed.FS

// BaseURL is the $id prefix of every schema in this package.
const BaseURL = "https://parley.dev/schemas/"

// Names of the top-level schemas callers validate against.
const (
	Envelope     = "envelope.schema.json"
	IdentityLink = "identity-link.schema.json"
)

// Error is a validation failure with the stable code of its most specific
// cause (see the Code constants). Its class is invalid, whatever the code
// (the class negotiation gives the same codes), and errors.Is(err,
// &Error{Code: c}) is true for every *Error with code c, whatever the other
// fields of either: the one meaning Is has for the coded errors of every
// package of Parley.
type Error struct {
	Code    string // e.g. "unknown_field", "bad_address", "schema_invalid"
	Pointer string // JSON pointer of the offending value (of the unknown member for unknown_field)
	Msg     string // the validator's message and the failing keyword's location
}

// Error returns "schemas: <code> at <pointer>: <msg>".
func (e *Error) Error() string { return fmt.Sprintf("schemas: %s at %q: %s", e.Code, e.Pointer, e.Msg) }

// Is makes errors.Is(err, &Error{Code: c}) match any *Error with code c,
// whatever its other fields (and the target's).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns invalid: a document that does not fit its schema.
func (e *Error) Class() string { return "invalid" }

// Set is the compiled set of embedded schemas.
type Set struct {
	byName        map[string]*jsonschema.Schema
	payloadByType map[string]*jsonschema.Schema
}

var (
	compileOnce sync.Once
	compiled    *Set
	compileErr  error
)

// Compiled returns the embedded schemas, compiled on first use. The set is
// immutable and safe for concurrent use.
func Compiled() (*Set, error) {
	compileOnce.Do(func() { compiled, compileErr = compile() })
	return compiled, compileErr
}

// FS returns the embedded schema files (for tools that publish them).
func FS() fs.FS { return files }

func compile() (*Set, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	var names []string
	var dispatch map[string]string
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := files.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			return fmt.Errorf("schemas: %s: %w", p, err)
		}
		if err := c.AddResource(BaseURL+p, doc); err != nil {
			return fmt.Errorf("schemas: %s: %w", p, err)
		}
		names = append(names, p)
		if p == Envelope {
			if dispatch, err = splitEnvelope(c, doc); err != nil {
				return err
			}
			names = append(names, envelopeHeader)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s := &Set{byName: make(map[string]*jsonschema.Schema, len(names)), payloadByType: map[string]*jsonschema.Schema{}}
	for _, n := range names {
		sch, err := c.Compile(BaseURL + n)
		if err != nil {
			return nil, fmt.Errorf("schemas: compile %s: %w", n, err)
		}
		s.byName[n] = sch
	}
	for typ, ref := range dispatch {
		sch, err := c.Compile(BaseURL + ref)
		if err != nil {
			return nil, fmt.Errorf("schemas: compile %s: %w", ref, err)
		}
		s.payloadByType[typ] = sch
	}
	return s, nil
}

// envelopeHeader is the envelope schema without its payload dispatch, which
// ValidateEnvelope applies itself.
const envelopeHeader = "envelope-header.schema.json"

// splitEnvelope registers the envelope schema without its allOf of
// if(type)/then(payload) pairs as envelopeHeader, and returns the type ->
// payload schema table those pairs spell. Evaluating fourteen conditions per
// envelope was a third of the decoding time; looking the type up is not.
func splitEnvelope(c *jsonschema.Compiler, doc any) (map[string]string, error) {
	env, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schemas: %s is not an object", Envelope)
	}
	header := make(map[string]any, len(env))
	for k, v := range env {
		header[k] = v
	}
	delete(header, "allOf")
	header["$id"] = BaseURL + envelopeHeader
	dispatch := map[string]string{}
	all, _ := env["allOf"].([]any)
	for _, item := range all {
		m, _ := item.(map[string]any)
		typ := digString(m, "if", "properties", "type", "const")
		ref := digString(m, "then", "properties", "payload", "$ref")
		if typ == "" || ref == "" {
			return nil, fmt.Errorf("schemas: %s: allOf item is not an if(type)/then(payload) pair", Envelope)
		}
		dispatch[typ] = ref
	}
	if len(dispatch) == 0 {
		return nil, fmt.Errorf("schemas: %s has no payload dispatch", Envelope)
	}
	if err := c.AddResource(BaseURL+envelopeHeader, header); err != nil {
		return nil, err
	}
	return dispatch, nil
}

func digString(m map[string]any, path ...string) string {
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[k]
	}
	s, _ := v.(string)
	return s
}

// ValidateEnvelope checks an envelope exactly as the envelope schema does:
// the envelope without its payload, then the payload against the schema of
// the envelope's type (the schema's own if/then dispatch, looked up instead
// of evaluated).
func (s *Set) ValidateEnvelope(v any) error {
	if err := s.Validate(envelopeHeader, v); err != nil {
		return err
	}
	m, _ := v.(map[string]any)
	typ, _ := m["type"].(string)
	sch, ok := s.payloadByType[typ]
	if !ok {
		return &Error{Code: CodeUnknownType, Pointer: "/type", Msg: fmt.Sprintf("no payload schema for %q", typ)}
	}
	err := sch.Validate(m["payload"])
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Error{Code: CodeSchemaInvalid, Pointer: "/payload", Msg: err.Error()}
	}
	e := classify(ve)
	e.Pointer = "/payload" + e.Pointer // "/payload/" names its member "" (RFC 6901)
	return e
}

// Validate checks v (a value as produced by encoding/json with UseNumber, or
// jsonschema.UnmarshalJSON) against the named schema and returns nil or an
// *Error carrying the code of the most specific failure.
func (s *Set) Validate(name string, v any) error {
	sch, ok := s.byName[name]
	if !ok {
		return fmt.Errorf("schemas: no schema named %q", name)
	}
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Error{Code: CodeSchemaInvalid, Msg: err.Error()}
	}
	return classify(ve)
}

// Codes a validation failure can carry. They are the decode codes of the
// negotiation package, spelled here because this package imports nothing of
// Parley's.
const (
	CodeSchemaInvalid    = "schema_invalid"
	CodeUnknownField     = "unknown_field"
	CodeBadSchemaVersion = "bad_schema_version"
	CodeUnknownType      = "unknown_type"
	CodeBadAddress       = "bad_address"
	CodeBadHex           = "bad_hex"
	CodeBadUUID          = "bad_uuid"
	CodeBadTimestamp     = "bad_timestamp"
	CodeBadInteger       = "bad_integer"
	CodeBadCID           = "bad_cid"
	CodeBadFileName      = "bad_file_name"
)

// commonDefs is the location prefix of the named definitions in
// common.schema.json whose failures carry a code of their own.
const commonDefs = BaseURL + "common.schema.json#/$defs/"

// codeByDef maps a named definition in common.schema.json to the code a
// failure inside that definition produces.
var codeByDef = map[string]string{
	"address":       CodeBadAddress,
	"hash":          CodeBadHex,
	"publicKey":     CodeBadHex,
	"signature":     CodeBadHex,
	"evmSignature":  CodeBadHex,
	"uuid":          CodeBadUUID,
	"timestamp":     CodeBadTimestamp,
	"uint256":       CodeBadInteger,
	"cid":           CodeBadCID,
	"fileName":      CodeBadFileName,
	"schemaVersion": CodeBadSchemaVersion,
	"messageType":   CodeUnknownType,
}

// DefCode returns the code a failure inside the named definition of
// common.schema.json carries ("address" -> bad_address), and false for a
// definition without a code of its own.
func DefCode(def string) (string, bool) {
	c, ok := codeByDef[def]
	return c, ok
}

// codeRank orders codes from most to least specific: when one instance fails
// in several places, the failure reported is the one whose code ranks first
// (then the first by instance location). A wrong version or type makes every
// other finding moot; a bad format names the exact value; schema_invalid
// names only a rule.
var codeRank = map[string]int{
	CodeBadSchemaVersion: 0,
	CodeUnknownType:      1,
	CodeBadAddress:       2,
	CodeBadHex:           2,
	CodeBadUUID:          2,
	CodeBadTimestamp:     2,
	CodeBadInteger:       2,
	CodeBadCID:           2,
	CodeBadFileName:      2,
	CodeUnknownField:     3,
	CodeSchemaInvalid:    4,
}

// CodeRank returns the rank of code in the order above (0 most specific):
// where one document fails in several places, the failure reported is the
// one of the lowest rank, then of the least JSON pointer. A code not of this
// package ranks last.
func CodeRank(code string) int {
	if r, ok := codeRank[code]; ok {
		return r
	}
	return len(codeRank)
}

// classify walks every cause of ve (through allOf, if/then and $ref) to the
// keyword failures at its leaves, names the code of each, and returns the
// most specific one. The choice does not depend on the order in which the
// validator visited the members of an object.
func classify(ve *jsonschema.ValidationError) *Error {
	var best *Error
	var bestKey string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		got := leafError(e)
		key := fmt.Sprintf("%d\x00%s\x00%s", codeRank[got.Code], got.Pointer, got.Msg)
		if best == nil || key < bestKey {
			best, bestKey = got, key
		}
	}
	walk(ve)
	if best == nil {
		return &Error{Code: CodeSchemaInvalid, Msg: ve.Error()}
	}
	return best
}

// leafError names the code of one keyword failure.
func leafError(e *jsonschema.ValidationError) *Error {
	ptr := pointer(e.InstanceLocation)
	msg := e.Error()
	if loc := keywordLocation(e); loc != "" {
		msg += " [" + loc + "]"
	}
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		names := slices.Clone(k.Properties)
		slices.Sort(names)
		if len(names) > 0 {
			ptr = pointer(append(slices.Clone(e.InstanceLocation), names[0]))
		}
		return &Error{Code: CodeUnknownField, Pointer: ptr, Msg: msg}
	case *kind.Type:
		// A value of the wrong JSON type is a structural error even where
		// the definition carries a format code.
		return &Error{Code: CodeSchemaInvalid, Pointer: ptr, Msg: msg}
	}
	if def, ok := strings.CutPrefix(e.SchemaURL, commonDefs); ok {
		if i := strings.IndexByte(def, '/'); i >= 0 {
			def = def[:i]
		}
		if code, ok := codeByDef[def]; ok {
			return &Error{Code: code, Pointer: ptr, Msg: msg}
		}
	}
	return &Error{Code: CodeSchemaInvalid, Pointer: ptr, Msg: msg}
}

// keywordLocation returns the absolute location of the failing keyword.
func keywordLocation(e *jsonschema.ValidationError) string {
	if e.ErrorKind == nil {
		return e.SchemaURL
	}
	kp := e.ErrorKind.KeywordPath()
	if len(kp) == 0 {
		return e.SchemaURL
	}
	return e.SchemaURL + "/" + strings.Join(kp, "/")
}

// pointer renders an instance location as a JSON pointer (RFC 6901).
func pointer(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		tok = strings.ReplaceAll(tok, "~", "~0")
		b.WriteString(strings.ReplaceAll(tok, "/", "~1"))
	}
	return b.String()
}
