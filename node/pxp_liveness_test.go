package node_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// TestPXPUpgradedClaimStaysAcceptable: the worker sends an assumption,
// then, in its next counter-offer, the same claim stated by its principal
// (its card's must-have). The thread takes that envelope (a sender may
// have its principal state its own claim), so the poster's mandate must
// take it too: the poster then accepts the counter-offer that carried it,
// and both sides agree. Before the thread and the mandate agreed, the
// mandate refused the envelope, the node only logged it, and the poster's
// acceptance failed with bad_reference (unknown offer).
func TestPXPUpgradedClaimStaysAcceptable(t *testing.T) {
	p := newPXPPair(t)
	claim := negotiation.Claim{ID: "w1", Text: "The translator needs at least 0.3 ETH", Origin: negotiation.OriginAssumed}
	if _, err := p.worker.Counter(t.Context(), p.nid, node.CounterSpec{
		Description: "both chapters", PXPFields: node.PXPFields{Claims: []negotiation.Claim{claim}},
	}); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateCountered)
	if _, err := p.poster.Counter(t.Context(), p.nid, node.CounterSpec{
		Description: "both chapters, glossary in English",
		PXPFields:   node.PXPFields{Reviews: []negotiation.Review{{ClaimID: "w1", Verdict: negotiation.VerdictAccept, Note: "0.3 ETH is within the budget"}}},
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster's counter at the worker", func() bool {
		v, _ := p.worker.Thread(p.nid)
		return len(v.Log) == 3
	})
	stated := claim
	stated.Origin, stated.Ref = negotiation.OriginStated, "must_haves[0]"
	res, err := p.worker.Counter(t.Context(), p.nid, node.CounterSpec{
		Description: "both chapters, glossary in English, by the deadline",
		PXPFields:   node.PXPFields{Claims: []negotiation.Claim{stated}},
	})
	if err != nil {
		t.Fatal(err)
	}
	upgraded := res.Envelope.Hash
	eventually(t, "the worker's upgraded claim at the poster", func() bool {
		v, _ := p.poster.Thread(p.nid)
		return len(v.Log) == 4
	})
	v, err := p.poster.Thread(p.nid)
	if err != nil {
		t.Fatal(err)
	}
	if last := v.Log[3]; last.Hash != upgraded || last.Code != "ok" || v.Current == nil || v.Current.Hash != upgraded {
		t.Fatalf("the poster's thread did not take the upgraded claim's counter: %+v, current %+v", last, v.Current)
	}
	room, err := p.poster.Room(t.Context(), p.nid)
	if err != nil {
		t.Fatal(err)
	}
	if room.Current == nil || room.Current.Hash != upgraded {
		t.Fatalf("the poster's room does not show the upgraded counter as the offer on the table: %+v", room.Current)
	}
	if _, err := p.poster.Accept(t.Context(), p.nid); err != nil {
		t.Fatalf("the poster cannot accept the counter that stated the claim: %v", err)
	}
	eventually(t, "the poster's acceptance at the worker", func() bool {
		v, _ := p.worker.Thread(p.nid)
		return len(v.Log) == 5
	})
	if _, err := p.worker.Accept(t.Context(), p.nid); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateAgreed)
}

// TestPXPCounterpartPrincipalTravels: every envelope a node sends under a
// card carries its principal's display name beside the card's hash (PXP
// section 1: what the other parties see of the card), so each side's room
// names the other side's principal and each side's brief names both.
func TestPXPCounterpartPrincipalTravels(t *testing.T) {
	p := newPXPPair(t)
	room, err := p.worker.Room(t.Context(), p.nid)
	if err != nil {
		t.Fatal(err)
	}
	if room.CounterpartPrincipal != "Dana" || room.Principal != "Sam" {
		t.Fatalf("the worker's room: principal %q, counterpart's %q", room.Principal, room.CounterpartPrincipal)
	}
	if _, err := p.worker.Counter(t.Context(), p.nid, node.CounterSpec{Description: "both chapters"}); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateCountered)
	if room, err = p.poster.Room(t.Context(), p.nid); err != nil {
		t.Fatal(err)
	}
	if room.CounterpartPrincipal != "Sam" || room.Principal != "Dana" {
		t.Fatalf("the poster's room: principal %q, counterpart's %q", room.Principal, room.CounterpartPrincipal)
	}
	if _, err := p.poster.Accept(t.Context(), p.nid); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poster's acceptance at the worker", func() bool {
		v, _ := p.worker.Thread(p.nid)
		return len(v.Log) == 3
	})
	if _, err := p.worker.Accept(t.Context(), p.nid); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateAgreed)
	p.worker.waitState(p.nid, negotiation.StateAgreed)
	for _, n := range []*tnode{p.poster, p.worker} {
		for _, e := range envelopes(t, n, p.nid) {
			want := map[negotiation.Address]string{p.poster.Address(): "Dana", p.worker.Address(): "Sam"}[e.Sender.EVMAddress]
			if got := e.Payload.Proxy().Principal; got != want {
				t.Fatalf("%s: a %s carries principal %q, want %q", n.name, e.Type, got, want)
			}
		}
		b, err := n.Brief(t.Context(), p.nid)
		if err != nil {
			t.Fatal(err)
		}
		var brief negotiation.Brief
		if err := json.Unmarshal(b.JSON, &brief); err != nil {
			t.Fatal(err)
		}
		names := map[negotiation.Role]string{}
		for _, party := range brief.Parties {
			names[party.Role] = party.Principal
		}
		if names[negotiation.RolePoster] != "Dana" || names[negotiation.RoleWorker] != "Sam" {
			t.Fatalf("%s's brief names the principals %v", n.name, names)
		}
		if !strings.Contains(b.Markdown, "Dana") || !strings.Contains(b.Markdown, "Sam") {
			t.Fatalf("%s's brief in Markdown does not name both principals:\n%s", n.name, b.Markdown)
		}
	}
}

// TestPXPAnnouncementNamesItsPrincipal: an announcement made under a card
// carries its principal's display name; the worker's board shows it, and
// so does the room of the negotiation the worker opens on it before the
// poster has said anything there.
func TestPXPAnnouncementNamesItsPrincipal(t *testing.T) {
	p := newPXPPair(t)
	ann, err := p.poster.PostTask(t.Context(), spec("Translate the release notes", eth(300)))
	if err != nil {
		t.Fatal(err)
	}
	var seen node.Announcement
	eventually(t, "the announcement on the worker's board", func() bool {
		for _, a := range p.worker.Board() {
			if a.Hash == ann.Hash {
				seen = a
				return true
			}
		}
		return false
	})
	if seen.Principal != "Dana" || ann.Principal != "Dana" {
		t.Fatalf("the announcement names the principal %q on the worker's board, %q on the poster's", seen.Principal, ann.Principal)
	}
	res, err := p.worker.CounterAnnouncement(t.Context(), ann.Hash, node.CounterSpec{Description: "with the changelog"})
	if err != nil {
		t.Fatal(err)
	}
	room, err := p.worker.Room(t.Context(), res.Thread.NegotiationID)
	if err != nil {
		t.Fatal(err)
	}
	if room.CounterpartPrincipal != "Dana" {
		t.Fatalf("the worker's room on the announcement names %q", room.CounterpartPrincipal)
	}
}
