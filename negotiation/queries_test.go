package negotiation

import (
	"strings"
	"testing"
	"time"
)

// runAll runs cmds on tr and fails on any input that does not take
// effect, unless its line names want (a refusal the test means).
func runAll(t *testing.T, tr *transcript, cmds ...string) {
	t.Helper()
	for _, cmd := range cmds {
		for _, line := range tr.run(cmd) {
			if strings.Contains(line, "->") && !strings.Contains(line, "-> ok") {
				t.Fatalf("%s: %s", cmd, line)
			}
		}
	}
}

// TestAcceptanceOf: a party's effective acceptance of an offer, by offer;
// a refused one does not count.
func TestAcceptanceOf(t *testing.T) {
	tr := threadIn(t, StateCountered)
	poster, worker := tr.parties["poster"].addr, tr.parties["worker"].addr
	w1, p1 := tr.env("W1").Hash(), tr.env("P1").Hash()
	if _, ok := tr.th.AcceptanceOf(poster, w1); ok {
		t.Fatal("an acceptance before any was sent")
	}
	// An acceptance the state machine refuses (a wrong digest) is none.
	if out := tr.run("send poster accept offer=W1 digest=bad"); !strings.Contains(out[0], "(kept)") || strings.Contains(out[0], "-> ok") {
		t.Fatalf("an acceptance with a wrong digest: %v", out)
	}
	if _, ok := tr.th.AcceptanceOf(poster, w1); ok {
		t.Fatal("a refused acceptance counts")
	}
	runAll(t, tr, "send poster accept offer=W1 as=PA")
	h, ok := tr.th.AcceptanceOf(poster, w1)
	if !ok || h != tr.env("PA").Hash() {
		t.Fatalf("AcceptanceOf(poster, W1) = %s %v, want PA", tr.label(h), ok)
	}
	if _, ok := tr.th.AcceptanceOf(worker, w1); ok {
		t.Fatal("the worker's acceptance before it sent one")
	}
	if _, ok := tr.th.AcceptanceOf(poster, p1); ok {
		t.Fatal("an acceptance of another offer")
	}
}

// TestDeliveryQueries: DeliveryOf and Deliveries give the latest notice
// of each milestone; PendingDelivery the one awaiting review, until the
// poster accepts it; DeliveryAccepted the accepted one.
func TestDeliveryQueries(t *testing.T) {
	tr := threadIn(t, StateFunded)
	if tr.th.DeliveryOf(0) != nil || len(tr.th.Deliveries()) != 0 {
		t.Fatal("a delivery before any")
	}
	if _, ok := tr.th.PendingDelivery(0); ok {
		t.Fatal("a pending delivery before any")
	}
	runAll(t, tr, "send worker deliver m=1 as=D1", "send worker deliver m=0 as=D0", "send poster revise m=0", "send worker deliver m=0 as=D0b")
	if e := tr.th.DeliveryOf(0); e == nil || e.Hash() != tr.env("D0b").Hash() {
		t.Fatalf("DeliveryOf(0) = %v, want the latest (D0b)", e)
	}
	if e := tr.th.DeliveryOf(1); e == nil || e.Hash() != tr.env("D1").Hash() {
		t.Fatalf("DeliveryOf(1) = %v, want D1", e)
	}
	if tr.th.DeliveryOf(2) != nil || tr.th.DeliveryOf(-1) != nil {
		t.Fatal("a delivery of a milestone that does not exist")
	}
	ds := tr.th.Deliveries()
	if len(ds) != 2 || ds[0].Hash() != tr.env("D0b").Hash() || ds[1].Hash() != tr.env("D1").Hash() {
		t.Fatalf("Deliveries() = %v, want D0b, D1 in milestone order", ds)
	}
	if h, ok := tr.th.PendingDelivery(0); !ok || h != tr.env("D0b").Hash() {
		t.Fatalf("PendingDelivery(0) = %s %v, want D0b", tr.label(h), ok)
	}
	if tr.th.DeliveryAccepted(tr.env("D0b").Hash()) {
		t.Fatal("accepted before the AcceptDelivery")
	}
	runAll(t, tr, "send poster acceptdelivery m=0 delivery=D0b")
	if _, ok := tr.th.PendingDelivery(0); ok {
		t.Fatal("an accepted delivery is still pending")
	}
	if !tr.th.DeliveryAccepted(tr.env("D0b").Hash()) || tr.th.DeliveryAccepted(tr.env("D0").Hash()) || tr.th.DeliveryAccepted(tr.env("D1").Hash()) {
		t.Fatal("DeliveryAccepted names the wrong delivery")
	}
	// Released: DeliveryOf still holds the notice (accept_delivery's retry reads it).
	if e := tr.th.DeliveryOf(0); e == nil || e.Hash() != tr.env("D0b").Hash() {
		t.Fatalf("DeliveryOf(0) after the release = %v", e)
	}
	// A proof on chain without its envelope is pending with a zero hash.
	tr2 := threadIn(t, StateFunded)
	runAll(t, tr2, "fact proof m=1")
	if h, ok := tr2.th.PendingDelivery(1); !ok || h != (Hash{}) {
		t.Fatalf("PendingDelivery after a proof alone = %s %v, want the zero hash", h, ok)
	}
	if tr2.th.DeliveryOf(1) != nil {
		t.Fatal("DeliveryOf without a notice")
	}
}

