package ledger

import "unicode/utf8"

// isCanonical reports whether b is a JSON value already in RFC 8785 (JCS)
// form within a conservative subset: no whitespace, ASCII member names in
// strictly increasing order (so no duplicates), strings of valid UTF-8
// without escapes, integers of at most 15 digits, nesting of at most 64.
// Callers build bodies this way (json.Marshal of structs and maps), so most
// bodies skip the JCS library; anything outside the subset answers false
// and is canonicalised by the library. It never decides what the canonical
// form is: FuzzIsCanonical checks that every input it accepts is
// byte-identical to the library's output.
func isCanonical(b []byte) bool {
	end, ok := canonValue(b, 0, 0)
	return ok && end == len(b)
}

const maxCanonDepth = 64

func canonValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxCanonDepth {
		return 0, false
	}
	switch c := b[i]; {
	case c == '{':
		return canonObject(b, i, depth)
	case c == '[':
		return canonArray(b, i, depth)
	case c == '"':
		end, _, ok := canonString(b, i)
		return end, ok
	case c == 't':
		return canonLit(b, i, "true")
	case c == 'f':
		return canonLit(b, i, "false")
	case c == 'n':
		return canonLit(b, i, "null")
	case c == '-' || ('0' <= c && c <= '9'):
		return canonInt(b, i)
	}
	return 0, false
}

func canonLit(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// canonInt accepts -?(0|[1-9][0-9]{0,14}), excluding -0.
func canonInt(b []byte, i int) (int, bool) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	n := i - digits
	switch {
	case n == 0 || n > 15:
		return 0, false
	case b[digits] == '0' && (n > 1 || digits > start): // leading zero or -0
		return 0, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, false
	}
	return i, true
}

// canonString accepts a string of valid UTF-8 with no escapes and no
// control characters; ascii reports whether it is all ASCII.
func canonString(b []byte, i int) (end int, ascii, ok bool) {
	ascii = true
	for j := i + 1; j < len(b); {
		c := b[j]
		switch {
		case c == '"':
			return j + 1, ascii, true
		case c == '\\' || c < 0x20:
			return 0, false, false
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size <= 1 {
				return 0, false, false
			}
			ascii = false
			j += size
		}
	}
	return 0, false, false
}

func canonObject(b []byte, i, depth int) (int, bool) {
	i++ // '{'
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	var prev []byte
	for first := true; ; first = false {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		kend, ascii, ok := canonString(b, i)
		if !ok || !ascii {
			return 0, false
		}
		key := b[i+1 : kend-1]
		if !first && string(prev) >= string(key) {
			return 0, false
		}
		prev = key
		if kend >= len(b) || b[kend] != ':' {
			return 0, false
		}
		vend, ok := canonValue(b, kend+1, depth+1)
		if !ok || vend >= len(b) {
			return 0, false
		}
		switch b[vend] {
		case ',':
			i = vend + 1
		case '}':
			return vend + 1, true
		default:
			return 0, false
		}
	}
}

func canonArray(b []byte, i, depth int) (int, bool) {
	i++ // '['
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		vend, ok := canonValue(b, i, depth+1)
		if !ok || vend >= len(b) {
			return 0, false
		}
		switch b[vend] {
		case ',':
			i = vend + 1
		case ']':
			return vend + 1, true
		default:
			return 0, false
		}
	}
}
