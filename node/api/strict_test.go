package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStrictBodies: the holes the API's decoder had (issue 12, section 5)
// are closed, with the wire format's codes, and a refused body changes
// nothing. Before, "amount":1,"amount":999999 posted 999,999 wei, TITLE and
// Description were read as title and description, and invalid UTF-8 and
// lone surrogates became U+FFFD.
func TestStrictBodies(t *testing.T) {
	s := serve(t, startNode(t, nodeSpec{name: "strict"}), Options{})
	deadline := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	for _, tc := range []struct {
		name, body, code, mentions string
	}{
		{"an amount named twice", `{"title":"t","milestones":[{"amount":1,"amount":999999,"description":"all"}],"deadline":"` + deadline + `"}`, CodeDuplicateKey, `\"amount\"`},
		{"a title named twice", `{"title":"a","title":"b","milestones":[{"amount":1,"description":"all"}],"deadline":"` + deadline + `"}`, CodeDuplicateKey, `\"title\"`},
		{"TITLE", `{"TITLE":"t","milestones":[{"amount":1,"description":"all"}],"deadline":"` + deadline + `"}`, CodeUnknownField, `\"TITLE\"`},
		{"Description", `{"title":"t","Description":"d","milestones":[{"amount":1,"description":"all"}],"deadline":"` + deadline + `"}`, CodeUnknownField, `\"Description\"`},
		{"a milestone's Amount", `{"title":"t","milestones":[{"Amount":1,"description":"all"}],"deadline":"` + deadline + `"}`, CodeUnknownField, `\"Amount\"`},
		{"invalid UTF-8", "{\"title\":\"caf\xe9\",\"milestones\":[{\"amount\":1,\"description\":\"all\"}],\"deadline\":\"" + deadline + "\"}", CodeMalformedJSON, "UTF-8"},
		{"a lone surrogate", `{"title":"t","description":"\udc00","milestones":[{"amount":1,"description":"all"}],"deadline":"` + deadline + `"}`, CodeMalformedJSON, "surrogate"},
		{"a byte order mark", "\ufeff{}", CodeMalformedJSON, "body"},
	} {
		r := s.do(call{method: http.MethodPost, path: "/v1/tasks", idem: freshKey(), body: []byte(tc.body)})
		if r.status != http.StatusBadRequest || r.errCode() != tc.code || !strings.Contains(string(r.body), tc.mentions) {
			t.Errorf("%s: %d %s, want 400 %s mentioning %s", tc.name, r.status, r.body, tc.code, tc.mentions)
		}
		checkSchema(t, "ErrorBody", r.body)
	}
	if n := len(s.Board()); n != 0 {
		t.Fatalf("refused bodies posted %d announcements", n)
	}
	// The same task, strictly spelled, is posted with the amount it says.
	r := s.do(call{method: http.MethodPost, path: "/v1/tasks", idem: freshKey(), body: []byte(`{"title":"t","milestones":[{"amount":1,"description":"all"}],"deadline":"` + deadline + `"}`)})
	if r.status != http.StatusCreated {
		t.Fatalf("a strict body: %d %s", r.status, r.body)
	}
	var ann struct {
		Terms struct {
			Milestones []struct {
				Amount string `json:"amount"`
			} `json:"milestones"`
		} `json:"terms"`
	}
	if err := json.Unmarshal(r.body, &ann); err != nil || len(ann.Terms.Milestones) != 1 || ann.Terms.Milestones[0].Amount != "1" {
		t.Fatalf("posted %s (%v)", r.body, err)
	}
}
