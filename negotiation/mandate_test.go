package negotiation

import (
	"errors"
	"testing"
	"time"
)

const posterCardJSON = `{"pxp":"0","principal":{"name":"Dana","role":"buyer"},"goal":"Get the guide translated.",
 "must_haves":[{"text":"Delivery within 10 days","rule":"deadline <= now + days(10)"}],
 "may_agree_to":[{"text":"Up to 400 wei","rule":"total <= wei(\"400\")"}],
 "must_never":[{"text":"More than 2 milestones","rule":"milestone_count > 2"}],
 "escalate_when":[{"text":"A category is set","rule":"category != ''"}],
 "known_facts":[{"text":"The guide has 40 pages","key":"page_count","value":40}]}`

const workerCardJSON = `{"pxp":"0","principal":{"name":"Sam"},"goal":"Win translation work.",
 "must_haves":[{"text":"At least 250 wei","rule":"total >= wei(\"250\")"}]}`

// pxpSetup is two parties, a thread each side applies, and each side's mandate.
type pxpSetup struct {
	poster, worker *party
	pm, wm         *Mandate
	th             *Thread
	nid            string
	at             time.Time
}

func newPXP(t *testing.T) *pxpSetup {
	t.Helper()
	s := &pxpSetup{poster: newParty(t, "poster"), worker: newParty(t, "worker"), nid: NewNegotiationID([16]byte{7}), at: t0}
	var err error
	if s.pm, err = NewMandate(mustCard(t, []byte(posterCardJSON)), s.poster.addr); err != nil {
		t.Fatal(err)
	}
	if s.wm, err = NewMandate(mustCard(t, []byte(workerCardJSON)), s.worker.addr); err != nil {
		t.Fatal(err)
	}
	if s.th, err = NewThread(Params{NegotiationID: s.nid}); err != nil {
		t.Fatal(err)
	}
	return s
}

// send checks p with the sender's mandate, builds it, applies it to the
// thread and records it on both sides. It returns the envelope, or the
// mandate's refusal (then nothing was sent).
func (s *pxpSetup) send(t *testing.T, from *party, p Payload) (*Envelope, error) {
	t.Helper()
	me, other := s.pm, s.wm
	to := s.worker.addr
	if from == s.worker {
		me, other, to = s.wm, s.pm, s.poster.addr
	}
	me.Stamp(p)
	s.at = s.at.Add(time.Second)
	if err := me.Outgoing(p, nil, s.at); err != nil {
		return nil, err
	}
	e := from.send(t, s.nid, s.at, []Address{to}, p)
	if out := s.th.Apply(e, s.at); !out.Effective() {
		t.Fatalf("thread refused %s: %v", e.Type, out.Err)
	}
	if err := me.Sent(e); err != nil {
		t.Fatalf("Sent: %v", err)
	}
	if err := other.Received(e); err != nil {
		t.Fatalf("Received: %v", err)
	}
	return e, nil
}

func (s *pxpSetup) must(t *testing.T, from *party, p Payload) *Envelope {
	t.Helper()
	e, err := s.send(t, from, p)
	if err != nil {
		t.Fatalf("%s refused: %v", p.MessageType(), err)
	}
	return e
}

func (s *pxpSetup) accept(t *testing.T, by *party, offer *Envelope) *TaskAcceptance {
	t.Helper()
	tr := &transcript{t: t, th: s.th}
	d := tr.digestOf(offer, by)
	return &TaskAcceptance{AcceptedOfferHash: offer.Hash(), SettlementDigest: d, Signature: by.signDigest(t, d), PXP: PXP{Status: StatusAgree}}
}

func wantCode(t *testing.T, err error, c Code) {
	t.Helper()
	if CodeOf(err) != c {
		t.Fatalf("code %q, want %q (%v)", CodeOf(err), c, err)
	}
}

func terms(amounts ...int64) Terms {
	tm := testTerms(amounts...)
	return tm
}

