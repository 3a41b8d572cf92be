package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// The commands of issue 14's acts: a worker's capability proofs, the
// poster's revision requests, the worker's payment requests and the
// poster's partial releases.

func newCapabilityCmd() *cobra.Command {
	var (
		capability, kind, description, ref, file, media, c, attester, signature string
		spec                                                                    node.CapabilitySpec
	)
	return negActCmd(negAct{
		use:   "capability NEGOTIATION --capability C --kind K --description D [--file PATH | --cid CID] [--ref URL] [--attester 0x... --signature 0x...]",
		short: "Attach a capability proof, as the worker",
		long: "Sends the poster a CapabilityProof: a file (stored here under its CID; the poster's node fetches it\n" +
			"over the blob protocol and checks it against the CID), or the CID of a file this node holds, and/or an\n" +
			"attestation: another address's EIP-191 signature (personal_sign) over the text\n" +
			"  Parley capability attestation\\nsubject: <this node's address>\\ncapability: <C>\\nstatement: <D>\n" +
			"which this node verifies before sending it. The poster's thread view and its brief say which proofs\n" +
			"were checked.",
		example: "  parley capability 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --capability translation:en-de --kind portfolio \\\n" +
			"      --description \"120 manuals EN to DE since 2019\" --file portfolio.pdf --ref https://portfolio.example.net/en-de\n" +
			"  parley capability 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --capability translation:en-de --kind attestation \\\n" +
			"      --description \"translated our manuals\" --attester 0x90F79bf6EB2c4f870365E785982E1f101E93b906 --signature 0x5c1f...1b",
		flags: func(cmd *cobra.Command) {
			fs := cmd.Flags()
			fs.StringVar(&capability, "capability", "", "the domain proved (required)")
			fs.StringVar(&kind, "kind", "", "what the proof is: portfolio, certificate, attestation, ... (required)")
			fs.StringVar(&description, "description", "", "what the proof shows (an attestation signs it)")
			fs.StringVar(&ref, "ref", "", "a further reference, shown but not checked")
			fs.StringVar(&file, "file", "", "a file to attach: the poster's node fetches and checks it")
			fs.StringVar(&media, "media-type", "", "the file's media type (default: from its name or its bytes)")
			fs.StringVar(&c, "cid", "", "the CID of a file this node stored in this negotiation, instead of --file")
			fs.StringVar(&attester, "attester", "", "the attester's EVM address")
			fs.StringVar(&signature, "signature", "", "the attester's EIP-191 signature, 0x and 130 hex digits")
		},
		check: func([]string) (err error) {
			if capability == "" || kind == "" {
				return usageErr(fmt.Errorf("--capability and --kind are required"))
			}
			if (attester == "") != (signature == "") {
				return usageErr(fmt.Errorf("an attestation gives --attester and --signature together"))
			}
			spec = node.CapabilitySpec{Capability: capability, Kind: kind, Description: description, Ref: ref, CID: negotiation.CID(c)}
			if file != "" {
				if err := negotiation.CheckFileName(filepath.Base(file)); err != nil {
					return flagErr("file", file, err)
				}
				if spec.Data, err = readFileArg("file", file); err != nil {
					return err
				}
				spec.Name, spec.MediaType = filepath.Base(file), media
				if media == "" {
					spec.MediaType = mediaTypeOf(file, spec.Data)
				}
			}
			if attester != "" {
				a, err := parseAddr("--attester", attester)
				if err != nil {
					return err
				}
				spec.Attester = &a
				if err := spec.Signature.UnmarshalText([]byte(signature)); err != nil {
					return flagErr("signature", signature, err)
				}
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Capability(ctx, nid, spec)
		},
	}, nil)
}

func newRevisionCmd() *cobra.Command {
	var (
		milestone int
		reason    string
	)
	return negActCmd(negAct{
		use:   "revision NEGOTIATION --milestone N --reason R",
		short: "Send a delivered milestone back to work, as the poster (needs approval)",
		long: "Asks the worker to revise milestone N's delivery once the operator approves: on chain\n" +
			"(requestRevision) the milestone's review clock stops, so the worker can no longer claim the\n" +
			"delivery unanswered, and a RevisionRequest tells the worker what to change. Both threads show\n" +
			"the milestone back at work until the worker delivers again. Refused on chain once the delivery's\n" +
			"review period is over, and after three revisions of a milestone.",
		example: "  parley revision 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0 --reason \"use the glossary's terms\"",
		flags: func(cmd *cobra.Command) {
			cmd.Flags().IntVar(&milestone, "milestone", 0, "the delivered milestone (0-based)")
			cmd.Flags().StringVar(&reason, "reason", "", "what to change (required)")
		},
		check: func([]string) error {
			if milestone < 0 {
				return flagErr("milestone", fmt.Sprint(milestone), fmt.Errorf("milestones count from 0"))
			}
			if reason == "" {
				return usageErr(fmt.Errorf("--reason is required"))
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.RequestRevision(ctx, nid, node.RevisionSpec{Milestone: milestone, Reason: reason})
		},
	}, nil)
}

func newPaymentCmd() *cobra.Command {
	var (
		milestone        int
		units            uint64
		basis, amt       string
		note             string
		request          string
		releaseMilestone int
		spec             node.PaymentSpec
		rel              node.ReleasePartSpec
	)
	cmd := &cobra.Command{
		Use:   "payment",
		Short: "Ask for, or release, part of a milestone (hours worked, a stream's units)",
		Long: "A worker asks for part of a funded milestone (request); the poster's node shows the request,\n" +
			"and the poster releases it on chain once the operator approves (release). Requests are paid in\n" +
			"order; a milestone's released total and pending requests never exceed it.",
		Example: "  parley payment request 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0 --basis hourly --units 3 --amount 0.12eth\n" +
			"  parley payment release 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0",
	}
	f := &clientFlags{}
	f.register(cmd.PersistentFlags())
	cmd.AddCommand(negActCmd(negAct{
		use:   "request NEGOTIATION --milestone N --basis hourly|stream|milestone --amount A [--units U] [--note N]",
		short: "Ask for part of a milestone, as the worker",
		long: "Sends the poster a PaymentRequest for amount A of milestone N: hourly (--units hours) or stream\n" +
			"(--units stream units), or milestone (all that is left of it, no --units). Refused before it is\n" +
			"sent (payment_exceeds_milestone) beyond what the milestone's released total and pending requests\n" +
			"leave.",
		example: "  parley payment request 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0 --basis hourly --units 3 --amount 0.12eth --note \"terminology\"\n" +
			"  parley payment request 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0 --basis milestone --amount 0.08eth",
		flags: func(cmd *cobra.Command) {
			fs := cmd.Flags()
			fs.IntVar(&milestone, "milestone", 0, "the milestone paid from (0-based)")
			fs.StringVar(&basis, "basis", "", "hourly, stream or milestone (required)")
			fs.StringVar(&amt, "amount", "", "the amount: 0.12eth, 120gwei or wei (required)")
			fs.Uint64Var(&units, "units", 0, "the hours (hourly) or stream units (stream) the amount is for")
			fs.StringVar(&note, "note", "", "a note to the poster")
		},
		check: func([]string) error {
			if milestone < 0 {
				return flagErr("milestone", fmt.Sprint(milestone), fmt.Errorf("milestones count from 0"))
			}
			switch basis {
			case negotiation.BasisHourly, negotiation.BasisStream, negotiation.BasisMilestone:
			default:
				return flagErr("basis", basis, fmt.Errorf("want hourly, stream or milestone"))
			}
			a, err := parseAmount(amt)
			if err != nil {
				return flagErr("amount", amt, err)
			}
			spec = node.PaymentSpec{Milestone: milestone, Basis: basis, Amount: a, Units: units, Note: note}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.RequestPayment(ctx, nid, spec)
		},
	}, f))
	cmd.AddCommand(negActCmd(negAct{
		use:   "release NEGOTIATION --milestone N [--request HASH]",
		short: "Release a milestone's pending payment request, as the poster (needs approval)",
		long: "Releases, once the operator approves, the amount of milestone N's payment request paid next (or\n" +
			"the one --request names, which must be it: requests are paid in order) on chain (releasePart).\n" +
			"The part that releases the rest of the milestone releases the milestone.",
		example: "  parley payment release 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --milestone 0",
		flags: func(cmd *cobra.Command) {
			cmd.Flags().IntVar(&releaseMilestone, "milestone", 0, "the milestone (0-based)")
			cmd.Flags().StringVar(&request, "request", "", "the payment request's hash (default: the one paid next)")
		},
		check: func([]string) error {
			if releaseMilestone < 0 {
				return flagErr("milestone", fmt.Sprint(releaseMilestone), fmt.Errorf("milestones count from 0"))
			}
			rel = node.ReleasePartSpec{Milestone: releaseMilestone}
			if request != "" {
				var h negotiation.Hash
				if err := h.UnmarshalText([]byte(request)); err != nil {
					return flagErr("request", request, err)
				}
				rel.Request = &h
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.ReleasePart(ctx, nid, rel)
		},
	}, f))
	return cmd
}

// printPayments writes a thread's partial payments (each milestone's
// released total and requests) and its capability proofs with their
// checks.
func printPayments(t table, v node.ThreadView) {
	var token negotiation.Address
	if v.Current != nil {
		token = v.Current.Terms.Token
	}
	for _, p := range v.Payments {
		t.row(fmt.Sprintf("payments %d", p.Milestone), fmt.Sprintf("%s released of %s; %s requested and pending; %s left to request",
			fmtAmountString(p.Released, token), fmtAmountString(p.Amount, token), fmtAmountString(p.Outstanding, token), fmtAmountString(p.Requestable, token)))
		for _, r := range p.Requests {
			state := "pending"
			if r.Paid {
				state = "paid"
			}
			line := fmt.Sprintf("%s %s", r.Basis, fmtAmountString(r.Amount, token))
			if r.Units > 0 {
				line += fmt.Sprintf(" for %d units", r.Units)
			}
			if r.Note != "" {
				line += fmt.Sprintf(" (%q)", r.Note)
			}
			t.row("  request "+r.Hash.String(), line+", "+state)
		}
	}
	for _, c := range v.Capabilities {
		var checks []string
		if c.CID != "" {
			checks = append(checks, fmt.Sprintf("file %s %s", c.CID, c.File))
		}
		if c.Attester != nil {
			checks = append(checks, fmt.Sprintf("attestation by %s %s", c.Attester, c.Attestation))
		}
		if c.Ref != "" {
			checks = append(checks, "reference "+c.Ref+" (not checked)")
		}
		verdict := "NOT checked"
		if c.Checked {
			verdict = "checked"
		}
		t.row("capability "+c.Capability, fmt.Sprintf("%s: %s; %s", c.Kind, strings.Join(checks, ", "), verdict))
	}
}
