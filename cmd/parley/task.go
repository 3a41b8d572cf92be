package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// taskFlags are the terms flags of task post and task propose.
type taskFlags struct {
	title, description, category, deadline, token string
	milestones                                    []string
	supervisor                                    string
	scopeFile                                     string // the scope document, whose SHA-256 the terms name
	publishScope                                  bool   // publish the scope hash on chain (post only; gated)
}

func (t *taskFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&t.title, "title", "", "the task's title (required)")
	fs.StringVar(&t.description, "description", "", "what the task is")
	fs.StringVar(&t.category, "category", "", "the task's category, such as translation")
	fs.StringArrayVar(&t.milestones, "milestone", nil, "a milestone AMOUNT:DESCRIPTION, amount in wei or with an eth or gwei suffix (repeat for each; at least one)")
	fs.StringVar(&t.deadline, "deadline", "72h", "a duration from now (72h, 3d) or an RFC 3339 time")
	fs.StringVar(&t.token, "token", "", "the ERC-20 token paid (default ETH)")
	supervisorFlag(fs, &t.supervisor)
	fs.StringVar(&t.scopeFile, "scope-file", "", "the task's scope document: the terms name its SHA-256 (terms.scopeHash)")
	fs.BoolVar(&t.publishScope, "publish-scope", false, "publish the scope hash on chain under the announcement (task post; needs approval: it spends gas)")
}

// spec builds the task's spec from the flags.
func (t *taskFlags) spec() (node.TaskSpec, error) {
	if strings.TrimSpace(t.title) == "" {
		return node.TaskSpec{}, usageErr(fmt.Errorf("--title is required"))
	}
	if len(t.milestones) == 0 {
		return node.TaskSpec{}, usageErr(fmt.Errorf("--milestone is required (AMOUNT:DESCRIPTION, repeat for each)"))
	}
	ms, err := parseMilestones(t.milestones)
	if err != nil {
		return node.TaskSpec{}, err
	}
	dl, err := parseDeadline(t.deadline, time.Now())
	if err != nil {
		return node.TaskSpec{}, err
	}
	spec := node.TaskSpec{Title: t.title, Description: t.description, Category: t.category, Milestones: ms, Deadline: dl}
	if spec.Supervisor, err = parseSupervisor(t.supervisor); err != nil {
		return node.TaskSpec{}, err
	}
	if t.token != "" {
		if spec.Token, err = parseAddr("--token", t.token); err != nil {
			return node.TaskSpec{}, err
		}
	}
	if t.scopeFile != "" {
		doc, err := readFileArg("scope-file", t.scopeFile)
		if err != nil {
			return node.TaskSpec{}, err
		}
		h := negotiation.Hash(sha256.Sum256(doc))
		spec.ScopeHash = &h
	}
	if t.publishScope && spec.ScopeHash == nil {
		return node.TaskSpec{}, usageErr(fmt.Errorf("--publish-scope needs --scope-file"))
	}
	spec.PublishScope = t.publishScope
	return spec, nil
}

func newTaskCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "task",
		Short: "Post, propose, list and show tasks on a running node",
		Long: "Tasks through the node's API. A task posted on the board is an announcement, named by its hash\n" +
			"(0x and 64 hex digits); workers answer it with `parley offer counter|accept HASH`, each in a\n" +
			"negotiation of its own, named by a UUID. A task proposed to one worker opens a negotiation at once.",
	}
	f.register(cmd.PersistentFlags())
	cmd.AddCommand(newTaskPostCmd(&f), newTaskAnnounceCmd(&f), newTaskProposeCmd(&f), newTaskListCmd(&f), newTaskShowCmd(&f),
		newTaskScopeCmd(&f)) // court.go
	return cmd
}

func newTaskPostCmd(f *clientFlags) *cobra.Command {
	var t taskFlags
	cmd := &cobra.Command{
		Use:   "post --title TITLE --milestone AMOUNT:DESCRIPTION... [--deadline 72h]",
		Short: "Announce a task on the public task board",
		Long: "Announces a task on the board: the node signs a TaskProposal without recipients and publishes it.\n" +
			"Prints the announcement's hash, which workers answer.",
		Example: "  parley task post --title \"Translate the user guide\" --milestone 0.5eth:\"first half\" \\\n" +
			"      --milestone 0.25eth:\"second half\" --deadline 72h --category translation\n" +
			"  parley task post --title \"Translate the user guide\" --milestone 1eth:all --scope-file scope.md --publish-scope\n" +
			"  parley task post --title Proofread --milestone 300000000000000000:all --deadline 2026-07-01T12:00:00Z --json",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, err := t.spec()
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			a, err := s.c.PostTask(s.ctx(), spec)
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				printAnnouncement(w, a)
				fmt.Fprintf(w, "workers answer it with: parley offer counter|accept %s\n", a.Hash)
			})
		},
	}
	t.register(cmd)
	f.registerAct(cmd.Flags())
	return cmd
}