// TestMandateClaimsAndReviews: untagged and stated-without-clause claims
// are refused; the other side's claims are owed reviews; a known fact
// decides a keyed claim; restating the other side's claim does not make it
// stated for us.
func TestMandateClaimsAndReviews(t *testing.T) {
	s := newPXP(t)
	prop := &TaskProposal{Terms: terms(100, 200)}
	prop.Claims = []Claim{{ID: "p1", Text: "x", Origin: ""}}
	_, err := s.send(t, s.poster, prop)
	wantCode(t, err, CodeClaimUntagged)
	prop.Claims = []Claim{{ID: "p1", Text: "The guide has 40 pages", Origin: OriginStated, Ref: "known_facts[7]"}}
	_, err = s.send(t, s.poster, prop)
	wantCode(t, err, CodeClaimUntagged)
	prop.Claims = []Claim{{ID: "p1", Text: "The guide has 40 pages", Origin: OriginStated, Ref: "known_facts[0]"}}
	offer := s.must(t, s.poster, prop)

	// The worker claims two things; the poster owes reviews of both.
	co := &TaskCounterOffer{InReplyTo: offer.Hash(), Terms: terms(150, 250)}
	co.Claims = []Claim{{ID: "w1", Text: "page_count = 60", Origin: OriginAssumed}, {ID: "w2", Text: "The guide is technical", Origin: OriginAssumed}}
	co.Reviews = []Review{{ClaimID: "p1", Verdict: VerdictAccept}}
	counter := s.must(t, s.worker, co)
	if got := s.pm.Pending(); len(got) != 2 {
		t.Fatalf("pending %v", got)
	}
	auto := s.pm.AutoReviews(nil, s.at)
	if len(auto) != 1 || auto[0].ClaimID != "w1" || auto[0].Verdict != VerdictConflict {
		t.Fatalf("auto reviews %+v", auto)
	}
	next := &TaskCounterOffer{InReplyTo: counter.Hash(), Terms: terms(100, 250)}
	_, err = s.send(t, s.poster, next)
	wantCode(t, err, CodeReviewMissing)
	next.Reviews = []Review{{ClaimID: "w1", Verdict: VerdictAccept}, {ClaimID: "w2", Verdict: VerdictChallenge}}
	_, err = s.send(t, s.poster, next)
	wantCode(t, err, CodeReviewMismatch) // the known fact decides w1
	next.Reviews = []Review{auto[0], {ClaimID: "w2", Verdict: VerdictChallenge}}
	// Restating the worker's claim as our own stated claim is refused.
	next.Claims = []Claim{{ID: "p2", Text: "The guide is technical", Origin: OriginStated, Ref: "goal"}}
	_, err = s.send(t, s.poster, next)
	wantCode(t, err, CodeClaimRestated)
	next.Claims = []Claim{{ID: "w2", Text: "The guide is technical", Origin: OriginSourced, Ref: "style guide"}}
	_, err = s.send(t, s.poster, next)
	wantCode(t, err, CodeClaimRestated) // the id is the worker's
	next.Claims = nil
	s.must(t, s.poster, next)
	if len(s.pm.Pending()) != 0 || s.pm.Verified("w1") || s.pm.Verified("w2") {
		t.Fatal("reviews not recorded, or a disputed claim verified")
	}
	if c, _ := s.pm.Claim("w2"); c.Ours || c.Origin != OriginAssumed {
		t.Fatalf("a received claim became ours: %+v", c)
	}
}

