package main

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// negAct describes a command that performs one act on a negotiation given
// as its one argument.
type negAct struct {
	use, short, long, example string
	// flags registers the act's own flags.
	flags func(cmd *cobra.Command)
	// args is the number of arguments after the negotiation (0 unless
	// set).
	args int
	// check validates the act's flags and arguments after the negotiation
	// before anything is sent.
	check func(args []string) error
	// do performs the act.
	do func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error)
}

// negActCmd builds the command of a negotiation act, with the connection
// and output flags; parent, when not nil, holds them as persistent flags.
func negActCmd(a negAct, parent *clientFlags) *cobra.Command {
	f := parent
	if f == nil {
		f = &clientFlags{}
	}
	cmd := &cobra.Command{
		Use: a.use, Short: a.short, Long: a.long, Example: a.example,
		Args: usageArgs(cobra.ExactArgs(1 + a.args)),
		RunE: func(cmd *cobra.Command, args []string) error {
			nid, err := parseNegArg(args[0])
			if err != nil {
				return err
			}
			if a.check != nil {
				if err := a.check(args[1:]); err != nil {
					return err
				}
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			r, err := s.act(nid, func(ctx context.Context) (node.ActResult, error) {
				return a.do(ctx, s.c, nid)
			})
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) { printAct(w, r) })
		},
	}
	if parent == nil {
		f.register(cmd.Flags())
	}
	f.registerAct(cmd.Flags())
	if a.flags != nil {
		a.flags(cmd)
	}
	return cmd
}

// mediaTypeOf guesses a file's media type from its name, else its bytes.
func mediaTypeOf(name string, data []byte) string {
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(data)
}

func newFundCmd() *cobra.Command {
	return negActCmd(negAct{
		use:   "fund NEGOTIATION",
		short: "Fund an agreed negotiation's escrow, as the poster (needs approval)",
		long: "Moves the agreed amount into the TaskRegistry (createTask with both parties' signatures) once\n" +
			"the operator approves; prints the transaction and its block. The negotiation is funded when the\n" +
			"chain's TaskCreated event is seen.",
		example: "  parley fund 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Fund(ctx, nid)
		},
	}, nil)
}

func newDeliverCmd() *cobra.Command {
	var (
		milestone         int
		file, media, note string
	)
	var data []byte
	return negActCmd(negAct{
		use:   "deliver NEGOTIATION --milestone N --file PATH",
		short: "Deliver a milestone, as the worker",
		long: "Delivers milestone N (0-based): the node stores the file under its CID, sends the poster a\n" +
			"DeliveryNotice naming it (the poster's node fetches the file and checks it against the CID), and\n" +
			"puts the CID on chain (submitProof).",
		example: "  parley deliver 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0 --file guide-part1.md\n" +
			"  parley deliver 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 1 --file guide.pdf --note \"final\"",
		flags: func(cmd *cobra.Command) {
			fs := cmd.Flags()
			fs.IntVar(&milestone, "milestone", 0, "the milestone delivered (0-based)")
			fs.StringVar(&file, "file", "", "the file delivered (required)")
			fs.StringVar(&media, "media-type", "", "the file's media type (default: from its name or its bytes)")
			fs.StringVar(&note, "note", "", "a note to the poster")
		},
		check: func([]string) (err error) {
			if milestone < 0 {
				return flagErr("milestone", fmt.Sprint(milestone), fmt.Errorf("milestones count from 0"))
			}
			if err := negotiation.CheckFileName(filepath.Base(file)); file != "" && err != nil {
				return flagErr("file", file, fmt.Errorf("the file's name is what the poster sees: %w", err))
			}
			data, err = readFileArg("file", file)
			return err
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			mt := media
			if mt == "" {
				mt = mediaTypeOf(file, data)
			}
			return c.Deliver(ctx, nid, node.DeliverySpec{Milestone: milestone, Name: filepath.Base(file), MediaType: mt, Data: data, Note: note})
		},
	}, nil)
}

