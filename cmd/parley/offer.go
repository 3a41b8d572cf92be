package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node"
)

func newOfferCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "offer",
		Short: "Counter or accept an offer: an announcement's or a negotiation's current one",
		Long: "Answers an offer. The argument picks what is answered: an announcement hash (0x and 64 hex\n" +
			"digits) opens a new negotiation with the announcement's poster; a negotiation id (a UUID)\n" +
			"answers that negotiation's current offer.",
	}
	f.register(cmd.PersistentFlags())
	cmd.AddCommand(newOfferCounterCmd(&f), newOfferAcceptCmd(&f))
	return cmd
}

func newOfferCounterCmd(f *clientFlags) *cobra.Command {
	var (
		milestones                           []string
		deadline, reason, title, description string
		supervisor                           string
	)
	cmd := &cobra.Command{
		Use:   "counter NEGOTIATION|ANNOUNCEMENT [--milestone AMOUNT:DESCRIPTION...] [--deadline D] [--reason R]",
		Short: "Answer an offer with new terms",
		Long: "Sends a counter-offer: the current terms with the flags given changed (milestones replace all\n" +
			"milestones; what is not given is kept). Countering an announcement opens a negotiation and prints it.",
		Example: "  parley offer counter 0x5c0e...e1a9 --milestone 0.4eth:\"first half\" --milestone 0.4eth:\"second half\" --reason \"two weeks, not three\"\n" +
			"  parley offer counter 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --deadline 5d --reason \"more time\"",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			nid, ann, isAnn, err := negOrAnnouncement(args[0])
			if err != nil {
				return err
			}
			spec := node.CounterSpec{Title: title, Description: description, Reason: reason}
			if spec.Supervisor, err = parseSupervisor(supervisor); err != nil {
				return err
			}
			if len(milestones) > 0 {
				if spec.Milestones, err = parseMilestones(milestones); err != nil {
					return err
				}
			}
			if deadline != "" {
				if spec.Deadline, err = parseDeadline(deadline, time.Now()); err != nil {
					return err
				}
			}
			if len(spec.Milestones) == 0 && deadline == "" && title == "" && description == "" {
				return usageErr(fmt.Errorf("a counter-offer changes something: give --milestone, --deadline, --title or --description"))
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			r, err := s.act(nid, func(ctx context.Context) (node.ActResult, error) {
				if isAnn {
					return s.c.CounterTask(ctx, ann, spec)
				}
				return s.c.Counter(ctx, nid, spec)
			})
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) { printAct(w, r) })
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&milestones, "milestone", nil, "a milestone AMOUNT:DESCRIPTION (repeat for each; replaces all milestones)")
	fs.StringVar(&deadline, "deadline", "", "new deadline: a duration from now (72h, 3d) or an RFC 3339 time")
	fs.StringVar(&title, "title", "", "new title")
	fs.StringVar(&description, "description", "", "new description")
	fs.StringVar(&reason, "reason", "", "why (travels in the counter-offer)")
	supervisorFlag(fs, &supervisor)
	f.registerAct(fs)
	return cmd
}

func newOfferAcceptCmd(f *clientFlags) *cobra.Command {
	var supervisor string
	cmd := &cobra.Command{
		Use:   "accept NEGOTIATION|ANNOUNCEMENT",
		Short: "Accept an offer: sign its settlement digest (needs approval)",
		Long: "Accepts the current offer of a negotiation, or an announcement's terms as they are (which opens a\n" +
			"negotiation): the node signs the EIP-712 settlement digest once the operator approves. The\n" +
			"command waits for the approval and prints where to give it. Both parties' acceptances of the\n" +
			"same offer make the agreement.",
		Example: "  parley offer accept 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b\n" +
			"  parley offer accept 0x5c0e...e1a9 --json",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			nid, ann, isAnn, err := negOrAnnouncement(args[0])
			if err != nil {
				return err
			}
			sup, err := parseSupervisor(supervisor)
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			r, err := s.act(nid, func(ctx context.Context) (node.ActResult, error) {
				switch {
				case sup != nil && isAnn:
					return s.c.AcceptTaskWith(ctx, ann, node.AcceptSpec{Supervisor: sup})
				case sup != nil:
					return s.c.AcceptWith(ctx, nid, node.AcceptSpec{Supervisor: sup})
				case isAnn:
					return s.c.AcceptTask(ctx, ann)
				}
				return s.c.Accept(ctx, nid)
			})
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) { printAct(w, r) })
		},
	}
	supervisorFlag(cmd.Flags(), &supervisor)
	f.registerAct(cmd.Flags())
	return cmd
}