// TestCoSignQueries: CoSignedNonce reads an envelope's nonce; PendingCoSign
// a party's latest co-signature at a nonce; ReadyCoSign the complete pair
// at a nonce; LatestOf a party's latest effective envelope of a type.
func TestCoSignQueries(t *testing.T) {
	tr := threadIn(t, StateFunded)
	poster, worker := tr.parties["poster"].addr, tr.parties["worker"].addr
	if tr.th.LatestOf(poster, TypeMutualCancel) != nil || tr.th.PendingCoSign(TypeMutualCancel, poster, 0) != nil || tr.th.ReadyCoSign(TypeMutualCancel, 0) != nil {
		t.Fatal("a cancel before any")
	}
	runAll(t, tr, "send poster cancel nonce=3 as=C3", "send poster cancel nonce=0 as=C0")
	if e := tr.th.LatestOf(poster, TypeMutualCancel); e == nil || e.Hash() != tr.env("C0").Hash() {
		t.Fatalf("LatestOf = %v, want C0", e)
	}
	if tr.th.LatestOf(worker, TypeMutualCancel) != nil || tr.th.LatestOf(poster, TypeMilestoneDefinition) != nil {
		t.Fatal("LatestOf of another sender or type")
	}
	if n, ok := CoSignedNonce(tr.env("C3")); !ok || n != 3 {
		t.Fatalf("CoSignedNonce(C3) = %d %v", n, ok)
	}
	if e := tr.th.PendingCoSign(TypeMutualCancel, poster, 0); e == nil || e.Hash() != tr.env("C0").Hash() {
		t.Fatalf("PendingCoSign at 0 = %v, want C0", e)
	}
	// The latest names nonce 0: the one at 3 can no longer be submitted.
	if tr.th.PendingCoSign(TypeMutualCancel, poster, 3) != nil {
		t.Fatal("PendingCoSign of a superseded nonce")
	}
	if tr.th.ReadyCoSign(TypeMutualCancel, 0) != nil {
		t.Fatal("a pair with one signature")
	}
	runAll(t, tr, "send worker cancel nonce=0 as=WC0")
	c := tr.th.ReadyCoSign(TypeMutualCancel, 0)
	if c == nil || c.Kind != TypeMutualCancel {
		t.Fatalf("ReadyCoSign at 0 = %v", c)
	}
	if got := []Hash{c.Envelopes[0], c.Envelopes[1]}; !(got[0] == tr.env("C0").Hash() && got[1] == tr.env("WC0").Hash() || got[1] == tr.env("C0").Hash() && got[0] == tr.env("WC0").Hash()) {
		t.Fatalf("the pair is %s and %s", tr.label(got[0]), tr.label(got[1]))
	}
	if tr.th.ReadyCoSign(TypeMutualCancel, 1) != nil || tr.th.ReadyCoSign(TypeReplacementContext, 0) != nil {
		t.Fatal("ReadyCoSign at another nonce or of another type")
	}
	// A cancel before funding names no task and no nonce; other types none.
	tr2 := threadIn(t, StateProposed)
	runAll(t, tr2, "send worker cancel as=PC")
	if _, ok := CoSignedNonce(tr2.env("PC")); ok {
		t.Fatal("a cancel before funding has a nonce")
	}
	if _, ok := CoSignedNonce(tr2.env("P1")); ok {
		t.Fatal("a proposal has a nonce")
	}
	if _, ok := CoSignedNonce(nil); ok {
		t.Fatal("nil has a nonce")
	}
}

