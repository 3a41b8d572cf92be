package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStrictTermsAndSeats: an offer's terms object and the seat file are
// read with the project's strict decoder: a member in another case or
// named twice is refused (encoding/json took TITLE for title, and the
// last of two members).
func TestStrictTermsAndSeats(t *testing.T) {
	if _, err := parseTerms([]byte(`{"title":"Logo"}`)); err != nil {
		t.Fatal(err)
	}
	for in, says := range map[string]string{
		`{"TITLE":"Logo"}`:                    "unknown_field",
		`{"title":"Logo","title":"Other"}`:    "duplicate_key",
		`{"Milestones":[]}`:                   "unknown_field",
		`["title = Logo","title = Logo"]`:     "title",
		`{"milestones":[{"Amount":"1 ETH"}]}`: "unknown_field",
	} {
		if _, err := parseTerms([]byte(in)); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("parseTerms(%s) = %v, want a refusal saying %s", in, err, says)
		}
	}
	path := filepath.Join(t.TempDir(), "seats.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"Seats":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := newSeats(path, time.Now).check("0b7e4a4e-3c2d-4f5a-9b8c-1d2e3f4a5b6c", "x"); err == nil || !strings.Contains(err.Error(), "unknown_field") {
		t.Fatalf("a seat file with Seats: %v", err)
	}
}
