package negotiation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/parleynet/parley/schemas"
)

// The wire rules: the embedded JSON Schemas compiled once into a table of
// rules bound to the Go types they describe, so that Decode checks an
// envelope in the same pass that fills its structs (wiredecode.go) and
// Build checks what it built without encoding and decoding it again
// (wirecheck.go). The schemas stay the specification (other languages
// validate with them, schemas/ajv-check.mjs); these rules are derived from
// them, and TestDecodeAgreesWithTheSchemas and FuzzDecodeAgreesWithTheSchemas
// hold the two to the same verdict and code on every fixture and input.
//
// The compiler knows the subset of JSON Schema the files use and refuses
// any other keyword, so a schema that grows a rule the decoder would not
// apply fails Warm (and every test) instead of being skipped.

// rule is one compiled schema node.
type rule struct {
	typ  string // "object", "string", "integer", "array"; "" accepts anything (the schema true)
	code Code   // the code of a failure inside the node (a named format of common.schema.json), else CodeSchemaInvalid

	// strings
	minLen, maxLen int // in code points; maxLen < 0: no bound
	match          func([]byte) bool
	pattern        string
	dateTime       bool
	enum           []string // const is an enum of one

	// integers
	min, max int64

	// arrays
	minItems, maxItems int
	unique             bool
	items              *rule

	// objects (always closed: additionalProperties false)
	props    map[string]*rule
	required []string
	conds    []cond
}

// cond is an if/then pair of the form the schemas use: when member prop is
// present with one of values, the members then are required.
type cond struct {
	prop   string
	values []string
	then   []string
}

// wireRules are the compiled rules: the envelope's header and the payload
// of each message type.
type wireRules struct {
	envelope *plan
	payloads map[MessageType]*plan
}

var (
	rulesOnce sync.Once
	rulesSet  *wireRules
	rulesErr  error
)

// compiledRules returns the wire rules, compiled on first use.
func compiledRules() (*wireRules, error) {
	rulesOnce.Do(func() { rulesSet, rulesErr = compileRules() })
	return rulesSet, rulesErr
}

// schemaCompiler resolves $ref between the embedded schema documents.
type schemaCompiler struct {
	docs map[string]any   // by URL
	memo map[string]*rule // by absolute location
}

func compileRules() (*wireRules, error) {
	c := &schemaCompiler{docs: map[string]any{}, memo: map[string]*rule{}}
	err := fs.WalkDir(schemas.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(schemas.FS(), p)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		c.docs[schemas.BaseURL+p] = doc
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("negotiation: wire rules: %w", err)
	}
	envURL := schemas.BaseURL + schemas.Envelope
	env, ok := c.docs[envURL].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("negotiation: wire rules: no %s", schemas.Envelope)
	}
	// The envelope's allOf of if(type)/then(payload) pairs is a dispatch on
	// the type; the header is the envelope without it (as schemas does).
	header := map[string]any{}
	for k, v := range env {
		if k != "allOf" {
			header[k] = v
		}
	}
	hr, err := c.node(envURL, header)
	if err != nil {
		return nil, fmt.Errorf("negotiation: wire rules: %w", err)
	}
	rs := &wireRules{payloads: map[MessageType]*plan{}}
	if rs.envelope, err = bind(hr, reflect.TypeFor[wireEnvelope]()); err != nil {
		return nil, fmt.Errorf("negotiation: wire rules: envelope: %w", err)
	}
	all, _ := env["allOf"].([]any)
	for _, item := range all {
		m, _ := item.(map[string]any)
		typ := dig(m, "if", "properties", "type", "const")
		ref := dig(m, "then", "properties", "payload", "$ref")
		p := newPayload(MessageType(typ))
		if p == nil || ref == "" {
			return nil, fmt.Errorf("negotiation: wire rules: allOf item for %q is not a type/payload pair", typ)
		}
		r, err := c.ref(envURL, ref)
		if err != nil {
			return nil, fmt.Errorf("negotiation: wire rules: %s: %w", typ, err)
		}
		if rs.payloads[MessageType(typ)], err = bind(r, reflect.TypeOf(p).Elem()); err != nil {
			return nil, fmt.Errorf("negotiation: wire rules: %s: %w", typ, err)
		}
	}
	for _, t := range MessageTypes {
		if rs.payloads[t] == nil {
			return nil, fmt.Errorf("negotiation: wire rules: no payload schema for %s", t)
		}
	}
	return rs, nil
}

func dig(m map[string]any, keys ...string) string {
	var v any = m
	for _, k := range keys {
		mm, _ := v.(map[string]any)
		v = mm[k]
	}
	s, _ := v.(string)
	return s
}

