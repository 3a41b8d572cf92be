package negotiation

import (
	"strings"
	"testing"

	"github.com/parleynet/parley/schemas"
)

// TestFileNames: the file name rule, and the schema's fileName definition
// judging every name the same way with the same code, so another
// implementation validating with the schema agrees with this node.
func TestFileNames(t *testing.T) {
	set, err := schemas.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"report.pdf", true},
		{"Übersetzung – Kapitel 1.docx", true},
		{"数据.csv", true},
		{".hidden", true},
		{"a..b", true},
		{"...x", true},
		{"x.", true},
		{strings.Repeat("é", 255), true},
		{"", false},
		{".", false},
		{"..", false},
		{"....", false},
		{"../etc/passwd", false},
		{"a/b", false},
		{`a\b`, false},
		{`..\..\windows`, false},
		{"a\x00b", false},
		{"tab\there", false},
		{"line\nbreak", false},
		{"esc\x1b[31mred", false},
		{"del\x7f", false},
		{"c1\u0085", false},
		{"invoice\u202efdp.exe", false},
		{"rlm\u200f", false},
		{"isolate\u2066x\u2069", false},
		{"alm\u061c", false},
		{"ls\u2028", false},
		{strings.Repeat("é", 256), false},
	} {
		err := CheckFileName(tc.name)
		if (err == nil) != tc.ok || (err != nil && CodeOf(err) != CodeBadFileName) {
			t.Errorf("CheckFileName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		serr := set.Validate("payloads/file-ref.schema.json", map[string]any{"name": tc.name, "cid": "bagaaierarwoikxcl5lkhfcmot3dgtytcgjtstshsp2dfrsgvulie5wcvpnya", "size": 1})
		var se *schemas.Error
		if (serr == nil) != tc.ok || (serr != nil && (!asSchemaError(serr, &se) || se.Code != string(CodeBadFileName))) {
			t.Errorf("the schema on %q: %v, want ok=%v", tc.name, serr, tc.ok)
		}
	}
}

func asSchemaError(err error, se **schemas.Error) bool {
	e, ok := err.(*schemas.Error)
	*se = e
	return ok
}