func newTaskAnnounceCmd(f *clientFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "announce HASH",
		Short: "Publish one of this node's announcements again",
		Long: "Publishes an announcement this node posted again, unchanged, for workers that joined the board\n" +
			"after it was first published (the board's gossip keeps no history).",
		Example: "  parley task announce 0x5c0e...e1a9",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := parseHashArg("announcement", args[0])
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			a, err := s.c.Announce(s.ctx(), h)
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) { fmt.Fprintf(w, "announced %s again\n", a.Hash) })
		},
	}
	f.registerAct(cmd.Flags())
	return cmd
}

func newTaskProposeCmd(f *clientFlags) *cobra.Command {
	var t taskFlags
	var worker string
	cmd := &cobra.Command{
		Use:   "propose --worker 0x... --title TITLE --milestone AMOUNT:DESCRIPTION...",
		Short: "Propose a task directly to one worker",
		Long:  "Proposes a task to one worker: a TaskProposal sealed to it, in a new negotiation.",
		Example: "  parley task propose --worker 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC --title \"Translate\" \\\n" +
			"      --milestone 1eth:all --deadline 3d",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if worker == "" {
				return usageErr(fmt.Errorf("--worker is required"))
			}
			w, err := parseAddr("--worker", worker)
			if err != nil {
				return err
			}
			spec, err := t.spec()
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			r, err := s.act("", func(ctx context.Context) (node.ActResult, error) {
				return s.c.ProposeTask(ctx, w, spec)
			})
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) { printAct(w, r) })
		},
	}
	t.register(cmd)
	cmd.Flags().StringVar(&worker, "worker", "", "the worker's EVM address (required)")
	f.registerAct(cmd.Flags())
	return cmd
}

func newTaskListCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the task board as the node sees it",
		Example: "  parley task list\n" +
			"  parley task list --json | jq '.[] | select(.own == false) | .hash'",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			board, err := s.c.Tasks(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				if len(board) == 0 {
					fmt.Fprintln(w, "the board is empty")
					return
				}
				t := newTable(w)
				t.row("ANNOUNCEMENT", "TOTAL", "DEADLINE", "POSTER", "TITLE")
				for _, a := range board {
					poster := a.Poster.String()
					if a.Own {
						poster += " (own)"
					}
					t.row(a.Hash, fmtAmount(termsTotal(a.Terms), a.Terms.Token), fmtUnix(a.Terms.Deadline), poster, a.Terms.Title)
				}
				t.flush()
			})
		},
	}
}

func newTaskShowCmd(f *clientFlags) *cobra.Command {
	var withLog bool
	cmd := &cobra.Command{
		Use:   "show HASH|NEGOTIATION",
		Short: "Show an announcement (by hash) or a negotiation (by id)",
		Long: "Shows an announcement on the board when given its hash (0x and 64 hex digits), or a negotiation\n" +
			"(its state and A2A state, parties, current terms, agreement, task, deliveries) when given its id.",
		Example: "  parley task show 0x5c0e...e1a9\n" +
			"  parley task show 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --log",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			nid, ann, isAnn, err := negOrAnnouncement(args[0])
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			if isAnn {
				a, err := s.c.Task(s.ctx(), ann)
				if err != nil {
					return s.fail(err)
				}
				return s.show(func(w io.Writer) { printAnnouncement(w, a) })
			}
			return showNegotiation(s, nid, withLog)
		},
	}
	cmd.Flags().BoolVar(&withLog, "log", false, "list every envelope of a negotiation")
	return cmd
}

func showNegotiation(s *session, nid string, withLog bool) error {
	v, err := s.c.Negotiation(s.ctx(), nid)
	if err != nil {
		return s.fail(err)
	}
	return s.show(func(w io.Writer) { printThread(w, v, withLog) })
}

func newNegotiationCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:     "negotiation",
		Aliases: []string{"neg"},
		Short:   "List and show the node's negotiations",
	}
	f.register(cmd.PersistentFlags())
	var state string
	list := &cobra.Command{
		Use:   "list [--state STATE]",
		Short: "List the node's negotiations with their state and A2A state",
		Example: "  parley negotiation list\n" +
			"  parley negotiation list --state agreed --json",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			vs, err := s.c.Negotiations(s.ctx(), negotiation.State(state))
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				if len(vs) == 0 {
					fmt.Fprintln(w, "no negotiations")
					return
				}
				t := newTable(w)
				t.row("NEGOTIATION", "STATE", "A2A", "ROLE", "TOTAL", "TITLE")
				for _, v := range vs {
					total, title := "-", "-"
					if c := v.Current; c != nil {
						total, title = fmtAmount(termsTotal(c.Terms), c.Terms.Token), c.Terms.Title
					}
					t.row(v.NegotiationID, v.State, v.A2A, v.Role, total, title)
				}
				t.flush()
			})
		},
	}
	list.Flags().StringVar(&state, "state", "", "only negotiations in this state (proposed, countered, agreed, funded, ...)")
	var withLog bool
	show := &cobra.Command{
		Use:     "show NEGOTIATION",
		Short:   "Show a negotiation: state, parties, terms, agreement, task, deliveries",
		Example: "  parley negotiation show 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --log",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			nid, err := parseNegArg(args[0])
			if err != nil {
				return err
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			return showNegotiation(s, nid, withLog)
		},
	}
	show.Flags().BoolVar(&withLog, "log", false, "list every envelope")
	cmd.AddCommand(list, show)
	return cmd
}