// TestMandateEscalation: each of the four triggers refuses with
// escalation_required; while paused only the escalation goes out; the
// answer is sealed as an amendment and a stated claim, clears the trigger
// for those terms, and a relayed answer must be confirmed before a binding
// act rests on it.
func TestMandateEscalation(t *testing.T) {
	s := newPXP(t)
	// Trigger 1: three milestones cross must_never[0]; 500 wei leaves may_agree_to[0].
	_, err := s.send(t, s.poster, &TaskProposal{Terms: terms(100, 100, 100)})
	var ee *EscalationError
	if !errors.As(err, &ee) || ee.Code != CodeEscalationRequired || ee.Triggers[0].Kind != TriggerMustNever {
		t.Fatalf("want must_never escalation, got %v", err)
	}
	_, err = s.send(t, s.poster, &TaskProposal{Terms: terms(500)})
	if !errors.As(err, &ee) || ee.Triggers[0].Clause != "may_agree_to[0]" {
		t.Fatalf("want may_agree_to escalation, got %v", err)
	}
	// must_haves[0]: a deadline 20 days out gives it up.
	far := terms(100)
	far.Deadline = uint64(t0.Add(20 * 24 * time.Hour).Unix())
	_, err = s.send(t, s.poster, &TaskProposal{Terms: far})
	if !errors.As(err, &ee) || ee.Triggers[0].Kind != TriggerMustHave {
		t.Fatalf("want must_have escalation, got %v", err)
	}
	// Trigger 2: escalate_when[0] matches a category.
	cat := terms(100, 200)
	cat.Category = "legal"
	_, err = s.send(t, s.poster, &TaskProposal{Terms: cat})
	if !errors.As(err, &ee) || ee.Triggers[0].Kind != TriggerEscalateWhen {
		t.Fatalf("want escalate_when, got %v", err)
	}
	if err := s.pm.Escalate(ee.Question, "", s.at); err != nil {
		t.Fatal(err)
	}
	_, err = s.send(t, s.poster, &TaskProposal{Terms: terms(100)})
	wantCode(t, err, CodePaused)
	if _, err := s.pm.Answer("another question", "yes", ViaWeb, s.at); err == nil {
		t.Fatal("answered a question that was not asked")
	}
	before := s.pm.CardHash()
	a, err := s.pm.Answer(ee.Question, "Yes, legal is fine.", ViaMCP, s.at)
	if err != nil {
		t.Fatal(err)
	}
	if a.Claim.Origin != OriginStated || a.Claim.Ref != "amendments[0]" || a.Speaker != SpeakerPrincipal || a.Confirmed || s.pm.CardHash() == before || a.CardHash != s.pm.CardHash() {
		t.Fatalf("answer %+v", a)
	}
	// The relayed answer is not confirmed: the binding offer it rests on waits.
	_, err = s.send(t, s.poster, &TaskProposal{Terms: cat})
	wantCode(t, err, CodeAnswerUnconfirmed)
	if err := s.pm.ConfirmAnswer(0); err != nil {
		t.Fatal(err)
	}
	offer := s.must(t, s.poster, &TaskProposal{Terms: cat})
	if *offer.Payload.Proxy().IntentCardHash != s.pm.CardHash() {
		t.Fatal("the envelope does not carry the re-sealed card")
	}

	// Trigger 4: the worker's counter depends on its own assumption touching
	// its must_have (total >= 250) through a keyed claim on total.
	co := &TaskCounterOffer{InReplyTo: offer.Hash(), Terms: terms(100, 200)}
	co.Claims = []Claim{{ID: "w1", Text: "total = 300", Origin: OriginAssumed}}
	co.DependsOn = []string{"w1"}
	_, err = s.send(t, s.worker, co)
	if !errors.As(err, &ee) || ee.Triggers[0].Kind != TriggerAssumption {
		t.Fatalf("want assumption escalation, got %v", err)
	}
	co.Claims[0].Text, co.Claims[0].Ref = "The client will pay a bonus", "must_haves[0]"
	_, err = s.send(t, s.worker, co)
	if !errors.As(err, &ee) || ee.Triggers[0].ClaimID != "w1" {
		t.Fatalf("a ref naming the must_have should touch it: %v", err)
	}
	co.Claims[0].Ref, co.DependsOn = "", nil
	counter := s.must(t, s.worker, co)

	// Trigger 3: the poster flags a conflict; accepting later needs an answer.
	rv := &TaskCounterOffer{InReplyTo: counter.Hash(), Terms: cat, PXP: PXP{Reviews: []Review{{ClaimID: "w1", Verdict: VerdictConflict}}}}
	// Agreement rules first: agree carries no counter, an acceptance no conflict.
	rv.Status = StatusAgree
	_, err = s.send(t, s.poster, rv)
	wantCode(t, err, CodeAgreeWithCounter)
	rv.Status = ""
	s.must(t, s.poster, rv)
	acc := s.accept(t, s.poster, counter)
	_, err = s.send(t, s.poster, acc)
	if !errors.As(err, &ee) || ee.Triggers[0].Kind != TriggerConflict {
		t.Fatalf("want conflict escalation, got %v", err)
	}
}

