package negotiation

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// recorded is one input of a transcript and the receiver's clock then.
type recorded struct {
	in  Input
	now time.Time
}

// replayThread builds a thread with params and applies ins to it: a thread
// made without Check or clone, to judge them against.
func replayThread(t *testing.T, params Params, ins []recorded) *Thread {
	t.Helper()
	th, err := NewThread(params)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ins {
		th.Apply(r.in, r.now)
	}
	return th
}

func inputName(in Input) string {
	switch v := in.(type) {
	case *Envelope:
		return string(v.Type) + " " + v.Hash().String()[:10]
	case Fact:
		return FactName(v)
	}
	return "?"
}

// TestCheckAgreesWithApply replays every golden transcript. Before each
// input, Check must return exactly the outcome Apply returns on a twin
// thread that saw the same inputs (built with NewThread and Apply only),
// and leave the thread deep-equal to that twin: state, log, sender chains,
// offers, acceptances, co-signatures and every counter the thread keeps.
// The transcripts themselves must still produce their golden output, so
// the thread Check ran on is the one the goldens pin.
func TestCheckAgreesWithApply(t *testing.T) {
	files, _ := filepath.Glob("testdata/transcripts/*.txt")
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	checked := 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			tr := newTranscript(t)
			var twin, of *Thread
			tr.onInput = func(in Input, now time.Time) {
				if of != tr.th { // a thread command started another thread
					twin, of = replayThread(t, tr.params, nil), tr.th
				}
				if !reflect.DeepEqual(tr.th, twin) {
					t.Fatalf("before %s: the thread and its twin differ", inputName(in))
				}
				got := tr.th.Check(in, now)
				if !reflect.DeepEqual(tr.th, twin) {
					t.Fatalf("Check(%s) changed the thread", inputName(in))
				}
				want := twin.Apply(in, now)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("Check(%s) = %+v, Apply = %+v", inputName(in), got, want)
				}
				checked++
			}
			runTranscriptWith(t, f, tr)
		})
	}
	if checked < 150 {
		t.Fatalf("only %d inputs checked", checked)
	}
}

// TestCheckAgreesWithApplyOutOfPlace feeds, at every step of every golden
// transcript, every input of that transcript (earlier ones again, later
// ones early, facts out of order): duplicates, equivocations, gaps,
// missing references, refused roles and states and effective inputs
// alike. Check must answer what Apply answers on a thread replayed to the
// same step, and leave the thread as it was.
func TestCheckAgreesWithApplyOutOfPlace(t *testing.T) {
	files, _ := filepath.Glob("testdata/transcripts/*.txt")
	codes := map[Code]int{}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			// First pass: the transcript's inputs in order.
			tr := newTranscript(t)
			var all []recorded
			tr.onInput = func(in Input, now time.Time) { all = append(all, recorded{in, now}) }
			runTranscriptWith(t, f, tr)
			params := tr.params
			for step := 0; step <= len(all); step++ {
				th := replayThread(t, params, all[:step])
				pristine := replayThread(t, params, all[:step])
				oracle := replayThread(t, params, all[:step])
				for _, c := range all {
					got := th.Check(c.in, c.now)
					if !reflect.DeepEqual(th, pristine) {
						t.Fatalf("step %d: Check(%s) changed the thread", step, inputName(c.in))
					}
					want := oracle.Apply(c.in, c.now)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("step %d: Check(%s) = %+v, Apply = %+v", step, inputName(c.in), got, want)
					}
					codes[want.Code]++
					if want.Authentic && want.Code != CodeDuplicate {
						oracle = replayThread(t, params, all[:step])
					}
				}
			}
		})
	}
	// The inputs must have exercised the outcomes that matter.
	for _, c := range []Code{"", CodeDuplicate, CodeEquivocation, CodeSequenceGap, CodeMissingReference, CodeRoleForbidden, CodeStateForbidden} {
		if codes[c] == 0 {
			t.Errorf("no out-of-place input gave %q", c)
		}
	}
}

// FuzzCheck feeds arbitrary bytes to Check on a thread in the middle of a
// negotiation: Check answers what Apply answers on a twin built the same
// way, and the thread is deep-equal to the twin before Apply.
func FuzzCheck(f *testing.F) {
	th, poster, worker, w1 := counteredThread(f)
	nid := th.NegotiationID()
	f.Add(w1.Bytes(), int64(0))
	f.Add(poster.send(f, nid, t0.Add(time.Minute), []Address{worker.addr}, &TaskCounterOffer{InReplyTo: w1.Hash(), Terms: testTerms(110)}).Bytes(), int64(60))
	f.Add(worker.send(f, nid, t0.Add(2*time.Minute), []Address{poster.addr}, &DeliveryNotice{Milestone: 0, ProofCID: CID(CIDOf([]byte("x")).String())}).Bytes(), int64(3600))
	f.Add(poster.send(f, nid, t0.Add(3*time.Minute), []Address{worker.addr}, &MutualCancel{Reason: "no"}).Bytes(), int64(-600))
	f.Fuzz(func(t *testing.T, data []byte, offset int64) {
		e, err := Decode(data, DecodeOptions{})
		if err != nil {
			return
		}
		th, _, _, _ := counteredThread(t)
		twin, _, _, _ := counteredThread(t)
		now := t0.Add(time.Duration(offset) * time.Second)
		got := th.Check(e, now)
		if !reflect.DeepEqual(th, twin) {
			t.Fatal("Check changed the thread")
		}
		if want := twin.Apply(e, now); !reflect.DeepEqual(got, want) {
			t.Fatalf("Check = %+v, Apply = %+v", got, want)
		}
	})
}
