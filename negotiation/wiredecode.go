package negotiation

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/parleynet/parley/schemas"
)

// One strict pass over the canonical bytes of an envelope: the JSON v2
// tokenizer walks them once, and every value is checked against its wire
// rule (wirerules.go) as it is stored into its Go field. Nothing is parsed
// into a generic tree and nothing is decoded twice, except the payload,
// which comes before the type that chooses its rule (JCS sorts "payload"
// before "type") and is therefore read once as a value and then decoded.
//
// Where an envelope breaks several rules, the one reported is the one the
// schema validator reports (schemas.CodeRank: the most specific code, then
// the least JSON pointer), the header's before the payload's; the checks
// beyond the schema (EIP-55 checksums, uint256 bounds, then the envelope's
// own rules) come after, in document order, as they did when a typed
// decode followed the schema.

// reader is one pass's state. Readers are pooled: a pass allocates only
// what it stores.
type reader struct {
	tracker
	d    jsontext.Decoder
	rd   bytes.Reader
	in   []byte // the bytes being read
	base int64  // offset of in within the envelope

	deep   *Error // the first failure beyond the schema
	deepAt int64

	payload [2]int64 // where the envelope's payload lies

	// The payload comes before the type that chooses its rule. The type is
	// guessed from the envelope's end (JCS puts it last) and the payload
	// read in the same pass with the guessed rule, its failures kept apart
	// from the header's; a wrong guess (only a crafted envelope can make
	// one) sends the envelope through again without one.
	guess     *plan
	guessed   Payload
	read      bool // the payload was read with the guessed rule
	inPayload *Error
}

// tracker keeps the JSON pointer of the value being checked and the
// schema-level failure to report.
type tracker struct {
	path     []byte
	best     *Error
	bestRank int
}

var readers = sync.Pool{New: func() any { return new(reader) }}

// readOptions: canonical input has no duplicate names and is valid UTF-8
// (isCanonical or Canonicalize checked both before the pass), so the
// tokenizer need not track every object's names again.
var readOptions = jsontext.AllowDuplicateNames(true)

func (r *reader) reset(in []byte, base int64, path string) {
	r.in, r.base = in, base
	r.path = append(r.path[:0], path...)
	r.rd.Reset(in)
	r.d.Reset(&r.rd, readOptions)
}

// fail records a failure of the schema's rules at the current value
// (member, when not "", names an unknown member below it).
func (r *tracker) fail(code Code, member []byte, format string, args ...any) {
	rank := schemas.CodeRank(string(code))
	if r.best != nil && rank > r.bestRank {
		return
	}
	ptr := string(r.path)
	if member != nil {
		ptr += "/" + escapePointer(member)
	}
	if r.best != nil && rank == r.bestRank && ptr >= r.best.Field {
		return
	}
	r.best, r.bestRank = &Error{Code: code, Field: ptr, Msg: fmt.Sprintf(format, args...)}, rank
}

// failDeep records a failure beyond the schema; the first in the document
// is the one reported.
func (r *reader) failDeep(err error) {
	at := r.base + r.d.InputOffset()
	if r.deep != nil && at >= r.deepAt {
		return
	}
	r.deep, r.deepAt = asError(withField(err, string(r.path))), at
}

func asError(err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	return &Error{Code: CodeSchemaInvalid, Msg: err.Error(), Err: err}
}

func escapePointer(tok []byte) string {
	s := string(tok)
	if strings.ContainsAny(s, "~/") {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
	}
	return s
}

func (r *tracker) push(tok []byte) int {
	n := len(r.path)
	r.path = append(r.path, '/')
	for _, c := range tok {
		switch c {
		case '~':
			r.path = append(r.path, '~', '0')
		case '/':
			r.path = append(r.path, '~', '1')
		default:
			r.path = append(r.path, c)
		}
	}
	return n
}

func (r *tracker) pushIndex(i int) int {
	n := len(r.path)
	r.path = fmt.Appendf(append(r.path, '/'), "%d", i)
	return n
}

// broken reports a tokenizer error. Canonical input cannot cause one.
func (r *reader) broken(err error) {
	r.best, r.bestRank = &Error{Code: CodeMalformedJSON, Field: string(r.path), Msg: err.Error(), Err: err}, -1
}

func (r *reader) skip() {
	if err := r.d.SkipValue(); err != nil {
		r.broken(err)
	}
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
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
	return "nothing"
}

// str reads a string value's contents.
func (r *reader) str() ([]byte, bool) {
	v, err := r.d.ReadValue()
	if err != nil {
		r.broken(err)
		return nil, false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1], true
	}
	s, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		r.broken(err)
		return nil, false
	}
	return s, true
}