// TestMandateAgreementRules: an acceptance may carry no conflict review and
// may not accept an offer resting on a claim this side disputed until the
// principal answered; the thread enforces the same on the wire.
func TestMandateAgreementRules(t *testing.T) {
	s := newPXP(t)
	offer := s.must(t, s.poster, &TaskProposal{Terms: terms(100, 200)})
	co := &TaskCounterOffer{InReplyTo: offer.Hash(), Terms: terms(150, 200)}
	co.Claims = []Claim{{ID: "w1", Text: "The poster's server has an API", Origin: OriginAssumed}}
	co.DependsOn = []string{"w1"}
	counter := s.must(t, s.worker, co)

	acc := s.accept(t, s.poster, counter)
	acc.Reviews = []Review{{ClaimID: "w1", Verdict: VerdictConflict}}
	_, err := s.send(t, s.poster, acc)
	wantCode(t, err, CodeAgreeWithConflict)
	acc.Reviews = []Review{{ClaimID: "w1", Verdict: VerdictChallenge}}
	_, err = s.send(t, s.poster, acc)
	wantCode(t, err, CodeDependsOnDisputed)

	// On the wire: the same acceptance, sent anyway, is refused by the thread.
	s.pm.Stamp(acc)
	s.at = s.at.Add(time.Second)
	e := s.poster.send(t, s.nid, s.at, []Address{s.worker.addr}, acc)
	if out := s.th.Apply(e, s.at); out.Code != CodeDependsOnDisputed || !out.Authentic {
		t.Fatalf("thread: %v", out.Err)
	}
	// The thread also refuses a conflict review on an acceptance.
	acc2 := s.accept(t, s.poster, counter)
	acc2.Reviews = []Review{{ClaimID: "w1", Verdict: VerdictConflict}}
	s.pm.Stamp(acc2)
	s.at = s.at.Add(time.Second)
	e2 := s.poster.send(t, s.nid, s.at, []Address{s.worker.addr}, acc2)
	if out := s.th.Apply(e2, s.at); out.Code != CodeAgreeWithConflict {
		t.Fatalf("thread: %v", out.Err)
	}
}

// TestMandateDisputeClearedByAnswer: a challenge recorded earlier blocks the
// acceptance (mandate and thread) until the principal answers; the answer
// re-seals the card, which is what the thread sees; the claim stays
// unverified.
func TestMandateDisputeClearedByAnswer(t *testing.T) {
	s := newPXP(t)
	offer := s.must(t, s.poster, &TaskProposal{Terms: terms(100, 200)})
	co := &TaskCounterOffer{InReplyTo: offer.Hash(), Terms: terms(150, 200)}
	co.Claims = []Claim{{ID: "w1", Text: "The poster's server has an API", Origin: OriginAssumed}}
	counter := s.must(t, s.worker, co)
	rv := &TaskCounterOffer{InReplyTo: counter.Hash(), Terms: terms(140, 200), PXP: PXP{Reviews: []Review{{ClaimID: "w1", Verdict: VerdictChallenge}}}}
	mine := s.must(t, s.poster, rv)
	co2 := &TaskCounterOffer{InReplyTo: mine.Hash(), Terms: terms(145, 200), PXP: PXP{DependsOn: []string{"w1"}}}
	counter2 := s.must(t, s.worker, co2)

	acc := s.accept(t, s.poster, counter2)
	_, err := s.send(t, s.poster, acc)
	var ee *EscalationError
	if !errors.As(err, &ee) || ee.Code != CodeDependsOnDisputed {
		t.Fatalf("want depends_on_disputed, got %v", err)
	}
	// Sent anyway with the old card, the thread refuses it too.
	bad := s.accept(t, s.poster, counter2)
	s.pm.Stamp(bad)
	if out := s.th.Apply(s.poster.send(t, s.nid, s.at.Add(time.Second), []Address{s.worker.addr}, bad), s.at.Add(time.Second)); out.Code != CodeDependsOnDisputed {
		t.Fatalf("thread: %v", out.Err)
	}
	s.at = s.at.Add(2 * time.Second)
	if err := s.pm.Escalate(ee.Question, "", s.at); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pm.Answer(ee.Question, "Accept it; I will check the API myself.", ViaWeb, s.at); err != nil {
		t.Fatal(err)
	}
	agree := s.accept(t, s.poster, counter2)
	s.must(t, s.poster, agree)
	if s.pm.Verified("w1") {
		t.Fatal("a disputed claim became verified by the answer")
	}
	wacc := s.accept(t, s.worker, counter2)
	s.must(t, s.worker, wacc)
	if s.th.Agreement() == nil {
		t.Fatal("no agreement")
	}
}

