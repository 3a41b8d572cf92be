package negotiation

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// parseCanonical parses b when it is already in RFC 8785 form within the
// subset envelopes use on the wire: ASCII member names in strictly
// increasing order (so no duplicates), strings without escapes or control
// characters, integers of at most 2^53, no whitespace. It returns the value
// in the shape encoding/json produces with UseNumber, and ok=false without
// an error whenever b is outside that subset; the caller then canonicalises
// with the JCS library and parses its output. A node stores and forwards
// JCS bytes, so received envelopes take this path and are parsed once.
//
// It never decides what the canonical form is: FuzzParseCanonical checks
// that every input it accepts is byte-identical to jcs.Transform's output.
func parseCanonical(b []byte) (v any, ok bool) {
	p := canonParser{b: b}
	v, ok = p.value(0)
	return v, ok && p.i == len(b)
}

type canonParser struct {
	b []byte
	i int
}

const maxCanonDepth = 64

func (p *canonParser) value(depth int) (any, bool) {
	if p.i >= len(p.b) || depth > maxCanonDepth {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, ok := p.str()
		return s, ok
	case c == 't':
		return true, p.lit("true")
	case c == 'f':
		return false, p.lit("false")
	case c == 'n':
		return nil, p.lit("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return p.integer()
	}
	return nil, false
}

func (p *canonParser) lit(s string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		return false
	}
	p.i += len(s)
	return true
}

// maxSafe is 2^53: larger integers lose precision as IEEE doubles, so their
// canonical form is not their digits.
const maxSafe = "9007199254740992"

func (p *canonParser) integer() (any, bool) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	ds := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	digits := p.b[ds:p.i]
	switch {
	case len(digits) == 0:
		return nil, false
	case digits[0] == '0' && (len(digits) > 1 || ds > start): // leading zero or -0
		return nil, false
	case len(digits) > len(maxSafe) || len(digits) == len(maxSafe) && string(digits) > maxSafe:
		return nil, false
	}
	if p.i < len(p.b) {
		if c := p.b[p.i]; c == '.' || c == 'e' || c == 'E' {
			return nil, false
		}
	}
	return json.Number(p.b[start:p.i]), true
}

func (p *canonParser) str() (string, bool) {
	p.i++ // opening quote
	start := p.i
	ascii := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			if !ascii && !utf8.Valid(s) {
				return "", false
			}
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= 0x80:
			ascii = false
		}
		p.i++
	}
	return "", false
}

func (p *canonParser) object(depth int) (any, bool) {
	p.i++ // {
	m := map[string]any{}
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m, true
	}
	var prev string
	for n := 0; ; n++ {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok || !isASCII(k) || (n > 0 && k <= prev) {
			return nil, false
		}
		prev = k
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k] = v
		if p.i >= len(p.b) {
			return nil, false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (p *canonParser) array(depth int) (any, bool) {
	p.i++ // [
	a := []any{}
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return a, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if p.i >= len(p.b) {
			return nil, false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a, true
		default:
			return nil, false
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
