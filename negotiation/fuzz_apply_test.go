package negotiation

import (
	"testing"
	"time"
)

// FuzzApply feeds arbitrary bytes through Decode, Verify and Apply on a
// thread in the middle of a negotiation: nothing panics, every refusal is a
// typed *Error whose code the outcome reports, and a non-authentic input
// leaves the thread's record untouched.
func FuzzApply(f *testing.F) {
	th, poster, worker, w1 := counteredThread(f)
	nid := th.NegotiationID()
	f.Add(w1.Bytes(), int64(0))
	f.Add(poster.send(f, nid, t0.Add(time.Minute), []Address{worker.addr}, &TaskCounterOffer{InReplyTo: w1.Hash(), Terms: testTerms(110)}).Bytes(), int64(60))
	f.Add(worker.send(f, nid, t0.Add(2*time.Minute), []Address{poster.addr}, &DeliveryNotice{Milestone: 0, ProofCID: CID(CIDOf([]byte("x")).String())}).Bytes(), int64(3600))
	f.Fuzz(func(t *testing.T, data []byte, offset int64) {
		th, _, _, _ := counteredThread(t)
		e, err := Decode(data, DecodeOptions{})
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("untyped decode error: %v", err)
			}
			return
		}
		before := len(th.Log())
		out := th.Apply(e, t0.Add(time.Duration(offset)*time.Second))
		if out.Code != "" && out.Code != CodeDuplicate && CodeOf(out.Err) != out.Code {
			t.Fatalf("outcome code %q with error %v", out.Code, out.Err)
		}
		if !out.Authentic && len(th.Log()) != before {
			t.Fatal("non-authentic input was recorded")
		}
	})
}