// TestAmendmentOf: the MilestoneDefinition a TaskAmended event names, by
// termsHash and nonce, the poster's when both sent one.
func TestAmendmentOf(t *testing.T) {
	tr := threadIn(t, StateFunded)
	th := HashOf([]byte("amended")) // the harness's termsHash of every amendment
	if tr.th.AmendmentOf(th, 0) != nil {
		t.Fatal("an amendment before any")
	}
	runAll(t, tr, "send worker amend ms=100,300 nonce=0 as=WM")
	if m := tr.th.AmendmentOf(th, 0); m == nil || m != tr.env("WM").Payload {
		t.Fatalf("AmendmentOf with the worker's alone = %v, want WM", m)
	}
	runAll(t, tr, "send poster amend ms=100,300 nonce=0 as=PM")
	if m := tr.th.AmendmentOf(th, 0); m == nil || m != tr.env("PM").Payload {
		t.Fatalf("AmendmentOf with both = %v, want the poster's", m)
	}
	if tr.th.AmendmentOf(th, 1) != nil || tr.th.AmendmentOf(HashOf([]byte("other")), 0) != nil {
		t.Fatal("AmendmentOf at another nonce or termsHash")
	}
}

// TestHead: a party's chain position; the next envelope it sends follows
// it.
func TestHead(t *testing.T) {
	tr := threadIn(t, StateCountered)
	poster, stranger := tr.parties["poster"].addr, tr.parties["stranger"].addr
	if seq, h, at := tr.th.Head(stranger); seq != 0 || h != ZeroHash || !at.IsZero() {
		t.Fatalf("Head of a party that sent nothing = %d %s %s", seq, h, at)
	}
	seq, h, at := tr.th.Head(poster)
	p1 := tr.env("P1")
	if seq != 1 || h != p1.Hash() || !at.Equal(p1.Timestamp) {
		t.Fatalf("Head(poster) = %d %s %s, want P1", seq, tr.label(h), at)
	}
	runAll(t, tr, "send poster accept offer=W1 as=PA")
	pa := tr.env("PA")
	if seq, h, at := tr.th.Head(poster); seq != 2 || h != pa.Hash() || !at.Equal(pa.Timestamp) || pa.PreviousHash != p1.Hash() {
		t.Fatalf("Head(poster) = %d %s %s, want PA after P1", seq, tr.label(h), at)
	}
	// A refused (but authentic) envelope still advances its sender's chain.
	if out := tr.run("send poster accept offer=W1 digest=bad as=PX"); !strings.Contains(out[0], "(kept)") || strings.Contains(out[0], "-> ok") {
		t.Fatalf("an acceptance with a wrong digest: %v", out)
	}
	if seq, h, _ := tr.th.Head(poster); seq != 3 || h != tr.env("PX").Hash() {
		t.Fatalf("Head(poster) after a refused envelope = %d %s", seq, tr.label(h))
	}
}

// TestDisputeID: nil until the chain opens a dispute, then its id, a copy.
func TestDisputeID(t *testing.T) {
	tr := threadIn(t, StateDelivered)
	if tr.th.DisputeID() != nil {
		t.Fatal("a dispute id before the dispute")
	}
	runAll(t, tr, "fact dispute id=7")
	id := tr.th.DisputeID()
	if id == nil || id.String() != "7" {
		t.Fatalf("DisputeID() = %v", id)
	}
	id.SetUint64(9)
	if tr.th.DisputeID().String() != "7" {
		t.Fatal("DisputeID shares the thread's id")
	}
}

// TestCheckLeavesThread: Check answers for a refused and an effective
// envelope and a fact without changing the thread: its state, its log,
// its chains; Apply afterwards gives the same outcome.
func TestCheckLeavesThread(t *testing.T) {
	tr := threadIn(t, StateFunded)
	state, logLen := tr.th.State(), len(tr.th.Log())
	seq, head, _ := tr.th.Head(tr.parties["worker"].addr)
	e := tr.peek("worker", "deliver", map[string]string{"m": "0"})
	bad := tr.peek("poster", "deliver", map[string]string{"m": "0"})
	for _, in := range []Input{e, bad, ProofSubmitted{Milestone: 1}} {
		out := tr.th.Check(in, e.Timestamp)
		if s, n := tr.th.State(), len(tr.th.Log()); s != state || n != logLen {
			t.Fatalf("Check(%T) moved the thread to %s with %d records", in, s, n)
		}
		if s, h, _ := tr.th.Head(tr.parties["worker"].addr); s != seq || h != head {
			t.Fatalf("Check(%T) advanced the worker's chain", in)
		}
		if in == e && (!out.Effective() || out.To != StateDelivered) {
			t.Fatalf("Check(delivery) = %+v", out)
		}
		if in == bad && out.Code != CodeRoleForbidden {
			t.Fatalf("Check(the poster's delivery) = %+v", out)
		}
	}
	if out := tr.th.Apply(e, e.Timestamp.Add(time.Millisecond)); !out.Effective() || tr.th.State() != StateDelivered {
		t.Fatalf("Apply after Check = %+v", out)
	}
}