// ref resolves a $ref relative to the document at base.
func (c *schemaCompiler) ref(base, ref string) (*rule, error) {
	docPart, frag, _ := strings.Cut(ref, "#")
	url := base
	if docPart != "" {
		dir := strings.TrimPrefix(path.Dir(strings.TrimPrefix(base, schemas.BaseURL)), ".")
		url = schemas.BaseURL + path.Clean(path.Join(dir, docPart))
	}
	loc := url + "#" + frag
	if r, ok := c.memo[loc]; ok {
		return r, nil
	}
	var v any = c.docs[url]
	if v == nil {
		return nil, fmt.Errorf("$ref %s: no such document", ref)
	}
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %s: not found", ref)
		}
		v = m[tok]
	}
	if v == nil {
		return nil, fmt.Errorf("$ref %s: not found", ref)
	}
	r, err := c.node(url, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	// A failure inside a named format of common.schema.json carries the
	// format's code (schemas.DefCode), as the schema validator reports it.
	if def, ok := strings.CutPrefix(loc, schemas.BaseURL+"common.schema.json#/$defs/"); ok {
		if code, ok := schemas.DefCode(def); ok {
			cp := *r
			cp.code = Code(code)
			r = &cp
		}
	}
	c.memo[loc] = r
	return r, nil
}

// annotations are keywords that do not validate.
var annotations = map[string]bool{"$schema": true, "$id": true, "$comment": true, "$defs": true, "title": true, "description": true, "examples": true}

// node compiles one schema object of the document at url.
func (c *schemaCompiler) node(url string, v any) (*rule, error) {
	if b, ok := v.(bool); ok && b {
		return &rule{code: CodeSchemaInvalid}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema %v is not an object", v)
	}
	if ref, ok := m["$ref"].(string); ok {
		for k := range m {
			if k != "$ref" && !annotations[k] {
				return nil, fmt.Errorf("$ref beside %q", k)
			}
		}
		return c.ref(url, ref)
	}
	r := &rule{code: CodeSchemaInvalid, maxLen: -1, maxItems: -1, min: -1, max: -1}
	for k, val := range m {
		if annotations[k] {
			continue
		}
		var err error
		switch k {
		case "type":
			r.typ, _ = val.(string)
			if r.typ != "object" && r.typ != "string" && r.typ != "integer" && r.typ != "array" {
				err = fmt.Errorf("type %v", val)
			}
		case "minLength":
			r.minLen, err = integer(val)
		case "maxLength":
			r.maxLen, err = integer(val)
		case "pattern":
			r.pattern, _ = val.(string)
			r.match, err = matcher(r.pattern)
		case "format":
			if val != "date-time" {
				err = fmt.Errorf("format %v", val)
			}
			r.dateTime = true
		case "const":
			s, ok := val.(string)
			if !ok {
				err = fmt.Errorf("const %v", val)
			}
			r.enum = []string{s}
		case "enum":
			r.enum, err = strs(val)
		case "minimum":
			var n int
			n, err = integer(val)
			r.min = int64(n)
		case "maximum":
			var n int
			n, err = integer(val)
			r.max = int64(n)
		case "minItems":
			r.minItems, err = integer(val)
		case "maxItems":
			r.maxItems, err = integer(val)
		case "uniqueItems":
			r.unique, _ = val.(bool)
		case "items":
			r.items, err = c.node(url, val)
		case "additionalProperties":
			if val != false {
				err = fmt.Errorf("additionalProperties %v: objects are closed", val)
			}
		case "required":
			r.required, err = strs(val)
		case "properties":
			props, _ := val.(map[string]any)
			r.props = map[string]*rule{}
			for name, ps := range props {
				if r.props[name], err = c.node(url, ps); err != nil {
					return nil, fmt.Errorf("properties/%s: %w", name, err)
				}
			}
		case "if", "then":
			// Compiled as a pair below.
		default:
			err = fmt.Errorf("keyword %q is not supported", k)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, ok := m["if"]; ok {
		cd, err := condition(m["if"], m["then"])
		if err != nil {
			return nil, err
		}
		r.conds = append(r.conds, cd)
	}
	switch {
	case r.typ == "object" && m["additionalProperties"] != false && len(r.props) > 0:
		return nil, fmt.Errorf("an object with properties must be closed")
	case r.typ == "integer" && (r.min < 0 || r.max < 0 || r.max > 1<<53):
		return nil, fmt.Errorf("an integer needs 0 <= minimum and maximum <= 2^53")
	case r.typ == "" && len(m) > 0 && !onlyAnnotations(m):
		return nil, fmt.Errorf("a schema without a type")
	}
	sort.Strings(r.required)
	return r, nil
}

func onlyAnnotations(m map[string]any) bool {
	for k := range m {
		if !annotations[k] {
			return false
		}
	}
	return true
}

// condition compiles if {properties: {p: {const|enum}}, required: [p]}
// then {properties: {q: true...}, required: [q...]}.
func condition(ifv, thenv any) (cond, error) {
	im, _ := ifv.(map[string]any)
	tm, _ := thenv.(map[string]any)
	props, _ := im["properties"].(map[string]any)
	req, _ := strs(im["required"])
	if len(props) != 1 || len(req) != 1 || len(im) != 2 {
		return cond{}, fmt.Errorf("if: want one member's const or enum, and that member required")
	}
	var cd cond
	for name, ps := range props {
		pm, _ := ps.(map[string]any)
		cd.prop = name
		if s, ok := pm["const"].(string); ok && len(pm) == 1 {
			cd.values = []string{s}
		} else if e, err := strs(pm["enum"]); err == nil && len(pm) == 1 {
			cd.values = e
		} else {
			return cond{}, fmt.Errorf("if: %s: want const or enum", name)
		}
	}
	if req[0] != cd.prop {
		return cond{}, fmt.Errorf("if: the member tested must be required")
	}
	then, err := strs(tm["required"])
	if err != nil || len(then) == 0 {
		return cond{}, fmt.Errorf("then: want required members")
	}
	for k, v := range tm {
		switch k {
		case "required":
		case "properties":
			pm, _ := v.(map[string]any)
			for _, b := range pm {
				if b != true {
					return cond{}, fmt.Errorf("then: properties other than true")
				}
			}
		default:
			return cond{}, fmt.Errorf("then: keyword %q", k)
		}
	}
	cd.then = then
	return cd, nil
}

func integer(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	i, err := n.Int64()
	return int(i), err
}

func strs(v any) ([]string, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%v is not an array", v)
	}
	out := make([]string, len(a))
	for i, x := range a {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%v is not a string", x)
		}
		out[i] = s
	}
	return out, nil
}

