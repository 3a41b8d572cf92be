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
		Use:   "seal FILE [--negotiation NEGOTIATION] [--via api|mcp]",
		Short: "Seal the intent card in FILE (- reads standard input) once your passkey confirms it",
		Long: "Seals the card: the default card, or with --negotiation the card of one negotiation. The card\n" +
			"goes through the node's API, whose key is not the principal: it is sealed only once the\n" +
			"principal approves it with a passkey (confirm_card, which shows the whole card; it waits in\n" +
			"`parley approvals list` and on the node's pages). The command prints the request and waits for\n" +
			"that decision. --via mcp marks a card an agent drafted over MCP. There is no --via web: the\n" +
			"principal's own word comes only from the node's pages (/card), after a passkey signed it.",
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
			stop := s.follow(nid) // prints the confirm_card request and how to approve it
			if nid == "" {
				c, err = s.c.SealCard(s.ctx(), raw, v)
			} else {
				c, err = s.c.SealNegotiationCard(s.ctx(), nid, raw, v)
			}
			stop("")
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
	seal.Flags().StringVar(&via, "via", string(negotiation.ViaAPI), "how the card arrives: api (through the API) or mcp (drafted by an agent); either way your passkey confirms it")
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

// viaArg checks a --via value: api or mcp. web, the principal's own
// word, is never the CLI's (it talks to the API): the node's pages give
// it after a passkey signed the text.
func viaArg(s string) (negotiation.Via, error) {
	v := negotiation.Via(s)
	switch {
	case v == negotiation.ViaWeb:
		return "", usageErr(flagErr("via", s, errors.New("web is the principal's own word, given only on the node's pages after a passkey signed it; the CLI sends api (the default) and waits for your passkey")))
	case !v.Valid():
		return "", usageErr(flagErr("via", s, errors.New("want api or mcp")))
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
	var (
		via  string
		wait time.Duration
	)
	answer := &cobra.Command{
		Use:   "answer NEGOTIATION ANSWER [--via api|mcp] [--wait D]",
		Short: "Answer a negotiation's pending question: the answer becomes an amendment of its card",
		Long: "Sends the answer through the node's API (--via api, the default; --via mcp for an agent relaying\n" +
			"over MCP). It is sealed into the negotiation's card at once and the negotiation resumes, but the\n" +
			"API's key is not the principal: the answer binds only once the principal confirms it with a\n" +
			"passkey (confirm_answer, which shows the question and the answer; it waits in `parley approvals\n" +
			"list` and on the node's pages). The command prints the request and waits up to --wait for that\n" +
			"decision (0: it returns at once, and acts resting on the answer wait). The principal answers in\n" +
			"their own words on the node's pages (/escalations), confirmed with a passkey.",
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
			nid := strings.ToLower(args[0])
			stop := s.follow(nid) // prints the confirm_answer request and how to approve it
			room, err := s.c.Answer(s.ctx(), nid, args[1], v)
			if err != nil {
				stop("")
				return s.fail(err)
			}
			i := len(room.Answers) - 1
			a := room.Answers[i]
			if !a.Confirmed && wait > 0 {
				a.Confirmed, err = waitConfirmed(s, nid, i, wait)
			}
			stop("")
			var ee *exitError
			if errors.As(err, &ee) {
				return err
			}
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				state := "confirmed with your passkey; the negotiation resumes"
				if !a.Confirmed {
					state = "the negotiation resumes; acts resting on it wait for your passkey (parley approvals list)"
				}
				fmt.Fprintf(w, "answered %q: sealed as amendments[%d] of the card (now %s); %s\n", a.Question, i, room.CardHash, state)
			})
		},
	}
	answer.Flags().StringVar(&via, "via", string(negotiation.ViaAPI), "how the answer arrives: api (through the API) or mcp (relayed by an agent); either way your passkey confirms it")
	answer.Flags().DurationVar(&wait, "wait", 10*time.Minute, "how long to wait for the passkey's confirmation (0: do not wait)")
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

// waitConfirmed waits, up to wait, until answer i of negotiation nid is
// confirmed. It fails once the confirm_answer request it saw waiting is
// gone without a confirmation (denied, or its window ended); the answer
// then stays unconfirmed.
func waitConfirmed(s *session, nid string, i int, wait time.Duration) (bool, error) {
	ctx := s.ctx()
	deadline := time.Now().Add(wait)
	var seen bool
	var gone time.Time
	for {
		room, err := s.c.Room(ctx, nid)
		if err != nil {
			return false, err
		}
		if i < len(room.Answers) && room.Answers[i].Confirmed {
			return true, nil
		}
		reqs, err := s.c.Approvals(ctx)
		if err != nil {
			return false, err
		}
		waiting := false
		for _, r := range reqs {
			if r.Act == node.ActConfirmAnswer && r.Request.Action.Target == nid {
				waiting = true
			}
		}
		switch {
		case waiting:
			seen, gone = true, time.Time{}
		case seen && gone.IsZero():
			gone = time.Now() // decided: the confirmation is recorded just after
		case seen && time.Since(gone) > 3*time.Second:
			return false, &exitError{code: exitRefused, err: fmt.Errorf("the confirmation of the answer was denied or expired: the answer stays unconfirmed, and acts resting on it are refused (answer_unconfirmed)")}
		}
		if time.Now().After(deadline) {
			return false, &exitError{code: exitRefused, err: fmt.Errorf("the answer was not confirmed within %s: it stays sealed but unconfirmed; approve confirm_answer with your passkey (parley approvals list)", wait)}
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
