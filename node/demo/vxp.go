package demo

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// OutsideAgent plays an outside AI agent, running no Parley code, that
// answers the offer of negotiation nid for the worker's principal through
// the worker's VXP endpoint (docs/vxp.md): the principal grants it
// offer.respond on that negotiation with a passkey, it counters the offer
// and its accept of the counter-offer waits for the principal's passkey.
// Story prints its lines. It returns once the agent ended, nil when every
// step happened.
type OutsideAgent func(ctx context.Context, nid string, story Story) error

// Story is how an OutsideAgent tells its steps: Line is a numbered step
// (what was done, the message or code it made, a reference, a note) and
// Printf an indented detail.
type Story interface {
	Line(desc, what, ref, note string)
	Printf(format string, args ...any)
}

// Line prints a numbered step of the story.
func (s *story) Line(desc, what, ref, note string) { s.line(desc, what, ref, note) }

// Printf prints a detail of the story.
func (s *story) Printf(format string, args ...any) { s.printf(format, args...) }

// task3 has the poster propose a task to the worker, whose principal's
// outside agent answers it through VXP (Options.OutsideAgent): a counter
// the poster then holds, and the worker's acceptance of it, signed once
// the principal's passkey approved; the poster signs the same digest.
func (s *story) task3() error {
	if s.opts.OutsideAgent == nil {
		s.printf("\nTask 3 (an outside agent through VXP) skipped: %s\n", s.opts.OutsideAgentSkipped)
		return nil
	}
	s.printf("\nTask 3: an outside AI agent answers an offer through VXP\n")
	res, err := s.poster.API.ProposeTask(s.ctx, s.worker.addr, node.TaskSpec{
		Title: "Translate the release notes into Spanish", Category: "translation",
		Milestones: []node.MilestoneSpec{{Amount: milli(200), Description: "chapter 1"}, {Amount: milli(100), Description: "chapter 2"}},
		Deadline:   time.Now().Add(48 * time.Hour).Truncate(time.Second),
	})
	if err != nil {
		return s.failed("propose task 3", err)
	}
	nid := res.Thread.NegotiationID
	s.act("poster proposes task 3 to the worker directly", res)
	if _, err := s.state(s.worker, nid, negotiation.StateProposed); err != nil {
		return err
	}
	if err := s.opts.OutsideAgent(s.ctx, nid, s); err != nil {
		return fmt.Errorf("demo: the outside agent: %w", err)
	}
	// The agent's counter and the worker's acceptance of it reached the
	// poster: it signs the same digest.
	v, err := s.state(s.poster, nid, negotiation.StateCountered)
	if err != nil {
		return err
	}
	if v.Current == nil || v.Current.By != s.worker.addr || !slices.ContainsFunc(v.Log, func(r node.RecordView) bool {
		return r.Type == negotiation.TypeTaskAcceptance && r.Sender == s.worker.addr
	}) {
		return fmt.Errorf("demo: the poster does not hold the worker's counter-offer and acceptance the agent made")
	}
	total := new(big.Int)
	for _, m := range v.Current.Terms.Milestones {
		total.Add(total, m.Amount.Big())
	}
	s.printf("    the poster holds the worker's counter-offer of %.4f ETH and its signature\n", eth(total))
	if res, err = s.gated(s.poster, node.ActSignSettlement, nid, func() (node.ActResult, error) { return s.poster.API.Accept(s.ctx, nid) }); err != nil {
		return s.failed("poster accepts task 3", err)
	}
	s.act("poster signs the same digest", res)
	if _, err := s.state(s.worker, nid, negotiation.StateAgreed); err != nil {
		return err
	}
	return nil
}
