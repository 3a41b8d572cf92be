package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

func newDisputeCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "dispute",
		Short: "Open a dispute, submit evidence, agree on an arbitrator, rule",
		Long: "Disputes of a funded negotiation. A party opens one (posting the bond); each party names the\n" +
			"arbitrator it accepts, and the arbitrator is assigned once both named the same one; both submit\n" +
			"evidence, which the arbitrator reads on the dispute's sealed topic; the arbitrator rules.",
	}
	f.register(cmd.PersistentFlags())
	var (
		file, media, description string
		reason, inReplyTo        string
		replyTo                  *negotiation.Hash
		data                     []byte
		arbitrator               negotiation.Address
		bps                      int
		refuse                   bool
		ruleCmd                  *cobra.Command
	)
	open := negActCmd(negAct{
		use:     "open NEGOTIATION",
		short:   "Open a dispute on a funded negotiation; posts the bond (needs approval)",
		example: "  parley dispute open 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Dispute(ctx, nid)
		},
	}, &f)
	evidence := negActCmd(negAct{
		use:   "evidence NEGOTIATION --file PATH --description TEXT",
		short: "Submit an evidence file to a dispute",
		long: "Stores the file under its CID, sends it sealed to the other party and the arbitrator (and on the\n" +
			"dispute's evidence topic), and adds the CID to the dispute on chain. Not gated: it moves no money.",
		example: "  parley dispute evidence 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --file review.md --description \"the reviewer's notes\"\n" +
			"  parley dispute evidence 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --file letters.txt --description \"the agreed scope\" \\\n" +
			"      --in-reply-to 0x3759e7f2af5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d",
		flags: func(cmd *cobra.Command) {
			fs := cmd.Flags()
			fs.StringVar(&inReplyTo, "in-reply-to", "", "the envelope hash of the thread this evidence answers (the other party's evidence)")
			fs.StringVar(&file, "file", "", "the evidence file (required)")
			fs.StringVar(&media, "media-type", "", "the file's media type (default: from its name or its bytes)")
			fs.StringVar(&description, "description", "", "what the file shows (required)")
		},
		check: func([]string) (err error) {
			if description == "" {
				return usageErr(fmt.Errorf("--description is required"))
			}
			if inReplyTo != "" {
				h, err := parseHashArg("--in-reply-to", inReplyTo)
				if err != nil {
					return err
				}
				replyTo = &h
			}
			if err := negotiation.CheckFileName(filepath.Base(file)); file != "" && err != nil {
				return flagErr("file", file, fmt.Errorf("the file's name is what the other party and the arbitrator see: %w", err))
			}
			data, err = readFileArg("file", file)
			return err
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			mt := media
			if mt == "" {
				mt = mediaTypeOf(file, data)
			}
			return c.Evidence(ctx, nid, node.EvidenceSpec{Name: filepath.Base(file), MediaType: mt, Data: data, Description: description, InReplyTo: replyTo})
		},
	}, &f)
	propose := negActCmd(negAct{
		use:   "propose-arbitrator NEGOTIATION 0xADDRESS",
		short: "Name the arbitrator this side accepts (needs approval)",
		long: "Names the arbitrator this side accepts for the negotiation's dispute; the arbitrator is assigned\n" +
			"once both parties named the same address, and is then handed the thread's proof bundle.",
		example: "  parley dispute propose-arbitrator 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b 0x90F79bf6EB2c4f870365E785982E1f101E93b906 \\\n" +
			"      --reason \"a translator both of us have worked with\"",
		args: 1,
		flags: func(cmd *cobra.Command) {
			cmd.Flags().StringVar(&reason, "reason", "", "why this side names the arbitrator (sent with the proposal, approved with it)")
		},
		check: func(args []string) (err error) {
			arbitrator, err = parseAddr("arbitrator", args[0])
			return err
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.ProposeArbitratorWith(ctx, nid, node.ArbitratorSpec{Arbitrator: arbitrator, Reason: reason})
		},
	}, &f)
	rule := negActCmd(negAct{
		use:   "rule NEGOTIATION --worker-bps BPS | --refuse",
		short: "Rule on a dispute, as its arbitrator (needs approval)",
		long: "Gives the arbitrator's ruling: --worker-bps B gives the worker B basis points of the escrow\n" +
			"(0..10000; the rest goes back to the poster), sent on chain as ruling B+1; --refuse refuses to rule\n" +
			"(ruling 0).",
		example: "  parley dispute rule 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --worker-bps 7000\n" +
			"  parley dispute rule 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --refuse",
		flags: func(cmd *cobra.Command) {
			ruleCmd = cmd
			cmd.Flags().IntVar(&bps, "worker-bps", 0, "basis points of the escrow to the worker, 0..10000")
			cmd.Flags().BoolVar(&refuse, "refuse", false, "refuse to rule (ruling 0)")
		},
		check: func([]string) error {
			given := ruleCmd.Flags().Changed("worker-bps")
			switch {
			case refuse && given:
				return usageErr(fmt.Errorf("give --worker-bps or --refuse, not both"))
			case !refuse && !given:
				return usageErr(fmt.Errorf("give --worker-bps BPS (0..10000) or --refuse"))
			case bps < 0 || bps > 10000:
				return flagErr("worker-bps", fmt.Sprint(bps), fmt.Errorf("basis points run from 0 to 10000"))
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Rule(ctx, nid, rulingOf(bps, refuse))
		},
	}, &f)
	cmd.AddCommand(open, evidence, propose, rule, newDisputeRaiseCmd(&f), newDisputeCourtCmd(&f)) // court.go
	return cmd
}

// rulingOf maps the rule command's flags to the contract's ruling: 0
// refuses, bps+1 gives the worker bps basis points.
func rulingOf(bps int, refuse bool) uint64 {
	if refuse {
		return 0
	}
	return uint64(bps) + 1
}
