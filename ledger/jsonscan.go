package ledger

import (
	"bytes"
	"errors"
)

// The scanner below reads compact JSON, the JCS form the ledger stores (no
// insignificant whitespace). It finds members without decoding values, so
// verification can walk stored entries at hashing speed. It never panics on
// bad input; it returns errMalformed.

var errMalformed = errors.New("malformed compact JSON")

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errMalformed
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		return skipContainer(b, i)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, nil
	}
	return 0, errMalformed
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return 0, errMalformed
	}
	return i + len(lit), nil
}

// skipString returns the index just past the string whose quote is b[i].
// It jumps from quote to quote and counts the backslashes before each: an
// even count means the quote closes the string.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errMalformed
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, nil
		}
		j++
	}
}

// skipContainer returns the index just past the object or array at b[i].
func skipContainer(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); {
		switch b[j] {
		case '"':
			end, err := skipString(b, j)
			if err != nil {
				return 0, err
			}
			j = end
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
		j++
	}
	return 0, errMalformed
}

// member is one top-level member of a compact JSON object: its key as it is
// spelled between the quotes, its raw value, and where the member starts
// and ends in the object.
type member struct {
	key        []byte
	val        []byte
	start, end int
}

// members returns the top-level members of the compact JSON object b, in
// order. It checks the object's structure, not the values' contents.
func members(b []byte) ([]member, error) {
	var out []member
	err := eachMember(b, func(m member) bool {
		out = append(out, m)
		return true
	})
	return out, err
}

// eachMember calls fn for each top-level member of the compact JSON object
// b until fn returns false.
func eachMember(b []byte, fn func(member) bool) error {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return errMalformed
	}
	i := 1
	if b[i] == '}' {
		if i+1 != len(b) {
			return errMalformed
		}
		return nil
	}
	for {
		start := i
		if i >= len(b) || b[i] != '"' {
			return errMalformed
		}
		kend, err := skipString(b, i)
		if err != nil {
			return err
		}
		if kend >= len(b) || b[kend] != ':' {
			return errMalformed
		}
		vend, err := skipValue(b, kend+1)
		if err != nil {
			return err
		}
		if vend >= len(b) {
			return errMalformed
		}
		if !fn(member{key: b[i+1 : kend-1], val: b[kend+1 : vend], start: start, end: vend}) {
			return nil
		}
		switch b[vend] {
		case ',':
			i = vend + 1
		case '}':
			if vend+1 != len(b) {
				return errMalformed
			}
			return nil
		default:
			return errMalformed
		}
	}
}

// lookupSorted returns the value of member key of the canonical object b,
// reading members only up to where key would sort (JCS orders them).
func lookupSorted(b []byte, key string) ([]byte, bool, error) {
	var val []byte
	found := false
	err := eachMember(b, func(m member) bool {
		switch k := string(m.key); {
		case k == key:
			val, found = m.val, true
			return false
		case k > key:
			return false
		}
		return true
	})
	return val, found, err
}

// lookup returns the raw value of the top-level member named key.
func lookup(ms []member, key string) ([]byte, bool) {
	for _, m := range ms {
		if string(m.key) == key {
			return m.val, true
		}
	}
	return nil, false
}

// plainString returns the contents of a JSON string value that has no
// escapes, or false.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexByte(v[1:len(v)-1], '\\') >= 0 || bytes.IndexByte(v[1:len(v)-1], '"') >= 0 {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// insertMembers adds members (keys sorted, plain ASCII, values already
// canonical JSON) to the canonical object body, keeping JCS member order.
// It refuses a key the body already has.
func insertMembers(body []byte, add []member) ([]byte, error) {
	ms, err := members(body)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+64*len(add))
	out = append(out, '{')
	n := 0
	put := func(raw []byte) {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, raw...)
		n++
	}
	j := 0
	for _, m := range ms {
		for j < len(add) && keyLess(add[j].key, m.key) {
			put(memberBytes(add[j]))
			j++
		}
		if j < len(add) && bytes.Equal(add[j].key, m.key) {
			return nil, refuse(CodeReservedMember, "body/"+string(m.key), "set by the ledger")
		}
		put(body[m.start:m.end])
	}
	for ; j < len(add); j++ {
		put(memberBytes(add[j]))
	}
	return append(out, '}'), nil
}

func memberBytes(m member) []byte {
	out := make([]byte, 0, len(m.key)+len(m.val)+3)
	out = append(out, '"')
	out = append(out, m.key...)
	out = append(out, '"', ':')
	return append(out, m.val...)
}

// keyLess orders a plain ASCII key a before the spelled key b in JCS order
// (UTF-16 code units). For an ASCII key, byte order of the UTF-8 spelling
// agrees with UTF-16 order: every non-ASCII unit is above 0x7f in both. An
// escaped key starts, after its common ASCII prefix, with a backslash (0x5c)
// standing for a control character (below 0x20) or a quote or backslash;
// compare those through the unescaped form.
func keyLess(a, b []byte) bool {
	if bytes.IndexByte(b, '\\') >= 0 {
		return string(a) < unescapeKey(b)
	}
	return bytes.Compare(a, b) < 0
}

func unescapeKey(b []byte) string {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		i++
		switch b[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+4 < len(b) {
				var v byte
				for _, c := range b[i+1 : i+5] {
					v <<= 4
					switch {
					case c >= '0' && c <= '9':
						v |= c - '0'
					case c >= 'a' && c <= 'f':
						v |= c - 'a' + 10
					}
				}
				out = append(out, v) // JCS escapes only U+0000..U+001F this way
				i += 4
			}
		default:
			out = append(out, b[i])
		}
	}
	return string(out)
}
