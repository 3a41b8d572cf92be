package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

func newStatusCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a running node's status: identity, addresses, threads, ledger head, chain",
		Example: "  parley status --data-dir ~/.parley-worker\n" +
			"  parley status --api http://127.0.0.1:7464 --api-key-file ~/.parley/api.key --json",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			st, err := s.c.Status(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				t := newTable(w)
				if st.Name != "" {
					t.row("name", st.Name)
				}
				t.row("api", s.url)
				t.row("evm address", st.Address)
				t.row("peer id", st.PeerID)
				t.row("reachability", st.Network.Reachability)
				t.row("listening", strings.Join(st.Network.Listen, " "))
				t.row("announced", strings.Join(st.Addrs, " "))
				t.row("peers", peersLine(st.Network))
				t.row("identity link", fmt.Sprintf("%s (expires %s)", st.LinkHash, st.LinkExpires.UTC().Format(time.RFC3339)))
				if len(st.Capabilities) > 0 {
					t.row("capabilities", strings.Join(st.Capabilities, ", "))
				}
				t.row("negotiations", st.Threads)
				t.row("task board", st.Board)
				t.row("approvals", fmt.Sprintf("%d pending", st.Approvals))
				t.row("outbox", fmt.Sprintf("%d envelopes not yet acknowledged", st.Outbox))
				t.row("ledger", fmt.Sprintf("%d entries, head %s", st.Ledger.Seq, st.Ledger.Hash))
				t.row("ledger check", ledgerCheckLine(st.LedgerCheck))
				for _, d := range st.LedgerCheck.Damage {
					where := "entry"
					if d.Object {
						where = "object of entry"
					}
					neg := d.NegotiationID
					if neg == "" {
						neg = "no negotiation"
					}
					t.row("DAMAGED", fmt.Sprintf("%s %d (%s, %s): %s", where, d.Seq, d.Code, neg, d.Msg))
				}
				chain := "none"
				if st.Chain {
					chain = "connected"
				}
				if st.ChainError != "" {
					chain += ", last error: " + st.ChainError
				}
				t.row("chain", chain)
				for _, x := range st.Timeouts {
					t.row("TIMEOUT DUE", fmt.Sprintf("%s %s: %s wei (parley timeout --help)", x.NegotiationID, exitName(x), x.Amount))
				}
				t.flush()
			})
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// ledgerCheckLine says how far the node's full verification of its ledger
// has come and what it found.
func ledgerCheckLine(c node.LedgerCheck) string {
	var s string
	switch {
	case c.Complete:
		s = fmt.Sprintf("complete: every entry up to %d verified", c.VerifiedTo)
	case c.Error != "":
		s = fmt.Sprintf("stopped at entry %d of %d: %s", c.VerifiedTo, c.Target, c.Error)
	default:
		s = fmt.Sprintf("running: %d of %d entries verified", c.VerifiedTo, c.Target)
	}
	if len(c.Damage) > 0 {
		s += fmt.Sprintf("; %d damaged (acts and exports that rest on them are refused; restore the ledger from a backup)", len(c.Damage))
	} else {
		s += "; no damage found"
	}
	return s
}

func newEventsCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "events [NEGOTIATION]",
		Short: "Follow the node's events (all, or one negotiation's) until Ctrl-C",
		Long: "Follows the node's event stream: envelopes sent and received, state changes, chain facts,\n" +
			"approval requests and decisions, fetched files. One line per event; with --json, each event's\n" +
			"JSON on a line of its own.",
		Example: "  parley events\n" +
			"  parley events 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --json",
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			nid := ""
			if len(args) == 1 {
				var err error
				if nid, err = parseNegArg(args[0]); err != nil {
					return err
				}
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			ctx := s.ctx()
			ch, err := s.c.Events(ctx, nid)
			if err != nil {
				return s.fail(err)
			}
			w := s.out()
			for ev := range ch {
				if f.json {
					b, _ := jsonLine(ev)
					_, _ = w.Write(b)
					continue
				}
				line := s.progressLine(ctx, s.c, ev)
				if line == "" {
					continue
				}
				if ev.NegotiationID != "" && nid == "" {
					line = ev.NegotiationID + "  " + line
				}
				fmt.Fprintf(w, "%s  %s\n", ev.At.UTC().Format("15:04:05.000"), line)
			}
			if ctx.Err() == nil {
				return &exitError{code: exitUnreachable, err: fmt.Errorf("the node at %s closed the event stream", s.url)}
			}
			return nil
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// jsonLine encodes an event on one line.
func jsonLine(ev node.Event) ([]byte, error) {
	b, err := json.Marshal(ev)
	return append(b, '\n'), err
}

// peersLine counts a node's connections by path and direction.
func peersLine(n p2p.NetStatus) string {
	count := func(path p2p.Path) string {
		var in, out int
		for _, c := range n.Peers {
			if c.Path != path {
				continue
			}
			if c.Direction == "inbound" {
				in++
			} else {
				out++
			}
		}
		return fmt.Sprintf("%d %s (%d inbound, %d outbound)", in+out, path, in, out)
	}
	return count(p2p.PathDirect) + ", " + count(p2p.PathRelayed)
}

// reachabilityLine says how other nodes reach this one and what decides
// it, from the node's settings.
func reachabilityLine(r p2p.Reachability, c node.P2PConfig) string {
	var how []string
	switch {
	case c.Reachability != "":
		how = append(how, "set by p2p.reachability")
	case c.NAT:
		how = append(how, "AutoNAT v2, port mapping and hole punching (p2p.nat)")
	default:
		how = append(how, "AutoNAT; p2p.nat off")
	}
	if c.RelayService {
		how = append(how, "serving as a relay while public (p2p.relay_service)")
	}
	if len(c.Relays) > 0 {
		how = append(how, fmt.Sprintf("%d static relays (p2p.relays)", len(c.Relays)))
	}
	if len(c.Announce) > 0 {
		how = append(how, "addresses from p2p.announce")
	}
	return fmt.Sprintf("%s (%s)", r, strings.Join(how, "; "))
}
