package negotiation

import (
	"errors"
	"testing"
)

// TestViaAPI: an answer that arrived through the node's API is an
// agent's (via api), as one over MCP is: a card may carry it (the schema
// and Validate accept it), and an answer sealed with it is unconfirmed
// until ConfirmAnswer. Only web is the principal's confirmed word.
func TestViaAPI(t *testing.T) {
	for _, c := range []struct {
		v              Via
		valid, relayed bool
	}{{ViaWeb, true, false}, {ViaAPI, true, true}, {ViaMCP, true, true}, {"", false, false}, {"WEB", false, false}, {"fax", false, false}} {
		if c.v.Valid() != c.valid || c.v.Relayed() != c.relayed {
			t.Fatalf("%q: valid %v relayed %v", c.v, c.v.Valid(), c.v.Relayed())
		}
	}
	c := mustCard(t, readCard(t, "valid/reference-v0.json"))
	n, err := c.WithAmendment(CardAmendment{Question: "Accept 1.5 ETH?", Answer: "Yes.", At: FormatTime(t0), Via: ViaAPI})
	if err != nil || n.Amendments[0].Via != ViaAPI {
		t.Fatalf("a card amended via api: %v", err)
	}

	s := newPXP(t)
	cat := terms(100, 200)
	cat.Category = "legal"
	_, err = s.send(t, s.poster, &TaskProposal{Terms: cat})
	var ee *EscalationError
	if !errors.As(err, &ee) {
		t.Fatalf("want an escalation, got %v", err)
	}
	if err := s.pm.Escalate(ee.Question, "", s.at); err != nil {
		t.Fatal(err)
	}
	a, err := s.pm.Answer(ee.Question, "Yes, legal is fine.", ViaAPI, s.at)
	if err != nil || a.Confirmed || a.Via != ViaAPI {
		t.Fatalf("an answer via api: %+v %v", a, err)
	}
	_, err = s.send(t, s.poster, &TaskProposal{Terms: cat})
	wantCode(t, err, CodeAnswerUnconfirmed)
	if err := s.pm.ConfirmAnswer(0); err != nil {
		t.Fatal(err)
	}
	s.must(t, s.poster, &TaskProposal{Terms: cat})
}
