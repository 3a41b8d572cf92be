package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestStrictBodies: the pages' JSON bodies go through the project's strict
// decoder: a member named twice, a name in another case, invalid UTF-8 and
// lone surrogates are refused (encoding/json took the last member, matched
// names in any case and replaced bad text with U+FFFD).
func TestStrictBodies(t *testing.T) {
	s := newSite(t, nodeSpec{name: "principal", web: true})
	for _, tc := range []struct{ name, body, says string }{
		{"a member named twice", `{"token":"x","token":"y"}`, "duplicate_key"},
		{"a name in another case", `{"Token":"x"}`, "unknown_field"},
		{"invalid UTF-8", "{\"token\":\"\xff\"}", "malformed_json"},
		{"a lone surrogate", `{"token":"\ud800"}`, "malformed_json"},
	} {
		w := s.call(t, req{method: http.MethodPost, path: "/api/passkeys/options", body: tc.body})
		r := decodeRefusal(t, w)
		if w.Code != http.StatusBadRequest || r.Code != "bad_json" || !strings.Contains(r.Message, tc.says) {
			t.Errorf("%s: %d %+v, want 400 bad_json saying %s", tc.name, w.Code, r, tc.says)
		}
	}
}
