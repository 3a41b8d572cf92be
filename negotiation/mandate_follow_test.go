package negotiation

import "testing"

// TestMandateFollowsThread: the thread decides which envelopes take
// effect, and the receiver's mandate takes every one it took. A sender
// sends its assumption again with a source attached, then stated by its
// own principal (both allowed by the thread's claim rules); the
// receiver's mandate records each upgrade (s.send fails the test when
// Received refuses an envelope the thread took) and remembers the offer
// that carried it, so the receiver accepts that offer.
func TestMandateFollowsThread(t *testing.T) {
	s := newPXP(t)
	terms := func(amounts ...int64) Terms {
		tm := testTerms(amounts...)
		tm.Limits = &Limits{MaxRevisions: ptrInt(8)}
		return tm
	}
	offer := s.must(t, s.poster, &TaskProposal{Terms: terms(100, 200)})
	claim := Claim{ID: "w1", Text: "A specialist review takes five days", Origin: OriginAssumed}
	c1 := s.must(t, s.worker, &TaskCounterOffer{InReplyTo: offer.Hash(), Terms: terms(120, 200), PXP: PXP{Claims: []Claim{claim}}})
	c2 := s.must(t, s.poster, &TaskCounterOffer{InReplyTo: c1.Hash(), Terms: terms(110, 200),
		PXP: PXP{Reviews: []Review{{ClaimID: "w1", Verdict: VerdictAccept}}}})
	sourced := claim
	sourced.Origin, sourced.Ref = OriginSourced, "https://example.org/review-times"
	c3 := s.must(t, s.worker, &TaskCounterOffer{InReplyTo: c2.Hash(), Terms: terms(115, 200), PXP: PXP{Claims: []Claim{sourced}}})
	if r, ok := s.pm.Claim("w1"); !ok || r.Origin != OriginSourced || r.Ref != sourced.Ref || !s.pm.Verified("w1") {
		t.Fatalf("the poster's record of the sourced claim: %+v", r)
	}
	c4 := s.must(t, s.poster, &TaskCounterOffer{InReplyTo: c3.Hash(), Terms: terms(112, 200)})
	stated := claim
	stated.Origin, stated.Ref = OriginStated, "must_haves[0]"
	c5 := s.must(t, s.worker, &TaskCounterOffer{InReplyTo: c4.Hash(), Terms: terms(113, 200), PXP: PXP{Claims: []Claim{stated}}})
	if r, ok := s.pm.Claim("w1"); !ok || r.Origin != OriginStated || r.Ref != "must_haves[0]" || r.Ours || r.By != s.worker.addr {
		t.Fatalf("the poster's record of the stated claim: %+v", r)
	}
	acc := &TaskAcceptance{AcceptedOfferHash: c5.Hash()}
	s.pm.Stamp(acc)
	if err := s.pm.Outgoing(acc, nil, s.at); err != nil {
		t.Fatalf("the poster's mandate refuses to accept the counter that stated the claim: %v", err)
	}
}
