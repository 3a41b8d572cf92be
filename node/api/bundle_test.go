package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// TestBundleRouteIsVersion2: GET /v1/negotiations/{id}/bundle answers a
// version-2 bundle of the negotiation alone, though another negotiation's
// entries lie between its own, and the client's Bundle gets the same
// bytes; a negotiation the ledger does not hold is 404.
func TestBundleRouteIsVersion2(t *testing.T) {
	s := serve(t, startNode(t, nodeSpec{name: "exporter"}), Options{})
	nid, other := negotiation.NewNegotiationID([16]byte{1, 2, 3}), negotiation.NewNegotiationID([16]byte{4, 5, 6})
	for i, id := range []string{nid, other, nid, other, nid} {
		body, _ := json.Marshal(map[string]any{"state": "proposed", "step": i})
		if _, _, err := s.Ledger().Append(t.Context(), ledger.Record{Kind: ledger.KindThreadState, NegotiationID: id, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	r := s.do(call{method: http.MethodGet, path: "/v1/negotiations/" + nid + "/bundle"})
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET bundle: %d %s", r.status, r.body)
	}
	rep, err := node.VerifyBundle(bytes.NewReader(r.body), ledger.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Version != 2 || rep.TreeHead == nil || rep.NegotiationID != nid || len(rep.Negotiation) != 3 {
		t.Fatalf("the bundle: version %d, head %v, negotiation %s, %d entries", rep.Version, rep.TreeHead, rep.NegotiationID, len(rep.Negotiation))
	}
	if bytes.Contains(r.body, []byte(other)) {
		t.Fatal("the bundle names the other negotiation")
	}
	var b struct {
		Entries []json.RawMessage `json:"entries"`
	}
	if err := json.Unmarshal(r.body, &b); err != nil || len(b.Entries) != 3 {
		t.Fatalf("the bundle's entries: %d %v", len(b.Entries), err)
	}
	c, err := NewClient(s.url, []byte(apiKey))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := c.Bundle(t.Context(), nid, &got); err != nil || !bytes.Equal(got.Bytes(), r.body) {
		t.Fatalf("the client's Bundle: %v (%d bytes, want %d)", err, got.Len(), len(r.body))
	}
	unknown := negotiation.NewNegotiationID([16]byte{7})
	if r := s.do(call{method: http.MethodGet, path: "/v1/negotiations/" + unknown + "/bundle"}); r.status != http.StatusNotFound || r.errCode() != string(node.CodeUnknownNegotiation) {
		t.Fatalf("GET the bundle of an unknown negotiation: %d %s", r.status, r.body)
	}
}