// value reads one value with plan p into v.
func (r *reader) value(p *plan, v reflect.Value) {
	switch p.kind {
	case pPtr:
		nv := reflect.New(p.elem.t)
		r.value(p.elem, nv.Elem())
		v.Set(nv)
		return
	case pAny:
		if k := r.d.PeekKind(); k != '{' {
			r.fail(CodeSchemaInvalid, nil, "want an object, got %s", kindName(k))
			r.skip()
			return
		}
		start := r.base + r.d.InputOffset() + 1 // after the colon
		if r.guess != nil {
			header, rank := r.best, r.bestRank
			r.best = nil
			r.value(r.guess, reflect.ValueOf(r.guessed).Elem())
			if r.best != nil && r.bestRank < 0 {
				return // broken: stays reported
			}
			r.inPayload, r.read = r.best, true
			r.best, r.bestRank = header, rank
		} else if err := r.d.SkipValue(); err != nil {
			r.broken(err)
			return
		}
		r.payload = [2]int64{start, r.base + r.d.InputOffset()}
		return
	}
	rl := p.r
	k := r.d.PeekKind()
	if k != rl.kind() {
		r.fail(CodeSchemaInvalid, nil, "want %s, got %s", rl.typ, kindName(k))
		r.skip()
		return
	}
	switch rl.typ {
	case "string":
		s, ok := r.str()
		if !ok || !r.checkString(rl, s) {
			return
		}
		r.store(p, v, s)
	case "integer":
		n, err := r.d.ReadValue()
		if err != nil {
			r.broken(err)
			return
		}
		x, ok := parseUint(n)
		if !ok || int64(x) < rl.min || int64(x) > rl.max {
			r.fail(CodeSchemaInvalid, nil, "want an integer from %d to %d, got %s", rl.min, rl.max, n)
			return
		}
		if p.kind == pInt {
			v.SetInt(int64(x))
		} else {
			v.SetUint(x)
		}
	case "array":
		r.array(p, v)
	case "object":
		r.object(p, v)
	}
}

// kind is the JSON kind the rule's type takes.
func (rl *rule) kind() jsontext.Kind {
	switch rl.typ {
	case "string":
		return '"'
	case "integer":
		return '0'
	case "array":
		return '['
	case "object":
		return '{'
	}
	return 0
}

// store sets v from the string s that passed its rule; a check beyond
// the schema (EIP-55, the uint256 bound) that fails is recorded.
func (r *reader) store(p *plan, v reflect.Value, s []byte) {
	switch p.kind {
	case pString:
		if e := p.r.enum; e != nil {
			v.SetString(e[slices.Index(e, string(s))]) // no copy: the rule's own string
			return
		}
		v.SetString(string(s))
	case pUint256:
		u := v.Addr().Interface().(*Uint256)
		u.SetString(string(s), 10)
		if u.Cmp(maxUint256) > 0 {
			r.failDeep(reject(CodeBadInteger, "", "exceeds 2^256-1"))
		}
	case pText:
		if err := v.Addr().Interface().(interface{ UnmarshalText([]byte) error }).UnmarshalText(s); err != nil {
			r.failDeep(err)
		}
	}
}

// parseUint parses the digits of a canonical non-negative integer of at
// most 16 digits (the rules' bounds are below 2^53).
func parseUint(n []byte) (uint64, bool) {
	if len(n) == 0 || len(n) > 16 {
		return 0, false
	}
	var x uint64
	for _, c := range n {
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + uint64(c-'0')
	}
	return x, true
}

// checkString applies a string rule: length in code points, pattern,
// date-time and enum.
func (r *tracker) checkString(rl *rule, s []byte) bool {
	// A string of n bytes holds n/4 to n code points: count them only when
	// that range crosses a bound.
	if n := len(s); ((n+3)/4 < rl.minLen || rl.maxLen >= 0 && n > rl.maxLen) && !runesWithin(s, rl.minLen, rl.maxLen) {
		n = utf8.RuneCount(s)
		r.fail(rl.code, nil, "length %d is outside %d..%d", n, rl.minLen, rl.maxLen)
		return false
	}
	if rl.match != nil && !rl.match(s) {
		r.fail(rl.code, nil, "%q does not match %s", s, rl.pattern)
		return false
	}
	if rl.dateTime && !validDateTime(s) {
		r.fail(rl.code, nil, "%q is not an RFC 3339 date-time", s)
		return false
	}
	if rl.enum != nil && !inEnum(rl.enum, s) {
		r.fail(rl.code, nil, "%q is not one of %v", s, rl.enum)
		return false
	}
	return true
}