func newAcceptDeliveryCmd() *cobra.Command {
	var (
		milestone int
		note      string
	)
	return negActCmd(negAct{
		use:   "accept-delivery NEGOTIATION --milestone N",
		short: "Accept a milestone's delivery and release its payment, as the poster (needs approval)",
		long: "Accepts milestone N's delivery once its files were fetched and checked: the node releases the\n" +
			"milestone on chain (the worker can then withdraw it) once the operator approves.",
		example: "  parley accept-delivery 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0\n" +
			"  parley accept-delivery 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 1 --note \"thanks, the glossary is complete\"",
		flags: func(cmd *cobra.Command) {
			cmd.Flags().IntVar(&milestone, "milestone", 0, "the milestone accepted (0-based)")
			cmd.Flags().StringVar(&note, "note", "", "a note to the worker, sent with the acceptance (approved with it)")
		},
		check: func([]string) error {
			if milestone < 0 {
				return flagErr("milestone", fmt.Sprint(milestone), fmt.Errorf("milestones count from 0"))
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.AcceptDeliveryWith(ctx, nid, node.AcceptDeliverySpec{Milestone: milestone, Note: note})
		},
	}, nil)
}

func newCancelCmd() *cobra.Command {
	var reason string
	return negActCmd(negAct{
		use:   "cancel NEGOTIATION --reason R",
		short: "Ask for, or agree to, a mutual cancel (needs approval)",
		long: "Signs a mutual cancel of the negotiation once the operator approves. A cancel takes effect\n" +
			"when both parties signed it; after funding, the escrow goes back to the poster.",
		example: "  parley cancel 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --reason \"the guide was withdrawn\"",
		flags: func(cmd *cobra.Command) {
			cmd.Flags().StringVar(&reason, "reason", "", "why (required)")
		},
		check: func([]string) error {
			if reason == "" {
				return usageErr(fmt.Errorf("--reason is required"))
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Cancel(ctx, nid, reason)
		},
	}, nil)
}

func newAmendCmd() *cobra.Command {
	var (
		milestones       []string
		deadline, reason string
		spec             node.AmendSpec
	)
	return negActCmd(negAct{
		use:   "amend NEGOTIATION [--milestone AMOUNT:DESCRIPTION... --deadline D] [--reason R]",
		short: "Propose or co-sign an amendment of a funded task's milestones and deadline (needs approval)",
		long: "Amends a funded task: the new milestones (all of them; a settled one cannot change) and deadline,\n" +
			"signed by both parties (EIP-712 Amendment). The first party proposes with --milestone and\n" +
			"--deadline; the other co-signs the same values, or gives neither to co-sign the pending amendment\n" +
			"as it stands. The poster's node then submits it, paying any rise of the escrow.",
		example: "  parley amend 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0.5eth:\"first half\" --milestone 0.5eth:\"second half, with the glossary\" \\\n" +
			"      --deadline 2026-08-01T12:00:00Z --reason \"the glossary was added\"\n" +
			"  parley amend 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b   # co-sign the other party's amendment",
		flags: func(cmd *cobra.Command) {
			fs := cmd.Flags()
			fs.StringArrayVar(&milestones, "milestone", nil, "a milestone AMOUNT:DESCRIPTION (repeat for each: the amendment lists all)")
			fs.StringVar(&deadline, "deadline", "", "the new deadline: a duration from now (72h, 3d) or an RFC 3339 time")
			fs.StringVar(&reason, "reason", "", "why (shown to the person approving)")
		},
		check: func([]string) (err error) {
			if (len(milestones) == 0) != (deadline == "") {
				return usageErr(fmt.Errorf("an amendment gives both --milestone (every milestone) and --deadline, or neither to co-sign the pending one"))
			}
			spec = node.AmendSpec{Reason: reason}
			if len(milestones) > 0 {
				if spec.Milestones, err = parseMilestones(milestones); err != nil {
					return err
				}
				if spec.Deadline, err = parseDeadline(deadline, time.Now()); err != nil {
					return err
				}
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Amend(ctx, nid, spec)
		},
	}, nil)
}

func newReplaceCmd() *cobra.Command {
	var (
		worker, summary string
		spec            node.ReplaceSpec
	)
	return negActCmd(negAct{
		use:   "replace NEGOTIATION [--worker 0x... --summary S]",
		short: "Propose or co-sign handing a funded task to a replacement worker (needs approval)",
		long: "Hands a funded task to a new worker: the first party makes the hand-over package (a proof bundle\n" +
			"of the thread so far), signs the EIP-712 Replacement and sends it to the other party and the new\n" +
			"worker; the other party checks the package and co-signs (give no --worker to co-sign the pending\n" +
			"replacement). The poster's node then submits it; the new worker joins from the package.",
		example: "  parley replace 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --worker 0x90F79bf6EB2c4f870365E785982E1f101E93b906 --summary \"milestone 0 done; 1 open\"\n" +
			"  parley replace 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b   # co-sign the other party's replacement",
		flags: func(cmd *cobra.Command) {
			cmd.Flags().StringVar(&worker, "worker", "", "the replacement worker's EVM address")
			cmd.Flags().StringVar(&summary, "summary", "", "what the new worker takes over")
		},
		check: func([]string) (err error) {
			spec = node.ReplaceSpec{Summary: summary}
			if worker != "" {
				spec.NewWorker, err = parseAddr("--worker", worker)
			}
			return err
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Replace(ctx, nid, spec)
		},
	}, nil)
}
