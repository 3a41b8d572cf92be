package schemas

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
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

// Error is a validation failure with the stable code of its first cause.
type Error struct {
	Code    string // e.g. "unknown_field", "bad_address", "schema_invalid"
	Pointer string // JSON pointer of the offending value in the instance
	Msg     string
}

// Error returns "schemas: <code> at <pointer>: <msg>".
func (e *Error) Error() string { return fmt.Sprintf("schemas: %s at %q: %s", e.Code, e.Pointer, e.Msg) }

// Set is the compiled set of embedded schemas.
type Set struct {
	byName map[string]*jsonschema.Schema
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
		return nil
	})
	if err != nil {
		return nil, err
	}
	s := &Set{byName: make(map[string]*jsonschema.Schema, len(names))}
	for _, n := range names {
		sch, err := c.Compile(BaseURL + n)
		if err != nil {
			return nil, fmt.Errorf("schemas: compile %s: %w", n, err)
		}
		s.byName[n] = sch
	}
	return s, nil
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
		return &Error{Code: "schema_invalid", Msg: err.Error()}
	}
	return classify(ve)
}

// codeByDef maps a named definition in common.schema.json to the code a
// failure of that definition produces.
var codeByDef = map[string]string{
	"address":       "bad_address",
	"hash":          "bad_hex",
	"hex32":         "bad_hex",
	"publicKey":     "bad_hex",
	"evmSignature":  "bad_hex",
	"signature":     "bad_hex",
	"uuid":          "bad_uuid",
	"timestamp":     "bad_timestamp",
	"uint256":       "bad_integer",
	"cid":           "bad_cid",
	"schemaVersion": "bad_schema_version",
	"messageType":   "unknown_type",
}

// classify walks to the deepest first cause and names its code.
func classify(ve *jsonschema.ValidationError) *Error {
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	ptr := "/" + strings.Join(leaf.InstanceLocation, "/")
	msg := leaf.Error()
	if _, ok := leaf.ErrorKind.(*kind.AdditionalProperties); ok {
		return &Error{Code: "unknown_field", Pointer: ptr, Msg: msg}
	}
	if i := strings.LastIndex(leaf.SchemaURL, "/$defs/"); i >= 0 {
		def := leaf.SchemaURL[i+len("/$defs/"):]
		if j := strings.IndexByte(def, '/'); j >= 0 {
			def = def[:j]
		}
		if code, ok := codeByDef[def]; ok {
			return &Error{Code: code, Pointer: ptr, Msg: msg}
		}
	}
	return &Error{Code: "schema_invalid", Pointer: ptr, Msg: msg}
}
