package ledger

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestBundleStrictText: a proof bundle is read with the project's strict
// decoder. Before, a member named twice below the top level (last one
// won), a member named in another case, invalid UTF-8 and lone surrogates
// in the bundle's text were taken.
func TestBundleStrictText(t *testing.T) {
	bl := newBundleLedger(t)
	b := string(bl.export(t, bl.a))
	if _, err := VerifyBundle(strings.NewReader(b), BundleOptions{}); err != nil {
		t.Fatal(err)
	}
	headAt := strings.Index(b, `"head":{"seq":`)
	if headAt < 0 {
		t.Fatalf("no head in %.200s", b)
	}
	for _, tc := range []struct {
		name, edit, says string
	}{
		{"a nested member named twice", strings.Replace(b, `"head":{"seq":`, `"head":{"seq":1,"seq":`, 1), "duplicate_key"},
		{"a nested member in another case", strings.Replace(b, `"head":{"seq":`, `"head":{"Seq":`, 1), "unknown_field"},
		{"invalid UTF-8", strings.Replace(b, `"format":"`, "\"format\":\"\xff", 1), "malformed_json"},
		{"a lone surrogate", strings.Replace(b, `"negotiationId":"`, `"negotiationId":"\udc00`, 1), "malformed_json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := VerifyBundle(bytes.NewReader([]byte(tc.edit)), BundleOptions{})
			var ve *VerifyError
			if !errors.As(err, &ve) || ve.Code != CodeBadBundle || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("VerifyBundle = %v, want %s saying %s", err, CodeBadBundle, tc.says)
			}
		})
	}
}