func runesWithin(s []byte, min, max int) bool {
	n := utf8.RuneCount(s)
	return n >= min && (max < 0 || n <= max)
}

func inEnum(enum []string, s []byte) bool {
	for _, e := range enum {
		if e == string(s) {
			return true
		}
	}
	return false
}

// validDateTime is the schema validator's date-time check on a string
// already of the form YYYY-MM-DDThh:mm:ss.mmmZ: a real calendar date,
// hour 0-23, minute 0-59, second 0-60 with 60 only at 23:59 (a leap
// second, which the envelope's own timestamp check then refuses).
func validDateTime(s []byte) bool {
	num := func(i, n int) int {
		x := 0
		for _, c := range s[i : i+n] {
			x = x*10 + int(c-'0')
		}
		return x
	}
	y, mo, d := num(0, 4), num(5, 2), num(8, 2)
	h, mi, sec := num(11, 2), num(14, 2), num(17, 2)
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) {
		return false
	}
	if h > 23 || mi > 59 || sec > 60 {
		return false
	}
	return sec < 60 || h == 23 && mi == 59
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func (r *reader) array(p *plan, v reflect.Value) {
	rl := p.r
	if _, err := r.d.ReadToken(); err != nil {
		r.broken(err)
		return
	}
	s := reflect.MakeSlice(p.t, 0, 4)
	var items [][2]int64 // where each item lies in r.in, for uniqueItems
	for n := 0; r.d.PeekKind() != ']'; n++ {
		if r.best != nil && r.bestRank < 0 {
			return
		}
		start := r.d.InputOffset()
		if n > 0 {
			start++ // the comma (canonical JSON has no white space)
		}
		s = reflect.Append(s, reflect.Zero(p.elem.t))
		at := r.pushIndex(n)
		r.value(p.elem, s.Index(n))
		r.path = r.path[:at]
		if rl.unique {
			items = append(items, [2]int64{start, r.d.InputOffset()})
		}
	}
	if _, err := r.d.ReadToken(); err != nil {
		r.broken(err)
		return
	}
	n := s.Len()
	if n < rl.minItems || rl.maxItems >= 0 && n > rl.maxItems {
		r.fail(rl.code, nil, "%d items is outside %d..%d", n, rl.minItems, rl.maxItems)
	}
	for i := range items {
		for j := range i {
			if bytes.Equal(r.in[items[i][0]:items[i][1]], r.in[items[j][0]:items[j][1]]) {
				r.fail(rl.code, nil, "items %d and %d are equal", j, i)
			}
		}
	}
	v.Set(s)
}

func (r *reader) object(p *plan, v reflect.Value) {
	rl := p.r
	if _, err := r.d.ReadToken(); err != nil {
		r.broken(err)
		return
	}
	var seen uint64
	next := 0 // canonical members come in order: the search resumes here
	for r.d.PeekKind() != '}' {
		if r.best != nil && r.bestRank < 0 {
			return
		}
		name, ok := r.str()
		if !ok {
			return
		}
		var f *fieldPlan
		for j := next; j < len(p.fields) && p.fields[j].name <= string(name); j++ {
			if p.fields[j].name == string(name) {
				f, next = &p.fields[j], j+1
				break
			}
		}
		if f == nil {
			r.fail(CodeUnknownField, name, "unknown member %q", name)
			r.skip()
			continue
		}
		seen |= f.bit
		at := r.push(name)
		r.value(f.p, v.FieldByIndex(f.index))
		r.path = r.path[:at]
	}
	if _, err := r.d.ReadToken(); err != nil {
		r.broken(err)
		return
	}
	if missing := p.reqSet &^ seen; missing != 0 {
		r.fail(CodeSchemaInvalid, nil, "missing member %s", p.names(missing))
	}
	for _, cd := range rl.conds {
		f := p.field([]byte(cd.prop))
		if seen&f.bit == 0 || !inEnum(cd.values, []byte(v.FieldByIndex(f.index).String())) {
			continue
		}
		for _, name := range cd.then {
			if g := p.field([]byte(name)); seen&g.bit == 0 {
				r.fail(CodeSchemaInvalid, nil, "%s %s needs member %s", cd.prop, cd.values, name)
			}
		}
	}
}

// names lists the members whose bits are set.
func (p *plan) names(bits uint64) string {
	var out []string
	for _, f := range p.fields {
		if bits&f.bit != 0 {
			out = append(out, f.name)
		}
	}
	return strings.Join(out, ", ")
}

