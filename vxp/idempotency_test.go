package vxp

import (
	"strings"
	"testing"

	"github.com/parleynet/parley/strictjson"
)

// TestDecideIdempotency holds the seed's Idempotency-Key rules.
func TestDecideIdempotency(t *testing.T) {
	body := `{"operation":"offer.respond","target":{"negotiation_id":"` + nid + `"},"parameters":{}}`
	same := "{ \"parameters\": {}, \"target\": {\"negotiation_id\": \"" + nid + "\"},\n \"operation\": \"offer.respond\" }"
	other := `{"operation":"negotiation.read","target":{"negotiation_id":"` + nid + `"}}`
	h := func(s string) string {
		v, err := BodyHash([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	const a, b = "https://agent.example/agent.json", "https://other.example/agent.json"
	rec := &IdempotencyRecord{ClientID: a, Key: "k-1", BodyHash: h(body), RequestID: "req_eSTKa7J-MERu"}
	cases := []struct {
		name    string
		client  string
		key     string
		body    string
		prior   *IdempotencyRecord
		code    Code
		new     bool
		request string
	}{
		{"no key", a, "", body, nil, CodeIdempotencyKeyRequired, false, ""},
		{"no key, a record", a, "", body, rec, CodeIdempotencyKeyRequired, false, ""},
		{"a key too long", a, strings.Repeat("k", MaxIdempotencyKey+1), body, nil, CodeIdempotencyKeyInvalid, false, ""},
		{"the longest key", a, strings.Repeat("k", MaxIdempotencyKey), body, nil, "", true, ""},
		{"a control byte", a, "k\n1", body, nil, CodeIdempotencyKeyInvalid, false, ""},
		{"a non-ASCII key", a, "clé", body, nil, CodeIdempotencyKeyInvalid, false, ""},
		{"a new key", a, "k-2", body, nil, "", true, ""},
		{"the same key and body", a, "k-1", body, rec, "", false, "req_eSTKa7J-MERu"},
		{"the same key, the same JSON written otherwise", a, "k-1", same, rec, "", false, "req_eSTKa7J-MERu"},
		{"the same key, another body", a, "k-1", other, rec, CodeIdempotencyKeyReused, false, ""},
		{"another client's key", b, "k-1", other, rec, "", true, ""},
		{"another client's key, the same body", b, "k-1", body, rec, "", true, ""},
		{"a record of another key", a, "K-1", body, rec, "", true, ""},
		{"no client", "", "k-1", body, nil, CodeBadArgument, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := DecideIdempotency(c.client, c.key, h(c.body), c.prior)
			if CodeOf(err) != c.code {
				t.Fatalf("got %v, want %q", err, c.code)
			}
			if err == nil && (d.New != c.new || d.RequestID != c.request) {
				t.Fatalf("got %+v", d)
			}
		})
	}
	if _, err := BodyHash([]byte(`{"a":1,"a":2}`)); strictjson.CodeOf(err) != strictjson.CodeDuplicateKey {
		t.Fatalf("a body with a duplicate: %v", err)
	}
	if h(body) == h(other) {
		t.Fatal("two bodies hash alike")
	}
}
