package negotiation

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// agreedPXP negotiates to an agreement that rests on an assumption the
// poster challenged and then cleared with its principal, and on an
// escalation the poster's principal answered.
func agreedPXP(t *testing.T) *pxpSetup {
	t.Helper()
	s := newPXP(t)
	cat := terms(100, 200)
	cat.Category = "legal"
	_, err := s.send(t, s.poster, &TaskProposal{Terms: cat})
	ee, ok := err.(*EscalationError)
	if !ok {
		t.Fatalf("want an escalation, got %v", err)
	}
	if err := s.pm.Escalate(ee.Question, "the card asks first", s.at); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pm.Answer(ee.Question, "Yes.", ViaWeb, s.at); err != nil {
		t.Fatal(err)
	}
	offer := s.must(t, s.poster, &TaskProposal{Terms: cat})
	co := &TaskCounterOffer{InReplyTo: offer.Hash(), Terms: cat}
	co.Claims = []Claim{{ID: "w1", Text: "The glossary is final", Origin: OriginAssumed}, {ID: "w2", Text: "The poster reviews within a day", Origin: OriginAssumed}}
	co.DependsOn = []string{"w1"}
	counter := s.must(t, s.worker, co)
	rv := &TaskCounterOffer{InReplyTo: counter.Hash(), Terms: cat, PXP: PXP{Reviews: []Review{{ClaimID: "w1", Verdict: VerdictChallenge}, {ClaimID: "w2", Verdict: VerdictAccept}}}}
	s.must(t, s.poster, rv)
	co2 := &TaskCounterOffer{InReplyTo: s.th.Current().Hash(), Terms: cat, PXP: PXP{DependsOn: []string{"w1"}}}
	counter2 := s.must(t, s.worker, co2)
	_, err = s.send(t, s.poster, s.accept(t, s.poster, counter2))
	if ee, ok = err.(*EscalationError); !ok {
		t.Fatalf("want depends_on_disputed, got %v", err)
	}
	s.at = s.at.Add(time.Second)
	_ = s.pm.Escalate(ee.Question, "", s.at)
	if _, err := s.pm.Answer(ee.Question, "Go ahead.", ViaMCP, s.at); err != nil {
		t.Fatal(err)
	}
	if err := s.pm.ConfirmAnswer(1); err != nil {
		t.Fatal(err)
	}
	s.must(t, s.poster, s.accept(t, s.poster, counter2))
	s.must(t, s.worker, s.accept(t, s.worker, counter2))
	if s.th.Agreement() == nil {
		t.Fatal("no agreement")
	}
	return s
}

// TestBriefDesignTest is PXP's design test, mechanically: every agreed term
// names its authority on each side; every assumption the agreement depends
// on is listed; the escalations show each answer and whether it was
// confirmed; the ledger head is there.
func TestBriefDesignTest(t *testing.T) {
	s := agreedPXP(t)
	head := LedgerHead{Seq: 42, Hash: HashOf([]byte("head"))}
	b, err := NewBrief(s.th, head, s.pm, s.wm)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Check(s.th); err != nil {
		t.Fatalf("design test: %v", err)
	}
	if len(b.Terms) == 0 || b.Agreement == nil || b.Ledger != head {
		t.Fatalf("brief: %+v", b)
	}
	for _, term := range b.Terms {
		sides := map[Address]bool{}
		for _, a := range term.Authority {
			if _, ok := map[Address]*Mandate{s.poster.addr: s.pm, s.worker.addr: s.wm}[a.Party].Card().Resolve(a.Ref); !ok {
				t.Errorf("term %s: %s names no clause of %s's card", term.Term, a.Ref, a.Principal)
			}
			sides[a.Party] = true
		}
		if len(sides) != 2 {
			t.Errorf("term %s: authority of %d sides", term.Term, len(sides))
		}
	}
	find := func(name string) BriefTerm {
		for _, x := range b.Terms {
			if x.Term == name {
				return x
			}
		}
		t.Fatalf("no term %s", name)
		return BriefTerm{}
	}
	if a := find("total").Authority; a[0].Ref != "may_agree_to[0]" || !a[0].Checked {
		t.Errorf("total rests on %+v", a)
	}
	if a := find("category").Authority; a[0].Ref != "amendments[0]" || a[0].Confirmed == nil || !*a[0].Confirmed {
		t.Errorf("category rests on %+v", a)
	}
	if len(b.Assumptions) != 1 || b.Assumptions[0].ID != "w1" || !strings.Contains(b.Assumptions[0].Why, "challenge") {
		t.Errorf("assumptions %+v", b.Assumptions)
	}
	if len(b.Unverified) != 1 || b.Unverified[0].ID != "w2" {
		t.Errorf("unverified %+v", b.Unverified)
	}
	if len(b.Escalations) != 2 || b.Escalations[1].Via != ViaMCP || !b.Escalations[1].Confirmed || b.Escalations[0].Amendment != "amendments[0]" {
		t.Errorf("escalations %+v", b.Escalations)
	}
	md := b.Markdown()
	for _, want := range []string{"The glossary is final", "Go ahead.", "confirmed with a passkey", head.Hash.String(), "may_agree_to[0]", "Dana", "Sam"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	js, err := b.JSON()
	if err != nil || !json.Valid(js) {
		t.Fatal(err)
	}

	// The check fails when the brief drops an assumption or an authority.
	dropped := *b
	dropped.Assumptions = nil
	if dropped.Check(s.th) == nil {
		t.Error("the design test passes a brief that drops an assumption")
	}
	noAuth := *b
	noAuth.Terms = append([]BriefTerm(nil), b.Terms...)
	noAuth.Terms[0].Authority = noAuth.Terms[0].Authority[:1]
	if noAuth.Check(s.th) == nil {
		t.Error("the design test passes a term without the other side's authority")
	}
}

// TestBriefWithoutAgreement: a brief of a negotiation that agreed nothing
// still lists its unverified claims and escalations.
func TestBriefWithoutAgreement(t *testing.T) {
	s := newPXP(t)
	p := &TaskProposal{Terms: terms(100)}
	p.Claims = []Claim{{ID: "p1", Text: "The guide is short", Origin: OriginAssumed}}
	s.must(t, s.poster, p)
	b, err := NewBrief(s.th, LedgerHead{}, s.pm)
	if err != nil {
		t.Fatal(err)
	}
	if b.Agreement != nil || len(b.Unverified) != 1 || b.Check(s.th) != nil {
		t.Fatalf("%+v", b)
	}
	if !strings.Contains(b.Markdown(), "Nothing was agreed.") {
		t.Fatal(b.Markdown())
	}
}
