package negotiation

import (
	"encoding/binary"
	"unicode/utf8"
)

// isCanonical reports whether b is already in RFC 8785 form within the
// subset envelopes use on the wire: ASCII member names in strictly
// increasing order (so no duplicates), strings without escapes or control
// characters and of valid UTF-8, integers of at most 2^53, no white space.
// It allocates nothing. When it says no, the caller canonicalises with
// Canonicalize and decodes that; a node stores and forwards canonical
// bytes, so received envelopes are checked here and read once.
//
// It never decides what the canonical form is: FuzzIsCanonical checks
// that every input it accepts is byte-identical to Canonicalize's output.
func isCanonical(b []byte) bool {
	p := canonScanner{b: b}
	return p.value(0) && p.i == len(b)
}

// plain marks the bytes a canonical string holds as they are: printable
// ASCII other than the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

type canonScanner struct {
	b []byte
	i int
}

const maxCanonDepth = 64

func (p *canonScanner) value(depth int) bool {
	if p.i >= len(p.b) || depth > maxCanonDepth {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		_, _, ok := p.str()
		return ok
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return p.integer()
	}
	return false
}

func (p *canonScanner) lit(s string) bool {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// maxSafe is 2^53: larger integers lose precision as IEEE doubles, so their
// canonical form is not their digits.
const maxSafe = "9007199254740992"

func (p *canonScanner) integer() bool {
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
		return false
	case digits[0] == '0' && (len(digits) > 1 || ds > start): // leading zero or -0
		return false
	case len(digits) > len(maxSafe) || len(digits) == len(maxSafe) && string(digits) > maxSafe:
		return false
	}
	if p.i < len(p.b) {
		if c := p.b[p.i]; c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// str scans a string and returns its contents and whether they are ASCII.
func (p *canonScanner) str() (s []byte, ascii, ok bool) {
	p.i++ // opening quote
	start := p.i
	ascii = true
	for p.i < len(p.b) {
		// Eight plain bytes at a time: none at or above 0x80, below 0x20,
		// a quote or a backslash (the test may flag a plain word, never
		// miss one that is not).
		for p.i+8 <= len(p.b) {
			x := binary.LittleEndian.Uint64(p.b[p.i:])
			q, bs := x^(ones*'"'), x^(ones*'\\')
			if (x|(x-ones*0x20)|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
				break
			}
			p.i += 8
		}
		if p.i >= len(p.b) {
			break
		}
		c := p.b[p.i]
		if plain[c] {
			p.i++
			continue
		}
		switch {
		case c == '"':
			s = p.b[start:p.i]
			p.i++
			return s, ascii, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false, false
		case c >= 0x80:
			ascii = false
		}
		p.i++
	}
	return nil, false, false
}

func (p *canonScanner) object(depth int) bool {
	p.i++ // {
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return true
	}
	var prev []byte
	for n := 0; ; n++ {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return false
		}
		k, ascii, ok := p.str()
		if !ok || !ascii || (n > 0 && string(k) <= string(prev)) {
			return false
		}
		prev = k
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		if !p.value(depth + 1) {
			return false
		}
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

func (p *canonScanner) array(depth int) bool {
	p.i++ // [
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return true
	}
	for {
		if !p.value(depth + 1) {
			return false
		}
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}
