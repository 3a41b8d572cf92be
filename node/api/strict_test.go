package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
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

// TestFileNamesRefused: a delivery or evidence file whose name has a path
// separator, a control or bidi character, or is only dots is refused with
// bad_file_name before the node looks at the negotiation (or the chain).
// The same file with a plain name reaches the node,
// which does not know the negotiation.
func TestFileNamesRefused(t *testing.T) {
	n := startNode(t, nodeSpec{name: "names"})
	s := serve(t, n, Options{})
	neg := "/v1/negotiations/" + unknownNID
	for _, name := range []string{"../../.ssh/authorized_keys", `..\\x`, "..", "report\\u0000.pdf", "invoice\\u202efdp.exe", "a\\u001b[8mb", "x\\u2028y"} {
		for _, route := range []struct{ path, body string }{
			{neg + "/deliver", `{"milestone":0,"name":"` + name + `","data":` + fileData + `}`},
			{neg + "/evidence", `{"name":"` + name + `","data":` + fileData + `,"description":"d"}`},
		} {
			r := s.do(call{method: http.MethodPost, path: route.path, idem: freshKey(), body: []byte(route.body)})
			if r.status != http.StatusBadRequest || r.errCode() != string(negotiation.CodeBadFileName) {
				t.Errorf("%s with %q: %d %s, want 400 bad_file_name", route.path, name, r.status, r.body)
			}
		}
	}
	r := s.do(call{method: http.MethodPost, path: neg + "/evidence", idem: freshKey(), body: []byte(`{"name":"notes.md","data":` + fileData + `,"description":"d"}`)})
	if r.status != http.StatusNotFound {
		t.Fatalf("a plain name: %d %s", r.status, r.body)
	}
}