// TestThreadClaimRestated: a sender may not re-use the other party's claim
// id once it had seen it, nor change its own claim's text.
func TestThreadClaimRestated(t *testing.T) {
	s := newPXP(t)
	p := &TaskProposal{Terms: terms(100)}
	p.Claims = []Claim{{ID: "c1", Text: "a", Origin: OriginAssumed}}
	offer := s.must(t, s.poster, p)
	co := &TaskCounterOffer{InReplyTo: offer.Hash(), Terms: terms(120), PXP: PXP{Claims: []Claim{{ID: "c1", Text: "a", Origin: OriginStated, Ref: "goal"}}}}
	co.Reviews = []Review{{ClaimID: "c1", Verdict: VerdictAccept}}
	s.wm.Stamp(co)
	e := s.worker.send(t, s.nid, s.at.Add(time.Second), []Address{s.poster.addr}, co)
	if out := s.th.Apply(e, s.at.Add(time.Second)); out.Code != CodeClaimRestated {
		t.Fatalf("thread: %v", out.Err)
	}
}

// TestMandateCardHashAndVerification: every envelope carries the sealed
// card's hash; an escalation makes no offer; an assumption is verified by
// an attached source or by the principal's confirmed answer.
func TestMandateCardHashAndVerification(t *testing.T) {
	s := newPXP(t)
	p := &TaskProposal{Terms: terms(100)}
	other := HashOf([]byte("another card"))
	p.IntentCardHash = &other
	if err := s.pm.Outgoing(p, nil, t0); CodeOf(err) != CodeCardMismatch {
		t.Fatalf("card hash: %v", err)
	}
	esc := &TaskProposal{Terms: terms(100), PXP: PXP{Status: StatusEscalate, Escalation: &Escalation{Question: "May I?"}}}
	s.pm.Stamp(esc)
	if err := s.pm.Outgoing(esc, nil, t0); CodeOf(err) != CodeStateForbidden {
		t.Fatalf("an escalation carried an offer: %v", err)
	}
	p.Claims = []Claim{{ID: "p1", Text: "The glossary exists", Origin: OriginAssumed}}
	offer := s.must(t, s.poster, p)
	co := &TaskCounterOffer{InReplyTo: offer.Hash(), Terms: terms(120, 200), PXP: PXP{Reviews: []Review{{ClaimID: "p1", Verdict: VerdictAccept}}}}
	co.Claims = []Claim{{ID: "w1", Text: "The guide is in Markdown", Origin: OriginAssumed}}
	counter := s.must(t, s.worker, co)
	if s.pm.Verified("w1") || s.wm.Verified("p1") {
		t.Fatal("an assumption is verified")
	}
	// The poster attaches a source to its own assumption.
	rv := &TaskCounterOffer{InReplyTo: counter.Hash(), Terms: terms(110, 200), PXP: PXP{Reviews: []Review{{ClaimID: "w1", Verdict: VerdictAccept}}}}
	rv.Claims = []Claim{{ID: "p1", Text: "The glossary exists", Origin: OriginSourced, Ref: "https://example.org/glossary"}}
	s.must(t, s.poster, rv)
	if !s.wm.Verified("p1") || !s.pm.Verified("p1") {
		t.Fatal("an attached source did not verify the claim")
	}
	// The poster's principal confirms the worker's assumption, relayed.
	a, err := s.pm.ConfirmClaim("w1", ViaMCP, s.at)
	if err != nil || a.Confirmed {
		t.Fatalf("confirm: %+v %v", a, err)
	}
	if s.pm.Verified("w1") {
		t.Fatal("an unconfirmed relayed answer verified the claim")
	}
	if err := s.pm.ConfirmAnswer(len(s.pm.Answers()) - 1); err != nil || !s.pm.Verified("w1") {
		t.Fatalf("confirmed answer did not verify: %v", err)
	}
	// Received refuses our own envelope and a claim re-using our id.
	if err := s.pm.Received(offer); err == nil {
		t.Fatal("Received took our own envelope")
	}
}
