package negotiation

import "testing"

// TestMandateStampsPrincipal: Stamp puts the card's hash and its
// principal's display name in every payload (PXP section 1: what other
// parties see of the card); an envelope naming another principal is
// card_mismatch; a brief made without the other side's mandate names its
// principal from its envelopes.
func TestMandateStampsPrincipal(t *testing.T) {
	s := newPXP(t)
	p := &TaskProposal{Terms: terms(100, 200)}
	s.pm.Stamp(p)
	if p.Principal != "Dana" || p.IntentCardHash == nil || *p.IntentCardHash != s.pm.CardHash() {
		t.Fatalf("stamped: principal %q, card %v", p.Principal, p.IntentCardHash)
	}
	p.Principal = "Mallory"
	if err := s.pm.Outgoing(p, nil, t0); CodeOf(err) != CodeCardMismatch {
		t.Fatalf("another principal's name: %v", err)
	}
	offer := s.must(t, s.poster, &TaskProposal{Terms: terms(100, 200)})
	s.must(t, s.poster, s.accept(t, s.poster, offer))
	s.must(t, s.worker, s.accept(t, s.worker, offer))
	b, err := NewBrief(s.th, LedgerHead{}, s.pm)
	if err != nil {
		t.Fatal(err)
	}
	names := map[Role]string{}
	for _, party := range b.Parties {
		names[party.Role] = party.Principal
	}
	if names[RolePoster] != "Dana" || names[RoleWorker] != "Sam" {
		t.Fatalf("the poster's brief names %v", names)
	}
}
