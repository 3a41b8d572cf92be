package node

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// The cards of this test: the poster's hard limit, the worker's floor.
const (
	svcPosterCard = `{"pxp":"0","principal":{"name":"Dana","role":"buyer"},"goal":"Get the user guide translated.",
 "must_never":[{"text":"pay more than 0.55 ETH in total","rule":"total > eth(\"0.55\")"}]}`
	svcWorkerCard = `{"pxp":"0","principal":{"name":"Sam","role":"translator"},"goal":"Win translation work.",
 "must_haves":[{"text":"at least 0.3 ETH","rule":"total >= eth(\"0.3\")"}]}`
)

// TestPXPServiceStandsAlone: the PXP service works from what its config
// gives it, without a Node: a card sealed via api is confirmed through
// authorize (its draft shown while it waits, gone after) and recorded
// through write before it is in force; a card via web asks nothing; the
// default card stamps an announcement and refuses one outside it.
func TestPXPServiceStandsAlone(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	var written [][]string
	var asked []Act
	var s *pxpService
	s = newPXPService(pxpConfig{
		eng: engine.New(engine.Config{Now: now}), now: now, log: slog.New(slog.DiscardHandler),
		events: newBroadcaster(), out: newRefusals(now, newBroadcaster()),
		write: func(_ context.Context, b *batch, _ string) error {
			var kinds []string
			for _, r := range b.Records() {
				kinds = append(kinds, r.Kind)
			}
			written = append(written, kinds)
			return nil
		},
		send: func(context.Context, *thread, negotiation.Payload, []negotiation.Address) error {
			return errors.New("no send in this test")
		},
		authorize: func(_ context.Context, act Act, _ string, args map[string]any, _, _ string) (approval.IntentRequest, error) {
			asked = append(asked, act)
			h, _ := args["cardHash"].(string)
			if s.draftOf(h) == nil {
				t.Errorf("the card waiting for %s is not shown as a draft", act)
			}
			if _, err := s.defaultCard(); CodeOf(err) != CodeNoCard {
				t.Errorf("the card is in force before it is confirmed: %v", err)
			}
			return approval.IntentRequest{}, nil
		},
		spawn: func(func(context.Context)) { t.Error("nothing to spawn") },
	})
	self := negotiation.Address{1}
	s.start(nil, self, slog.New(slog.DiscardHandler))

	if _, err := s.defaultCard(); CodeOf(err) != CodeNoCard {
		t.Fatalf("no card sealed: %v, want %s", err, CodeNoCard)
	}
	p := &negotiation.TaskProposal{Terms: negotiation.Terms{Title: "guide"}}
	if err := s.announcementCard(p, now()); err != nil || p.IntentCardHash != nil {
		t.Fatalf("an announcement without a card: %v, card %v", err, p.IntentCardHash)
	}

	info, err := s.sealDefault(context.Background(), []byte(svcPosterCard), negotiation.ViaAPI)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{KindPXPObject, "card.sealed"}}
	if !slices.Equal(asked, []Act{ActConfirmCard}) || len(written) != 1 || !slices.Equal(written[0], want[0]) {
		t.Fatalf("sealing via api asked %v and wrote %v, want [%s] and %v", asked, written, ActConfirmCard, want)
	}
	if s.draftOf(info.Hash.String()) != nil {
		t.Fatal("the draft outlives its confirmation")
	}
	if got, err := s.defaultCard(); err != nil || got.Hash != info.Hash {
		t.Fatalf("the default card is %v (%v), want %s", got.Hash, err, info.Hash)
	}

	asked = nil
	if _, err := s.sealDefault(context.Background(), []byte(svcWorkerCard), negotiation.ViaWeb); err != nil || len(asked) != 0 {
		t.Fatalf("sealing via web (the pages, after the passkey): %v, asked %v", err, asked)
	}
	worker, err := s.defaultCard()
	if err != nil || worker.Principal != "Sam" {
		t.Fatalf("the default card after the second seal: %+v (%v)", worker, err)
	}
	p = &negotiation.TaskProposal{Terms: negotiation.Terms{Title: "guide"}}
	if err := s.announcementCard(p, now()); CodeOf(err) != Code(negotiation.CodeEscalationRequired) {
		t.Fatalf("an announcement outside the card (no pay at all): %v, want %s", err, negotiation.CodeEscalationRequired)
	}
	if p.IntentCardHash == nil || *p.IntentCardHash != worker.Hash {
		t.Fatalf("the announcement carries card %v, want %s", p.IntentCardHash, worker.Hash)
	}
}
