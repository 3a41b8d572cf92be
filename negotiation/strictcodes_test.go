package negotiation

import (
	"testing"

	"github.com/parleynet/parley/strictjson"
)

// TestStrictCodesAreWireCodes: the project's one strict decoder refuses
// with the wire format's code strings, so an API body, a config file and
// an envelope that break the same rule say the same thing.
func TestStrictCodesAreWireCodes(t *testing.T) {
	for s, n := range map[strictjson.Code]Code{
		strictjson.CodeMalformedJSON: CodeMalformedJSON,
		strictjson.CodeDuplicateKey:  CodeDuplicateKey,
		strictjson.CodeUnknownField:  CodeUnknownField,
		strictjson.CodeSchemaInvalid: CodeSchemaInvalid,
		strictjson.CodeTooLarge:      CodeTooLarge,
	} {
		if string(s) != string(n) {
			t.Errorf("strictjson %q, negotiation %q", s, n)
		}
	}
}