// fastPatterns match the fixed-width patterns of common.schema.json without
// a regular expression engine. A pattern not listed here is matched with
// Go's regexp, as the schema validator matches it.
var fastPatterns = map[string]func([]byte) bool{
	`^0x[0-9a-fA-F]{40}$`:    func(s []byte) bool { return hexOf(s, 40, true) },
	`^0x[0-9a-f]{64}$`:       func(s []byte) bool { return hexOf(s, 64, false) },
	`^0x[0-9a-f]{128}$`:      func(s []byte) bool { return hexOf(s, 128, false) },
	`^0x[0-9a-f]{130}$`:      func(s []byte) bool { return hexOf(s, 130, false) },
	`^(0|[1-9][0-9]{0,77})$`: isDecimal,
	`^b[a-z2-7]{20,120}$`:    isBase32CID,
	`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`: isUUIDv4,
	`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$`:    isWireTime,
}

func matcher(pattern string) (func([]byte) bool, error) {
	if f, ok := fastPatterns[pattern]; ok {
		return f, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return re.Match, nil
}

func hexOf(s []byte, digits int, upper bool) bool {
	if len(s) != 2+digits || s[0] != '0' || s[1] != 'x' {
		return false
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || upper && 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func isDecimal(s []byte) bool {
	if len(s) == 1 && s[0] == '0' {
		return true
	}
	if len(s) == 0 || len(s) > 78 || s[0] < '1' || s[0] > '9' {
		return false
	}
	return allIn(s, '0', '9')
}

func allIn(s []byte, lo, hi byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < lo || s[i] > hi {
			return false
		}
	}
	return true
}

func isBase32CID(s []byte) bool {
	if len(s) < 21 || len(s) > 121 || s[0] != 'b' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '2' <= c && c <= '7') {
			return false
		}
	}
	return true
}

func isUUIDv4(s []byte) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' || s[14] != '4' {
		return false
	}
	if c := s[19]; c != '8' && c != '9' && c != 'a' && c != 'b' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			continue
		}
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// isWireTime matches YYYY-MM-DDThh:mm:ss.mmmZ digit for digit.
func isWireTime(s []byte) bool {
	const shape = "dddd-dd-ddTdd:dd:dd.dddZ"
	if len(s) != len(shape) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if shape[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != shape[i] {
			return false
		}
	}
	return true
}

