package approval

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseReceipt: a receipt either is refused with invalid_receipt or
// parses, and then its own JSON form parses to the same bytes.
func FuzzParseReceipt(f *testing.F) {
	h := newHarness(f)
	key := newTestKey(h.cfg, counterAdvance)
	h.enrolFirst(f, key, "")
	req := h.settlementRequest(f, "1")
	f.Add(h.approve(f, key, req))
	d, _ := h.c.Deny(f.Context(), h.settlementRequest(f, "2"), "no")
	denied, _ := json.Marshal(d)
	f.Add(denied)
	f.Add([]byte(`{"kind":"IntentReceipt"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := ParseReceipt(in)
		if err != nil {
			if CodeOf(err) != CodeInvalidReceipt {
				t.Fatalf("code %q: %v", CodeOf(err), err)
			}
			return
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := ParseReceipt(out)
		if err != nil {
			t.Fatalf("own form refused: %v", err)
		}
		out2, _ := json.Marshal(r2)
		if !bytes.Equal(out, out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}
