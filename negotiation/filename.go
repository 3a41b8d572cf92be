package negotiation

import (
	"strings"
	"unicode/utf8"
)

// MaxFileNameChars bounds a file name (FileRef.Name), in characters.
const MaxFileNameChars = 255

// CheckFileName applies the file name rule (docs/wire.md, "File names") to
// the name a sender gives a delivered file or a piece of evidence, which
// the other party's screens show and which a node may offer to save under
// that name: 1 to MaxFileNameChars characters of valid UTF-8, not only
// dots (".", "..", "..."), and none of the path separators / and \,
// control characters (U+0000-U+001F, U+007F-U+009F, NUL included), the
// line and paragraph separators U+2028 and U+2029, or the bidirectional
// controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) that
// make a name read otherwise than it is ("invoice\u202efdp.exe"). It
// returns nil or an *Error with CodeBadFileName; schemas/common.schema.json
// ($defs/fileName) states the same rule for any validator.
func CheckFileName(name string) error {
	if name == "" {
		return reject(CodeBadFileName, "name", "empty")
	}
	if !utf8.ValidString(name) {
		return reject(CodeBadFileName, "name", "not valid UTF-8")
	}
	if n := utf8.RuneCountInString(name); n > MaxFileNameChars {
		return reject(CodeBadFileName, "name", "%d characters, at most %d", n, MaxFileNameChars)
	}
	if strings.Trim(name, ".") == "" {
		return reject(CodeBadFileName, "name", "%q is only dots", name)
	}
	for _, r := range name {
		if why := fileNameRefuses(r); why != "" {
			return reject(CodeBadFileName, "name", "%s %U", why, r)
		}
	}
	return nil
}

// fileNameRefuses says why r may not appear in a file name, or "".
func fileNameRefuses(r rune) string {
	switch {
	case r == '/' || r == '\\':
		return "a path separator"
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return "a control character"
	case r == 0x2028 || r == 0x2029:
		return "a line or paragraph separator"
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return "a bidirectional control"
	}
	return ""
}

// withPointer sets the field of a refusal to the member's JSON pointer.
func withPointer(err error, field string) error {
	if e, ok := err.(*Error); ok {
		c := *e
		c.Field = field
		return &c
	}
	return err
}