// plan is a rule bound to the Go type that holds its value.
type plan struct {
	r      *rule
	t      reflect.Type
	kind   planKind
	elem   *plan       // pointer and slice element
	fields []fieldPlan // object members, sorted by name
	reqSet uint64      // the required members, as bits of fields
}

type planKind uint8

const (
	pAny     planKind = iota // the payload of the envelope, dispatched by type
	pString                  // a string kind
	pText                    // a type with UnmarshalText and MarshalText
	pUint256                 // Uint256 (a JSON string of digits)
	pInt                     // int
	pUint                    // uint64
	pPtr                     // a pointer to elem
	pSlice                   // a slice of elem
	pStruct                  // a struct of fields
)

type fieldPlan struct {
	name  string
	index []int
	p     *plan
	bit   uint64
}

var (
	textType    = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
	uint256Type = reflect.TypeFor[Uint256]()
)

// bind pairs rule r with Go type t, refusing a pair that cannot hold every
// value r accepts (or that names members r does not).
func bind(r *rule, t reflect.Type) (*plan, error) {
	p := &plan{r: r, t: t}
	if t.Kind() == reflect.Pointer {
		elem, err := bind(r, t.Elem())
		if err != nil {
			return nil, err
		}
		p.kind, p.elem = pPtr, elem
		return p, nil
	}
	switch {
	case r.typ == "object" && len(r.props) == 0 && t.Kind() == reflect.Interface:
		p.kind = pAny // the envelope's payload, whose rule its type chooses
	case r.typ == "string" && t == uint256Type:
		p.kind = pUint256
	case r.typ == "string" && reflect.PointerTo(t).Implements(textType):
		p.kind = pText
	case r.typ == "string" && t.Kind() == reflect.String:
		p.kind = pString
	case r.typ == "integer" && t.Kind() == reflect.Int:
		p.kind = pInt
	case r.typ == "integer" && t.Kind() == reflect.Uint64:
		p.kind = pUint
	case r.typ == "array" && t.Kind() == reflect.Slice && r.items != nil:
		elem, err := bind(r.items, t.Elem())
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		p.kind, p.elem = pSlice, elem
	case r.typ == "object" && t.Kind() == reflect.Struct:
		p.kind = pStruct
		members := goMembers(t, nil)
		for name, ix := range members {
			mr, ok := r.props[name]
			if !ok {
				return nil, fmt.Errorf("%s.%s is not in the schema", t, name)
			}
			fp, err := bind(mr, t.FieldByIndex(ix.index).Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			// The envelope's signature is required and omitted while
			// unsigned: Build encodes the envelope without it to sign.
			unsigned := t == reflect.TypeFor[wireEnvelope]() && name == "signature"
			if slices.Contains(r.required, name) == ix.omitempty && !unsigned {
				return nil, fmt.Errorf("%s.%s: required in the schema exactly when it has no omitempty", t, name)
			}
			p.fields = append(p.fields, fieldPlan{name: name, index: ix.index, p: fp})
		}
		for name := range r.props {
			if _, ok := members[name]; !ok {
				return nil, fmt.Errorf("%s has no member %s", t, name)
			}
		}
		if len(p.fields) > 64 {
			return nil, fmt.Errorf("%s: more than 64 members", t)
		}
		slices.SortFunc(p.fields, func(a, b fieldPlan) int { return strings.Compare(a.name, b.name) })
		for i := range p.fields {
			p.fields[i].bit = 1 << i
			if slices.Contains(r.required, p.fields[i].name) {
				p.reqSet |= p.fields[i].bit
			}
		}
	default:
		return nil, fmt.Errorf("a %q schema cannot be held by %s", r.typ, t)
	}
	return p, nil
}

type goMember struct {
	index     []int
	omitempty bool
}

// goMembers returns the json members of struct t as encoding/json sees
// them (untagged embedded structs flattened).
func goMembers(t reflect.Type, prefix []int) map[string]goMember {
	out := map[string]goMember{}
	for i := range t.NumField() {
		f := t.Field(i)
		ix := append(slices.Clone(prefix), i)
		tag, hasTag := f.Tag.Lookup("json")
		if f.Anonymous && !hasTag {
			for k, v := range goMembers(f.Type, ix) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out[name] = goMember{index: ix, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty")}
	}
	return out
}

// field returns the member named name, or nil.
func (p *plan) field(name []byte) *fieldPlan {
	i, ok := slices.BinarySearchFunc(p.fields, name, func(f fieldPlan, n []byte) int {
		return strings.Compare(f.name, string(n))
	})
	if !ok {
		return nil
	}
	return &p.fields[i]
}