// decodeCanonical decodes the canonical bytes raw of an envelope.
func decodeCanonical(raw []byte) (*Envelope, error) {
	rs, err := compiledRules()
	if err != nil {
		return nil, err
	}
	r := readers.Get().(*reader)
	defer func() {
		r.best, r.deep, r.in, r.guess, r.guessed, r.inPayload = nil, nil, nil, nil, nil, nil
		r.rd.Reset(nil)
		readers.Put(r)
	}()
	guess := lastType(raw)
	if r.guess = rs.payloads[guess]; r.guess != nil {
		r.guessed = newPayload(guess)
	}
	for {
		e, again, err := r.envelope(rs, raw)
		if !again {
			return e, err
		}
		r.best, r.deep, r.guess, r.guessed, r.inPayload = nil, nil, nil, nil, nil
	}
}

// lastType returns the value of the envelope's last member when it is
// "type" (`...,"type":"TaskProposal"}`), else "".
func lastType(raw []byte) MessageType {
	const tail = `,"type":"`
	if len(raw) < len(tail)+2 || raw[len(raw)-1] != '}' || raw[len(raw)-2] != '"' {
		return ""
	}
	body := raw[:len(raw)-2]
	i := bytes.LastIndexByte(body, '"')
	if i < len(tail)-1 || string(raw[i-len(tail)+1:i+1]) != tail {
		return ""
	}
	return MessageType(body[i+1:])
}

// envelope is one pass; again is true when the guessed type was wrong.
func (r *reader) envelope(rs *wireRules, raw []byte) (e *Envelope, again bool, err error) {
	r.reset(raw, 0, "")
	r.payload = [2]int64{-1, -1}
	r.read = false
	var w wireEnvelope
	r.value(rs.envelope, reflect.ValueOf(&w).Elem())
	if r.best == nil {
		if _, err := r.d.ReadToken(); err == nil {
			r.broken(fmt.Errorf("data after the envelope"))
		}
	}
	if r.best != nil {
		return nil, false, r.best
	}
	// The header fits: the payload is read with the rule of its type.
	var p Payload
	switch {
	case r.read && r.guessed.MessageType() == w.Type:
		p = r.guessed
		r.best = r.inPayload
	case r.read:
		return nil, true, nil
	default:
		p = newPayload(w.Type)
		r.reset(raw[r.payload[0]:r.payload[1]], r.payload[0], "/payload")
		r.value(rs.payloads[w.Type], reflect.ValueOf(p).Elem())
	}
	if r.best != nil {
		return nil, false, r.best
	}
	if r.deep != nil {
		return nil, false, r.deep
	}
	e, err = finish(&w, p, raw)
	return e, false, err
}

// finish applies the envelope's rules beyond the schema to a decoded
// envelope and returns it.
func finish(w *wireEnvelope, p Payload, raw []byte) (*Envelope, error) {
	ts, err := time.Parse(TimeLayout, w.Timestamp)
	if err != nil {
		return nil, reject(CodeBadTimestamp, "/timestamp", "%v", err)
	}
	if w.Sequence == 1 && !w.PreviousHash.IsZero() {
		return nil, reject(CodePreviousHashMismatch, "/previousHash", "sequence 1 must have the zero previousHash")
	}
	if err := checkPayload(p); err != nil {
		return nil, err
	}
	e := &Envelope{
		Header: Header{
			Type: w.Type, NegotiationID: w.NegotiationID, TaskID: w.TaskID,
			Sequence: w.Sequence, PreviousHash: w.PreviousHash, Timestamp: ts,
			Sender: w.Sender, Recipients: w.Recipients,
		},
		Payload: p,
		raw:     raw,
		hash:    sha256.Sum256(raw),
	}
	if _, err := hex.Decode(e.Signature[:], []byte(w.Signature[2:])); err != nil || len(w.Signature) != 2+2*ed25519.SignatureSize {
		return nil, reject(CodeBadHex, "/signature", "want 0x and %d lowercase hex digits", 2*ed25519.SignatureSize)
	}
	// The top-level member is the last occurrence: only taskId, timestamp
	// and type (formats that cannot contain it) sort after "signature".
	// Only taskId (at most 90 bytes), timestamp and type (under 40 each)
	// follow it, so it lies in the envelope's last 320 bytes.
	from := max(0, len(raw)-320)
	e.sigOff = bytes.LastIndex(raw[from:], []byte(`,"signature":"`))
	if e.sigOff >= 0 {
		e.sigOff += from
	}
	if e.sigOff < 0 || !bytes.HasPrefix(raw[e.sigOff+len(`,"signature":"`):], []byte(w.Signature)) {
		return nil, reject(CodeSchemaInvalid, "/signature", "signature member not found in canonical form")
	}
	return e, nil
}
