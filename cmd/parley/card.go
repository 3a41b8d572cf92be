package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
)

func newCardCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "card",
		Short: "Seal and show the principal's intent card (PXP): what the node may agree to for you",
		Long: "The intent card says what the principal wants, what the node may agree to, what it must never\n" +
			"do and when it must ask (docs/pxp.md). Once sealed, its SHA-256 rides in every envelope the node\n" +
			"sends; the card itself stays in the node's ledger. The default card applies to every negotiation\n" +
			"the node opens or joins from then on; --negotiation seals one for a single negotiation, before\n" +
			"the node has spoken there. Afterwards a card changes only by the principal's answers to the\n" +
			"node's questions (parley escalations).",
	}
	f.register(cmd.PersistentFlags())
	var nid, via string
	seal := &cobra.Command{
		Use:   "seal FILE [--negotiation NEGOTIATION] [--via web|mcp]",
		Short: "Seal the intent card in FILE (- reads standard input)",
		Long: "Seals the card: the default card, or with --negotiation the card of one negotiation. --via mcp\n" +
			"marks a card an agent drafted: the node seals it only once the principal approves it with a\n" +
			"passkey (confirm_card, waiting in `parley approvals list`); the command waits for that.",
		Example: "  parley card seal card.json\n" +
			"  parley card seal card.json --negotiation 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := viaArg(via)
			if err != nil {
				return err
			}
			if nid != "" {
				if _, err := negotiation.ParseNegotiationID(nid); err != nil {
					return usageErr(flagErr("--negotiation", nid, err))
				}
			}
			raw, err := readCardFile(cmd, args[0])
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			var c node.CardInfo
			if nid == "" {
				c, err = s.c.SealCard(s.ctx(), raw, v)
			} else {
				c, err = s.c.SealNegotiationCard(s.ctx(), nid, raw, v)
			}
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				what := "the default card"
				if nid != "" {
					what = "the card of negotiation " + nid
				}
				fmt.Fprintf(w, "sealed %s for %s: %s\n", what, c.Principal, c.Hash)
			})
		},
	}
	seal.Flags().StringVar(&nid, "negotiation", "", "seal the card for this negotiation only")
	seal.Flags().StringVar(&via, "via", "web", "how the principal gave the card: web (yourself) or mcp (drafted by an agent: needs your passkey)")
	f.registerAct(seal.Flags())
	var showNID string
	show := &cobra.Command{
		Use:   "show [--negotiation NEGOTIATION]",
		Short: "Show the default card, or the card a negotiation acts under (with the principal's answers)",
		Example: "  parley card show\n" +
			"  parley card show --negotiation 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --json",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if showNID != "" {
				if _, err := negotiation.ParseNegotiationID(showNID); err != nil {
					return usageErr(flagErr("--negotiation", showNID, err))
				}
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			var c node.CardInfo
			if showNID == "" {
				c, err = s.c.Card(s.ctx())
			} else {
				c, err = s.c.NegotiationCard(s.ctx(), showNID)
			}
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				fmt.Fprintf(w, "principal  %s\nhash       %s\n", c.Principal, c.Hash)
				var buf bytes.Buffer
				if json.Indent(&buf, c.Card, "", "  ") == nil {
					fmt.Fprintf(w, "%s\n", buf.String())
				}
			})
		},
	}
	show.Flags().StringVar(&showNID, "negotiation", "", "show the card of this negotiation")
	cmd.AddCommand(seal, show)
	return cmd
}

// readCardFile reads a card from path, or from standard input for "-".
func readCardFile(cmd *cobra.Command, path string) ([]byte, error) {
	var raw []byte
	var err error
	if path == "-" {
		raw, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), negotiation.MaxIntentCardBytes+1))
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, usageErr(fmt.Errorf("reading the card: %w", err))
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, usageErr(errors.New("the card file is empty"))
	}
	if err := strictjson.Check(raw); err != nil {
		return nil, usageErr(fmt.Errorf("the card file: %w", err))
	}
	return raw, nil
}

// viaArg checks a --via value.
func viaArg(s string) (negotiation.Via, error) {
	v := negotiation.Via(s)
	if !v.Valid() {
		return "", usageErr(flagErr("--via", s, errors.New("want web or mcp")))
	}
	return v, nil
}

func newEscalationsCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "escalations",
		Short: "List the questions paused negotiations wait on, and answer them",
		Long: "When an act would go beyond the principal's intent card (cross a must_never, leave may_agree_to,\n" +
			"match an escalate_when, rest on a conflict or on an assumption touching a must-have), the node\n" +
			"pauses that negotiation on one question and refuses every other act there (paused). The answer\n" +
			"is sealed into the negotiation's card as an amendment and the negotiation resumes.",
	}
	f.register(cmd.PersistentFlags())
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the pending questions, oldest first",
		Example: "  parley escalations list\n  parley escalations list --json",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			es, err := s.c.Escalations(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) { printEscalations(w, es) })
		},
	}
	var via string
	answer := &cobra.Command{
		Use:   "answer NEGOTIATION ANSWER [--via web|mcp]",
		Short: "Answer a negotiation's pending question: the answer becomes an amendment of its card",
		Long: "Answers as the principal (--via web, the default). An agent relaying its principal's words says\n" +
			"--via mcp: the answer then binds only once the principal confirms it with a passkey\n" +
			"(confirm_answer, waiting in `parley approvals list`).",
		Example: "  parley escalations answer 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b \"Yes, up to 0.6 ETH for this task.\"",
		Args:    usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := negotiation.ParseNegotiationID(args[0]); err != nil {
				return usageErr(fmt.Errorf("negotiation %q: %w", args[0], err))
			}
			if strings.TrimSpace(args[1]) == "" {
				return usageErr(errors.New("the answer is empty"))
			}
			v, err := viaArg(via)
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			room, err := s.c.Answer(s.ctx(), args[0], args[1], v)
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				a := room.Answers[len(room.Answers)-1]
				state := "the negotiation resumes"
				if !a.Confirmed {
					state += "; acts resting on it wait for your passkey (parley approvals list)"
				}
				fmt.Fprintf(w, "answered %q: sealed as amendments[%d] of the card (now %s); %s\n", a.Question, len(room.Answers)-1, room.CardHash, state)
			})
		},
	}
	answer.Flags().StringVar(&via, "via", "web", "web: the principal's own words; mcp: relayed by an agent (needs the principal's passkey)")
	f.registerAct(answer.Flags())
	cmd.AddCommand(list, answer)
	return cmd
}

func printEscalations(w io.Writer, es []node.PendingEscalation) {
	if len(es) == 0 {
		fmt.Fprintln(w, "no negotiation waits for an answer")
		return
	}
	for _, e := range es {
		title := e.Title
		if title == "" {
			title = "-"
		}
		fmt.Fprintf(w, "%s  %s  (%s, asked %s)\n  %s\n", e.NegotiationID, title, strings.Join(e.Triggers, ", "), e.At.Local().Format(time.DateTime), e.Question)
		if e.Reason != "" {
			fmt.Fprintf(w, "  why: %s\n", e.Reason)
		}
	}
}
